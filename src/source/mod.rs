//! Where files come from. Every file the pipeline touches — a model, its WMO group files, an M2's skins,
//! textures, doodad models, the bytes the inspector's hex view shows — is read through a [`FileSource`],
//! so a folder of loose files and a game client's archives are one thing to everything above this module.
//!
//! Paths inside a source are relative, use `/` or `\` freely and are matched ignoring ASCII case, as game
//! data written on Windows names files freely.

mod game_data;
mod loose;
mod mpq;

use std::fmt;
use std::sync::Arc;

pub use game_data::{DataEntry, GameData};
pub use loose::LooseFolder;
pub use mpq::MpqArchive;

/// A tree of files that can be read by relative path.
pub trait FileSource: Send + Sync + fmt::Debug {
    /// What the source is, for messages: a folder or an archive's path.
    fn describe(&self) -> String;

    /// The path as the source stores it (separators normalised to `/`), if it holds a file there under
    /// any spelling of the path.
    fn find(&self, path: &str) -> Option<String>;

    /// The whole file.
    fn read(&self, path: &str) -> Result<Arc<[u8]>, SourceError>;

    /// The entries directly inside `folder` (`""` is the root), in no promised order.
    fn list(&self, folder: &str) -> Vec<Entry>;

    /// How a person would name the file at `path`: the source and the path inside it.
    fn display_path(&self, path: &str) -> String {
        format!("{}/{}", self.describe().trim_end_matches(['/', '\\']), normalise(path))
    }
}

/// One name in a folder listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The name as stored, without the folder.
    pub name: String,
    pub is_folder: bool,
    /// Size in bytes as the source reports it (0 for folders).
    pub size: u64,
}

/// Why a source could not hand out a file. `file` is the file as [`FileSource::display_path`] names it
/// (for an archive: the archive and the file inside it).
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{file}: not found")]
    NotFound { file: String },
    #[error("{file}: {error}")]
    Io { file: String, error: std::io::Error },
    /// An archive holds the name but its data cannot be read (a damaged table, sector or stream).
    #[error("{file}: {message}")]
    Damaged { file: String, message: String },
}

/// Splits a source path into its components, accepting either separator and dropping empty and `.` parts.
pub fn path_components(path: &str) -> impl Iterator<Item = &str> {
    path.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".")
}

/// The path with `/` separators and no empty components, as [`FileSource::find`] returns them.
pub fn normalise(path: &str) -> String {
    path_components(path).collect::<Vec<_>>().join("/")
}

/// The data root a user names (`--data DIR`, the loader settings' `data_root`): a client's `Data/`
/// folder of MPQ archives (or one archive) with any loose files beside them, else a folder of loose files.
pub fn open_data_root(dir: &std::path::Path) -> std::sync::Arc<dyn FileSource> {
    match GameData::open(dir) {
        Ok(game_data) => std::sync::Arc::new(game_data),
        Err(_) => std::sync::Arc::new(LooseFolder::new(dir)),
    }
}
