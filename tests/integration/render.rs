//! `--output` renders (lavapipe, each in its own process) compared with stored baselines.
//! `UPDATE_BASELINES=1` rewrites a baseline; a failing comparison writes the new image beside the
//! target directory's copy so it can be looked at.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{asset, bin, repo, scratch};

/// Per-channel mean absolute difference allowed, in 0–255 units.
const MEAN_TOLERANCE: f64 = 1.5;
/// Share of pixels allowed to differ by more than `PIXEL_THRESHOLD` in any channel.
const OUTLIER_SHARE: f64 = 0.005;
const PIXEL_THRESHOLD: u8 = 40;

pub fn render(file: &Path, out: &Path, extra: &[&str]) {
    let run = || {
        Command::new(bin())
            .arg(file)
            .arg("--output")
            .arg(out)
            .args(["--resolution", "640x400"])
            .args(extra)
            .env("XDG_RUNTIME_DIR", std::env::temp_dir())
            .output()
            .unwrap()
    };
    let mut status = run();
    // Lavapipe now and then crashes a process when many render at once (bevy#13708): a process killed
    // by a signal, and only that, is run once more. A failure the viewer reports is never retried.
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status.status) {
        eprintln!("render of {} was killed by signal {signal}; running it once more", file.display());
        status = run();
    }
    assert!(
        status.status.success(),
        "render of {} failed ({}): {}",
        file.display(),
        status.status,
        String::from_utf8_lossy(&status.stderr)
    );
}

fn baseline(name: &str) -> PathBuf {
    repo().join("tests").join("baselines").join(name)
}

pub fn compare_with_baseline(name: &str, rendered: &Path) {
    let stored = baseline(name);
    if std::env::var_os("UPDATE_BASELINES").is_some() {
        std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
        std::fs::copy(rendered, &stored).unwrap();
        return;
    }
    let a = image::open(rendered).unwrap().to_rgb8();
    let b = image::open(&stored)
        .unwrap_or_else(|e| panic!("baseline {}: {e}; run with UPDATE_BASELINES=1", stored.display()))
        .to_rgb8();
    assert_eq!(a.dimensions(), b.dimensions(), "{name}: size differs from the baseline");
    let mut total = 0u64;
    let mut outliers = 0usize;
    for (pa, pb) in a.pixels().zip(b.pixels()) {
        let diffs = [0, 1, 2].map(|c| pa[c].abs_diff(pb[c]));
        total += diffs.iter().map(|&d| u64::from(d)).sum::<u64>();
        if diffs.iter().any(|&d| d > PIXEL_THRESHOLD) {
            outliers += 1;
        }
    }
    let pixels = (a.width() * a.height()) as f64;
    let mean = total as f64 / (pixels * 3.0);
    let share = outliers as f64 / pixels;
    assert!(
        mean <= MEAN_TOLERANCE && share <= OUTLIER_SHARE,
        "{name}: mean difference {mean:.2}, {:.2}% pixels off; the new render is at {}",
        share * 100.0,
        rendered.display()
    );
}

#[test]
fn lwob_sample_front_view_matches_baseline() {
    let dir = scratch("render-lwob");
    let out = dir.join("square-with-detail-front.png");
    render(&asset("square-with-detail.lwo"), &out, &["--view", "front"]);
    compare_with_baseline("square-with-detail-front.png", &out);
}

#[test]
fn wmo_sample_iso_view_matches_baseline() {
    let dir = scratch("render-wmo");
    let out = dir.join("courtyard-iso.png");
    render(&asset("courtyard.wmo"), &out, &[]);
    compare_with_baseline("courtyard-iso.png", &out);
}

#[test]
fn output_on_a_bad_file_exits_non_zero_with_the_error() {
    let dir = scratch("render-bad");
    let bad = dir.join("bad.wmo");
    std::fs::write(&bad, b"REVM\x04\x00\x00\x00\x11\x00\x00\x00DHOM\xff\xff\x00\x00").unwrap();
    let out = Command::new(bin()).arg(&bad).arg("--output").arg(dir.join("x.png")).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.wmo") && stderr.contains("MOHD") && stderr.contains("byte 16"), "{stderr}");
    assert!(!dir.join("x.png").exists());
}

