//! The chunk layer shared by both formats: a walk of the file into a tree of `{id, offset, length,
//! children}` nodes. Lengths are checked against their parent here, once, so every parser that builds on
//! the tree can slice chunk data without re-checking, and the inspector can show a file even when a
//! later parse step rejects it. The walkers know no format: each IFF-based one brings an [`IffGrammar`]
//! that says which chunks hold others (LightWave's is in `lwo::chunks`), and a little-endian chunk
//! format a rule for its containers (WMO's is in `wmo::chunks`). A walk that breaks keeps what it read.

use std::collections::HashMap;
use std::ops::Range;

use super::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use super::fourcc::FourCc;
use super::reader::Reader;

/// Chunk nesting deeper than this is refused, so a hostile file cannot exhaust the stack.
pub const MAX_DEPTH: usize = 32;

pub const FORM: FourCc = FourCc::new(b"FORM");

/// Kept where the callers of the old walkers import them from; each format's grammar lives in its module.
pub use super::lwo::read_iff_tree;
pub use super::wmo::chunks::read_wmo_tree;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChunkNode {
    pub id: FourCc,
    /// The type of an IFF `FORM` (`LWO2`, or `SURF` for an LWO3 nested form).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub form_type: Option<FourCc>,
    /// Offset of the id in the file.
    pub offset: usize,
    /// Bytes of id plus length field: 8 for chunks, 6 for LightWave sub-chunks.
    #[serde(skip)]
    pub header_len: usize,
    /// The stored data length (an odd IFF length is followed by a pad byte not counted here).
    pub length: usize,
    /// Data bytes before the first child: a form type, SURF names, the MOGP header.
    #[serde(skip)]
    pub prefix_len: usize,
    /// What the node is called in paths and trees when its id alone does not say it (`FORM SURF "Right"`,
    /// `(fields)` for an anonymous chunk); set by the format's grammar.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// Decoded values of a chunk whose meaning its parent gives (an LWO3 anonymous chunk), as name and value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<ChunkNode>,
}

impl ChunkNode {
    pub fn leaf(id: FourCc, offset: usize, header_len: usize, length: usize) -> Self {
        Self {
            id,
            form_type: None,
            offset,
            header_len,
            length,
            prefix_len: 0,
            display: None,
            fields: Vec::new(),
            children: Vec::new(),
        }
    }

    pub fn data_offset(&self) -> usize {
        self.offset + self.header_len
    }

    pub fn data_range(&self) -> Range<usize> {
        self.data_offset()..self.data_offset() + self.length
    }

    /// The chunk's data. The tree was checked against the file it came from, so this is only empty
    /// when called with another file.
    pub fn data<'a>(&self, file: &'a [u8]) -> &'a [u8] {
        file.get(self.data_range()).unwrap_or(&[])
    }

    /// The data after the prefix (the part the children live in), as a reader.
    pub fn body<'a>(&self, file: &'a [u8], endian: super::reader::Endian) -> Reader<'a> {
        let data = self.data(file);
        let start = self.prefix_len.min(data.len());
        Reader::new(&data[start..], self.data_offset() + start, endian)
    }

    /// A reader over the whole data, prefix included.
    pub fn reader<'a>(&self, file: &'a [u8], endian: super::reader::Endian) -> Reader<'a> {
        Reader::new(self.data(file), self.data_offset(), endian)
    }

    /// Shown name: the grammar's display name, else `FORM LWO2` for forms and the id otherwise.
    pub fn label(&self) -> String {
        if let Some(display) = &self.display {
            return display.clone();
        }
        match self.form_type {
            Some(t) => format!("{} {}", self.id, t),
            None => self.id.to_string(),
        }
    }

    /// The node's part of a path: the display name where the grammar gave one, else the id.
    pub fn segment(&self) -> String {
        self.display.clone().unwrap_or_else(|| self.id.to_string())
    }

    /// What the node is, for nesting rules: a form's type, else its id.
    pub fn kind(&self) -> FourCc {
        self.form_type.unwrap_or(self.id)
    }

    /// Whether this is a FORM of the given type.
    pub fn is_form(&self, form_type: &[u8; 4]) -> bool {
        self.form_type.is_some_and(|t| t.0 == *form_type)
    }

    /// Depth-first visit with each node's path.
    pub fn visit<'s>(&'s self, path: &str, f: &mut impl FnMut(&str, &'s ChunkNode)) {
        f(path, self);
        for (child_path, child) in self.child_paths(path) {
            child.visit(&child_path, f);
        }
    }

    /// The children with their paths under `path`.
    pub fn child_paths(&self, path: &str) -> Vec<(String, &ChunkNode)> {
        let mut counts = HashMap::new();
        self.children.iter().map(|child| (child_path_of(path, child, &mut counts), child)).collect()
    }

    pub fn count_nodes(&self) -> usize {
        1 + self.children.iter().map(ChunkNode::count_nodes).sum::<usize>()
    }
}

