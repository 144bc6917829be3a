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

use std::path::Path;

pub use chunk::{ChunkId, ChunkNode, ChunkRef, ChunkTree, Field};
pub use error::{ErrorKind, ParseError, Warning};
pub use fourcc::FourCc;

/// What a file turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Lwo(lwo::LwoKind),
    WmoRoot,
    WmoGroup,
    M2,
    /// A BLP texture: 1 for BLP1, 2 for BLP2.
    Blp(u8),
}

impl Format {
    /// The name `--info --json` prints: `LWOB`, `LWO2`, `LWO3`, `LXOB`, `LWLO`, `WMO-root`, `WMO-group`,
    /// `M2`, `BLP1`, `BLP2`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lwo(kind) => kind.name(),
            Self::WmoRoot => "WMO-root",
            Self::WmoGroup => "WMO-group",
            Self::M2 => "M2",
            Self::Blp(1) => "BLP1",
            Self::Blp(_) => "BLP2",
        }
    }
}

/// One per document, never in a collection: the variants' sizes differing costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    Lwo(lwo::LwoObject),
    WmoRoot(wmo::WmoRoot),
    WmoGroup(wmo::WmoGroup),
    M2(m2::M2Model),
    Blp(blp::BlpInfo),
}

/// A parsed file: its format, its chunk tree and its model.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub format: Format,
    pub tree: ChunkTree,
    pub model: Model,
}

impl Document {
    /// The values of chunk `id` decoded for people: what its own bytes say where its format decodes
    /// them (an LWO3 anonymous chunk's, by the form it leads), then what the model item it made holds
    /// (a layer's number and counts, a surface's parameters, a WMO header's counts and flags). `file`
    /// is the bytes the document was read from. The inspector panel and `--info --json` both show these.
    pub fn chunk_fields(&self, id: ChunkId, file: &[u8]) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> =
            chunk_fields(&self.tree, id, file).into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        let kind = self.tree.node(id).kind().to_string();
        match &self.model {
            Model::Lwo(object) => lwo::fields::model_fields(object, &kind, id, &mut out),
            Model::WmoRoot(root) => wmo::fields::root_fields(root, &kind, &mut out),
            Model::WmoGroup(group) => wmo::fields::group_fields(group, &kind, &mut out),
            Model::M2(model) => m2::chunked::chunk_fields(model, &kind, self.tree.node(id).data(file), &mut out),
            Model::Blp(_) => {}
        }
        out
    }

    /// The chunk tree as `--info --json` nests it, each chunk with its [`Document::chunk_fields`].
    pub fn nested_chunks<'d>(
        &'d self,
        file: &'d [u8],
    ) -> chunk::NestedChunks<'d, impl Fn(ChunkId) -> Vec<(String, String)> + Copy + 'd> {
        self.tree.nested(file, move |id| self.chunk_fields(id, file))
    }

    pub fn warnings(&self) -> &[Warning] {
        match &self.model {
            Model::Lwo(o) => &o.warnings,
            Model::WmoRoot(r) => &r.warnings,
            Model::WmoGroup(g) => &g.warnings,
            Model::M2(m) => &m.warnings,
            Model::Blp(b) => &b.warnings,
        }
    }
}

/// One family of files the viewer opens: how its content starts, its extensions, and its parser.
pub struct FormatFamily {
    /// For people and the open dialog: `LightWave object`.
    pub name: &'static str,
    /// The first four bytes of its files.
    pub magics: &'static [&'static [u8; 4]],
    /// File name extensions, lower case.
    pub extensions: &'static [&'static str],
    /// Models, as opposed to textures: what a batch looks for in folders (a texture is drawn when named).
    pub is_model: bool,
    parse: fn(&[u8]) -> Result<Document, ParseError>,
}

/// Every format, in one table that the loader, the open dialog, drag-and-drop and `--info` share.
pub const FORMATS: &[FormatFamily] = &[
    FormatFamily {
        name: "LightWave object",
        magics: &[b"FORM"],
        extensions: &["lwo", "lxo"],
        is_model: true,
        parse: parse_lightwave,
    },
    FormatFamily {
        name: "World of Warcraft WMO",
        magics: &[b"REVM"],
        extensions: &["wmo"],
        is_model: true,
        parse: parse_wmo,
    },
    FormatFamily {
        name: "World of Warcraft M2",
        magics: &[b"MD20", b"MD21"],
        extensions: &["m2"],
        is_model: true,
        parse: parse_m2,
    },
    // BLP0 is recognised so that it is refused by name (its levels lie in other files).
    FormatFamily {
        name: "World of Warcraft BLP texture",
        magics: &[b"BLP0", b"BLP1", b"BLP2"],
        extensions: &["blp"],
        is_model: false,
        parse: parse_blp,
    },
];

