//! The typed LightWave object: plain owned structs with public fields.

use crate::formats::chunk::ChunkId;
use crate::formats::error::Warning;
use crate::formats::fourcc::FourCc;
use std::ops::Range;

/// No polygon, part or group: index fields use this instead of an `Option` to keep the arrays flat.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum LwoKind {
    Lwob,
    Lwlo,
    Lwo2,
    Lwo3,
    Lxob,
}

impl LwoKind {
    pub fn from_form_type(t: FourCc) -> Option<Self> {
        Some(match &t.0 {
            b"LWOB" => Self::Lwob,
            b"LWLO" => Self::Lwlo,
            b"LWO2" => Self::Lwo2,
            b"LWO3" => Self::Lwo3,
            b"LXOB" => Self::Lxob,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Lwob => "LWOB",
            Self::Lwlo => "LWLO",
            Self::Lwo2 => "LWO2",
            Self::Lwo3 => "LWO3",
            Self::Lxob => "LXOB",
        }
    }

    /// LWOB and LWLO: 16-bit point indices, SRFS names, detail polygons.
    pub fn is_lightwave5(self) -> bool {
        matches!(self, Self::Lwob | Self::Lwlo)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LwoObject {
    pub kind: LwoKind,
    pub layers: Vec<Layer>,
    /// TAGS (LWO2) or SRFS (LWOB) strings.
    pub tags: Vec<String>,
    pub surfaces: Vec<Surface>,
    pub clips: Vec<Clip>,
    pub envelopes: Vec<Envelope>,
    pub description: Option<String>,
    pub comments: Vec<String>,
    pub icon: Option<Icon>,
    pub warnings: Vec<Warning>,
}

/// ICON: a thumbnail of RGB byte triples (encoding 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Icon {
    pub encoding: u16,
    pub width: u16,
    pub height: u16,
    pub rgb: Vec<u8>,
}

impl LwoObject {
    pub fn point_count(&self) -> usize {
        self.layers.iter().map(|l| l.points.len()).sum()
    }

    pub fn polygon_count(&self) -> usize {
        self.layers.iter().map(|l| l.polygons.len()).sum()
    }

    pub fn surface(&self, index: u32) -> Option<&Surface> {
        self.surfaces.get(index as usize)
    }

    pub fn clip(&self, index: u32) -> Option<&Clip> {
        self.clips.iter().find(|c| c.index == index)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub number: u16,
    pub flags: u16,
    /// Whether bit 0 of `flags` is the hidden bit: LWO2 and LWO3 only (LWLO: foreground layer; LXOB: modo's own).
    pub flags_mean_hidden: bool,
    pub pivot: [f32; 3],
    pub name: String,
    pub parent: Option<u16>,
    pub points: Vec<[f32; 3]>,
    pub polygons: Polygons,
    pub vertex_maps: Vec<VertexMap>,
    pub bounding_box: Option<[[f32; 3]; 2]>,
    /// The LAYR chunk the layer was read from; `None` for the layer that data before any LAYR goes into.
    pub chunk: Option<ChunkId>,
}

impl Layer {
    pub fn new(number: u16) -> Self {
        Self {
            number,
            flags: 0,
            flags_mean_hidden: true,
            pivot: [0.0; 3],
            name: String::new(),
            parent: None,
            points: Vec::new(),
            polygons: Polygons::default(),
            vertex_maps: Vec::new(),
            bounding_box: None,
            chunk: None,
        }
    }

    /// LightWave's hidden bit. Only LWO2/LWO3 define it (see [`Layer::flags_mean_hidden`]).
    pub fn hidden(&self) -> bool {
        self.flags_mean_hidden && self.flags & 1 != 0
    }

    /// The layer's morph targets (MORF and SPOT vertex maps), in file order.
    pub fn morphs(&self) -> Vec<Morph<'_>> {
        self.vertex_maps
            .iter()
            .filter(|m| !m.discontinuous && m.dimension >= 3)
            .filter_map(|m| {
                let kind = match &m.kind.0 {
                    b"MORF" => MorphKind::Relative,
                    b"SPOT" => MorphKind::Absolute,
                    _ => return None,
                };
                Some(Morph { name: &m.name, kind, map: m })
            })
            .collect()
    }

    pub fn vertex_map(&self, kind: &[u8; 4], name: &str, discontinuous: bool) -> Option<&VertexMap> {
        self.vertex_maps.iter().find(|m| m.kind.0 == *kind && m.name == name && m.discontinuous == discontinuous)
    }
}

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
#[derive(Clone, Debug, PartialEq)]
pub struct Polygons {
    /// FACE for most polygons of most files.
    pub kind: MostlyDefault<PolygonKind>,
    /// The six flag bits above the vertex count (LWO2), or CRVS flags (LWOB).
    pub flags: MostlyDefault<u16>,
    /// `starts[i]..starts[i + 1]` are polygon i's entries in `indices`; one longer than the polygon count.
    pub starts: Vec<u32>,
    pub indices: Vec<u32>,
    /// Index into `LwoObject::surfaces` (resolved from PTAG SURF or the LWOB surface number).
    pub surface: NarrowColumn,
    /// PTAG PART: the part's tag, or `NONE`.
    pub part: MostlyDefault<u32>,
    /// PTAG SMGP: the smoothing group's tag, or 0.
    pub smoothing_group: MostlyDefault<u32>,
    /// LWOB detail polygons: the polygon they lie on, or `NONE`.
    pub detail_of: MostlyDefault<u32>,
    /// Provenance, so a picked triangle can be traced to its bytes: where each polygon's record is
    /// ([`Self::record`]).
    records: RecordPlaces,
    /// The layer's POLS (or CRVS) chunks in file order, each with the first polygon read from it: a
    /// polygon's chunk is the last one starting at or before it. One entry per chunk, not per polygon,
    /// so the table costs nothing next to the polygons.
    pub chunks: Vec<(u32, ChunkId)>,
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

/// A per-polygon index that is usually small, such as a surface among a few: one byte a polygon while
/// every value fits in one, two while they fit in two, else four. A million-polygon layer with fewer
/// than 256 surfaces keeps 1 MB instead of 4. Values are read with [`NarrowColumn::get`].
#[derive(Clone, Debug, PartialEq)]
pub enum NarrowColumn {
    Bytes(Vec<u8>),
    Shorts(Vec<u16>),
    Words(Vec<u32>),
}

impl Default for NarrowColumn {
    fn default() -> Self {
        Self::Bytes(Vec::new())
    }
}

impl NarrowColumn {
    pub fn len(&self) -> usize {
        match self {
            Self::Bytes(v) => v.len(),
            Self::Shorts(v) => v.len(),
            Self::Words(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `index`; 0 past the end.
    #[inline]
    pub fn get(&self, index: usize) -> u32 {
        match self {
            Self::Bytes(v) => v.get(index).map_or(0, |&x| u32::from(x)),
            Self::Shorts(v) => v.get(index).map_or(0, |&x| u32::from(x)),
            Self::Words(v) => v.get(index).copied().unwrap_or(0),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// `each(value, run)` for the runs of equal values within `range`, in order (0 past the end, as
    /// [`Self::get`]): a layer's surfaces come in runs of many polygons, read here without a match
    /// per polygon.
    pub fn for_each_run(&self, range: Range<usize>, mut each: impl FnMut(u32, Range<usize>)) {
        fn runs<T: Copy + PartialEq + Into<u32>>(
            values: &[T],
            range: Range<usize>,
            each: &mut impl FnMut(u32, Range<usize>),
        ) {
            let stored = values.get(range.start..range.end.min(values.len())).unwrap_or(&[]);
            let mut start = 0;
            while let Some(&value) = stored.get(start) {
                let end =
                    stored[start..].iter().position(|&x| x != value).map_or(stored.len(), |length| start + length);
                each(value.into(), range.start + start..range.start + end);
                start = end;
            }
            let past = range.start + stored.len();
            if past < range.end {
                each(0, past..range.end);
            }
        }
        match self {
            Self::Bytes(v) => runs(v, range, &mut each),
            Self::Shorts(v) => runs(v, range, &mut each),
            Self::Words(v) => runs(v, range, &mut each),
        }
    }

    /// The largest value; `None` when empty.
    pub fn max(&self) -> Option<u32> {
        match self {
            Self::Bytes(v) => v.iter().max().map(|&x| u32::from(x)),
            Self::Shorts(v) => v.iter().max().map(|&x| u32::from(x)),
            Self::Words(v) => v.iter().max().copied(),
        }
    }

    pub fn reserve(&mut self, additional: usize) {
        match self {
            Self::Bytes(v) => v.reserve(additional),
            Self::Shorts(v) => v.reserve(additional),
            Self::Words(v) => v.reserve(additional),
        }
    }

    /// Rewritten one size wider when `value` does not fit the present one.
    fn widen_for(&mut self, value: u32) {
        let wider = match self {
            Self::Bytes(v) if value > u32::from(u8::MAX) => match u16::try_from(value) {
                Ok(_) => Self::Shorts(v.iter().map(|&x| u16::from(x)).collect()),
                Err(_) => Self::Words(v.iter().map(|&x| u32::from(x)).collect()),
            },
            Self::Shorts(v) if value > u32::from(u16::MAX) => Self::Words(v.iter().map(|&x| u32::from(x)).collect()),
            _ => return,
        };
        *self = wider;
    }

    #[inline]
    pub fn push(&mut self, value: u32) {
        // The usual case, a value that fits, decided here; widening is the rare call.
        match self {
            Self::Bytes(v) if value <= u32::from(u8::MAX) => v.push(value as u8),
            Self::Shorts(v) if value <= u32::from(u16::MAX) => v.push(value as u16),
            Self::Words(v) => v.push(value),
            _ => self.widen_and_push(value),
        }
    }

    /// [`Self::push`] `count` times.
    pub fn push_many(&mut self, value: u32, count: usize) {
        if count == 0 {
            return;
        }
        self.widen_for(value);
        match self {
            Self::Bytes(v) => v.resize(v.len() + count, value as u8),
            Self::Shorts(v) => v.resize(v.len() + count, value as u16),
            Self::Words(v) => v.resize(v.len() + count, value),
        }
    }

    #[cold]
    fn widen_and_push(&mut self, value: u32) {
        self.widen_for(value);
        self.push(value);
    }

    /// [`Self::set`] of every index in `range`.
    pub fn set_many(&mut self, range: Range<usize>, value: u32) {
        if range.is_empty() {
            return;
        }
        self.widen_for(value);
        fn fill<T: Copy>(values: &mut [T], range: Range<usize>, value: T) {
            let end = range.end.min(values.len());
            if let Some(slots) = values.get_mut(range.start.min(end)..end) {
                slots.fill(value);
            }
        }
        match self {
            Self::Bytes(v) => fill(v, range, value as u8),
            Self::Shorts(v) => fill(v, range, value as u16),
            Self::Words(v) => fill(v, range, value),
        }
    }

    /// Sets value `index`, if there is one.
    pub fn set(&mut self, index: usize, value: u32) {
        // As in `push`: the fit decided here, widening the rare call.
        match self {
            Self::Bytes(v) if value <= u32::from(u8::MAX) => v.get_mut(index).map(|x| *x = value as u8),
            Self::Shorts(v) if value <= u32::from(u16::MAX) => v.get_mut(index).map(|x| *x = value as u16),
            Self::Words(v) => v.get_mut(index).map(|x| *x = value),
            _ => {
                self.widen_and_set(index, value);
                None
            }
        };
    }

    #[cold]
    fn widen_and_set(&mut self, index: usize, value: u32) {
        self.widen_for(value);
        self.set(index, value);
    }
}

/// A per-polygon value that most files leave at its default (no parts, no smoothing groups, no detail
/// polygons, no flags): nothing is stored until a polygon differs, then one value per polygon. A
/// million-polygon layer saves 4 MB per such column. Read by index like a slice.
#[derive(Clone, Debug, PartialEq)]
pub struct MostlyDefault<T> {
    /// Empty while every value is the default; else one per polygon.
    values: Vec<T>,
    default: T,
}

impl<T: Copy + PartialEq> MostlyDefault<T> {
    pub fn new(default: T) -> Self {
        Self { values: Vec::new(), default }
    }

    /// Sets polygon `index`'s value, of `len` polygons.
    pub fn set(&mut self, index: usize, len: usize, value: T) {
        if self.values.is_empty() && value == self.default {
            return;
        }
        // Polygons pushed after the column was filled have no values yet.
        if self.values.len() < len {
            self.values.resize(len, self.default);
        }
        if let Some(slot) = self.values.get_mut(index) {
            *slot = value;
        }
    }

    /// The value of every polygon, when no polygon has been given another (without reading them).
    pub fn uniform(&self) -> Option<T> {
        self.values.is_empty().then_some(self.default)
    }

    /// Whether every polygon has the default value.
    pub fn is_all_default(&self) -> bool {
        self.values.iter().all(|v| *v == self.default)
    }

    /// Appends the value of the next polygon, `len` being the count before it.
    #[inline]
    fn push(&mut self, len: usize, value: T) {
        if !self.values.is_empty() || value != self.default {
            self.values.resize(len, self.default);
            self.values.push(value);
        }
    }

    /// [`Self::push`] of the next `count` polygons, all of `value`.
    fn push_many(&mut self, len: usize, value: T, count: usize) {
        if !self.values.is_empty() || value != self.default {
            self.values.resize(len, self.default);
            self.values.resize(len + count, value);
        }
    }
}

impl<T> std::ops::Index<usize> for MostlyDefault<T> {
    type Output = T;

    fn index(&self, index: usize) -> &T {
        self.values.get(index).unwrap_or(&self.default)
    }
}

impl Polygons {
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
        if self.expected != Some(record) || polygon % Self::SPACING == 0 {
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

/// A VMAP (per point) or VMAD (per polygon corner).
#[derive(Clone, Debug, PartialEq)]
pub struct VertexMap {
    pub kind: FourCc,
    pub dimension: u16,
    pub name: String,
    pub discontinuous: bool,
    /// The point of each entry.
    pub points: MapPoints,
    /// VMAD only: the polygon (layer-wide index) each entry belongs to.
    pub polygons: Vec<u32>,
    /// `dimension` values per entry.
    pub values: Vec<f32>,
    /// VMPA before the map: UV subdivision type and sketch colour.
    pub parameters: Option<[i32; 2]>,
}

impl VertexMap {
    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    pub fn value(&self, entry: usize) -> &[f32] {
        let d = usize::from(self.dimension);
        self.values.get(entry * d..entry * d + d).unwrap_or(&[])
    }

    pub fn is_uv(&self) -> bool {
        self.kind.0 == *b"TXUV"
    }

    pub fn is_color(&self) -> bool {
        matches!(&self.kind.0, b"RGB " | b"RGBA")
    }
}

/// The point of each entry of a vertex map. LightWave writes a VMAP that covers the points from the
/// first on in their order (a UV map, a weight map, a morph of the whole mesh): while entry k is point
/// k for every k, only the count is kept, not a column as long as the points (4 MB a million).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapPoints {
    len: usize,
    /// Every entry's point, once one is out of that order; empty until then.
    listed: Vec<u32>,
}

impl MapPoints {
    #[inline]
    pub fn push(&mut self, point: u32) {
        if self.listed.is_empty() && point as usize == self.len {
            self.len += 1;
            return;
        }
        if self.listed.is_empty() {
            self.listed = (0..self.len as u32).collect();
        }
        self.listed.push(point);
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether entry k is point k for every entry.
    pub fn in_point_order(&self) -> bool {
        self.listed.is_empty()
    }

    /// Entry `entry`'s point.
    #[inline]
    pub fn get(&self, entry: usize) -> Option<u32> {
        match self.in_point_order() {
            true => (entry < self.len).then_some(entry as u32),
            false => self.listed.get(entry).copied(),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len).map(|entry| self.get(entry).unwrap_or(NONE))
    }
}

impl FromIterator<u32> for MapPoints {
    fn from_iter<I: IntoIterator<Item = u32>>(points: I) -> Self {
        let mut list = Self::default();
        points.into_iter().for_each(|p| list.push(p));
        list
    }
}

/// How a morph map's values move its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MorphKind {
    /// MORF: offsets added to the base positions.
    Relative,
    /// SPOT: the positions themselves.
    Absolute,
}

/// A morph target of a layer: a MORF or SPOT vertex map seen as per-point displacements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Morph<'a> {
    pub name: &'a str,
    pub kind: MorphKind,
    pub map: &'a VertexMap,
}

impl Morph<'_> {
    /// The points the map names, each with its value as stored (an offset for MORF, a position for SPOT).
    pub fn values(&self) -> impl Iterator<Item = (u32, [f32; 3])> + '_ {
        (0..self.map.len()).map(|i| {
            let v = self.map.value(i);
            (self.map.points.get(i).unwrap_or(NONE), [v[0], v[1], v[2]])
        })
    }

    /// One offset per point of `base` (the layer's points): zero where the map names no point, so a
    /// weight w moves point p to `base[p] + w · offsets[p]` for either kind.
    pub fn offsets(&self, base: &[[f32; 3]]) -> Vec<[f32; 3]> {
        let mut out = vec![[0.0; 3]; base.len()];
        for (point, value) in self.values() {
            let Some(slot) = out.get_mut(point as usize) else { continue };
            *slot = match self.kind {
                MorphKind::Relative => value,
                MorphKind::Absolute => {
                    let b = base[point as usize];
                    [value[0] - b[0], value[1] - b[1], value[2] - b[2]]
                }
            };
        }
        out
    }
}

/// Surface parameters with the spec's defaults (lwo-surfaces.md §3.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    pub name: String,
    pub source: String,
    pub color: [f32; 3],
    pub diffuse: f32,
    pub luminosity: f32,
    pub specular: f32,
    pub reflection: f32,
    pub transparency: f32,
    pub translucency: f32,
    pub glossiness: f32,
    pub sharpness: f32,
    pub bump: f32,
    /// 1 front only, 3 both sides.
    pub sidedness: u16,
    /// Radians; ≤ 0 is flat shading.
    pub max_smoothing_angle: f32,
    pub refraction_index: f32,
    pub color_highlights: f32,
    pub color_filter: f32,
    pub additive_transparency: f32,
    pub alpha_mode: u16,
    pub vertex_color: Option<VertexColor>,
    /// RFOP / TROP: 0 backdrop, 1 ray-trace + backdrop, 2 spherical map, 3 ray-trace + spherical map.
    pub reflection_options: u16,
    pub refraction_options: u16,
    /// RIMG / TIMG: CLIP index, 0 for none.
    pub reflection_image: u32,
    pub refraction_image: u32,
    pub reflection_seam_angle: f32,
    pub reflection_blur: f32,
    pub refraction_blur: f32,
    /// ALPH value (or AVAL), used with alpha mode 1.
    pub alpha_value: f32,
    pub glow: Option<Glow>,
    pub outline: Option<Outline>,
    /// Envelope index per animated parameter (`COLR`, `DIFF`, …), for those that name one.
    pub envelopes: Vec<(FourCc, u32)>,
    pub blocks: Vec<Block>,
    /// LWO3's node graph (NODS), when the surface has one.
    pub nodes: Option<crate::formats::lwo::nodes::NodeGraph>,
    /// Whether this surface was named by a tag but never defined by a SURF chunk.
    pub is_default: bool,
    /// The SURF chunk (LWO3: `FORM SURF`) the surface was read from; `None` for a default one.
    pub chunk: Option<ChunkId>,
}

impl Surface {
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            source: String::new(),
            color: [200.0 / 255.0; 3],
            diffuse: 1.0,
            luminosity: 0.0,
            specular: 0.0,
            reflection: 0.0,
            transparency: 0.0,
            translucency: 0.0,
            glossiness: 0.4,
            sharpness: 0.0,
            bump: 1.0,
            sidedness: 1,
            max_smoothing_angle: 0.0,
            refraction_index: 1.0,
            color_highlights: 0.0,
            color_filter: 0.0,
            additive_transparency: 0.0,
            alpha_mode: 2,
            vertex_color: None,
            reflection_options: 0,
            refraction_options: 0,
            reflection_image: 0,
            refraction_image: 0,
            reflection_seam_angle: 0.0,
            reflection_blur: 0.0,
            refraction_blur: 0.0,
            alpha_value: 1.0,
            glow: None,
            outline: None,
            envelopes: Vec::new(),
            blocks: Vec::new(),
            nodes: None,
            is_default: false,
            chunk: None,
        }
    }

    pub fn double_sided(&self) -> bool {
        self.sidedness & 2 != 0
    }

    /// The colour image block that drives the base colour, if any.
    /// The last in ordinal order (layered last, drawn on top); of equal ordinals, the later block.
    pub fn color_map(&self) -> Option<&Block> {
        // `max_by` gives the last of equal maxima: what the last of a stable sort gives, with no list
        // made (asked for each surface several times a load).
        self.blocks
            .iter()
            .filter(|b| b.enabled && b.channel.0 == *b"COLR" && b.kind == BlockKind::Image)
            .max_by(|a, b| a.ordinal.as_bytes().cmp(b.ordinal.as_bytes()))
    }
}

/// GLOW: type 0 Hastings, 1 convolution.
#[derive(Clone, Debug, PartialEq)]
pub struct Glow {
    pub kind: u16,
    pub intensity: f32,
    pub size: f32,
}

/// LINE: outline rendering (bit 0 of flags enables it); size and colour are optional trailers.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    pub flags: u16,
    pub size: Option<f32>,
    pub color: Option<[f32; 3]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VertexColor {
    pub intensity: f32,
    pub map_kind: FourCc,
    pub map_name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum BlockKind {
    Image,
    Procedural,
    Gradient,
    Shader,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Projection {
    Planar,
    Cylindrical,
    Spherical,
    Cubic,
    Front,
    Uv,
}

impl Projection {
    pub fn from_code(code: u16) -> Option<Self> {
        Some(match code {
            0 => Self::Planar,
            1 => Self::Cylindrical,
            2 => Self::Spherical,
            3 => Self::Cubic,
            4 => Self::Front,
            5 => Self::Uv,
            _ => return None,
        })
    }
}

/// Image wrap codes as LWO2 stores them (LWOB's TWRP codes are converted on read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Wrap {
    Reset,
    Repeat,
    Mirror,
    Edge,
}

impl Wrap {
    pub fn from_lwo2(code: u16) -> Self {
        match code {
            0 => Self::Reset,
            2 => Self::Mirror,
            3 => Self::Edge,
            _ => Self::Repeat,
        }
    }

    pub fn from_lwob(code: u16) -> Self {
        match code {
            0 => Self::Reset,
            1 => Self::Edge,
            3 => Self::Mirror,
            _ => Self::Repeat,
        }
    }
}

/// A texture layer (BLOK, or an LWOB \*TEX group).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub kind: BlockKind,
    pub ordinal: String,
    pub channel: FourCc,
    pub enabled: bool,
    pub opacity_type: u16,
    pub opacity: f32,
    pub negative: bool,
    pub projection: Projection,
    /// 0, 1, 2 = X, Y, Z.
    pub axis: u16,
    /// CLIP index, 0 for none.
    pub image: u32,
    pub wrap: [Wrap; 2],
    pub wrap_cycles: [f32; 2],
    pub uv_map: Option<String>,
    pub center: [f32; 3],
    pub size: [f32; 3],
    pub rotation: [f32; 3],
    pub world_coordinates: bool,
    /// Procedural texture or shader plug-in name (FUNC).
    pub function: Option<String>,
    /// PROC VALU: one or three values.
    pub procedural_value: Vec<f32>,
    pub gradient: Option<Gradient>,
    /// IMAP AAST strength when antialiasing is on.
    pub antialiasing: Option<f32>,
    pub pixel_blending: bool,
    /// IMAP STCK: sticky projection time, when on.
    pub sticky_time: Option<f32>,
    /// IMAP TAMP (bump amplitude).
    pub amplitude: f32,
    /// TMAP FALL: type and per-axis rate.
    pub falloff: Option<(u16, [f32; 3])>,
    /// TMAP OREF: reference object.
    pub reference_object: Option<String>,
    /// LWOB image file name (LWO2 goes through `image`).
    pub image_file: Option<String>,
}

impl Block {
    pub fn new(kind: BlockKind) -> Self {
        Self {
            kind,
            ordinal: String::new(),
            channel: FourCc::new(b"COLR"),
            enabled: true,
            opacity_type: 7,
            opacity: 1.0,
            negative: false,
            projection: Projection::Planar,
            axis: 0,
            image: 0,
            wrap: [Wrap::Repeat; 2],
            wrap_cycles: [1.0; 2],
            uv_map: None,
            center: [0.0; 3],
            size: [1.0; 3],
            rotation: [0.0; 3],
            world_coordinates: false,
            function: None,
            procedural_value: Vec::new(),
            gradient: None,
            antialiasing: None,
            pixel_blending: false,
            sticky_time: None,
            amplitude: 1.0,
            falloff: None,
            reference_object: None,
            image_file: None,
        }
    }
}

/// A GRAD block's ramp.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gradient {
    /// PNAM: the input parameter.
    pub parameter: String,
    /// INAM: the item the input is read from.
    pub item: String,
    /// GRST, GREN: the display range.
    pub range: [f32; 2],
    /// FKEY: input value and RGBA.
    pub keys: Vec<(f32, [f32; 4])>,
    /// IKEY: interpolation per span, 0 linear, 1 spline, 2 step.
    pub spans: Vec<u16>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub index: u32,
    pub source: ClipSource,
    /// TIME: start, duration, frame rate.
    pub time: Option<[f32; 3]>,
    /// CONT, BRIT, SATR, HUE: adjustments (0 = none).
    pub contrast: f32,
    pub brightness: f32,
    pub saturation: f32,
    pub hue: f32,
    /// GAMM (1 = none).
    pub gamma: f32,
    pub negative: bool,
    /// IFLT and PFLT plug-in server names.
    pub filters: Vec<String>,
    /// CLRS / CLRA colour spaces of RGB and alpha, with their file names.
    pub color_space: Option<(u16, String)>,
    pub alpha_color_space: Option<(u16, String)>,
    /// FILT and DITH indices.
    pub filtering: Option<u16>,
    pub dithering: Option<u16>,
}

impl Clip {
    pub fn new(index: u32, source: ClipSource) -> Self {
        Self {
            index,
            source,
            time: None,
            contrast: 0.0,
            brightness: 0.0,
            saturation: 0.0,
            hue: 0.0,
            gamma: 1.0,
            negative: false,
            filters: Vec::new(),
            color_space: None,
            alpha_color_space: None,
            filtering: None,
            dithering: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClipSource {
    Still(String),
    Sequence { prefix: String, suffix: String, digits: u8, flags: u8, offset: i16, start: i16, end: i16 },
    Reference { index: u32, name: String },
    ColorCycle { low: i16, high: i16, name: String },
    Animation { name: String, server: String },
    Unknown(FourCc),
}

impl ClipSource {
    /// The image file to show for this clip: the still, or the first frame of a sequence.
    pub fn file_name(&self) -> Option<String> {
        match self {
            Self::Still(name) | Self::ColorCycle { name, .. } | Self::Animation { name, .. } => Some(name.clone()),
            Self::Sequence { prefix, suffix, digits, offset, start, .. } => {
                let frame = i32::from(*start) + i32::from(*offset);
                Some(format!("{prefix}{frame:0width$}{suffix}", width = usize::from(*digits)))
            }
            Self::Reference { .. } | Self::Unknown(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub index: u32,
    pub kind: u16,
    pub pre_behavior: u16,
    pub post_behavior: u16,
    pub keys: Vec<EnvelopeKey>,
    pub name: Option<String>,
    /// CHAN channel-modifier plug-ins: server name and flags (bit 0: disabled).
    pub modifiers: Vec<(String, u16)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnvelopeKey {
    pub time: f32,
    pub value: f32,
    /// The SPAN shape of the interval ending at this key (`TCB `, `LINE`, …) and its parameters.
    pub span: Option<(FourCc, Vec<f32>)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mostly_default_column_reads_as_one_value_per_polygon() {
        let mut polygons = Polygons::default();
        let push = |polygons: &mut Polygons, detail_of: u32| {
            polygons.push(PolygonKind::Face, 0, &[0, 1, 2], 0, detail_of, Record { offset: 0, index_in_chunk: 0 })
        };
        push(&mut polygons, NONE);
        push(&mut polygons, NONE);
        assert_eq!(
            (polygons.part[1], polygons.smoothing_group[1], polygons.detail_of[1], polygons.flags[1]),
            (NONE, 0, NONE, 0)
        );
        // Nothing stored while every value is the default.
        polygons.part.set(0, polygons.len(), NONE);
        assert!(polygons.part.values.is_empty() && polygons.detail_of.values.is_empty());
        // A value set, then more polygons pushed, then a value set on one of those.
        polygons.part.set(1, polygons.len(), 7);
        push(&mut polygons, 0);
        push(&mut polygons, NONE);
        polygons.part.set(3, polygons.len(), 9);
        assert_eq!((0..4).map(|p| polygons.part[p]).collect::<Vec<_>>(), [NONE, 7, NONE, 9]);
        assert_eq!((0..4).map(|p| polygons.detail_of[p]).collect::<Vec<_>>(), [NONE, NONE, 0, NONE]);
        assert_eq!((0..4).map(|p| polygons.smoothing_group[p]).collect::<Vec<_>>(), [0; 4]);
    }

    #[test]
    fn a_narrow_column_widens_only_as_far_as_its_values_need() {
        let mut column = NarrowColumn::default();
        column.push(3);
        column.push(255);
        assert!(matches!(column, NarrowColumn::Bytes(_)));
        column.set(0, 300);
        assert!(matches!(column, NarrowColumn::Shorts(_)));
        column.push(70_000);
        assert!(matches!(column, NarrowColumn::Words(_)));
        column.set(1, u32::MAX);
        assert_eq!(column.iter().collect::<Vec<_>>(), [300, u32::MAX, 70_000]);
        assert_eq!((column.len(), column.get(3)), (3, 0));
        let mut straight_to_words = NarrowColumn::default();
        straight_to_words.push(1);
        straight_to_words.push(1 << 20);
        assert_eq!(
            (matches!(straight_to_words, NarrowColumn::Words(_)), straight_to_words.get(0), straight_to_words.get(1)),
            (true, 1, 1 << 20)
        );
    }

    /// Runs read from a column are the runs of its values read one by one, in every width, for ranges
    /// that cut runs, are empty, or go past the column's end (read as 0); `push_many` is pushes and
    /// `set_many` sets, in the same width (none, for none).
    #[test]
    fn a_narrow_columns_runs_are_its_values_runs() {
        let values = [3, 3, 3, 7, 0, 0, 7, 7, 7, 7, 1];
        for widest in [255, 300, 70_000] {
            let mut column = NarrowColumn::default();
            values.iter().for_each(|&v| column.push(v));
            column.push_many(widest, 2);
            column.push_many(1 << 20, 0);
            let mut pushed = NarrowColumn::default();
            values.iter().chain(&[widest, widest]).for_each(|&v| pushed.push(v));
            assert_eq!(column, pushed, "the same values in the same width");
            // `set_many` is sets, past the end too.
            for (range, value) in [(2..5, 9), (11..16, widest), (4..4, 1 << 20), (20..22, 300)] {
                let (mut many, mut one_by_one) = (column.clone(), column.clone());
                many.set_many(range.clone(), value);
                range.for_each(|i| one_by_one.set(i, value));
                assert_eq!(many, one_by_one, "{value} set in a column up to {widest}");
            }
            for range in [0..13, 0..16, 2..8, 4..4, 5..6, 12..14, 12..15, 13..14, 14..16] {
                let mut runs = Vec::new();
                column.for_each_run(range.clone(), |value, run| runs.push((value, run)));
                let mut expected: Vec<(u32, Range<usize>)> = Vec::new();
                for i in range.clone() {
                    match expected.last_mut() {
                        Some((value, run)) if *value == column.get(i) => run.end = i + 1,
                        _ => expected.push((column.get(i), i..i + 1)),
                    }
                }
                assert_eq!(runs, expected, "{range:?} in a column up to {widest}");
            }
        }
    }

    #[test]
    fn map_points_keep_only_a_count_while_in_point_order() {
        let ordered: MapPoints = [0, 1, 2].into_iter().collect();
        assert!(ordered.in_point_order() && ordered.listed.is_empty());
        assert_eq!((ordered.len(), ordered.iter().collect::<Vec<_>>(), ordered.get(3)), (3, vec![0, 1, 2], None));
        // A skipped point ends the order: every entry is then listed, the earlier ones too.
        let mut broken = ordered.clone();
        broken.push(5);
        broken.push(3);
        assert!(!broken.in_point_order());
        assert_eq!(broken.iter().collect::<Vec<_>>(), [0, 1, 2, 5, 3]);
        assert_eq!((broken.get(3), broken.get(5)), (Some(5), None));
        assert_eq!(broken, [0, 1, 2, 5, 3].into_iter().collect::<MapPoints>(), "one content, one form");
        let starts_late: MapPoints = [4, 5].into_iter().collect();
        assert_eq!((starts_late.in_point_order(), starts_late.iter().collect::<Vec<_>>()), (false, vec![4, 5]));
    }

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
