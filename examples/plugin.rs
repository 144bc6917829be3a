//! The plugin in someone else's app: a plain Bevy app adds `LwoWmoPlugin`, loads a file by path
//! through the asset server and spawns its scene.
//!
//!     cargo run --example plugin -- assets/courtyard.wmo
//!     cargo run --example plugin -- assets/courtyard.wmo --screenshot out.png   # save a frame, exit

use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot};
use bevy::world_serialization::WorldAssetRoot;
use lwo_wmo_viewer::plugin::ModelAsset;
use lwo_wmo_viewer::LwoWmoPlugin;

#[derive(Resource)]
struct Model(Handle<ModelAsset>, Option<String>);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = args.get(1).cloned().unwrap_or_else(|| "courtyard.wmo".into());
    let screenshot = args.iter().position(|a| a == "--screenshot").and_then(|i| args.get(i + 1)).cloned();
    App::new()
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
            let path = std::path::absolute(&file).unwrap_or_else(|_| file.clone().into());
            commands.insert_resource(Model(assets.load(path), screenshot.clone()));
            commands.spawn(Camera3d::default());
            commands.spawn((DirectionalLight::default(), Transform::from_xyz(3.0, 8.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y)));
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
                let (center, size) = (Vec3::from_array(bounds.center()), Vec3::from_array(bounds.extent()).length().max(1.0));
                if let Ok(mut transform) = camera.single_mut() {
                    *transform = Transform::from_translation(center + Vec3::new(0.7, 0.6, 0.7) * size).looking_at(center, Vec3::Y);
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
