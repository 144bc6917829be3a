//! LightWave object → meshes: one triangle mesh per layer and surface (detail polygons apart, so they
//! can be drawn over their base), a line list for curves, bones and two-point polygons, and a point
//! list for one-point polygons and metaballs.

use std::ops::Range;
use std::sync::Arc;

use crate::formats::lwo::{Block, Layer, LwoObject, NONE, PolygonKind, Projection, Surface, VertexMap};

use super::coords::{lwo_to_bevy, lwo_triangle_to_bevy};
use super::normals::{CornerNormals, PointNormals, face_normals_for, polygon_normal};
use super::point_table::PagedPointTable;
use super::projection::{project, project_all_around, unwrap_seam};
use super::subdivide::{Cage, subdivide};
use super::triangulate::{
    Crossing, QUICK_FANS, QUICK_QUAD_LANES, QuadLanes, Triangulator, fans_quickly, quads_fan_quickly, set_quad_lane,
};
use super::{Bounds, MeshData, MorphTarget, Topology, add, point_at, point_ref, sub};

/// Hash tables keyed by surface indices and points: foldhash's fast hasher, where std's SipHash cost
/// several percent of a load of files whose polygons switch surface often. Seeded per process as std's
/// tables are, so a crafted file cannot aim its keys at one bucket.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildOptions {
    /// Apply each surface's smoothing angle; off shades every polygon flat.
    pub smoothing: bool,
    /// Catmull–Clark levels for PTCH/SUBD cages; 0 draws the cage itself.
    pub subdivision_level: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self { smoothing: true, subdivision_level: 2 }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceMesh {
    /// Index into `LwoObject::surfaces`.
    pub surface: u32,
    /// LWOB detail polygons, drawn over their base polygon.
    pub detail: bool,
    pub mesh: MeshData,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LayerMeshes {
    /// Position in `LwoObject::layers`.
    pub index: usize,
    pub number: u16,
    pub name: String,
    pub hidden: bool,
    /// Position in `LwoObject::layers` of the parent, resolved by layer number.
    pub parent: Option<usize>,
    /// Translation from the parent layer's pivot (or the origin) to this layer's pivot, in Bevy's frame.
    pub translation: [f32; 3],
    pub surfaces: Vec<SurfaceMesh>,
    pub lines: Option<MeshData>,
    pub points: Option<MeshData>,
    /// Bounds of this layer's geometry in its own frame, at rest and with each morph fully applied.
    pub bounds: Bounds,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LwoMeshes {
    pub layers: Vec<LayerMeshes>,
    /// Triangles made from FACE and PTCH polygons, before subdivision.
    pub triangle_count: usize,
    /// Triangles in the meshes, after subdivision.
    pub rendered_triangles: usize,
    /// Surface polygons with three or more corners that gave fewer than n − 2 triangles (degenerate).
    pub degenerate_polygons: usize,
}

pub fn build(object: &LwoObject, options: BuildOptions) -> LwoMeshes {
    build_reporting(object, options, &|| {})
}

/// The pieces of work [`build_reporting`] reports: one per range of each layer's polygons (a layer
/// without polygons counts as one).
pub fn work_items(object: &LwoObject) -> usize {
    object.layers.iter().map(|layer| layer.polygons.len().div_ceil(POLYGONS_PER_RANGE).max(1)).sum()
}

/// [`build`], calling `piece_done` (from any of the threads) as each of [`work_items`] is done, so a
/// large object's load can show how far it is.
pub fn build_reporting(object: &LwoObject, options: BuildOptions, piece_done: &(dyn Fn() + Sync)) -> LwoMeshes {
    let mut layers = Vec::with_capacity(object.layers.len());
    let mut triangle_count = 0;
    let mut rendered_triangles = 0;
    let mut degenerate_polygons = 0;
    for (index, layer) in object.layers.iter().enumerate() {
        let parent = resolve_parent(object, index);
        let parent_pivot = parent.map_or([0.0; 3], |p| object.layers[p].pivot);
        let built = build_layer(layer, &object.surfaces, options, piece_done, VertexSearch::ByPointWherePossible);
        triangle_count += built.triangles;
        degenerate_polygons += built.degenerate;
        let mut bounds = Bounds::EMPTY;
        for s in &built.surfaces {
            bounds.union(&s.mesh.reach());
            rendered_triangles += s.mesh.triangle_count();
        }
        for m in built.lines.iter().chain(&built.points) {
            bounds.union(&m.reach());
        }
        layers.push(LayerMeshes {
            index,
            number: layer.number,
            name: layer.name.clone(),
            hidden: layer.hidden(),
            parent,
            translation: lwo_to_bevy(sub(layer.pivot, parent_pivot)),
            surfaces: built.surfaces,
            lines: built.lines,
            points: built.points,
            bounds,
        });
    }
    LwoMeshes { layers, triangle_count, rendered_triangles, degenerate_polygons }
}

/// The parent layer by number; a missing parent, or one that would close a cycle, makes the layer a root.
fn resolve_parent(object: &LwoObject, index: usize) -> Option<usize> {
    let by_number = |n: u16| object.layers.iter().position(|l| l.number == n);
    let parent = by_number(object.layers[index].parent?)?;
    let mut seen = vec![false; object.layers.len()];
    seen[index] = true;
    let mut cursor = Some(parent);
    while let Some(c) = cursor {
        if seen[c] {
            return None;
        }
        seen[c] = true;
        cursor = object.layers[c].parent.and_then(by_number);
    }
    Some(parent)
}

struct BuiltLayer {
    surfaces: Vec<SurfaceMesh>,
    lines: Option<MeshData>,
    points: Option<MeshData>,
    triangles: usize,
    degenerate: usize,
}

/// Per-corner lookups into the vertex maps a surface uses, or the projection that makes its UVs.
struct CornerMaps<'a> {
    uv: Option<Arc<MapLookup<'a>>>,
    projection: Option<&'a Block>,
    /// Another TXUV map of the layer, kept as the second UV set.
    second_uv: Option<Arc<MapLookup<'a>>>,
    color: Option<Arc<MapLookup<'a>>>,
    /// At which points all corners get the same values from these maps.
    point_values: PointValues,
}

/// Where a surface's maps give every corner of a point the same values. There a corner whose point
/// already has a vertex in the mesh, made by such a corner, can take that vertex without its values
/// being made and compared: most corners of a smooth object (three of a grid point's four).
enum PointValues {
    /// At no point: a cubic projection follows each polygon's normal, or a VMAD names a third of the
    /// corners or more (and is kept as a table by corner).
    PerCorner,
    /// At every point but those a VMAD of these maps names at some corner: a bit set per point, in
    /// the maps' tables joined into one (empty where no map has a VMAD).
    ExceptNamed(Vec<u64>),
}

impl PointValues {
    fn of(projection: Option<&Block>, maps: [&Option<Arc<MapLookup<'_>>>; 3]) -> Self {
        if projection.is_some_and(|b| b.projection == Projection::Cubic) {
            return Self::PerCorner;
        }
        let mut named: Vec<u64> = Vec::new();
        for map in maps.into_iter().flatten() {
            match &map.vmad {
                None => {}
                Some((_, VmadEntries::Sorted { point_has_corners, .. })) => {
                    named.resize(named.len().max(point_has_corners.len()), 0);
                    named.iter_mut().zip(point_has_corners).for_each(|(word, bits)| *word |= bits);
                }
                Some((_, VmadEntries::ByCorner(_))) => return Self::PerCorner,
            }
        }
        Self::ExceptNamed(named)
    }

    #[inline]
    fn hold_at(&self, point: u32) -> bool {
        match self {
            Self::PerCorner => false,
            Self::ExceptNamed(named) => {
                named.get(point as usize / 64).is_none_or(|word| word & (1 << (point % 64)) == 0)
            }
        }
    }
}

/// A VMAP by point, with the VMAD of the same name overriding it by corner: a dense table by point,
/// and the VMAD's entries by corner ([`VmadEntries`]).
struct MapLookup<'a> {
    vmap: Option<&'a VertexMap>,
    /// Entry k of the VMAP is point k, for every entry ([`MapPoints::in_point_order`]): no table is
    /// then needed.
    in_point_order: bool,
    /// The points a map in point order answers for: its entries, and no point past the layer's (a
    /// second PNTS can leave fewer points than an earlier map named).
    ordered_points: usize,
    /// Otherwise the VMAP entry of each point.
    entry_of_point: Vec<u32>,
    /// The VMAD of the same name, with where its entries are found.
    vmad: Option<(&'a VertexMap, VmadEntries)>,
    dimension: usize,
}

/// Where a VMAD's entries are found, in the form that costs less memory for how many corners it names.
enum VmadEntries {
    /// A VMAD that names few corners (UV seams, the usual kind): (point, polygon, entry), sorted for a
    /// binary search, with one bit a point for whether the point has any.
    Sorted { corners: Vec<(u32, u32, u32)>, point_has_corners: Vec<u64> },
    /// A VMAD that names a third of the corners or more (modo writes its normals as one naming every
    /// corner): the entry of each corner of the layer, by its place in the polygons' index column
    /// (`NONE`: none). Filled in the file's order, with no sort, and read with no search.
    ByCorner(Vec<u32>),
}

impl VmadEntries {
    fn new(layer: &Layer, vmad: &VertexMap) -> Self {
        // Four bytes a corner against twelve an entry: the table is the smaller from a third on.
        let corners = layer.polygons.indices.len();
        if 3 * vmad.len() >= corners {
            // Each entry looks for its point among its polygon's corners: a few for real polygons,
            // but a crafted file can name one polygon of thousands of corners over and over.
            if let Some(table) = Self::by_corner(layer, vmad, 64 * corners + (1 << 20)) {
                return table;
            }
        }
        Self::sorted(layer, vmad)
    }

    /// The table, or `None` once more than `scan_budget` corners have been looked at.
    fn by_corner(layer: &Layer, vmad: &VertexMap, scan_budget: usize) -> Option<Self> {
        let polys = &layer.polygons;
        let point_count = layer.points.len();
        let mut entry_of_corner = vec![NONE; polys.indices.len()];
        let mut scanned = 0usize;
        // A later entry for the same corner wins, as the file's order says. An entry names each corner
        // of its polygon at its point (a point a polygon lists twice has two); an entry for a point
        // past the layer's (a second PNTS left fewer) names none, as the VMAP's do not.
        for (entry, (point, &polygon)) in vmad.points.iter().zip(&vmad.polygons).enumerate() {
            let Some(&[start, end]) = polys.starts.get(polygon as usize..).and_then(|s| s.first_chunk::<2>()) else {
                continue;
            };
            if point as usize >= point_count {
                continue;
            }
            scanned += (end - start) as usize;
            if scanned > scan_budget {
                return None;
            }
            for at in start as usize..end as usize {
                if polys.indices.get(at) == Some(&point) {
                    entry_of_corner[at] = entry as u32;
                }
            }
        }
        Some(Self::ByCorner(entry_of_corner))
    }

    fn sorted(layer: &Layer, vmad: &VertexMap) -> Self {
        let point_count = layer.points.len();
        let mut corners: Vec<(u32, u32, u32)> =
            vmad.points.iter().zip(&vmad.polygons).enumerate().map(|(i, (p, &poly))| (p, poly, i as u32)).collect();
        // A later entry for the same corner wins, as the file's order says.
        // Entry numbers are unique, so no two keys are equal and an unstable sort gives the same order.
        corners.sort_unstable_by_key(|&(p, poly, i)| (p, poly, std::cmp::Reverse(i)));
        corners.dedup_by_key(|&mut (p, poly, _)| (p, poly));
        let mut point_has_corners = vec![0u64; point_count.div_ceil(64)];
        for &(p, _, _) in corners.iter().filter(|&&(p, _, _)| (p as usize) < point_count) {
            if let Some(word) = point_has_corners.get_mut(p as usize / 64) {
                *word |= 1 << (p % 64);
            }
        }
        Self::Sorted { corners, point_has_corners }
    }

    /// The entry for a corner, if the VMAD names it. Always inlined, as [`MapLookup::entry`] is; no
    /// `bool::then` closure, which stayed a call.
    #[inline(always)]
    fn at(&self, corner: Corner) -> Option<usize> {
        match self {
            Self::ByCorner(entry_of_corner) => {
                entry_of_corner.get(corner.at).filter(|&&e| e != NONE).map(|&e| e as usize)
            }
            Self::Sorted { corners, point_has_corners } => {
                let Corner { point, polygon, .. } = corner;
                // The point's bit first: most points have no entry.
                let has_corners =
                    point_has_corners.get(point as usize / 64).is_some_and(|word| word & (1 << (point % 64)) != 0);
                if !has_corners {
                    return None;
                }
                let at = corners.binary_search_by_key(&(point, polygon), |&(p, poly, _)| (p, poly)).ok()?;
                Some(corners[at].2 as usize)
            }
        }
    }
}

/// One corner of a polygon: its point, its polygon, and its place in the layer's index column
/// (`Polygons::indices`).
#[derive(Clone, Copy)]
struct Corner {
    point: u32,
    polygon: u32,
    at: usize,
}

impl<'a> MapLookup<'a> {
    fn new(layer: &'a Layer, kinds: &[&[u8; 4]], name: &str) -> Option<Self> {
        let find = |discontinuous: bool| -> Option<&'a VertexMap> {
            layer
                .vertex_maps
                .iter()
                .find(|m| kinds.contains(&&m.kind.0) && m.name == name && m.discontinuous == discontinuous)
        };
        let vmap = find(false);
        let vmad = find(true);
        let dimension = usize::from(vmap.or(vmad)?.dimension);
        let point_count = layer.points.len();
        let in_point_order = vmap.is_some_and(|m| m.points.in_point_order());
        let ordered_points = vmap.map_or(0, |m| m.points.len().min(point_count));
        let mut entry_of_point = vec![NONE; if vmap.is_some() && !in_point_order { point_count } else { 0 }];
        for (i, p) in vmap.iter().filter(|_| !in_point_order).flat_map(|m| m.points.iter()).enumerate() {
            if let Some(slot) = entry_of_point.get_mut(p as usize) {
                *slot = i as u32;
            }
        }
        let vmad = vmad.map(|vmad| (vmad, VmadEntries::new(layer, vmad)));
        Some(Self { vmap, in_point_order, ordered_points, entry_of_point, vmad, dimension })
    }

    /// Whether every corner of `layer` finds a direction here (a value of three that normalizes):
    /// its point's VMAP entry, or a VMAD entry for the corner, which wins. A corner naming a point past
    /// the layer's (a second PNTS left fewer) finds none.
    fn directs_every_corner(&self, layer: &Layer) -> bool {
        let point_count = layer.points.len();
        let directions = |map: &VertexMap| {
            let (values, rest) = map.values.as_chunks::<3>();
            rest.is_empty() && values.len() == map.len() && values.iter().all(|&v| super::normalize(v).is_some())
        };
        let every_point = match self.vmap {
            Some(vmap) if self.in_point_order => vmap.points.len() >= point_count,
            Some(_) => self.entry_of_point.iter().all(|&e| e != NONE),
            None => false,
        };
        self.dimension == 3
            && every_point
            && self.vmap.is_some_and(directions)
            && self.vmad.as_ref().is_none_or(|(vmad, _)| directions(vmad))
            // The largest index, not a test of each: a loop without an exit, which the compiler vectorizes.
            && layer.polygons.indices.iter().copied().max().is_none_or(|v| (v as usize) < point_count)
    }

    /// The map and entry that give a corner its value: the VMAD's for the corner, else the VMAP's for
    /// its point. The per-corner lookups are always inlined: with `build_range` compiled twice, the
    /// compiler made them calls, a call per corner (4 % of a modo object's load).
    #[inline(always)]
    fn entry(&self, corner: Corner) -> Option<(&'a VertexMap, usize)> {
        // The VMAD is asked only when there is one: most maps have none.
        if let Some((vmad, entries)) = &self.vmad {
            if let Some(entry) = entries.at(corner) {
                return Some((vmad, entry));
            }
        }
        self.point_entry(corner.point)
    }

    /// The VMAP's entry for a point, whatever the VMAD says at its corners.
    #[inline(always)]
    fn point_entry(&self, point: u32) -> Option<(&'a VertexMap, usize)> {
        let vmap = self.vmap?;
        let entry = if self.in_point_order {
            Some(point).filter(|&p| (p as usize) < self.ordered_points)?
        } else {
            *self.entry_of_point.get(point as usize)?
        };
        (entry != NONE).then_some((vmap, entry as usize))
    }

    #[inline(always)]
    fn get(&self, corner: Corner) -> Option<&'a [f32]> {
        self.entry(corner).map(|(map, entry)| map.value(entry))
    }

    /// The UV at a corner as meshes take it, v running down the image: the map's first two values, a
    /// missing one read as 0.
    #[inline(always)]
    fn uv(&self, corner: Corner) -> Option<[f32; 2]> {
        Self::uv_of(self.entry(corner)?)
    }

    /// The VMAP's UV for a point, as [`Self::uv`] gives it.
    fn point_uv(&self, point: u32) -> Option<[f32; 2]> {
        Self::uv_of(self.point_entry(point)?)
    }

    #[inline(always)]
    fn uv_of((map, entry): (&VertexMap, usize)) -> Option<[f32; 2]> {
        if map.dimension == 2 {
            // The usual UV map, its values taken as pairs: one bounds test, no multiplication.
            return Some(map.values.as_chunks::<2>().0.get(entry).map_or([0.0, 1.0], |&[u, v]| [u, 1.0 - v]));
        }
        let value = map.value(entry);
        Some(match value.first_chunk() {
            Some(&[u, v]) => [u, 1.0 - v],
            None => [value.first().copied().unwrap_or(0.0), 1.0],
        })
    }
}

