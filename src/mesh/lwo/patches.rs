//! PTCH/SUBD polygons, left aside by the ranges when subdivision is on: gathered into one cage per
//! surface, subdivided, and made into smooth meshes carrying their UVs and morph targets.

use crate::formats::lwo::{Block, Layer, NONE};
use crate::mesh::coords::{lwo_to_bevy, lwo_triangle_to_bevy};
use crate::mesh::normals::polygon_normal;
use crate::mesh::projection::project;
use crate::mesh::subdivide::{Cage, subdivide};
use crate::mesh::{MeshData, Topology, add, normalize, point_at, sub};

use super::HashMap;
use super::maps::MapLookup;
use super::morphs::LayerMorphs;

/// The subdivision cages of the layer's patches, one per surface in the order the layer first meets
/// them, with each cage point's layer point.
pub(super) fn patch_cages(layer: &Layer, patches: &[u32]) -> Vec<(u32, Cage, HashMap<u32, u32>)> {
    let polys = &layer.polygons;
    let mut cages: Vec<(u32, Cage, HashMap<u32, u32>)> = Vec::new();
    for &p in patches {
        let surface_index = polys.surface().get(p as usize);
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
pub(super) fn limit_surface(
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

/// Smooth normals of a subdivided cage with its points at `points`: each point's normal is the sum of
/// its quads' normals, in Bevy's frame.
pub(super) fn limit_surface_normals(points: &[[f32; 3]], cage: &Cage) -> Vec<[f32; 3]> {
    let mut sums = vec![[0.0f32; 3]; points.len()];
    for face in cage.faces() {
        let n = polygon_normal(points, face);
        for &v in face {
            let s = &mut sums[v as usize];
            *s = add(*s, n);
        }
    }
    sums.iter().map(|n| lwo_to_bevy(normalize(*n).unwrap_or([0.0, 1.0, 0.0]))).collect()
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
