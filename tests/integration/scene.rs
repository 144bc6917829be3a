//! The neutral scene description: every triangle of every mesh leads back to the record of the file
//! that made it, and that record's bytes lie inside its chunk and say what the mesh shows.

use lwo_wmo_viewer::formats::Model;
use lwo_wmo_viewer::mesh::coords::wmo_to_bevy;
use lwo_wmo_viewer::scene::{LoadOptions, RecordKind, Scene, load};
use lwo_wmo_viewer::source::LooseFolder;

use crate::support::asset;

fn scene_of(path: &std::path::Path) -> Scene {
    let (source, relative) = LooseFolder::containing(path);
    load(&source, &relative, None, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The three corners of triangle `t` of a mesh, as positions.
fn corners(scene: &Scene, mesh: usize, t: usize) -> [[f32; 3]; 3] {
    let data = &scene.meshes[mesh].data;
    [0, 1, 2].map(|k| data.positions[data.indices[3 * t + k] as usize])
}

/// Checks every triangle of every mesh with a source: its record's bytes are inside its chunk's data
/// and inside the file. Returns how many triangles were checked.
fn every_triangle_maps_into_its_chunk(scene: &Scene) -> usize {
    let mut checked = 0;
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let Some(_) = mesh.source else { continue };
        for t in 0..mesh.data.triangle_count() {
            let origin =
                scene.triangle_origin(m, t).unwrap_or_else(|| panic!("{} triangle {t} has no origin", mesh.label));
            let file_length = scene.files[origin.file].bytes.len();
            assert!(
                origin.chunk_data.start <= origin.bytes.start
                    && origin.bytes.end <= origin.chunk_data.end
                    && origin.chunk_data.end <= file_length,
                "{} triangle {t}: record {:?} outside {} {:?}",
                mesh.label,
                origin.bytes,
                origin.chunk_path,
                origin.chunk_data
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_wmo_triangle_leads_to_its_mopy_entry_and_movi_corners() {
    let scene = scene_of(&asset("courtyard.wmo"));
    assert!(every_triangle_maps_into_its_chunk(&scene) > 0);
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let Some(source) = mesh.source.filter(|s| matches!(s.kind, RecordKind::WmoTriangle { .. })) else { continue };
        let file = &scene.files[source.file];
        let Model::WmoGroup(group) = &file.document.as_deref().unwrap().model else {
            panic!("{} is not from a group", mesh.label)
        };
        for t in 0..mesh.data.triangle_count() {
            let origin = scene.triangle_origin(m, t).unwrap();
            assert!(origin.chunk_path.ends_with("MOPY"), "{}", origin.chunk_path);
            let record = origin.record as usize;
            // The MOPY entry's bytes are the flags and material the parser read for this triangle.
            let entry = &file.bytes[origin.bytes.clone()];
            assert_eq!(
                (entry[0], entry[1]),
                (group.triangle_flags[record], group.triangle_materials[record]),
                "{}",
                mesh.label
            );
            // Its MOVI corners are the triangle drawn.
            let movi = [0, 1, 2].map(|k| wmo_to_bevy(group.positions[usize::from(group.indices[3 * record + k])]));
            assert_eq!(corners(&scene, m, t), movi, "{} triangle {t}", mesh.label);
        }
    }
}

#[test]
fn every_m2_triangle_leads_to_its_skin_triangle() {
    let scene = scene_of(&asset("World/Generic/Barrel.m2"));
    assert!(every_triangle_maps_into_its_chunk(&scene) > 0);
    let Model::M2(model) = &scene.files[0].document.as_deref().unwrap().model else { panic!("not an M2") };
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let Some(source) = mesh.source else { continue };
        assert!(
            scene.files[source.file].path.to_ascii_lowercase().ends_with("barrel00.skin"),
            "{}",
            scene.files[source.file].path
        );
        let skin = lwo_wmo_viewer::formats::m2::parse_skin(&scene.files[source.file].bytes).unwrap();
        for t in 0..mesh.data.triangle_count() {
            let origin = scene.triangle_origin(m, t).unwrap();
            let bytes = &scene.files[source.file].bytes[origin.bytes.clone()];
            let drawn = [0, 1, 2].map(|k| {
                let lookup = usize::from(u16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]]));
                wmo_to_bevy(model.vertices[usize::from(skin.vertex_lookup[lookup])].position)
            });
            assert_eq!(corners(&scene, m, t), drawn, "{} triangle {t}", mesh.label);
        }
    }
}

#[test]
fn doodad_instances_share_one_model_and_every_file_is_kept_with_its_bytes() {
    let scene = scene_of(&asset("courtyard.wmo"));
    // Root, three groups, two doodad models and their skins, each with the bytes it was parsed from.
    let names: Vec<String> =
        scene.files.iter().map(|f| lwo_wmo_viewer::scene::file_name(&f.path).to_ascii_lowercase()).collect();
    for expected in [
        "courtyard.wmo",
        "courtyard_000.wmo",
        "courtyard_001.wmo",
        "courtyard_002.wmo",
        "barrel.m2",
        "barrel00.skin",
        "lamp.m2",
        "lamp00.skin",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} not in {names:?}");
    }
    for file in &scene.files {
        assert_eq!(&*file.bytes, std::fs::read(&file.display_path).unwrap().as_slice(), "{}", file.display_path);
    }
    // Every doodad node of one model draws the same meshes.
    let barrel_meshes: std::collections::BTreeSet<usize> = scene
        .nodes
        .iter()
        .filter_map(|n| n.draw)
        .map(|d| d.mesh)
        .filter(|&m| scene.meshes[m].label.starts_with("M2Model0/"))
        .collect();
    let units = scene.meshes.iter().filter(|m| m.label.starts_with("M2Model0/")).count();
    assert_eq!(barrel_meshes.len(), units);
    assert!(
        scene
            .nodes
            .iter()
            .filter(|n| n.draw.is_some_and(|d| scene.meshes[d.mesh].label.starts_with("M2Model0/")))
            .count()
            > units
    );
}