/// Lookups built once per map and shared by every surface (and thread) that reads it.
#[derive(Default)]
struct MapLookups<'a> {
    built: Vec<(&'static [&'static [u8; 4]], String, Option<Arc<MapLookup<'a>>>)>,
}

impl<'a> MapLookups<'a> {
    fn get(&mut self, layer: &'a Layer, kinds: &'static [&'static [u8; 4]], name: &str) -> Option<Arc<MapLookup<'a>>> {
        if let Some((_, _, lookup)) = self.built.iter().find(|(k, n, _)| std::ptr::eq(*k, kinds) && n == name) {
            return lookup.clone();
        }
        let lookup = MapLookup::new(layer, kinds, name).map(Arc::new);
        self.built.push((kinds, name.to_string(), lookup.clone()));
        lookup
    }
}

const UV_KINDS: &[&[u8; 4]] = &[b"TXUV"];
const COLOR_KINDS: &[&[u8; 4]] = &[b"RGB ", b"RGBA"];

/// The UV map a surface reads: its colour block's, else the layer's first — unless the colour block
/// projects its own coordinates.
fn uv_map_name<'a>(layer: &'a Layer, surface: Option<&'a Surface>) -> Option<&'a str> {
    let block = surface.and_then(|s| s.color_map());
    if block.is_some_and(|b| b.projection != Projection::Uv) {
        return None;
    }
    block
        .and_then(|b| b.uv_map.as_deref())
        .or_else(|| layer.vertex_maps.iter().find(|m| m.is_uv()).map(|m| m.name.as_str()))
}

fn projecting_block(surface: Option<&Surface>) -> Option<&Block> {
    surface.and_then(|s| s.color_map()).filter(|b| !matches!(b.projection, Projection::Uv | Projection::Front))
}

/// Polygons per range of a layer built on its own thread. Fixed, not a share of the cores, so a file
/// builds the same meshes on every machine; a layer below it is one range, built as one sequence.
const POLYGONS_PER_RANGE: usize = 1 << 16;

/// What every polygon range of a layer reads, made once and shared by the threads.
struct LayerInputs<'a> {
    layer: &'a Layer,
    options: BuildOptions,
    normals: &'a CornerNormals<'a>,
    /// The normal each point's corners share, where they do.
    point_normals: &'a PointNormals,
    /// modo writes its own vertex normals as a NORM map; where one is present it wins.
    stored_normals: Option<MapLookup<'a>>,
    morphs: &'a LayerMorphs<'a>,
    /// The maps each surface's corners read, by surface index.
    maps_of_surface: HashMap<u32, CornerMaps<'a>>,
    /// No corner of the layer has a stored normal or a morph, and its vertices are searched by point
    /// where possible: runs of its triangles and quads can be built by the plain loop ([`PlainRun`]),
    /// compiled with colours and a second UV set for the surfaces that have them.
    plain_loop_serves_layer: bool,
}

impl<'a> LayerInputs<'a> {
    fn local(&self, p: [f32; 3]) -> [f32; 3] {
        lwo_to_bevy(sub(p, self.layer.pivot))
    }
}

/// The maps of every surface the layer's polygons use, each map's lookup built once.
fn corner_maps_by_surface<'a>(
    layer: &'a Layer,
    surfaces: &'a [Surface],
    lookups: &mut MapLookups<'a>,
) -> HashMap<u32, CornerMaps<'a>> {
    layer
        .polygons
        .surfaces_used()
        .into_iter()
        .map(|surface_index| {
            let surface = surfaces.get(surface_index as usize);
            let primary = uv_map_name(layer, surface);
            let uv = primary.and_then(|name| lookups.get(layer, UV_KINDS, name));
            let color = surface
                .and_then(|s| s.vertex_color.as_ref())
                .and_then(|vc| lookups.get(layer, COLOR_KINDS, &vc.map_name));
            let second_uv = layer
                .vertex_maps
                .iter()
                .find(|m| m.is_uv() && Some(m.name.as_str()) != primary)
                .and_then(|m| lookups.get(layer, UV_KINDS, &m.name));
            let projection = projecting_block(surface);
            let point_values = PointValues::of(projection, [&uv, &second_uv, &color]);
            (surface_index, CornerMaps { uv, projection, second_uv, color, point_values })
        })
        .collect()
}

/// How a corner's vertex is found in `build_range`.
#[derive(Clone, Copy, PartialEq)]
enum VertexSearch {
    /// Where a corner's values are its point's alone, the point's vertex is taken unexamined.
    ByPointWherePossible,
    /// Every corner's values made and compared, in the loop compiled for every kind of layer (what
    /// the shortcuts must equal; their tests ask for it).
    #[cfg(test)]
    EveryCorner,
}

fn build_layer(
    layer: &Layer,
    surfaces: &[Surface],
    options: BuildOptions,
    piece_done: &(dyn Fn() + Sync),
    search: VertexSearch,
) -> BuiltLayer {
    let polys = &layer.polygons;
    let morphs = LayerMorphs::new(layer);
    let stored_normals = layer
        .vertex_maps
        .iter()
        .find(|m| m.kind.0 == *b"NORM" && m.dimension == 3)
        .and_then(|m| MapLookup::new(layer, &[b"NORM"], &m.name));
    // Where the file's normals answer every corner (modo writes one for every point, and one for
    // every corner besides), none is made: making them was a fifth of such a sphere's load.
    let (normals, point_normals) = if stored_normals.as_ref().is_some_and(|m| m.directs_every_corner(layer)) {
        (CornerNormals::unasked(layer), PointNormals::none())
    } else {
        // With morphs each corner keeps its own sum: a morph can crease a point that is smooth at rest.
        CornerNormals::with_shared(layer, surfaces, options.smoothing, morphs.is_empty())
    };
    let mut lookups = MapLookups::default();
    let inputs = LayerInputs {
        layer,
        options,
        normals: &normals,
        point_normals: &point_normals,
        plain_loop_serves_layer: search == VertexSearch::ByPointWherePossible
            && morphs.is_empty()
            && stored_normals.is_none(),
        stored_normals,
        morphs: &morphs,
        maps_of_surface: corner_maps_by_surface(layer, surfaces, &mut lookups),
    };
    let ranges: Vec<Range<usize>> = (0..polys.len())
        .step_by(POLYGONS_PER_RANGE)
        .map(|start| start..(start + POLYGONS_PER_RANGE).min(polys.len()))
        .collect();
    // What each range's meshes will hold, and so what the layer's will: counted before the ranges are
    // built, so that the layer's index columns are sized once (see `RangeMeshes::append`).
    let range_sizes = crate::parallel::parallel_map(&ranges, |range| expected_sizes(layer, options, range.clone()));
    let mut layer_sizes = MeshSizes::default();
    for (&key, &(corners, triangles)) in range_sizes.iter().flatten() {
        let total = layer_sizes.entry(key).or_default();
        *total = (total.0 + corners, total.1 + triangles);
    }
    let ranges: Vec<(Range<usize>, MeshSizes)> = ranges.into_iter().zip(range_sizes).collect();
    // Where corners may take their points' vertices unexamined (see `build_range`).
    let by_point = search == VertexSearch::ByPointWherePossible
        && point_normals.covers_points()
        && inputs.stored_normals.is_none();
    // Where no corner can have a second UV set, a colour, a stored normal or a morph (most objects),
    // the ranges are built by a loop compiled without them (see `build_range`).
    // The tests' reference, every corner compared, is the general loop too: the two shortcuts are
    // held to it together.
    let plain = inputs.plain_loop_serves_layer
        && inputs.maps_of_surface.values().all(|m| m.second_uv.is_none() && m.color.is_none());
    // Each range's meshes join the layer's as soon as the ranges before it have, so that only the
    // ranges in flight are held apart.
    let mut built = crate::parallel::parallel_in_order(
        &ranges,
        || RangeScratch::new(layer.points.len()),
        RangeMeshes::empty(&morphs),
        |scratch, (range, sizes)| {
            let range = range.clone();
            match (by_point, plain) {
                (true, true) => build_range::<true, true>(&inputs, scratch, range, sizes),
                (true, false) => build_range::<true, false>(&inputs, scratch, range, sizes),
                (false, true) => build_range::<false, true>(&inputs, scratch, range, sizes),
                (false, false) => build_range::<false, false>(&inputs, scratch, range, sizes),
            }
        },
        |layer_meshes, part, scratch| {
            // A thread done with its ranges has dropped its scratch: what it hands back is freed.
            let mut freed = Vec::new();
            layer_meshes.append(part, scratch.map_or(&mut freed, |s| &mut s.spare_meshes), &layer_sizes);
            piece_done();
        },
    );
    if ranges.is_empty() {
        piece_done();
    }
    drop(inputs);
    drop((point_normals, normals));
    for (surface_index, cage, remap) in patch_cages(layer, &built.patches) {
        let surface = surfaces.get(surface_index as usize);
        let uv = uv_map_name(layer, surface).and_then(|name| lookups.get(layer, UV_KINDS, name));
        let projection = projecting_block(surface);
        let mesh = limit_surface(layer, cage, remap, uv.as_deref(), projection, &morphs, options.subdivision_level);
        built.surfaces.push(SurfaceMesh { surface: surface_index, detail: false, mesh });
    }
    BuiltLayer {
        surfaces: built.surfaces,
        lines: (!built.lines.is_empty()).then_some(built.lines),
        points: (!built.points.is_empty()).then_some(built.points),
        triangles: built.triangles,
        degenerate: built.degenerate,
    }
}

