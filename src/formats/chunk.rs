//! The chunk layer shared by both formats: a walk of the file into a tree of `{id, offset, length,
//! children}` nodes. Lengths are checked against their parent here, once, so every parser that builds on
//! the tree can slice chunk data without re-checking, and the inspector can show a file even when a
//! later parse step rejects it. The walkers know no format: each IFF-based one brings an [`IffGrammar`]
//! that says which chunks hold others (LightWave's is in `lwo::chunks`), and a little-endian chunk
//! format a rule for its containers (WMO's is in `wmo::chunks`). A walk that breaks keeps what it read.
//!
//! The tree is an arena: nodes live in one `Vec` and refer to each other by [`ChunkId`], so a model
//! item can name the chunk it came from with a copyable index instead of a path to search for.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::{Deref, Range};

use super::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use super::fourcc::FourCc;
use super::reader::Reader;

/// Chunk nesting deeper than this is refused, so a hostile file cannot exhaust the stack.
pub const MAX_DEPTH: usize = 32;

pub const FORM: FourCc = FourCc::new(b"FORM");

/// Kept where the callers of the old walkers import them from; each format's grammar lives in its module.
pub use super::lwo::read_iff_tree;
pub use super::wmo::chunks::read_wmo_tree;

/// A node of one [`ChunkTree`]: its index in the tree's arena. Only meaningful with the tree it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ChunkId(u32);

impl ChunkId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A decoded value of a chunk, by name (`name`, `index`, `values` …; the grammar's own words):
/// [`super::chunk_fields`].
pub type Field = (&'static str, String);

/// One chunk of a [`ChunkTree`]: where it is in the file and what the grammar made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkNode {
    pub id: FourCc,
    /// The type of an IFF `FORM` (`LWO2`, or `SURF` for an LWO3 nested form).
    pub form_type: Option<FourCc>,
    /// Offset of the id in the file.
    pub offset: usize,
    /// Bytes of id plus length field: 8 for chunks, 6 for LightWave sub-chunks.
    pub header_len: usize,
    /// The stored data length (an odd IFF length is followed by a pad byte not counted here).
    pub length: usize,
    /// Data bytes before the first child: a form type, SURF names, the MOGP header.
    pub prefix_len: usize,
    /// What the node is called in paths and trees when its id alone does not say it (`FORM SURF "Right"`,
    /// `(fields)` for an anonymous chunk); set by the format's grammar. (The values of a chunk whose
    /// meaning its parent gives are decoded when asked: [`super::chunk_fields`].)
    pub display: Option<Cow<'static, str>>,
    /// Set by the tree when the node is added: the structure is the walker's, never a grammar's.
    parent: Option<ChunkId>,
    /// The children are linked (first, last, each to the next), not listed: adding a chunk then
    /// allocates nothing, where a list per container, grown child by child, was most of the
    /// allocations of reading a file of many surfaces.
    first_child: Option<ChunkId>,
    last_child: Option<ChunkId>,
    /// The next chunk of the same parent (or the next top-level chunk).
    next_sibling: Option<ChunkId>,
    child_count: u32,
    /// Its index among its siblings.
    place: u32,
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
            parent: None,
            first_child: None,
            last_child: None,
            next_sibling: None,
            child_count: 0,
            place: 0,
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
            return display.to_string();
        }
        match self.form_type {
            Some(t) => format!("{} {}", self.id, t),
            None => self.id.to_string(),
        }
    }

    /// The node's part of a path: the display name where the grammar gave one, else the id.
    pub fn segment(&self) -> String {
        self.display.as_deref().map_or_else(|| self.id.to_string(), str::to_owned)
    }

    /// What the node is, for nesting rules: a form's type, else its id.
    pub fn kind(&self) -> FourCc {
        self.form_type.unwrap_or(self.id)
    }

    /// Whether this is a FORM of the given type.
    pub fn is_form(&self, form_type: &[u8; 4]) -> bool {
        self.form_type.is_some_and(|t| t.0 == *form_type)
    }
}

