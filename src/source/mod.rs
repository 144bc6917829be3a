//! Where files come from. Every file the pipeline touches — a model, its WMO group files, an M2's skins,
//! textures, doodad models, the bytes the inspector's hex view shows — is read through a [`FileSource`],
//! so a folder of loose files and a game client's archives are one thing to everything above this module.
//!
//! Paths inside a source are relative, use `/` or `\` freely and are matched ignoring ASCII case, as game
//! data written on Windows names files freely.

mod game_data;
mod listfile;
mod loose;
mod mpq;

use std::fmt;
use std::sync::Arc;

pub use game_data::{DataEntry, GameData};
pub use listfile::{Listfile, ListfileError};
pub use loose::{LooseFolder, read_file, zeroed_file_buffer};
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

    /// Every file, for a browser: by default the folders walked from the top; archives list their
    /// entries instead (files without a name in any listfile among them).
    fn browse(&self) -> Vec<BrowseEntry> {
        let mut found = Vec::new();
        let mut folders = vec![String::new()];
        while let Some(folder) = folders.pop() {
            for entry in self.list(&folder) {
                let path = if folder.is_empty() { entry.name } else { format!("{folder}/{}", entry.name) };
                if entry.is_folder {
                    folders.push(path);
                } else {
                    found.push(BrowseEntry {
                        label: path.clone(),
                        path: Some(path),
                        size: entry.size,
                        name_hashes: None,
                    });
                }
            }
        }
        found.sort_by_cached_key(|e| e.label.to_ascii_lowercase());
        found
    }
}

/// One file of [`FileSource::browse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrowseEntry {
    /// The path to read it by; `None` for an archive block no listfile names.
    pub path: Option<String>,
    /// The path, or the name's hash pair (`#AAAAAAAA-BBBBBBBB`) where there is none.
    pub label: String,
    pub size: u64,
    /// An archive block's name hashes (MPQ's two), by which a path from elsewhere can name it.
    pub name_hashes: Option<(u32, u32)>,
}

/// Names the entries no archive listfile names from `listfile`'s paths, where a path hashes to the
/// entry's name hashes (a community listfile knows the names an archive left out). The entries named
/// are sorted in among the others; how many were named is returned.
pub fn name_from_listfile(entries: &mut [BrowseEntry], listfile: &Listfile) -> usize {
    use crate::formats::mpq::{HashKind, hash_name};
    // A name's hashes may stand for several blocks (one file in several locales).
    let mut unnamed: std::collections::HashMap<(u32, u32), Vec<usize>> = std::collections::HashMap::new();
    for (i, entry) in entries.iter().enumerate().filter(|(_, e)| e.path.is_none()) {
        if let Some(hashes) = entry.name_hashes {
            unnamed.entry(hashes).or_default().push(i);
        }
    }
    if unnamed.is_empty() {
        return 0;
    }
    let mut named = 0;
    for path in listfile.paths() {
        let key = (hash_name(path, HashKind::NameA), hash_name(path, HashKind::NameB));
        for &i in unnamed.get(&key).into_iter().flatten() {
            if entries[i].path.is_none() {
                entries[i].path = Some(normalise(path));
                entries[i].label = normalise(path);
                named += 1;
            }
        }
    }
    if named > 0 {
        sort_for_browsing(entries);
    }
    named
}

/// A browser's order: named files by name, ignoring case, then the unnamed ones by their hashes.
pub fn sort_for_browsing(entries: &mut [BrowseEntry]) {
    entries.sort_by_cached_key(|e| (e.path.is_none(), e.label.to_ascii_lowercase()));
}

/// A source that can be swapped for another while it is in use: the window's `wow://` asset source,
/// which serves the game data named with `--data`, or the archive dropped last.
#[derive(Debug, Default)]
pub struct SwitchableSource(std::sync::RwLock<Option<Arc<dyn FileSource>>>);

impl SwitchableSource {
    pub fn new(inner: Option<Arc<dyn FileSource>>) -> Self {
        Self(std::sync::RwLock::new(inner))
    }

    pub fn set(&self, inner: Arc<dyn FileSource>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Some(inner);
    }

