//! Bytes → typed models, plus the chunk tree every parser builds on. Nothing here knows of Bevy.

pub mod blp;
pub mod chunk;
pub mod error;
pub mod fourcc;
pub mod lwo;
pub mod m2;
pub mod mpq;
pub mod reader;
pub mod wmo;

use std::path::{Path, PathBuf};

pub use chunk::{ChunkNode, ChunkTree};
pub use error::{ErrorKind, FileError, ParseError, Warning};
pub use fourcc::FourCc;

/// What a file turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Lwo(lwo::LwoKind),
    WmoRoot,
    WmoGroup,
    M2,
}

impl Format {
    /// The name `--info --json` prints: `LWOB`, `LWO2`, `LWO3`, `LXOB`, `LWLO`, `WMO-root`, `WMO-group`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lwo(kind) => kind.name(),
            Self::WmoRoot => "WMO-root",
            Self::WmoGroup => "WMO-group",
            Self::M2 => "M2",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    Lwo(lwo::LwoObject),
    WmoRoot(wmo::WmoRoot),
    WmoGroup(wmo::WmoGroup),
    M2(m2::M2Model),
}

/// A parsed file: its format, its chunk tree and its model.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub format: Format,
    pub tree: ChunkTree,
    pub model: Model,
}

impl Document {
    pub fn warnings(&self) -> &[Warning] {
        match &self.model {
            Model::Lwo(o) => &o.warnings,
            Model::WmoRoot(r) => &r.warnings,
            Model::WmoGroup(g) => &g.warnings,
            Model::M2(m) => &m.warnings,
        }
    }
}

/// The extensions the viewer opens.
pub const EXTENSIONS: &[&str] = &["lwo", "lxo", "wmo", "m2"];

pub fn is_supported_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|s| s.eq_ignore_ascii_case(e)))
}

/// Parses a file by its content: `FORM` is IFF (LightWave), `REVM` (MVER reversed) is WMO, `MD20` (or
/// the later, refused `MD21`) is M2. An M2 has no chunks: its tree is empty and its header arrays stand in.
pub fn parse_document(bytes: &[u8]) -> Result<Document, ParseError> {
    match bytes.get(..4) {
        Some(b"FORM") => {
            let (tree, object) = lwo::parse(bytes)?;
            Ok(Document { format: Format::Lwo(object.kind), tree, model: Model::Lwo(object) })
        }
        Some(b"REVM") => match wmo::parse(bytes)? {
            (tree, wmo::WmoFile::Root(root)) => Ok(Document { format: Format::WmoRoot, tree, model: Model::WmoRoot(root) }),
            (tree, wmo::WmoFile::Group(group)) => Ok(Document { format: Format::WmoGroup, tree, model: Model::WmoGroup(group) }),
        },
        Some(b"MD20" | b"MD21") => {
            let model = m2::parse(bytes)?;
            Ok(Document { format: Format::M2, tree: ChunkTree::default(), model: Model::M2(model) })
        }
        Some(other) => Err(ParseError::new(
            0,
            ErrorKind::BadMagic {
                expected: "FORM (LightWave), REVM (WMO) or MD20 (M2)",
                found: FourCc([other[0], other[1], other[2], other[3]]).to_string(),
            },
        )),
        None => Err(ParseError::new(0, ErrorKind::Truncated { needed: 4, available: bytes.len() })),
    }
}

/// Walks only the chunk tree, so the inspector can show the structure of a file its parser rejects.
pub fn parse_chunk_tree(bytes: &[u8]) -> Result<ChunkTree, ParseError> {
    match bytes.get(..4) {
        Some(b"FORM") => chunk::read_iff_tree(bytes),
        _ => chunk::read_wmo_tree(bytes),
    }
}

pub fn read_file(path: &Path) -> Result<Vec<u8>, FileError> {
    std::fs::read(path).map_err(|source| FileError::Io { file: path.to_owned(), source })
}

pub fn read_document(path: &Path) -> Result<Document, FileError> {
    let bytes = read_file(path)?;
    parse_document(&bytes).map_err(|e| FileError::parse(path, e))
}

/// Finds `name` in `dir` ignoring case, as game archives extracted on Windows name files freely.
pub fn find_case_insensitive(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if exact.is_file() {
        return Some(exact);
    }
    std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).find(|p| {
        p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case(name))
    })
}
