//! Live reload (`--watch`, View ▸ watch files): every file the shown model was read from — the model,
//! its group files, skins, doodad models and texture images, or the archive they came from — is
//! followed through the file system's change events (inotify, by the `notify` crate). A change reloads
//! the model once the writes have settled; the camera, the selection and the toggles stay. A file that
//! is half-written or broken shows the error and the last good model stays until the next change.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use notify::{RecursiveMode, Watcher};

use super::overlays::ViewOptions;
use super::scene::{ModelShown, Viewer};
use crate::plugin::ModelAsset;

/// Writes closer together than this are one change (an editor's save, a copy in several writes).
const SETTLE: Duration = Duration::from_millis(300);

#[derive(Resource, Default)]
pub struct FileWatch {
    watcher: Option<notify::RecommendedWatcher>,
    // A Receiver is not Sync; the mutex makes the resource shareable (only one system reads it).
    events: Option<Mutex<Receiver<notify::Result<notify::Event>>>>,
    /// The files followed, and the folders watched for them (editors replace files by renaming).
    files: HashSet<PathBuf>,
    folders: HashSet<PathBuf>,
    /// When the last change to a followed file was seen.
    changed_at: Option<Instant>,
    /// Whether `files` is for the model shown now with watching on.
    following: bool,
    pub error: Option<String>,
}

/// The file on disk that holds `display_path`: the path itself, or for a file inside an archive the
/// archive (the nearest ancestor that is a file).
fn file_on_disk(display_path: &str) -> Option<PathBuf> {
    let mut path = Path::new(display_path);
    loop {
        if path.is_file() {
            return std::path::absolute(path).ok();
        }
        path = path.parent()?;
    }
}

impl FileWatch {
    fn follow(&mut self, paths: &[&str]) {
        self.stop();
        let (sender, events) = channel();
        let mut watcher = match notify::recommended_watcher(sender) {
            Ok(w) => w,
            Err(e) => {
                self.error = Some(format!("cannot watch files: {e}"));
                return;
            }
        };
        self.files = paths.iter().filter_map(|p| file_on_disk(p)).collect();
        self.folders = self.files.iter().filter_map(|f| f.parent().map(Path::to_path_buf)).collect();
        for folder in &self.folders {
            if let Err(e) = watcher.watch(folder, RecursiveMode::NonRecursive) {
                self.error = Some(format!("cannot watch {}: {e}", folder.display()));
            }
        }
        debug!("following {} files in {} folders", self.files.len(), self.folders.len());
        self.watcher = Some(watcher);
        self.events = Some(Mutex::new(events));
        self.following = true;
    }

    fn stop(&mut self) {
        *self = Self::default();
    }

    /// Whether any event since the last call touched a followed file.
    fn touched(&mut self) -> bool {
        let Some(Ok(events)) = self.events.as_ref().map(Mutex::lock) else { return false };
        let mut touched = false;
        for event in events.try_iter().flatten() {
            if matches!(event.kind, notify::EventKind::Access(_)) {
                continue;
            }
            let ours = event.paths.iter().any(|p| self.files.contains(p));
            if ours {
                debug!("watched file changed: {:?} {:?}", event.kind, event.paths);
            }
            touched |= ours;
        }
        touched
    }

    /// The files followed now, for the control hook.
    pub fn followed(&self) -> Vec<String> {
        let mut files: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        files.sort();
        files
    }
}

/// Follows the shown model's files while watching is on; a new model (or a reload that read other
/// files) is followed anew.
pub fn follow_shown_files(
    mut watch: ResMut<FileWatch>,
    options: Res<ViewOptions>,
    mut shown: MessageReader<ModelShown>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
) {
    let new_model = shown.read().count() > 0;
    if !options.watch {
        if watch.following {
            watch.stop();
        }
        return;
    }
    if watch.following && !new_model {
        return;
    }
    let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return };
    let paths = model.description.read_paths();
    watch.follow(&paths);
}

/// Reloads the shown model once a followed file has changed and the writes have settled.
pub fn reload_on_change(mut watch: ResMut<FileWatch>, mut viewer: ResMut<Viewer>, asset_server: Res<AssetServer>) {
    if !watch.following {
        return;
    }
    if watch.touched() {
        watch.changed_at = Some(Instant::now());
    }
    let settled = watch.changed_at.is_some_and(|t| t.elapsed() >= SETTLE);
    if settled && viewer.pending.is_none() {
        debug!("reloading after a change on disk");
        watch.changed_at = None;
        viewer.reload(&asset_server);
    }
}
