//! MPQ archives (versions 1 and 2, as World of Warcraft up to Wrath of the Lich King ships them): the
//! header, the encrypted hash and block tables with the hi-block table, sectors with their offset table
//! and checksums, single-unit files, zlib / bzip2 / PKWARE DCL compression alone or combined, deletion
//! markers, `(listfile)` and `(attributes)`. Nothing here knows of Bevy or of file sources; an archive
//! reads through positioned reads, so one open archive serves many threads.

mod compression;
mod crypto;
mod error;
mod file;
mod header;
mod storage;
mod tables;

use std::collections::HashMap;
use std::io::{Read, Seek};
use std::path::Path;
use std::sync::Arc;

pub use compression::{DecompressError, Method};
pub use crypto::{HashKind, hash_name};
pub use error::{FilePart, FileProblem, MpqError, Result, Table, TableProblem};
pub use header::Header;
pub use storage::Storage;
pub use tables::{
    BlockEntry, FLAG_COMPRESS, FLAG_DELETE_MARKER, FLAG_ENCRYPTED, FLAG_EXISTS, FLAG_FIX_KEY, FLAG_IMPLODE,
    FLAG_SECTOR_CRC, FLAG_SINGLE_UNIT, HashEntry,
};

use file::{FileContext, read_file_data};
use storage::{BytesStorage, FileStorage, ReaderStorage};
use tables::{Lookup, look_up};

pub const LISTFILE: &str = "(listfile)";
pub const ATTRIBUTES: &str = "(attributes)";

/// What an archive holds under a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileStatus {
    /// A file, by its block index.
    Present(u32),
    /// A deletion marker: a patch archive saying that the file of an earlier archive is gone.
    Deleted,
    Absent,
}

/// One block the hash table points at, for a browser: its name when the listfile gives it, else the
/// hash pair that stands for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveEntry {
    pub name: Option<String>,
    pub name_hashes: (u32, u32),
    pub locale: u16,
    pub block_index: u32,
    pub file_size: u32,
    pub compressed_size: u32,
    pub flags: u32,
}

impl ArchiveEntry {
    pub fn is_deletion_marker(&self) -> bool {
        self.flags & FLAG_DELETE_MARKER != 0
    }

    /// The name, or `#AAAAAAAA-BBBBBBBB` from the hash pair, the label errors and browsers use.
    pub fn label(&self) -> String {
        self.name.clone().unwrap_or_else(|| hash_label(self.name_hashes))
    }
}

fn hash_label((name_a, name_b): (u32, u32)) -> String {
    format!("#{name_a:08X}-{name_b:08X}")
}

/// The per-file records of `(attributes)`, each indexed by block; an array the archive did not store is empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    pub crc32: Vec<u32>,
    /// Windows FILETIME (100 ns since 1601).
    pub file_times: Vec<u64>,
    pub md5: Vec<[u8; 16]>,
}

pub struct Archive {
    name: String,
    storage: Box<dyn Storage>,
    header: Header,
    hash_table: Vec<HashEntry>,
    blocks: Vec<BlockEntry>,
    /// Listfile names that the hash table holds, each with its block, in the listfile's order.
    names: Vec<(String, u32)>,
    name_of_block: HashMap<u32, usize>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("name", &self.name)
            .field("header", &self.header)
            .field("blocks", &self.blocks.len())
            .field("names", &self.names.len())
            .finish()
    }
}