/// assimp's LightWave models through the same `--output` path: each render looked at when its baseline
/// was stored (smooth sphere, upright box texture, see-through surface, layer hierarchy, subdivided cage,
/// spherical projection).
#[test]
fn lightwave_corpus_renders_match_baselines() {
    let corpus = std::path::Path::new("/usr/share/assimp/models/LWO/LWO2");
    let cases = [
        ("sphere_with_mat_gloss_10pc.lwo", "sphere-gloss-10pc.png"),
        ("boxuv.lwo", "boxuv.png"),
        ("transparency.lwo", "transparency.png"),
        ("hierarchy_smoothed.lwo", "hierarchy-smoothed.png"),
        ("Subdivision.lwo", "subdivision.png"),
        ("MappingModes/earth_spherical_y.lwo", "earth-spherical-y.png"),
    ];
    let dir = scratch("render-corpus");
    for (file, baseline) in cases {
        let out = dir.join(baseline);
        render(&corpus.join(file), &out, &[]);
        compare_with_baseline(baseline, &out);
    }
}

/// A file without an extension opens by its content (assimp's `formatDetection` samples).
#[test]
fn extension_less_files_render_by_content() {
    let dir = scratch("render-no-extension");
    for (i, file) in
        ["/usr/share/assimp/models/LWO/LWO2/formatDetection", "/usr/share/assimp/models/LWO/LWOB/formatDetection"]
            .iter()
            .enumerate()
    {
        let out = dir.join(format!("format-detection-{i}.png"));
        render(std::path::Path::new(file), &out, &[]);
        let image = image::open(&out).unwrap().to_rgb8();
        let background = image.get_pixel(0, 0);
        assert!(image.pixels().any(|p| p != background), "{file}: nothing drawn");
    }
}

/// The sample's courtyard from the front: panels in blend modes 0–7 against a light wall (alpha, add,
/// mod, mod2x, mod add and inverse-source-alpha add each leave the wall differently), the two-sided
/// panel seen from behind, and the pool without its dry tile.
#[test]
fn wmo_blend_modes_two_sided_and_liquid_match_baseline() {
    let dir = scratch("render-wmo-front");
    let out = dir.join("courtyard-group-front.png");
    render(&asset("courtyard_001.wmo"), &out, &["--view", "front"]);
    compare_with_baseline("courtyard-group-front.png", &out);
}

/// From above with the portal overlay and both doodad sets: the portals at the doorways, and the
/// doodad models turned by their quaternions (a quarter turn, a tilt, a half turn at twice the size).
#[test]
fn wmo_portals_and_turned_doodads_match_baseline() {
    let dir = scratch("render-wmo-top");
    let out = dir.join("courtyard-top-portals.png");
    render(&asset("courtyard.wmo"), &out, &["--view", "top", "--portals", "--doodad-set", "1"]);
    compare_with_baseline("courtyard-top-portals.png", &out);
}

/// An M2 on its own, from the front: the opaque stone crate, the two-sided alpha banner beside it and
/// the additive cap whose replaceable texture shows the placeholder.
#[test]
fn m2_model_on_its_own_matches_baseline() {
    let dir = scratch("render-m2");
    let out = dir.join("barrel-m2.png");
    render(&asset("World/Generic/Barrel.m2"), &out, &["--view", "front"]);
    compare_with_baseline("barrel-m2.png", &out);
}

/// The courtyard's doodads drawn as their M2 models: set 0 alone (a barrel and a lamp turned a quarter),
/// then set 0 with set 1 (a tilted barrel at ¾ size, a lamp turned half round at twice the size).
#[test]
fn wmo_doodad_models_follow_the_chosen_set() {
    let dir = scratch("render-doodads");
    let (default_set, both_sets) = (dir.join("courtyard-doodads-set0.png"), dir.join("courtyard-doodads-set1.png"));
    render(&asset("courtyard.wmo"), &default_set, &["--doodad-set", "0"]);
    render(&asset("courtyard.wmo"), &both_sets, &["--doodad-set", "1"]);
    compare_with_baseline("courtyard-doodads-set0.png", &default_set);
    compare_with_baseline("courtyard-doodads-set1.png", &both_sets);
    let (a, b) = (image::open(&default_set).unwrap().to_rgb8(), image::open(&both_sets).unwrap().to_rgb8());
    let changed = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0.iter()).any(|(x, y)| x.abs_diff(*y) > 40))
        .count();
    // The two added models cover about 340 pixels at this size.
    assert!(changed > 200, "switching the doodad set changes what is drawn ({changed} pixels)");
}

