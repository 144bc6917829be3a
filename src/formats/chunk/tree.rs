//! The tree arena: [`ChunkTree`] holding every [`ChunkNode`] in one `Vec`, named by [`ChunkId`], with
//! its queries and the [`ChunkRef`] handle parsers walk with. Its own file, as it is the structure the
//! paths and the walkers both build on.

use std::borrow::Cow;
use std::ops::{Deref, Range};

use super::paths::SiblingNumbers;
use crate::formats::error::Warning;
use crate::formats::fourcc::FourCc;
use crate::formats::reader::Reader;

/// A node of one [`ChunkTree`]: its index in the tree's arena. Only meaningful with the tree it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ChunkId(u32);

impl ChunkId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

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
    /// meaning its parent gives are decoded when asked: [`crate::formats::chunk_fields`].)
    pub display: Option<Cow<'static, str>>,
    /// Set by the tree when the node is added: the structure is the walker's, never a grammar's.
    pub(super) parent: Option<ChunkId>,
    /// The children are linked (first, last, each to the next), not listed: adding a chunk then
    /// allocates nothing, where a list per container, grown child by child, was most of the
    /// allocations of reading a file of many surfaces.
    pub(super) first_child: Option<ChunkId>,
    pub(super) last_child: Option<ChunkId>,
    /// The next chunk of the same parent (or the next top-level chunk).
    pub(super) next_sibling: Option<ChunkId>,
    pub(super) child_count: u32,
    /// Its index among its siblings.
    pub(super) place: u32,
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
    pub fn body<'a>(&self, file: &'a [u8], endian: crate::formats::reader::Endian) -> Reader<'a> {
        let data = self.data(file);
        let start = self.prefix_len.min(data.len());
        Reader::new(&data[start..], self.data_offset() + start, endian)
    }

    /// A reader over the whole data, prefix included.
    pub fn reader<'a>(&self, file: &'a [u8], endian: crate::formats::reader::Endian) -> Reader<'a> {
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
    pub(super) nodes: Vec<ChunkNode>,
    pub(super) roots: Vec<ChunkId>,
    pub warnings: Vec<Warning>,
    pub(super) numbers: SiblingNumbers,
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

    /// The deepest chunk whose data holds byte `offset`.
    pub fn deepest_at(&self, offset: usize) -> Option<ChunkId> {
        // Depth-first order puts a chunk's descendants after it, and chunks that hold the same byte
        // are nested: the last hit is the deepest.
        self.ids().rev().find(|&id| self.node(id).data_range().contains(&offset))
    }

    /// Adds `node` as the last child of `parent` (or as the last top-level chunk). Inlined, so that the
    /// node is written once, in its place: passed to a call, it was written by the caller and read back
    /// here in wider pieces, a read that waited for those writes to reach the cache (over a third of
    /// this function's time on an LWO3 file of two thousand chunks).
    #[inline(always)]
    pub(super) fn push(&mut self, parent: Option<ChunkId>, node: ChunkNode) -> ChunkId {
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
