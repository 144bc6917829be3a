//! One file's data: the stored extent read in one positioned read, then decrypted and decompressed
//! sector by sector (or as one unit). Every offset of the sector table is checked against the extent, and
//! nothing is allocated beyond the extent or the sector sizes it implies.

use super::compression::{decompress_imploded, decompress_masked};
use super::crypto::{decrypt, recover_sector_table_key};
use super::error::{FilePart, FileProblem, MpqError, Result};
use super::storage::Storage;
use super::tables::{
    BlockEntry, FLAG_COMPRESS, FLAG_ENCRYPTED, FLAG_IMPLODE, FLAG_PATCH_FILE, FLAG_SECTOR_CRC, FLAG_SINGLE_UNIT,
};

/// What a read needs to know besides the block: where messages point, and the key if the name is known.
pub struct FileContext<'a> {
    pub archive: &'a str,
    /// The name, or the hash pair standing for it.
    pub label: &'a str,
    pub sector_size: u32,
    /// `None` when the name is unknown: an encrypted file's key is then recovered from its sector table.
    pub key: Option<u32>,
}

impl FileContext<'_> {
    fn fail(&self, part: FilePart, problem: impl Into<FileProblem>) -> MpqError {
        MpqError::File { archive: self.archive.to_owned(), file: self.label.to_owned(), part, problem: problem.into() }
    }
}

