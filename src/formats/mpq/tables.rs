//! The hash table (name hashes → block index) and the block table (where each file's data is, its sizes
//! and flags), both encrypted with fixed keys, and the hi-block table's upper position bits.

use super::crypto::{HashKind, decrypt, hash_name};
use super::error::{MpqError, Result, Table, TableProblem};
use super::header::Header;
use super::storage::Storage;

pub const FLAG_IMPLODE: u32 = 0x0000_0100;
pub const FLAG_COMPRESS: u32 = 0x0000_0200;
pub const FLAG_ENCRYPTED: u32 = 0x0001_0000;
pub const FLAG_FIX_KEY: u32 = 0x0002_0000;
pub const FLAG_PATCH_FILE: u32 = 0x0010_0000;
pub const FLAG_SINGLE_UNIT: u32 = 0x0100_0000;
pub const FLAG_DELETE_MARKER: u32 = 0x0200_0000;
pub const FLAG_SECTOR_CRC: u32 = 0x0400_0000;
pub const FLAG_EXISTS: u32 = 0x8000_0000;

/// The hash table's block index for a slot never used: a search stops there.
const SLOT_EMPTY: u32 = 0xFFFF_FFFF;
/// For a slot whose file was removed: a search goes on past it.
const SLOT_REMOVED: u32 = 0xFFFF_FFFE;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashEntry {
    pub name_a: u32,
    pub name_b: u32,
    pub locale: u16,
    pub platform: u16,
    pub block_index: u32,
}

impl HashEntry {
    pub fn is_used(&self) -> bool {
        self.block_index != SLOT_EMPTY && self.block_index != SLOT_REMOVED
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    /// Absolute position of the file's data in the archive's file.
    pub position: u64,
    /// Position relative to the archive start: the fix-key adjustment uses its low 32 bits.
    pub archive_relative_position: u64,
    pub compressed_size: u32,
    pub file_size: u32,
    pub flags: u32,
}

impl BlockEntry {
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }
}

/// Reads `entries` 16-byte entries at `position` and decrypts them with the table's key; the byte count
/// is checked against the file before anything is allocated.
fn read_encrypted_table(
    storage: &dyn Storage,
    archive: &str,
    table: Table,
    position: u64,
    entries: u32,
    key_name: &str,
) -> Result<Vec<u8>> {
    let length = u64::from(entries) * 16;
    check_extent(storage, archive, table, entries, length, position)?;
    let mut bytes = vec![0u8; length as usize];
    storage.read_at(position, &mut bytes).map_err(|error| MpqError::Io { archive: archive.to_owned(), error })?;
    decrypt(&mut bytes, hash_name(key_name, HashKind::FileKey));
    Ok(bytes)
}

/// A table's `length` bytes at `position` must lie inside the archive before they are allocated.
fn check_extent(
    storage: &dyn Storage,
    archive: &str,
    table: Table,
    entries: u32,
    length: u64,
    position: u64,
) -> Result<()> {
    if position.checked_add(length).is_none_or(|end| end > storage.size()) {
        let problem = TableProblem::EntriesPastEnd { entries, length, position, archive_size: storage.size() };
        return Err(MpqError::Table { archive: archive.to_owned(), table, problem });
    }
    Ok(())
}

fn word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

pub fn read_hash_table(storage: &dyn Storage, archive: &str, header: &Header) -> Result<Vec<HashEntry>> {
    let bytes = read_encrypted_table(
        storage,
        archive,
        Table::HashTable,
        header.hash_table_position,
        header.hash_table_entries,
        "(hash table)",
    )?;
    Ok(bytes
        .chunks_exact(16)
        .map(|e| HashEntry {
            name_a: word(e, 0),
            name_b: word(e, 4),
            locale: u16::from_le_bytes([e[8], e[9]]),
            platform: u16::from_le_bytes([e[10], e[11]]),
            block_index: word(e, 12),
        })
        .collect())
}

pub fn read_block_table(storage: &dyn Storage, archive: &str, header: &Header) -> Result<Vec<BlockEntry>> {
    let bytes = read_encrypted_table(
        storage,
        archive,
        Table::BlockTable,
        header.block_table_position,
        header.block_table_entries,
        "(block table)",
    )?;
    let hi_words = match header.hi_block_table_position {
        Some(position) => {
            let length = u64::from(header.block_table_entries) * 2;
            check_extent(storage, archive, Table::HiBlockTable, header.block_table_entries, length, position)?;
            let mut hi = vec![0u8; length as usize];
            storage.read_at(position, &mut hi).map_err(|error| MpqError::Io { archive: archive.to_owned(), error })?;
            Some(hi)
        }
        None => None,
    };
    Ok(bytes
        .chunks_exact(16)
        .enumerate()
        .map(|(index, e)| {
            let high =
                hi_words.as_ref().map_or(0, |hi| u64::from(u16::from_le_bytes([hi[index * 2], hi[index * 2 + 1]])));
            let relative = u64::from(word(e, 0)) | (high << 32);
            BlockEntry {
                position: header.archive_offset.saturating_add(relative),
                archive_relative_position: relative,
                compressed_size: word(e, 4),
                file_size: word(e, 8),
                flags: word(e, 12),
            }
        })
        .collect())
}

/// What the hash table says about a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The block index of the name's entry (the neutral locale preferred).
    Block(u32),
    Absent,
}

/// Finds `name`'s slot by linear probing from its table-offset hash, as the game does.
pub fn look_up(hash_table: &[HashEntry], name: &str) -> Lookup {
    if hash_table.is_empty() {
        return Lookup::Absent;
    }
    let size = hash_table.len();
    let start_hash = hash_name(name, HashKind::TableOffset) as usize;
    let start = if size.is_power_of_two() { start_hash & (size - 1) } else { start_hash % size };
    let (name_a, name_b) = (hash_name(name, HashKind::NameA), hash_name(name, HashKind::NameB));
    let mut first_match = None;
    for step in 0..size {
        let entry = &hash_table[(start + step) % size];
        if entry.block_index == SLOT_EMPTY {
            break;
        }
        if entry.is_used() && entry.name_a == name_a && entry.name_b == name_b {
            if entry.locale == 0 {
                return Lookup::Block(entry.block_index);
            }
            first_match.get_or_insert(entry.block_index);
        }
    }
    first_match.map_or(Lookup::Absent, Lookup::Block)
}
