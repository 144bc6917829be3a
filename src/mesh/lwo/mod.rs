//! LightWave object → meshes: one triangle mesh per layer and surface (detail polygons apart, so they
//! can be drawn over their base), a line list for curves, bones and two-point polygons, and a point
//! list for one-point polygons and metaballs.
//!
//! The work is split by stage: `maps` looks corners up in the vertex maps, `range` builds a range of
//! a layer's polygons on one thread, `plain` holds its fast paths for plain triangles and quads,
//! `patches` subdivides PTCH/SUBD cages, `sizes` counts what each mesh will hold before it is built,
//! and `morphs` gives vertices their morph targets.

use std::ops::Range;

use crate::formats::lwo::{Layer, LwoObject, Surface};

use super::coords::lwo_to_bevy;
use super::normals::{CornerNormals, PointNormals};
use super::triangulate::Triangulator;
use super::{Bounds, MeshData, point_at, sub};

mod maps;
mod morphs;
mod patches;
mod plain;
mod range;
mod sizes;
#[cfg(test)]
mod tests;

use self::maps::{MapLookup, MapLookups, UV_KINDS, corner_maps_by_surface, projecting_block, uv_map_name};
use self::morphs::LayerMorphs;
use self::patches::{limit_surface, patch_cages};
use self::range::{LayerInputs, POLYGONS_PER_RANGE, RangeMeshes, RangeScratch, VertexSearch, build_range};
use self::sizes::{MeshSizes, expected_sizes};

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

/// Triangles after triangulation (before subdivision), as `--info` reports them.
pub fn triangle_count(object: &LwoObject) -> usize {
    let mut triangulator = Triangulator::new();
    let mut tris = Vec::new();
    let mut corners = Vec::new();
    let mut total = 0;
    for layer in &object.layers {
        let polys = &layer.polygons;
        for p in 0..polys.len() {
            if !polys.kind()[p].is_surface() {
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
