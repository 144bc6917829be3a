//! [`PolygonsReadAhead`]: a large POLS read on a helper thread while the chunks before it are read.
//! Its own file, as it is the one part of the parse that runs beside the rest.

use crate::formats::chunk::{ChunkId, ChunkRef};
use crate::formats::lwo::model::*;

use super::polygons::{PolygonsRead, read_lwo2_polygons};

#[cfg(test)]
thread_local! {
    /// How many read-aheads the builders on this thread have taken, so tests can tell taking one from
    /// reading the chunk again.
    pub(in crate::formats::lwo) static READ_AHEADS_TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A POLS chunk (LWO2, LWO3) read apart from the object, into columns of its own, against the point
/// count its layer is expected to have when the chunk is reached: how [`crate::formats::lwo::parse_tree`] reads a
/// large one on a helper thread while the points and maps before it are read. The builder takes it
/// only if the layer then has that count and no polygons yet, and otherwise reads the chunk itself.
pub(in crate::formats::lwo) struct PolygonsReadAhead {
    pub(super) chunk: ChunkId,
    pub(super) point_count: u32,
    pub(super) polygons: Polygons,
    pub(super) surface_refs: NarrowColumn,
    pub(super) read: PolygonsRead,
}

impl PolygonsReadAhead {
    /// POLS chunks smaller than this are read in turn: a thread costs more than it saves.
    pub const MIN_BYTES: usize = 1 << 20;

    pub fn read(file: &[u8], node: ChunkRef<'_>, point_count: u32) -> Self {
        let (mut polygons, mut surface_refs) = (Polygons::default(), NarrowColumn::default());
        let mut r = node.reader(file, crate::formats::reader::Endian::Big);
        let read = read_lwo2_polygons(&mut r, node.chunk, point_count, &mut polygons, &mut surface_refs);
        Self { chunk: node.chunk, point_count, polygons, surface_refs, read }
    }

    /// The largest POLS of a LWO2/LWO3 `form` worth reading ahead, with the point count its layer will
    /// have when it is reached if the file reads as it should: its layer's last PNTS. Only a layer's
    /// first POLS (or CRVS) qualifies: the builder takes a read-ahead only into a layer without polygons.
    pub fn candidate<'t>(form: ChunkRef<'t>) -> Option<(ChunkRef<'t>, u32)> {
        let (mut point_count, mut layer_has_polygons) = (0usize, false);
        let mut best: Option<(ChunkRef<'t>, u32)> = None;
        for node in form.children() {
            match &node.id.0 {
                b"LAYR" => (point_count, layer_has_polygons) = (0, false),
                b"PNTS" => point_count = node.length / 12,
                b"POLS" | b"CRVS" => {
                    let first = !std::mem::replace(&mut layer_has_polygons, true);
                    if first
                        && node.id.0 == *b"POLS"
                        && node.length >= Self::MIN_BYTES
                        && best.is_none_or(|(b, _)| node.length > b.length)
                    {
                        best = u32::try_from(point_count).ok().map(|count| (node, count));
                    }
                }
                _ => {}
            }
        }
        best
    }
}