impl Archive {
    pub fn open(path: &Path) -> Result<Self> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|error| MpqError::Io { archive: name.clone(), error })?;
        let storage = FileStorage::new(file).map_err(|error| MpqError::Io { archive: name.clone(), error })?;
        Self::from_storage(name, Box::new(storage))
    }

    /// An archive held in memory; `name` is what messages call it.
    pub fn from_bytes(name: impl Into<String>, bytes: impl Into<Arc<[u8]>>) -> Result<Self> {
        Self::from_storage(name.into(), Box::new(BytesStorage(bytes.into())))
    }

    /// An archive read through any seekable reader (reads are serialised on a lock).
    pub fn from_reader<R: Read + Seek + Send + 'static>(name: impl Into<String>, reader: R) -> Result<Self> {
        let name = name.into();
        let storage = ReaderStorage::new(reader).map_err(|error| MpqError::Io { archive: name.clone(), error })?;
        Self::from_storage(name, Box::new(storage))
    }

    pub fn from_storage(name: String, storage: Box<dyn Storage>) -> Result<Self> {
        let header = header::read_header(storage.as_ref(), &name)?;
        let hash_table = tables::read_hash_table(storage.as_ref(), &name, &header)?;
        let blocks = tables::read_block_table(storage.as_ref(), &name, &header)?;
        let mut archive =
            Self { name, storage, header, hash_table, blocks, names: Vec::new(), name_of_block: HashMap::new() };
        archive.load_listfile();
        Ok(archive)
    }

    /// A listfile that cannot be read leaves the files reachable by name and by hash; it is no reason to
    /// refuse the archive.
    fn load_listfile(&mut self) {
        if let Ok(bytes) = self.read(LISTFILE) {
            let text = String::from_utf8_lossy(&bytes);
            for name in text.split([';', '\r', '\n']).map(str::trim).filter(|n| !n.is_empty()) {
                self.remember_name(name);
            }
        }
        for special in [LISTFILE, ATTRIBUTES] {
            self.remember_name(special);
        }
    }

    /// The first spelling that reaches a block names it.
    fn remember_name(&mut self, name: &str) {
        if let FileStatus::Present(block) = self.status_with_markers(name)
            && !self.name_of_block.contains_key(&block)
        {
            self.name_of_block.insert(block, self.names.len());
            self.names.push((name.to_owned(), block));
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn blocks(&self) -> &[BlockEntry] {
        &self.blocks
    }

    /// Whether `name` (any case, `/` or `\`) is a file, a deletion marker or not there.
    pub fn status(&self, name: &str) -> FileStatus {
        match self.status_with_markers(name) {
            FileStatus::Present(block) if self.blocks[block as usize].has(FLAG_DELETE_MARKER) => FileStatus::Deleted,
            other => other,
        }
    }

    /// Like [`Archive::status`], but a deletion marker's block counts as present.
    fn status_with_markers(&self, name: &str) -> FileStatus {
        match look_up(&self.hash_table, name) {
            Lookup::Block(index) => match self.blocks.get(index as usize) {
                Some(block) if block.has(FLAG_DELETE_MARKER) => FileStatus::Present(index),
                Some(block) if block.has(FLAG_EXISTS) => FileStatus::Present(index),
                _ => FileStatus::Absent,
            },
            Lookup::Absent => FileStatus::Absent,
        }
    }

    /// The whole file, decompressed.
    pub fn read(&self, name: &str) -> Result<Vec<u8>> {
        let FileStatus::Present(block_index) = self.status(name) else {
            return Err(MpqError::NotFound { archive: self.name.clone(), file: name.to_owned() });
        };
        let block = &self.blocks[block_index as usize];
        let key = crypto::file_key(name, block.archive_relative_position, block.file_size, block.has(FLAG_FIX_KEY));
        read_file_data(
            self.storage.as_ref(),
            block,
            &FileContext { archive: &self.name, label: name, sector_size: self.header.sector_size, key: Some(key) },
        )
    }

    /// A file by its block, for entries the listfile does not name (an encrypted one's key is recovered
    /// from its sector table where it has one).
    pub fn read_block(&self, block_index: u32) -> Result<Vec<u8>> {
        let label = match self.name_of_block.get(&block_index) {
            Some(&at) => return self.read(&self.names[at].0.clone()),
            None => format!("block {block_index}"),
        };
        let Some(block) =
            self.blocks.get(block_index as usize).filter(|b| b.has(FLAG_EXISTS) && !b.has(FLAG_DELETE_MARKER))
        else {
            return Err(MpqError::NotFound { archive: self.name.clone(), file: label });
        };
        read_file_data(
            self.storage.as_ref(),
            block,
            &FileContext { archive: &self.name, label: &label, sector_size: self.header.sector_size, key: None },
        )
    }

    /// The names the listfile gives that the archive holds (deletion markers included), in its order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|(name, _)| name.as_str())
    }

    /// The listfile's spelling of the name of a block, if it gives one.
    pub fn block_name(&self, block_index: u32) -> Option<&str> {
        self.name_of_block.get(&block_index).map(|&at| self.names[at].0.as_str())
    }

    /// Every block the hash table points at, named where the listfile names it.
    pub fn entries(&self) -> Vec<ArchiveEntry> {
        self.hash_table
            .iter()
            .filter(|slot| slot.is_used())
            .filter_map(|slot| {
                let block = self.blocks.get(slot.block_index as usize)?;
                if !block.has(FLAG_EXISTS) && !block.has(FLAG_DELETE_MARKER) {
                    return None;
                }
                Some(ArchiveEntry {
                    name: self.name_of_block.get(&slot.block_index).map(|&at| self.names[at].0.clone()),
                    name_hashes: (slot.name_a, slot.name_b),
                    locale: slot.locale,
                    block_index: slot.block_index,
                    file_size: block.file_size,
                    compressed_size: block.compressed_size,
                    flags: block.flags,
                })
            })
            .collect()
    }

    /// `(attributes)`, if the archive has one that can be read.
    pub fn attributes(&self) -> Option<Attributes> {
        let bytes = self.read(ATTRIBUTES).ok()?;
        Some(parse_attributes(&bytes, self.blocks.len()))
    }
}

const ATTRIBUTE_CRC32: u32 = 1;
const ATTRIBUTE_FILE_TIME: u32 = 2;
const ATTRIBUTE_MD5: u32 = 4;

/// Each array holds one record per block; one cut short keeps the records it has.
fn parse_attributes(bytes: &[u8], block_count: usize) -> Attributes {
    let mut attributes = Attributes::default();
    let Some(flags) = bytes.get(4..8).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])) else { return attributes };
    let mut rest = &bytes[8..];
    let mut take = |record: usize| {
        let count = block_count.min(rest.len() / record);
        let (array, tail) = rest.split_at(count * record);
        rest = tail;
        array
    };
    if flags & ATTRIBUTE_CRC32 != 0 {
        attributes.crc32 = take(4).chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    }
    if flags & ATTRIBUTE_FILE_TIME != 0 {
        attributes.file_times = take(8)
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .collect();
    }
    if flags & ATTRIBUTE_MD5 != 0 {
        attributes.md5 = take(16).chunks_exact(16).map(|b| b.try_into().unwrap_or([0; 16])).collect();
    }
    attributes
}
