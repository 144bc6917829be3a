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
    /// Point → the polygons that use it, as a compressed list: `incident[first[k]..first[k + 1]]` for
    /// the k-th point kept (every point, until [`Self::retain_points`]).
    first: Vec<u32>,
    incident: Vec<u32>,
    /// The points kept, ascending, once only some are; `None` while all are (k is the point).
    kept: Option<Vec<u32>>,
    /// Once only some points are kept: the normal of each polygon in `incident`, beside it, in place
    /// of `face_normals` (then empty).
    incident_normals: Vec<[f32; 3]>,
    /// Per surface: the cosine of its smoothing angle, or `None` when it is shaded flat.
    cos_limit: Vec<Option<f32>>,
    /// When every polygon's surface is smoothed with one and the same angle and every polygon is in
    /// one smoothing group (most objects): that angle's cosine. The smoothing test then needs neither
    /// a polygon's surface nor its group.
    uniform_cos_limit: Option<f32>,
}

impl<'a> CornerNormals<'a> {
    pub fn new(layer: &'a Layer, surfaces: &[Surface], smooth: bool) -> Self {
        let polys = &layer.polygons;
        let face_normals = crate::parallel::parallel_collect(polys.len(), 1 << 16, |p| polygon_normal(&layer.points, polys.vertices(p)));
        let cos_limit: Vec<Option<f32>> = surfaces
            .iter()
            .map(|s| (smooth && s.max_smoothing_angle > 0.0).then(|| s.max_smoothing_angle.min(std::f32::consts::PI).cos()))
            .collect();
        let point_count = layer.points.len();
        let mut first = vec![0u32; point_count + 1];
        crate::memory::offer_huge_pages(&first, point_count + 1);
        let mut incident = Vec::new();
        if cos_limit.iter().any(Option::is_some) {
            // A counting sort in place: each point's count, then the running sums (where each point's
            // polygons end), then the polygons placed from the last back, each point's end stepping
            // down to its start, so the table is filled without a copy of it (5 MB on the benchmark
            // terrain). Each point's polygons come out in file order.
            let ends = &mut first[..point_count];
            for &v in &polys.indices {
                if let Some(c) = ends.get_mut(v as usize) {
                    *c += 1;
                }
            }
            for i in 1..ends.len() {
                ends[i] += ends[i - 1];
            }
            let corners = ends.last().copied().unwrap_or(0);
            incident = vec![0u32; corners as usize];
            for p in (0..polys.len()).rev() {
                for &v in polys.vertices(p).iter().rev() {
                    if let Some(end) = ends.get_mut(v as usize) {
                        *end -= 1;
                        incident[*end as usize] = p as u32;
                    }
                }
            }
            first[point_count] = corners;
        }
        let uniform_cos_limit = match (polys.surface.max(), cos_limit.first()) {
            (Some(last_used), Some(&Some(c)))
                if cos_limit.get(..=last_used as usize).is_some_and(|used| used.iter().all(|&l| l == Some(c))) && polys.smoothing_group.is_all_default() =>
            {
                Some(c)
            }
            _ => None,
        };
        Self { layer, face_normals, first, incident, kept: None, incident_normals: Vec::new(), cos_limit, uniform_cos_limit }
    }

    /// Whether any surface is smoothed; if none is, every corner has its polygon's normal.
    pub fn smooths_any(&self) -> bool {
        self.cos_limit.iter().any(Option::is_some)
    }

    /// Where in `incident` the polygons around point `v` are (nowhere when the point was not kept).
    #[inline]
    fn incident_range(&self, v: u32) -> std::ops::Range<usize> {
        let k = match &self.kept {
            None => v as usize,
            Some(kept) => match kept.binary_search(&v) {
                Ok(k) => k,
                Err(_) => return 0..0,
            },
        };
        match (self.first.get(k), self.first.get(k + 1)) {
            (Some(&from), Some(&to)) if to as usize <= self.incident.len() => from as usize..to as usize,
            _ => 0..0,
        }
    }

