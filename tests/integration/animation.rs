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
    // Culled by the sequences' own box, as the game does, which holds the model at rest and more.
    let motion = scene.skeletons[0].motion_bounds.expect("the flag's sequences have boxes");
    let rest = scene.bounds;
    assert!((0..3).all(|k| motion.min[k] < rest.min[k] && motion.max[k] > rest.max[k]), "{motion:?} vs {rest:?}");
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

/// The flag with Walk's keys in `Flag0004-00.anim`, in a fresh folder; the path of its .m2.
fn flag_with_anim_file_folder(name: &str) -> PathBuf {
    let dir = scratch(name);
    for (file, bytes) in lwo_wmo_viewer::fixtures::m2_animation::flag_with_anim_file_files() {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir.join("Flag.m2")
}

/// Bone matrices of `document`'s model in `sequence` at `seconds`.
fn pose_of(document: &lwo_wmo_viewer::formats::Document, sequence: usize, seconds: f64) -> Vec<glam::Mat4> {
    let Model::M2(model) = &document.model else { panic!("not an M2") };
    let a = &model.animation;
    let mut matrices = Vec::new();
    pose(a, &Clock::looping(a, sequence, seconds), None, &mut matrices);
    matrices
}

/// In the MD21 container (a Legion-era model, or a Cataclysm one ported back) a sequence's `.anim` file
/// beside the model is found by the same name and poses the model as the MD20 one.
#[test]
fn an_md21_models_anim_file_beside_it_is_read_by_name() {
    use lwo_wmo_viewer::scene::anim_files::read_anim_file;
    let path = flag_with_anim_file_folder("anim-file-md21");
    let md20 = read(&path);
    std::fs::write(&path, lwo_wmo_viewer::fixtures::m2::wrap_md21(&md20, &[], &[], &[])).unwrap();
    let source = LooseFolder::new(path.parent().unwrap());
    let scene = scene::load(&source, "Flag.m2", None, &LoadOptions::default()).unwrap();
    let mut document = scene.files[0].document.clone().unwrap();
    assert_eq!(read_anim_file(&source, "Flag.m2", &mut document, 1), None);
    let whole = parse_document(&read(&flag_folder("anim-file-md21-whole"))).unwrap();
    for seconds in [0.1, 0.5, 0.8] {
        assert_eq!(pose_of(&document, 1, seconds), pose_of(&whole, 1, seconds), "at {seconds} s");
    }
}

#[test]
fn keys_in_an_anim_file_are_read_when_their_sequence_plays() {
    use lwo_wmo_viewer::scene::anim_files::read_anim_file;
    let path = flag_with_anim_file_folder("anim-file");
    let source = LooseFolder::new(path.parent().unwrap());
    let scene = scene::load(&source, "Flag.m2", None, &LoadOptions::default()).unwrap();
    // (Its texture is under no data root here: that is the only warning.)
    assert!(!scene.warnings.iter().any(|w| w.to_string().contains(".anim")), "{:?}", scene.warnings);
    let mut document = scene.files[0].document.clone().unwrap();
    let Model::M2(model) = &document.model else { panic!("not an M2") };
    assert!(model.animation.sequences[1].in_anim_file);
    // Stand played with the model; Walk waits until it plays.
    assert!(!model.animation.waits_for_anim_file(0));
    assert!(model.animation.waits_for_anim_file(1));
    assert_eq!(model.animation.bones[1].rotation.keys(1), None);
    assert_eq!(read_anim_file(&source, "Flag.m2", &mut document, 1), None);
    // Read, Walk poses the flag exactly as the model that keeps Walk's keys in itself.
    let whole = parse_document(&read(&flag_folder("anim-file-whole"))).unwrap();
    for seconds in [0.1, 0.5, 0.8] {
        assert_eq!(pose_of(&document, 1, seconds), pose_of(&whole, 1, seconds), "at {seconds} s");
    }
}

#[test]
fn a_missing_or_short_anim_file_is_one_warning_and_the_sequence_plays_without_its_keys() {
    use lwo_wmo_viewer::scene::anim_files::read_anim_file;
    let path = flag_with_anim_file_folder("anim-file-missing");
    let anim = path.with_file_name("Flag0004-00.anim");
    let bytes = read(&anim);
    std::fs::remove_file(&anim).unwrap();
    let source = LooseFolder::new(path.parent().unwrap());
    let load = || scene::load(&source, "Flag.m2", None, &LoadOptions::default()).unwrap();
    let mut document = load().files[0].document.clone().unwrap();
    let warning = read_anim_file(&source, "Flag.m2", &mut document, 1).expect("a warning");
    assert!(warning.to_string().contains("Flag0004-00.anim is missing"), "{warning}");
    assert!(warning.to_string().contains("Walk (4.0)"), "{warning}");
    // Looked for once: playing Walk again neither looks nor warns again.
    assert_eq!(read_anim_file(&source, "Flag.m2", &mut document, 1), None);
    // Bone 1 keeps its rest pose; bone 2's global loop (kept in the .m2) still flaps.
    let rest = pose_of(&document, 1, 0.5);
    assert_eq!(rest[1], glam::Mat4::IDENTITY);
    assert_ne!(pose_of(&document, 1, 0.125)[2], rest[1]);
    // Cut short: the tracks that run past its end are named in one warning.
    std::fs::write(&anim, &bytes[..bytes.len() / 2]).unwrap();
    let mut document = load().files[0].document.clone().unwrap();
    let warning = read_anim_file(&source, "Flag.m2", &mut document, 1).expect("a warning").to_string();
    assert!(warning.contains("run past the end") && warning.contains("bones[1].rotation"), "{warning}");
    // An export reads every sequence's file with the model.
    std::fs::write(&anim, &bytes).unwrap();
    let options = LoadOptions { anim_files: scene::anim_files::AnimFiles::All, ..LoadOptions::default() };
    let scene = scene::load(&source, "Flag.m2", None, &options).unwrap();
    assert!(!scene.warnings.iter().any(|w| w.to_string().contains(".anim")), "{:?}", scene.warnings);
    let Model::M2(model) = &scene.files[0].document.as_deref().unwrap().model else { panic!("not an M2") };
    assert!(!model.animation.waits_for_anim_file(1));
}

/// The window reads Walk's `.anim` when `--animation Walk` plays it: the frame is the one the model
/// that keeps Walk's keys in itself gives.
#[test]
fn the_window_plays_a_sequence_from_its_anim_file() {
    let split = flag_with_anim_file_folder("anim-file-render");
    let whole = flag_folder("anim-file-render-whole");
    let render = |path: &Path| {
        let out = path.with_file_name("walk.png");
        crate::render::render(path, &out, &["--view", "front", "--time", "0.3", "--animation", "Walk"]);
        image::open(&out).unwrap().to_rgb8()
    };
    let (a, b) = (render(&split), render(&whole));
    let differing = a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "Walk from its .anim draws as Walk from the .m2");
}

