//! One range of a layer's polygons built into meshes of its own, on whichever thread takes it: what
//! every range reads, what a thread keeps from one range to the next, and the loop that builds them.

use std::ops::Range;

use crate::formats::lwo::{Block, Layer, NONE, PolygonKind, Projection};
use crate::mesh::coords::{lwo_to_bevy, lwo_triangle_to_bevy};
use crate::mesh::normals::{CornerNormals, PointNormals, polygon_normal};
use crate::mesh::point_table::PagedPointTable;
use crate::mesh::projection::{project, project_all_around, unwrap_seam};
use crate::mesh::triangulate::{Triangulator, fans_quickly};
use crate::mesh::{MeshData, Topology, append_triangles, point_at, point_ref, sub};

use super::maps::{CornerMaps, MapLookup, PointValues};
use super::morphs::{LayerMorphs, push_crossing, push_plain_vertex};
use super::plain::{KeptProjection, PlainRun, PolygonCorners, QuickQuads, keep_uv, polygon_corners, projected_uv};
use super::sizes::MeshSizes;
use super::{BuildOptions, HashMap, SurfaceMesh};

/// Polygons per range of a layer built on its own thread. Fixed, not a share of the cores, so a file
/// builds the same meshes on every machine; a layer below it is one range, built as one sequence.
pub(super) const POLYGONS_PER_RANGE: usize = 1 << 16;

/// What every polygon range of a layer reads, made once and shared by the threads.
pub(super) struct LayerInputs<'a> {
    pub(super) layer: &'a Layer,
    pub(super) options: BuildOptions,
    pub(super) normals: &'a CornerNormals<'a>,
    /// The normal each point's corners share, where they do.
    pub(super) point_normals: &'a PointNormals,
    /// modo writes its own vertex normals as a NORM map; where one is present it wins.
    pub(super) stored_normals: Option<MapLookup<'a>>,
    pub(super) morphs: &'a LayerMorphs<'a>,
    /// The maps each surface's corners read, by surface index.
    pub(super) maps_of_surface: HashMap<u32, CornerMaps<'a>>,
    /// No corner of the layer has a stored normal or a morph, and its vertices are searched by point
    /// where possible: runs of its triangles and quads can be built by the plain loop ([`PlainRun`]),
    /// compiled with colours and a second UV set for the surfaces that have them.
    pub(super) plain_loop_serves_layer: bool,
}

impl<'a> LayerInputs<'a> {
    pub(super) fn local(&self, p: [f32; 3]) -> [f32; 3] {
        lwo_to_bevy(sub(p, self.layer.pivot))
    }
}

/// How a corner's vertex is found in `build_range`.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum VertexSearch {
    /// Where a corner's values are its point's alone, the point's vertex is taken unexamined.
    ByPointWherePossible,
    /// Every corner's values made and compared, in the loop compiled for every kind of layer (what
    /// the shortcuts must equal; their tests ask for it).
    #[cfg(test)]
    EveryCorner,
}

/// What one range of a layer's polygons builds.
pub(super) struct RangeMeshes {
    /// One mesh per (surface, detail) in the order the range first meets them.
    pub(super) surfaces: Vec<SurfaceMesh>,
    pub(super) lines: MeshData,
    pub(super) points: MeshData,
    /// PTCH/SUBD polygons left for subdivision (when it is on), in file order.
    pub(super) patches: Vec<u32>,
    pub(super) triangles: usize,
    pub(super) degenerate: usize,
}

