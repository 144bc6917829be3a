//! M2 animation on a written model that moves (a flag on a pole: bones, two sequences, global loops,
//! a colour track and a scrolling texture): reading, posing, the scene's skeleton, `--info --json`,
//! frames at chosen times, and glTF skins and animations that the validator and assimp accept.

use std::path::{Path, PathBuf};
use std::process::Command;

use lwo_wmo_viewer::animation::{Clock, pose, unit_appearance};
use lwo_wmo_viewer::export::gltf::{ExportOptions, write_file};
use lwo_wmo_viewer::fixtures::m2_animation::animated_flag_files;
use lwo_wmo_viewer::formats::{Model, parse_document};
use lwo_wmo_viewer::scene::{self, LoadOptions};
use lwo_wmo_viewer::source::LooseFolder;

use crate::support::{bin, read, scratch};

/// The flag's files in a fresh folder; the path of its .m2.
fn flag_folder(name: &str) -> PathBuf {
    let dir = scratch(name);
    for (file, bytes) in animated_flag_files() {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir.join("Flag.m2")
}

#[test]
fn the_flag_reads_back_what_was_written() {
    let (_, animation) = lwo_wmo_viewer::fixtures::m2_animation::animated_flag();
    let bytes = read(&flag_folder("anim-read"));
    let document = parse_document(&bytes).unwrap();
    let Model::M2(model) = &document.model else { panic!("not an M2") };
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    let a = &model.animation;
    assert_eq!(a.global_loops, animation.global_loops);
    let durations: Vec<u32> = a.sequences.iter().map(|s| s.duration_ms).collect();
    assert_eq!(durations, [2000, 1000]);
    assert_eq!(a.bones.len(), 3);
    assert_eq!(a.bones[2].parent, 1);
    assert_eq!(a.bones[1].rotation.keys(0).unwrap().times, [0, 1000, 2000]);
    assert_eq!(a.bones[2].rotation.global_sequence, Some(0));
    assert_eq!((a.colors.len(), a.texture_transforms.len(), a.texture_transform_lookup.clone()), (1, 1, vec![-1, 0]));
    assert_eq!(a.find_sequence(4), Some(1));
}

#[test]
fn the_flag_swings_about_its_pivot_and_its_texture_scrolls() {
    let path = flag_folder("anim-pose");
    let document = parse_document(&read(&path)).unwrap();
    let Model::M2(model) = &document.model else { panic!("not an M2") };
    let a = &model.animation;
    let mut matrices = Vec::new();
    // 1 s into Stand the cloth has swung +30° about the pole (pivot (0, 0, 2.5)).
    pose(a, &Clock::looping(a, 0, 1.0), None, &mut matrices);
    let corner = matrices[1].transform_point3(glam::Vec3::new(1.1, 0.0, 2.5));
    let expected = glam::Vec3::new(1.1 * 30f32.to_radians().cos(), 1.1 * 30f32.to_radians().sin(), 2.5);
    assert!(corner.abs_diff_eq(expected, 1e-3), "{corner} vs {expected}");
    // The pole does not move.
    assert_eq!(matrices[0], glam::Mat4::IDENTITY);
    // Colour alpha 0.25 at 1 s; the texture 0.25 along at 0.25 s on its 1 s loop (global clock).
    let skin = lwo_wmo_viewer::formats::m2::parse_skin(&read(&path.with_file_name("Flag00.skin"))).unwrap();
    let unit = skin.texture_units[1];
    let look = unit_appearance(model, &unit, &Clock::looping(a, 0, 1.0));
    assert!((look.color[3] - 0.25).abs() < 1e-3, "{:?}", look.color);
    let look = unit_appearance(model, &unit, &Clock::looping(a, 0, 0.25));
    let uv = look.uv[0].transform_point3(glam::Vec3::ZERO);
    assert!((uv.x - 0.25).abs() < 1e-4, "{uv}");
}

#[test]
fn the_scene_gives_the_flag_a_skeleton_and_skinned_meshes() {
    let path = flag_folder("anim-scene");
    let source = LooseFolder::new(path.parent().unwrap());
    let scene = scene::load(&source, "Flag.m2", None, &LoadOptions::default()).unwrap();
    assert_eq!(scene.skeletons.len(), 1);
    // Three bones and the joint that stands still.
    assert_eq!(scene.skeletons[0].joints.len(), 4);
    assert_eq!(scene.nodes.iter().filter(|n| n.joint.is_some()).count(), 4);
    let skinned: Vec<_> = scene.nodes.iter().filter_map(|n| n.skin.as_ref()).collect();
    assert_eq!(skinned.len(), 2, "both units draw skinned");
    assert!(skinned.iter().all(|s| s.joints.iter().all(|&j| scene.nodes[j].joint.is_some())));
    assert!(scene.meshes.iter().all(|m| m.data.skin.is_some()));
    assert_eq!(scene.animated_materials.len(), 1, "the cloth's colour and texture move");
}

#[test]
fn info_json_lists_the_sequences_and_counts() {
    let path = flag_folder("anim-info");
    let out = Command::new(bin()).arg(&path).args(["--info", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sequences = json["sequences"].as_array().unwrap();
    assert_eq!(sequences.len(), 2);
    assert_eq!(sequences[0]["name"], "Stand");
    assert_eq!(sequences[0]["duration_ms"], 2000);
    assert_eq!(sequences[1]["id"], 4);
    assert_eq!(sequences[1]["name"], "Walk");
    assert_eq!(sequences[1]["in_anim_file"], false);
    assert_eq!(json["bones"], 3);
    assert_eq!(json["global_sequences"], 2);
    assert_eq!(json["texture_transforms"], 1);
    assert_eq!(json["colors"], 1);
    assert_eq!(json["particle_emitters"], 0);
}

/// `--output` at a time: the same time gives the same image, another time another one.
#[test]
fn frames_at_chosen_times_are_deterministic() {
    let path = flag_folder("anim-frames");
    let dir = path.parent().unwrap().to_path_buf();
    let render = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        crate::render::render(&path, &out, &[&["--view", "front"], extra].concat());
        image::open(&out).unwrap().to_rgb8()
    };
    let first = render("a.png", &["--time", "0.5"]);
    let again = render("b.png", &["--time", "0.5"]);
    let later = render("c.png", &["--time", "1.0"]);
    let walk = render("d.png", &["--time", "0.5", "--animation", "Walk"]);
    let differing =
        |a: &image::RgbImage, b: &image::RgbImage| a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert_eq!(differing(&first, &again), 0, "the same time draws the same frame");
    assert!(differing(&first, &later) > 100, "the flag moves between 0.5 s and 1 s");
    assert!(differing(&first, &walk) > 100, "Walk swings further than Stand at 0.5 s");
}

fn glb_json(path: &Path) -> serde_json::Value {
    crate::export::glb_json(path)
}

#[test]
fn the_flag_exports_skins_and_one_animation_per_sequence() {
    let path = flag_folder("anim-export");
    let source = LooseFolder::new(path.parent().unwrap());
    let scene = scene::load(&source, "Flag.m2", None, &LoadOptions::default()).unwrap();
    let out = path.with_file_name("flag.glb");
    let report = write_file(&scene, &ExportOptions::default(), &out).unwrap();
    assert_eq!((report.skins, report.animations), (2, 2), "{report:?}");
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    let json = glb_json(&out);
    let animations = json["animations"].as_array().unwrap();
    assert_eq!(animations.len(), 2);
    assert!(animations[0]["name"].as_str().unwrap().contains("Stand"));
    // Each animation's duration is its sequence's: the largest key time of its samplers.
    for (animation, seconds) in animations.iter().zip([2.0, 1.0]) {
        let end = animation["samplers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| json["accessors"][s["input"].as_u64().unwrap() as usize]["max"][0].as_f64().unwrap())
            .fold(0.0, f64::max);
        assert!((end - seconds).abs() < 1e-6, "{}: {end}", animation["name"]);
    }
    let reports = crate::export::validate(&[&out]);
    assert_eq!(reports[0]["errors"], 0, "{}", reports[0]);
    // assimp reads the animations back: as many, as long.
    let info = Command::new("assimp").arg("info").arg(&out).output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    let line = text.lines().find(|l| l.trim_start().starts_with("Animations:")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(line.split_whitespace().nth(1), Some("2"), "{line}");
}
