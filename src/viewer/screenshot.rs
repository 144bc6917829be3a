//! Screenshots of the 3D view: F12 writes `NAME-screenshot.png` beside the model (the next free
//! `NAME-screenshot-N.png`, or the working folder when the model's folder cannot be written), and
//! File ▸ Save screenshot… where the user chooses. The window is captured as drawn and the panels are
//! cropped away, so the image is the view at its size on screen; the menu bar says where it went.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::render_resource::{PipelineCache, TextureFormat};
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::tasks::{AsyncComputeTaskPool, Task, block_on, futures_lite::future::poll_once};

use super::scene::Viewer;

/// Frames rendered through a new camera or onto a new scene, with no pipeline still compiling, before
/// a capture: meshes and textures reach the GPU a frame or two after their entities appear, and a
/// target of another size or format needs its own pipelines.
pub const SETTLE_FRAMES: usize = 4;

/// Shared with the render world: how many pipelines are still compiling, and frames rendered so far.
#[derive(Resource, Clone, Default)]
pub struct RenderProgress(Arc<(AtomicUsize, AtomicUsize)>);

impl RenderProgress {
    pub fn compiling(&self) -> usize {
        self.0.0.load(Ordering::Relaxed)
    }

    pub fn frames(&self) -> usize {
        self.0.1.load(Ordering::Relaxed)
    }
}

/// Keeps [`RenderProgress`] up to date from the render world.
pub struct RenderProgressPlugin;

impl Plugin for RenderProgressPlugin {
    fn build(&self, app: &mut App) {
        let progress = RenderProgress::default();
        app.insert_resource(progress.clone());
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app
                .insert_resource(progress)
                .add_systems(Render, report_render_progress.after(RenderSystems::Render));
        }
    }
}

fn report_render_progress(cache: Res<PipelineCache>, progress: Res<RenderProgress>) {
    progress.0.0.store(cache.waiting_pipelines().count(), Ordering::Relaxed);
    progress.0.1.fetch_add(1, Ordering::Relaxed);
}

/// Take a screenshot of the 3D view: to this file, or (`None`) beside the shown model.
#[derive(Message, Clone, Debug)]
pub struct TakeScreenshot(pub Option<PathBuf>);

/// The save dialog of File ▸ Save screenshot…, while it is open.
#[derive(Resource, Default)]
pub struct ScreenshotDialog(Option<Task<Option<PathBuf>>>);

impl ScreenshotDialog {
    pub fn ask(&mut self, start_dir: Option<PathBuf>, file_name: String) {
        if self.0.is_some() {
            return;
        }
        self.0 = Some(AsyncComputeTaskPool::get().spawn(async move {
            let mut dialog = rfd::AsyncFileDialog::new()
                .set_title("Save screenshot")
                .add_filter("PNG", &["png"])
                .set_file_name(file_name);
            if let Some(dir) = start_dir {
                dialog = dialog.set_directory(dir);
            }
            dialog.save_file().await.map(|f| f.path().to_path_buf())
        }));
    }
}

pub fn poll_screenshot_dialog(mut dialog: ResMut<ScreenshotDialog>, mut shots: MessageWriter<TakeScreenshot>) {
    let Some(task) = dialog.0.as_mut() else { return };
    let Some(chosen) = block_on(poll_once(task)) else { return };
    dialog.0 = None;
    if let Some(path) = chosen {
        shots.write(TakeScreenshot(Some(path)));
    }
}

/// The file name F12 writes for `model`: `NAME-screenshot.png`.
pub fn screenshot_name(model: Option<&Path>) -> String {
    let stem = model
        .and_then(Path::file_stem)
        .map_or_else(|| "lwo-wmo-viewer".to_owned(), |s| s.to_string_lossy().into_owned());
    format!("{stem}-screenshot.png")
}

/// The first free `NAME-screenshot[-N].png` beside the model, reserved by creating it; the working
/// folder when the model's folder cannot be written.
fn free_path_beside(model: Option<&Path>) -> PathBuf {
    let name = screenshot_name(model);
    let (stem, _) = name.rsplit_once('.').unwrap_or((&name, "png"));
    let folders = [model.and_then(Path::parent).map(Path::to_path_buf), std::env::current_dir().ok()];
    for folder in folders.into_iter().flatten() {
        for n in 1..1000 {
            let candidate = folder.join(if n == 1 { format!("{stem}.png") } else { format!("{stem}-{n}.png") });
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&candidate) {
                Ok(_) => return candidate,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(_) => break,
            }
        }
    }
    PathBuf::from(name)
}