/// A walked file: its chunks and anything odd found on the way.
///
/// Nodes are stored in depth-first order (a parent before its children, siblings in file order), as
/// the walkers meet them, so iterating the arena is the depth-first walk of the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkTree {
    nodes: Vec<ChunkNode>,
    roots: Vec<ChunkId>,
    pub warnings: Vec<Warning>,
    numbers: SiblingNumbers,
}

/// Per parent (`None`: the top level), each child's number among the earlier siblings of its segment,
/// as far as it has been asked for, and the counts per segment so far: a path is made in time linear in
/// its depth however many siblings its chunks have (a damaged file with a million sub-chunks that each
/// give a warning must not cost a million squared). A parent's entry is dropped when a grammar changes
/// one of its children (a display name changes a segment); children added later extend it.
#[derive(Debug, Default)]
struct SiblingNumbers(std::sync::Mutex<HashMap<Option<ChunkId>, SiblingNumbering>>);

/// One parent's numbering so far: each child's number among the earlier siblings of its segment, the
/// count per segment, and the last child numbered.
type SiblingNumbering = (Vec<u32>, HashMap<String, u32>, Option<ChunkId>);

impl Clone for SiblingNumbers {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for SiblingNumbers {
    /// A cache: never part of what a tree is.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl ChunkTree {
    /// An empty tree with room for the nodes a file of `bytes` bytes usually has: a chunk of a small file
    /// is a few dozen bytes, and growing the node column from empty copied it five times in a 1 KB
    /// file's load. Large files hold large chunks, so the room stops at a few hundred nodes.
    pub fn for_file_of(bytes: usize) -> Self {
        let room = (bytes / 32).clamp(8, 512);
        Self { nodes: Vec::with_capacity(room), ..Self::default() }
    }

    /// The top-level chunks: `MVER`, `MOHD`, … for WMO, the one `FORM` for IFF.
    pub fn roots(&self) -> &[ChunkId] {
        &self.roots
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// How many chunks the tree holds, at every depth.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The node `id` names. Panics for an id of another tree that this one is too small for.
    pub fn node(&self, id: ChunkId) -> &ChunkNode {
        &self.nodes[id.index()]
    }

    /// The node with the tree around it, to walk from.
    pub fn chunk(&self, id: ChunkId) -> ChunkRef<'_> {
        ChunkRef { tree: self, chunk: id }
    }

    /// A node's fields for a grammar to fill in (names, decoded values); its place in the tree stays.
    pub fn node_mut(&mut self, id: ChunkId) -> &mut ChunkNode {
        let numbers = self.numbers.0.get_mut().unwrap_or_else(|e| e.into_inner());
        // Most trees never make a path: the cache is empty, and hashing the parent for every node a
        // grammar names was a tenth of reading a small file. The parent is read only when it is not:
        // read at once, from a node the walker had just added, it waited for the node's writes to
        // reach the cache (the load spans two of them), half of this function's time on an LWO3 file.
        if !numbers.is_empty() {
            let parent = self.nodes[id.index()].parent;
            numbers.remove(&parent);
        }
        &mut self.nodes[id.index()]
    }

    /// A chunk's first child, to walk its children while changing them (with [`Self::next_sibling`]).
    pub fn first_child(&self, id: ChunkId) -> Option<ChunkId> {
        self.node(id).first_child
    }

    /// The chunk after this one under the same parent.
    pub fn next_sibling(&self, id: ChunkId) -> Option<ChunkId> {
        self.node(id).next_sibling
    }

    /// A chunk's children, in file order.
    pub fn children(&self, id: ChunkId) -> ChildIds<'_> {
        let node = self.node(id);
        ChildIds { tree: self, next: node.first_child, left: node.child_count as usize }
    }

    pub fn parent(&self, id: ChunkId) -> Option<ChunkId> {
        self.node(id).parent
    }

