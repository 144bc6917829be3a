//! Chunk paths (`FORM/POLS[1]`) and their numbering among siblings, finding a chunk by its path, and
//! the nested form `--info --json` serialises. Its own file, as paths are made only for messages and
//! the inspector, never by the walk itself.

use std::collections::HashMap;

use super::tree::{ChunkId, ChunkNode, ChunkRef, ChunkTree};
use crate::formats::fourcc::FourCc;

/// Per parent (`None`: the top level), each child's number among the earlier siblings of its segment,
/// as far as it has been asked for, and the counts per segment so far: a path is made in time linear in
/// its depth however many siblings its chunks have (a damaged file with a million sub-chunks that each
/// give a warning must not cost a million squared). A parent's entry is dropped when a grammar changes
/// one of its children (a display name changes a segment); children added later extend it.
#[derive(Debug, Default)]
pub(super) struct SiblingNumbers(pub(super) std::sync::Mutex<HashMap<Option<ChunkId>, SiblingNumbering>>);

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
    pub(super) fn paths_of(
        &self,
        ids: impl Iterator<Item = ChunkId>,
        parent_path: &str,
    ) -> Vec<(String, ChunkRef<'_>)> {
        let mut counts = HashMap::new();
        ids.map(|id| (child_path_of(parent_path, self.node(id), &mut counts), self.chunk(id))).collect()
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
                children: NestedChunks {
                    tree: self.tree,
                    file: self.file,
                    first: node.first_child,
                    fields: self.fields,
                },
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
