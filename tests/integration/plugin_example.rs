//! `examples/plugin.rs`, the plugin in a plain Bevy app, run under Xvfb on the WMO sample: it loads
//! the file through the asset server, spawns the scene and saves a frame that shows it.

use std::process::{Command, Stdio};

use crate::support::{asset, scratch};

#[test]
fn the_plugin_example_renders_the_sample() {
    let dir = scratch("plugin-example");
    // `cargo test` builds the examples beside the test binaries' folder.
    let example = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("debug/examples/plugin");
    assert!(example.exists(), "{} is missing: cargo test builds the examples", example.display());
    let out = dir.join("plugin.png");
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    let status = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(&example)
        .arg(asset("courtyard.wmo"))
        .arg("--screenshot")
        .arg(&out)
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("xvfb-run (package xvfb) runs the example");
    assert!(status.success(), "the example exited with {status}");
    let image = image::open(&out).unwrap().to_rgb8();
    // The clear colour is Bevy's default grey; the courtyard's walls, floors and textures differ from it.
    let background = *image.get_pixel(2, 2);
    let drawn = image.pixels().filter(|p| p.0.iter().zip(background.0).any(|(a, b)| a.abs_diff(b) > 30)).count();
    assert!(drawn > image.pixels().len() / 20, "only {drawn} pixels differ from the background");
}