/// What one range of a layer's polygons builds.
struct RangeMeshes {
    /// One mesh per (surface, detail) in the order the range first meets them.
    surfaces: Vec<SurfaceMesh>,
    lines: MeshData,
    points: MeshData,
    /// PTCH/SUBD polygons left for subdivision (when it is on), in file order.
    patches: Vec<u32>,
    triangles: usize,
    degenerate: usize,
}

impl RangeMeshes {
    /// Nothing built yet; lines and points carry the layer's morph targets, as every mesh of it does.
    fn empty(morphs: &LayerMorphs<'_>) -> Self {
        Self {
            surfaces: Vec::new(),
            lines: MeshData { morph_targets: morphs.targets(), ..MeshData::new(Topology::Lines) },
            points: MeshData { morph_targets: morphs.targets(), ..MeshData::new(Topology::Points) },
            patches: Vec::new(),
            triangles: 0,
            degenerate: 0,
        }
    }

    /// The next range's meshes after these, in file order: one mesh per (surface, detail) in the
    /// order the layer first meets them, each range's vertices after the previous ones'. A point whose
    /// corners fall in two ranges has a vertex in each. Meshes copied here are emptied into `spare`.
    /// A mesh the layer meets here first has its index and triangle-record columns sized for the whole
    /// layer (`layer_sizes`, n − 2 triangles a polygon), so later ranges append without copying them
    /// (where crossing outlines give more triangles, the columns grow). The vertex columns' final
    /// lengths are not known before the ranges are built, so they grow as they are appended to.
    fn append(&mut self, next: RangeMeshes, spare: &mut Vec<MeshData>, layer_sizes: &MeshSizes) {
        for mut surface in next.surfaces {
            match self.surfaces.iter_mut().find(|s| (s.surface, s.detail) == (surface.surface, surface.detail)) {
                Some(joined) => {
                    joined.mesh.append(&surface.mesh);
                    surface.mesh.clear();
                    spare.push(surface.mesh);
                }
                None => {
                    if let Some(&(_, triangles)) = layer_sizes.get(&(surface.surface, surface.detail)) {
                        let mesh = &mut surface.mesh;
                        mesh.indices.reserve_exact((3 * triangles).saturating_sub(mesh.indices.len()));
                        mesh.triangle_records.reserve_exact(triangles.saturating_sub(mesh.triangle_records.len()));
                    }
                    self.surfaces.push(surface);
                }
            }
        }
        self.lines.append(&next.lines);
        self.points.append(&next.points);
        self.patches.extend(next.patches);
        self.triangles += next.triangles;
        self.degenerate += next.degenerate;
    }
}

