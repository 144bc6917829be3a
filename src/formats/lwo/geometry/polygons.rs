//! The polygon readers: LWO2/LWO3 POLS, with its fast paths for runs of plain quads and triangles
//! read at a fixed stride, and LWOB's POLS (with detail polygons) and CRVS. Their own file, as POLS is
//! the largest chunk of most files and its reader the most tuned code of the parse.

use crate::formats::chunk::{ChunkId, ChunkRef};
use crate::formats::error::{ParseError, Result};
use crate::formats::lwo::model::*;
use crate::formats::reader::{Endian, Reader, vx_at};

use super::ObjectBuilder;
#[cfg(test)]
use super::READ_AHEADS_TAKEN;

/// LWOB detail polygons cannot nest; a file that nests them anyway is refused past this depth.
const MAX_DETAIL_DEPTH: usize = 4;

impl ObjectBuilder {
    pub(super) fn read_polygons(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, chunk: ChunkId) -> Result<()> {
        let layer = self.layer();
        self.pols_start = self.layers[layer].polygons.len();
        if self.kind.is_lightwave5() {
            self.layers[layer].polygons.start_chunk(chunk, RecordLayout::LwobFace);
            return self.read_lwob_polygons(r, at, layer);
        }
        let point_count = self.layers[layer].points.len() as u32;
        // Read ahead against this point count into empty columns, the chunk's polygons are what reading
        // them here into the layer's (still empty) columns makes.
        let unread = self.layers[layer].polygons == Polygons::default() && self.surface_refs[layer].is_empty();
        let ahead =
            self.read_ahead.take().filter(|ahead| ahead.chunk == chunk && ahead.point_count == point_count && unread);
        let read = match ahead {
            Some(ahead) => {
                #[cfg(test)]
                READ_AHEADS_TAKEN.with(|taken| taken.set(taken.get() + 1));
                self.layers[layer].polygons = ahead.polygons;
                self.surface_refs[layer] = ahead.surface_refs;
                ahead.read
            }
            None => read_lwo2_polygons(
                r,
                chunk,
                point_count,
                &mut self.layers[layer].polygons,
                &mut self.surface_refs[layer],
            ),
        };
        // A record cut short fails the chunk, as before; the polygons before it are kept.
        read.outcome?;
        self.report_dropped(
            at,
            read.first_offset,
            read.dropped,
            "polygons refer to points past the end of PNTS and were dropped",
        );
        Ok(())
    }

    fn read_lwob_polygons(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, layer: usize) -> Result<()> {
        let first_offset = r.offset();
        let mut dropped = 0usize;
        let mut index_in_chunk = 0u32;
        while !r.is_empty() {
            self.read_lwob_polygon(r, layer, NONE, 0, &mut dropped, &mut index_in_chunk)?;
        }
        self.report_dropped(
            at,
            first_offset,
            dropped,
            "polygons refer to points past the end of PNTS and were dropped",
        );
        Ok(())
    }

    fn read_lwob_polygon(
        &mut self,
        r: &mut Reader<'_>,
        layer: usize,
        detail_of: u32,
        depth: usize,
        dropped: &mut usize,
        index_in_chunk: &mut u32,
    ) -> Result<()> {
        if depth > MAX_DETAIL_DEPTH {
            return Err(ParseError::invalid(
                r.offset(),
                format!("detail polygons nested deeper than {MAX_DETAIL_DEPTH} levels"),
            ));
        }
        let point_count = self.layers[layer].points.len() as u32;
        let record = Record { offset: r.offset() as u32, index_in_chunk: *index_in_chunk };
        *index_in_chunk += 1;
        let count = usize::from(r.u16()?);
        let mut vertices = Vec::with_capacity(count.min(r.remaining() / 2));
        for _ in 0..count {
            vertices.push(u32::from(r.u16()?));
        }
        let surface = r.i16()?;
        let in_range = vertices.iter().all(|&v| v < point_count);
        let me = self.layers[layer].polygons.len() as u32;
        if in_range {
            self.layers[layer].polygons.push(PolygonKind::Face, 0, &vertices, 0, detail_of, record);
            self.surface_refs[layer].push(u32::from(surface.unsigned_abs()).wrapping_sub(1));
        } else {
            *dropped += 1;
        }
        if surface < 0 {
            let details = r.u16()?;
            let base = if in_range { me } else { NONE };
            for _ in 0..details {
                self.read_lwob_polygon(r, layer, base, depth + 1, dropped, index_in_chunk)?;
            }
        }
        Ok(())
    }

