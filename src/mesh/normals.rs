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

/// Corner normals computed when asked, from each polygon's normal and the polygons around each point,
/// in the file's frame; `smooth` false gives flat shading everywhere. Asking per corner, rather than
/// storing a normal for every corner up front, keeps large objects' peak memory down.
pub struct CornerNormals<'a> {
    layer: &'a Layer,
    face_normals: Vec<[f32; 3]>,
    /// Point → the polygons that use it, as a compressed list: `incident[first[v]..first[v + 1]]`.
    first: Vec<u32>,
    incident: Vec<u32>,
    /// Per surface: the cosine of its smoothing angle, or `None` when it is shaded flat.
    cos_limit: Vec<Option<f32>>,
}

impl<'a> CornerNormals<'a> {
    pub fn new(layer: &'a Layer, surfaces: &[Surface], smooth: bool) -> Self {
        let polys = &layer.polygons;
        let face_normals: Vec<[f32; 3]> = (0..polys.len()).map(|p| polygon_normal(&layer.points, polys.vertices(p))).collect();
        let cos_limit: Vec<Option<f32>> = surfaces
            .iter()
            .map(|s| (smooth && s.max_smoothing_angle > 0.0).then(|| s.max_smoothing_angle.min(std::f32::consts::PI).cos()))
            .collect();
        let point_count = layer.points.len();
        let mut first = vec![0u32; point_count + 1];
        let mut incident = Vec::new();
        if cos_limit.iter().any(Option::is_some) {
            for &v in &polys.indices {
                if let Some(c) = first.get_mut(v as usize + 1) {
                    *c += 1;
                }
            }
            for i in 1..first.len() {
                first[i] += first[i - 1];
            }
            let mut fill = first.clone();
            incident = vec![0u32; polys.indices.len()];
            for p in 0..polys.len() {
                for &v in polys.vertices(p) {
                    if let Some(slot) = fill.get_mut(v as usize) {
                        incident[*slot as usize] = p as u32;
                        *slot += 1;
                    }
                }
            }
        }
        Self { layer, face_normals, first, incident, cos_limit }
    }

    /// The normal at point `v` of polygon `p`.
    pub fn at(&self, p: usize, v: u32) -> [f32; 3] {
        self.at_with(&self.face_normals, p, v)
    }

    /// Every polygon's normal with the layer's points moved to `points` (a morph target's shape).
    pub fn face_normals_for(&self, points: &[[f32; 3]]) -> Vec<[f32; 3]> {
        let polys = &self.layer.polygons;
        (0..polys.len()).map(|p| polygon_normal(points, polys.vertices(p))).collect()
    }

    /// The normal at point `v` of polygon `p` for another shape of the same polygons: the smoothing
    /// rule applied to `face_normals` (from [`Self::face_normals_for`]).
    pub fn at_with(&self, face_normals: &[[f32; 3]], p: usize, v: u32) -> [f32; 3] {
        let own = face_normals[p];
        let Some(cos_limit) = self.cos_limit.get(self.layer.polygons.surface[p] as usize).copied().flatten() else { return own };
        let polys = &self.layer.polygons;
        let v = v as usize;
        let (Some(&from), Some(&to)) = (self.first.get(v), self.first.get(v + 1)) else { return own };
        let mut sum = own;
        for &q in &self.incident[from as usize..to as usize] {
            let q = q as usize;
            if q == p || polys.smoothing_group[q] != polys.smoothing_group[p] {
                continue;
            }
            let other = face_normals[q];
            if dot(own, other) >= cos_limit - 1e-6 {
                sum = [sum[0] + other[0], sum[1] + other[1], sum[2] + other[2]];
            }
        }
        normalize(sum).unwrap_or(own)
    }
}
