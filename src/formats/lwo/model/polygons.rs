//! A layer's polygons: [`Polygons`], its columns one per polygon property, and where each polygon's
//! record is in the file ([`Record`], kept sparsely by [`RecordPlaces`]). Their own file, as the
//! provenance bookkeeping is most of the code and is private to the polygon table.

use super::NONE;
use super::columns::{MostlyDefault, NarrowColumn};
use crate::formats::chunk::ChunkId;
use crate::formats::fourcc::FourCc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum PolygonKind {
    /// FACE, and every polygon of LWOB.
    Face,
    /// CURV, and LWOB CRVS.
    Curve,
    /// PTCH and SUBD: the control cage of a subdivision surface.
    Patch,
    MetaBall,
    Bone,
    Other(FourCc),
}

impl PolygonKind {
    pub fn from_id(id: FourCc) -> Self {
        match &id.0 {
            b"FACE" => Self::Face,
            b"CURV" => Self::Curve,
            b"PTCH" | b"SUBD" => Self::Patch,
            b"MBAL" => Self::MetaBall,
            b"BONE" => Self::Bone,
            _ => Self::Other(id),
        }
    }

    /// Kinds whose polygons are filled surfaces (and count toward triangles).
    pub fn is_surface(self) -> bool {
        matches!(self, Self::Face | Self::Patch)
    }
}

/// All polygons of a layer, structure-of-arrays so a million-polygon layer is a handful of allocations.
/// The columns are written only by the reader (through `push` and its kin, which keep them in step) and
/// read by everyone else through the methods of the same names.
#[derive(Clone, Debug, PartialEq)]
pub struct Polygons {
    /// FACE for most polygons of most files.
    pub(in crate::formats::lwo) kind: MostlyDefault<PolygonKind>,
    /// The six flag bits above the vertex count (LWO2), or CRVS flags (LWOB).
    pub(in crate::formats::lwo) flags: MostlyDefault<u16>,
    /// `starts[i]..starts[i + 1]` are polygon i's entries in `indices`; one longer than the polygon count.
    pub(in crate::formats::lwo) starts: Vec<u32>,
    pub(in crate::formats::lwo) indices: Vec<u32>,
    /// Index into `LwoObject::surfaces` (resolved from PTAG SURF or the LWOB surface number).
    pub(in crate::formats::lwo) surface: NarrowColumn,
    /// PTAG PART: the part's tag, or `NONE`.
    pub(in crate::formats::lwo) part: MostlyDefault<u32>,
    /// PTAG SMGP: the smoothing group's tag, or 0.
    pub(in crate::formats::lwo) smoothing_group: MostlyDefault<u32>,
    /// LWOB detail polygons: the polygon they lie on, or `NONE`.
    pub(in crate::formats::lwo) detail_of: MostlyDefault<u32>,
    /// Provenance, so a picked triangle can be traced to its bytes: where each polygon's record is
    /// ([`Self::record`]).
    records: RecordPlaces,
    /// The layer's POLS (or CRVS) chunks in file order, each with the first polygon read from it: a
    /// polygon's chunk is the last one starting at or before it. One entry per chunk, not per polygon,
    /// so the table costs nothing next to the polygons.
    pub(in crate::formats::lwo) chunks: Vec<(u32, ChunkId)>,
}

impl Default for Polygons {
    fn default() -> Self {
        Self {
            kind: MostlyDefault::new(PolygonKind::Face),
            flags: MostlyDefault::new(0),
            starts: Vec::new(),
            indices: Vec::new(),
            surface: NarrowColumn::default(),
            part: MostlyDefault::new(NONE),
            smoothing_group: MostlyDefault::new(0),
            detail_of: MostlyDefault::new(NONE),
            records: RecordPlaces::default(),
            chunks: Vec::new(),
        }
    }
}

impl Polygons {
    /// Each polygon's kind.
    pub fn kind(&self) -> &MostlyDefault<PolygonKind> {
        &self.kind
    }

    /// Each polygon's flag bits.
    pub fn flags(&self) -> &MostlyDefault<u16> {
        &self.flags
    }

    /// Where each polygon's corners start in [`Self::indices`], and one past the last polygon's end.
    pub fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// Every polygon's corners (point indices), polygon after polygon.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Each polygon's surface, an index into `LwoObject::surfaces`.
    pub fn surface(&self) -> &NarrowColumn {
        &self.surface
    }