    pub(super) fn read_lwob_curves(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, chunk: ChunkId) -> Result<()> {
        let layer = self.layer();
        self.layers[layer].polygons.start_chunk(chunk, RecordLayout::LwobCurve);
        let point_count = self.layers[layer].points.len() as u32;
        let first_offset = r.offset();
        let mut dropped = 0;
        let mut index_in_chunk = 0u32;
        while !r.is_empty() {
            let record = Record { offset: r.offset() as u32, index_in_chunk };
            index_in_chunk += 1;
            let count = usize::from(r.u16()?);
            let mut vertices = Vec::with_capacity(count.min(r.remaining() / 2));
            for _ in 0..count {
                vertices.push(u32::from(r.u16()?));
            }
            let surface = r.i16()?;
            let flags = r.u16()?;
            if vertices.iter().all(|&v| v < point_count) {
                self.layers[layer].polygons.push(PolygonKind::Curve, flags & 0x3, &vertices, 0, NONE, record);
                self.surface_refs[layer].push(u32::from(surface.unsigned_abs()).wrapping_sub(1));
            } else {
                dropped += 1;
            }
        }
        self.report_dropped(at, first_offset, dropped, "curves refer to points past the end of PNTS and were dropped");
        Ok(())
    }
}

/// How reading an LWO2/LWO3 POLS chunk's records went.
#[derive(Debug, PartialEq)]
pub(super) struct PolygonsRead {
    /// Where the records start (after the polygon type).
    first_offset: usize,
    /// Records dropped for naming a point past the layer's.
    dropped: usize,
    /// An error ends the chunk at a record cut short; the polygons before it are kept.
    outcome: Result<()>,
}

/// Appends an LWO2/LWO3 POLS chunk's records to `polygons`, each with a surface reference of 0 in
/// `surface_refs` (until a PTAG names one), dropping those that name a point at or past `point_count`.
pub(super) fn read_lwo2_polygons(
    r: &mut Reader<'_>,
    chunk: ChunkId,
    point_count: u32,
    polygons: &mut Polygons,
    surface_refs: &mut NarrowColumn,
) -> PolygonsRead {
    read_lwo2_polygons_from(r, chunk, point_count, polygons, surface_refs, true)
}

/// A record's corner count and flags from its first two bytes: ten bits of count under six of flags,
/// except that a curve's count also takes the top two bits.
fn corners_and_flags(kind: PolygonKind, head: u16) -> (usize, u16) {
    if kind == PolygonKind::Curve {
        (usize::from(head & 0x03FF) | usize::from(head >> 12) << 10, (head >> 10) & 0x3)
    } else {
        (usize::from(head & 0x03FF), head >> 10)
    }
}

/// A plain quad's record: its head (four corners, no flags) and four two-byte indices.
const PLAIN_QUAD_BYTES: usize = 10;
/// A plain triangle's record.
const PLAIN_TRIANGLE_BYTES: usize = 8;
/// A plain quad's record of four-byte indices, the form of every index from 0xFF00 up.
const LONG_QUAD_BYTES: usize = 18;

/// The corners of the record at `at` if it is a plain polygon of `N` corners (no flags) of two-byte
/// indices whose points are all below `point_count`, with the two bytes after it there too (as the
/// record loop asks four bytes from each corner on): `READ` is those bytes, 2 N + 4.
#[inline(always)]
fn plain_polygon_at<const N: usize, const READ: usize>(bytes: &[u8], at: usize, point_count: u32) -> Option<[u32; N]> {
    const { assert!(READ == 2 * N + 4) };
    let record: &[u8; READ] = bytes.get(at..at + READ)?.try_into().ok()?;
    if record[..2] != [0, N as u8] {
        return None;
    }
    // Each corner read on its own: through `array::map` the reads were a call per record.
    let corners: [u32; N] =
        std::array::from_fn(|k| u32::from(u16::from_be_bytes([record[2 + 2 * k], record[3 + 2 * k]])));
    // An index from 0xFF00 up is the first half of a four-byte one.
    corners.iter().all(|&v| v < 0xFF00 && v < point_count).then_some(corners)
}