/// Every LightWave triangle leads to its polygon's POLS record: the record lies inside the chunk and
/// its count field says as many corners as the polygon has.
fn lightwave_triangles_lead_to_their_pols_records(path: &std::path::Path) -> usize {
    let scene = scene_of(path);
    let checked = every_triangle_maps_into_its_chunk(&scene);
    let Some(Model::Lwo(object)) = scene.files[0].document.as_deref().map(|d| &d.model) else {
        panic!("{} is not LightWave", path.display())
    };
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let Some(RecordKind::LwoPolygon { layer }) = mesh.source.map(|s| s.kind) else { continue };
        let polygons = &object.layers[layer].polygons;
        for t in 0..mesh.data.triangle_count() {
            let origin = scene.triangle_origin(m, t).unwrap();
            let chunk = origin.chunk_path.rsplit('/').next().unwrap();
            assert!(chunk == "POLS" || chunk.starts_with("POLS["), "{}: {}", path.display(), origin.chunk_path);
            let p = mesh.data.triangle_records[t] as usize;
            let bytes = &scene.files[0].bytes[origin.bytes.clone()];
            let count = usize::from(u16::from_be_bytes([bytes[0], bytes[1]]) & 0x3FF);
            assert_eq!(count, polygons.vertices(p).len(), "{} {} triangle {t}", path.display(), mesh.label);
            assert!(scene.describe_triangle(m, t).is_some(), "{} {} triangle {t}", path.display(), mesh.label);
        }
    }
    checked
}

#[test]
fn every_lightwave_triangle_of_the_corpus_leads_to_its_pols_record() {
    let mut files = crate::lwo::corpus_files();
    files.push(asset("square-with-detail.lwo"));
    let objects = crate::lwo3::content_root().join("Objects");
    files.extend(
        std::fs::read_dir(&objects)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "lwo")),
    );
    let mut triangles = 0;
    for path in &files {
        triangles += lightwave_triangles_lead_to_their_pols_records(path);
    }
    assert!(triangles > 10_000, "{triangles} triangles checked over {} files", files.len());
}

/// A large LightWave object reports its meshes stage piece by piece (a range of a layer's polygons
/// each), the counts only ever rising, to all of them; the window shows it as a share ("meshes 40 %").
#[test]
fn a_large_lightwave_object_reports_its_meshes_piece_by_piece() {
    use lwo_wmo_viewer::scene::LoadProgress;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = std::env::temp_dir().join(format!("lwo-wmo-viewer-progress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("terrain.lwo"), lwo_wmo_viewer::fixtures::lwo::large_object(600, 600)).unwrap();
    let source = LooseFolder::new(&dir);
    let file = lwo_wmo_viewer::scene::read_file(&source, "terrain.lwo").unwrap();
    let Model::Lwo(object) = &file.document.as_ref().unwrap().model else { panic!("an LWO") };
    let pieces = lwo_wmo_viewer::mesh::lwo::work_items(object);
    assert!(pieces >= 5, "the 600 × 600 terrain is several ranges: {pieces}");
    let progress = Arc::new(LoadProgress::default());
    let options = LoadOptions { progress: Some(progress.clone()), ..LoadOptions::default() };
    let finished = AtomicBool::new(false);
    let seen = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut seen: Vec<(&'static str, usize, usize)> = Vec::new();
            while !finished.load(Ordering::Relaxed) {
                let now = progress.snapshot();
                if seen.last() != Some(&now) {
                    seen.push(now);
                }
                std::thread::yield_now();
            }
            seen.push(progress.snapshot());
            seen
        });
        let scene = lwo_wmo_viewer::scene::build(&source, file, None, &options).unwrap();
        finished.store(true, Ordering::Relaxed);
        assert!(scene.meshes.iter().map(|m| m.data.triangle_count()).sum::<usize>() > 600 * 600);
        watcher.join().unwrap()
    });
    let meshes: Vec<usize> = seen
        .iter()
        .filter(|(stage, _, total)| *stage == "meshes" && *total == pieces)
        .map(|&(_, done, _)| done)
        .collect();
    assert_eq!(meshes.last(), Some(&pieces), "every piece reported: {seen:?}");
    assert!(meshes.windows(2).all(|w| w[0] <= w[1]), "counts only rise: {seen:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A LightWave quad is outlined by its four sides, not by the two triangles it was cut into; a WMO
/// triangle (its record) by its three.
#[test]
fn a_record_is_outlined_by_its_own_sides() {
    let lwo = scene_of(&asset("square-with-detail.lwo"));
    let (m, t) = lwo
        .meshes
        .iter()
        .enumerate()
        .find_map(|(m, mesh)| mesh.data.triangle_records.iter().position(|&r| r == 0).map(|t| (m, t)))
        .expect("polygon 0 was drawn");
    let outline = lwo.meshes[m].record_outline(t);
    let data = &lwo.meshes[m].data;
    assert_eq!(
        outline.len(),
        4,
        "{outline:?}; records {:?}; indices {:?}; positions {:?}",
        data.triangle_records,
        data.indices,
        data.positions
    );
    let wmo = scene_of(&asset("courtyard.wmo"));
    let m = wmo.meshes.iter().position(|mesh| mesh.source.is_some()).unwrap();
    assert_eq!(wmo.meshes[m].record_outline(0).len(), 3);
}