    /// Each polygon's part tag, or `NONE`.
    pub fn part(&self) -> &MostlyDefault<u32> {
        &self.part
    }

    /// Each polygon's smoothing-group tag, or 0.
    pub fn smoothing_group(&self) -> &MostlyDefault<u32> {
        &self.smoothing_group
    }

    /// For each LWOB detail polygon, the polygon it lies on; `NONE` for the others.
    pub fn detail_of(&self) -> &MostlyDefault<u32> {
        &self.detail_of
    }

    /// The layer's POLS (or CRVS) chunks in file order, each with the first polygon read from it.
    pub fn chunks(&self) -> &[(u32, ChunkId)] {
        &self.chunks
    }

    /// Polygon `polygon` made `kind`, for tests that build layers the reader would not.
    #[cfg(test)]
    pub(crate) fn set_kind(&mut self, polygon: usize, kind: PolygonKind) {
        self.kind.set(polygon, self.len(), kind);
    }

    /// Polygon `polygon` put in smoothing group `group`, for tests.
    #[cfg(test)]
    pub(crate) fn set_smoothing_group(&mut self, polygon: usize, group: u32) {
        self.smoothing_group.set(polygon, self.len(), group);
    }

    /// Polygon `polygon` made a detail of polygon `base`, for tests.
    #[cfg(test)]
    pub(crate) fn set_detail_of(&mut self, polygon: usize, base: u32) {
        self.detail_of.set(polygon, self.len(), base);
    }

    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The surfaces the polygons use, each once. A layer uses a few surfaces over many polygons, in
    /// runs: a set, filled once a run, not a sorted copy of the column.
    pub fn surfaces_used(&self) -> std::collections::BTreeSet<u32> {
        let mut used = std::collections::BTreeSet::new();
        self.surface.for_each_run(0..self.len(), |surface, _| {
            used.insert(surface);
        });
        used
    }

    /// The POLS (or CRVS) chunk polygon `polygon` was read from.
    pub fn chunk_of(&self, polygon: usize) -> Option<ChunkId> {
        let starts_before = self.chunks.partition_point(|&(first, _)| first as usize <= polygon);
        let (_, chunk) = self.chunks[..starts_before].last()?;
        Some(*chunk)
    }

    /// The polygons pushed from now on come from `chunk`, whose records are laid out as `layout` says.
    pub fn start_chunk(&mut self, chunk: ChunkId, layout: RecordLayout) {
        self.chunks.push((self.len() as u32, chunk));
        self.records.start_chunk(layout);
    }

    /// Where polygon `polygon`'s record is in the file.
    pub fn record(&self, polygon: usize) -> Option<Record> {
        if polygon >= self.len() {
            return None;
        }
        self.records.find(polygon, |q| self.vertices(q))
    }

    pub fn vertices(&self, polygon: usize) -> &[u32] {
        let (Some(&a), Some(&b)) = (self.starts.get(polygon), self.starts.get(polygon + 1)) else {
            return &[];
        };
        self.indices.get(a as usize..b as usize).unwrap_or(&[])
    }

    /// Room for `polygons` more polygons of `corners` corners in all, so that a large POLS does not
    /// grow its columns by doubling.
    pub fn reserve(&mut self, polygons: usize, corners: usize) {
        self.starts.reserve(polygons + 1);
        self.indices.reserve(corners);
        self.surface.reserve(polygons);
    }

