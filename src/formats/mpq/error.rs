//! What can go wrong reading an archive. Every error names the archive, and where it concerns one file,
//! the file (its name, or its hash pair when the listfile does not name it) and the table or sector.

use std::fmt;

/// The structure of the archive an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Header,
    HashTable,
    BlockTable,
    HiBlockTable,
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Header => "header",
            Self::HashTable => "hash table",
            Self::BlockTable => "block table",
            Self::HiBlockTable => "hi-block table",
        })
    }
}

/// Which part of a file's data an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilePart {
    /// The file's whole stored extent (its block table entry).
    Block,
    SectorOffsetTable,
    SectorChecksums,
    Sector(u32),
    /// A single-unit file's one stream.
    SingleUnit,
}

impl fmt::Display for FilePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Block => f.write_str("block"),
            Self::SectorOffsetTable => f.write_str("sector offset table"),
            Self::SectorChecksums => f.write_str("sector checksums"),
            Self::Sector(index) => write!(f, "sector {index}"),
            Self::SingleUnit => f.write_str("single-unit data"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MpqError {
    #[error("{archive}: {error}")]
    Io { archive: String, error: std::io::Error },
    #[error("{archive}: no MPQ header (MPQ\\x1A) found")]
    NoHeader { archive: String },
    #[error("{archive}: {table}: {problem}")]
    Table { archive: String, table: Table, problem: TableProblem },
    #[error("{archive}: {file} is not there")]
    NotFound { archive: String, file: String },
    #[error("{archive}: {file}: {part}: {problem}")]
    File { archive: String, file: String, part: FilePart, problem: FileProblem },
}

/// What is wrong with a table of the archive.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableProblem {
    #[error("at byte {at}: {available} bytes left of a 32-byte header")]
    HeaderCut { at: u64, available: usize },
    #[error("version {version} header is cut at {available} of 44 bytes")]
    ExtendedHeaderCut { version: u16, available: usize },
    #[error("sector size shift {shift} is over {max}")]
    SectorShiftTooLarge { shift: u16, max: u16 },
    #[error("position {position} is past the end of the {archive_size}-byte file")]
    PositionPastEnd { position: u64, archive_size: u64 },
    #[error("{entries} entries ({length} bytes) at byte {position} run past the end of the {archive_size}-byte file")]
    EntriesPastEnd { entries: u32, length: u64, position: u64, archive_size: u64 },
}

/// What is wrong with one file's stored data.
#[derive(Debug, thiserror::Error)]
pub enum FileProblem {
    #[error("incremental patch files (Cataclysm and later) are not supported")]
    IncrementalPatch,
    #[error("{length} bytes at byte {position} run past the end of the {archive_size}-byte file")]
    ExtentPastEnd { length: u64, position: u64, archive_size: u64 },
    /// Encrypted, and the key is derived from a name the archive's listfiles do not give.
    #[error("encrypted, and without its name the key is unknown")]
    KeyUnknown,
    #[error("encrypted, and without its name the key could not be recovered")]
    KeyNotRecovered,
    #[error("{stored} stored bytes of an uncompressed {expected}-byte unit")]
    ShortUncompressed { stored: usize, expected: usize },
    #[error("{entries} offsets for {sectors} sectors do not fit in the {stored} stored bytes")]
    OffsetTableTooLong { entries: usize, sectors: usize, stored: usize },
    #[error("entry {index} → {} spans bytes {start}..{end} of the {stored} stored bytes", index + 1)]
    SectorOutOfExtent { index: usize, start: usize, end: usize, stored: usize },
    #[error("ADLER32 {computed:08X} differs from the stored {stored:08X}")]
    ChecksumMismatch { computed: u32, stored: u32 },
    #[error(transparent)]
    Decompress(#[from] super::compression::DecompressError),
}

impl MpqError {
    pub fn archive(&self) -> &str {
        match self {
            Self::Io { archive, .. }
            | Self::NoHeader { archive }
            | Self::Table { archive, .. }
            | Self::NotFound { archive, .. }
            | Self::File { archive, .. } => archive,
        }
    }
}

pub type Result<T, E = MpqError> = std::result::Result<T, E>;
