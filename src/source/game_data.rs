//! A game client's `Data/` folder as one file source: its MPQ archives layered in the client's load
//! order, with loose files under the folder above them all.
//!
//! Wrath of the Lich King (3.3.5) order, lowest to highest priority: `common.MPQ`, `common-2.MPQ`,
//! `expansion.MPQ`, `lichking.MPQ`; any other non-patch archive of the folder (by name); the locale
//! folder's `locale-<loc>`, `speech-<loc>`, `expansion-locale-<loc>`, `expansion-speech-<loc>`,
//! `lichking-locale-<loc>`, `lichking-speech-<loc>` (and its other non-patch archives); `patch.MPQ`,
//! `patch-2.MPQ`, `patch-3.MPQ`, then other `patch-*.MPQ` by name (the custom `patch-4` … `patch-Z` of
//! private servers); and last the locale patches `patch-<loc>.MPQ`, `patch-<loc>-2.MPQ`,
//! `patch-<loc>-3.MPQ` and other `patch-<loc>-*.MPQ` by name. Names are matched ignoring case.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{BrowseEntry, Entry, FileSource, LooseFolder, MpqArchive, SourceError, normalise};
use crate::formats::mpq::{ArchiveEntry, FileStatus, MpqError};

/// Loose files and archives, searched from the highest priority down.
#[derive(Debug)]
pub struct GameData {
    root: PathBuf,
    /// `None` for a single dropped archive.
    loose: Option<LooseFolder>,
    /// Lowest priority first.
    archives: Vec<Arc<MpqArchive>>,
    locale: Option<String>,
    /// Archives that would not open, with why; the rest of the data is still served.
    warnings: Vec<String>,
}

/// One file of [`GameData::entries`]: the archive it comes from (an index into [`GameData::archives`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataEntry {
    pub archive: usize,
    pub entry: ArchiveEntry,
}

/// The locale folder's four-letter name, e.g. `enUS`.
fn is_locale_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.len() == 4 && bytes[..2].iter().all(u8::is_ascii_lowercase) && bytes[2..].iter().all(u8::is_ascii_uppercase)
}

fn is_archive(path: &Path) -> bool {
    path.is_file() && path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("mpq"))
}

/// Where an archive of the Data folder (`locale` is `None`) or of the locale folder sits in the load
/// order: a group, a rank inside it, then the name.
fn load_rank(file_name: &str, locale: Option<&str>) -> (u8, u8, String) {
    let name = file_name.to_ascii_lowercase();
    let stem = name.strip_suffix(".mpq").unwrap_or(&name).to_owned();
    match locale {
        None => {
            let base = ["common", "common-2", "expansion", "lichking"];
            let patches = ["patch", "patch-2", "patch-3"];
            if let Some(rank) = base.iter().position(|b| *b == stem) {
                (0, rank as u8, name)
            } else if let Some(rank) = patches.iter().position(|p| *p == stem) {
                (3, rank as u8, name)
            } else if stem.starts_with("patch") {
                (3, patches.len() as u8, name)
            } else {
                (1, 0, name)
            }
        }
        Some(locale) => {
            let locale = locale.to_ascii_lowercase();
            let base = [
                format!("locale-{locale}"),
                format!("speech-{locale}"),
                format!("expansion-locale-{locale}"),
                format!("expansion-speech-{locale}"),
                format!("lichking-locale-{locale}"),
                format!("lichking-speech-{locale}"),
            ];
            let patches = [format!("patch-{locale}"), format!("patch-{locale}-2"), format!("patch-{locale}-3")];
            if let Some(rank) = base.iter().position(|b| *b == stem) {
                (2, rank as u8, name)
            } else if let Some(rank) = patches.iter().position(|p| *p == stem) {
                (4, rank as u8, name)
            } else if stem.starts_with("patch") {
                (4, patches.len() as u8, name)
            } else {
                (2, base.len() as u8, name)
            }
        }
    }
}

fn archives_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    read.flatten().map(|e| e.path()).filter(|p| is_archive(p)).collect()
}