    #[inline]
    fn incident(&self, v: u32) -> &[u32] {
        &self.incident[self.incident_range(v)]
    }

    /// Keeps the polygons around the points `keep` names, with their normals, and frees the rest of
    /// the tables. For a layer whose other points [`PointNormals`] answers: on a smooth surface that
    /// is nearly all of them. Only kept points are then answered by [`Self::at`]; [`Self::shared_at`]
    /// answers `None`.
    pub fn retain_points(&mut self, keep: impl Fn(u32) -> bool) {
        let (mut kept, mut first, mut incident) = (Vec::new(), vec![0u32], Vec::new());
        for v in 0..self.layer.points.len() as u32 {
            if keep(v) {
                kept.push(v);
                incident.extend_from_slice(self.incident(v));
                first.push(incident.len() as u32);
            }
        }
        let face_normals = std::mem::take(&mut self.face_normals);
        self.incident_normals = incident.iter().map(|&q| face_normals.get(q as usize).copied().unwrap_or([0.0; 3])).collect();
        (self.kept, self.first, self.incident) = (Some(kept), first, incident);
    }

    /// The normal at point `v` of polygon `p`.
    #[inline]
    pub fn at(&self, p: usize, v: u32) -> [f32; 3] {
        if self.kept.is_none() {
            return self.at_with(&self.face_normals, p, v);
        }
        // The same function as made `face_normals`, so the same value.
        let own = polygon_normal(&self.layer.points, self.layer.polygons.vertices(p));
        let Some(cos_limit) = self.cos_limit_of(p) else { return own };
        let range = self.incident_range(v);
        self.smoothed(own, p, cos_limit, self.incident[range.clone()].iter().copied().zip(self.incident_normals[range].iter().copied()))
    }

    /// The one normal every corner at point `v` has, when they all have the same: every polygon around
    /// the point is smoothed, all in one smoothing group, and each pair within both their surfaces'
    /// angles, so each corner's sum takes in every polygon. `None` otherwise (a crease, a flat surface,
    /// a polygon that uses the point twice), where [`Self::at`] answers per corner.
    pub fn shared_at(&self, v: u32) -> Option<[f32; 3]> {
        if self.kept.is_some() {
            return None;
        }
        let polys = &self.layer.polygons;
        let incident = self.incident(v);
        if let Some(cos_limit) = self.uniform_cos_limit {
            return self.shared_at_uniform(incident, cos_limit);
        }
        // Each polygon's normal, angle and group looked up once, not once per pair: on the stack for
        // the usual fans, on the heap for larger ones.
        #[derive(Clone, Copy, Default)]
        struct Around {
            polygon: u32,
            normal: [f32; 3],
            cos_limit: f32,
            group: u32,
        }
        let (mut on_stack, mut on_heap) = ([Around::default(); 8], Vec::new());
        let around: &mut [Around] = match on_stack.get_mut(..incident.len()) {
            Some(slots) => slots,
            None => {
                on_heap.resize(incident.len(), Around::default());
                &mut on_heap
            }
        };
        for (slot, &q) in around.iter_mut().zip(incident) {
            let cos_limit = self.cos_limit.get(polys.surface.get(q as usize) as usize).copied().flatten()?;
            *slot = Around { polygon: q, normal: self.face_normals[q as usize], cos_limit, group: polys.smoothing_group[q as usize] };
        }
        let mut sum = [0.0f32; 3];
        for (i, a) in around.iter().enumerate() {
            for b in &around[i + 1..] {
                // Written as "not at least" so that a NaN normal also makes the point per corner.
                let within = dot(a.normal, b.normal) >= a.cos_limit.max(b.cos_limit) - 1e-6;
                if a.polygon == b.polygon || a.group != b.group || !within {
                    return None;
                }
            }
            sum = [sum[0] + a.normal[0], sum[1] + a.normal[1], sum[2] + a.normal[2]];
        }
        normalize(sum)
    }