    /// Appends a polygon; `record` is where its record sits.
    pub fn push(
        &mut self,
        kind: PolygonKind,
        flags: u16,
        vertices: &[u32],
        surface: u32,
        detail_of: u32,
        record: Record,
    ) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.indices.extend_from_slice(vertices);
        let usual_length = self.records.layout.map_or(0, |l| l.record_length(vertices));
        self.push_appended(kind, flags, surface, detail_of, record, usual_length);
    }

    /// Where the next polygon's corners go: appended to `indices` (then [`Self::push_appended`]), or
    /// cut back to this length if the polygon is dropped.
    pub fn next_corners_at(&mut self) -> usize {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.indices.len()
    }

    /// Appends a polygon whose corners were just appended to `indices`, after the previous polygon's:
    /// a reader's loop writes them there itself instead of through a buffer, after asking
    /// [`Self::next_corners_at`] (which starts `starts`).
    /// `usual_length` is the record's length as its chunk's [`RecordLayout`] gives it for these corners.
    /// Always inlined: a reader calls it once per polygon, and as a call it cost a tenth of reading POLS.
    #[inline(always)]
    pub fn push_appended(
        &mut self,
        kind: PolygonKind,
        flags: u16,
        surface: u32,
        detail_of: u32,
        record: Record,
        usual_length: u32,
    ) {
        let len = self.len();
        self.kind.push(len, kind);
        self.flags.push(len, flags);
        self.starts.push(self.indices.len() as u32);
        self.surface.push(surface);
        self.detail_of.push(len, detail_of);
        self.records.push(len, record, usual_length);
    }

    /// [`Self::push_appended`] of `count` plain polygons of `kind` (no flags, surface 0, no detail) of
    /// `corners` corners each, whose corners were just appended to `indices` (after
    /// [`Self::next_corners_at`]), from records of `record_length` bytes one after the other from
    /// `first`. A run of a POLS's plain quads or triangles fills each column once instead of seven
    /// columns a polygon (a tenth of a small file's load was reading POLS).
    pub fn push_run(&mut self, kind: PolygonKind, corners: u32, count: usize, first: Record, record_length: u32) {
        let len = self.len();
        self.kind.push_many(len, kind, count);
        self.flags.push_many(len, 0, count);
        // Each polygon ends where `push_appended` would have ended it: counted back from the end of
        // the index column.
        let start = self.indices.len().saturating_sub(count * corners as usize) as u32;
        self.starts.extend((1..=count as u32).map(|k| start + k * corners));
        self.surface.push_many(0, count);
        self.detail_of.push_many(len, NONE, count);
        self.records.push_run(len, first, record_length, count);
    }
}

/// Where a polygon's record is: its absolute byte offset in the file (at its vertex count), and its
/// place among the records of its POLS (or CRVS) chunk, dropped records counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub offset: u32,
    pub index_in_chunk: u32,
}

/// How a chunk's polygon records are laid out: enough to know a kept polygon's record length from
/// its corners alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordLayout {
    /// LWO2/LWO3 POLS: a 2-byte count and flags, then each corner as a VX (2 bytes below 0xFF00, else 4).
    Lwo2,
    /// LWOB POLS: a 2-byte count, 2-byte corners, a 2-byte surface (a detail count follows when it is
    /// negative, which the next record's place shows).
    LwobFace,
    /// LWOB CRVS: a 2-byte count, 2-byte corners, a 2-byte surface and 2 bytes of flags.
    LwobCurve,
}

impl RecordLayout {
    /// The length of the record of a polygon with corners `vertices`, written the usual way.
    pub fn record_length(self, vertices: &[u32]) -> u32 {
        let corners = vertices.len() as u32;
        match self {
            Self::Lwo2 => 2 + 2 * corners + 2 * vertices.iter().map(|&v| u32::from(v >= 0xFF00)).sum::<u32>(),
            Self::LwobFace => 4 + 2 * corners,
            Self::LwobCurve => 6 + 2 * corners,
        }
    }
}

/// Every polygon's [`Record`], without a column of them: a polygon's record usually starts where the
/// one before it ends, so only the places where that is not so are kept (a chunk's first record, one
/// after dropped records or detail polygons, one after corners written in the long form), and one
/// every [`RecordPlaces::SPACING`] polygons so that finding a record reads at most that many
/// polygons. A million-polygon layer keeps a few thousand places instead of 8 MB.
#[derive(Clone, Debug, Default, PartialEq)]
struct RecordPlaces {
    /// Ascending by polygon.
    anchors: Vec<Anchor>,
    /// Where the next polygon's record is if it follows the last one pushed.
    expected: Option<Record>,
    layout: Option<RecordLayout>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Anchor {
    polygon: u32,
    record: Record,
    layout: RecordLayout,
}

impl RecordPlaces {
    const SPACING: usize = 256;

    fn start_chunk(&mut self, layout: RecordLayout) {
        self.layout = Some(layout);
        self.expected = None;
    }

