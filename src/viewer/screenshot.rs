//! Screenshots of the 3D view: F12 writes `NAME-screenshot.png` beside the model (the next free
//! `NAME-screenshot-N.png`, or the working folder when the model's folder cannot be written), and
//! File ▸ Save screenshot… where the user chooses. The window is captured as drawn and the panels are
//! cropped away, so the image is the view at its size on screen; the menu bar says where it went.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::tasks::{block_on, futures_lite::future::poll_once, AsyncComputeTaskPool, Task};

use super::scene::Viewer;

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
            let mut dialog = rfd::AsyncFileDialog::new().set_title("Save screenshot").add_filter("PNG", &["png"]).set_file_name(file_name);
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
    let stem = model.and_then(Path::file_stem).map_or_else(|| "lwo-wmo-viewer".to_owned(), |s| s.to_string_lossy().into_owned());
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

/// Where the capture goes and which part of the window is the 3D view (physical pixels).
#[derive(Component)]
struct PendingShot {
    path: PathBuf,
    view: Option<(UVec2, UVec2)>,
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

pub fn take_screenshots(mut requests: MessageReader<TakeScreenshot>, mut commands: Commands, viewer: Res<Viewer>, cameras: Query<&Camera, With<Camera3d>>) {
    for request in requests.read() {
        let path = request.0.clone().unwrap_or_else(|| free_path_beside(viewer.current_path.as_deref()));
        let view = cameras.iter().next().and_then(|c| c.viewport.as_ref()).map(|v| (v.physical_position, v.physical_size));
        commands.spawn((Screenshot::primary_window(), PendingShot { path, view })).observe(save_view);
    }
}

fn save_view(captured: On<ScreenshotCaptured>, shots: Query<&PendingShot>, mut viewer: ResMut<Viewer>) {
    let Ok(shot) = shots.get(captured.entity) else { return };
    let saved = save_png(&captured.image, &shot.path, shot.view);
    viewer.notice = Some(match saved {
        Ok((w, h)) => format!("screenshot saved to {} ({w}×{h})", shot.path.display()),
        Err(e) => format!("screenshot not saved to {}: {e}", shot.path.display()),
    });
    info!("{}", viewer.notice.as_deref().unwrap_or_default());
}