/// Where the capture goes and which part of the window is the 3D view (physical pixels); for a
/// chosen size, the camera drawing it, removed once it is saved.
#[derive(Component)]
struct PendingShot {
    path: PathBuf,
    view: Option<(UVec2, UVec2)>,
    camera: Option<Entity>,
}

/// The camera of a screenshot at a chosen size, until its frames have settled.
#[derive(Component)]
pub struct SizedShotCamera {
    path: PathBuf,
    target: Handle<Image>,
    spawned_at_frame: usize,
    requested: bool,
}

/// Writes a captured image as an RGB PNG (the alpha of a render target holds no coverage), cropped to
/// `view` (position and size, physical pixels) when given; its size in pixels.
pub fn save_png(captured: &Image, path: &Path, view: Option<(UVec2, UVec2)>) -> Result<(u32, u32), String> {
    let mut image = captured.clone().try_into_dynamic().map_err(|e| e.to_string())?.to_rgb8();
    if let Some((at, size)) = view {
        let x = at.x.min(image.width().saturating_sub(1));
        let y = at.y.min(image.height().saturating_sub(1));
        let (w, h) = (size.x.min(image.width() - x).max(1), size.y.min(image.height() - y).max(1));
        image = image::imageops::crop_imm(&image, x, y, w, h).to_image();
    }
    image.save(path).map_err(|e| e.to_string())?;
    Ok(image.dimensions())
}

pub fn take_screenshots(
    mut requests: MessageReader<TakeScreenshot>,
    mut commands: Commands,
    viewer: Res<Viewer>,
    panel: Res<super::panel::PanelState>,
    mut images: ResMut<Assets<Image>>,
    progress: Res<RenderProgress>,
    cameras: Query<(&Camera, &Transform, &Projection), With<super::camera::ViewCamera>>,
) {
    for request in requests.read() {
        let path = request.0.clone().unwrap_or_else(|| free_path_beside(viewer.current_path.as_deref()));
        let Some((camera, transform, projection)) = cameras.iter().next() else { continue };
        // The view's size on screen, or one chosen in File ▸ Screenshot size (`--screenshot-size`): that
        // renders the same view (camera, projection, overlays) into an image of the size, with the
        // same vertical field of view.
        match panel.screenshot_size {
            None => {
                let view = camera.viewport.as_ref().map(|v| (v.physical_position, v.physical_size));
                commands
                    .spawn((Screenshot::primary_window(), PendingShot { path, view, camera: None }))
                    .observe(save_view);
            }
            Some((w, h)) => {
                // The view's camera again, drawing into an image of the chosen size; the aspect ratio
                // follows the image, the vertical field of view stays.
                let target = images.add(Image::new_target_texture(w, h, TextureFormat::Rgba8UnormSrgb, None));
                commands.spawn((
                    Camera3d::default(),
                    Camera { order: -1, viewport: None, ..camera.clone() },
                    RenderTarget::Image(target.clone().into()),
                    *transform,
                    projection.clone(),
                    SizedShotCamera { path, target, spawned_at_frame: progress.frames(), requested: false },
                ));
            }
        }
    }
}

/// Captures a chosen-size screenshot once its camera's frames have settled.
pub fn capture_sized_shots(
    mut commands: Commands,
    progress: Res<RenderProgress>,
    mut shots: Query<(Entity, &mut SizedShotCamera)>,
) {
    for (entity, mut shot) in &mut shots {
        let settled =
            progress.frames().saturating_sub(shot.spawned_at_frame) >= SETTLE_FRAMES && progress.compiling() == 0;
        if settled && !shot.requested {
            shot.requested = true;
            commands
                .spawn((
                    Screenshot::image(shot.target.clone()),
                    PendingShot { path: shot.path.clone(), view: None, camera: Some(entity) },
                ))
                .observe(save_view);
        }
    }
}

fn save_view(
    captured: On<ScreenshotCaptured>,
    mut commands: Commands,
    shots: Query<&PendingShot>,
    mut viewer: ResMut<Viewer>,
) {
    let Ok(shot) = shots.get(captured.entity) else { return };
    if let Some(camera) = shot.camera {
        commands.entity(camera).despawn();
    }
    let saved = save_png(&captured.image, &shot.path, shot.view);
    viewer.notice = Some(match saved {
        Ok((w, h)) => format!("screenshot saved to {} ({w}×{h})", shot.path.display()),
        Err(e) => format!("screenshot not saved to {}: {e}", shot.path.display()),
    });
    info!("{}", viewer.notice.as_deref().unwrap_or_default());
}