    /// Polygon `polygon` (the next one) was read from `record`, whose usual length is `usual_length`.
    #[inline]
    fn push(&mut self, polygon: usize, record: Record, usual_length: u32) {
        if self.expected != Some(record) || polygon.is_multiple_of(Self::SPACING) {
            // A polygon pushed outside a chunk has no layout to follow: each is its own anchor.
            let layout = self.layout.unwrap_or(RecordLayout::Lwo2);
            self.anchors.push(Anchor { polygon: polygon as u32, record, layout });
        }
        self.expected = self.layout.map(|_| Record {
            offset: record.offset.wrapping_add(usual_length),
            index_in_chunk: record.index_in_chunk + 1,
        });
    }

    /// [`Self::push`] of `count` polygons from `polygon` on, read from records of `usual_length` bytes
    /// one after the other from `first`: past the first, each is where the last said the next would
    /// be, so only the places every [`Self::SPACING`] polygons are kept.
    fn push_run(&mut self, polygon: usize, first: Record, usual_length: u32, count: usize) {
        let record_at = |k: usize| Record {
            offset: first.offset.wrapping_add(usual_length.wrapping_mul(k as u32)),
            index_in_chunk: first.index_in_chunk + k as u32,
        };
        let Some(layout) = self.layout else {
            (0..count).for_each(|k| self.push(polygon + k, record_at(k), usual_length));
            return;
        };
        if count == 0 {
            return;
        }
        self.push(polygon, first, usual_length);
        let mut k = (polygon + 1).next_multiple_of(Self::SPACING) - polygon;
        while k < count {
            self.anchors.push(Anchor { polygon: (polygon + k) as u32, record: record_at(k), layout });
            k += Self::SPACING;
        }
        self.expected = Some(record_at(count));
    }

    /// Polygon `polygon`'s record, walking from the anchor at or before it over the polygons between.
    fn find<'v>(&self, polygon: usize, vertices: impl Fn(usize) -> &'v [u32]) -> Option<Record> {
        let anchor = self.anchors[..self.anchors.partition_point(|a| a.polygon as usize <= polygon)].last()?;
        let mut record = anchor.record;
        for q in anchor.polygon as usize..polygon {
            record = Record {
                offset: record.offset.wrapping_add(anchor.layout.record_length(vertices(q))),
                index_in_chunk: record.index_in_chunk + 1,
            };
        }
        Some(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_polygon_finds_its_record_whatever_lies_between() {
        // Records as a reader meets them, each pushed with the place it was read from: runs longer
        // than the anchor spacing, dropped records, corners in the long form, LWOB detail polygons and
        // a second chunk of each layout. Every place must come back as it was pushed.
        let mut places = RecordPlaces::default();
        let (mut pushed, mut corners) = (Vec::new(), Vec::new());
        for (chunk_number, layout) in
            [RecordLayout::Lwo2, RecordLayout::Lwo2, RecordLayout::LwobFace, RecordLayout::LwobCurve]
                .into_iter()
                .enumerate()
        {
            places.start_chunk(layout);
            let (mut offset, mut index_in_chunk) = (100_000 * chunk_number as u32, 0u32);
            for k in 0..700u32 {
                let vertices: Vec<u32> = match k % 5 {
                    0 => vec![k, k + 1, k + 2, 0xFF00 + k],
                    _ => vec![k, k + 1, k + 2],
                };
                let mut length = layout.record_length(&vertices);
                match k % 97 {
                    // A dropped record: read, counted, not kept.
                    13 => {
                        offset += length;
                        index_in_chunk += 1;
                    }
                    // The first corner in the long form although it is small.
                    29 if layout == RecordLayout::Lwo2 => length += 2,
                    // A negative surface: a detail count follows the record.
                    41 if layout == RecordLayout::LwobFace => length += 2,
                    _ => {}
                }
                let record = Record { offset, index_in_chunk };
                places.push(pushed.len(), record, layout.record_length(&vertices));
                pushed.push(record);
                corners.push(vertices);
                offset += length;
                index_in_chunk += 1;
            }
        }
        let found: Vec<_> = (0..pushed.len()).map(|p| places.find(p, |q| &corners[q]).unwrap()).collect();
        assert_eq!(found, pushed);
        assert!(
            places.anchors.len() < pushed.len() / 20,
            "{} places kept for {} records",
            places.anchors.len(),
            pushed.len()
        );
    }
}
