//! LightWave vertex normals by the smoothing-angle rule (lwo-surfaces.md §8): each polygon corner starts
//! from its polygon's normal and adds the normals of the other polygons sharing the point, when they are
//! in the same smoothing group and within the surface's maximum smoothing angle.

use crate::formats::lwo::{Layer, Surface};

use super::{cross, dot, normalize, sub};

/// The polygon normal as LightWave defines it: first edge × last edge from vertex 0, in the file's own
/// frame. Falls back to Newell's normal when those edges are collinear.
pub fn polygon_normal(points: &[[f32; 3]], vertices: &[u32]) -> [f32; 3] {
    let at = |i: usize| points.get(vertices[i] as usize).copied().unwrap_or([0.0; 3]);
    if vertices.len() < 3 {
        return [0.0, 0.0, 0.0];
    }
    let v0 = at(0);
    let first = sub(at(1), v0);
    let last = sub(at(vertices.len() - 1), v0);
    if let Some(n) = normalize(cross(first, last)) {
        return n;
    }
    let corners: Vec<[f32; 3]> = (0..vertices.len()).map(at).collect();
    normalize(super::triangulate::newell_normal(&corners)).unwrap_or([0.0, 0.0, 0.0])
}

/// One normal per polygon corner, aligned with `layer.polygons.indices`, in the file's frame.
/// `smooth` false gives flat shading everywhere.
pub fn corner_normals(layer: &Layer, surfaces: &[Surface], smooth: bool) -> Vec<[f32; 3]> {
    let polys = &layer.polygons;
    let face_normals: Vec<[f32; 3]> = (0..polys.len()).map(|p| polygon_normal(&layer.points, polys.vertices(p))).collect();
    // Point → polygons, as a compressed list.
    let point_count = layer.points.len();
    let mut counts = vec![0u32; point_count + 1];
    for &v in &polys.indices {
        if let Some(c) = counts.get_mut(v as usize + 1) {
            *c += 1;
        }
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let mut fill = counts.clone();
    let mut incident = vec![0u32; polys.indices.len()];
    for p in 0..polys.len() {
        for &v in polys.vertices(p) {
            if let Some(slot) = fill.get_mut(v as usize) {
                incident[*slot as usize] = p as u32;
                *slot += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(polys.indices.len());
    for p in 0..polys.len() {
        let own = face_normals[p];
        let angle = surfaces.get(polys.surface[p] as usize).map_or(0.0, |s| s.max_smoothing_angle);
        let flat = !smooth || angle <= 0.0;
        let cos_limit = angle.min(std::f32::consts::PI).cos();
        for &v in polys.vertices(p) {
            if flat {
                out.push(own);
                continue;
            }
            let v = v as usize;
            let mut sum = own;
            for &q in &incident[counts[v] as usize..counts[v + 1] as usize] {
                let q = q as usize;
                if q == p || polys.smoothing_group[q] != polys.smoothing_group[p] {
                    continue;
                }
                let other = face_normals[q];
                if dot(own, other) >= cos_limit - 1e-6 {
                    sum = [sum[0] + other[0], sum[1] + other[1], sum[2] + other[2]];
                }
            }
            out.push(normalize(sum).unwrap_or(own));
        }
    }
    out
}