    /// Every chunk, depth-first in file order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = ChunkId> + ExactSizeIterator + '_ {
        (0..self.nodes.len() as u32).map(ChunkId)
    }

    /// The top-level chunks, to walk from.
    pub fn root_chunks(&self) -> impl ExactSizeIterator<Item = ChunkRef<'_>> + '_ {
        self.roots.iter().map(|&id| self.chunk(id))
    }

    /// The top-level chunks with their paths (`MOHD`, `MOMT`, or `FORM` for IFF).
    pub fn root_paths(&self) -> Vec<(String, ChunkRef<'_>)> {
        self.paths_of(self.roots.iter().copied(), "")
    }

    /// Every chunk with its path, depth-first in file order.
    pub fn paths(&self) -> Vec<(String, ChunkId)> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut pending: Vec<(String, ChunkRef<'_>)> = self.root_paths().into_iter().rev().collect();
        while let Some((path, chunk)) = pending.pop() {
            pending.extend(chunk.child_paths(&path).into_iter().rev());
            out.push((path, chunk.chunk));
        }
        out
    }

    /// A chunk's path, as [`paths`](Self::paths) gives it: `FORM/POLS[1]`, `MOGP/MOPY`,
    /// `FORM LWO3/FORM SURF "Right"/…`.
    pub fn path(&self, id: ChunkId) -> String {
        let mut segments = Vec::new();
        let mut at = Some(id);
        let mut numbers = self.numbers.0.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(id) = at {
            let node = self.node(id);
            let first = match node.parent {
                Some(parent) => self.node(parent).first_child,
                None => self.roots.first().copied(),
            };
            let (numbered, counts, last) = numbers.entry(node.parent).or_default();
            // The siblings are numbered in order from where the last path left off (the next one read
            // from the tree, which may have grown since).
            while numbered.len() <= node.place as usize {
                let next = match *last {
                    Some(last) => self.node(last).next_sibling,
                    None => first,
                };
                let Some(sibling) = next else { break };
                let count = counts.entry(self.node(sibling).segment()).or_insert(0);
                numbered.push(*count);
                *count += 1;
                *last = Some(sibling);
            }
            segments.push((node.segment(), numbered.get(node.place as usize).copied().unwrap_or(0) as usize));
            at = node.parent;
        }
        segments.iter().rev().fold(String::new(), |path, (segment, index)| join_path(&path, segment, *index))
    }

    /// The chunk at `path` (as [`path`](Self::path) writes it).
    pub fn find_path(&self, path: &str) -> Option<ChunkId> {
        self.paths().into_iter().find_map(|(p, id)| (p == path).then_some(id))
    }

    /// The deepest chunk whose data holds byte `offset`.
    pub fn deepest_at(&self, offset: usize) -> Option<ChunkId> {
        // Depth-first order puts a chunk's descendants after it, and chunks that hold the same byte
        // are nested: the last hit is the deepest.
        self.ids().rev().find(|&id| self.node(id).data_range().contains(&offset))
    }

    /// The chunks nested as the file nests them, for serialising (`--info --json`): each node with the
    /// fields `fields` decodes for it (from `file`, the bytes the tree was read from; see
    /// `Document::chunk_fields`) and its `children` inline.
    pub fn nested<'t, F: Fn(ChunkId) -> Vec<(String, String)> + Copy>(
        &'t self,
        file: &'t [u8],
        fields: F,
    ) -> NestedChunks<'t, F> {
        NestedChunks { tree: self, file, first: self.roots.first().copied(), fields }
    }

    /// `ids` with their paths under `parent_path`, numbered among themselves.
    fn paths_of(&self, ids: impl Iterator<Item = ChunkId>, parent_path: &str) -> Vec<(String, ChunkRef<'_>)> {
        let mut counts = HashMap::new();
        ids.map(|id| (child_path_of(parent_path, self.node(id), &mut counts), self.chunk(id))).collect()
    }

    /// Adds `node` as the last child of `parent` (or as the last top-level chunk). Inlined, so that the
    /// node is written once, in its place: passed to a call, it was written by the caller and read back
    /// here in wider pieces, a read that waited for those writes to reach the cache (over a third of
    /// this function's time on an LWO3 file of two thousand chunks).
    #[inline(always)]
    fn push(&mut self, parent: Option<ChunkId>, node: ChunkNode) -> ChunkId {
        let id = ChunkId(u32::try_from(self.nodes.len()).expect("a chunk tree is bounded by its file's size"));
        let (place, previous) = match parent {
            Some(parent) => {
                let parent = &self.nodes[parent.index()];
                (parent.child_count, parent.last_child)
            }
            None => (self.roots.len() as u32, self.roots.last().copied()),
        };
        self.nodes.push(ChunkNode {
            parent,
            place,
            first_child: None,
            last_child: None,
            next_sibling: None,
            child_count: 0,
            ..node
        });
        if let Some(previous) = previous {
            self.nodes[previous.index()].next_sibling = Some(id);
        }
        match parent {
            Some(parent) => {
                let parent = &mut self.nodes[parent.index()];
                parent.first_child.get_or_insert(id);
                parent.last_child = Some(id);
                parent.child_count += 1;
            }
            None => self.roots.push(id),
        }
        id
    }
}