fn word(bytes: &[u8], index: usize) -> u32 {
    let at = index * 4;
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

pub fn read_file_data(storage: &dyn Storage, block: &BlockEntry, context: &FileContext) -> Result<Vec<u8>> {
    if block.has(FLAG_PATCH_FILE) {
        return Err(context.fail(FilePart::Block, FileProblem::IncrementalPatch));
    }
    let stored_length = u64::from(block.compressed_size);
    if block.position.checked_add(stored_length).is_none_or(|end| end > storage.size()) {
        return Err(context.fail(
            FilePart::Block,
            FileProblem::ExtentPastEnd {
                length: stored_length,
                position: block.position,
                archive_size: storage.size(),
            },
        ));
    }
    if block.file_size == 0 {
        return Ok(Vec::new());
    }
    let read_error = |error| MpqError::Io { archive: context.archive.to_owned(), error };
    let compressed = block.flags & (FLAG_COMPRESS | FLAG_IMPLODE) != 0;
    let file_size = block.file_size as usize;
    let sector_size = context.sector_size as usize;
    let sector_count = file_size.div_ceil(sector_size);
    if !compressed && !block.has(FLAG_SINGLE_UNIT) {
        // Stored as is: the stored bytes are the file's.
        let mut stored = vec![0u8; stored_length as usize];
        storage.read_at(block.position, &mut stored).map_err(read_error)?;
        if stored.len() < file_size {
            return Err(context
                .fail(FilePart::Block, FileProblem::ShortUncompressed { stored: stored.len(), expected: file_size }));
        }
        stored.truncate(file_size);
        if block.has(FLAG_ENCRYPTED) {
            let key = context.key.ok_or_else(|| context.fail(FilePart::Block, FileProblem::KeyUnknown))?;
            for (index, sector) in stored.chunks_mut(sector_size).enumerate() {
                decrypt(sector, key.wrapping_add(index as u32));
            }
        }
        return Ok(stored);
    }
    // Otherwise the stored bytes are only decoded from.
    let mut stored = vec![0u8; stored_length as usize];
    storage.read_at(block.position, &mut stored).map_err(read_error)?;
    if block.has(FLAG_SINGLE_UNIT) {
        if block.has(FLAG_ENCRYPTED) {
            let key = context.key.ok_or_else(|| context.fail(FilePart::SingleUnit, FileProblem::KeyUnknown))?;
            decrypt(&mut stored, key);
        }
        let mut out = Vec::new();
        decode_unit(&stored, file_size, block.flags, &mut out)
            .map_err(|problem| context.fail(FilePart::SingleUnit, problem))?;
        return Ok(out);
    }
    read_sectors(&mut stored, block, sector_count, context)
}

fn read_sectors(stored: &mut [u8], block: &BlockEntry, sector_count: usize, context: &FileContext) -> Result<Vec<u8>> {
    let file_size = block.file_size as usize;
    let sector_size = context.sector_size as usize;
    let mut entries = sector_count + 1 + usize::from(block.has(FLAG_SECTOR_CRC));
    let table_bytes = |entries: usize| entries.checked_mul(4).filter(|&length| length <= stored.len());
    if table_bytes(entries).is_none() {
        return Err(context.fail(
            FilePart::SectorOffsetTable,
            FileProblem::OffsetTableTooLong { entries, sectors: sector_count, stored: stored.len() },
        ));
    }
    let mut key = context.key;
    if block.has(FLAG_ENCRYPTED) && key.is_none() {
        let first_words = [word(stored, 0), word(stored, 1)];
        let recovered = recover_sector_table_key(first_words, (entries * 4) as u32, block.compressed_size)
            .or_else(|| recover_sector_table_key(first_words, ((sector_count + 1) * 4) as u32, block.compressed_size));
        key = Some(
            recovered
                .ok_or_else(|| context.fail(FilePart::SectorOffsetTable, FileProblem::KeyNotRecovered))?
                .wrapping_add(1),
        );
    }
    let mut table = stored[..entries * 4].to_vec();
    if let (true, Some(key)) = (block.has(FLAG_ENCRYPTED), key) {
        decrypt(&mut table, key.wrapping_sub(1));
    }
    // A checksum flag whose table has no checksum slot (the first offset says where data starts) is read
    // as no checksums, as StormLib does.
    if block.has(FLAG_SECTOR_CRC) && word(&table, 0) as usize == (sector_count + 1) * 4 {
        entries -= 1;
    }
    let offsets: Vec<usize> = (0..entries).map(|index| word(&table, index) as usize).collect();
    for (index, pair) in offsets.windows(2).enumerate() {
        if pair[0] > pair[1] || pair[1] > stored.len() {
            return Err(context.fail(
                FilePart::SectorOffsetTable,
                FileProblem::SectorOutOfExtent { index, start: pair[0], end: pair[1], stored: stored.len() },
            ));
        }
    }
    let checksums =
        if entries > sector_count + 1 { read_checksums(stored, &offsets, sector_count) } else { Vec::new() };
    let mut out = Vec::with_capacity(file_size.min(stored.len().saturating_mul(8)));
    for sector in 0..sector_count {
        let expected = sector_size.min(file_size - sector * sector_size);
        let raw = &mut stored[offsets[sector]..offsets[sector + 1]];
        if let (true, Some(key)) = (block.has(FLAG_ENCRYPTED), key) {
            decrypt(raw, key.wrapping_add(sector as u32));
        }
        if let Some(&checksum) = checksums.get(sector) {
            // 0 marks a sector written without a checksum.
            let computed = sector_checksum(raw);
            if checksum != 0 && checksum != computed {
                return Err(context.fail(
                    FilePart::Sector(sector as u32),
                    FileProblem::ChecksumMismatch { computed, stored: checksum },
                ));
            }
        }
        decode_unit(raw, expected, block.flags, &mut out)
            .map_err(|problem| context.fail(FilePart::Sector(sector as u32), problem))?;
    }
    Ok(out)
}

/// The sector checksums sit after the last sector, as words or (when shorter) zlib-compressed words.
fn read_checksums(stored: &[u8], offsets: &[usize], sector_count: usize) -> Vec<u32> {
    let raw = &stored[offsets[sector_count]..offsets[sector_count + 1]];
    let expected = sector_count * 4;
    let words = if raw.len() >= expected {
        raw[..expected].to_vec()
    } else {
        let mut words = Vec::with_capacity(expected);
        match super::compression::inflate(raw, expected, &mut words) {
            Ok(()) if words.len() == expected => words,
            // Damaged checksums do not make the data unreadable: the sectors are read unchecked.
            _ => return Vec::new(),
        }
    };
    (0..sector_count).map(|index| word(&words, index)).collect()
}

/// StormLib seeds the sector ADLER32 with 0 rather than the standard 1.
fn sector_checksum(raw: &[u8]) -> u32 {
    let mut adler = adler2::Adler32::from_checksum(0);
    adler.write_slice(raw);
    adler.checksum()
}

/// One sector or single unit: stored as is when its raw length is the full length, else compressed.
fn decode_unit(raw: &[u8], expected: usize, flags: u32, out: &mut Vec<u8>) -> Result<(), FileProblem> {
    if raw.len() >= expected {
        out.extend_from_slice(&raw[..expected]);
        Ok(())
    } else if flags & FLAG_COMPRESS != 0 {
        Ok(decompress_masked(raw, expected, out)?)
    } else if flags & FLAG_IMPLODE != 0 {
        Ok(decompress_imploded(raw, expected, out)?)
    } else {
        Err(FileProblem::ShortUncompressed { stored: raw.len(), expected })
    }
}
