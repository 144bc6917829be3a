//! The fast paths of a range's loop: the quick quad test taken eight polygons at a time, a projection's
//! UVs kept by point, runs of plain triangles and quads built by a loop of their own, and the general
//! loop's corners.

use crate::formats::lwo::{Block, Layer, NONE, PolygonKind, Projection};
use crate::mesh::coords::{lwo_to_bevy, lwo_triangle_to_bevy};
use crate::mesh::point_table::PagedPointTable;
use crate::mesh::projection::{project, unwrap_seam};
use crate::mesh::triangulate::{
    QUICK_FANS, QUICK_QUAD_LANES, QuadLanes, fans_quickly, quads_fan_quickly, set_quad_lane,
};
use crate::mesh::{MeshData, append_triangles, normalize, point_ref};

use super::maps::{Corner, CornerMaps, MapLookup, PointValues};
use super::range::{LayerInputs, PER_CORNER_VERTEX, UNKNOWN_UV};

/// The quick quad test's answers ([`quads_fan_quickly`]) for a block of a range's polygons, taken for
/// [`QUICK_QUAD_LANES`] polygons at once when the range's loops ask for one past the block: the
/// polygons come in order, so each block is tested once (a block's polygons that are not quads, or
/// that the loops leave to the triangulator, cost a lane each).
pub(super) struct QuickQuads {
    /// The block's first polygon and its answers, bit k polygon `first + k`'s.
    first: usize,
    passed: u32,
}

impl QuickQuads {
    /// No block yet: `first` is where no polygon `p` is in the block (`p − first`, wrapped, is `p` +
    /// [`QUICK_QUAD_LANES`] + 1).
    pub(super) fn new() -> Self {
        Self { first: usize::MAX - QUICK_QUAD_LANES, passed: 0 }
    }

    /// Whether quad `p` of `layer` passes the quick test, as [`fans_quickly`] answers.
    #[inline(always)]
    pub(super) fn fans(&mut self, layer: &Layer, p: usize) -> bool {
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
pub(super) fn projected_uv(block: &Block, known: &mut PagedPointTable<[u32; 2]>, v: u32, point: &[f32; 3]) -> [f32; 2] {
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
pub(super) fn keep_uv(slot: &mut [u32; 2], uv: [f32; 2]) {
    *slot = uv.map(|c| c.to_bits() ^ UNKNOWN_UV);
}

/// A surface's projecting block, if any, with its table of the points' projected UVs.
pub(super) type KeptProjection<'a, 't> = Option<(&'a Block, &'t mut PagedPointTable<[u32; 2]>)>;

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
///
/// [`build_range`]: super::range::build_range
pub(super) struct PlainRun<'r, 'a> {
    pub(super) inputs: &'r LayerInputs<'a>,
    pub(super) maps: &'r CornerMaps<'a>,
    /// The surface's projecting block, with its table of the points' projected UVs.
    pub(super) projection: KeptProjection<'a, 'r>,
    pub(super) key: (u32, bool),
    pub(super) slot_tag: u32,
    pub(super) last_vertex_of_point: &'r mut PagedPointTable<[u32; 2]>,
    pub(super) quick_quads: &'r mut QuickQuads,
    pub(super) triangles: &'r mut usize,
}

impl PlainRun<'_, '_> {
    /// [`Self::build`] for a range loop compiled with `BY_POINT` and `PLAIN`: compiled with colours and
    /// second UVs (`EXTRAS`) for a surface that has either, which no surface of a `PLAIN` loop's layer has.
    #[inline(always)]
    pub(super) fn build_compiled_for<const BY_POINT: bool, const PLAIN: bool>(
        self,
        mesh: &mut MeshData,
        from: usize,
        end: usize,
    ) -> usize {
        match !PLAIN && (self.maps.color.is_some() || self.maps.second_uv.is_some()) {
            true => self.build::<BY_POINT, true>(mesh, from, end),
            false => self.build::<BY_POINT, false>(mesh, from, end),
        }
    }

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
            let (Some(&a), Some(&b)) = (polys.starts().get(p), polys.starts().get(p + 1)) else { break };
            let kind = polys.kind()[p];
            if !(kind == PolygonKind::Face || (kind == PolygonKind::Patch && !subdividing))
                || polys.surface().get(p) != self.key.0
                || (polys.detail_of()[p] != NONE) != self.key.1
            {
                break;
            }
            let made = match polys.indices().get(a as usize..b as usize) {
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
        append_triangles(
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
pub(super) struct PolygonCorners<'p> {
    pub(super) polygon: usize,
    pub(super) vertices: &'p [u32],
    /// The corners' points, as the triangulator was given them.
    pub(super) points: &'p [[f32; 3]],
    pub(super) projected_uvs: &'p [[f32; 2]],
    /// The polygon's first corner in the layer's index column, where per-corner tables are read.
    pub(super) first_corner: usize,
    /// The polygon's own normal, when its surface is shaded flat.
    pub(super) flat: Option<[f32; 3]>,
    pub(super) values_by_point: bool,
    /// How a point's table entry names the polygon's mesh (0 is "no vertex yet").
    pub(super) slot_tag: u32,
}

/// Each corner's vertex in `mesh`, pushed to `corner_vertex`: the vertex its point already has there
/// when the corner's values are the same, else a new one. Apart from [`build_range`], so that the
/// columns it appends to come in as references of their own: the compiler then knows more of what
/// writing a vertex leaves unchanged, and reads back less after each value written (about 1 % fewer
/// instructions on the corpus files measured; it still reloads some columns' lengths).
///
/// [`build_range`]: super::range::build_range
#[inline(always)]
pub(super) fn polygon_corners<const BY_POINT: bool, const PLAIN: bool>(
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
            .and_then(|n| normalize([n[0], n[1], n[2]]));
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
