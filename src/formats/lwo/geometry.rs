//! Layers, points, polygons, tags and vertex maps: the chunks that follow one another in layer order.

use crate::formats::chunk::{ChunkId, ChunkRef};
use crate::formats::error::{ParseError, Result, Warning};
use crate::formats::reader::{Endian, Reader, entry_count, vx_at};

use super::model::*;
use super::warn;

/// LWOB detail polygons cannot nest; a file that nests them anyway is refused past this depth.
const MAX_DETAIL_DEPTH: usize = 4;

pub(super) struct ObjectBuilder {
    kind: LwoKind,
    layers: Vec<Layer>,
    tags: Vec<String>,
    /// Raw surface reference per polygon, per layer: a TAGS index (LWO2) or a 0-based SRFS index (LWOB).
    /// Narrow, as the POLS reader writes one for every polygon on the parse's longest path.
    surface_refs: Vec<NarrowColumn>,
    /// First polygon of the most recent POLS in the current layer: PTAG and VMAD count from it.
    pols_start: usize,
    description: Option<String>,
    comments: Vec<String>,
    icon: Option<Icon>,
    /// A VMPA waiting for the vertex map it describes.
    pending_map_parameters: Option<[i32; 2]>,
    /// A POLS chunk read ahead on a helper thread, handed over just before the chunk is reached.
    pub read_ahead: Option<PolygonsReadAhead>,
    /// The root's path segment: `FORM`, or `FORM LWO3`.
    pub warnings: Vec<Warning>,
}

impl ObjectBuilder {
    pub fn new(kind: LwoKind) -> Self {
        Self {
            kind,
            layers: Vec::new(),
            tags: Vec::new(),
            surface_refs: Vec::new(),
            pols_start: 0,
            description: None,
            comments: Vec::new(),
            icon: None,
            pending_map_parameters: None,
            read_ahead: None,
            warnings: Vec::new(),
        }
    }

    /// The layer chunks go to, made on first use: data before any LAYR goes into layer 0.
    fn layer(&mut self) -> usize {
        if self.layers.is_empty() {
            self.layers.push(Layer::new(0));
            self.surface_refs.push(NarrowColumn::default());
        }
        self.layers.len() - 1
    }

    /// Reads one chunk of the FORM; errors and warnings name it by its path in the chunk tree.
    pub fn read_chunk(&mut self, file: &[u8], node: ChunkRef<'_>) -> Result<()> {
        let mut r = node.reader(file, crate::formats::reader::Endian::Big);
        let result = self.read_chunk_data(node, &mut r);
        if matches!(&node.id.0, b"DESC" | b"TEXT" | b"ICON" | b"BBOX" | b"VMPA") {
            // Not geometry: a short one is read as far as it goes.
            super::read_leniently(&mut self.warnings, node, result);
            return Ok(());
        }
        result.map_err(|error| error.within(&node.path()))
    }