/// Without the M2 files under the data root each doodad keeps its marker (the same picture as before
/// doodads had models) and the loader says which model it could not find.
#[test]
fn doodads_whose_models_are_missing_keep_their_markers_with_a_warning() {
    let dir = scratch("render-doodads-missing");
    for (name, bytes) in lwo_wmo_viewer::fixtures::wmo::sample_scene().files("courtyard") {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    for (name, bytes) in lwo_wmo_viewer::fixtures::wmo::sample_textures() {
        let path = dir.join(name.replace('\\', "/"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let out = dir.join("courtyard-top-markers.png");
    let run = Command::new(bin())
        .arg(dir.join("courtyard.wmo"))
        .args([
            "--output",
            &out.to_string_lossy(),
            "--resolution",
            "640x400",
            "--view",
            "top",
            "--portals",
            "--doodad-set",
            "1",
        ])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("doodad World\\Generic\\Barrel.m2: not found under the data root; a marker is shown"),
        "{stderr}"
    );
    assert!(stderr.contains("doodad World\\Generic\\Lamp.m2"), "{stderr}");
    compare_with_baseline("courtyard-top-markers.png", &out);
}

/// Real LightWave 2018 objects whose surfaces exist only as node graphs: the six Standard nodes'
/// colours of Cube04, Cube06's Image node with its UV grid from the content folder's Images/, and
/// Cube09's UV grid on the Standard node's own Color layer (mirrored and clamped on one face, undersized
/// and oversized on others).
#[test]
fn lightwave_2018_node_materials_match_baselines() {
    let dir = scratch("render-lw2018");
    let objects = crate::lwo3::content_root().join("Objects");
    for (file, baseline) in [
        ("Cube04-MultipleStandard.lwo", "lw2018-cube04-node-colours.png"),
        ("Cube06-UVTextureMapStandard.lwo", "lw2018-cube06-uv-grid.png"),
        ("Cube09-UVTextureMapPhong-Repeat.lwo", "lw2018-cube09-layer-uv-grid.png"),
    ] {
        let out = dir.join(baseline);
        render(&objects.join(file), &out, &[]);
        compare_with_baseline(baseline, &out);
    }
}

/// The WMO sample with its textures and doodad models inside a client-style `Data/` folder of MPQ
/// archives (built by StormLib's smpq, the world files in `common.MPQ`, the doodads in `patch.MPQ`),
/// the root and groups loose elsewhere: it renders as from loose files.
#[test]
fn wmo_with_textures_and_doodads_from_mpq_archives_matches_the_loose_render() {
    let dir = scratch("render-mpq");
    let staging = dir.join("staging");
    let names = [
        "World/wmo/Sample/Glass.blp",
        "World/wmo/Sample/Stone.blp",
        "World/wmo/Sample/Water.blp",
        "World/Generic/Barrel.m2",
        "World/Generic/Barrel00.skin",
        "World/Generic/Lamp.m2",
        "World/Generic/Lamp00.skin",
    ];
    for name in names {
        let target = staging.join(name);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(asset(name), &target).unwrap();
    }
    let data = dir.join("Data");
    std::fs::create_dir_all(&data).unwrap();
    let common = data.join("common.MPQ").to_string_lossy().into_owned();
    let patch = data.join("patch.MPQ").to_string_lossy().into_owned();
    let mut args = vec!["-c", "-q", "-M", "2", "-C", "ZLIB", &common];
    args.extend(&names[..3]);
    crate::mpq::smpq(&staging, &args);
    let mut args = vec!["-c", "-q", "-M", "1", "-C", "BZIP2", "-E", &patch];
    args.extend(&names[3..]);
    crate::mpq::smpq(&staging, &args);
    let model = dir.join("model");
    std::fs::create_dir_all(&model).unwrap();
    for name in ["courtyard.wmo", "courtyard_000.wmo", "courtyard_001.wmo", "courtyard_002.wmo"] {
        std::fs::copy(asset(name), model.join(name)).unwrap();
    }
    let out = dir.join("courtyard-doodads-set0.png");
    render(&model.join("courtyard.wmo"), &out, &["--data", &data.to_string_lossy()]);
    compare_with_baseline("courtyard-doodads-set0.png", &out);
}
