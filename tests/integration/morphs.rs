//! LightWave morphs (MORF relative, SPOT absolute) as morph targets: each mesh vertex's change at
//! weight 1 checked against the same object rebuilt with its points moved by hand (flat polygons and
//! subdivision cages), the real Cube10 drawn at two weights, and glTF targets the validator accepts.

use std::path::Path;

use lwo_wmo_viewer::export::{ExportOptions, write_file};
use lwo_wmo_viewer::fixtures::lwo::{Lwo3Object, lwo3_object, lwo3_sample};
use lwo_wmo_viewer::formats::{Model, parse_document};
use lwo_wmo_viewer::mesh::MeshData;
use lwo_wmo_viewer::mesh::lwo::{BuildOptions, LwoMeshes, build};
use lwo_wmo_viewer::scene::{LoadOptions, load};
use lwo_wmo_viewer::source::LooseFolder;

use crate::support::scratch;

fn meshes_of(object: &Lwo3Object, options: BuildOptions) -> LwoMeshes {
    let Model::Lwo(parsed) = parse_document(&lwo3_object(object)).unwrap().model else { panic!("not LightWave") };
    build(&parsed, options)
}

fn surface_meshes(meshes: &LwoMeshes) -> Vec<&MeshData> {
    meshes.layers.iter().flat_map(|l| &l.surfaces).map(|s| &s.mesh).collect()
}

/// The sample with `name`'s morph applied to its points by hand (MORF adds, SPOT replaces) and no morphs.
fn applied(sample: &Lwo3Object, name: &str) -> Lwo3Object {
    let map = sample.maps.iter().find(|m| m.name == name).unwrap();
    let mut moved = sample.clone();
    for (point, value) in &map.values {
        let p = &mut moved.points[*point as usize];
        for k in 0..3 {
            p[k] = if &map.kind == b"SPOT" { value[k] } else { p[k] + value[k] };
        }
    }
    moved.maps.retain(|m| &m.kind == b"TXUV");
    moved
}

fn close(a: [f32; 3], b: [f32; 3], what: &str) {
    assert!((0..3).all(|k| (a[k] - b[k]).abs() < 1e-4), "{what}: {a:?} vs {b:?}");
}

/// Base + target equals the morphed object's own mesh, vertex by vertex, positions and normals.
fn targets_match_the_moved_objects(sample: &Lwo3Object, options: BuildOptions) {
    let base = meshes_of(sample, options);
    for (k, name) in ["Lift", "Flatten"].iter().enumerate() {
        let moved = meshes_of(&applied(sample, name), options);
        let (base, moved) = (surface_meshes(&base), surface_meshes(&moved));
        assert_eq!(base.len(), moved.len());
        for (m, (b, w)) in base.iter().zip(&moved).enumerate() {
            assert_eq!(b.positions.len(), w.positions.len(), "{name}: mesh {m} vertex count");
            let target = &b.morph_targets[k];
            assert_eq!(target.name, *name);
            assert_eq!(b.morph_targets.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["Lift", "Flatten"]);
            for v in 0..b.positions.len() {
                let at = |x: [f32; 3], d: [f32; 3]| [x[0] + d[0], x[1] + d[1], x[2] + d[2]];
                close(
                    at(b.positions[v], target.positions[v]),
                    w.positions[v],
                    &format!("{name}: mesh {m} vertex {v} position"),
                );
                close(
                    at(b.normals[v], target.normals[v]),
                    w.normals[v],
                    &format!("{name}: mesh {m} vertex {v} normal"),
                );
            }
        }
        // The morph moves something, so the check above is not comparing two identical meshes.
        assert!(
            base.iter().any(|b| b.morph_targets[k].positions.iter().any(|d| d.iter().any(|c| c.abs() > 0.1))),
            "{name} moves no vertex"
        );
    }
}

#[test]
fn morph_targets_are_what_the_points_moved_by_hand_give() {
    targets_match_the_moved_objects(&lwo3_sample(), BuildOptions { subdivision_level: 0, ..BuildOptions::default() });
}