/// A walked file: its top-level chunks and anything odd found on the way.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ChunkTree {
    pub roots: Vec<ChunkNode>,
    #[serde(skip)]
    pub warnings: Vec<Warning>,
}

impl ChunkTree {
    /// Top-level chunks with their paths (`MOHD`, `MOMT`, or `FORM` for IFF).
    pub fn paths(&self) -> Vec<(String, &ChunkNode)> {
        let mut out = Vec::new();
        let mut counts = HashMap::new();
        for root in &self.roots {
            out.push((child_path_of("", root, &mut counts), root));
        }
        out
    }
}

/// `parent/ID`, with `[n]` from the second sibling of the same id on, so paths stay short for the
/// common single chunk and stay unique for repeated ones.
pub fn child_path(parent: &str, id: FourCc, counts: &mut HashMap<FourCc, usize>) -> String {
    let n = counts.entry(id).or_insert(0);
    let index = *n;
    *n += 1;
    join_path(parent, &id.to_string(), index)
}

/// `parent/segment` with the node's display name where it has one (`FORM SURF "Right"`), numbered
/// like [`child_path`] among siblings of the same segment.
pub fn child_path_of(parent: &str, node: &ChunkNode, counts: &mut HashMap<String, usize>) -> String {
    let segment = node.segment();
    let n = counts.entry(segment.clone()).or_insert(0);
    let index = *n;
    *n += 1;
    join_path(parent, &segment, index)
}

fn join_path(parent: &str, segment: &str, index: usize) -> String {
    let sep = if parent.is_empty() { "" } else { "/" };
    if index == 0 { format!("{parent}{sep}{segment}") } else { format!("{parent}{sep}{segment}[{index}]") }
}

/// The width of the length field of the chunks inside a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthWidth {
    /// LightWave's sub-chunks (LWO2 SURF, CLIP, ENVL and the blocks inside them).
    U2,
    /// IFF chunks.
    U4,
}

impl LengthWidth {
    fn header_len(self) -> usize {
        match self {
            Self::U2 => 6,
            Self::U4 => 8,
        }
    }
}

/// How a container's data nests: the bytes before its first child, and its children's headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nesting {
    pub prefix_len: usize,
    pub children: LengthWidth,
}

