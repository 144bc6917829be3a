//! `examples/plugin.rs`, the plugin in a plain Bevy app, run under Xvfb on the WMO sample: it loads
//! the file through the asset server, spawns the scene and saves a frame that shows it.

use std::process::{Command, Stdio};

use crate::support::{asset, scratch};

fn example() -> std::path::PathBuf {
    // `cargo test` builds the examples beside the test binaries' folder.
    let example = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("debug/examples/plugin");
    assert!(example.exists(), "{} is missing: cargo test builds the examples", example.display());
    example
}

/// Runs the example under Xvfb with `args` and returns how many pixels of its saved frame differ from
/// the background.
fn drawn_pixels(name: &str, args: &[&std::ffi::OsStr]) -> (usize, usize) {
    let dir = scratch(name);
    let out = dir.join("plugin.png");
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    let status = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(example())
        .args(args)
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
    (drawn, image.pixels().len())
}

#[test]
fn the_plugin_example_renders_the_sample() {
    let (drawn, all) = drawn_pixels("plugin-example", &[asset("courtyard.wmo").as_os_str()]);
    assert!(drawn > all / 20, "only {drawn} pixels differ from the background");
}

/// The same app with the game data as the asset source `wow`: `wow://courtyard.wmo` loads from inside
/// a smpq-built archive, with its groups, textures and doodads, and draws as from loose files.
#[test]
fn the_plugin_example_loads_wow_paths_from_archives() {
    let data = crate::batch::sample_game_data();
    let (drawn, all) = drawn_pixels("plugin-example-wow", &["--data".as_ref(), data.as_os_str(), "wow://courtyard.wmo".as_ref()]);
    let (loose, _) = drawn_pixels("plugin-example-loose", &[asset("courtyard.wmo").as_os_str()]);
    assert!(drawn > all / 20, "only {drawn} pixels differ from the background");
    assert!(drawn.abs_diff(loose) * 50 < loose, "{drawn} pixels drawn from the archive, {loose} from loose files");
}
