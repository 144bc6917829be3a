//! The entry readers: PTAG's (polygon, tag) entries and the entries of VMAP and VMAD vertex maps,
//! each read from the bytes at a fixed stride while the indices are short. Their own file, as they are
//! the other chunks a large layer is made of, read in loops of their own.

use crate::formats::chunk::ChunkRef;
use crate::formats::error::Result;
use crate::formats::lwo::model::*;
use crate::formats::reader::{Endian, Reader, vx_at};

use super::ObjectBuilder;

impl ObjectBuilder {
    pub(super) fn read_polygon_tags(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>) -> Result<()> {
        self.read_polygon_tags_from(r, at, true)
    }

    /// [`Self::read_polygon_tags`]; with `entries_from_bytes` false every entry is read through the
    /// reader (for the test that holds the two ways to the same result).
    fn read_polygon_tags_from(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, entries_from_bytes: bool) -> Result<()> {
        let kind = r.fourcc()?;
        let layer = self.layer();
        let polygon_count = self.layers[layer].polygons.len();
        let first_offset = r.offset();
        let mut dropped = 0;
        let polygons = &mut self.layers[layer].polygons;
        let surface_refs = &mut self.surface_refs[layer];
        let pols_start = self.pols_start;
        // The entry's polygon in the layer, or `None` (counted) past its end.
        let mut in_layer = |index: u32| {
            let polygon = pols_start + index as usize;
            let known = polygon < polygon_count;
            dropped += usize::from(!known);
            known.then_some(polygon)
        };
        // The column is the chunk's: each its own loop, with no match per entry.
        match &kind.0 {
            b"SURF" => read_tag_entries(r, entries_from_bytes, |index, tag| {
                if let Some(polygon) = in_layer(index) {
                    surface_refs.set(polygon, u32::from(tag));
                }
            })?,
            b"PART" => read_tag_entries(r, entries_from_bytes, |index, tag| {
                if let Some(polygon) = in_layer(index) {
                    polygons.part.set(polygon, polygon_count, u32::from(tag));
                }
            })?,
            b"SMGP" => read_tag_entries(r, entries_from_bytes, |index, tag| {
                if let Some(polygon) = in_layer(index) {
                    polygons.smoothing_group.set(polygon, polygon_count, u32::from(tag));
                }
            })?,
            _ => read_tag_entries(r, entries_from_bytes, |index, _| {
                in_layer(index);
            })?,
        }
        self.report_dropped(
            at,
            first_offset,
            dropped,
            "PTAG entries name polygons past the end of POLS and were dropped",
        );
        Ok(())
    }

    pub(super) fn read_vertex_map(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, discontinuous: bool) -> Result<()> {
        let kind = r.fourcc()?;
        let dimension = r.u16()?;
        let name = r.s0()?;
        let layer = self.layer();
        let point_count = self.layers[layer].points.len() as u32;
        let polygon_count = self.layers[layer].polygons.len();
        let parameters = self.pending_map_parameters.take();
        let mut map = VertexMap {
            kind,
            dimension,
            name,
            discontinuous,
            points: MapPoints::default(),
            polygons: Vec::new(),
            values: Vec::new(),
            parameters,
        };
        // Room for as many entries as the chunk can hold (short indices), so the columns do not grow by
        // doubling: bounded by the chunk's bytes, and the unused end of a large block is never touched.
        let entry_bytes = 2 * (1 + usize::from(discontinuous)) + 4 * usize::from(dimension);
        let most_entries = r.remaining() / entry_bytes;
        map.values.reserve(most_entries * usize::from(dimension));
        if discontinuous {
            map.polygons.reserve(most_entries);
        }
        let first_offset = r.offset();
        let polygons = discontinuous.then_some((self.pols_start, polygon_count));
        let dropped = read_map_entries(r, &mut map, point_count, polygons, true)?;
        if dropped > 0 {
            // Room put in place for entries that were dropped is given back.
            map.values.shrink_to_fit();
        }
        self.report_dropped(
            at,
            first_offset,
            dropped,
            "vertex-map entries name points or polygons out of range and were dropped",
        );
        self.layers[layer].vertex_maps.push(map);
        Ok(())
    }
}