#[cfg(test)]
thread_local! {
    /// How many projection tables the ranges built on this thread filled before their corners asked, so
    /// that tests can tell that way from the corners making the UVs.
    static UVS_MADE_UP_FRONT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Set in a point's table entry beside its mesh's slot when its vertex there was made by a corner whose
/// values are not its point's alone (see [`PointValues`]), or are NaN: no corner takes it unexamined.
const PER_CORNER_VERTEX: u32 = 1 << 31;

/// The bits of a NaN: a projected UV is kept XOR these, so zeroed memory means "not made yet".
const UNKNOWN_UV: u32 = 0x7FC0_0000;

/// What a thread keeps from one polygon range of a layer to the next: working buffers, and tables by
/// the layer's point, paged so that they hold the pages of the points a range touches (a range's points
/// can span most of the layer, as when points added later sit at its end), cleared after each range.
struct RangeScratch {
    triangulator: Triangulator,
    quick_quads: QuickQuads,
    corner_points: Vec<[f32; 3]>,
    tris: Vec<[u32; 3]>,
    projected_uvs: Vec<[f32; 2]>,
    corner_vertex: Vec<u32>,
    /// Per point: the latest vertex made for it in this range, as [1 + its mesh's slot, its index in
    /// that mesh] ([0, 0]: none yet), the slot with [`PER_CORNER_VERTEX`] set when the corner that made
    /// it had values of its own.
    last_vertex_of_point: PagedPointTable<[u32; 2]>,
    /// Per projecting block: each point's projected UV, as its bits XOR [`UNKNOWN_UV`], so that an
    /// entry never set reads as "not made yet".
    projected_points: Vec<(*const Block, PagedPointTable<[u32; 2]>)>,
    /// Meshes of earlier ranges, emptied once joined: their memory serves the next ones, instead of
    /// being returned to the system and asked for again page by page.
    spare_meshes: Vec<MeshData>,
}

impl RangeScratch {
    fn new(point_count: usize) -> Self {
        Self {
            triangulator: Triangulator::new(),
            quick_quads: QuickQuads::new(),
            corner_points: Vec::new(),
            tris: Vec::new(),
            projected_uvs: Vec::new(),
            corner_vertex: Vec::new(),
            last_vertex_of_point: PagedPointTable::new(point_count),
            projected_points: Vec::new(),
            spare_meshes: Vec::new(),
        }
    }

    /// Forgets what the last range left in the tables.
    fn clear(&mut self) {
        self.quick_quads = QuickQuads::new();
        self.last_vertex_of_point.clear();
        for (_, known) in &mut self.projected_points {
            known.clear();
        }
    }
}

/// Builds the polygons `range` of the layer into meshes of their own. With `BY_POINT` (the layer's
/// normals are shared by point where its corners agree, and the file stores none), a corner whose values
/// are its point's alone ([`PointNormals::shares`], [`PointValues`]) takes the vertex its point already
/// has in the mesh, when one was made by such a corner, without making and comparing its values. The
/// two ways are compiled apart, so that a layer where the shortcut cannot be taken does not pay for
/// it (in one loop, the compiler kept fewer values in registers on every corner). With `PLAIN` (no
/// surface of the layer has a second UV set or a colour map, the file stores no normals, the layer
/// has no morphs) the loop is compiled without them: a flat sphere's corner took 134 instructions
/// with them, 104 without; and there, after each polygon this loop builds into a surface's mesh (whose
/// projection, if any, is kept in a table), the triangles and quads that follow it in the same mesh are
/// built by a loop of their own ([`PlainRun`]), as long as they are plain. That loop also serves the
/// other layers without stored normals or morphs, compiled again with colours and a second UV set for
/// the surfaces that have either.
fn build_range<const BY_POINT: bool, const PLAIN: bool>(
    inputs: &LayerInputs<'_>,
    scratch: &mut RangeScratch,
    range: Range<usize>,
    expected: &MeshSizes,
) -> RangeMeshes {
    let LayerInputs { layer, options, normals, morphs, .. } = *inputs;
    let polys = &layer.polygons;
    let RangeScratch {
        triangulator,
        quick_quads,
        corner_points,
        tris,
        projected_uvs,
        corner_vertex,
        last_vertex_of_point,
        projected_points,
        spare_meshes,
    } = scratch;
    let mut out = RangeMeshes::empty(morphs);
    let mut mesh_of: HashMap<(u32, bool), usize> = HashMap::default();
    let mut last_mesh: Option<((u32, bool), usize, &CornerMaps<'_>)> = None;
    // A point's projected UV, per projecting block, made once however many corners share the point
    // (a sphere's point has four; each costs two arc tangents). Cubic projection depends on the
    // polygon's normal and is not kept, and neither are more blocks than a few.
    const KEPT_PROJECTIONS: usize = 4;
    let end = range.end;
    let mut next = range.start;
    // Whether one mesh holds every face of the layer: the whole layer is this range, and one (surface,
    // detail) has all its faces' corners, at least as many as the layer has points (so that a layer
    // of many points and few faces does not have them all projected for a few corners).
    let whole_layer = range.start == 0 && end >= polys.len();
    let all_corners: usize = expected.values().map(|&(corners, _)| corners).sum();
    let holds_every_face = |key| {
        whole_layer
            && layer.points.len() <= all_corners
            && expected.get(&key).is_some_and(|&(corners, _)| corners == all_corners)
    };
    while next < end {
        let p = next;
        next += 1;
        let vertices = polys.vertices(p);
        let kind = polys.kind[p];
        let surface_index = polys.surface.get(p);
        let n = vertices.len();
        if !kind.is_surface() || n < 3 {
            match (kind, n) {
                (_, 0) => {}
                (PolygonKind::MetaBall, _) | (_, 1) => {
                    for &v in vertices {
                        push_plain_vertex(&mut out.points, inputs.local(point_at(&layer.points, v)));
                        morphs.push_vertex(normals, &mut out.points, v, None);
                    }
                }
                _ => {
                    for pair in vertices.windows(2) {
                        for &v in pair {
                            push_plain_vertex(&mut out.lines, inputs.local(point_at(&layer.points, v)));
                            morphs.push_vertex(normals, &mut out.lines, v, None);
                        }
                    }
                }
            }
            continue;
        }
        // A quad's corners on the stack, others' in the scratch buffer: a call to grow it cost more
        // than reading a quad's four points.
        let at = |v| point_at(&layer.points, v);
        let quad_points: [[f32; 3]; 4];
        let polygon_points: &[[f32; 3]] = match *vertices {
            [a, b, c, d] => {
                quad_points = [at(a), at(b), at(c), at(d)];
                &quad_points
            }
            _ => {
                corner_points.clear();
                corner_points.extend(vertices.iter().map(|&v| at(v)));
                corner_points
            }
        };
        tris.clear();
        // The quick test on copies read from the layer's points, not on the array just written (see
        // `Triangulator::triangulate_pretested`).
        let passed_quick_test = match *vertices {
            [a, b, c] => fans_quickly(&[at(a), at(b), at(c)]),
            [_, _, _, _] => quick_quads.fans(layer, p),
            _ => false,
        };
        let made = triangulator.triangulate_pretested(polygon_points, passed_quick_test, tris);
        out.triangles += made;
        if made < n - 2 {
            out.degenerate += 1;
        }
        if made == 0 {
            continue;
        }
        if kind == PolygonKind::Patch && options.subdivision_level > 0 {
            out.patches.push(p as u32);
            continue;
        }
        let detail = polys.detail_of[p] != NONE;
        let key = (surface_index, detail);
        // Polygons come in runs of one surface: the previous polygon's mesh is usually this one's.
        let (slot, maps) = match last_mesh {
            Some((last_key, slot, maps)) if last_key == key => (slot, maps),
            _ => {
                let Some(maps) = inputs.maps_of_surface.get(&surface_index) else { continue };
                let slot = *mesh_of.entry(key).or_insert_with(|| {
                    let mut mesh = spare_meshes.pop().unwrap_or_else(|| MeshData {
                        morph_targets: morphs.targets(),
                        ..MeshData::new(Topology::Triangles)
                    });
                    let uv_set_count = usize::from(maps.uv.is_some() || maps.projection.is_some())
                        * (1 + usize::from(maps.second_uv.is_some()));
                    mesh.uv_sets.resize_with(uv_set_count, Vec::new);
                    mesh.colors = maps.color.is_some().then(|| mesh.colors.take().unwrap_or_default());
                    // Sized up front for the most the range can make without crossings, one vertex per
                    // corner: growing by doubling copies (modo's stored normals split most points),
                    // and the unused end of a large vertex column is never touched, so it costs no memory.
                    if let Some(&(corners, triangles)) = expected.get(&key) {
                        mesh.positions.reserve_exact(corners);
                        mesh.normals.reserve_exact(corners);
                        mesh.uv_sets.iter_mut().for_each(|set| set.reserve_exact(corners));
                        if let Some(colors) = &mut mesh.colors {
                            colors.reserve_exact(corners);
                        }
                        mesh.indices.reserve_exact(3 * triangles);
                        mesh.triangle_records.reserve_exact(triangles);
                    }
                    out.surfaces.push(SurfaceMesh { surface: surface_index, detail, mesh });
                    out.surfaces.len() - 1
                });
                last_mesh = Some((key, slot, maps));
                (slot, maps)
            }
        };
        let mesh = &mut out.surfaces[slot].mesh;
        // How a point's table entry names this mesh (0 is "no vertex yet").
        let slot_tag = slot as u32 + 1;
        projected_uvs.clear();
        let mut at_the_seam = false;
        if let Some(block) = maps.projection {
            let known = projected_points.iter().position(|(b, _)| std::ptr::eq(*b, block));
            let keep =
                block.projection != Projection::Cubic && (known.is_some() || projected_points.len() < KEPT_PROJECTIONS);
            if !keep {
                let normal = polygon_normal(&layer.points, vertices);
                projected_uvs.extend(
                    vertices.iter().map(|&v| project(block, point_ref(&layer.points, v), normal).unwrap_or([0.0, 0.0])),
                );
            } else {
                let known = known.unwrap_or_else(|| {
                    let mut table = PagedPointTable::new(layer.points.len());
                    // The mesh of every face needs every point's UV but those of points no polygon
                    // names: a cylinder's or a sphere's are made here, eight points at a time in
                    // vector lanes (`project_all_around`; a turned block's one point after another,
                    // the arc tangents and divisions of one overlapping the next one's), where made
                    // as corners first met their points each held up the corners' work (corpus
                    // spheres mapped so loaded 5–6 % faster one point after another, for 0.7 % more
                    // instructions, then 15 % faster in lanes; planar maps, a few products a point,
                    // gain nothing). Any other mesh makes its points' UVs as they come, so that no
                    // point of another surface is projected.
                    if matches!(block.projection, Projection::Cylindrical | Projection::Spherical)
                        && holds_every_face(key)
                    {
                        #[cfg(test)]
                        UVS_MADE_UP_FRONT.with(|made| made.set(made.get() + 1));
                        let projected = project_all_around(block, &layer.points, |v, uv| {
                            if let Some(slot) = table.get_mut(v as u32) {
                                keep_uv(slot, uv);
                            }
                        });
                        if !projected {
                            for (v, point) in layer.points.iter().enumerate() {
                                projected_uv(block, &mut table, v as u32, point);
                            }
                        }
                    }
                    projected_points.push((block, table));
                    projected_points.len() - 1
                });
                let known = &mut projected_points[known].1;
                // A loop of pushes after one reserve: as an `extend` it was a call a polygon that
                // kept nothing in registers (39 instructions a corner).
                projected_uvs.reserve(n);
                for &v in vertices {
                    projected_uvs.push(projected_uv(block, known, v, point_ref(&layer.points, v)));
                }
            }
            if matches!(block.projection, Projection::Cylindrical | Projection::Spherical) {
                at_the_seam = unwrap_seam(projected_uvs);
            }
        }
        corner_vertex.clear();
        // A flat-shaded polygon's corners all have its normal: looked up once, not per corner.
        let flat = normals.flat_normal(p, surface_index).map(lwo_to_bevy);
        // The polygon's first corner in the layer's index column, where per-corner tables are read.
        let first_corner = polys.starts.get(p).map_or(0, |&s| s as usize);
        let values_by_point = BY_POINT && !at_the_seam && !matches!(maps.point_values, PointValues::PerCorner);
        polygon_corners::<BY_POINT, PLAIN>(
            inputs,
            maps,
            PolygonCorners {
                polygon: p,
                vertices,
                points: polygon_points,
                projected_uvs,
                first_corner,
                flat,
                values_by_point,
                slot_tag,
            },
            mesh,
            last_vertex_of_point,
            corner_vertex,
        );
        for crossing in triangulator.crossings() {
            corner_vertex.push(mesh.positions.len() as u32);
            push_crossing(mesh, corner_vertex, crossing);
        }
        // A triangle's in the mesh's vertices, in the mesh's winding.
        let in_mesh = |t: [u32; 3]| lwo_triangle_to_bevy(t.map(|i| corner_vertex[i as usize]));
        // A triangle's or a quad's indices written in place (`append_triangles`) and records copied at
        // a known length, a few moves where a copy of any length was a call to `memcpy` per polygon (3 %
        // of a small file's load); other polygons' rewritten in place, then copied in one go.
        let polygon = p as u32;
        match tris.as_slice() {
            &[t] => {
                super::append_triangles(&mut mesh.indices, [in_mesh(t)].into_iter());
                mesh.triangle_records.push(polygon);
            }
            &[t, u] => {
                super::append_triangles(&mut mesh.indices, [in_mesh(t), in_mesh(u)].into_iter());
                mesh.triangle_records.extend_from_slice(&[polygon, polygon]);
            }
            _ => {
                for t in tris.iter_mut() {
                    *t = in_mesh(*t);
                }
                mesh.indices.extend_from_slice(tris.as_flattened());
                mesh.triangle_records.extend(std::iter::repeat_n(polygon, tris.len()));
            }
        }
        if PLAIN || inputs.plain_loop_serves_layer {
            // The polygons after this one that are plain triangles and quads of its mesh, in a loop of
            // their own (where the surface has a colour map or a second UV set, in the loop compiled
            // with them). A projection they take from its table of points (not a cubic one, which
            // follows each polygon's normal, nor one past the kept few).
            let projection = match maps.projection {
                Some(block) => match projected_points.iter_mut().find(|(b, _)| std::ptr::eq(*b, block)) {
                    Some((_, known)) if block.projection != Projection::Cubic => Some(Some((block, known))),
                    _ => None,
                },
                None => Some(None),
            };
            if let Some(projection) = projection {
                let run = PlainRun {
                    inputs,
                    maps,
                    projection,
                    key,
                    slot_tag,
                    last_vertex_of_point,
                    quick_quads,
                    triangles: &mut out.triangles,
                };
                next = match !PLAIN && (maps.color.is_some() || maps.second_uv.is_some()) {
                    true => run.build::<BY_POINT, true>(mesh, next, end),
                    false => run.build::<BY_POINT, false>(mesh, next, end),
                };
            }
        }
    }
    scratch.clear();
    out
}

/// The quick quad test's answers ([`quads_fan_quickly`]) for a block of a range's polygons, taken for
/// [`QUICK_QUAD_LANES`] polygons at once when the range's loops ask for one past the block: the
/// polygons come in order, so each block is tested once (a block's polygons that are not quads, or
/// that the loops leave to the triangulator, cost a lane each).
struct QuickQuads {
    /// The block's first polygon and its answers, bit k polygon `first + k`'s.
    first: usize,
    passed: u32,
}

impl QuickQuads {
    /// No block yet: `first` is where no polygon `p` is in the block (`p − first`, wrapped, is `p` +
    /// [`QUICK_QUAD_LANES`] + 1).
    fn new() -> Self {
        Self { first: usize::MAX - QUICK_QUAD_LANES, passed: 0 }
    }

    /// Whether quad `p` of `layer` passes the quick test, as [`fans_quickly`] answers.
    #[inline(always)]
    fn fans(&mut self, layer: &Layer, p: usize) -> bool {
        let mut k = p.wrapping_sub(self.first);
        if k >= QUICK_QUAD_LANES {
            self.test_block(layer, p);
            k = 0;
        }
        self.passed >> k & 1 != 0
    }

    /// Tests the polygons from `first` on; a lane that is not a quad holds zeros and is never asked.
    #[inline(never)]
    fn test_block(&mut self, layer: &Layer, first: usize) {
        let mut quads: QuadLanes = [[[0.0; QUICK_QUAD_LANES]; 3]; 4];
        for k in 0..QUICK_QUAD_LANES {
            if let &[a, b, c, d] = layer.polygons.vertices(first + k) {
                set_quad_lane(&mut quads, k, [a, b, c, d].map(|v| point_ref(&layer.points, v)));
            }
        }
        (self.first, self.passed) = (first, quads_fan_quickly(&quads));
    }
}

/// Point `v`'s UV by a projecting block, from the block's table of the points' projected UVs: made
/// by the first corner that asks for it (`point` is its position, best the layer's own: see
/// [`project`]), read by the others (a NaN result, and a point past the layer's, which has no entry,
/// are made again each time).
#[inline(always)]
fn projected_uv(block: &Block, known: &mut PagedPointTable<[u32; 2]>, v: u32, point: &[f32; 3]) -> [f32; 2] {
    let made = || project(block, point, [0.0; 3]).unwrap_or([0.0, 0.0]);
    match known.get_mut(v) {
        // A NaN result stays "unknown" and is made again: rare, and still right.
        Some(slot) if *slot == [0; 2] => {
            let uv = made();
            keep_uv(slot, uv);
            uv
        }
        Some(slot) => slot.map(|bits| f32::from_bits(bits ^ UNKNOWN_UV)),
        None => made(),
    }
}

/// Keeps a point's projected UV in its table entry (see [`UNKNOWN_UV`]).
#[inline(always)]
fn keep_uv(slot: &mut [u32; 2], uv: [f32; 2]) {
    *slot = uv.map(|c| c.to_bits() ^ UNKNOWN_UV);
}

/// A run of plain triangles and quads of one mesh (see [`build_range`] for the layers and surfaces): faces
/// (and patches, when they are not subdivided) of three or four corners, decided by the triangulator's
/// quick cases, their UVs projected through a kept table, read from the surface's map or none, and
/// their colours and second UVs, where the surface has them, read from its maps. Most
/// polygons of most files are such runs, and their loop is the general one made small: what stays the
/// same over the run is taken once, a polygon's corners are counted at compile time, every corner's
/// UV is made before its vertex, and the mesh's columns are taken apart, so that the compiler knows
/// that writing one leaves the others (a flat sphere's quad took about 1180 instructions in the
/// general loop, about 850 here; the corpus 7.1 % fewer). Its corner loop is [`polygon_corners`]'s
/// for the corners it builds, and must give the same vertices (the test that holds the shortcuts to every
/// corner compared holds it too): that function, made to serve both, took 17–20 % more instructions,
/// a loop over a slice and optional values where this one has arrays and all its values.
struct PlainRun<'r, 'a> {
    inputs: &'r LayerInputs<'a>,
    maps: &'r CornerMaps<'a>,
    /// The surface's projecting block, with its table of the points' projected UVs.
    projection: Option<(&'a Block, &'r mut PagedPointTable<[u32; 2]>)>,
    key: (u32, bool),
    slot_tag: u32,
    last_vertex_of_point: &'r mut PagedPointTable<[u32; 2]>,
    quick_quads: &'r mut QuickQuads,
    triangles: &'r mut usize,
}

impl PlainRun<'_, '_> {
    /// Builds polygons `from..end` into `mesh` while they are of its surface and detail, faces (or
    /// patches, when not subdividing) of three or four corners that the triangulator's quick cases
    /// decide; returns the first it leaves.
    /// `EXTRAS`: the surface has a colour map or a second UV set (compiled apart, so that the other
    /// surfaces' loop does not test for them at every corner).
    #[inline(never)]
    fn build<const BY_POINT: bool, const EXTRAS: bool>(
        mut self,
        mesh: &mut MeshData,
        from: usize,
        end: usize,
    ) -> usize {
        let polys = &self.inputs.layer.polygons;
        let subdividing = self.inputs.options.subdivision_level > 0;
        let mut p = from;
        while p < end {
            let (Some(&a), Some(&b)) = (polys.starts.get(p), polys.starts.get(p + 1)) else { break };
            let kind = polys.kind[p];
            if !(kind == PolygonKind::Face || (kind == PolygonKind::Patch && !subdividing))
                || polys.surface.get(p) != self.key.0
                || (polys.detail_of[p] != NONE) != self.key.1
            {
                break;
            }
            let made = match polys.indices.get(a as usize..b as usize) {
                Some(&[v0, v1, v2]) => self.polygon::<BY_POINT, EXTRAS, 3>(mesh, p, [v0, v1, v2], a as usize),
                Some(&[v0, v1, v2, v3]) => self.polygon::<BY_POINT, EXTRAS, 4>(mesh, p, [v0, v1, v2, v3], a as usize),
                _ => false,
            };
            if !made {
                break;
            }
            p += 1;
        }
        p
    }

    #[inline(always)]
    fn polygon<const BY_POINT: bool, const EXTRAS: bool, const N: usize>(
        &mut self,
        mesh: &mut MeshData,
        p: usize,
        vs: [u32; N],
        first_corner: usize,
    ) -> bool {
        let LayerInputs { layer, normals, point_normals, .. } = *self.inputs;
        // Each corner's point found once, and every use of it read from the layer's points, not from an
        // array of them written just before: reads of an array's just-written corners wider than the
        // writes wait for them to reach the cache (no store forwards to a load it only partly covers),
        // a tenth of a corpus sphere's load.
        let points = vs.map(|v| point_ref(&layer.points, v));
        let quick = if N == 4 { self.quick_quads.fans(layer, p) } else { fans_quickly(&points.map(|point| *point)) };
        if !quick {
            return false;
        }
        // A projection's UVs first, every corner's: unwrapping the seam compares them all. A map's are
        // read in the corner loop below.
        let mut projected = [[0.0f32; 2]; N];
        let mut at_the_seam = false;
        if let Some((block, known)) = &mut self.projection {
            for k in 0..N {
                projected[k] = projected_uv(block, known, vs[k], points[k]);
            }
            if matches!(block.projection, Projection::Cylindrical | Projection::Spherical) {
                at_the_seam = unwrap_seam(&mut projected);
            }
        }
        let uv_map = self.maps.uv.as_deref().filter(|_| self.projection.is_none());
        let has_uv = self.projection.is_some() || uv_map.is_some();
        // Read only for a corner that makes or compares a vertex (most of a smooth surface's take their
        // point's), as `polygon_corners` reads them.
        let color_map = self.maps.color.as_deref().filter(|_| EXTRAS);
        let second_uv_map = self.maps.second_uv.as_deref().filter(|_| EXTRAS && has_uv);
        let flat = normals.flat_normal(p, self.key.0).map(lwo_to_bevy);
        let values_by_point = BY_POINT && !at_the_seam && !matches!(self.maps.point_values, PointValues::PerCorner);
        let slot_tag = self.slot_tag;
        let MeshData {
            positions,
            normals: normal_column,
            uv_sets,
            colors: color_column,
            indices,
            triangle_records,
            ..
        } = mesh;
        let sets = uv_sets.len().min(1);
        let (first_set, other_sets) = uv_sets.split_at_mut(sets);
        let mut uv_column = first_set.first_mut().filter(|_| has_uv);
        let mut second_uv_column = other_sets.first_mut().filter(|_| second_uv_map.is_some());
        let mut color_column = color_column.as_mut().filter(|_| color_map.is_some());
        let mut corner_vertex = [0u32; N];
        for k in 0..N {
            let v = vs[k];
            // As in `polygon_corners`, which this loop must equal for the corners it builds.
            let by_point = values_by_point && point_normals.shares(v) && self.maps.point_values.hold_at(v);
            if by_point
                && let [tag, i] = self.last_vertex_of_point.get(v)
                && tag == slot_tag
            {
                corner_vertex[k] = i;
                continue;
            }
            let normal = match flat {
                Some(flat) => flat,
                None => lwo_to_bevy(point_normals.at(normals, p, v)),
            };
            let corner = Corner { point: v, polygon: p as u32, at: first_corner + k };
            // A map's UV is read only here, for a corner that makes or compares a vertex (most of a
            // smooth surface's corners took their point's vertex above). A corner the map does not
            // name has UV (0, 0), v turned as the map's are.
            let uv = match uv_map {
                Some(map) => map.uv(corner).unwrap_or([0.0, 1.0]),
                None => projected[k],
            };
            let color = color_map.map(|map| corner_color(map, corner));
            let second_uv = second_uv_map.map(|map| map.uv(corner).unwrap_or([0.0, 1.0]));
            let last_slot = self.last_vertex_of_point.get_mut(v);
            let previous = match last_slot.as_deref() {
                Some(&[tag, i])
                    if tag & !PER_CORNER_VERTEX == slot_tag
                        && normal_column[i as usize] == normal
                        && uv_column.as_ref().is_none_or(|uvs| uvs[i as usize] == uv)
                        && second_uv_column
                            .as_ref()
                            .zip(second_uv)
                            .is_none_or(|(column, uv)| column[i as usize] == uv)
                        && color_column
                            .as_ref()
                            .zip(color)
                            .is_none_or(|(column, color)| column[i as usize] == color) =>
                {
                    Some(i)
                }
                _ => None,
            };
            corner_vertex[k] = match previous {
                Some(i) => i,
                None => {
                    let i = positions.len() as u32;
                    positions.push(self.inputs.local(*points[k]));
                    normal_column.push(normal);
                    if let Some(uvs) = uv_column.as_deref_mut() {
                        uvs.push(uv);
                    }
                    if let (Some(column), Some(uv)) = (second_uv_column.as_deref_mut(), second_uv) {
                        column.push(uv);
                    }
                    if let (Some(column), Some(color)) = (color_column.as_deref_mut(), color) {
                        column.push(color);
                    }
                    if let Some(last) = last_slot {
                        // A NaN value equals nothing: its vertex is taken by no other corner.
                        let no_nan = |values: &[f32]| !values.iter().any(|x| x.is_nan());
                        let own_values = by_point
                            && no_nan(&normal)
                            && (!has_uv || no_nan(&uv))
                            && second_uv.is_none_or(|uv| no_nan(&uv))
                            && color.is_none_or(|color| no_nan(&color));
                        *last = [if own_values { slot_tag } else { slot_tag | PER_CORNER_VERTEX }, i];
                    }
                    i
                }
            };
        }
        super::append_triangles(
            indices,
            QUICK_FANS[N - 3].iter().map(|t| lwo_triangle_to_bevy(t.map(|i| corner_vertex[i as usize]))),
        );
        for _ in 0..N - 2 {
            triangle_records.push(p as u32);
        }
        *self.triangles += N - 2;
        true
    }
}

/// A corner's colour from a colour map: white where the map does not name it, opaque for an RGB map.
#[inline(always)]
fn corner_color(map: &MapLookup<'_>, corner: Corner) -> [f32; 4] {
    let value = map.get(corner).unwrap_or(&[1.0, 1.0, 1.0, 1.0]);
    let c = [0, 1, 2, 3].map(|i| value.get(i).copied().unwrap_or(1.0));
    if map.dimension < 4 { [c[0], c[1], c[2], 1.0] } else { c }
}

/// What [`polygon_corners`] reads of one polygon.
struct PolygonCorners<'p> {
    polygon: usize,
    vertices: &'p [u32],
    /// The corners' points, as the triangulator was given them.
    points: &'p [[f32; 3]],
    projected_uvs: &'p [[f32; 2]],
    /// The polygon's first corner in the layer's index column, where per-corner tables are read.
    first_corner: usize,
    /// The polygon's own normal, when its surface is shaded flat.
    flat: Option<[f32; 3]>,
    values_by_point: bool,
    /// How a point's table entry names the polygon's mesh (0 is "no vertex yet").
    slot_tag: u32,
}

/// Each corner's vertex in `mesh`, pushed to `corner_vertex`: the vertex its point already has there
/// when the corner's values are the same, else a new one. Apart from [`build_range`], so that the
/// columns it appends to come in as references of their own: the compiler then knows more of what
/// writing a vertex leaves unchanged, and reads back less after each value written (about 1 % fewer
/// instructions on the corpus files measured; it still reloads some columns' lengths).
#[inline(always)]
fn polygon_corners<const BY_POINT: bool, const PLAIN: bool>(
    inputs: &LayerInputs<'_>,
    maps: &CornerMaps<'_>,
    polygon: PolygonCorners<'_>,
    mesh: &mut MeshData,
    last_vertex_of_point: &mut PagedPointTable<[u32; 2]>,
    corner_vertex: &mut Vec<u32>,
) {
    let LayerInputs { normals, point_normals, morphs, .. } = *inputs;
    let PolygonCorners {
        polygon: p,
        vertices,
        points: polygon_points,
        projected_uvs,
        first_corner,
        flat,
        values_by_point,
        slot_tag,
    } = polygon;
    for (k, &v) in vertices.iter().enumerate() {
        let by_point = values_by_point && point_normals.shares(v) && maps.point_values.hold_at(v);
        if by_point
            && let [tag, i] = last_vertex_of_point.get(v)
            && tag == slot_tag
        {
            corner_vertex.push(i);
            continue;
        }
        let corner = Corner { point: v, polygon: p as u32, at: first_corner + k };
        let stored = inputs
            .stored_normals
            .as_ref()
            .filter(|_| !PLAIN)
            .and_then(|m| m.get(corner))
            .and_then(|n| n.get(..3))
            .and_then(|n| super::normalize([n[0], n[1], n[2]]));
        let normal = match (stored, flat) {
            (Some(stored), _) => lwo_to_bevy(stored),
            (None, Some(flat)) => flat,
            (None, None) => lwo_to_bevy(point_normals.at(normals, p, v)),
        };
        // A corner the map does not name has UV (0, 0), v turned as the map's are.
        let uv = match (&maps.uv, projected_uvs.get(k)) {
            (_, Some(projected)) => Some(*projected),
            (Some(uv), None) => Some(uv.uv(corner).unwrap_or([0.0, 1.0])),
            (None, None) => None,
        };
        let second_uv =
            maps.second_uv.as_ref().filter(|_| !PLAIN && uv.is_some()).map(|m| m.uv(corner).unwrap_or([0.0, 1.0]));
        let color = maps.color.as_ref().filter(|_| !PLAIN).map(|color| corner_color(color, corner));
        // Corners of one point that agree on every attribute share a vertex (smooth shading makes that
        // the common case), which keeps large objects' meshes near their point count.
        let attributes = |mesh: &MeshData, i: usize| {
            mesh.normals[i] == normal
                && uv.is_none_or(|uv| mesh.uv_sets[0][i] == uv)
                && second_uv.is_none_or(|uv| mesh.uv_sets[1][i] == uv)
                && color.is_none_or(|c| mesh.colors.as_ref().is_some_and(|colors| colors[i] == c))
        };
        let last_slot = last_vertex_of_point.get_mut(v);
        let previous = last_slot
            .as_deref()
            .filter(|&&[tag, i]| tag & !PER_CORNER_VERTEX == slot_tag && attributes(mesh, i as usize));
        let index = match previous {
            Some(&[_, i]) => i,
            None => {
                let i = mesh.positions.len() as u32;
                // The corner's point, as the triangulator was given it.
                mesh.positions.push(inputs.local(polygon_points[k]));
                mesh.normals.push(normal);
                if let Some(uv) = uv {
                    mesh.uv_sets[0].push(uv);
                }
                if let Some(uv) = second_uv {
                    mesh.uv_sets[1].push(uv);
                }
                if let Some(c) = color {
                    mesh.colors.get_or_insert_with(Vec::new).push(c);
                }
                // A normal the file stores is kept as it is in every shape.
                if !PLAIN && !mesh.morph_targets.is_empty() {
                    morphs.push_vertex(normals, mesh, v, stored.is_none().then_some((p, normal)));
                }
                if let Some(last) = last_slot {
                    // A NaN value equals nothing: its vertex is taken by no other corner.
                    let no_nan = |values: &[f32]| !values.iter().any(|x| x.is_nan());
                    let own_values = by_point
                        && no_nan(&normal)
                        && uv.is_none_or(|uv| no_nan(&uv))
                        && second_uv.is_none_or(|uv| no_nan(&uv))
                        && color.is_none_or(|c| no_nan(&c));
                    *last = [if own_values { slot_tag } else { slot_tag | PER_CORNER_VERTEX }, i];
                }
                i
            }
        };
        corner_vertex.push(index);
    }
}

/// The subdivision cages of the layer's patches, one per surface in the order the layer first meets
/// them, with each cage point's layer point.
fn patch_cages(layer: &Layer, patches: &[u32]) -> Vec<(u32, Cage, HashMap<u32, u32>)> {
    let polys = &layer.polygons;
    let mut cages: Vec<(u32, Cage, HashMap<u32, u32>)> = Vec::new();
    for &p in patches {
        let surface_index = polys.surface.get(p as usize);
        let slot = match cages.iter().position(|(s, _, _)| *s == surface_index) {
            Some(i) => i,
            None => {
                cages.push((surface_index, Cage::default(), HashMap::default()));
                cages.len() - 1
            }
        };
        let (_, cage, remap) = &mut cages[slot];
        let face: Vec<u32> = polys
            .vertices(p as usize)
            .iter()
            .map(|&v| {
                *remap.entry(v).or_insert_with(|| {
                    cage.points.push(point_at(&layer.points, v));
                    (cage.points.len() - 1) as u32
                })
            })
            .collect();
        cage.push_face(face);
        cage.face_origins.push(p);
    }
    cages
}

/// A patch cage subdivided into its smooth mesh, with its UVs and morph targets.
fn limit_surface(
    layer: &Layer,
    mut cage: Cage,
    remap: HashMap<u32, u32>,
    uv: Option<&MapLookup<'_>>,
    projection: Option<&Block>,
    morphs: &LayerMorphs<'_>,
    level: u32,
) -> MeshData {
    let has_uv = uv.is_some() || projection.is_some();
    // UVs and morph offsets ride through subdivision as extras: Catmull–Clark is linear in its
    // points, so subdividing the offsets gives exactly the subdivided morphed shape's offsets.
    if has_uv || !morphs.is_empty() {
        let mut by_cage_point: Vec<(u32, u32)> = remap.into_iter().map(|(point, slot)| (slot, point)).collect();
        by_cage_point.sort_unstable();
        cage.extra_width = 2 * usize::from(has_uv) + 3 * morphs.len();
        let mut extras = Vec::with_capacity(cage.extra_width * by_cage_point.len());
        for &(slot, point) in &by_cage_point {
            let p = cage.points[slot as usize];
            if has_uv {
                let value = match (uv, projection) {
                    (Some(map), _) => map.point_uv(point).unwrap_or([0.0, 0.0]),
                    (None, Some(block)) => project(block, &p, [0.0, 0.0, 1.0]).unwrap_or([0.0, 0.0]),
                    (None, None) => [0.0, 0.0],
                };
                extras.extend(value);
            }
            for offsets in &morphs.offsets {
                extras.extend(point_at(offsets, point));
            }
        }
        cage.extras = extras;
    }
    let smooth = subdivide(&cage, level);
    let local = |p: [f32; 3]| lwo_to_bevy(sub(p, layer.pivot));
    let mut mesh = limit_surface_mesh(&smooth, has_uv, &local);
    morphs.add_to_limit_surface(&mut mesh, &smooth, if has_uv { 2 } else { 0 });
    mesh
}

/// Per (surface, detail) mesh: how many corners its polygons have and how many triangles they give
/// when none crosses itself.
type MeshSizes = HashMap<(u32, bool), (usize, usize)>;

/// Per (surface, detail) mesh: the corners and the triangles its simple polygons will give (n − 2 each).
fn expected_sizes(layer: &Layer, options: BuildOptions, range: Range<usize>) -> MeshSizes {
    let polys = &layer.polygons;
    let mut sizes = MeshSizes::default();
    // Where every polygon is a face on no other (nearly every layer), each run of a surface is summed
    // from the start column alone.
    if polys.kind.uniform() == Some(PolygonKind::Face) && polys.detail_of.uniform() == Some(NONE) {
        let index_count = polys.indices.len();
        polys.surface.for_each_run(range.start..range.end.min(polys.len()), |surface, run| {
            let (mut corners, mut triangles) = (0, 0);
            let starts = polys.starts.get(run.start..=run.end).unwrap_or(&[]);
            // Each polygon's corners from its start and the next, summed without a branch: a choice of
            // values per polygon, which the compiler does four at a time.
            for (&start, &end) in starts.iter().zip(starts.iter().skip(1)) {
                // As `Polygons::vertices` reads it: a polygon past the index column has no corners.
                let n = if start <= end && end as usize <= index_count { (end - start) as usize } else { 0 };
                let counted = if n >= 3 { n } else { 0 };
                corners += counted;
                triangles += counted.saturating_sub(2);
            }
            if corners > 0 {
                let entry = sizes.entry((surface, false)).or_default();
                *entry = (entry.0 + corners, entry.1 + triangles);
            }
        });
        return sizes;
    }
    expected_sizes_polygon_by_polygon(layer, options, range)
}

/// [`expected_sizes`] read polygon by polygon, as any layer can be.
fn expected_sizes_polygon_by_polygon(layer: &Layer, options: BuildOptions, range: Range<usize>) -> MeshSizes {
    let polys = &layer.polygons;
    let mut sizes = MeshSizes::default();
    let mut run: Option<((u32, bool), usize, usize)> = None;
    let mut flush = |run: &mut Option<((u32, bool), usize, usize)>| {
        if let Some((key, corners, triangles)) = run.take() {
            let entry = sizes.entry(key).or_default();
            entry.0 += corners;
            entry.1 += triangles;
        }
    };
    for p in range {
        let n = polys.vertices(p).len();
        let kind = polys.kind[p];
        if !kind.is_surface() || n < 3 || (kind == PolygonKind::Patch && options.subdivision_level > 0) {
            continue;
        }
        let key = (polys.surface.get(p), polys.detail_of[p] != NONE);
        match &mut run {
            Some((k, corners, triangles)) if *k == key => {
                *corners += n;
                *triangles += n - 2;
            }
            _ => {
                flush(&mut run);
                run = Some((key, n, n - 2));
            }
        }
    }
    flush(&mut run);
    sizes
}

/// Smooth normals of a subdivided cage with its points at `points`: each point's normal is the sum of
/// its quads' normals, in Bevy's frame.
fn limit_surface_normals(points: &[[f32; 3]], cage: &Cage) -> Vec<[f32; 3]> {
    let mut sums = vec![[0.0f32; 3]; points.len()];
    for face in cage.faces() {
        let n = polygon_normal(points, face);
        for &v in face {
            let s = &mut sums[v as usize];
            *s = add(*s, n);
        }
    }
    sums.iter().map(|n| lwo_to_bevy(super::normalize(*n).unwrap_or([0.0, 1.0, 0.0]))).collect()
}

/// Triangles of a subdivided cage, shaded smooth.
fn limit_surface_mesh(cage: &Cage, has_uv: bool, local: &impl Fn([f32; 3]) -> [f32; 3]) -> MeshData {
    let mut mesh = MeshData::new(Topology::Triangles);
    mesh.positions = cage.points.iter().map(|p| local(*p)).collect();
    mesh.normals = limit_surface_normals(&cage.points, cage);
    if has_uv {
        mesh.uv_sets.push(
            (0..cage.points.len())
                .map(|i| cage.extras_of(i))
                .map(|e| [e.first().copied().unwrap_or(0.0), e.get(1).copied().unwrap_or(0.0)])
                .collect(),
        );
    }
    // Room for every triangle first (the faces are quads after one level): grown triangle by
    // triangle, the two columns were copied again and again.
    let triangles: usize = cage.faces().map(|face| face.len().saturating_sub(2)).sum();
    mesh.indices.reserve_exact(3 * triangles);
    mesh.triangle_records.reserve_exact(triangles);
    for (f, face) in cage.faces().enumerate() {
        let origin = cage.face_origins.get(f).copied().unwrap_or(NONE);
        for k in 1..face.len().saturating_sub(1) {
            mesh.indices.extend(lwo_triangle_to_bevy([face[0], face[k], face[k + 1]]));
            mesh.triangle_records.push(origin);
        }
    }
    mesh
}

/// A corner the triangulator added where the outline crosses itself: every attribute interpolated along
/// the edge between the two polygon corners it lies on.
fn push_crossing(mesh: &mut MeshData, corner_vertex: &[u32], crossing: &Crossing) {
    let (a, b, t) =
        (corner_vertex[crossing.from as usize] as usize, corner_vertex[crossing.to as usize] as usize, crossing.t);
    fn lerp<const N: usize>(values: &[[f32; N]], a: usize, b: usize, t: f32) -> [f32; N] {
        std::array::from_fn(|k| values[a][k] + (values[b][k] - values[a][k]) * t)
    }
    let position = lerp(&mesh.positions, a, b, t);
    mesh.positions.push(position);
    let normal = super::normalize(lerp(&mesh.normals, a, b, t)).unwrap_or(mesh.normals[a]);
    mesh.normals.push(normal);
    for set in &mut mesh.uv_sets {
        let uv = lerp(set, a, b, t);
        set.push(uv);
    }
    if let Some(colors) = &mut mesh.colors {
        let c = lerp(colors, a, b, t);
        colors.push(c);
    }
    for target in &mut mesh.morph_targets {
        let p = lerp(&target.positions, a, b, t);
        target.positions.push(p);
        let n = lerp(&target.normals, a, b, t);
        target.normals.push(n);
    }
}

/// A layer's morph maps (MORF, SPOT), made ready to give each vertex what it gains at weight 1.
struct LayerMorphs<'a> {
    names: Vec<&'a str>,
    /// Per morph: every point's offset, in the file's frame.
    offsets: Vec<Vec<[f32; 3]>>,
    /// Per morph: every polygon's normal in the morphed shape, for the smoothing rule.
    face_normals: Vec<Vec<[f32; 3]>>,
}