/// Whether the viewer opens files of this name (a model or a texture), by its extension.
pub fn is_supported_path(path: &Path) -> bool {
    family_of_path(path).is_some()
}

/// Whether the file is a model by its extension (not a texture).
pub fn is_model_path(path: &Path) -> bool {
    family_of_path(path).is_some_and(|f| f.is_model)
}

fn family_of_path(path: &Path) -> Option<&'static FormatFamily> {
    let extension = path.extension()?.to_str()?;
    FORMATS.iter().find(|f| f.extensions.iter().any(|s| s.eq_ignore_ascii_case(extension)))
}

fn parse_lightwave(bytes: &[u8]) -> Result<Document, ParseError> {
    let (tree, object) = lwo::parse(bytes)?;
    Ok(Document { format: Format::Lwo(object.kind), tree, model: Model::Lwo(object) })
}

fn parse_wmo(bytes: &[u8]) -> Result<Document, ParseError> {
    Ok(match wmo::parse(bytes)? {
        (tree, wmo::WmoFile::Root(root)) => Document { format: Format::WmoRoot, tree, model: Model::WmoRoot(root) },
        (tree, wmo::WmoFile::Group(group)) => {
            Document { format: Format::WmoGroup, tree, model: Model::WmoGroup(group) }
        }
    })
}

/// An MD20 file has no chunks (its tree is empty and its header arrays stand in); an MD21 file's tree
/// lists its chunks.
fn parse_m2(bytes: &[u8]) -> Result<Document, ParseError> {
    let (tree, model) = m2::parse_with_chunks(bytes)?;
    Ok(Document { format: Format::M2, tree, model: Model::M2(model) })
}

/// A BLP has no chunks: its header's values are the model; the pixels are decoded when it is shown.
fn parse_blp(bytes: &[u8]) -> Result<Document, ParseError> {
    let info = blp::read_info(bytes).map_err(|e| ParseError::from(e).within("header"))?;
    Ok(Document { format: Format::Blp(info.version), tree: ChunkTree::default(), model: Model::Blp(info) })
}

/// Parses a file by its content, whatever its name says: the first four bytes pick the format.
pub fn parse_document(bytes: &[u8]) -> Result<Document, ParseError> {
    (family_of(bytes)?.parse)(bytes)
}

/// The format family whose magic `bytes` start with; otherwise the error that says what they start with.
fn family_of(bytes: &[u8]) -> Result<&'static FormatFamily, ParseError> {
    let found =
        bytes.get(..4).and_then(|magic| FORMATS.iter().find(|f| f.magics.iter().any(|m| m.as_slice() == magic)));
    found.ok_or_else(|| ParseError::new(0, ErrorKind::NotAModel(describe_start(bytes))))
}

/// How a file that is no model begins, for the one line that refuses it: its first bytes as text where
/// they are printable, else in hex.
fn describe_start(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "it is empty".into();
    }
    let start = &bytes[..bytes.len().min(4)];
    let what = if start.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("'{}'", String::from_utf8_lossy(start))
    } else {
        start.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" ")
    };
    if bytes.len() < 4 {
        format!("it holds only {} bytes, {what}", bytes.len())
    } else {
        format!("it starts with {what}")
    }
}

/// The values of chunk `id` that the tree's format decodes for people (an LWO3 anonymous chunk's, by
/// the form it leads), read from `file`, the bytes `tree` was read from; empty for other chunks.
/// Decoded when asked, not kept in the tree: a LightWave 2018 object has hundreds of such chunks, and
/// decoding them all into strings was a sixth of reading one.
pub fn chunk_fields(tree: &ChunkTree, id: ChunkId, file: &[u8]) -> Vec<Field> {
    lwo::chunks::decoded_fields(tree, id, file)
}

/// Walks only the chunk tree, so the inspector can show the structure of a file its parser rejects:
/// every chunk up to the first that cannot be read, and the error there (`None` when the walk is whole).
pub fn parse_chunk_tree(bytes: &[u8]) -> (ChunkTree, Option<ParseError>) {
    match bytes.get(..4) {
        Some(b"FORM") => lwo::chunks::read_iff_tree_partial(bytes),
        Some(b"REVM") => wmo::chunks::read_wmo_tree_partial(bytes),
        // Anything else has no chunks to list: its bytes are no format of ours.
        _ => (ChunkTree::default(), family_of(bytes).err()),
    }
}
