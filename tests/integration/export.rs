//! glTF export: every bundled sample and every assimp LightWave model exports; the Khronos validator
//! (`tools/gltf-validate`, `npm ci` there) finds no error in any; assimp reads each back with the
//! elements the scene draws; the WMO sample's nodes, materials, textures and doodad instances are
//! counted in the written file; `--export` prints its summary or names the file it failed on.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use lwo_wmo_viewer::export::{ExportOptions, ExportReport, write_file};
use lwo_wmo_viewer::mesh::Topology;
use lwo_wmo_viewer::scene::{LoadOptions, Overlay, Scene, load};
use lwo_wmo_viewer::source::LooseFolder;

use crate::support::{asset, bin, repo, scratch};

fn scene_of(path: &Path) -> Scene {
    let (source, relative) = LooseFolder::containing(path);
    load(&source, &relative, None, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The scene nodes the viewer shows with these options, worked out here from the node flags (not by
/// the exporter's code): not hidden, doodads of set 0 and the chosen set, overlays only when asked.
fn shown_nodes(scene: &Scene, options: &ExportOptions<'_>) -> Vec<bool> {
    let mut shown = vec![false; scene.nodes.len()];
    for (i, node) in scene.nodes.iter().enumerate() {
        let own = match node.overlay {
            Some(Overlay::Doodad(set)) => set == 0 || set == options.doodad_set,
            Some(Overlay::Portals) => options.portals,
            Some(Overlay::Liquid) => options.liquids,
            Some(Overlay::Collision) => false,
            None => !node.hidden,
        };
        shown[i] = own && node.parent.is_none_or(|p| shown[p]);
    }
    shown
}

/// What an importer reports as faces: the elements (triangles, lines, points) of each distinct mesh
/// drawn, a mesh shared by several doodad instances counted once.
fn distinct_faces(scene: &Scene, options: &ExportOptions<'_>) -> usize {
    let shown = shown_nodes(scene, options);
    let meshes: BTreeSet<usize> =
        scene.nodes.iter().zip(&shown).filter(|(_, s)| **s).filter_map(|(n, _)| n.draw.map(|d| d.mesh)).collect();
    meshes
        .into_iter()
        .map(|m| {
            let data = &scene.meshes[m].data;
            let corners = match data.topology {
                Topology::Triangles => 3,
                Topology::Lines => 2,
                Topology::Points => 1,
            };
            data.indices.len() / corners
        })
        .sum()
}

struct Exported {
    input: PathBuf,
    output: PathBuf,
    expected_faces: usize,
    report: ExportReport,
}

fn export(input: &Path, output: PathBuf, options: &ExportOptions<'_>) -> Exported {
    let scene = scene_of(input);
    let report = write_file(&scene, options, &output).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    assert!(report.notes.is_empty(), "{}: {:?}", input.display(), report.notes);
    Exported { input: input.to_path_buf(), output, expected_faces: distinct_faces(&scene, options), report }
}

/// Runs the Khronos validator once over all files; one JSON object per file.
pub fn validate(files: &[&Path]) -> Vec<serde_json::Value> {
    let tool = repo().join("tools/gltf-validate");
    assert!(
        tool.join("node_modules/gltf-validator").is_dir(),
        "the glTF validator is not installed: run `npm ci` in {} (Node 20 and npm are needed)",
        tool.display()
    );
    let output = Command::new("node").arg(tool.join("validate.mjs")).args(files).output().unwrap_or_else(|e| {
        panic!("node could not be started ({e}): install Node 20 and run `npm ci` in {}", tool.display())
    });
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "validator failed: {stdout}{}", String::from_utf8_lossy(&output.stderr));
    stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// `assimp info FILE`'s face count.
fn assimp_faces(file: &Path) -> usize {
    let output = Command::new("assimp")
        .arg("info")
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("assimp could not be started ({e}): install assimp-utils"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "assimp info {}: {stdout}{}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("Faces:"))
        .unwrap_or_else(|| panic!("no Faces line in {stdout}"));
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{line}"))
}

fn corpus_and_samples() -> Vec<PathBuf> {
    let mut inputs = vec![asset("courtyard.wmo"), asset("square-with-detail.lwo"), asset("World/Generic/Barrel.m2")];
    inputs.extend(crate::lwo::corpus_files());
    inputs
}

#[test]
fn every_sample_and_corpus_model_exports_valid_gltf_that_assimp_reads_back_whole() {
    let dir = scratch("export-all");
    let mut exported: Vec<Exported> = corpus_and_samples()
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let name = input.file_stem().unwrap().to_string_lossy();
            export(input, dir.join(format!("{i:02}-{name}.glb")), &ExportOptions::default())
        })
        .collect();
    // The other container and every optional overlay, once.
    let everything = ExportOptions { doodad_set: 1, portals: true, liquids: true, ..ExportOptions::default() };
    exported.push(export(&asset("courtyard.wmo"), dir.join("courtyard-everything.gltf"), &everything));

    let files: Vec<&Path> = exported.iter().map(|e| e.output.as_path()).collect();
    let reports = validate(&files);
    assert_eq!(reports.len(), exported.len(), "{reports:?}");
    for (e, report) in exported.iter().zip(&reports) {
        assert_eq!(report["file"].as_str(), Some(e.output.to_str().unwrap()));
        assert_eq!(report["errors"], 0, "{}: {report}", e.input.display());
        assert!(e.expected_faces > 0, "{}: the scene shows nothing", e.input.display());
        let faces = assimp_faces(&e.output);
        assert_eq!(
            faces,
            e.expected_faces,
            "{}: assimp reads {faces} faces, the scene draws {}",
            e.input.display(),
            e.expected_faces
        );
        assert!(e.report.bytes > 0);
    }
}

/// modo flags its mesh layers 5, which is not LightWave's hidden bit: both real `.lxo` files are shown
/// whole, and their export holds the triangles assimp reads from the `.lxo` itself.
#[test]
fn modo_layers_are_shown_and_export_the_triangles_assimp_reads_from_the_lxo() {
    let dir = scratch("export-lxo");
    for name in ["CrazyEngine.lxo", "sphereWithVertMap.lxo"] {
        let input = Path::new("/usr/share/assimp/models/LWO/LXOB_Modo").join(name);
        let scene = scene_of(&input);
        assert!(!scene.parts.is_empty() && scene.parts.iter().all(|p| p.visible), "{name}: {:?}", scene.parts);
        let e = export(&input, dir.join(name).with_extension("glb"), &ExportOptions::default());
        assert_eq!(assimp_faces(&e.output), assimp_faces(&input), "{name}");
        assert_eq!(e.expected_faces, assimp_faces(&input), "{name}");
    }
}

/// The glTF document of a `.glb`: its JSON chunk.
pub fn glb_json(path: &Path) -> serde_json::Value {
    let bytes = crate::support::read(path);
    assert_eq!(&bytes[0..4], b"glTF");
    let length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(&bytes[16..20], b"JSON");
    serde_json::from_slice(&bytes[20..20 + length]).unwrap()
}

#[test]
fn the_wmo_sample_exports_its_groups_materials_textures_and_shown_doodads() {
    let dir = scratch("export-courtyard");
    let scene = scene_of(&asset("courtyard.wmo"));
    let groups = scene.parts.iter().filter(|p| p.visible).count();
    for (set, expected_doodads) in [
        (0, scene.doodads.iter().filter(|d| d.set == 0).count()),
        (1, scene.doodads.iter().filter(|d| d.set <= 1).count()),
    ] {
        let out = dir.join(format!("set{set}.glb"));
        let report = write_file(&scene, &ExportOptions { doodad_set: set, ..Default::default() }, &out).unwrap();
        let document = glb_json(&out);
        let nodes = document["nodes"].as_array().unwrap();
        let doodads: Vec<_> = nodes.iter().filter(|n| n["extras"]["overlay"] == "doodad").collect();
        assert_eq!(doodads.len(), expected_doodads, "set {set}");
        assert!(doodads.iter().all(|n| n["extras"]["doodad_set"] == 0 || n["extras"]["doodad_set"] == set));
        // The root, a node per group, a node per shown doodad; batches are primitives, not nodes.
        assert_eq!(nodes.len(), 1 + groups + expected_doodads, "set {set}: {nodes:?}");
        assert_eq!(report.nodes, nodes.len());
        // glTF is in metres: the scene's root scales WoW's yards.
        let root = document["scenes"][0]["nodes"][0].as_u64().unwrap() as usize;
        assert_eq!(nodes[root]["scale"], serde_json::json!([0.9144, 0.9144, 0.9144]), "{}", nodes[root]);
        // Doodads of one model share its mesh.
        let mut mesh_of_model = std::collections::HashMap::new();
        for n in &doodads {
            let previous = mesh_of_model.insert(n["name"].as_str().unwrap(), n["mesh"].clone());
            assert!(previous.is_none_or(|m| m == n["mesh"]), "{n}");
        }
        let materials = document["materials"].as_array().unwrap();
        assert_eq!(materials.len(), report.materials);
        assert_eq!(document["textures"].as_array().unwrap().len(), report.textures);
        // The sample's two BLPs, which the WMO materials and the doodads' M2s both use, once each, and
        // the placeholder for the barrel's replaceable texture.
        let images = document["images"].as_array().unwrap();
        let names: Vec<&str> = images.iter().map(|i| i["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["World\\wmo\\Sample\\Stone.blp", "World\\wmo\\Sample\\Glass.blp", "placeholder"],
            "set {set}"
        );
        assert!(images.iter().all(|i| i["mimeType"] == "image/png"));
        assert_eq!(images.iter().filter(|i| i["extras"]["placeholder"] == true).count(), 1);
        let unmapped = document["asset"]["extras"]["unmapped_blend_modes"].as_array().unwrap();
        for mode in ["Add", "Mod", "Mod2x"] {
            assert!(unmapped.iter().any(|m| m == mode), "{unmapped:?}");
        }
        // Three groups' meshes and the two doodad models': set 1's extra instances add nodes, not meshes.
        assert_eq!((report.meshes, report.primitives, report.materials, report.textures), (5, 17, 15, 3), "set {set}");
    }
    // Portals and liquids only when asked.
    let plain = glb_json(&{
        let out = dir.join("plain.glb");
        write_file(&scene, &ExportOptions::default(), &out).unwrap();
        out
    });
    let all = glb_json(&{
        let out = dir.join("overlays.glb");
        write_file(&scene, &ExportOptions { portals: true, liquids: true, ..Default::default() }, &out).unwrap();
        out
    });
    let count = |d: &serde_json::Value, kind: &str| {
        d["nodes"].as_array().unwrap().iter().filter(|n| n["extras"]["overlay"] == kind).count()
    };
    assert_eq!((count(&plain, "portal"), count(&plain, "liquid")), (0, 0));
    assert_eq!(count(&all, "portal"), scene.portal_count);
    assert!(count(&all, "liquid") > 0);
}

#[test]
fn export_on_the_command_line_prints_a_summary_or_names_the_file() {
    let dir = scratch("export-cli");
    let out = dir.join("courtyard.glb");
    let run = Command::new(bin())
        .arg(asset("courtyard.wmo"))
        .arg("--export")
        .arg(&out)
        .arg("--doodad-set")
        .arg("1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
    assert!(
        stdout.contains(" nodes, ") && stdout.contains(" triangles, ") && stdout.contains(" bytes in "),
        "{stdout}"
    );
    assert!(out.is_file());

    let broken = dir.join("broken.lwo");
    std::fs::write(&broken, b"FORM\0\0\x10\0LWO2PNTS").unwrap();
    let unwritable = dir.join("no-such-folder/out.glb");
    for (input, output, named) in [
        (broken.clone(), out.clone(), broken.clone()),
        (asset("courtyard.wmo"), unwritable.clone(), unwritable.clone()),
    ] {
        let run = Command::new(bin()).arg(&input).arg("--export").arg(&output).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(named.file_name().unwrap().to_str().unwrap()), "{stderr}");
    }
}

/// The 300-group WMO of the benchmark: loaded and exported in seconds. Ignored by default (it writes
/// 165 MB of input); `cargo test --locked export::large -- --ignored --nocapture` prints the times.
#[test]
#[ignore]
fn large_wmo_exports_in_seconds() {
    let dir = scratch("export-large");
    lwo_wmo_viewer::fixtures::wmo::large_scene(300, 7000).write_to(&dir, "zone300").unwrap();
    let started = Instant::now();
    let scene = scene_of(&dir.join("zone300.wmo"));
    let loaded = started.elapsed();
    let progress_calls = std::sync::atomic::AtomicUsize::new(0);
    let progress = |_, _| {
        progress_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let started = Instant::now();
    let report = write_file(
        &scene,
        &ExportOptions { progress: Some(&progress), ..Default::default() },
        &dir.join("zone300.glb"),
    )
    .unwrap();
    let exported = started.elapsed();
    println!(
        "zone300: load {:.2} s, export {:.2} s: {} nodes, {} meshes, {} triangles, {} bytes, {} progress calls",
        loaded.as_secs_f64(),
        exported.as_secs_f64(),
        report.nodes,
        report.meshes,
        report.triangles,
        report.bytes,
        progress_calls.into_inner()
    );
    // Every group's batches, and the doodads of set 0 (markers here: there is no data root).
    assert!(report.triangles >= scene.stats.triangles, "{} < {}", report.triangles, scene.stats.triangles);
    assert!(exported.as_secs_f64() < 10.0, "{exported:?}");
}

#[test]
fn lightwave_layers_keep_their_parents_and_pivots() {
    let input = Path::new(crate::lwo::CORPUS).join("LWO2/hierarchy.lwo");
    let scene = scene_of(&input);
    let out = scratch("export-hierarchy").join("hierarchy.glb");
    write_file(&scene, &ExportOptions::default(), &out).unwrap();
    let document = glb_json(&out);
    let nodes = document["nodes"].as_array().unwrap();
    let mut parent_of = std::collections::HashMap::new();
    for node in nodes {
        for child in node["children"].as_array().into_iter().flatten() {
            parent_of.insert(child.as_u64().unwrap() as usize, node["name"].as_str().unwrap());
        }
    }
    let layers: Vec<_> = scene.nodes.iter().filter(|n| n.part.is_some() && n.draw.is_none() && !n.hidden).collect();
    assert!(layers.len() >= 4, "{layers:?}");
    for layer in layers {
        let name = layer.name.as_deref().unwrap();
        let (index, node) =
            nodes.iter().enumerate().find(|(_, n)| n["name"] == name).unwrap_or_else(|| panic!("{name} not written"));
        let translation: Vec<f32> = node["translation"]
            .as_array()
            .map_or(vec![0.0; 3], |t| t.iter().map(|c| c.as_f64().unwrap() as f32).collect());
        assert_eq!(translation, layer.transform.translation, "{name}");
        let scene_parent = layer.parent.and_then(|p| scene.nodes[p].name.as_deref());
        assert_eq!(parent_of.get(&index).copied(), scene_parent, "{name}");
        assert!(node["mesh"].is_u64(), "{name} draws its surfaces");
    }
}