/// Reads a PTAG's entries after its type, handing each (polygon index, tag) to `record`. With
/// `entries_from_bytes` false every entry is read through the reader (for the test that holds the two
/// ways to the same result).
#[inline(always)]
fn read_tag_entries(r: &mut Reader<'_>, entries_from_bytes: bool, mut record: impl FnMut(u32, u16)) -> Result<()> {
    if entries_from_bytes && r.endian() == Endian::Big {
        // Entries read from the bytes themselves, as POLS records are, while an entry's index word
        // and tag are whole. The last entries, and a truncated one with its error, are left to the
        // reader's loop below.
        let bytes = r.peek_rest();
        let mut at = 0usize;
        // Entries with short indices (all of them below 65 280 polygons) are four bytes each: read
        // at that stride while they last, so that no entry's place waits on the width of the one
        // before it, which made the loop below a chain of dependent loads.
        for entry in bytes.chunks_exact(4) {
            let &[a, b, c, d] = entry else { break };
            if a == 0xFF {
                break;
            }
            record(u32::from(u16::from_be_bytes([a, b])), u16::from_be_bytes([c, d]));
            at += 4;
        }
        // Then those with long indices (every polygon from 65 280 on: 95 % of the benchmark
        // terrain's), six bytes each, at their stride.
        for entry in bytes[at..].chunks_exact(6) {
            let &[0xFF, b, c, d, e, f] = entry else { break };
            record(u32::from_be_bytes([0, b, c, d]), u16::from_be_bytes([e, f]));
            at += 6;
        }
        while let Some((index, width)) = vx_at(bytes, at) {
            let Some(&[high, low]) = bytes.get(at + width..at + width + 2) else { break };
            at += width + 2;
            record(index, u16::from_be_bytes([high, low]));
        }
        r.skip(at)?;
    }
    while !r.is_empty() {
        let index = r.vx()?;
        record(index, r.u16()?);
    }
    Ok(())
}