/// A chunk's children, in file order ([`ChunkTree::children`]).
#[derive(Clone, Debug)]
pub struct ChildIds<'t> {
    tree: &'t ChunkTree,
    next: Option<ChunkId>,
    left: usize,
}

impl Iterator for ChildIds<'_> {
    type Item = ChunkId;

    fn next(&mut self) -> Option<ChunkId> {
        let id = self.next?;
        self.next = self.tree.node(id).next_sibling;
        self.left -= 1;
        Some(id)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for ChildIds<'_> {}

/// A node together with its tree: what a parser walking a part of the file holds. It reads as the
/// node ([`Deref`]) and walks to its children.
#[derive(Clone, Copy, Debug)]
pub struct ChunkRef<'t> {
    pub tree: &'t ChunkTree,
    pub chunk: ChunkId,
}

impl<'t> ChunkRef<'t> {
    /// The node, borrowed for as long as the tree (what it derefs to lives only as long as this handle).
    pub fn node(self) -> &'t ChunkNode {
        self.tree.node(self.chunk)
    }

    pub fn children(self) -> impl ExactSizeIterator<Item = ChunkRef<'t>> + Clone + 't {
        let tree = self.tree;
        tree.children(self.chunk).map(move |id| tree.chunk(id))
    }

    pub fn first_child(self) -> Option<ChunkRef<'t>> {
        self.children().next()
    }

    pub fn has_children(self) -> bool {
        self.node().first_child.is_some()
    }

    /// The node's path in its tree ([`ChunkTree::path`]), made when asked: readers name a chunk in an
    /// error or a warning, and most chunks never need one.
    pub fn path(self) -> String {
        self.tree.path(self.chunk)
    }

    /// The children with their paths under `path` (this node's own path).
    pub fn child_paths(self, path: &str) -> Vec<(String, ChunkRef<'t>)> {
        self.tree.paths_of(self.tree.children(self.chunk), path)
    }
}

impl Deref for ChunkRef<'_> {
    type Target = ChunkNode;

    fn deref(&self) -> &ChunkNode {
        self.tree.node(self.chunk)
    }
}

/// The serialised form of a list of chunks: each one's fields, then its `children` the same way.
pub struct NestedChunks<'t, F> {
    tree: &'t ChunkTree,
    file: &'t [u8],
    /// The first chunk of the level; the others follow it.
    first: Option<ChunkId>,
    /// Each chunk's decoded fields.
    fields: F,
}

/// One chunk as `--info --json` shows it; the field names and omissions are that output's.
#[derive(serde::Serialize)]
#[serde(bound = "")]
struct NestedChunk<'t, F: Fn(ChunkId) -> Vec<(String, String)> + Copy> {
    id: FourCc,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    form_type: Option<FourCc>,
    offset: usize,
    length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    display: Option<&'t str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fields: Vec<(String, String)>,
    #[serde(skip_serializing_if = "NestedChunks::is_empty")]
    children: NestedChunks<'t, F>,
}

