//! The archive header: where the archive starts inside its file (after an optional user-data block),
//! its sector size and where its tables are.

use super::error::{MpqError, Result, Table, TableProblem};
use super::storage::Storage;

const HEADER_MAGIC: &[u8; 4] = b"MPQ\x1A";
const USER_DATA_MAGIC: &[u8; 4] = b"MPQ\x1B";
/// Headers sit on 512-byte boundaries; the search stops here so that a large non-archive file is not
/// read from end to end.
const SEARCH_LIMIT: u64 = 256 << 20;
const BASE_HEADER_SIZE: usize = 32;
const EXTENDED_HEADER_SIZE: usize = 44;
/// 512 << 20 is a 512 MB sector; every real archive uses 4 KB (shift 3).
const MAX_SECTOR_SHIFT: u16 = 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Where the archive starts in its file: every table and file position counts from here.
    pub archive_offset: u64,
    /// 0 for the original format, 1 for The Burning Crusade's (hi-block table, 64-bit table positions).
    pub format_version: u16,
    pub sector_size: u32,
    /// Absolute positions in the file.
    pub hash_table_position: u64,
    pub block_table_position: u64,
    pub hash_table_entries: u32,
    pub block_table_entries: u32,
    pub hi_block_table_position: Option<u64>,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from(u32_at(bytes, at)) | (u64::from(u32_at(bytes, at + 4)) << 32)
}

pub fn read_header(storage: &dyn Storage, archive: &str) -> Result<Header> {
    let io = |error| MpqError::Io { archive: archive.to_owned(), error };
    let len = storage.size();
    let mut offset = 0u64;
    while offset < len.min(SEARCH_LIMIT) {
        let mut head = [0u8; EXTENDED_HEADER_SIZE];
        let available = (len - offset).min(EXTENDED_HEADER_SIZE as u64) as usize;
        storage.read_at(offset, &mut head[..available]).map_err(io)?;
        if available >= 16 && &head[..4] == USER_DATA_MAGIC {
            // The user-data block says where its archive header is; follow it if it points forward.
            let header_offset = u64::from(u32_at(&head, 8));
            let target = offset.saturating_add(header_offset);
            if header_offset > 0 && target < len {
                let mut target_head = [0u8; EXTENDED_HEADER_SIZE];
                let target_available = (len - target).min(EXTENDED_HEADER_SIZE as u64) as usize;
                storage.read_at(target, &mut target_head[..target_available]).map_err(io)?;
                if &target_head[..4] == HEADER_MAGIC {
                    return parse_header(&target_head[..target_available], target, len, archive);
                }
            }
        } else if available >= 4 && &head[..4] == HEADER_MAGIC {
            return parse_header(&head[..available], offset, len, archive);
        }
        offset += 512;
    }
    Err(MpqError::NoHeader { archive: archive.to_owned() })
}

fn parse_header(head: &[u8], archive_offset: u64, file_len: u64, archive: &str) -> Result<Header> {
    let fail = |problem: TableProblem| MpqError::Table { archive: archive.to_owned(), table: Table::Header, problem };
    if head.len() < BASE_HEADER_SIZE {
        return Err(fail(TableProblem::HeaderCut { at: archive_offset, available: head.len() }));
    }
    let header_size = u32_at(head, 4);
    let format_version = u16_at(head, 12);
    let sector_shift = u16_at(head, 14);
    if sector_shift > MAX_SECTOR_SHIFT {
        return Err(fail(TableProblem::SectorShiftTooLarge { shift: sector_shift, max: MAX_SECTOR_SHIFT }));
    }
    let mut hash_table_position = u64::from(u32_at(head, 16));
    let mut block_table_position = u64::from(u32_at(head, 20));
    let mut hi_block_table_position = None;
    // The original format ignores whatever follows 32 bytes (some archives lie about the header size to
    // stop tools); later versions extend the positions to 48 bits.
    if format_version >= 1 && header_size as usize >= EXTENDED_HEADER_SIZE {
        if head.len() < EXTENDED_HEADER_SIZE {
            return Err(fail(TableProblem::ExtendedHeaderCut { version: format_version, available: head.len() }));
        }
        let hi_block = u64_at(head, 32);
        if hi_block != 0 {
            hi_block_table_position = Some(hi_block);
        }
        hash_table_position |= u64::from(u16_at(head, 40)) << 32;
        block_table_position |= u64::from(u16_at(head, 42)) << 32;
    }
    let absolute = |relative: u64| archive_offset.checked_add(relative).filter(|&p| p <= file_len);
    let place = |table: Table, relative: u64| {
        absolute(relative).ok_or_else(|| MpqError::Table {
            archive: archive.to_owned(),
            table,
            problem: TableProblem::PositionPastEnd { position: relative, archive_size: file_len },
        })
    };
    let hash_table_position = place(Table::HashTable, hash_table_position)?;
    let block_table_position = place(Table::BlockTable, block_table_position)?;
    let hi_block_table_position =
        hi_block_table_position.map(|relative| place(Table::HiBlockTable, relative)).transpose()?;
    Ok(Header {
        archive_offset,
        format_version,
        sector_size: 512u32 << sector_shift,
        hash_table_position,
        block_table_position,
        hash_table_entries: u32_at(head, 24),
        block_table_entries: u32_at(head, 28),
        hi_block_table_position,
    })
}