/// [`plain_polygon_at`] for a quad of four-byte indices, each of a value that needs the form.
#[inline(always)]
fn long_quad_at(bytes: &[u8], at: usize, point_count: u32) -> Option<[u32; 4]> {
    let record: &[u8; LONG_QUAD_BYTES] = bytes.get(at..at + LONG_QUAD_BYTES)?.try_into().ok()?;
    if record[..2] != [0, 4] {
        return None;
    }
    let word = |k: usize| u32::from_be_bytes([record[k], record[k + 1], record[k + 2], record[k + 3]]);
    let words = [word(2), word(6), word(10), word(14)];
    let corners = [words[0] & 0x00FF_FFFF, words[1] & 0x00FF_FFFF, words[2] & 0x00FF_FFFF, words[3] & 0x00FF_FFFF];
    // Each a four-byte index (its first byte 0xFF) of a value that needs it: a small value written
    // long makes a record of another length than its values give, which the record loop keeps.
    words.iter().zip(&corners).all(|(&w, &v)| w >> 24 == 0xFF && v >= 0xFF00 && v < point_count).then_some(corners)
}

/// Where a fixed-stride loop over a POLS's records is: the record at `at` in the chunk's bytes
/// (which start at `first_offset` in the file), the `index_in_chunk`th of the chunk.
struct RecordCursor {
    first_offset: usize,
    at: usize,
    index_in_chunk: u32,
}

/// Reads the run of plain polygons of `N` corners of `record_bytes` bytes each from the cursor on
/// (`polygon_at` says whether a record is one, and what its corners are), their corners straight into
/// the index column and the other columns filled once for the run; the cursor ends after the run.
#[inline(always)]
fn read_plain_run<const N: usize>(
    bytes: &[u8],
    cursor: &mut RecordCursor,
    record_bytes: usize,
    polygon_at: impl Fn(&[u8], usize) -> Option<[u32; N]>,
    polygons: &mut Polygons,
    surface_refs: &mut NarrowColumn,
    kind: PolygonKind,
) {
    let first = Record { offset: (cursor.first_offset + cursor.at) as u32, index_in_chunk: cursor.index_in_chunk };
    let mut count = 0u32;
    while let Some(corners) = polygon_at(bytes, cursor.at) {
        polygons.indices.extend_from_slice(&corners);
        (count, cursor.at) = (count + 1, cursor.at + record_bytes);
    }
    if count > 0 {
        polygons.next_corners_at();
        polygons.push_run(kind, N as u32, count as usize, first, record_bytes as u32);
        surface_refs.push_many(0, count as usize);
        cursor.index_in_chunk += count;
    }
}