impl<F> NestedChunks<'_, F> {
    fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

impl<F: Fn(ChunkId) -> Vec<(String, String)> + Copy> serde::Serialize for NestedChunks<'_, F> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let level = std::iter::successors(self.first, |&id| self.tree.node(id).next_sibling);
        serializer.collect_seq(level.map(|id| {
            let node = self.tree.node(id);
            NestedChunk {
                id: node.id,
                form_type: node.form_type,
                offset: node.offset,
                length: node.length,
                display: node.display.as_deref(),
                fields: (self.fields)(id),
                children: NestedChunks { tree: self.tree, file: self.file, first: node.first_child, fields: self.fields },
            }
        }))
    }
}

/// `parent/segment` with the node's display name where it has one (`FORM SURF "Right"`), numbered
/// from the second sibling of the same segment on, so paths stay short for the common single chunk
/// and stay unique for repeated ones.
fn child_path_of(parent: &str, node: &ChunkNode, counts: &mut HashMap<String, usize>) -> String {
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
    /// FORM's starts with its type: the grammar sets `node.form_type`). The grammar may also name the
    /// node here (`display`), from what the node is alone.
    fn nesting(
        &self,
        ancestors: &[FourCc],
        index: usize,
        node: &mut ChunkNode,
        data: Reader<'_>,
    ) -> Result<Option<Nesting>>;

    /// Called when a container's first child has been read and again when all have: name the node
    /// (`display`), from its children where need be. The default names nothing.
    fn describe(&self, _ancestors: &[FourCc], _tree: &mut ChunkTree, _node: ChunkId, _file: &[u8]) {}

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
        return Err(
            ParseError::invalid(4, format!("FORM length {length} leaves no room for the form type")).within("FORM")
        );
    }
    if length > r.remaining() {
        return Err(ParseError::new(
            4,
            ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() },
        )
        .within("FORM"));
    }
    let form_type = r.fourcc()?;
    let mut body = r.sub(length - 4)?;
    let mut walk =
        IffWalk { grammar, file: bytes, tree: ChunkTree::for_file_of(bytes.len()), ancestors: vec![form_type] };
    let root = walk
        .tree
        .push(None, ChunkNode { form_type: Some(form_type), prefix_len: 4, ..ChunkNode::leaf(id, 0, 8, length) });
    grammar.describe(&[], &mut walk.tree, root, bytes);
    let read = walk.read_children(&mut body, root, LengthWidth::U4, 1);
    let mut tree = walk.tree;
    if let Err(error) = read {
        return Ok((tree, Some(error)));
    }
    let trailing = r.remaining();
    if trailing > 1 {
        tree.warnings.push(Warning::new(
            "",
            8 + length,
            format!("{trailing} bytes after the end of the FORM are ignored"),
        ));
    }
    Ok((tree, None))
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

fn check_depth(depth: usize, offset: usize) -> Result<()> {
    if depth > MAX_DEPTH { Err(ParseError::new(offset, ErrorKind::TooDeep(MAX_DEPTH))) } else { Ok(()) }
}

/// Reads one chunk header: its id and its length, checked against the bytes left after it; `r` is
/// left at the data (the caller takes it and an odd length's pad byte: [`skip_data`]). An error has
/// no path yet: the walker names the chunk (or its parent, for a header cut short). The data's reader
/// is not returned in the `Result`: moved through it, on the stack, the reader was read back in wider
/// pieces than its fields had been written, and each such read waited for the writes to reach the
/// cache (no store forwards to a load that spans several stores), a third of the walker's own time on
/// an LWO3 file of two thousand chunks.
#[inline(always)]
fn read_header(r: &mut Reader<'_>, width: LengthWidth) -> Result<(FourCc, usize)> {
    let header_len = width.header_len();
    if r.remaining() < header_len {
        return Err(r.truncated(header_len));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = match width {
        LengthWidth::U4 => r.u32()? as usize,
        LengthWidth::U2 => usize::from(r.u16()?),
    };
    if length > r.remaining() {
        return Err(ParseError::new(
            length_offset,
            ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() },
        ));
    }
    Ok((id, length))
}

