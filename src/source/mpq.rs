//! One MPQ archive as a file source: paths in any case with `/` or `\`, folders from the listfile's names,
//! and every block — named or known only by its hash pair — for a browser.

use std::collections::HashMap;
use std::io::{Read, Seek};
use std::path::Path;
use std::sync::Arc;

use super::{Entry, FileSource, SourceError, normalise, path_components};
use crate::formats::mpq::{Archive, ArchiveEntry, FileStatus, MpqError};

/// An archive with its listfile's names indexed by folder.
pub struct MpqArchive {
    archive: Archive,
    /// Every named file (deletion markers included, flagged), with `/` separators.
    files: Vec<NamedFile>,
}

struct NamedFile {
    path: String,
    size: u64,
    is_deletion_marker: bool,
}

impl std::fmt::Debug for MpqArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpqArchive")
            .field("archive", &self.archive.name())
            .field("named_files", &self.files.len())
            .finish()
    }
}

impl MpqArchive {
    pub fn open(path: &Path) -> Result<Self, MpqError> {
        Ok(Self::new(Archive::open(path)?))
    }

    pub fn from_bytes(name: impl Into<String>, bytes: impl Into<Arc<[u8]>>) -> Result<Self, MpqError> {
        Ok(Self::new(Archive::from_bytes(name, bytes)?))
    }

    pub fn from_reader<R: Read + Seek + Send + 'static>(name: impl Into<String>, reader: R) -> Result<Self, MpqError> {
        Ok(Self::new(Archive::from_reader(name, reader)?))
    }

    pub fn new(archive: Archive) -> Self {
        let files = archive
            .entries()
            .into_iter()
            .filter_map(|entry| {
                let name = entry.name.as_deref()?;
                Some(NamedFile {
                    path: normalise(name),
                    size: u64::from(entry.file_size),
                    is_deletion_marker: entry.is_deletion_marker(),
                })
            })
            .collect();
        Self { archive, files }
    }

    pub fn archive(&self) -> &Archive {
        &self.archive
    }

    pub fn status(&self, path: &str) -> FileStatus {
        self.archive.status(path)
    }

    /// Every block the hash table points at: its name if the listfile gives it, else its hash pair, and
    /// its sizes and flags.
    pub fn entries(&self) -> Vec<ArchiveEntry> {
        self.archive.entries()
    }

    /// One entry of [`MpqArchive::entries`], by name where it has one, else by its block.
    pub fn read_entry(&self, entry: &ArchiveEntry) -> Result<Arc<[u8]>, SourceError> {
        let bytes = match &entry.name {
            Some(name) => self.archive.read(name),
            None => self.archive.read_block(entry.block_index),
        };
        bytes.map(Arc::from).map_err(|e| self.source_error(&entry.label(), e))
    }

    fn source_error(&self, path: &str, error: MpqError) -> SourceError {
        match error {
            MpqError::NotFound { archive, .. } => SourceError::NotFound { file: format!("{archive}: {path}") },
            MpqError::Io { archive, error } => SourceError::Io { file: format!("{archive}: {path}"), error },
            error => SourceError::Damaged { file: format!("{}: {path}", self.archive.name()), error },
        }
    }

    /// The names directly inside `folder`, each with whether it is a deletion marker; folders once each.
    pub(crate) fn list_with_markers(&self, folder: &str) -> Vec<(Entry, bool)> {
        let wanted: Vec<&str> = path_components(folder).collect();
        let mut folders: HashMap<String, ()> = HashMap::new();
        let mut listed = Vec::new();
        for file in &self.files {
            let parts: Vec<&str> = file.path.split('/').collect();
            if parts.len() <= wanted.len() || !parts.iter().zip(&wanted).all(|(a, b)| a.eq_ignore_ascii_case(b)) {
                continue;
            }
            let name = parts[wanted.len()];
            if parts.len() == wanted.len() + 1 {
                listed.push((
                    Entry { name: name.to_owned(), is_folder: false, size: file.size },
                    file.is_deletion_marker,
                ));
            } else if folders.insert(name.to_ascii_lowercase(), ()).is_none() {
                listed.push((Entry { name: name.to_owned(), is_folder: true, size: 0 }, false));
            }
        }
        listed
    }
}

impl FileSource for MpqArchive {
    fn browse(&self) -> Vec<super::BrowseEntry> {
        let mut found: Vec<super::BrowseEntry> = self
            .entries()
            .into_iter()
            .filter(|e| !e.is_deletion_marker())
            .map(|e| super::BrowseEntry {
                path: e.name.as_ref().map(|n| super::normalise(n)),
                label: e.label().replace('\\', "/"),
                size: u64::from(e.file_size),
                name_hashes: Some(e.name_hashes),
            })
            .collect();
        super::sort_for_browsing(&mut found);
        found
    }

    fn describe(&self) -> String {
        self.archive.name().to_owned()
    }

    fn find(&self, path: &str) -> Option<String> {
        let FileStatus::Present(block) = self.archive.status(path) else { return None };
        let stored = self.archive.block_name(block);
        Some(stored.map_or_else(|| normalise(path), normalise))
    }

    fn read(&self, path: &str) -> Result<Arc<[u8]>, SourceError> {
        self.archive.read(path).map(Arc::from).map_err(|e| self.source_error(path, e))
    }

    fn list(&self, folder: &str) -> Vec<Entry> {
        self.list_with_markers(folder).into_iter().filter(|(_, deleted)| !deleted).map(|(entry, _)| entry).collect()
    }
}