/// One IFF-based format's nesting rules. The walker here reads headers, checks every length against its
/// parent and skips pad bytes; the grammar says which chunks hold others and names what it can.
pub trait IffGrammar {
    /// Whether `node` holds children, and how. `ancestors` are the kinds ([`ChunkNode::kind`]) from the
    /// file's root down to the parent, `index` the node's place among its siblings, `data` its data (a
    /// FORM's starts with its type: the grammar sets `node.form_type`).
    fn nesting(&self, ancestors: &[FourCc], index: usize, node: &mut ChunkNode, data: Reader<'_>) -> Result<Option<Nesting>>;

    /// Called when a container's first child has been read and again when all have: decode fields,
    /// name the node (`display`). The default names nothing.
    fn describe(&self, _ancestors: &[FourCc], _node: &mut ChunkNode, _file: &[u8]) {}

    /// Whether a container that cannot be read to its end may be kept with what was read, and a
    /// warning, instead of refusing the file. The default refuses.
    fn optional(&self, _ancestors: &[FourCc], _node: &ChunkNode) -> bool {
        false
    }
}

/// Walks an IFF file (`FORM` + U4 length + type, then chunks) with a format's grammar.
pub fn read_iff_tree_with(bytes: &[u8], grammar: &dyn IffGrammar) -> Result<ChunkTree> {
    match read_iff_tree_partial_with(bytes, grammar) {
        (tree, None) => Ok(tree),
        (_, Some(error)) => Err(error),
    }
}

/// As [`read_iff_tree_with`], but a walk that breaks keeps every chunk read up to the break (the
/// broken chunk included, with what it held), so the inspector can show a file its parser rejects.
pub fn read_iff_tree_partial_with(bytes: &[u8], grammar: &dyn IffGrammar) -> (ChunkTree, Option<ParseError>) {
    match read_iff_root(bytes, grammar) {
        Ok(walked) => walked,
        Err(error) => (ChunkTree::default(), Some(error)),
    }
}

fn read_iff_root(bytes: &[u8], grammar: &dyn IffGrammar) -> Result<(ChunkTree, Option<ParseError>)> {
    let mut r = Reader::big(bytes, 0);
    let id = r.fourcc()?;
    if id != FORM {
        return Err(ParseError::new(0, ErrorKind::BadMagic { expected: "an IFF FORM", found: id.to_string() }));
    }
    let length = r.u32().within("FORM")? as usize;
    if length < 4 {
        return Err(ParseError::invalid(4, format!("FORM length {length} leaves no room for the form type")).within("FORM"));
    }
    if length > r.remaining() {
        return Err(ParseError::new(4, ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() })
            .within("FORM"));
    }
    let form_type = r.fourcc()?;
    let mut body = r.sub(length - 4)?;
    let mut root = ChunkNode { id, form_type: Some(form_type), offset: 0, header_len: 8, length, prefix_len: 4, display: None, fields: Vec::new(), children: Vec::new() };
    let mut walk = IffWalk { grammar, file: bytes, warnings: Vec::new(), ancestors: vec![form_type] };
    grammar.describe(&[], &mut root, bytes);
    if let Err(error) = walk.read_children(&mut body, &mut root, "", 0, LengthWidth::U4, 1) {
        return Ok((ChunkTree { roots: vec![root], warnings: walk.warnings }, Some(error)));
    }
    let trailing = r.remaining();
    if trailing > 1 {
        walk.warnings.push(Warning::new("", 8 + length, format!("{trailing} bytes after the end of the FORM are ignored")));
    }
    Ok((ChunkTree { roots: vec![root], warnings: walk.warnings }, None))
}

/// A chunk whose header was read but whose length runs past its parent, cut to the bytes there are:
/// kept in a broken walk so the inspector shows the chunk where reading stopped.
fn clipped_node(at: &Reader<'_>, header_len: usize) -> Option<ChunkNode> {
    let mut r = at.clone();
    if r.remaining() < header_len {
        return None;
    }
    let offset = r.offset();
    let id = r.fourcc().ok()?;
    r.skip(header_len - 4).ok()?;
    Some(ChunkNode::leaf(id, offset, header_len, r.remaining()))
}

fn check_depth(depth: usize, offset: usize, path: &str) -> Result<()> {
    if depth > MAX_DEPTH { Err(ParseError::new(offset, ErrorKind::TooDeep(MAX_DEPTH)).within(path)) } else { Ok(()) }
}

/// Reads one chunk header and returns its data reader, skipping the pad byte of odd lengths.
fn read_header<'a>(r: &mut Reader<'a>, width: LengthWidth, parent_path: &str) -> Result<(FourCc, usize, Reader<'a>)> {
    let header_len = width.header_len();
    if r.remaining() < header_len {
        return Err(r.truncated(header_len).within(parent_path));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = match width {
        LengthWidth::U4 => r.u32()? as usize,
        LengthWidth::U2 => usize::from(r.u16()?),
    };
    if length > r.remaining() {
        let err = ParseError::new(length_offset, ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() });
        return Err(err.within(&format!("{parent_path}/{id}")));
    }
    let data = r.sub(length)?;
    if length % 2 == 1 && !r.is_empty() {
        r.skip(1)?;
    }
    Ok((id, length, data))
}

struct IffWalk<'g, 'f> {
    grammar: &'g dyn IffGrammar,
    file: &'f [u8],
    warnings: Vec<Warning>,
    /// Kinds of the containers above the chunks being read, the root's form type first.
    ancestors: Vec<FourCc>,
}