/// [`read_lwo2_polygons`]; with `records_from_bytes` false every record is read through the reader
/// (for the tests that hold the two ways to the same result).
fn read_lwo2_polygons_from(
    r: &mut Reader<'_>,
    chunk: ChunkId,
    point_count: u32,
    polygons: &mut Polygons,
    surface_refs: &mut NarrowColumn,
    records_from_bytes: bool,
) -> PolygonsRead {
    polygons.start_chunk(chunk, RecordLayout::Lwo2);
    let kind = match r.fourcc() {
        Ok(id) => PolygonKind::from_id(id),
        Err(error) => return PolygonsRead { first_offset: r.offset(), dropped: 0, outcome: Err(error) },
    };
    // Most records are quads of two-byte indices (10 bytes): room for that many, the rest by growth.
    let expected = r.remaining() / 10;
    polygons.reserve(expected, 4 * expected);
    surface_refs.reserve(expected);
    let mut dropped = 0usize;
    let first_offset = r.offset();
    let mut index_in_chunk = 0u32;
    let mut outcome = Ok(());
    if records_from_bytes && r.endian() == Endian::Big {
        // Records read from the bytes themselves, each corner as one big-endian word (as
        // `Reader::vx` does), while four bytes remain from the start of every corner: the position
        // stays in a register instead of going back to the reader each corner. A record within four
        // bytes of the end is left, from its start, to the reader's loop below, which also makes its
        // errors.
        let bytes = r.peek_rest();
        let mut at = 0usize;
        loop {
            // Runs of plain quads, most records of real meshes, at a fixed stride: where the next
            // record starts does not wait on this one's corners being decoded.
            let mut cursor = RecordCursor { first_offset, at, index_in_chunk };
            let plain_quad_at = |b: &[u8], a| plain_polygon_at::<4, { PLAIN_QUAD_BYTES + 2 }>(b, a, point_count);
            read_plain_run(bytes, &mut cursor, PLAIN_QUAD_BYTES, plain_quad_at, polygons, surface_refs, kind);
            // And of four-byte indices, in a loop of its own so that the two-byte one is as it was.
            read_plain_run(
                bytes,
                &mut cursor,
                LONG_QUAD_BYTES,
                |b, a| long_quad_at(b, a, point_count),
                polygons,
                surface_refs,
                kind,
            );
            // And of triangles (triangulated meshes, a sphere's poles), which the record loop below
            // took 300 instructions each to read.
            let plain_triangle_at =
                |b: &[u8], a| plain_polygon_at::<3, { PLAIN_TRIANGLE_BYTES + 2 }>(b, a, point_count);
            read_plain_run(bytes, &mut cursor, PLAIN_TRIANGLE_BYTES, plain_triangle_at, polygons, surface_refs, kind);
            RecordCursor { at, index_in_chunk, .. } = cursor;
            let Some(&[high, low]) = bytes.get(at..at + 2) else { break };
            let (count, flags) = corners_and_flags(kind, u16::from_be_bytes([high, low]));
            let start = polygons.next_corners_at();
            let (mut next, mut in_range, mut long) = (at + 2, true, 0u32);
            let mut corner = |next: &mut usize| {
                let (v, width) = vx_at(bytes, *next)?;
                *next += width;
                in_range &= v < point_count;
                long += u32::from(v >= 0xFF00);
                Some(v)
            };
            let whole = if count == 4 {
                // A quad, most records: its corners gathered in registers and copied to the column at
                // once. Pushed one by one, each push stored the column's length back to memory.
                let mut quad = [0u32; 4];
                let whole = quad.iter_mut().all(|slot| corner(&mut next).map(|v| *slot = v).is_some());
                if whole {
                    polygons.indices.extend_from_slice(&quad);
                }
                whole
            } else {
                (0..count).all(|_| corner(&mut next).map(|v| polygons.indices.push(v)).is_some())
            };
            if !whole {
                polygons.indices.truncate(start);
                break;
            }
            let record = Record { offset: (first_offset + at) as u32, index_in_chunk };
            index_in_chunk += 1;
            if in_range {
                polygons.push_appended(kind, flags, 0, NONE, record, 2 + 2 * count as u32 + 2 * long);
                surface_refs.push(0);
            } else {
                polygons.indices.truncate(start);
                dropped += 1;
            }
            at = next;
        }
        if let Err(error) = r.skip(at) {
            return PolygonsRead { first_offset, dropped, outcome: Err(error) };
        }
    }
    while !r.is_empty() {
        let record = Record { offset: r.offset() as u32, index_in_chunk };
        index_in_chunk += 1;
        let head = match r.u16() {
            Ok(head) => head,
            Err(e) => {
                outcome = Err(e);
                break;
            }
        };
        let (count, flags) = corners_and_flags(kind, head);
        // The corners go straight into the layer's index column, cut back if the polygon is not kept.
        let start = polygons.next_corners_at();
        let mut in_range = true;
        // Corners at 0xFF00 and above, which the usual record writes in the long form.
        let mut long = 0u32;
        for _ in 0..count {
            match r.vx() {
                Ok(v) => {
                    in_range &= v < point_count;
                    long += u32::from(v >= 0xFF00);
                    polygons.indices.push(v);
                }
                Err(e) => {
                    in_range = false;
                    outcome = Err(e);
                    break;
                }
            }
        }
        if in_range {
            // The length `RecordLayout::Lwo2` gives these corners, counted as they were read.
            let usual_length = 2 + 2 * count as u32 + 2 * long;
            polygons.push_appended(kind, flags, 0, NONE, record, usual_length);
            surface_refs.push(0);
        } else {
            polygons.indices.truncate(start);
            if outcome.is_err() {
                break;
            }
            dropped += 1;
        }
    }
    PolygonsRead { first_offset, dropped, outcome }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::lwo::vx;

    /// Records read from the bytes and records read through the reader give the same polygons, places,
    /// dropped count and error, for a chunk cut at every length: short and long indices, a record
    /// naming a point past the layer's, empty, one- and two-corner records, and curves' wider counts.
    #[test]
    fn pols_read_from_the_bytes_and_through_the_reader_agree_at_every_cut() {
        let chunk = crate::formats::lwo::read_iff_tree(&crate::fixtures::lwo::large_object(2, 2))
            .expect("a chunk tree")
            .ids()
            .next()
            .expect("a chunk");
        let record = |flags: u16, corners: &[u32]| {
            [
                &((flags << 10) | corners.len() as u16).to_be_bytes()[..],
                &corners.iter().flat_map(|&v| vx(v)).collect::<Vec<_>>(),
            ]
            .concat()
        };
        let records = [
            record(0, &[0, 1, 2, 3]),
            record(1, &[0xFF00, 2, 0x1_2345]),
            record(0, &[4, 0x2_0000, 1]),
            record(0, &[]),
            record(2, &[5]),
            record(0, &[6, 0xFF01]),
            record(0, &[1, 2, 3]),
            // Quads, read whole into registers: with long indices, and one naming a point past the layer's.
            record(0, &[0x1_2345, 0xFF01, 3, 4]),
            record(0, &[0xFF00, 1, 0x1_2346, 2]),
            record(3, &[5, 6, 7, 8]),
            // A run of plain quads, read at a fixed stride; with five points, three of them name a
            // point past the layer's, each at another corner.
            record(0, &[0, 1, 2, 3]),
            record(0, &[4, 3, 2, 1]),
            record(0, &[1, 2, 3, 4]),
            record(0, &[5, 0, 1, 2]),
            record(0, &[0, 1, 9, 2]),
            record(0, &[0, 1, 2, 0xFE00]),
            record(0, &[2, 3, 4, 0]),
            // A run of plain triangles; with five points, two of them name a point past the layer's.
            record(0, &[1, 2, 3]),
            record(0, &[2, 3, 4]),
            record(0, &[0, 1, 9]),
            record(0, &[3, 2, 1]),
            record(0, &[0, 1, 0xFE00]),
            record(0, &[2, 3, 4]),
            // Plain quads of four-byte indices, as a file of more than 65 280 points writes them: a
            // run of two, one naming a point past the layer's, one with a small value written long
            // (a record longer than its values need), and a plain quad of two-byte ones after them.
            record(0, &[0xFF00, 0xFF01, 0x1_2345, 0x1_0000]),
            record(0, &[0x1_2345, 0x1_2344, 0xFF02, 0xFF03]),
            record(0, &[0xFF00, 0x1_2346, 0xFF01, 0xFF02]),
            [&[0, 4, 0xFF, 0, 0, 1][..], &vx(0xFF00), &vx(0xFF01), &vx(0xFF02)].concat(),
            record(0, &[2, 3, 4, 0]),
        ]
        .concat();
        // Both flag bits set on a one-corner curve (CURV counts take the bits above them).
        let curve = [&0x0C01u16.to_be_bytes()[..], &vx(3)].concat();
        for (kind, body) in [(b"FACE", records.clone()), (b"CURV", [records, curve].concat())] {
            for (point_count, dropped) in [(0x1_2346, 3), (5, 16)] {
                for cut in 0..=body.len() {
                    let bytes = [&kind[..], &body[..cut]].concat();
                    let read = |from_bytes: bool| {
                        let (mut polygons, mut refs) = (Polygons::default(), NarrowColumn::default());
                        let mut r = Reader::big(&bytes, 100);
                        let read =
                            read_lwo2_polygons_from(&mut r, chunk, point_count, &mut polygons, &mut refs, from_bytes);
                        (polygons, refs, read, r.offset())
                    };
                    let (from_bytes, by_reader) = (read(true), read(false));
                    assert_eq!(
                        from_bytes,
                        by_reader,
                        "{} with {point_count} points, cut at {cut}",
                        String::from_utf8_lossy(kind)
                    );
                    if cut == body.len() {
                        let outcome = (from_bytes.2.dropped, from_bytes.2.outcome.is_ok());
                        assert_eq!(
                            outcome,
                            (dropped, true),
                            "{} with {point_count} points",
                            String::from_utf8_lossy(kind)
                        );
                    }
                }
            }
        }
    }

    /// Runs of quads and triangles longer than the records' spacing, read a run at a time from the
    /// bytes, keep the places the reader keeps a record at a time, in a chunk and in the same chunk
    /// read after it (so that runs start at other places than a multiple of the spacing, one just
    /// before one): each polygon's record is where it is in the file.
    #[test]
    fn long_runs_of_quads_and_triangles_keep_every_polygons_record() {
        let chunk = crate::formats::lwo::read_iff_tree(&crate::fixtures::lwo::large_object(2, 2))
            .expect("a chunk tree")
            .ids()
            .next()
            .expect("a chunk");
        let record = |corners: &[u32]| {
            [&(corners.len() as u16).to_be_bytes()[..], &corners.iter().flat_map(|&v| vx(v)).collect::<Vec<_>>()]
                .concat()
        };
        let quad = |k: u32, base: u32| record(&[base + k % 7, base + 1 + k % 5, base + 2, base + 3 + k % 3]);
        // The first run starts one polygon before a place is kept.
        let mut records: Vec<Vec<u8>> = (0..255).map(|k| record(&[k % 4, 1 + k % 3, 5])).collect();
        records.extend((0..700).map(|k| quad(k, 0)));
        records.push(record(&[4, 5, 6]));
        records.extend((0..300).map(|k| quad(k, 0xFF00)));
        records.push(record(&[0x1_0000, 1, 2, 3, 4]));
        records.extend((0..260).map(|k| quad(k, 10)));
        records.extend((0..300).map(|k| record(&[k % 9, 1 + k % 4, 20])));
        records.push(record(&[1, 2, 0xFF05]));
        records.extend((0..3).map(|k| quad(k, 0)));
        let body = [&b"FACE"[..], &records.concat()].concat();
        // The same chunk twice, the second's polygons numbered after the first's.
        let read = |from_bytes: bool| {
            let (mut polygons, mut refs) = (Polygons::default(), NarrowColumn::default());
            for offset in [100, 100 + body.len()] {
                let mut r = Reader::big(&body, offset);
                let read = read_lwo2_polygons_from(&mut r, chunk, 0x2_0000, &mut polygons, &mut refs, from_bytes);
                assert_eq!((read.dropped, read.outcome.is_ok()), (0, true));
            }
            (polygons, refs)
        };
        let (from_bytes, by_reader) = (read(true), read(false));
        assert_eq!(from_bytes, by_reader);
        let polygons = &from_bytes.0;
        assert_eq!(polygons.len(), 2 * records.len());
        let mut offset = 100 + 4;
        for chunk_offset in [0, body.len()] {
            for (k, bytes) in records.iter().enumerate() {
                let p = polygons.len() / 2 * usize::from(chunk_offset > 0) + k;
                assert_eq!(
                    polygons.record(p),
                    Some(Record { offset: (offset + chunk_offset) as u32, index_in_chunk: k as u32 }),
                    "polygon {p}"
                );
                offset += bytes.len();
            }
            offset = 100 + 4;
        }
    }
}
