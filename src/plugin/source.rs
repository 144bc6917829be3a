//! A [`FileSource`] as a Bevy asset source, so `wow://World/…` (or any name) loads through the asset
//! server, and the loader finds the same source again for the files the model pulls in.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use bevy::asset::AssetApp;
use bevy::asset::io::{AssetReader, AssetReaderError, AssetSourceBuilder, PathStream, Reader, VecReader};
use bevy::prelude::*;

use crate::source::{FileSource, SourceError};

/// The file sources registered as asset sources, by asset source name; shared with the loader.
#[derive(Resource, Clone, Default)]
pub struct ModelSources(pub(super) Arc<RwLock<HashMap<String, Arc<dyn FileSource>>>>);

impl ModelSources {
    pub fn get(&self, name: &str) -> Option<Arc<dyn FileSource>> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
    }

    /// Tells the loader that the asset source `name` serves `source`'s files, for an app that registers
    /// the asset source itself (with a watcher, say) rather than through [`FileSourcePlugin`].
    pub fn insert(&self, name: &str, source: Arc<dyn FileSource>) {
        self.0.write().unwrap_or_else(|e| e.into_inner()).insert(name.to_owned(), source);
    }
}

/// Listfiles the loader has read (or been given), by path: each is read once for every load that names
/// it in [`super::ModelLoaderSettings::listfile`]; shared with the loader.
#[derive(Resource, Clone, Default)]
pub struct Listfiles(Arc<RwLock<HashMap<PathBuf, Arc<crate::source::Listfile>>>>);

impl Listfiles {
    /// The listfile at `path`, read on first use.
    pub fn get(&self, path: &Path) -> Result<Arc<crate::source::Listfile>, crate::source::ListfileError> {
        if let Some(found) = self.0.read().unwrap_or_else(|e| e.into_inner()).get(path) {
            return Ok(found.clone());
        }
        let read = Arc::new(crate::source::Listfile::read(path)?);
        self.insert(path, read.clone());
        Ok(read)
    }

    /// Gives the loader a listfile already read (the viewer reads `--listfile` once, at the start).
    pub fn insert(&self, path: &Path, listfile: Arc<crate::source::Listfile>) {
        self.0.write().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), listfile);
    }
}

/// Makes `source` the asset source `name` (`name://path` asset paths). Add it before `DefaultPlugins`:
/// Bevy builds its asset sources when the asset plugin is added.
pub struct FileSourcePlugin {
    pub name: &'static str,
    pub source: Arc<dyn FileSource>,
}

impl Plugin for FileSourcePlugin {
    /// One app may have several file sources, each under its own name.
    fn is_unique(&self) -> bool {
        false
    }

    fn build(&self, app: &mut App) {
        app.world_mut().get_resource_or_init::<ModelSources>().insert(self.name, self.source.clone());
        let source = self.source.clone();
        app.register_asset_source(self.name, AssetSourceBuilder::new(move || Box::new(SourceReader(source.clone()))));
    }
}

/// Bevy's reader over a file source.
pub struct SourceReader(pub Arc<dyn FileSource>);

fn source_path(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn reader_error(path: &Path, error: SourceError) -> AssetReaderError {
    match error {
        SourceError::NotFound { .. } => AssetReaderError::NotFound(path.to_path_buf()),
        SourceError::Io { error, .. } => AssetReaderError::Io(Arc::new(error)),
        damaged @ SourceError::Damaged { .. } => AssetReaderError::Io(Arc::new(std::io::Error::other(damaged))),
    }
}

impl AssetReader for SourceReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        let bytes = self.0.read(&source_path(path)).map_err(|e| reader_error(path, e))?;
        Ok(VecReader::new(bytes.to_vec()))
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        // Game data and loose model folders hold no Bevy `.meta` files.
        Err::<VecReader, _>(AssetReaderError::NotFound(path.to_path_buf()))
    }

    async fn read_directory<'a>(&'a self, path: &'a Path) -> Result<Box<PathStream>, AssetReaderError> {
        let entries: Vec<PathBuf> = self.0.list(&source_path(path)).into_iter().map(|e| path.join(e.name)).collect();
        Ok(Box::new(bevy::tasks::futures_lite::stream::iter(entries)))
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        let path = source_path(path);
        Ok(path.is_empty() || !self.0.list(&path).is_empty())
    }
}