impl RangeMeshes {
    /// Nothing built yet; lines and points carry the layer's morph targets, as every mesh of it does.
    pub(super) fn empty(morphs: &LayerMorphs<'_>) -> Self {
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
    pub(super) fn append(&mut self, next: RangeMeshes, spare: &mut Vec<MeshData>, layer_sizes: &MeshSizes) {
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
    pub(super) static UVS_MADE_UP_FRONT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Set in a point's table entry beside its mesh's slot when its vertex there was made by a corner whose
/// values are not its point's alone (see [`PointValues`]), or are NaN: no corner takes it unexamined.
pub(super) const PER_CORNER_VERTEX: u32 = 1 << 31;

/// The bits of a NaN: a projected UV is kept XOR these, so zeroed memory means "not made yet".
pub(super) const UNKNOWN_UV: u32 = 0x7FC0_0000;

/// What a thread keeps from one polygon range of a layer to the next: working buffers, and tables by
/// the layer's point, paged so that they hold the pages of the points a range touches (a range's points
/// can span most of the layer, as when points added later sit at its end), cleared after each range.
pub(super) struct RangeScratch {
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
    pub(super) spare_meshes: Vec<MeshData>,
}

impl RangeScratch {
    pub(super) fn new(point_count: usize) -> Self {
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
/// the surfaces that have either. The steps a polygon goes through are functions of their own, those
/// taken for every polygon always inlined, so that the loop still compiles as one piece.
pub(super) fn build_range<const BY_POINT: bool, const PLAIN: bool>(
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
    let mut meshes = MeshSlots { slot_of: HashMap::default(), last: None };
    let end = range.end;
    let mut next = range.start;
    while next < end {
        let p = next;
        next += 1;
        let vertices = polys.vertices(p);
        let kind = polys.kind()[p];
        let surface_index = polys.surface().get(p);
        let n = vertices.len();
        if !kind.is_surface() || n < 3 {
            push_points_or_lines(inputs, &mut out, kind, vertices);
            continue;
        }
        let mut quad_points = [[0.0; 3]; 4];
        let polygon_points = read_polygon_points(layer, vertices, &mut quad_points, corner_points);
        let made = triangulate(layer, p, vertices, polygon_points, triangulator, quick_quads, tris);
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
        let key = (surface_index, polys.detail_of()[p] != NONE);
        let Some((slot, maps)) = meshes.slot(key, inputs, &mut out, spare_meshes, expected) else { continue };
        let mesh = &mut out.surfaces[slot].mesh;
        // How a point's table entry names this mesh (0 is "no vertex yet").
        let slot_tag = slot as u32 + 1;
        projected_uvs.clear();
        let at_the_seam = maps.projection.is_some_and(|block| {
            let every_face = || holds_every_face(layer, &range, expected, key);
            project_corners(block, layer, vertices, projected_uvs, projected_points, every_face)
        });
        corner_vertex.clear();
        // A flat-shaded polygon's corners all have its normal: looked up once, not per corner.
        let flat = normals.flat_normal(p, surface_index).map(lwo_to_bevy);
        // The polygon's first corner in the layer's index column, where per-corner tables are read.
        let first_corner = polys.starts().get(p).map_or(0, |&s| s as usize);
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
        append_polygon_triangles(mesh, tris, corner_vertex, p as u32);
        if PLAIN || inputs.plain_loop_serves_layer {
            // The polygons after this one that are plain triangles and quads of its mesh, in a loop of
            // their own (where the surface has a colour map or a second UV set, in the loop compiled
            // with them).
            if let Some(projection) = kept_projection(maps.projection, projected_points) {
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
                next = run.build_compiled_for::<BY_POINT, PLAIN>(mesh, next, end);
            }
        }
    }
    scratch.clear();
    out
}

/// The mesh each (surface, detail) has in a range, by its slot among the range's meshes.
struct MeshSlots<'m, 'a> {
    slot_of: HashMap<(u32, bool), usize>,
    /// The previous polygon's key, its mesh's slot and its surface's maps.
    last: Option<((u32, bool), usize, &'m CornerMaps<'a>)>,
}

impl<'m, 'a> MeshSlots<'m, 'a> {
    /// The slot of the mesh for `key` and its surface's maps, the mesh made (in `out`) when the range
    /// meets the key first; `None` for a surface the layer's maps were not gathered for.
    #[inline(always)]
    fn slot(
        &mut self,
        key: (u32, bool),
        inputs: &'m LayerInputs<'a>,
        out: &mut RangeMeshes,
        spare_meshes: &mut Vec<MeshData>,
        expected: &MeshSizes,
    ) -> Option<(usize, &'m CornerMaps<'a>)> {
        // Polygons come in runs of one surface: the previous polygon's mesh is usually this one's.
        if let Some((last_key, slot, maps)) = self.last
            && last_key == key
        {
            return Some((slot, maps));
        }
        let (surface, detail) = key;
        let maps = inputs.maps_of_surface.get(&surface)?;
        let slot = *self.slot_of.entry(key).or_insert_with(|| {
            let mesh = new_surface_mesh(spare_meshes, inputs.morphs, maps, expected.get(&key));
            out.surfaces.push(SurfaceMesh { surface, detail, mesh });
            out.surfaces.len() - 1
        });
        self.last = Some((key, slot, maps));
        Some((slot, maps))
    }
}

/// A polygon's corners' points: a quad's in `quad`, on the caller's stack (a call to grow the scratch
/// buffer cost more than reading a quad's four points), others' in `corner_points`.
#[inline(always)]
fn read_polygon_points<'s>(
    layer: &Layer,
    vertices: &[u32],
    quad: &'s mut [[f32; 3]; 4],
    corner_points: &'s mut Vec<[f32; 3]>,
) -> &'s [[f32; 3]] {
    let at = |v| point_at(&layer.points, v);
    match *vertices {
        [a, b, c, d] => {
            *quad = [at(a), at(b), at(c), at(d)];
            quad
        }
        _ => {
            corner_points.clear();
            corner_points.extend(vertices.iter().map(|&v| at(v)));
            corner_points
        }
    }
}

/// Polygon `p`'s triangles into `tris`, by its corners; how many were made.
#[inline(always)]
fn triangulate(
    layer: &Layer,
    p: usize,
    vertices: &[u32],
    polygon_points: &[[f32; 3]],
    triangulator: &mut Triangulator,
    quick_quads: &mut QuickQuads,
    tris: &mut Vec<[u32; 3]>,
) -> usize {
    tris.clear();
    // The quick test on copies read from the layer's points, not on the array just written (see
    // `Triangulator::triangulate_pretested`).
    let at = |v| point_at(&layer.points, v);
    let passed_quick_test = match *vertices {
        [a, b, c] => fans_quickly(&[at(a), at(b), at(c)]),
        [_, _, _, _] => quick_quads.fans(layer, p),
        _ => false,
    };
    triangulator.triangulate_pretested(polygon_points, passed_quick_test, tris)
}

/// A polygon that is no surface or has fewer than three corners: a one-point polygon's or a metaball's
/// points into the range's point list, another's edges into its line list.
fn push_points_or_lines(inputs: &LayerInputs<'_>, out: &mut RangeMeshes, kind: PolygonKind, vertices: &[u32]) {
    let LayerInputs { layer, normals, morphs, .. } = *inputs;
    match (kind, vertices.len()) {
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
}

/// A new mesh for a (surface, detail) a range meets first, made of a spare one's memory where there is
/// one, with the columns the surface's maps fill.
fn new_surface_mesh(
    spare_meshes: &mut Vec<MeshData>,
    morphs: &LayerMorphs<'_>,
    maps: &CornerMaps<'_>,
    expected: Option<&(usize, usize)>,
) -> MeshData {
    let mut mesh = spare_meshes
        .pop()
        .unwrap_or_else(|| MeshData { morph_targets: morphs.targets(), ..MeshData::new(Topology::Triangles) });
    let uv_set_count =
        usize::from(maps.uv.is_some() || maps.projection.is_some()) * (1 + usize::from(maps.second_uv.is_some()));
    mesh.uv_sets.resize_with(uv_set_count, Vec::new);
    mesh.colors = maps.color.is_some().then(|| mesh.colors.take().unwrap_or_default());
    // Sized up front for the most the range can make without crossings, one vertex per corner: growing
    // by doubling copies (modo's stored normals split most points), and the unused end of a large
    // vertex column is never touched, so it costs no memory.
    if let Some(&(corners, triangles)) = expected {
        mesh.positions.reserve_exact(corners);
        mesh.normals.reserve_exact(corners);
        mesh.uv_sets.iter_mut().for_each(|set| set.reserve_exact(corners));
        if let Some(colors) = &mut mesh.colors {
            colors.reserve_exact(corners);
        }
        mesh.indices.reserve_exact(3 * triangles);
        mesh.triangle_records.reserve_exact(triangles);
    }
    mesh
}

/// A point's projected UV, per projecting block, made once however many corners share the point (a
/// sphere's point has four; each costs two arc tangents). Cubic projection depends on the polygon's
/// normal and is not kept, and neither are more blocks than a few.
const KEPT_PROJECTIONS: usize = 4;

/// Whether one mesh holds every face of the layer: the whole layer is this range, and one (surface,
/// detail) has all its faces' corners, at least as many as the layer has points (so that a layer of many
/// points and few faces does not have them all projected for a few corners).
fn holds_every_face(layer: &Layer, range: &Range<usize>, expected: &MeshSizes, key: (u32, bool)) -> bool {
    let whole_layer = range.start == 0 && range.end >= layer.polygons.len();
    let all_corners: usize = expected.values().map(|&(corners, _)| corners).sum();
    whole_layer
        && layer.points.len() <= all_corners
        && expected.get(&key).is_some_and(|&(corners, _)| corners == all_corners)
}

/// Each corner's UV by a projecting block, pushed to `projected_uvs`: from the block's table of the
/// points' projected UVs where it is kept, else made for the corner. Whether the polygon straddles a
/// cylindrical or spherical projection's seam (its UVs are then unwrapped).
#[inline(always)]
fn project_corners(
    block: &Block,
    layer: &Layer,
    vertices: &[u32],
    projected_uvs: &mut Vec<[f32; 2]>,
    projected_points: &mut Vec<(*const Block, PagedPointTable<[u32; 2]>)>,
    holds_every_face: impl FnOnce() -> bool,
) -> bool {
    let known = projected_points.iter().position(|(b, _)| std::ptr::eq(*b, block));
    let keep = block.projection != Projection::Cubic && (known.is_some() || projected_points.len() < KEPT_PROJECTIONS);
    if !keep {
        let normal = polygon_normal(&layer.points, vertices);
        projected_uvs.extend(
            vertices.iter().map(|&v| project(block, point_ref(&layer.points, v), normal).unwrap_or([0.0, 0.0])),
        );
    } else {
        let known = known.unwrap_or_else(|| {
            projected_points.push((block, projection_table(block, layer, holds_every_face)));
            projected_points.len() - 1
        });
        let known = &mut projected_points[known].1;
        // A loop of pushes after one reserve: as an `extend` it was a call a polygon that kept nothing
        // in registers (39 instructions a corner).
        projected_uvs.reserve(vertices.len());
        for &v in vertices {
            projected_uvs.push(projected_uv(block, known, v, point_ref(&layer.points, v)));
        }
    }
    matches!(block.projection, Projection::Cylindrical | Projection::Spherical) && unwrap_seam(projected_uvs)
}

/// A projecting block's table of the layer's points' UVs, for the first polygon of a range that reads it.
fn projection_table(
    block: &Block,
    layer: &Layer,
    holds_every_face: impl FnOnce() -> bool,
) -> PagedPointTable<[u32; 2]> {
    let mut table = PagedPointTable::new(layer.points.len());
    // The mesh of every face needs every point's UV but those of points no polygon names: a cylinder's
    // or a sphere's are made here, one point after another (`project_all_around`, or `project` for a
    // turned block), the arc tangents and divisions of one overlapping the next one's, where made as
    // corners first met their points each held up the corners' work (planar maps, a few products a
    // point, gain nothing). Any other mesh makes its points' UVs as they come, so that no point of
    // another surface is projected.
    if matches!(block.projection, Projection::Cylindrical | Projection::Spherical) && holds_every_face() {
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
    table
}

/// A polygon's triangles (`tris`, by its corners) into `mesh`: in the mesh's vertices (`corner_vertex`)
/// and winding, each recorded as `polygon`'s.
#[inline(always)]
fn append_polygon_triangles(mesh: &mut MeshData, tris: &mut Vec<[u32; 3]>, corner_vertex: &[u32], polygon: u32) {
    let in_mesh = |t: [u32; 3]| lwo_triangle_to_bevy(t.map(|i| corner_vertex[i as usize]));
    // A triangle's or a quad's indices written in place (`append_triangles`) and records copied at a
    // known length, a few moves where a copy of any length was a call to `memcpy` per polygon (3 % of a
    // small file's load); other polygons' rewritten in place, then copied in one go.
    match *tris.as_slice() {
        [t] => {
            append_triangles(&mut mesh.indices, [in_mesh(t)].into_iter());
            mesh.triangle_records.push(polygon);
        }
        [t, u] => {
            append_triangles(&mut mesh.indices, [in_mesh(t), in_mesh(u)].into_iter());
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
}

/// The projection a plain run takes from the range's tables of points: none where the surface projects
/// nothing, else its block and table, or `None` where the run cannot take one (a cubic projection,
/// which follows each polygon's normal, or a block past the kept few).
#[inline(always)]
fn kept_projection<'a, 't>(
    block: Option<&'a Block>,
    projected_points: &'t mut [(*const Block, PagedPointTable<[u32; 2]>)],
) -> Option<KeptProjection<'a, 't>> {
    match block {
        Some(block) => match projected_points.iter_mut().find(|(b, _)| std::ptr::eq(*b, block)) {
            Some((_, known)) if block.projection != Projection::Cubic => Some(Some((block, known))),
            _ => None,
        },
        None => Some(None),
    }
}
