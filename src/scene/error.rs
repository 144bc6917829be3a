//! Failing to open a file: what the scene builders, the loader and the application report, naming the
//! file (the format layer's [`ParseError`] names only the chunk and the offset).

use std::path::PathBuf;

use crate::formats::ParseError;

/// A failure to open a file, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{}: {source}", file.display())]
    Io { file: PathBuf, source: std::io::Error },
    #[error("{}: {error}", file.display())]
    Parse { file: PathBuf, error: ParseError },
    #[error("{}: {message}", file.display())]
    Unsupported { file: PathBuf, message: String },
    /// The user stopped the load (Esc in the viewer).
    #[error("{}: loading was cancelled", file.display())]
    Cancelled { file: PathBuf },
    /// The source could not hand out the file (not there, unreadable, a damaged archive).
    #[error("{error}")]
    Source { file: PathBuf, error: crate::source::SourceError },
}

impl FileError {
    pub fn parse(file: impl Into<PathBuf>, error: ParseError) -> Self {
        Self::Parse { file: file.into(), error }
    }
}