    pub fn get(&self) -> Option<Arc<dyn FileSource>> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl FileSource for SwitchableSource {
    fn describe(&self) -> String {
        self.get().map_or_else(|| "no game data".into(), |s| s.describe())
    }

    fn find(&self, path: &str) -> Option<String> {
        self.get()?.find(path)
    }

    fn read(&self, path: &str) -> Result<Arc<[u8]>, SourceError> {
        match self.get() {
            Some(source) => source.read(path),
            None => Err(SourceError::NotFound { file: format!("no game data: {path}") }),
        }
    }

    fn list(&self, folder: &str) -> Vec<Entry> {
        self.get().map(|s| s.list(folder)).unwrap_or_default()
    }

    fn display_path(&self, path: &str) -> String {
        self.get().map_or_else(|| normalise(path), |s| s.display_path(path))
    }

    fn browse(&self) -> Vec<BrowseEntry> {
        self.get().map(|s| s.browse()).unwrap_or_default()
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
    /// An archive holds the name but its data cannot be read (a damaged table, sector or stream); the
    /// archive's error names the archive, the file and the table or sector.
    #[error("{error}")]
    Damaged { file: String, error: crate::formats::mpq::MpqError },
}

/// Splits a source path into its components, accepting either separator and dropping empty and `.` parts.
pub fn path_components(path: &str) -> impl Iterator<Item = &str> {
    path.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".")
}

/// The path with `/` separators and no empty components, as [`FileSource::find`] returns them.
pub fn normalise(path: &str) -> String {
    path_components(path).collect::<Vec<_>>().join("/")
}

/// Whether `path` matches `pattern` ignoring ASCII case and the kind of separator: `*` stands for any
/// run of characters, separators included, so `World\wmo\*.wmo` reaches every WMO below `World/wmo`.
pub fn matches_wildcard(pattern: &str, path: &str) -> bool {
    let fold =
        |s: &str| -> Vec<u8> { s.bytes().map(|b| if b == b'\\' { b'/' } else { b.to_ascii_lowercase() }).collect() };
    let (pattern, path) = (fold(pattern), fold(path));
    // Greedy matching with one backtrack point: the last `*` seen absorbs one more character each time
    // the rest fails, which is enough because `*` is the only wildcard.
    let (mut p, mut s) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while s < path.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, s));
            p += 1;
        } else if p < pattern.len() && pattern[p] == path[s] {
            p += 1;
            s += 1;
        } else if let Some((star_p, star_s)) = star {
            p = star_p + 1;
            s = star_s + 1;
            star = Some((star_p, star_s + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

/// Every file of `source` whose path matches `pattern` (see [`matches_wildcard`]), sorted. A plain
/// path is looked up directly (found even where no listfile names its folder); a wildcard filters
/// [`FileSource::browse`], one pass over an archive's names rather than one per folder.
pub fn files_matching(source: &dyn FileSource, pattern: &str) -> Vec<String> {
    let pattern = normalise(pattern);
    if !pattern.contains('*') {
        return source.find(&pattern).into_iter().collect();
    }
    let mut found: Vec<String> =
        source.browse().into_iter().filter_map(|e| e.path).filter(|p| matches_wildcard(&pattern, p)).collect();
    found.sort_by_key(|p| p.to_ascii_lowercase());
    found
}

/// The data root a user names (`--data DIR`, the loader settings' `data_root`): a client's `Data/`
/// folder of MPQ archives (or one archive) with any loose files beside them, else a folder of loose files.
pub fn open_data_root(dir: &std::path::Path) -> std::sync::Arc<dyn FileSource> {
    match GameData::open(dir) {
        Ok(game_data) => std::sync::Arc::new(game_data),
        Err(_) => std::sync::Arc::new(LooseFolder::new(dir)),
    }
}

#[cfg(test)]
mod tests {
    use super::matches_wildcard;

    #[test]
    fn wildcards_ignore_case_and_separators_and_cross_folders() {
        assert!(matches_wildcard(r"World\wmo\*.wmo", "world/WMO/Azeroth/Buildings/Inn.WMO"));
        assert!(matches_wildcard("*", "anything/at/all"));
        assert!(matches_wildcard("a*b*c", "axxbyyc"));
        assert!(matches_wildcard("a*b*c", "abcbc"));
        assert!(!matches_wildcard("a*b*c", "abcb"));
        assert!(!matches_wildcard(r"World\wmo\*.wmo", "World/wmo/Inn.m2"));
        assert!(matches_wildcard("exact.m2", "EXACT.M2"));
        assert!(!matches_wildcard("exact.m2", "exact.m2x"));
        assert!(matches_wildcard("**x", "x"));
    }
}
