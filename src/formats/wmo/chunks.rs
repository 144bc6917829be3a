//! WMO's chunk grammar: little-endian chunks with reversed ids, where only MOGP holds others (after
//! its fixed header).

use crate::formats::chunk::{ChunkTree, read_le_chunks_partial};
use crate::formats::error::{ParseError, Result};
use crate::formats::fourcc::FourCc;

use super::group::MOGP_HEADER_SIZE;

fn container(id: FourCc) -> Option<usize> {
    (id == FourCc::new(b"MOGP")).then_some(MOGP_HEADER_SIZE)
}

/// Walks a WMO file (root or group) into its chunk tree.
pub fn read_wmo_tree(bytes: &[u8]) -> Result<ChunkTree> {
    match read_wmo_tree_partial(bytes) {
        (tree, None) => Ok(tree),
        (_, Some(error)) => Err(error),
    }
}

/// The chunks up to the first that cannot be read, and the error there.
pub fn read_wmo_tree_partial(bytes: &[u8]) -> (ChunkTree, Option<ParseError>) {
    read_le_chunks_partial(bytes, &container)
}