/// The data of the chunk whose header [`read_header`] just read (`length` bytes, checked there), with
/// `r` moved past it and past the pad byte of an odd length.
#[inline(always)]
fn skip_data<'a>(r: &mut Reader<'a>, length: usize) -> Reader<'a> {
    let data = r.split_front(length);
    if length % 2 == 1 && !r.is_empty() {
        r.split_front(1);
    }
    data
}

struct IffWalk<'g, 'f> {
    grammar: &'g dyn IffGrammar,
    file: &'f [u8],
    /// The tree being read, its warnings included.
    tree: ChunkTree,
    /// Kinds of the containers above the chunks being read, the root's form type first.
    ancestors: Vec<FourCc>,
}

impl IffWalk<'_, '_> {
    /// Reads `r` to its end as `parent`'s children. Every chunk whose header was read is in the tree
    /// before its data is, so a break keeps it with what it held up to there. Paths are made from the
    /// tree only for an error or a warning (a file's thousands of chunks would otherwise each format
    /// one), so they name a container as the grammar has named it by then.
    fn read_children(&mut self, r: &mut Reader<'_>, parent: ChunkId, width: LengthWidth, depth: usize) -> Result<()> {
        let header_len = width.header_len();
        while !r.is_empty() {
            if r.remaining() < header_len && r.clone().rest().iter().all(|&b| b == 0) {
                if width == LengthWidth::U4 {
                    self.tree.warnings.push(Warning::new(
                        self.tree.path(parent),
                        r.offset(),
                        format!("{} zero bytes of padding at the end", r.remaining()),
                    ));
                }
                r.rest();
                break;
            }
            let offset = r.offset();
            let before = r.clone();
            let (id, length) = match read_header(r, width) {
                Ok(header) => header,
                Err(error) => {
                    // A header that was read names its chunk, kept as far as it goes; one cut short
                    // names the parent.
                    let at = match clipped_node(&before, header_len) {
                        Some(clipped) => self.tree.push(Some(parent), clipped),
                        None => parent,
                    };
                    return Err(error.within(&self.tree.path(at)));
                }
            };
            let mut data = skip_data(r, length);
            let place = self.tree.node(parent).child_count as usize;
            let node = self.tree.push(Some(parent), ChunkNode::leaf(id, offset, header_len, length));
            // Too deep is never kept as a warning: the walk must end.
            check_depth(depth, offset).map_err(|error| error.within(&self.tree.path(node)))?;
            // Plain matches, not a chain of closures over `Result`s: the chain moved the body's reader
            // through temporaries in pieces narrower than it was read back, and each such read waited
            // for the writes to reach the cache (no store forwards to a load it only partly covers).
            let nesting = self.grammar.nesting(&self.ancestors, place, self.tree.node_mut(node), data.clone());
            let body = nesting.and_then(|nesting| match nesting {
                Some(Nesting { prefix_len, children }) => data.skip(prefix_len).map(|()| Some((prefix_len, children))),
                None => Ok(None),
            });
            let read = match body {
                Err(error) => Err(error.within(&self.tree.path(node))),
                Ok(None) => Ok(()),
                Ok(Some((prefix_len, width))) => {
                    let container = self.tree.node_mut(node);
                    container.prefix_len = prefix_len;
                    self.ancestors.push(container.kind());
                    let read = self.read_children(&mut data, node, width, depth + 1);
                    self.ancestors.pop();
                    read
                }
            };
            if let Err(error) = read {
                if !self.grammar.optional(&self.ancestors, self.tree.node(node)) {
                    return Err(error);
                }
                let message = format!("{}; the chunk is kept as far as it could be read", error.kind);
                self.tree.warnings.push(Warning::new(error.path, error.offset, message));
            }
            if place == 0 {
                self.describe(parent);
            }
        }
        self.describe(parent);
        Ok(())
    }