impl IffWalk<'_, '_> {
    /// Reads `r` to its end as `parent`'s children. `parent` sits at `base` as the `index`th sibling of
    /// its segment; its path is recomputed once the grammar names it from its first child, so later
    /// errors name it too.
    fn read_children(&mut self, r: &mut Reader<'_>, parent: &mut ChunkNode, base: &str, index: usize, width: LengthWidth, depth: usize) -> Result<()> {
        let mut counts: HashMap<String, usize> = HashMap::new();
        let mut parent_path = join_path(base, &parent.segment(), index);
        let header_len = width.header_len();
        while !r.is_empty() {
            if r.remaining() < header_len && r.clone().rest().iter().all(|&b| b == 0) {
                if width == LengthWidth::U4 {
                    self.warnings.push(Warning::new(&parent_path, r.offset(), format!("{} zero bytes of padding at the end", r.remaining())));
                }
                r.rest();
                break;
            }
            let offset = r.offset();
            let before = r.clone();
            let (id, length, data) = match read_header(r, width, &parent_path) {
                Ok(header) => header,
                Err(error) => {
                    parent.children.extend(clipped_node(&before, header_len));
                    return Err(error);
                }
            };
            let mut node = ChunkNode::leaf(id, offset, header_len, length);
            let provisional = join_path(&parent_path, &id.to_string(), 0);
            if let Err(error) = check_depth(depth, offset, &provisional) {
                parent.children.push(node);
                return Err(error);
            }
            let nesting = self.grammar.nesting(&self.ancestors, parent.children.len(), &mut node, data.clone()).within(&provisional);
            let read = nesting.and_then(|nesting| {
                let Some(nesting) = nesting else { return Ok(()) };
                let mut body = data;
                body.skip(nesting.prefix_len).within(&provisional)?;
                node.prefix_len = nesting.prefix_len;
                self.ancestors.push(node.kind());
                let sibling_index = counts.get(&node.segment()).copied().unwrap_or(0);
                let read = self.read_children(&mut body, &mut node, &parent_path, sibling_index, nesting.children, depth + 1);
                self.ancestors.pop();
                read
            });
            if let Err(error) = read {
                if !self.grammar.optional(&self.ancestors, &node) {
                    // Kept with what it held up to the break: the inspector shows where reading stopped.
                    parent.children.push(node);
                    return Err(error);
                }
                let message = format!("{}; the chunk is kept as far as it could be read", error.kind);
                self.warnings.push(Warning::new(error.path, error.offset, message));
            }
            *counts.entry(node.segment()).or_insert(0) += 1;
            parent.children.push(node);
            if parent.children.len() == 1 {
                self.describe(parent);
                parent_path = join_path(base, &parent.segment(), index);
            }
        }
        self.describe(parent);
        Ok(())
    }

    fn describe(&self, node: &mut ChunkNode) {
        let ancestors = &self.ancestors[..self.ancestors.len().saturating_sub(1)];
        self.grammar.describe(ancestors, node, self.file);
    }
}

/// Walks a file of little-endian chunks (id, u32 length, data), as WMO is, to its end or to the first
/// chunk that cannot be read: the chunks read so far are kept either way. `container` tells, for a
/// chunk id, how many header bytes precede its sub-chunks when it holds any (the format's grammar).
pub fn read_le_chunks_partial(bytes: &[u8], container: &dyn Fn(FourCc) -> Option<usize>) -> (ChunkTree, Option<ParseError>) {
    let mut r = Reader::little(bytes, 0);
    let mut roots = Vec::new();
    let error = read_le_chunks(&mut r, "", 1, container, &mut roots).err();
    (ChunkTree { roots, warnings: Vec::new() }, error)
}

fn read_le_chunks(r: &mut Reader<'_>, parent_path: &str, depth: usize, container: &dyn Fn(FourCc) -> Option<usize>, out: &mut Vec<ChunkNode>) -> Result<()> {
    let mut counts = HashMap::new();
    while !r.is_empty() {
        let offset = r.offset();
        let before = r.clone();
        let (id, length, mut data) = match read_le_header(r, parent_path) {
            Ok(header) => header,
            Err(error) => {
                out.extend(clipped_node(&before, 8));
                return Err(error);
            }
        };
        let path = child_path(parent_path, id, &mut counts);
        let mut node = ChunkNode::leaf(id, offset, 8, length);
        let read = check_depth(depth, offset, &path).and_then(|()| {
            let Some(prefix) = container(id) else { return Ok(()) };
            data.skip(prefix).within(&path)?;
            node.prefix_len = prefix;
            read_le_chunks(&mut data, &path, depth + 1, container, &mut node.children)
        });
        out.push(node);
        read?;
    }
    Ok(())
}

