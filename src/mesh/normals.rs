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

    /// The one normal every corner at point `v` has, when they all have the same: every polygon around
    /// the point is smoothed, all in one smoothing group, and each pair within both their surfaces'
    /// angles, so each corner's sum takes in every polygon. `None` otherwise (a crease, a flat surface,
    /// a polygon that uses the point twice), where [`Self::at`] answers per corner.
    pub fn shared_at(&self, v: u32) -> Option<[f32; 3]> {
        let polys = &self.layer.polygons;
        let v = v as usize;
        let incident = self.incident.get(*self.first.get(v)? as usize..*self.first.get(v + 1)? as usize)?;
        let limit = |q: u32| self.cos_limit.get(polys.surface[q as usize] as usize).copied().flatten();
        let mut sum = [0.0f32; 3];
        for (i, &a) in incident.iter().enumerate() {
            let (own, own_limit) = (self.face_normals[a as usize], limit(a)?);
            for &b in &incident[i + 1..] {
                let other_limit = limit(b)?;
                // Written as "not at least" so that a NaN normal also makes the point per corner.
                let within = dot(own, self.face_normals[b as usize]) >= own_limit.max(other_limit) - 1e-6;
                if a == b || polys.smoothing_group[a as usize] != polys.smoothing_group[b as usize] || !within {
                    return None;
                }
            }
            sum = [sum[0] + own[0], sum[1] + own[1], sum[2] + own[2]];
        }
        normalize(sum)
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

/// Per point of a band of the layer's points: the normal its corners share, found on its first corner
/// and reused by the others (a grid point has four), or that they do not share one. Reusing one value
/// also makes the corners' normals bit-identical, so they share a vertex.
pub struct SharedNormals {
    first_point: u32,
    by_point: Vec<Shared>,
}

#[derive(Clone, Copy)]
enum Shared {
    NotYetAsked,
    PerCorner,
    One([f32; 3]),
}

impl SharedNormals {
    /// For the points `first_point .. first_point + span`.
    pub fn new(first_point: u32, span: usize) -> Self {
        Self { first_point, by_point: vec![Shared::NotYetAsked; span] }
    }

    /// The normal at point `v` of polygon `p`, as [`CornerNormals::at`] gives it.
    pub fn at(&mut self, normals: &CornerNormals<'_>, p: usize, v: u32) -> [f32; 3] {
        let Some(slot) = v.checked_sub(self.first_point).and_then(|i| self.by_point.get_mut(i as usize)) else {
            return normals.at(p, v);
        };
        if let Shared::NotYetAsked = slot {
            *slot = normals.shared_at(v).map_or(Shared::PerCorner, Shared::One);
        }
        match *slot {
            Shared::One(normal) => normal,
            _ => normals.at(p, v),
        }
    }
}