/// Catmull–Clark is linear in its points, so a subdivided morph is exact, not an approximation.
#[test]
fn morph_targets_follow_subdivision_exactly() {
    let cages = Lwo3Object { subdivision_cages: true, ..lwo3_sample() };
    targets_match_the_moved_objects(&cages, BuildOptions { subdivision_level: 2, ..BuildOptions::default() });
    let built = meshes_of(&cages, BuildOptions { subdivision_level: 2, ..BuildOptions::default() });
    assert!(surface_meshes(&built).iter().all(|m| m.triangle_count() >= 16), "the cages were subdivided");
}

fn cube10() -> std::path::PathBuf {
    crate::lwo3::content_root().join("Objects/Cube10-Morphs.lwo")
}

#[test]
fn cube10_scene_drives_every_mesh_of_its_layer_with_its_three_morphs() {
    let (source, relative) = LooseFolder::containing(&cube10());
    let scene = load(&source, &relative, None, &LoadOptions::default()).unwrap();
    assert_eq!(scene.morph_target_names(), ["Random", "Tall & Skinny", "Wide"]);
    let drawn: Vec<usize> = scene.nodes.iter().filter_map(|n| n.draw).map(|d| d.mesh).collect();
    assert!(!drawn.is_empty());
    for m in drawn {
        let names: Vec<&str> = scene.meshes[m].data.morph_targets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Random", "Tall & Skinny", "Wide"], "{}", scene.meshes[m].label);
    }
}

fn differing_pixels(a: &Path, b: &Path) -> (usize, usize) {
    let (a, b) = (image::open(a).unwrap().to_rgb8(), image::open(b).unwrap().to_rgb8());
    let differ = a.pixels().zip(b.pixels()).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 40)).count();
    (differ, (a.width() * a.height()) as usize)
}

/// "Tall & Skinny" at 1 against the cube at rest: the silhouette changes (stored as a baseline,
/// looked at), and a weight of 0 given on the command line is the rest pose.
#[test]
fn cube10_renders_its_morph_at_weight_one_and_its_rest_pose_at_zero() {
    let dir = scratch("render-morphs");
    let (rest, zero, tall) = (dir.join("rest.png"), dir.join("zero.png"), dir.join("lw2018-cube10-tall-skinny.png"));
    crate::render::render(&cube10(), &rest, &[]);
    crate::render::render(&cube10(), &zero, &["--morph", "Tall & Skinny=0"]);
    crate::render::render(&cube10(), &tall, &["--morph", "Tall & Skinny=1"]);
    let (same, _) = differing_pixels(&rest, &zero);
    assert_eq!(same, 0, "weight 0 is the rest pose");
    let (differ, total) = differing_pixels(&rest, &tall);
    assert!(differ * 50 > total, "only {differ} of {total} pixels changed");
    crate::render::compare_with_baseline("lw2018-cube10-tall-skinny.png", &tall);
}

#[test]
fn exported_morphs_are_valid_gltf_targets_with_their_names_and_chosen_weights() {
    let dir = scratch("export-morphs");
    let (source, relative) = LooseFolder::containing(&cube10());
    let scene = load(&source, &relative, None, &LoadOptions::default()).unwrap();
    let out = dir.join("cube10.glb");
    let weights = [("Wide".to_owned(), 1.0), ("Random".to_owned(), 0.25)];
    let report =
        write_file(&scene, &ExportOptions { morph_weights: &weights, ..ExportOptions::default() }, &out).unwrap();
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    let validation = crate::export::validate(&[&out]);
    assert_eq!(
        (validation[0]["errors"].as_u64(), validation[0]["warnings"].as_u64()),
        (Some(0), Some(0)),
        "{}",
        validation[0]
    );
    let json = crate::export::glb_json(&out);
    let meshes = json["meshes"].as_array().unwrap();
    assert!(!meshes.is_empty());
    for mesh in meshes {
        assert_eq!(mesh["extras"]["targetNames"], serde_json::json!(["Random", "Tall & Skinny", "Wide"]), "{mesh}");
        assert_eq!(mesh["weights"], serde_json::json!([0.25, 0.0, 1.0]));
        for primitive in mesh["primitives"].as_array().unwrap() {
            let targets = primitive["targets"].as_array().unwrap();
            assert_eq!(targets.len(), 3);
            assert!(targets.iter().all(|t| t["POSITION"].is_u64() && t["NORMAL"].is_u64()), "{primitive}");
        }
    }
}