fn read_le_header<'a>(r: &mut Reader<'a>, parent_path: &str) -> Result<(FourCc, usize, Reader<'a>)> {
    if r.remaining() < 8 {
        return Err(r.truncated(8).within(if parent_path.is_empty() { "(chunk header)" } else { parent_path }));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = r.u32()? as usize;
    if length > r.remaining() {
        let sep = if parent_path.is_empty() { "" } else { "/" };
        let err = ParseError::new(length_offset, ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() });
        return Err(err.within(&format!("{parent_path}{sep}{id}")));
    }
    let data = r.sub(length)?;
    Ok((id, length, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::lwo::{chunk, form};

    #[test]
    fn odd_lengths_skip_the_pad_byte() {
        let mut body = chunk(b"DESC", b"abc");
        body.extend(chunk(b"TEXT", b"xy"));
        let tree = read_iff_tree(&form(b"LWO2", &body)).unwrap();
        let kids = &tree.roots[0].children;
        assert_eq!(kids.len(), 2);
        assert_eq!((kids[0].offset, kids[0].length), (12, 3));
        assert_eq!((kids[1].id, kids[1].offset), (FourCc::new(b"TEXT"), 24));
    }

    #[test]
    fn oversized_chunk_names_path_and_offset() {
        let mut body = chunk(b"PNTS", &[0; 12]);
        body.extend_from_slice(b"POLS\x00\x00\x10\x00");
        let err = read_iff_tree(&form(b"LWO2", &body)).unwrap_err();
        assert_eq!(err.path, "FORM/POLS");
        assert_eq!(err.offset, 12 + 20 + 4);
        assert!(matches!(err.kind, ErrorKind::LengthPastParent { length: 0x1000, .. }));
    }

    #[test]
    fn lwo2_surf_sub_chunks_nest() {
        let mut surf = b"Skin\0\0\0\0".to_vec();
        surf.extend_from_slice(b"COLR\x00\x0E");
        surf.extend_from_slice(&[0; 14]);
        let mut imap = b"\x80\0".to_vec();
        imap.extend_from_slice(b"CHAN\x00\x04COLR");
        let mut blok = b"IMAP".to_vec();
        blok.extend_from_slice(&(imap.len() as u16).to_be_bytes());
        blok.extend_from_slice(&imap);
        blok.extend_from_slice(b"TMAP\x00\x06SIZE\x00\x00");
        surf.extend_from_slice(b"BLOK");
        surf.extend_from_slice(&(blok.len() as u16).to_be_bytes());
        surf.extend_from_slice(&blok);
        let tree = read_iff_tree(&form(b"LWO2", &chunk(b"SURF", &surf))).unwrap();
        let surf = &tree.roots[0].children[0];
        assert_eq!(surf.prefix_len, 8);
        let ids: Vec<String> = surf.children.iter().map(|c| c.id.to_string()).collect();
        assert_eq!(ids, ["COLR", "BLOK"]);
        let blok = &surf.children[1];
        assert_eq!(blok.children[0].id, FourCc::new(b"IMAP"));
        assert_eq!(blok.children[0].children[0].id, FourCc::new(b"CHAN"));
        assert_eq!(blok.children[1].children[0].id, FourCc::new(b"SIZE"));
    }

    #[test]
    fn not_an_iff_file() {
        let err = read_iff_tree(b"RIFF\0\0\0\0WAVE").unwrap_err();
        assert!(matches!(err.kind, ErrorKind::BadMagic { .. }));
    }

    #[test]
    fn every_prefix_of_a_file_is_an_error_not_a_panic() {
        let mut body = chunk(b"PNTS", &[0; 24]);
        body.extend(chunk(b"SURF", b"A\0\0\0COLR\x00\x02ab"));
        let file = form(b"LWO2", &body);
        for n in 0..file.len() {
            assert!(read_iff_tree(&file[..n]).is_err(), "prefix {n}");
        }
        assert!(read_iff_tree(&file).is_ok());
    }
}
