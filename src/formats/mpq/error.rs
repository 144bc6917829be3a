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
    Table { archive: String, table: Table, problem: String },
    #[error("{archive}: {file} is not there")]
    NotFound { archive: String, file: String },
    #[error("{archive}: {file}: {part}: {problem}")]
    File { archive: String, file: String, part: FilePart, problem: String },
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