impl GameData {
    /// A client's `Data/` folder, or any folder: one without archives serves its loose files only, as
    /// [`LooseFolder`] does. A path to an `.MPQ` file opens that archive alone.
    pub fn open(dir: &Path) -> Result<Self, SourceError> {
        if is_archive(dir) {
            return Self::single_archive(dir)
                .map_err(|error| SourceError::Damaged { file: dir.display().to_string(), error });
        }
        if !dir.is_dir() {
            return Err(SourceError::NotFound { file: dir.display().to_string() });
        }
        let mut locales: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|error| SourceError::Io { file: dir.display().to_string(), error })?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && p.file_name().and_then(|n| n.to_str()).is_some_and(is_locale_name)
                    && !archives_in(p).is_empty()
            })
            .collect();
        // A client has one locale; of several, English is the likelier to be complete.
        locales.sort_by_key(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            (name != "enUS", name != "enGB", name)
        });
        let locale_dir = locales.into_iter().next();
        let locale = locale_dir.as_ref().and_then(|p| p.file_name()).and_then(|n| n.to_str()).map(str::to_owned);
        let mut ranked: Vec<((u8, u8, String), PathBuf)> = archives_in(dir)
            .into_iter()
            .map(|p| (load_rank(p.file_name().and_then(|n| n.to_str()).unwrap_or_default(), None), p))
            .collect();
        if let Some(locale_dir) = &locale_dir {
            ranked.extend(archives_in(locale_dir).into_iter().map(|p| {
                (load_rank(p.file_name().and_then(|n| n.to_str()).unwrap_or_default(), locale.as_deref()), p)
            }));
        }
        ranked.sort();
        let mut archives = Vec::new();
        let mut warnings = Vec::new();
        for (_, path) in ranked {
            match MpqArchive::open(&path) {
                Ok(archive) => archives.push(Arc::new(archive)),
                Err(error) => warnings.push(error.to_string()),
            }
        }
        Ok(Self { root: dir.to_owned(), loose: Some(LooseFolder::new(dir)), archives, locale, warnings })
    }

    /// One archive on its own (a dropped `.MPQ`), without loose files.
    pub fn single_archive(path: &Path) -> Result<Self, MpqError> {
        let archive = MpqArchive::open(path)?;
        Ok(Self {
            root: path.to_owned(),
            loose: None,
            archives: vec![Arc::new(archive)],
            locale: None,
            warnings: Vec::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Lowest priority first.
    pub fn archives(&self) -> &[Arc<MpqArchive>] {
        &self.archives
    }

    pub fn locale(&self) -> Option<&str> {
        self.locale.as_deref()
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The archive that serves `path`, highest priority first; `None` when it is absent or a later
    /// archive's deletion marker hides it.
    fn archive_for(&self, path: &str) -> Option<&MpqArchive> {
        for archive in self.archives.iter().rev() {
            match archive.status(path) {
                FileStatus::Present(_) => return Some(archive),
                FileStatus::Deleted => return None,
                FileStatus::Absent => {}
            }
        }
        None
    }

    fn loose_file(&self, path: &str) -> Option<(&LooseFolder, String)> {
        let loose = self.loose.as_ref()?;
        loose.find(path).map(|found| (loose, found))
    }

    /// Every file for a browser: each named file once, from the archive that serves it (loose files are
    /// not archive entries and are listed through [`FileSource::list`]), and every unnamed block of every
    /// archive by its hash pair.
    pub fn entries(&self) -> Vec<DataEntry> {
        let mut named: HashMap<String, DataEntry> = HashMap::new();
        let mut unnamed = Vec::new();
        for (index, archive) in self.archives.iter().enumerate() {
            for entry in archive.entries() {
                match &entry.name {
                    Some(name) => {
                        named.insert(normalise(name).to_ascii_lowercase(), DataEntry { archive: index, entry });
                    }
                    None => unnamed.push(DataEntry { archive: index, entry }),
                }
            }
        }
        let mut entries: Vec<DataEntry> = named.into_values().filter(|e| !e.entry.is_deletion_marker()).collect();
        entries.sort_by_key(|e| e.entry.name.as_deref().map(str::to_ascii_lowercase));
        entries.extend(unnamed.into_iter().filter(|e| !e.entry.is_deletion_marker()));
        entries
    }

    pub fn read_entry(&self, entry: &DataEntry) -> Result<Arc<[u8]>, SourceError> {
        let archive = self
            .archives
            .get(entry.archive)
            .ok_or_else(|| SourceError::NotFound { file: format!("{}: {}", self.describe(), entry.entry.label()) })?;
        archive.read_entry(&entry.entry)
    }
}

impl FileSource for GameData {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn find(&self, path: &str) -> Option<String> {
        if let Some((_, found)) = self.loose_file(path) {
            return Some(found);
        }
        self.archive_for(path)?.find(path)
    }

    fn read(&self, path: &str) -> Result<Arc<[u8]>, SourceError> {
        if let Some((loose, _)) = self.loose_file(path) {
            return loose.read(path);
        }
        match self.archive_for(path) {
            Some(archive) => archive.read(path),
            None => Err(SourceError::NotFound { file: format!("{}: {path}", self.describe()) }),
        }
    }

    /// The archives' entries (each named file once, from the archive that serves it, and the unnamed
    /// blocks by their hash pair) and the loose files beside them.
    fn browse(&self) -> Vec<BrowseEntry> {
        let mut found: Vec<BrowseEntry> = Vec::new();
        let mut named = std::collections::HashSet::new();
        if let Some(loose) = &self.loose {
            for entry in loose.browse() {
                // The Data folder's own archives are what is browsed, not files.
                if entry.path.as_deref().is_some_and(|p| is_archive(&self.root.join(p))) {
                    continue;
                }
                named.insert(entry.label.to_ascii_lowercase());
                found.push(entry);
            }
        }
        for entry in self.entries() {
            let label = entry.entry.label().replace('\\', "/");
            if entry.entry.name.is_some() && !named.insert(label.to_ascii_lowercase()) {
                continue;
            }
            found.push(BrowseEntry {
                path: entry.entry.name.as_ref().map(|n| normalise(n)),
                label,
                size: u64::from(entry.entry.file_size),
                name_hashes: Some(entry.entry.name_hashes),
            });
        }
        super::sort_for_browsing(&mut found);
        found
    }

    /// The file where it is served from: the loose file, or the archive and the path inside it, so
    /// that messages name the archive and a watch follows it.
    fn display_path(&self, path: &str) -> String {
        if let Some((loose, _)) = self.loose_file(path) {
            return loose.display_path(path);
        }
        match self.archive_for(path) {
            Some(archive) => archive.display_path(path),
            None => format!("{}/{}", self.describe().trim_end_matches(['/', '\\']), normalise(path)),
        }
    }

    fn list(&self, folder: &str) -> Vec<Entry> {
        let mut by_name: HashMap<String, Entry> = HashMap::new();
        for archive in &self.archives {
            for (entry, is_deletion_marker) in archive.list_with_markers(folder) {
                let key = entry.name.to_ascii_lowercase();
                if is_deletion_marker {
                    by_name.remove(&key);
                } else if !(entry.is_folder && by_name.contains_key(&key)) {
                    by_name.insert(key, entry);
                }
            }
        }
        if let Some(loose) = &self.loose {
            for entry in loose.list(folder) {
                by_name.insert(entry.name.to_ascii_lowercase(), entry);
            }
        }
        by_name.into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::load_rank;

    #[test]
    fn wotlk_load_order() {
        let mut names: Vec<(&str, Option<&str>)> = vec![
            ("patch-enUS-3.MPQ", Some("enUS")),
            ("Patch-3.MPQ", None),
            ("lichking-locale-enUS.MPQ", Some("enUS")),
            ("patch.MPQ", None),
            ("common.MPQ", None),
            ("patch-Z.MPQ", None),
            ("patch-enUS.MPQ", Some("enUS")),
            ("expansion.MPQ", None),
            ("locale-enUS.MPQ", Some("enUS")),
            ("common-2.MPQ", None),
            ("lichking.MPQ", None),
            ("patch-2.MPQ", None),
            ("expansion-locale-enUS.MPQ", Some("enUS")),
            ("patch-enUS-2.MPQ", Some("enUS")),
        ];
        names.sort_by_key(|(name, locale)| load_rank(name, *locale));
        let order: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            order,
            [
                "common.MPQ",
                "common-2.MPQ",
                "expansion.MPQ",
                "lichking.MPQ",
                "locale-enUS.MPQ",
                "expansion-locale-enUS.MPQ",
                "lichking-locale-enUS.MPQ",
                "patch.MPQ",
                "patch-2.MPQ",
                "Patch-3.MPQ",
                "patch-Z.MPQ",
                "patch-enUS.MPQ",
                "patch-enUS-2.MPQ",
                "patch-enUS-3.MPQ",
            ]
        );
    }
}