impl<'a> LayerMorphs<'a> {
    fn new(layer: &'a Layer) -> Self {
        let morphs = layer.morphs();
        let offsets: Vec<Vec<[f32; 3]>> = morphs.iter().map(|m| m.offsets(&layer.points)).collect();
        let face_normals = offsets
            .iter()
            .map(|offsets| {
                let shape: Vec<[f32; 3]> = layer.points.iter().zip(offsets).map(|(&p, &d)| add(p, d)).collect();
                face_normals_for(layer, &shape)
            })
            .collect();
        Self { names: morphs.iter().map(|m| m.name).collect(), offsets, face_normals }
    }

    fn len(&self) -> usize {
        self.names.len()
    }

    fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Empty targets, one per morph, for a new mesh of the layer.
    fn targets(&self) -> Vec<MorphTarget> {
        self.names
            .iter()
            .map(|name| MorphTarget { name: (*name).to_owned(), positions: Vec::new(), normals: Vec::new() })
            .collect()
    }

    /// The targets' values for a vertex just pushed for `point`; `corner` (its polygon and base normal,
    /// Bevy's frame) when its normal follows the shape, else the normal stays.
    fn push_vertex(
        &self,
        corner_normals: &CornerNormals<'_>,
        mesh: &mut MeshData,
        point: u32,
        corner: Option<(usize, [f32; 3])>,
    ) {
        for (k, target) in mesh.morph_targets.iter_mut().enumerate() {
            target.positions.push(lwo_to_bevy(point_at(&self.offsets[k], point)));
            let normal = corner.map_or([0.0; 3], |(polygon, base)| {
                sub(lwo_to_bevy(corner_normals.at_with(&self.face_normals[k], polygon, point)), base)
            });
            target.normals.push(normal);
        }
    }