    /// [`Self::shared_at`] when every polygon is smoothed with `cos_limit` in one group: the same
    /// tests on each pair (the larger of two equal limits is that limit, and the groups always agree)
    /// and the same sum, in the same order, without looking up surfaces or groups.
    fn shared_at_uniform(&self, incident: &[u32], cos_limit: f32) -> Option<[f32; 3]> {
        let limit = cos_limit - 1e-6;
        let normal = |q: u32| self.face_normals[q as usize];
        let mut sum = [0.0f32; 3];
        for (i, &a) in incident.iter().enumerate() {
            let a_normal = normal(a);
            for &b in &incident[i + 1..] {
                // Written as "not at least" so that a NaN normal also makes the point per corner.
                if a == b || !(dot(a_normal, normal(b)) >= limit) {
                    return None;
                }
            }
            sum = [sum[0] + a_normal[0], sum[1] + a_normal[1], sum[2] + a_normal[2]];
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
    #[inline]
    pub fn at_with(&self, face_normals: &[[f32; 3]], p: usize, v: u32) -> [f32; 3] {
        let own = face_normals[p];
        let Some(cos_limit) = self.cos_limit_of(p) else { return own };
        self.smoothed(own, p, cos_limit, self.incident(v).iter().map(|&q| (q, face_normals[q as usize])))
    }

    /// Polygon `p`'s own normal when its surface is shaded flat, so that every corner of it has that
    /// normal (what [`Self::at`] and [`PointNormals::at`] give each); `None` when it is smoothed.
    /// `surface` is the polygon's surface, which the caller has at hand.
    #[inline]
    pub fn flat_normal(&self, p: usize, surface: u32) -> Option<[f32; 3]> {
        if self.uniform_cos_limit.is_some() || self.cos_limit.get(surface as usize).copied().flatten().is_some() {
            return None;
        }
        Some(match self.kept {
            None => self.face_normals[p],
            // As `at` makes it once the table is cut.
            Some(_) => polygon_normal(&self.layer.points, self.layer.polygons.vertices(p)),
        })
    }

    /// The cosine of polygon `p`'s surface's smoothing angle; `None` when it is shaded flat.
    #[inline]
    fn cos_limit_of(&self, p: usize) -> Option<f32> {
        self.cos_limit.get(self.layer.polygons.surface.get(p) as usize).copied().flatten()
    }

    /// Polygon `p`'s normal `own` plus those of the polygons `around` it (each with its normal) that
    /// smooth into it within `cos_limit` (its surface's), normalized.
    #[inline]
    fn smoothed(&self, own: [f32; 3], p: usize, cos_limit: f32, around: impl Iterator<Item = (u32, [f32; 3])>) -> [f32; 3] {
        let polys = &self.layer.polygons;
        let mut sum = own;
        for (q, other) in around {
            let q = q as usize;
            if q == p || polys.smoothing_group[q] != polys.smoothing_group[p] {
                continue;
            }
            if dot(own, other) >= cos_limit - 1e-6 {
                sum = [sum[0] + other[0], sum[1] + other[1], sum[2] + other[2]];
            }
        }
        normalize(sum).unwrap_or(own)
    }
}

/// Per point of a layer: the normal all its corners share ([`CornerNormals::shared_at`]), or that they
/// do not share one. Made once per layer, on every core, before its polygons are built: a grid point's
/// four corners then cost one look-up each, and reusing one value makes their normals bit-identical,
/// so they share a vertex.
pub struct PointNormals {
    /// The shared normal, or NaN where the corners differ (a normalized sum is never NaN).
    by_point: Vec<[f32; 3]>,
}

impl PointNormals {
    /// Every point of the layer `normals` was made for.
    pub fn new(normals: &CornerNormals<'_>) -> Self {
        let by_point = crate::parallel::parallel_collect(normals.layer.points.len(), 1 << 16, |v| normals.shared_at(v as u32).unwrap_or([f32::NAN; 3]));
        Self { by_point }
    }

    /// No point shares: every corner follows the rule on its own (a layer with morphs, where a morph
    /// can crease a point that is smooth at rest).
    pub fn none() -> Self {
        Self { by_point: Vec::new() }
    }

    /// Whether the table has an entry for each point (it has none from [`Self::none`]).
    #[inline]
    pub fn covers_points(&self) -> bool {
        !self.by_point.is_empty()
    }

    /// How many points' corners share a normal.
    pub fn shared_count(&self) -> usize {
        self.by_point.iter().filter(|n| !n[0].is_nan()).count()
    }

    /// Whether the corners at point `v` share this table's normal.
    #[inline]
    pub fn shares(&self, v: u32) -> bool {
        self.by_point.get(v as usize).is_some_and(|n| !n[0].is_nan())
    }

    /// The normal at point `v` of polygon `p`, as [`CornerNormals::at`] gives it. Always inlined: asked
    /// per corner from both of `build_range`'s compilations, it became a call.
    #[inline(always)]
    pub fn at(&self, normals: &CornerNormals<'_>, p: usize, v: u32) -> [f32; 3] {
        match self.by_point.get(v as usize) {
            Some(shared) if !shared[0].is_nan() => *shared,
            _ => normals.at(p, v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lwo::{self, LwoObject};

    fn object(bytes: &[u8]) -> LwoObject {
        lwo::parse(bytes).expect("parses").1
    }

    /// The shortcut for one smoothing angle and one group gives every point the bits the general test
    /// gives it, on the generated terrain and on smoothed real files (creases, poles, seams).
    #[test]
    fn the_one_angle_shortcut_gives_the_general_test_s_bits() {
        let corpus = |f: &str| object(&std::fs::read(format!("/usr/share/assimp/models/LWO/{f}")).expect("assimp-testmodels is installed"));
        let objects = [
            object(&crate::fixtures::lwo::large_object(40, 30)),
            corpus("LWO2/hierarchy_smoothed.lwo"),
            corpus("LWO2/sphere_with_gradient.lwo"),
            corpus("LWO2/UglyVertexColors.lwo"),
            corpus("LXOB_Modo/CrazyEngine.lxo"),
        ];
        let mut shortcuts = 0;
        for object in &objects {
            for layer in &object.layers {
                let normals = CornerNormals::new(layer, &object.surfaces, true);
                shortcuts += usize::from(normals.uniform_cos_limit.is_some());
                let mut general = CornerNormals::new(layer, &object.surfaces, true);
                general.uniform_cos_limit = None;
                let bits = |n: Option<[f32; 3]>| n.map(|n| n.map(f32::to_bits));
                for v in 0..layer.points.len() as u32 {
                    assert_eq!(bits(normals.shared_at(v)), bits(general.shared_at(v)), "point {v}");
                }
            }
        }
        assert!(shortcuts >= 3, "the shortcut was taken on {shortcuts} layers");
    }

    #[test]
    fn the_shortcut_is_not_taken_with_two_angles_or_two_groups() {
        let terrain = object(&crate::fixtures::lwo::large_object(8, 8));
        let layer = &terrain.layers[0];
        assert!(CornerNormals::new(layer, &terrain.surfaces, true).uniform_cos_limit.is_some());
        let mut surfaces = terrain.surfaces.clone();
        surfaces[1].max_smoothing_angle *= 0.5;
        assert_eq!(CornerNormals::new(layer, &surfaces, true).uniform_cos_limit, None);
        let mut grouped = layer.clone();
        let count = grouped.polygons.len();
        grouped.polygons.smoothing_group.set(3, count, 7);
        assert_eq!(CornerNormals::new(&grouped, &terrain.surfaces, true).uniform_cos_limit, None);
        assert_eq!(CornerNormals::new(layer, &terrain.surfaces, false).uniform_cos_limit, None);
    }
}
