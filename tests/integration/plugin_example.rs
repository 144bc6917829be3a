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
    let (drawn, all) =
        drawn_pixels("plugin-example-wow", &["--data".as_ref(), data.as_os_str(), "wow://courtyard.wmo".as_ref()]);
    let (loose, _) = drawn_pixels("plugin-example-loose", &[asset("courtyard.wmo").as_os_str()]);
    assert!(drawn > all / 20, "only {drawn} pixels differ from the background");
    assert!(drawn.abs_diff(loose) * 50 < loose, "{drawn} pixels drawn from the archive, {loose} from loose files");
}

/// A source that notes which thread read each file.
#[derive(Debug)]
struct ReadsNoted {
    files: lwo_wmo_viewer::source::LooseFolder,
    reads: std::sync::Mutex<Vec<(String, String)>>,
}

impl lwo_wmo_viewer::source::FileSource for ReadsNoted {
    fn describe(&self) -> String {
        self.files.describe()
    }
    fn find(&self, path: &str) -> Option<String> {
        self.files.find(path)
    }
    fn read(&self, path: &str) -> Result<std::sync::Arc<[u8]>, lwo_wmo_viewer::source::SourceError> {
        let thread = std::thread::current().name().unwrap_or("unnamed").to_owned();
        self.reads.lock().unwrap().push((path.to_owned(), thread));
        self.files.read(path)
    }
    fn list(&self, folder: &str) -> Vec<lwo_wmo_viewer::source::Entry> {
        self.files.list(folder)
    }
}

/// Bevy's watcher interface, fed by hand: the test says when a file changed.
struct ChangesByHand;
impl bevy::asset::io::AssetWatcher for ChangesByHand {}

type ChangeSender = Box<dyn Fn(bevy::asset::io::AssetSourceEvent) + Send>;

/// In a plain Bevy app, a WMO loaded from a file source pulls its group files, textures and doodad
/// models through the asset server: each is read by the asset server's I/O tasks (as the model file
/// itself is), not by the thread that builds the scene or its workers, and each is a dependency of the
/// model, so a change to a group file reloads the root.
#[test]
fn the_loader_reads_a_models_other_files_through_the_asset_server() {
    use bevy::asset::AssetApp;
    use bevy::asset::io::{AssetSourceBuilder, AssetSourceEvent};
    use bevy::prelude::*;
    use lwo_wmo_viewer::plugin::{ModelAsset, ModelSources, SourceReader};
    let noted = std::sync::Arc::new(ReadsNoted {
        files: lwo_wmo_viewer::source::LooseFolder::new(asset("")),
        reads: Default::default(),
    });
    let changes: std::sync::Arc<std::sync::Mutex<Option<ChangeSender>>> = Default::default();
    let mut app = App::new();
    app.world_mut().get_resource_or_init::<ModelSources>().insert("noted", noted.clone());
    let (reader, watcher) = (noted.clone(), changes.clone());
    app.register_asset_source(
        "noted",
        AssetSourceBuilder::new(move || Box::new(SourceReader(reader.clone()))).with_watcher(move |sender| {
            *watcher.lock().unwrap() = Some(Box::new(move |event| sender.send_blocking(event).unwrap()));
            Some(Box::new(ChangesByHand))
        }),
    );
    app.add_plugins(
        DefaultPlugins
            .set(AssetPlugin { watch_for_changes_override: Some(true), ..default() })
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: bevy::window::ExitCondition::DontExit,
                ..default()
            })
            .disable::<bevy::winit::WinitPlugin>()
            .disable::<bevy::log::LogPlugin>(),
    )
    .add_plugins(lwo_wmo_viewer::LwoWmoPlugin);
    // What `App::run` does before its first update: wait for the renderer, then finish the plugins.
    while app.plugins_state() == bevy::app::PluginsState::Adding {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    app.finish();
    app.cleanup();
    let handle: Handle<ModelAsset> = app.world().resource::<AssetServer>().load("noted://courtyard.wmo");
    let started = std::time::Instant::now();
    while app.world().resource::<Assets<ModelAsset>>().get(&handle).is_none() {
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        assert!(!state.is_failed(), "{state:?}");
        assert!(started.elapsed().as_secs() < 120, "not loaded after two minutes");
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let model = app.world().resource::<Assets<ModelAsset>>().get(&handle).unwrap();
    assert!(model.description.files.len() >= 4, "the root and its three groups: {}", model.description.files.len());
    let reads = noted.reads.lock().unwrap().clone();
    let read = |suffix: &str| reads.iter().any(|(path, _)| path.to_ascii_lowercase().ends_with(suffix));
    for wanted in ["courtyard.wmo", "courtyard_000.wmo", "courtyard_002.wmo", ".blp", ".m2", ".skin"] {
        assert!(read(wanted), "no read of a {wanted} file: {reads:?}");
    }
    let elsewhere: Vec<_> = reads.iter().filter(|(_, thread)| !thread.starts_with("IO Task Pool")).collect();
    assert!(elsewhere.is_empty(), "read outside the asset server's I/O tasks: {elsewhere:?}");

    // A group file changes: the asset server reloads the root that read it.
    let root_reads = |reads: &[(String, String)]| reads.iter().filter(|(path, _)| path == "courtyard.wmo").count();
    let before = root_reads(&reads);
    let send = changes.lock().unwrap().take().expect("the asset server watches the source");
    send(AssetSourceEvent::ModifiedAsset("courtyard_001.wmo".into()));
    let started = std::time::Instant::now();
    while root_reads(&noted.reads.lock().unwrap()) == before {
        assert!(started.elapsed().as_secs() < 60, "the root was not read again after its group file changed");
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
