//! Errors and warnings of the format layer. Every error carries the chunk path and the absolute byte
//! offset where reading stopped, because a format researcher needs both to find the fault in a hex editor.

use std::fmt;

use super::fourcc::FourCc;

/// What went wrong, without the location.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("expected {needed} more bytes, found {available}")]
    Truncated { needed: usize, available: usize },
    #[error("length {length} runs past the end of its parent, which has {available} bytes left")]
    LengthPastParent { length: u64, available: usize },
    #[error("expected {expected}, found {found}")]
    BadMagic { expected: &'static str, found: String },
    #[error("{what} version {version} is not supported (supported: {supported})")]
    UnsupportedVersion { what: &'static str, version: u32, supported: &'static str },
    #[error("size {size} is not a multiple of the {entry}-byte entry")]
    BadEntrySize { size: usize, entry: usize },
    #[error("{what} index {index} is out of range (there are {len})")]
    IndexOutOfRange { what: &'static str, index: u64, len: u64 },
    #[error("required chunk {0} is missing")]
    MissingChunk(FourCc),
    #[error("chunks are nested deeper than {0} levels")]
    TooDeep(usize),
    #[error("{0}")]
    Invalid(String),
    /// The bytes are no format this crate reads (said without a place: there is no chunk to point at).
    #[error("is not a LightWave, WMO, M2 or BLP file: {0}")]
    NotAModel(String),
}

/// An error with its place in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// Chunk path such as `FORM/POLS[2]`; empty until a chunk dispatcher fills it in.
    pub path: String,
    /// Absolute byte offset in the file.
    pub offset: usize,
    pub kind: ErrorKind,
}

impl ParseError {
    pub fn new(offset: usize, kind: ErrorKind) -> Self {
        Self { path: String::new(), offset, kind }
    }

    /// Names the chunk the error happened in, unless a deeper reader already did.
    pub fn within(mut self, path: &str) -> Self {
        if self.path.is_empty() {
            self.path = path.to_owned();
        }
        self
    }

    pub fn invalid(offset: usize, message: impl Into<String>) -> Self {
        Self::new(offset, ErrorKind::Invalid(message.into()))
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let ErrorKind::NotAModel(_) = self.kind {
            return write!(f, "{}", self.kind);
        }
        if self.path.is_empty() {
            write!(f, "at byte {} (0x{:X}): {}", self.offset, self.offset, self.kind)
        } else {
            write!(f, "{} at byte {} (0x{:X}): {}", self.path, self.offset, self.offset, self.kind)
        }
    }
}

impl std::error::Error for ParseError {}

pub type Result<T, E = ParseError> = std::result::Result<T, E>;

/// Attaches a chunk path to the error of any result.
pub trait WithinChunk<T> {
    fn within(self, path: &str) -> Result<T>;
}

impl<T> WithinChunk<T> for Result<T> {
    fn within(self, path: &str) -> Result<T> {
        self.map_err(|e| e.within(path))
    }
}

/// Something odd that does not stop the file from loading (a missing group file, an unknown blend mode).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    pub path: String,
    pub offset: usize,
    pub message: String,
}

impl Warning {
    pub fn new(path: impl Into<String>, offset: usize, message: impl Into<String>) -> Self {
        Self { path: path.into(), offset, message: message.into() }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} at byte {} (0x{:X}): {}", self.path, self.offset, self.offset, self.message)
        }
    }
}
