//! The plugin in someone else's app: a plain Bevy app adds `LwoWmoPlugin`, loads a file by path
//! through the asset server and spawns its scene.
//!
//!     cargo run --example plugin -- assets/courtyard.wmo
//!     cargo run --example plugin -- assets/courtyard.wmo --screenshot out.png   # save a frame, exit
//!     cargo run --example plugin -- --data ~/wow/Data 'wow://World/wmo/…/Stormwind.wmo'
//!
//! With `--data`, the game data (a client's `Data` folder of MPQ archives, or a folder of loose files)
//! becomes the asset source `wow`: `wow://` paths load from inside the archives, and the model's
//! groups, skins, textures and doodad models come from there too.

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::world_serialization::WorldAssetRoot;
use lwo_wmo_viewer::LwoWmoPlugin;
use lwo_wmo_viewer::plugin::{FileSourcePlugin, ModelAsset};

#[derive(Resource)]
struct Model(Handle<ModelAsset>, Option<String>);

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut option = |name: &str| {
        args.iter().position(|a| a == name).map(|i| args.drain(i..(i + 2).min(args.len())).nth(1).unwrap_or_default())
    };
    let screenshot = option("--screenshot");
    let data = option("--data");
    let file = args.first().cloned().unwrap_or_else(|| "courtyard.wmo".into());
    let mut app = App::new();
    // The game data as an asset source, before `DefaultPlugins` builds the asset sources.
    if let Some(data) = data {
        app.add_plugins(FileSourcePlugin {
            name: "wow",
            source: lwo_wmo_viewer::source::open_data_root(data.as_ref()),
        });
    }
    app
        // Files outside `assets/` are loaded by their path: the asset server allows that when asked.
        // Pipelines compiled before the frame that needs them, so the saved frame shows the model
        // even on a slow software renderer.
        .add_plugins(
            DefaultPlugins
                .set(AssetPlugin { unapproved_path_mode: bevy::asset::UnapprovedPathMode::Allow, ..default() })
                .set(bevy::render::RenderPlugin { synchronous_pipeline_compilation: true, ..default() }),
        )
        .add_plugins(LwoWmoPlugin)
        .add_systems(Startup, move |mut commands: Commands, assets: Res<AssetServer>| {
            let model = if file.starts_with("wow://") {
                assets.load(file.clone())
            } else {
                assets.load(std::path::absolute(&file).unwrap_or_else(|_| file.clone().into()))
            };
            commands.insert_resource(Model(model, screenshot.clone()));
            commands.spawn(Camera3d::default());
            commands.spawn((
                DirectionalLight::default(),
                Transform::from_xyz(3.0, 8.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
            ));
        })
        .add_systems(Update, spawn_when_loaded)
        .run();
}

/// Spawns the model's scene once it has loaded; with `--screenshot`, saves a later frame and exits.
fn spawn_when_loaded(
    mut commands: Commands,
    model: Res<Model>,
    models: Res<Assets<ModelAsset>>,
    mut camera: Query<&mut Transform, With<Camera3d>>,
    mut frames: Local<Option<u32>>,
    mut exit: MessageWriter<AppExit>,
) {
    match frames.as_mut() {
        None => {
            if let Some(loaded) = models.get(&model.0) {
                commands.spawn(WorldAssetRoot(loaded.scene.clone()));
                // Look at the model from above one corner, far enough to see all of it.
                let bounds = loaded.description.bounds;
                let (center, size) =
                    (Vec3::from_array(bounds.center()), Vec3::from_array(bounds.extent()).length().max(1.0));
                if let Ok(mut transform) = camera.single_mut() {
                    *transform = Transform::from_translation(center + Vec3::new(0.7, 0.6, 0.7) * size)
                        .looking_at(center, Vec3::Y);
                }
                *frames = Some(0);
            }
        }
        Some(n) => {
            *n += 1;
            match (&model.1, *n) {
                (Some(path), 30) => {
                    commands.spawn(Screenshot::primary_window()).observe(save_to_disk(path.clone()));
                }
                (Some(_), 60) => {
                    exit.write(AppExit::Success);
                }
                _ => {}
            }
        }
    }
}
