//! The chunk layer shared by both formats: a walk of the file into a tree of `{id, offset, length,
//! children}` nodes. Lengths are checked against their parent here, once, so every parser that builds on
//! the tree can slice chunk data without re-checking, and the inspector can show a file even when a
//! later parse step rejects it. The walkers know no format: each IFF-based one brings an [`IffGrammar`]
//! that says which chunks hold others (LightWave's is in `lwo::chunks`), and a little-endian chunk
//! format a rule for its containers (WMO's is in `wmo::chunks`). A walk that breaks keeps what it read.
//!
//! The tree is an arena: nodes live in one `Vec` and refer to each other by [`ChunkId`], so a model
//! item can name the chunk it came from with a copyable index instead of a path to search for.
//!
//! The arena and its queries are in `tree`, chunk paths and the serialised nesting in `paths`, the
//! walkers that build a tree from a file in `walk`; everything public is re-exported here, so every
//! item is still named `chunk::X`.

mod paths;
mod tree;
mod walk;

pub use paths::NestedChunks;
pub use tree::{ChildIds, ChunkId, ChunkNode, ChunkRef, ChunkTree};
pub use walk::{
    IffGrammar, LengthWidth, Nesting, read_iff_tree_partial_with, read_iff_tree_with, read_in_order_chunks_partial,
    read_le_chunks_partial,
};

use super::fourcc::FourCc;

/// Chunk nesting deeper than this is refused, so a hostile file cannot exhaust the stack.
pub const MAX_DEPTH: usize = 32;

pub const FORM: FourCc = FourCc::new(b"FORM");

/// Kept where the callers of the old walkers import them from; each format's grammar lives in its module.
pub use super::lwo::read_iff_tree;
pub use super::wmo::chunks::read_wmo_tree;

/// A decoded value of a chunk, by name (`name`, `index`, `values` …; the grammar's own words):
/// [`super::chunk_fields`].
pub type Field = (&'static str, String);

#[cfg(test)]
mod tests;