/// The keys of an animation sampler's output accessor, read from the .glb's buffer.
fn sampler_floats(path: &Path, json: &serde_json::Value, accessor: u64) -> Vec<f32> {
    // The container only: the `gltf` crate's document types cannot hold a pointer channel.
    let bytes = read(path);
    let blob = gltf::binary::Glb::from_slice(&bytes).unwrap().bin.unwrap();
    let a = &json["accessors"][accessor as usize];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize + a["byteOffset"].as_u64().unwrap_or(0) as usize;
    let length = view["byteLength"].as_u64().unwrap() as usize;
    blob[start..start + length].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// `--export --animation Walk --time 0.5` writes the joints in Walk's pose at 0.5 s; without `--time`
/// at rest. The animations are there either way, and the file stays one the `gltf` crate reads.
#[test]
fn export_poses_the_joints_at_the_chosen_time() {
    let path = flag_folder("anim-export-pose");
    let export = |name: &str, extra: &[&str]| {
        let out = path.with_file_name(name);
        let status = Command::new(bin()).arg(&path).arg("--export").arg(&out).args(extra).output().unwrap();
        assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
        out
    };
    let rotation_of_bone1 = |out: &Path| {
        let json = glb_json(out);
        let node = json["nodes"].as_array().unwrap().iter().find(|n| n["name"] == "Bone1").unwrap().clone();
        node["rotation"].clone()
    };
    let rest = export("rest.glb", &[]);
    assert_eq!(rotation_of_bone1(&rest), serde_json::Value::Null, "at rest, unturned");
    let posed = export("walk.glb", &["--animation", "Walk", "--time", "0.5"]);
    // Walk swings bone 1 to +60° about the model's Z (Bevy's and glTF's Y) at 0.5 s.
    let q = rotation_of_bone1(&posed);
    let half = 30f64.to_radians();
    let expected = [0.0, half.sin(), 0.0, half.cos()];
    for (k, e) in expected.iter().enumerate() {
        assert!((q[k].as_f64().unwrap() - e).abs() < 1e-3, "{q} vs {expected:?}");
    }
    assert!(gltf::Gltf::from_slice(&read(&posed)).is_ok(), "the gltf crate reads the export");
    assert_eq!(glb_json(&posed)["animations"].as_array().unwrap().len(), 2);
}

/// `--export-material-animation`: the cloth's scrolling texture and pulsing alpha as
/// `KHR_animation_pointer` channels on `KHR_texture_transform` and the base colour factor, which the
/// Khronos validator accepts.
#[test]
fn export_writes_material_animation_through_animation_pointers_when_asked() {
    let path = flag_folder("anim-export-material");
    let out = path.with_file_name("flag.glb");
    let status =
        Command::new(bin()).arg(&path).arg("--export").arg(&out).arg("--export-material-animation").output().unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let json = glb_json(&out);
    let used: Vec<&str> = json["extensionsUsed"].as_array().unwrap().iter().filter_map(|e| e.as_str()).collect();
    assert!(used.contains(&"KHR_animation_pointer") && used.contains(&"KHR_texture_transform"), "{used:?}");
    assert!(json["asset"]["extras"]["not_written"].is_null());
    let stand = &json["animations"][0];
    let pointer_channels: Vec<&serde_json::Value> =
        stand["channels"].as_array().unwrap().iter().filter(|c| c["target"]["path"] == "pointer").collect();
    let pointer = |c: &serde_json::Value| {
        c["target"]["extensions"]["KHR_animation_pointer"]["pointer"].as_str().unwrap().to_owned()
    };
    let offset = pointer_channels.iter().find(|c| pointer(c).ends_with("KHR_texture_transform/offset")).unwrap();
    let alpha = pointer_channels.iter().find(|c| pointer(c).ends_with("baseColorFactor")).unwrap();
    // The material the pointer names carries the transform it moves.
    let material = pointer(offset).split('/').nth(2).unwrap().parse::<usize>().unwrap();
    assert!(
        json["materials"][material]["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"]
            .is_object()
    );
    // The texture is 0.25 along its 1 s loop at 0.25 s; the alpha 0.25 at 1 s.
    let value_at = |channel: &serde_json::Value, width: usize, seconds: f32| {
        let sampler = &stand["samplers"][channel["sampler"].as_u64().unwrap() as usize];
        let times = sampler_floats(&out, &json, sampler["input"].as_u64().unwrap());
        let values = sampler_floats(&out, &json, sampler["output"].as_u64().unwrap());
        // Linear between the keys on either side, as a reader plays it.
        let k = times.iter().position(|&t| t >= seconds - 1e-6).expect("a key at or after that time");
        let j = k.saturating_sub(1);
        let f = if k == j || times[k] == times[j] { 1.0 } else { (seconds - times[j]) / (times[k] - times[j]) };
        (0..width).map(|c| values[j * width + c] * (1.0 - f) + values[k * width + c] * f).collect::<Vec<f32>>()
    };
    let at_quarter = value_at(offset, 2, 0.25);
    assert!((at_quarter[0] - 0.25).abs() < 1e-3 && at_quarter[1].abs() < 1e-3, "{at_quarter:?}");
    let at_one = value_at(alpha, 4, 1.0);
    assert!((at_one[3] - 0.25).abs() < 1e-3, "{at_one:?}");
    let reports = crate::export::validate(&[&out]);
    assert_eq!(reports[0]["errors"], 0, "{}", reports[0]);
}

/// A model whose only motion is its materials' (no bone moves, so no skin): each sequence is an
/// animation of pointer channels alone, still a valid one.
#[test]
fn material_animation_of_a_model_whose_bones_stand_still_is_valid() {
    use lwo_wmo_viewer::fixtures::m2::write_skin;
    use lwo_wmo_viewer::fixtures::m2_animation::{BoneParts, animated_flag, write_animated_model};
    let (parts, mut animation) = animated_flag();
    for bone in &mut animation.bones {
        *bone = BoneParts { parent: bone.parent, pivot: bone.pivot, ..BoneParts::default() };
    }
    let dir = scratch("anim-export-material-only");
    std::fs::write(dir.join("Flag.m2"), write_animated_model(&parts, &animation)).unwrap();
    std::fs::write(dir.join("Flag00.skin"), write_skin(&parts)).unwrap();
    let scene = scene::load(&LooseFolder::new(&dir), "Flag.m2", None, &LoadOptions::default()).unwrap();
    assert!(scene.skeletons.is_empty() && !scene.animated_materials.is_empty());
    let out = dir.join("flag.glb");
    let report =
        write_file(&scene, &ExportOptions { material_animation: true, ..ExportOptions::default() }, &out).unwrap();
    assert_eq!(report.animations, 2, "{report:?}");
    let json = glb_json(&out);
    for animation in json["animations"].as_array().unwrap() {
        let channels = animation["channels"].as_array().expect("a channel list");
        assert!(!channels.is_empty() && channels.iter().all(|c| c["target"]["path"] == "pointer"), "{animation}");
    }
    let reports = crate::export::validate(&[&out]);
    assert_eq!(reports[0]["errors"], 0, "{}", reports[0]);
}