/// Appends a VMAP's or VMAD's entries to `map`, dropping those that name a point at or past
/// `point_count` or (a VMAD's, `polygons` being the layer's first polygon of this POLS and its polygon
/// count) a polygon past the layer's. Returns how many were dropped; an entry cut short is an error.
/// With `entries_from_bytes` false every entry is read through the reader (for the test that holds
/// the two ways to the same result).
fn read_map_entries(
    r: &mut Reader<'_>,
    map: &mut VertexMap,
    point_count: u32,
    polygons: Option<(usize, usize)>,
    entries_from_bytes: bool,
) -> Result<usize> {
    let value_bytes = usize::from(map.dimension) * 4;
    let mut dropped = 0;
    // One, two and three values (weights, UVs, modo's normals) are most maps: a slice pattern each,
    // no iterator.
    // Inlined into both loops: as a call it cost more than the three values it reads.
    #[inline(always)]
    fn push_values(values: &mut Vec<f32>, bytes: &[u8]) {
        match *bytes {
            [a, b, c, d] => values.push(f32::from_be_bytes([a, b, c, d])),
            [a, b, c, d, e, f, g, h] => {
                values.push(f32::from_be_bytes([a, b, c, d]));
                values.push(f32::from_be_bytes([e, f, g, h]));
            }
            [a, b, c, d, e, f, g, h, i, j, k, l] => {
                values.push(f32::from_be_bytes([a, b, c, d]));
                values.push(f32::from_be_bytes([e, f, g, h]));
                values.push(f32::from_be_bytes([i, j, k, l]));
            }
            _ => values.extend(bytes.chunks_exact(4).map(|b| f32::from_be_bytes([b[0], b[1], b[2], b[3]]))),
        }
    }
    // An entry kept, or counted as dropped when it names a point past the layer's or a polygon it
    // does not have.
    #[inline(always)]
    fn record(
        map: &mut VertexMap,
        dropped: &mut usize,
        point: u32,
        point_count: u32,
        polygon: Option<(usize, bool)>,
        values: &[u8],
    ) {
        if point >= point_count || polygon.is_some_and(|(_, known)| !known) {
            *dropped += 1;
            return;
        }
        map.points.push(point);
        if let Some((p, _)) = polygon {
            map.polygons.push(p as u32);
        }
        push_values(&mut map.values, values);
    }
    if entries_from_bytes && r.endian() == Endian::Big {
        let bytes = r.peek_rest();
        let mut at = 0usize;
        // Entries whose indices are all short (every point and polygon below 65 280: nearly every
        // map) lie a fixed stride apart: read at that stride while they last, so that no entry's
        // place waits on the width of the one before it (a chain of dependent loads).
        let index_bytes = if polygons.is_some() { 4 } else { 2 };
        for entry in bytes.chunks_exact(index_bytes + value_bytes) {
            let (indices, values) = entry.split_at(index_bytes);
            let polygon = match (polygons, indices) {
                (None, &[a, _]) if a != 0xFF => None,
                (Some((first, count)), &[a, _, c, d]) if a != 0xFF && c != 0xFF => {
                    let p = first + usize::from(u16::from_be_bytes([c, d]));
                    Some((p, p < count))
                }
                _ => break,
            };
            at += entry.len();
            record(
                map,
                &mut dropped,
                u32::from(u16::from_be_bytes([indices[0], indices[1]])),
                point_count,
                polygon,
                values,
            );
        }
        // Then entries read from the bytes themselves, each index as one big-endian word ([`vx_at`]),
        // while four bytes remain at each index and the values are whole: the position stays in a
        // register (through the reader a VMAD entry took 140 instructions, and modo's normals are a
        // VMAD naming every corner). The rest, from an entry's start, is left to the reader's loop
        // below, which also makes its error.
        while let Some((point, width)) = vx_at(bytes, at) {
            let mut next = at + width;
            // A VMAD entry's polygon, and whether the layer has it.
            let polygon = match polygons {
                Some((first, count)) => {
                    let Some((index, width)) = vx_at(bytes, next) else { break };
                    next += width;
                    let p = first + index as usize;
                    Some((p, p < count))
                }
                None => None,
            };
            let Some(values) = bytes.get(next..next + value_bytes) else { break };
            at = next + value_bytes;
            record(map, &mut dropped, point, point_count, polygon, values);
        }
        r.skip(at)?;
    }
    while !r.is_empty() {
        let point = r.vx()?;
        // A VMAD entry's polygon, and whether the layer has it.
        let polygon = match polygons {
            Some((first, count)) => {
                let p = first + r.vx()? as usize;
                Some((p, p < count))
            }
            None => None,
        };
        let values = r.bytes(value_bytes)?;
        record(map, &mut dropped, point, point_count, polygon, values);
    }
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::lwo::vx;

    /// VMAP and VMAD entries read from the bytes and entries read through the reader give the same
    /// map, dropped count, error and place, for a chunk cut at every length: short and long points and
    /// polygons, a point past the layer's and a polygon past its polygons, and no, one, two and three
    /// values an entry.
    #[test]
    fn vertex_map_entries_read_from_the_bytes_and_through_the_reader_agree_at_every_cut() {
        for discontinuous in [false, true] {
            for dimension in 0u16..=3 {
                // A VMAD's polygons are numbered from the chunk's first (10 here), of 0x1_2350 in all.
                let entry = |point: u32, polygon: u32, first: f32| {
                    let polygon = if discontinuous { vx(polygon) } else { Vec::new() };
                    [
                        vx(point),
                        polygon,
                        (0..dimension).flat_map(|i| (first + f32::from(i) / 4.0).to_be_bytes()).collect(),
                    ]
                    .concat()
                };
                let entries = [
                    (0, 3, 1.0),
                    (0xFF00, 0xFF00, 2.0),
                    (0x1_2345, 0x1_2345, 3.0),
                    (0x1_2346, 0, 4.0),
                    (7, 0x1_2346, 5.0),
                    (8, 1, 6.0),
                ];
                let in_order =
                    |order: [usize; 6]| order.map(|k| entry(entries[k].0, entries[k].1, entries[k].2)).concat();
                // As listed, and short entries first (read at their stride) up to one whose polygon
                // alone is long.
                let (body, short_first) = (in_order([0, 1, 2, 3, 4, 5]), in_order([0, 5, 4, 1, 2, 3]));
                for (body, cut) in
                    [&body, &short_first].into_iter().flat_map(|body| (0..=body.len()).map(move |cut| (body, cut)))
                {
                    let read = |from_bytes: bool| {
                        let (points, polygons, values) = (MapPoints::default(), Vec::new(), Vec::new());
                        let kind = crate::formats::FourCc(*b"TXUV");
                        let mut map = VertexMap {
                            kind,
                            dimension,
                            name: String::new(),
                            discontinuous,
                            points,
                            polygons,
                            values,
                            parameters: None,
                        };
                        let mut r = Reader::big(&body[..cut], 100);
                        let polygons = discontinuous.then_some((10, 0x1_2350));
                        let dropped = read_map_entries(&mut r, &mut map, 0x1_2346, polygons, from_bytes);
                        (map, dropped, r.offset())
                    };
                    let (from_bytes, by_reader) = (read(true), read(false));
                    assert_eq!(
                        from_bytes, by_reader,
                        "discontinuous {discontinuous}, dimension {dimension}, cut at {cut}"
                    );
                    if cut == body.len() {
                        let kept = if discontinuous { 4 } else { 5 };
                        assert_eq!(
                            (from_bytes.0.points.len(), from_bytes.1),
                            (kept, Ok(6 - kept)),
                            "discontinuous {discontinuous}, dimension {dimension}"
                        );
                    }
                }
            }
        }
    }

    /// PTAG entries read from the bytes and entries read through the reader give the same columns,
    /// warnings, error and place, for a chunk cut at every length: short and long polygon indices (runs
    /// of each, on a layer of 73 000 polygons), one past the layer's polygons, in surface, part and
    /// smoothing-group chunks.
    #[test]
    fn ptag_entries_read_from_the_bytes_and_through_the_reader_agree_at_every_cut() {
        let file = crate::fixtures::lwo::large_object(260, 260);
        let tree = crate::formats::lwo::read_iff_tree(&file).expect("a chunk tree");
        let form = tree.root_chunks().next().expect("a FORM");
        let geometry: Vec<_> =
            form.children().filter(|n| matches!(&n.id.0, b"TAGS" | b"LAYR" | b"PNTS" | b"POLS")).collect();
        let ptag = form.children().find(|n| &n.id.0 == b"PTAG").expect("a PTAG");
        let entry = |polygon: u32, tag: u16| [vx(polygon), tag.to_be_bytes().to_vec()].concat();
        let entries = [
            entry(0, 1),
            entry(8, 2),
            entry(9, 3),
            entry(0xFF00, 4),
            entry(0xFF01, 9),
            entry(0x1_0000, 10),
            entry(3, 0xFFFF),
            entry(0x1_2345, 5),
            entry(4, 6),
        ]
        .concat();
        for kind in [b"SURF", b"PART", b"SMGP", b"COLR"] {
            for cut in 0..=entries.len() {
                let bytes = [&kind[..], &entries[..cut]].concat();
                let read = |from_bytes: bool| {
                    let mut builder = ObjectBuilder::new(LwoKind::Lwo2);
                    for &node in &geometry {
                        builder.read_chunk(&file, node).expect("the fixture's geometry");
                    }
                    let mut r = Reader::big(&bytes, 100);
                    let result = builder.read_polygon_tags_from(&mut r, ptag, from_bytes);
                    let layer = &builder.layers[0].polygons;
                    let columns = (builder.surface_refs.clone(), layer.part.clone(), layer.smoothing_group.clone());
                    (columns, builder.warnings, result, r.offset())
                };
                let (from_bytes, by_reader) = (read(true), read(false));
                assert_eq!(from_bytes, by_reader, "{} cut at {cut}", String::from_utf8_lossy(kind));
                if cut == entries.len() {
                    assert!(from_bytes.2.is_ok());
                    assert_eq!(from_bytes.1.len(), 1, "one warning for the entry past the polygons");
                }
            }
        }
    }
}