    fn read_chunk_data(&mut self, node: ChunkRef<'_>, r: &mut Reader<'_>) -> Result<()> {
        let at = node;
        match &node.id.0 {
            b"LAYR" => self.read_layer(r, node.chunk),
            b"PNTS" => self.read_points(r, at),
            b"POLS" => self.read_polygons(r, at, node.chunk),
            b"CRVS" => self.read_lwob_curves(r, at, node.chunk),
            b"PTAG" => self.read_polygon_tags(r, at),
            b"TAGS" | b"SRFS" => {
                while !r.is_empty() {
                    self.tags.push(r.s0()?);
                }
                Ok(())
            }
            b"VMAP" => self.read_vertex_map(r, at, false),
            b"VMAD" => self.read_vertex_map(r, at, true),
            b"BBOX" => {
                let layer = self.layer();
                self.layers[layer].bounding_box = Some([r.vec3()?, r.vec3()?]);
                Ok(())
            }
            b"DESC" => {
                self.description = Some(r.s0()?);
                Ok(())
            }
            b"TEXT" => {
                let text = r.s0()?;
                self.comments.push(text);
                Ok(())
            }
            b"VMPA" => {
                self.pending_map_parameters = Some([r.i32()?, r.i32()?]);
                Ok(())
            }
            b"ICON" => {
                let encoding = r.u16()?;
                let width = r.u16()?;
                let rgb = r.rest().to_vec();
                let height = if width == 0 {
                    0
                } else {
                    (rgb.len() / (usize::from(width) * 3)).min(usize::from(u16::MAX)) as u16
                };
                self.icon = Some(Icon { encoding, width, height, rgb });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn read_layer(&mut self, r: &mut Reader<'_>, chunk: ChunkId) -> Result<()> {
        let number = r.u16()?;
        let flags = r.u16()?;
        let mut layer = Layer::new(number);
        layer.flags = flags;
        layer.chunk = Some(chunk);
        // Bit 0 is "hidden" only in LWO2/LWO3. LWLO uses it for Modeler's foreground layer, and modo
        // writes 5 for the mesh layers it shows (both real .lxo files we have); assimp ignores the field.
        layer.flags_mean_hidden = matches!(self.kind, LwoKind::Lwo2 | LwoKind::Lwo3);
        if self.kind == LwoKind::Lwlo {
            layer.name = r.s0()?;
        } else {
            layer.pivot = r.vec3()?;
            layer.name = r.s0()?;
            if r.remaining() >= 2 {
                let parent = r.i16()?;
                layer.parent = u16::try_from(parent).ok();
            }
        }
        self.layers.push(layer);
        self.surface_refs.push(NarrowColumn::default());
        self.pols_start = 0;
        Ok(())
    }

    fn read_points(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>) -> Result<()> {
        let count = entry_count(r.remaining(), 12, r.offset())?;
        let layer = self.layer();
        let points = &mut self.layers[layer].points;
        if !points.is_empty() {
            let offset = r.offset();
            warn(&mut self.warnings, at, offset, "a second PNTS in one layer replaces the first");
            points.clear();
        }
        let be_f32 = |b: &[u8], at: usize| f32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        points.reserve_exact(count);
        points.extend(r.bytes(count * 12)?.chunks_exact(12).map(|p| [be_f32(p, 0), be_f32(p, 4), be_f32(p, 8)]));
        Ok(())
    }

    fn read_polygons(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, chunk: ChunkId) -> Result<()> {
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

    fn read_lwob_curves(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, chunk: ChunkId) -> Result<()> {
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

    fn read_polygon_tags(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>) -> Result<()> {
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

    fn read_vertex_map(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>, discontinuous: bool) -> Result<()> {
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

    fn report_dropped(&mut self, at: ChunkRef<'_>, offset: usize, count: usize, what: &str) {
        if count > 0 {
            warn(&mut self.warnings, at, offset, format!("{count} {what}"));
        }
    }

    /// Resolves polygon surface references to surfaces, adding a default surface for tags that name
    /// none, and for untagged polygons.
    pub fn finish(mut self, mut surfaces: Vec<Surface>, clips: Vec<Clip>, envelopes: Vec<Envelope>) -> LwoObject {
        let mut by_tag: Vec<Option<u32>> = vec![None; self.tags.len()];
        let mut default_surface: Option<u32> = None;
        let mut warned_tags = std::collections::HashSet::new();
        for (layer, refs) in self.layers.iter_mut().zip(&self.surface_refs) {
            // Tags come in runs of many polygons: each run resolved and set at once.
            refs.for_each_run(0..refs.len(), |tag, run| {
                let tag_index = tag as usize;
                let resolved = match self.tags.get(tag_index) {
                    Some(name) => {
                        *by_tag[tag_index].get_or_insert_with(|| match surfaces.iter().position(|s| s.name == *name) {
                            Some(i) => i as u32,
                            None => {
                                let mut s = Surface::new(name.clone());
                                s.is_default = true;
                                surfaces.push(s);
                                (surfaces.len() - 1) as u32
                            }
                        })
                    }
                    None => {
                        if warned_tags.insert(tag) && !(self.tags.is_empty() && tag == 0) {
                            self.warnings.push(Warning::new(
                                "FORM/PTAG",
                                0,
                                format!(
                                    "surface tag {tag} is out of range ({} tags); the default surface is used",
                                    self.tags.len()
                                ),
                            ));
                        }
                        *default_surface.get_or_insert_with(|| {
                            let mut s = Surface::new("Default");
                            s.is_default = true;
                            surfaces.push(s);
                            (surfaces.len() - 1) as u32
                        })
                    }
                };
                layer.polygons.surface.set_many(run, resolved);
            });
        }
        LwoObject {
            kind: self.kind,
            layers: self.layers,
            tags: self.tags,
            surfaces,
            clips,
            envelopes,
            description: self.description,
            comments: self.comments,
            icon: self.icon,
            warnings: self.warnings,
        }
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
fn read_lwo2_polygons(
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
thread_local! {
    /// How many read-aheads the builders on this thread have taken, so tests can tell taking one from
    /// reading the chunk again.
    pub(super) static READ_AHEADS_TAKEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A POLS chunk (LWO2, LWO3) read apart from the object, into columns of its own, against the point
/// count its layer is expected to have when the chunk is reached: how [`super::parse_tree`] reads a
/// large one on a helper thread while the points and maps before it are read. The builder takes it
/// only if the layer then has that count and no polygons yet, and otherwise reads the chunk itself.
pub(super) struct PolygonsReadAhead {
    chunk: ChunkId,
    point_count: u32,
    polygons: Polygons,
    surface_refs: NarrowColumn,
    read: PolygonsRead,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::lwo::vx;

    /// Surface references are kept a byte a polygon while they fit one: a PTAG naming tag 256 widens
    /// the column, and every polygon still gets its own tag's surface (a later entry for a polygon
    /// wins). An LWOB polygon of surface 0, which names none, wraps to the largest four-byte value and
    /// takes the default surface, with a warning, beside polygons that keep theirs.
    #[test]
    fn surface_references_past_a_byte_resolve_to_their_own_surfaces() {
        use crate::fixtures::lwo::{chunk, f32s, form, s0};
        let tags: Vec<u8> = (0..300).flat_map(|k| s0(&format!("S{k}"))).collect();
        let triangle = |a: u32| [&3u16.to_be_bytes()[..], &vx(a), &vx(a + 1), &vx(a + 2)].concat();
        let polygons: Vec<u8> = [&b"FACE"[..], &(0..4).flat_map(triangle).collect::<Vec<_>>()].concat();
        let entry = |polygon: u32, tag: u16| [vx(polygon), tag.to_be_bytes().to_vec()].concat();
        // Polygon 3 keeps tag 0 from POLS; polygon 1's first tag is overwritten by a later entry.
        let ptag = [&b"SURF"[..], &entry(0, 5), &entry(1, 7), &entry(1, 256), &entry(2, 299)].concat();
        let body = [
            chunk(b"TAGS", &tags),
            chunk(b"PNTS", &f32s(&[0.0; 18])),
            chunk(b"POLS", &polygons),
            chunk(b"PTAG", &ptag),
        ]
        .concat();
        let (_, object) = crate::formats::lwo::parse(&form(b"LWO2", &body)).expect("a small object");
        let surface_of = |p: usize| object.surfaces[object.layers[0].polygons.surface.get(p) as usize].name.as_str();
        assert_eq!([0, 1, 2, 3].map(surface_of), ["S5", "S256", "S299", "S0"]);

        let lwob_face =
            |surface: i16| [&3u16.to_be_bytes()[..], &vx(0), &vx(1), &vx(2), &surface.to_be_bytes()].concat();
        let faces: Vec<u8> = [1, 0, 2].into_iter().flat_map(lwob_face).collect();
        let body =
            [chunk(b"PNTS", &f32s(&[0.0; 9])), chunk(b"SRFS", &[s0("A"), s0("B")].concat()), chunk(b"POLS", &faces)]
                .concat();
        let (_, object) = crate::formats::lwo::parse(&form(b"LWOB", &body)).expect("a small LWOB object");
        let surface_of = |p: usize| object.surfaces[object.layers[0].polygons.surface.get(p) as usize].name.as_str();
        assert_eq!([0, 1, 2].map(surface_of), ["A", "Default", "B"]);
        assert!(object.warnings.iter().any(|w| w.message.contains("4294967295")), "{:?}", object.warnings);
    }

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