    fn describe(&mut self, node: ChunkId) {
        let ancestors = &self.ancestors[..self.ancestors.len().saturating_sub(1)];
        self.grammar.describe(ancestors, &mut self.tree, node, self.file);
    }
}

/// Walks a file of little-endian chunks (id, u32 length, data), as WMO is, to its end or to the first
/// chunk that cannot be read: the chunks read so far are kept either way. `container` tells, for a
/// chunk id, how many header bytes precede its sub-chunks when it holds any (the format's grammar).
pub fn read_le_chunks_partial(
    bytes: &[u8],
    container: &dyn Fn(FourCc) -> Option<usize>,
) -> (ChunkTree, Option<ParseError>) {
    let mut r = Reader::little(bytes, 0);
    let mut tree = ChunkTree::default();
    let error = read_le_chunks(&mut r, None, 1, container, &mut tree).err();
    (tree, error)
}

/// As [`IffWalk::read_children`], paths are made from the tree only for an error.
fn read_le_chunks(
    r: &mut Reader<'_>,
    parent: Option<ChunkId>,
    depth: usize,
    container: &dyn Fn(FourCc) -> Option<usize>,
    tree: &mut ChunkTree,
) -> Result<()> {
    while !r.is_empty() {
        let offset = r.offset();
        let before = r.clone();
        let (id, length, mut data) = match read_le_header(r) {
            Ok(header) => header,
            Err(error) => {
                let at = match clipped_node(&before, 8) {
                    Some(clipped) => Some(tree.push(parent, clipped)),
                    None => parent,
                };
                let path = at.map_or_else(|| "(chunk header)".to_owned(), |at| tree.path(at));
                return Err(error.within(&path));
            }
        };
        let node = tree.push(parent, ChunkNode::leaf(id, offset, 8, length));
        let nested = check_depth(depth, offset).and_then(|()| match container(id) {
            Some(prefix) => data.skip(prefix).map(|()| Some(prefix)),
            None => Ok(None),
        });
        let Some(prefix) = nested.map_err(|error| error.within(&tree.path(node)))? else { continue };
        tree.node_mut(node).prefix_len = prefix;
        read_le_chunks(&mut data, Some(node), depth + 1, container, tree)?;
    }
    Ok(())
}