    /// Targets for a subdivided cage whose extras hold, after `skip` values, three offsets per morph.
    fn add_to_limit_surface(&self, mesh: &mut MeshData, cage: &Cage, skip: usize) {
        mesh.morph_targets = self.targets();
        for (k, target) in mesh.morph_targets.iter_mut().enumerate() {
            let at = skip + 3 * k;
            let offsets: Vec<[f32; 3]> = (0..cage.points.len())
                .map(|i| cage.extras_of(i).get(at..at + 3).map_or([0.0; 3], |o| [o[0], o[1], o[2]]))
                .collect();
            let shape: Vec<[f32; 3]> = cage.points.iter().zip(&offsets).map(|(&p, &d)| add(p, d)).collect();
            target.normals =
                limit_surface_normals(&shape, cage).iter().zip(&mesh.normals).map(|(&n, &base)| sub(n, base)).collect();
            target.positions = offsets.into_iter().map(lwo_to_bevy).collect();
        }
    }
}

fn push_plain_vertex(mesh: &mut MeshData, p: [f32; 3]) {
    mesh.indices.push(mesh.positions.len() as u32);
    mesh.positions.push(p);
    mesh.normals.push([0.0, 1.0, 0.0]);
}

/// Triangles after triangulation (before subdivision), as `--info` reports them.
pub fn triangle_count(object: &LwoObject) -> usize {
    let mut triangulator = Triangulator::new();
    let mut tris = Vec::new();
    let mut corners = Vec::new();
    let mut total = 0;
    for layer in &object.layers {
        let polys = &layer.polygons;
        for p in 0..polys.len() {
            if !polys.kind[p].is_surface() {
                continue;
            }
            corners.clear();
            corners.extend(polys.vertices(p).iter().map(|&v| point_at(&layer.points, v)));
            tris.clear();
            total += triangulator.triangulate(&corners, &mut tris);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::fourcc::FourCc;

    /// A map of `kind` with `dimension` values an entry, for `points` (and a VMAD's `polygons`).
    fn vertex_map(
        kind: &[u8; 4],
        dimension: u16,
        name: &str,
        discontinuous: bool,
        points: &[u32],
        polygons: &[u32],
        values: Vec<f32>,
    ) -> VertexMap {
        let (points, polygons) = (points.iter().copied().collect(), polygons.to_vec());
        VertexMap {
            kind: FourCc(*kind),
            dimension,
            name: name.into(),
            discontinuous,
            points,
            polygons,
            values,
            parameters: None,
        }
    }

    /// A UV map whose entry i for point p is (p, i).
    fn uv_map(name: &str, discontinuous: bool, points: &[u32], polygons: &[u32]) -> VertexMap {
        vertex_map(
            b"TXUV",
            2,
            name,
            discontinuous,
            points,
            polygons,
            points.iter().enumerate().flat_map(|(i, &p)| [p as f32, i as f32]).collect(),
        )
    }

    /// The corner of `polygon` at `point` (its first, if the polygon lists the point twice).
    fn corner_of(layer: &Layer, point: u32, polygon: u32) -> Corner {
        let start = layer.polygons.starts[polygon as usize] as usize;
        let k = layer
            .polygons
            .vertices(polygon as usize)
            .iter()
            .position(|&v| v == point)
            .expect("the polygon has the point");
        Corner { point, polygon, at: start + k }
    }

    /// Eight triangles over six points: polygon q is (q, q + 1, q + 2), each modulo 6.
    fn layer_of_triangles() -> Layer {
        let mut layer = Layer::new(0);
        layer.points = vec![[0.0; 3]; 6];
        for q in 0..8u32 {
            let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
            layer.polygons.push(PolygonKind::Face, 0, &[q % 6, (q + 1) % 6, (q + 2) % 6], 0, NONE, record);
        }
        layer
    }

    #[test]
    fn a_map_lookup_finds_each_points_entry_in_order_or_not() {
        let mut layer = layer_of_triangles();
        // Entry k is point k (the first four points): no table.
        layer.vertex_maps.push(uv_map("ordered", false, &[0, 1, 2, 3], &[]));
        // Out of order, point 2 twice (the later entry wins), a point past the layer's end.
        layer.vertex_maps.push(uv_map("shuffled", false, &[4, 2, 0, 2, 9], &[]));
        // Per corner: point 1 of polygon 7 differs from the map.
        layer.vertex_maps.push(uv_map("ordered", true, &[1], &[7]));
        let ordered = MapLookup::new(&layer, UV_KINDS, "ordered").unwrap();
        assert!(ordered.in_point_order && ordered.entry_of_point.is_empty());
        let got: Vec<_> = (0..6).map(|p| ordered.point_entry(p).map(|(m, e)| m.value(e).to_vec())).collect();
        assert_eq!(
            got,
            [Some(vec![0.0, 0.0]), Some(vec![1.0, 1.0]), Some(vec![2.0, 2.0]), Some(vec![3.0, 3.0]), None, None]
        );
        assert_eq!(ordered.get(corner_of(&layer, 1, 7)), Some(&[1.0, 0.0][..]), "the VMAD entry wins at its corner");
        assert_eq!(ordered.get(corner_of(&layer, 1, 0)), Some(&[1.0, 1.0][..]), "and only there");
        // A second PNTS left fewer points than the maps name: past them, nothing, as with a table.
        let mut shrunk = layer.clone();
        shrunk.points.truncate(2);
        let ordered_past_points = MapLookup::new(&shrunk, UV_KINDS, "ordered").unwrap();
        let at_point = |p| ordered_past_points.point_entry(p).map(|(m, e)| m.value(e));
        assert_eq!((at_point(1).is_some(), at_point(2), at_point(3)), (true, None, None));
        let shuffled = MapLookup::new(&layer, UV_KINDS, "shuffled").unwrap();
        assert!(!shuffled.in_point_order);
        let got: Vec<_> = (0..6).map(|p| shuffled.point_entry(p).map(|(m, e)| m.value(e)[1])).collect();
        assert_eq!(got, [Some(2.0), None, Some(3.0), None, Some(0.0), None]);
    }

    /// A 5 × 5 grid of points in 16 quads, smoothed; the left half of surface 0, the right of surface 1
    /// (the middle column's points are in both meshes). Its UV map gives point 11 (inside the left half)
    /// NaN, and a VMAD gives point 6 its own UV in polygon 0 only.
    fn grid_with_nan_and_a_named_corner() -> (Layer, Vec<Surface>) {
        let mut layer = Layer::new(0);
        layer.points = (0..25).map(|i| [(i % 5) as f32, ((i / 5) as f32 * 0.7).sin(), (i / 5) as f32]).collect();
        for q in 0..16u32 {
            let (i, j) = (q % 4, q / 4);
            let a = j * 5 + i;
            let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
            layer.polygons.push(PolygonKind::Face, 0, &[a, a + 1, a + 6, a + 5], u32::from(i >= 2), NONE, record);
        }
        let mut uv = uv_map("UV", false, &(0..25).collect::<Vec<_>>(), &[]);
        uv.values[2 * 11] = f32::NAN;
        layer.vertex_maps.push(uv);
        layer.vertex_maps.push(uv_map("UV", true, &[6], &[0]));
        let smooth = |name: &str| Surface { max_smoothing_angle: 1.5, ..Surface::new(name) };
        (layer, vec![smooth("left"), smooth("right")])
    }

    /// Corners that take their point's vertex unexamined give every layer the meshes that making and
    /// comparing every corner's values gives, to the bit: the assimp corpus (flat and smooth, seams of
    /// cylindrical and spherical projections, vertex colours) and damaged copies of it that still
    /// parse (`fixtures::lwo::damaged_copy`), the LightWave 2018 objects, the generated
    /// terrain (four surfaces, a UV seam; once over two polygon ranges), and a grid with a NaN UV, a
    /// corner a VMAD names and points in two surfaces' meshes, again with a VMAD naming most corners,
    /// and again with triangles and a quad naming a point twice, a triangle naming a point past the
    /// layer's and patches after a face; each with its patches subdivided and left as cages. Where
    /// the shortcut is off (modo's stored normals, the morphs of the LightWave 2018 objects), only
    /// that it is off is checked. The comparing build is also the loop compiled for
    /// every kind of layer, so plain layers (flat and smooth) hold the plain loop to it as well.
    #[test]
    fn corners_taking_their_points_vertex_get_what_comparing_every_corner_gets() {
        let corpus = crate::fixtures::lwo::lightwave_files_under(&["/usr/share/assimp/models/LWO".into()]);
        let lightwave_2018 =
            crate::fixtures::lwo::lightwave_files_under(&[
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lightwave-2018")
            ]);
        let parsed = |(name, bytes): &(String, Vec<u8>)| {
            let object = crate::formats::lwo::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}")).1;
            (name.clone(), object.layers, object.surfaces)
        };
        let mut objects: Vec<(String, Vec<Layer>, Vec<Surface>)> =
            corpus.iter().chain(&lightwave_2018).map(parsed).collect();
        assert!(objects.len() >= 50, "the 42 corpus files and the 8 LightWave 2018 objects, found {}", objects.len());
        // Each also smoothed (most of the corpus is flat: its projections' seams would not be met), and
        // where a surface projects its UVs, cubically too.
        for (name, layers, surfaces) in objects.clone() {
            let smoothed: Vec<Surface> =
                surfaces.iter().map(|s| Surface { max_smoothing_angle: 1.5, ..s.clone() }).collect();
            if smoothed.iter().any(|s| projecting_block(Some(s)).is_some()) {
                let mut cubic = smoothed.clone();
                cubic.iter_mut().flat_map(|s| &mut s.blocks).for_each(|b| b.projection = Projection::Cubic);
                objects.push((format!("{name}, smoothed, cubic"), layers.clone(), cubic));
            }
            objects.push((format!("{name}, smoothed"), layers, smoothed));
        }
        // Damaged copies of the corpus's objects that still parse: points and indices the files never
        // hold (NaN and huge coordinates, polygons cut short or repeated, a second layer), of 30 tried
        // for each file.
        let mut next = crate::fixtures::xorshift64(0xC0FF_EED0);
        let mut damaged = 0;
        for (name, bytes) in &corpus {
            for case in 0..30 {
                if let Ok((_, object)) =
                    crate::formats::lwo::parse(&crate::fixtures::lwo::damaged_copy(bytes, &mut next))
                {
                    objects.push((format!("{name}, damaged copy {case}"), object.layers, object.surfaces));
                    damaged += 1;
                }
            }
        }
        assert!(damaged > 500, "{damaged} damaged copies parsed");
        for (columns, rows) in [(40, 30), (300, 240)] {
            let terrain =
                crate::formats::lwo::parse(&crate::fixtures::lwo::large_object(columns, rows)).expect("parses").1;
            objects.push((format!("terrain {columns} × {rows}"), terrain.layers, terrain.surfaces));
        }
        let (grid, grid_surfaces) = grid_with_nan_and_a_named_corner();
        // A VMAD naming every corner of the first eight polygons, each its own UV: kept by corner.
        let mut dense = grid.clone();
        let named: Vec<(u32, u32)> = (0..8u32)
            .flat_map(|q| dense.polygons.vertices(q as usize).iter().map(move |&v| (v, q)).collect::<Vec<_>>())
            .collect();
        let (points, polygons): (Vec<u32>, Vec<u32>) = named.into_iter().unzip();
        dense.vertex_maps[1] = uv_map("UV", true, &points, &polygons);
        // After the grid, polygons of its left surface that name a point twice (triangles, which the
        // plain loop builds, and a quad, which the general one does) or a point past the layer's, and
        // patches after a face (subdivided, they are not the plain loop's).
        let mut repeated = grid.clone();
        let (face, patch) = (PolygonKind::Face, PolygonKind::Patch);
        let extra: [(PolygonKind, &[u32]); 9] = [
            (face, &[10, 11, 16, 15]),
            (face, &[0, 0, 1]),
            (face, &[2, 3, 2]),
            (face, &[5, 6, 6, 7]),
            (face, &[10, 11, 16, 15]),
            (face, &[7, 8, 99]),
            (face, &[11, 12, 12]),
            (patch, &[1, 2, 7, 6]),
            (patch, &[2, 3, 8, 7]),
        ];
        for (q, (kind, corners)) in extra.into_iter().enumerate() {
            let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: 16 + q as u32 };
            repeated.polygons.push(kind, 0, corners, 0, NONE, record);
        }
        objects.push(("grid".into(), vec![grid], grid_surfaces.clone()));
        objects.push(("grid, a VMAD naming most corners".into(), vec![dense], grid_surfaces.clone()));
        objects.push(("grid, corners named twice and a point past the layer's".into(), vec![repeated], grid_surfaces));
        // Subdivided (the default) and not: patches left as cages are built as faces are.
        let cages = BuildOptions { subdivision_level: 0, ..BuildOptions::default() };
        for (name, layers, surfaces) in &objects {
            for (index, layer) in layers.iter().enumerate() {
                for options in [BuildOptions::default(), cages] {
                    let [shortcut, compared] =
                        [VertexSearch::ByPointWherePossible, VertexSearch::EveryCorner].map(|search| {
                            let built = build_layer(layer, surfaces, options, &|| {}, search);
                            // Debug's text, where NaN equals NaN.
                            format!(
                                "{:?}",
                                (built.surfaces, built.lines, built.points, built.triangles, built.degenerate)
                            )
                        });
                    assert!(shortcut == compared, "{name}, layer {index}, {options:?}");
                }
            }
        }
        // Each half has its 15 points' vertices, and one more for each of the middle column's points 7,
        // 12 and 17, whose corners go left, right, left, right (a point's vertex is looked for in the
        // mesh of its latest corner). The left half also has a vertex for each of the NaN point's
        // three other corners, and for point 6's named corner.
        let (grid, grid_surfaces) = grid_with_nan_and_a_named_corner();
        let built =
            build_layer(&grid, &grid_surfaces, BuildOptions::default(), &|| {}, VertexSearch::ByPointWherePossible);
        let vertices: Vec<usize> = built.surfaces.iter().map(|s| s.mesh.positions.len()).collect();
        assert_eq!(vertices, [15 + 3 + 3 + 1, 15 + 3]);
    }

    /// Where the file's normals answer every corner, no normal is made (`CornerNormals::unasked`),
    /// and the meshes are those made when they are: modo's two corpus objects, each against itself
    /// with one more point that no polygon uses and the NORM map does not name, which leaves the map
    /// short of a point and so has the normals made. A map missing a point, or with a value that
    /// gives no direction (zero, NaN) at a point or in its VMAD, answers for not every corner, nor
    /// does any map where a polygon names a point past the layer's.
    #[test]
    fn a_layer_whose_every_corner_has_a_stored_normal_is_built_as_one_whose_normals_are_made() {
        let corpus = std::path::Path::new("/usr/share/assimp/models/LWO");
        for name in ["LWO2/ModoExport_vertNormals.lwo", "LXOB_Modo/sphereWithVertMap.lxo"] {
            let bytes = std::fs::read(corpus.join(name)).expect("the assimp corpus (assimp-testmodels)");
            let object = crate::formats::lwo::parse(&bytes).expect("parses").1;
            let layer = &object.layers[0];
            let mut extended = layer.clone();
            extended.points.push([1.0, 2.0, 3.0]);
            let stored = |layer: &Layer| {
                let map = layer.vertex_maps.iter().find(|m| m.kind.0 == *b"NORM").expect("a NORM map");
                MapLookup::new(layer, &[b"NORM"], &map.name).expect("a lookup").directs_every_corner(layer)
            };
            assert!(stored(layer) && !stored(&extended), "{name}");
            let [unasked, made] = [layer, &extended].map(|layer| {
                let built = build_layer(
                    layer,
                    &object.surfaces,
                    BuildOptions::default(),
                    &|| {},
                    VertexSearch::ByPointWherePossible,
                );
                format!("{:?}", (built.surfaces, built.lines, built.points, built.triangles, built.degenerate))
            });
            assert!(unasked == made, "{name}");
        }
        let normals = |name: &str, discontinuous: bool, points: &[u32], polygons: &[u32], values: &[[f32; 3]]| {
            vertex_map(b"NORM", 3, name, discontinuous, points, polygons, values.as_flattened().to_vec())
        };
        let up = [[0.0, 1.0, 0.0]; 6];
        let directs = |maps: Vec<VertexMap>| {
            let mut layer = layer_of_triangles();
            layer.vertex_maps = maps;
            MapLookup::new(&layer, &[b"NORM"], "n").unwrap().directs_every_corner(&layer)
        };
        assert!(directs(vec![normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &up)]));
        assert!(directs(vec![
            normals("n", false, &[5, 4, 3, 2, 1, 0], &[], &up),
            normals("n", true, &[1], &[7], &[[2.0, 0.0, 0.0]])
        ]));
        assert!(!directs(vec![normals("n", false, &[0, 1, 2, 3, 4], &[], &up[..5])]), "a point missing");
        let mut zero = up;
        zero[3] = [0.0; 3];
        assert!(!directs(vec![normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &zero)]), "a zero normal");
        assert!(
            !directs(vec![
                normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &up),
                normals("n", true, &[1], &[7], &[[f32::NAN, 0.0, 1.0]])
            ]),
            "a NaN in the VMAD"
        );
        // A second PNTS left five points: polygons still name the sixth, which no entry answers for
        // (its corners' normals are made, smoothed; a review found the shortcut had skipped them).
        let mut short = layer_of_triangles();
        short.vertex_maps = vec![normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &up)];
        short.points.truncate(5);
        assert!(
            !MapLookup::new(&short, &[b"NORM"], "n").unwrap().directs_every_corner(&short),
            "a corner past the layer's points"
        );
    }

    /// A cylindrically or spherically mapped surface that holds every face of its layer has every
    /// point's UV made before its corners ask (`build_range`); with one more face on another surface,
    /// its corners make them as they meet their points. Its mesh is the same either way, on the
    /// corpus's cylinders and spheres (with and without repeats).
    #[test]
    fn uvs_made_before_the_corners_ask_give_the_mesh_the_corners_give() {
        let corpus = std::path::Path::new("/usr/share/assimp/models/LWO/LWO2/MappingModes");
        for name in [
            "earth_cylindrical_x.lwo",
            "earth_cylindrical_x_scale_222_wrap_21.lwo",
            "earth_spherical_y.lwo",
            "earth_spherical_z_wrap_22.lwo",
        ] {
            let bytes = std::fs::read(corpus.join(name)).expect("the assimp corpus (assimp-testmodels)");
            let object = crate::formats::lwo::parse(&bytes).expect("parses").1;
            let layer = &object.layers[0];
            let mut shared = layer.clone();
            let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: 0 };
            shared.polygons.push(PolygonKind::Face, 0, &[0, 1, 2], 7, NONE, record);
            let [(alone, up_front), (beside_another, not_up_front)] = [layer, &shared].map(|layer| {
                let made_before = UVS_MADE_UP_FRONT.with(|made| made.get());
                let built = build_layer(
                    layer,
                    &object.surfaces,
                    BuildOptions::default(),
                    &|| {},
                    VertexSearch::ByPointWherePossible,
                );
                let mesh = built.surfaces.into_iter().find(|s| s.surface == 0).expect("the mapped surface's mesh").mesh;
                (mesh, UVS_MADE_UP_FRONT.with(|made| made.get()) - made_before)
            });
            assert_eq!((up_front, not_up_front), (1, 0), "{name}: which way each build made its UVs");
            assert!(
                alone.uv_sets.first().is_some_and(|uvs| uvs.len() == alone.positions.len() && !uvs.is_empty()),
                "{name}: the surface has UVs"
            );
            assert!(alone == beside_another, "{name}");
        }
    }

    /// A VMAD read through its per-corner table and through its sorted entries names the same entry
    /// at every corner: a dense map with corners named twice (the later wins), a polygon listing a
    /// point twice, an entry for a point its polygon lacks and one for a polygon past the layer's.
    #[test]
    fn a_vmad_by_corner_and_sorted_agree_at_every_corner() {
        let mut layer = layer_of_triangles();
        let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: 8 };
        layer.polygons.push(PolygonKind::Face, 0, &[3, 4, 3, 5], 0, NONE, record);
        let mut points = Vec::new();
        let mut polygons = Vec::new();
        for q in (0..9u32).rev() {
            for &v in layer.polygons.vertices(q as usize) {
                points.push(v);
                polygons.push(q);
            }
        }
        // Named again later (this entry wins), a point polygon 2 lacks, a polygon the layer lacks.
        points.extend([3, 5, 1]);
        polygons.extend([2, 2, 40]);
        let vmad = uv_map("seams", true, &points, &polygons);
        // A second PNTS left five points: point 5's corners stay, and no entry names them.
        let mut fewer_points = layer.clone();
        fewer_points.points.truncate(5);
        for layer in [&layer, &fewer_points] {
            let table = VmadEntries::by_corner(layer, &vmad, usize::MAX).expect("no budget");
            let sorted = VmadEntries::sorted(layer, &vmad);
            assert!(
                matches!(VmadEntries::new(layer, &vmad), VmadEntries::ByCorner(_)),
                "a map naming every corner takes the table"
            );
            for q in 0..9u32 {
                let start = layer.polygons.starts[q as usize] as usize;
                for (k, &point) in layer.polygons.vertices(q as usize).iter().enumerate() {
                    let corner = Corner { point, polygon: q, at: start + k };
                    assert_eq!(table.at(corner), sorted.at(corner), "polygon {q}, corner {k}");
                    assert_eq!(table.at(corner).is_some(), (point as usize) < layer.points.len());
                }
            }
            assert_eq!(table.at(corner_of(layer, 3, 2)), Some(points.len() - 3), "the later entry wins");
        }
        // Past its budget of corners looked at, the table gives way to the sorted list.
        let corners = layer.polygons.indices.len();
        assert!(VmadEntries::by_corner(&layer, &vmad, corners).is_none());
        // Few entries: the sorted list.
        let seam = uv_map("seams", true, &[1], &[7]);
        assert!(matches!(VmadEntries::new(&layer, &seam), VmadEntries::Sorted { .. }));
    }

    /// The quick quad test's cache answers each quad as the quad's own test does, wherever in a block
    /// the quad sits and however it is asked: concave quads (which fail) at every place modulo eight
    /// among convex quads (which pass), triangles and pentagons (other lanes), asked in order from
    /// several starts, every polygon or every second or third, as the range loops ask.
    #[test]
    fn the_quick_quad_cache_answers_each_quad_as_its_own_test() {
        let mut layer = Layer::new(0);
        // A square 0-1-2-3 and, with corner 4 inside it, a dart 0-1-4-3 reflex at corner 2.
        layer.points = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, 2.0], [0.0, 0.0, 2.0], [0.5, 0.0, 0.5]];
        let (square, dart): (&[u32], &[u32]) = (&[0, 1, 2, 3], &[0, 1, 4, 3]);
        for q in 0..100u32 {
            let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
            let shape: &[u32] = match q {
                _ if q % 9 == 0 => dart,
                _ if q % 5 == 3 => &[0, 1, 2],
                _ if q % 7 == 6 => &[0, 1, 4, 2, 3],
                _ => square,
            };
            layer.polygons.push(PolygonKind::Face, 0, shape, 0, NONE, record);
        }
        let own_test = |p: usize| match *layer.polygons.vertices(p) {
            [a, b, c, d] => Some(fans_quickly(&[a, b, c, d].map(|v| point_at(&layer.points, v)))),
            _ => None,
        };
        // The darts sit at every place in a block of eight, and fail; the squares pass.
        let darts: Vec<usize> = (0..100).filter(|&p| layer.polygons.vertices(p) == dart).collect();
        assert_eq!(
            darts.iter().map(|p| p % QUICK_QUAD_LANES).collect::<std::collections::BTreeSet<_>>().len(),
            QUICK_QUAD_LANES
        );
        assert!(darts.iter().all(|&p| own_test(p) == Some(false)));
        assert_eq!(own_test(1), Some(true));
        for start in [0, 5, 13, 98] {
            for step in 1..=3 {
                let mut cache = QuickQuads::new();
                for p in (start..100).step_by(step) {
                    if let Some(answer) = own_test(p) {
                        assert_eq!(cache.fans(&layer, p), answer, "polygon {p}, from {start} by {step}");
                    }
                }
            }
        }
    }

    /// Sizes summed run by run from the start column equal the sizes read polygon by polygon, over
    /// ranges that cut runs or go past the layer's end: surfaces in runs and alternating, one-, two-
    /// and five-corner polygons, a surface column of two-byte values, and corpus objects (a patch or
    /// a detail polygon sends a layer to the polygon path: there the test checks that gate).
    #[test]
    fn expected_sizes_by_runs_are_the_polygon_by_polygon_sizes() {
        let mut layer = Layer::new(0);
        layer.points = vec![[0.0; 3]; 8];
        let shapes: [&[u32]; 6] = [&[0, 1, 2, 3], &[0, 1, 2], &[4], &[5, 6], &[0, 1, 2, 3, 4], &[7, 6, 5]];
        for q in 0..200u32 {
            let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
            let surface = match q {
                0..60 => 0,
                60..120 => q % 3,
                _ => 300 + q / 40,
            };
            layer.polygons.push(PolygonKind::Face, 0, shapes[(q as usize * 7) % 6], surface, NONE, record);
        }
        let mut layers = vec![layer.clone()];
        let mut patches = layer.clone();
        patches.polygons.kind.set(5, patches.polygons.len(), PolygonKind::Patch);
        layers.push(patches);
        let mut details = layer;
        details.polygons.detail_of.set(9, details.polygons.len(), 3);
        layers.push(details);
        for name in ["LWO2/UglyVertexColors.lwo", "LXOB_Modo/CrazyEngine.lxo", "LWO2/hierarchy.lwo"] {
            let bytes = std::fs::read(format!("/usr/share/assimp/models/LWO/{name}"))
                .expect("the assimp corpus (apt-get install assimp-testmodels)");
            layers.extend(crate::formats::lwo::parse(&bytes).expect("a corpus object").1.layers);
        }
        for layer in &layers {
            let n = layer.polygons.len();
            for options in [BuildOptions::default(), BuildOptions { subdivision_level: 0, ..BuildOptions::default() }] {
                for range in
                    [0..n, 0..n / 3, n / 3..n, 7.min(n)..n.saturating_sub(5).max(7.min(n)), n / 2..n + 3, n..n + 5]
                {
                    let by_polygon = expected_sizes_polygon_by_polygon(layer, options, range.clone());
                    assert_eq!(expected_sizes(layer, options, range.clone()), by_polygon, "range {range:?} of {n}");
                }
            }
        }
    }
}