fn read_le_header<'a>(r: &mut Reader<'a>) -> Result<(FourCc, usize, Reader<'a>)> {
    if r.remaining() < 8 {
        return Err(r.truncated(8));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = r.u32()? as usize;
    if length > r.remaining() {
        return Err(ParseError::new(
            length_offset,
            ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() },
        ));
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
        let kids: Vec<&ChunkNode> = tree.children(tree.roots()[0]).map(|id| tree.node(id)).collect();
        assert_eq!(kids.len(), 2);
        assert_eq!((kids[0].offset, kids[0].length), (12, 3));
        assert_eq!((kids[1].id, kids[1].offset), (FourCc::new(b"TEXT"), 24));
    }

    #[test]
    fn a_chunks_path_is_its_place_in_the_listing_of_every_path() {
        // Many siblings of a few ids, in an order that interleaves them, asked in reverse: each path is
        // numbered among the earlier siblings of its id, as the full listing numbers it.
        let mut body = Vec::new();
        for i in 0..20_000u32 {
            let id: &[u8; 4] = [b"PNTS", b"POLS", b"PTAG"][(i % 3) as usize];
            body.extend(chunk(id, &i.to_be_bytes()));
        }
        let tree = read_iff_tree(&form(b"LWO2", &body)).unwrap();
        let listed = tree.paths();
        assert_eq!(listed.len(), 20_001);
        for (path, id) in listed.iter().rev() {
            assert_eq!(&tree.path(*id), path);
        }
        assert_eq!(listed[5].0, "FORM/POLS[1]");
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
        let child = |id: ChunkId, n: usize| tree.children(id).nth(n).expect("the child");
        let surf = child(tree.roots()[0], 0);
        assert_eq!(tree.node(surf).prefix_len, 8);
        let ids: Vec<String> = tree.children(surf).map(|c| tree.node(c).id.to_string()).collect();
        assert_eq!(ids, ["COLR", "BLOK"]);
        let blok = child(surf, 1);
        assert_eq!(tree.node(child(blok, 0)).id, FourCc::new(b"IMAP"));
        assert_eq!(tree.node(child(child(blok, 0), 0)).id, FourCc::new(b"CHAN"));
        assert_eq!(tree.node(child(child(blok, 1), 0)).id, FourCc::new(b"SIZE"));
    }

    /// LWO2 with two surfaces holding a sub-chunk each: repeated ids are numbered in paths.
    fn two_surfaces_file() -> Vec<u8> {
        let mut body = chunk(b"PNTS", &[0; 12]);
        body.extend(chunk(b"SURF", b"A\0B\0COLR\x00\x02ab"));
        body.extend(chunk(b"SURF", b"C\0D\0COLR\x00\x02ab"));
        form(b"LWO2", &body)
    }

    fn two_surfaces() -> ChunkTree {
        read_iff_tree(&two_surfaces_file()).unwrap()
    }

    #[test]
    fn ids_paths_and_parents_agree() {
        let tree = two_surfaces();
        let paths = tree.paths();
        let names: Vec<&str> = paths.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["FORM", "FORM/PNTS", "FORM/SURF", "FORM/SURF/COLR", "FORM/SURF[1]", "FORM/SURF[1]/COLR"]);
        // The arena is the depth-first walk.
        assert_eq!(tree.ids().collect::<Vec<_>>(), paths.iter().map(|&(_, id)| id).collect::<Vec<_>>());
        for (path, id) in &paths {
            assert_eq!(tree.path(*id), *path);
            assert_eq!(tree.find_path(path), Some(*id));
        }
        let (second_surf, colr) = (paths[4].1, paths[5].1);
        assert_eq!(tree.parent(colr), Some(second_surf));
        assert_eq!(tree.children(second_surf).collect::<Vec<_>>(), [colr]);
        assert_eq!(tree.parent(tree.roots()[0]), None);
        assert_eq!(tree.deepest_at(tree.node(colr).data_offset() + 1), Some(colr));
        assert_eq!(tree.deepest_at(tree.node(second_surf).data_offset()), Some(second_surf), "the names before COLR");
        assert_eq!(tree.deepest_at(10_000), None);
    }

    #[test]
    fn the_serialised_tree_nests_children_and_leaves_out_what_is_empty() {
        let file = two_surfaces_file();
        let tree = read_iff_tree(&file).unwrap();
        let fields = |id| super::super::chunk_fields(&tree, id, &file).into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        let json = serde_json::to_value(tree.nested(&file, fields)).unwrap();
        let surf = &json[0]["children"][2];
        assert_eq!(json[0]["type"], "LWO2");
        assert_eq!((&surf["id"], &surf["offset"], &surf["length"]), (&"SURF".into(), &52.into(), &12.into()));
        assert_eq!(surf["children"][0], serde_json::json!({ "id": "COLR", "offset": 64, "length": 2 }));
    }

    #[test]
    fn a_broken_walk_keeps_the_chunk_where_it_broke_under_its_parent() {
        let mut body = chunk(b"PNTS", &[0; 12]);
        body.extend(chunk(b"SURF", b"A\0B\0COLR\x00\x09ab"));
        let (tree, error) = crate::formats::lwo::chunks::read_iff_tree_partial(&form(b"LWO2", &body));
        assert!(error.is_none(), "a surface is optional: kept with a warning");
        let colr = tree.find_path("FORM/SURF/COLR").expect("the clipped COLR");
        assert_eq!(tree.node(colr).length, 2, "cut to the bytes there are");
        assert_eq!(tree.path(tree.parent(colr).unwrap()), "FORM/SURF");
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
