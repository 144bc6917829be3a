//! LightWave vertex normals by the smoothing-angle rule (lwo-surfaces.md §8): each polygon corner starts
//! from its polygon's normal and adds the normals of the other polygons sharing the point, when they are
//! in the same smoothing group and within the surface's maximum smoothing angle.

use crate::formats::lwo::{Layer, Surface};

use super::{cross, dot, normalize, point_at, sub};

/// The polygon normal as LightWave defines it: first edge × last edge from vertex 0, in the file's own
/// frame. Falls back to Newell's normal when those edges are collinear.
#[inline]
pub fn polygon_normal(points: &[[f32; 3]], vertices: &[u32]) -> [f32; 3] {
    let at = |i: usize| point_at(points, vertices[i]);
    if vertices.len() < 3 {
        return [0.0, 0.0, 0.0];
    }
    let v0 = at(0);
    let first = sub(at(1), v0);
    let last = sub(at(vertices.len() - 1), v0);
    match normalize(cross(first, last)) {
        Some(n) => n,
        None => newell_polygon_normal(points, vertices),
    }
}

/// [`polygon_normal`] where the first and last edges are collinear: Newell's normal. Rare, so a call of
/// its own, kept out of the loops that make polygon normals.
#[cold]
#[inline(never)]
fn newell_polygon_normal(points: &[[f32; 3]], vertices: &[u32]) -> [f32; 3] {
    let corners: Vec<[f32; 3]> = vertices.iter().map(|&v| point_at(points, v)).collect();
    normalize(super::triangulate::newell_normal(&corners)).unwrap_or([0.0, 0.0, 0.0])
}

/// Every polygon's normal with the layer's points moved to `points` (a morph target's shape).
pub fn face_normals_for(layer: &Layer, points: &[[f32; 3]]) -> Vec<[f32; 3]> {
    let polys = &layer.polygons;
    (0..polys.len()).map(|p| polygon_normal(points, polys.vertices(p))).collect()
}

/// Polygons below which a layer shaded flat everywhere has its polygons' normals made into a table
/// first (see `CornerNormals::unindexed`); a larger one makes each as its corners ask, without the
/// table's memory.
const FLAT_NORMALS_TABLED_BELOW: usize = 1 << 16;

/// Corner normals computed when asked, from each polygon's normal and the polygons around each point,
/// in the file's frame; `smooth` false gives flat shading everywhere. Asking per corner, rather than
/// storing a normal for every corner up front, keeps large objects' peak memory down.
pub struct CornerNormals<'a> {
    layer: &'a Layer,
    /// Each polygon's normal; empty once only some points are kept (see `kept`), and in a flat layer
    /// of [`FLAT_NORMALS_TABLED_BELOW`] polygons or more, whose corners each ask their polygon's normal
    /// once, as it is built.
    face_normals: Vec<[f32; 3]>,
    /// Point → the polygons that use it, as a compressed list: `incident[first[k]..first[k + 1]]` for
    /// the k-th point kept. From [`Self::new`], every point's; from [`Self::with_shared`], only those
    /// of the points whose corners do not share a normal (the others are never asked), or none.
    first: Vec<u32>,
    incident: Vec<u32>,
    /// The points kept, ascending, once only some are; `None` while k is the point (a point with no
    /// list then has none: empty). A flat layer without the table of normals keeps none from the
    /// start. Where this is not `None`, a polygon's normal is made again when asked (by the function
    /// that makes `face_normals`: the same value).
    kept: Option<Vec<u32>>,
    /// Once only some points are kept: the normal of each polygon in `incident`, beside it, in place
    /// of `face_normals` (then empty).
    incident_normals: Vec<[f32; 3]>,
    /// Per surface: the cosine of its smoothing angle, or `None` when it is shaded flat (and, where the
    /// object's surfaces are not all alike, when no polygon of the layer uses it).
    cos_limit: Vec<Option<f32>>,
    /// The file's own normals answer every corner ([`Self::unasked`]): no polygon's flat normal is
    /// offered either.
    unasked: bool,
    /// When every polygon's surface is smoothed with one and the same angle and every polygon is in
    /// one smoothing group (most objects): that angle's cosine. The smoothing test then needs neither
    /// a polygon's surface nor its group.
    uniform_cos_limit: Option<f32>,
}

impl<'a> CornerNormals<'a> {
    /// Every point's polygons listed, so that every corner can be asked.
    pub fn new(layer: &'a Layer, surfaces: &[Surface], smooth: bool) -> Self {
        let mut normals = Self::unindexed(layer, surfaces, smooth);
        normals.index_points(|_| true);
        normals
    }

    /// The corner normals of a layer and, when `share` (a layer without morphs), the normal each point's
    /// corners share. Where every polygon is smoothed with one angle in one group, the shared normals
    /// are summed polygon by polygon (`PointNormals::gathered`) and only the points that test cannot
    /// settle have their polygons listed; otherwise every point's are, and each point is tested on them.
    pub fn with_shared(layer: &'a Layer, surfaces: &[Surface], smooth: bool, share: bool) -> (Self, PointNormals) {
        let mut normals = Self::unindexed(layer, surfaces, smooth);
        if !share || !normals.smooths_any() {
            normals.index_points(|_| true);
            return (normals, PointNormals::none());
        }
        let point_normals = match normals.uniform_cos_limit {
            // Below a degree or so the bound is 1 or more and settles no point of two polygons.
            Some(cos_limit) if within_half_angle(cos_limit) < 1.0 => {
                let Gathered { normals: mut by_point, unsettled, shared } = PointNormals::gathered(&normals, cos_limit);
                let shared = std::sync::atomic::AtomicUsize::new(shared);
                // A point settled without a normal to share (no polygon, or one without a normal of
                // its own) needs no list: its corner's normal is its polygon's alone.
                if unsettled > 0 {
                    // The points left unsettled (NaN, with those) have their polygons listed and take
                    // the full test, on every core.
                    normals.index_points(|v| by_point.get(v as usize).is_some_and(|n| n[0].is_nan()));
                    let normals = &normals;
                    let run = crate::parallel::run_per_core(by_point.len(), 1 << 16);
                    crate::parallel::parallel_each(by_point.chunks_mut(run).enumerate().collect(), |(k, part)| {
                        let mut shared_here = 0;
                        for (v, point_normal) in (k * run..).zip(part) {
                            let incident = normals.incident(v as u32);
                            if point_normal[0].is_nan() && !incident.is_empty() {
                                *point_normal = normals.shared_at_uniform(incident, cos_limit).unwrap_or([f32::NAN; 3]);
                                shared_here += usize::from(!point_normal[0].is_nan());
                            }
                        }
                        shared.fetch_add(shared_here, std::sync::atomic::Ordering::Relaxed);
                    });
                }
                PointNormals { by_point, shared: shared.into_inner() }
            }
            _ => {
                normals.index_points(|_| true);
                PointNormals::new(&normals)
            }
        };
        if layer.points.len() >= 1 << 16 && point_normals.shared_count() * 4 >= layer.points.len() * 3 {
            // The corner rule is now asked only where a point's corners do not share a normal: a large,
            // mostly smooth layer frees the rest of its table (a small one would spend more than it
            // frees, and a mostly creased one would keep nearly all of it, twice, while cutting it).
            normals.retain_points(|v| !point_normals.shares(v));
        }
        (normals, point_normals)
    }

    /// Each polygon's normal and each surface's smoothing limit; no point's polygons are listed yet
    /// ([`Self::index_points`]).
    fn unindexed(layer: &'a Layer, surfaces: &[Surface], smooth: bool) -> Self {
        let polys = &layer.polygons;
        // Each surface's smoothing limit, or `None` where it is shaded flat.
        let limits: Vec<Option<f32>> = surfaces
            .iter()
            .map(|s| {
                (smooth && s.max_smoothing_angle > 0.0).then(|| s.max_smoothing_angle.min(std::f32::consts::PI).cos())
            })
            .collect();
        // Where the object's surfaces differ (some smoothed and some flat, or two angles), only those
        // this layer's polygons use count: one smoothed only in another layer asks nothing here, and a
        // layer of flat surfaces alone lists no point's polygons (`hierarchy.lwo`'s sphere and one
        // cube, flat beside two smoothed cubes, took a fifth of the object's instructions listing
        // them). Where they are all alike (most objects, the large ones among them), only the highest
        // surface index is read, as before. `one_angle`: the one smoothing limit of every surface the
        // polygons use, if they have one.
        let (cos_limit, one_angle) = if limits.windows(2).all(|pair| pair[0] == pair[1]) {
            // Not where there is no polygon, or one of a surface the object lacks (shaded flat).
            let one_angle = limits
                .first()
                .copied()
                .flatten()
                .filter(|_| polys.surface().max().is_some_and(|last| (last as usize) < limits.len()));
            (limits, one_angle)
        } else {
            let used = polys.surfaces_used();
            let cos_limit: Vec<Option<f32>> =
                limits.iter().enumerate().map(|(k, &limit)| limit.filter(|_| used.contains(&(k as u32)))).collect();
            // A polygon of a surface the object lacks is shaded flat.
            let mut used_limits = used.iter().map(|&surface| limits.get(surface as usize).copied().flatten());
            let one_angle = match used_limits.next() {
                Some(Some(c)) if used_limits.all(|l| l == Some(c)) => Some(c),
                _ => None,
            };
            (cos_limit, one_angle)
        };
        // Flat everywhere, each polygon's normal is asked once (by its corners, as it is built), and a
        // large layer asks it then, not from a table that would cost its memory. A small layer's table
        // is made first all the same: one normal after another, each one's square root and divisions
        // overlap the next one's work, where asked by the corners they held them up (a flat corpus
        // sphere loads 3 % faster, for 1 % more instructions).
        let smooths = cos_limit.iter().any(Option::is_some);
        let tabled = smooths || polys.len() < FLAT_NORMALS_TABLED_BELOW;
        let face_normals = if tabled {
            crate::parallel::parallel_collect(polys.len(), 1 << 16, |p| {
                polygon_normal(&layer.points, polys.vertices(p))
            })
        } else {
            Vec::new()
        };
        // One angle for every surface the polygons use, and one smoothing group.
        let uniform_cos_limit = one_angle.filter(|_| polys.smoothing_group().is_all_default());
        let kept = (!tabled).then(Vec::new);
        Self {
            layer,
            face_normals,
            first: Vec::new(),
            incident: Vec::new(),
            kept,
            incident_normals: Vec::new(),
            cos_limit,
            uniform_cos_limit,
            unasked: false,
        }
    }

    /// For a layer whose every corner takes a normal the file stores (modo's NORM maps): nothing is
    /// made. Asked all the same, a corner gets its polygon's normal, made then.
    pub fn unasked(layer: &'a Layer) -> Self {
        Self {
            layer,
            face_normals: Vec::new(),
            first: Vec::new(),
            incident: Vec::new(),
            kept: Some(Vec::new()),
            incident_normals: Vec::new(),
            cos_limit: Vec::new(),
            uniform_cos_limit: None,
            unasked: true,
        }
    }

    /// Lists the polygons around each point `keep` names (none when no surface the layer uses is
    /// smoothed, as no corner then asks).
    fn index_points(&mut self, keep: impl Fn(u32) -> bool) {
        if !self.smooths_any() {
            return;
        }
        let polys = &self.layer.polygons;
        let point_count = self.layer.points.len();
        let mut first = vec![0u32; point_count + 1];
        // A counting sort in place: each point's count, then the running sums (where each point's
        // polygons end), then the polygons placed from the last back, each point's end stepping
        // down to its start, so the table is filled without a copy of it (5 MB on the benchmark
        // terrain). Each point's polygons come out in file order.
        let ends = &mut first[..point_count];
        for &v in polys.indices() {
            if let Some(c) = ends.get_mut(v as usize).filter(|_| keep(v)) {
                *c += 1;
            }
        }
        for i in 1..ends.len() {
            ends[i] += ends[i - 1];
        }
        let corners = ends.last().copied().unwrap_or(0);
        let mut incident = vec![0u32; corners as usize];
        for p in (0..polys.len()).rev() {
            for &v in polys.vertices(p).iter().rev() {
                if let Some(end) = ends.get_mut(v as usize).filter(|_| keep(v)) {
                    *end -= 1;
                    incident[*end as usize] = p as u32;
                }
            }
        }
        first[point_count] = corners;
        (self.first, self.incident) = (first, incident);
    }

    /// Whether any surface the layer's polygons use is smoothed; if none is, every corner has its
    /// polygon's normal.
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
        // With no point's polygons listed (every point settled by [`PointNormals::gathered`]), a kept
        // point would have none either: none is kept, and no pass over the points is made.
        let listed = !self.first.is_empty();
        for v in (0..self.layer.points.len() as u32).filter(|_| listed) {
            if keep(v) {
                kept.push(v);
                incident.extend_from_slice(self.incident(v));
                first.push(incident.len() as u32);
            }
        }
        let face_normals = std::mem::take(&mut self.face_normals);
        self.incident_normals =
            incident.iter().map(|&q| face_normals.get(q as usize).copied().unwrap_or([0.0; 3])).collect();
        (self.kept, self.first, self.incident) = (Some(kept), first, incident);
    }

    /// The normal at point `v` of polygon `p`, from the point's list of polygons: from
    /// [`Self::with_shared`], asked only where the point's corners do not share a normal
    /// ([`PointNormals::at`] asks so).
    #[inline]
    pub fn at(&self, p: usize, v: u32) -> [f32; 3] {
        if self.kept.is_none() {
            return self.at_with(&self.face_normals, p, v);
        }
        // The same function as made `face_normals`, so the same value.
        let own = polygon_normal(&self.layer.points, self.layer.polygons.vertices(p));
        let Some(cos_limit) = self.cos_limit_of(p) else { return own };
        let range = self.incident_range(v);
        self.smoothed(
            own,
            p,
            cos_limit,
            self.incident[range.clone()].iter().copied().zip(self.incident_normals[range].iter().copied()),
        )
    }

    /// The one normal every corner at point `v` has, when they all have the same: every polygon around
    /// the point is smoothed, all in one smoothing group, and each pair within both their surfaces'
    /// angles, so each corner's sum takes in every polygon. `None` otherwise (a crease, a flat surface,
    /// a polygon that uses the point twice), where [`Self::at`] answers per corner. Asked of the full
    /// table ([`Self::new`]).
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
            let cos_limit = self.cos_limit.get(polys.surface().get(q as usize) as usize).copied().flatten()?;
            *slot = Around {
                polygon: q,
                normal: self.face_normals[q as usize],
                cos_limit,
                group: polys.smoothing_group()[q as usize],
            };
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
    // NaN must fail the smoothing test, so the comparisons read "not at least".
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
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

    /// The normal at point `v` of polygon `p` for another shape of the same polygons: the smoothing
    /// rule applied to `face_normals` (from [`face_normals_for`]).
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
        if self.unasked
            || self.uniform_cos_limit.is_some()
            || self.cos_limit.get(surface as usize).copied().flatten().is_some()
        {
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
        self.cos_limit.get(self.layer.polygons.surface().get(p) as usize).copied().flatten()
    }

    /// Polygon `p`'s normal `own` plus those of the polygons `around` it (each with its normal) that
    /// smooth into it within `cos_limit` (its surface's), normalized.
    #[inline]
    fn smoothed(
        &self,
        own: [f32; 3],
        p: usize,
        cos_limit: f32,
        around: impl Iterator<Item = (u32, [f32; 3])>,
    ) -> [f32; 3] {
        let polys = &self.layer.polygons;
        let mut sum = own;
        for (q, other) in around {
            let q = q as usize;
            if q == p || polys.smoothing_group()[q] != polys.smoothing_group()[p] {
                continue;
            }
            if dot(own, other) >= cos_limit - 1e-6 {
                sum = [sum[0] + other[0], sum[1] + other[1], sum[2] + other[2]];
            }
        }
        normalize(sum).unwrap_or(own)
    }
}

/// What [`PointNormals::gathered`] makes: each point's normal (NaN where it does not share one), how
/// many points it left to the full test, and how many share a normal.
struct Gathered {
    normals: Vec<[f32; 3]>,
    unsettled: usize,
    shared: usize,
}

/// Per point of a layer: the normal all its corners share ([`CornerNormals::shared_at`]), or that they
/// do not share one. Made once per layer, on every core, before its polygons are built: a grid point's
/// four corners then cost one look-up each, and reusing one value makes their normals bit-identical,
/// so they share a vertex.
pub struct PointNormals {
    /// The shared normal, or NaN where the corners differ (a normalized sum is never NaN).
    by_point: Vec<[f32; 3]>,
    /// How many entries are not NaN, counted by the passes that write them: a count after, over the
    /// whole table, took 2 ms of the benchmark terrain's load on one core.
    shared: usize,
}

impl PointNormals {
    /// Every point of the layer `normals` was made for.
    pub fn new(normals: &CornerNormals<'_>) -> Self {
        let by_point = crate::parallel::parallel_collect(normals.layer.points.len(), 1 << 16, |v| {
            normals.shared_at(v as u32).unwrap_or([f32::NAN; 3])
        });
        // Not worth counting in the pass: this table is made where a point's polygons are all listed,
        // which costs far more.
        let shared = by_point.iter().filter(|n| !n[0].is_nan()).count();
        Self { by_point, shared }
    }

    /// Each point's shared normal where every polygon is smoothed with `cos_limit` in one group, made
    /// without listing each point's polygons: one pass over the polygons in file order adds each one's
    /// normal to its points' sums (the order and the sums [`CornerNormals::shared_at`] makes) and
    /// compares it with the point's first polygon's. Normals each within half the smoothing angle of
    /// one normal are within the whole angle of each other, so a point whose polygons all pass
    /// [`within_half_angle`] passes the test of every pair. The rest (NaN here, and counted) are left to
    /// that test: a crease, a polygon that uses the point twice, or polygons spread wider than half the
    /// angle. (A point no polygon uses, or whose one polygon has no normal, is NaN too, as in the full
    /// test, and not counted.)
    // NaN must fail the smoothing test, so the comparisons read "not at least".
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn gathered(normals: &CornerNormals<'_>, cos_limit: f32) -> Gathered {
        // Per point: its sum, then its normal (made in place, NaN where it is left to the full test);
        // its first and latest polygons (each its index + 1; 0 none yet), `first` UNSETTLED once the
        // point is left to the full test. Zeroed, so the kernel's zeroed pages serve as they come.
        const UNSETTLED: u32 = u32::MAX;
        let (polys, face_normals) = (&normals.layer.polygons, &normals.face_normals);
        let bound = within_half_angle(cos_limit);
        let point_count = normals.layer.points.len();
        let mut sums = vec![[0.0f32; 3]; point_count];
        let mut marks = vec![[0u32; 2]; point_count];
        // Each thread takes every polygon and a run of the points: each point's sum in file order.
        let run = crate::parallel::run_per_core(point_count, 1 << 16);
        let runs: Vec<_> = sums
            .chunks_mut(run)
            .zip(marks.chunks_mut(run))
            .enumerate()
            .map(|(k, (sums, marks))| (k * run, sums, marks))
            .collect();
        let (unsettled, shared) = (std::sync::atomic::AtomicUsize::new(0), std::sync::atomic::AtomicUsize::new(0));
        crate::parallel::parallel_each(runs, |(start, sums, marks)| {
            for p in 0..polys.len() {
                let (normal, tag) = (face_normals[p], p as u32 + 1);
                for &v in polys.vertices(p) {
                    let Some(k) = (v as usize).checked_sub(start).filter(|&k| k < sums.len()) else { continue };
                    let ([first, latest], sum) = (&mut marks[k], &mut sums[k]);
                    if *first == 0 {
                        *first = tag;
                    } else if *latest == tag
                        || (*first != UNSETTLED && !(dot(face_normals[*first as usize - 1], normal) >= bound))
                    {
                        // Written as "not at least" so that a NaN normal also leaves the point unsettled.
                        *first = UNSETTLED;
                    }
                    *latest = tag;
                    *sum = [sum[0] + normal[0], sum[1] + normal[1], sum[2] + normal[2]];
                }
            }
            let (mut left, mut shared_here) = (0, 0);
            for (sum, &[first, _]) in sums.iter_mut().zip(marks.iter()) {
                left += usize::from(first == UNSETTLED);
                // A point no polygon uses has no normal to share, as in the full test.
                *sum = if first == UNSETTLED { [f32::NAN; 3] } else { normalize(*sum).unwrap_or([f32::NAN; 3]) };
                shared_here += usize::from(!sum[0].is_nan());
            }
            unsettled.fetch_add(left, std::sync::atomic::Ordering::Relaxed);
            shared.fetch_add(shared_here, std::sync::atomic::Ordering::Relaxed);
        });
        Gathered { normals: sums, unsettled: unsettled.into_inner(), shared: shared.into_inner() }
    }

    /// No point shares: every corner follows the rule on its own (a layer with morphs, where a morph
    /// can crease a point that is smooth at rest).
    pub fn none() -> Self {
        Self { by_point: Vec::new(), shared: 0 }
    }

    /// Whether the table has an entry for each point (it has none from [`Self::none`]).
    #[inline]
    pub fn covers_points(&self) -> bool {
        !self.by_point.is_empty()
    }

    /// How many points' corners share a normal.
    pub fn shared_count(&self) -> usize {
        self.shared
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

/// The least dot product of two polygons' normals (normalized in f32) that proves them within half the
/// angle whose cosine is `cos_limit`, so that two normals each that close to a third pass the full
/// test's `dot >= cos_limit - 1e-6` with each other. cos(θ/2) = √((1 + cos θ) / 2), raised by margins
/// of 1e-4 inside the root and outside it, beyond the rounding of an f32 dot product (under 1e-6) and
/// of a normalized normal's length (within 2e-5 of 1, even for a polygon whose cross product is near
/// 1e-20, where `normalize` works on subnormal squares). With e = 4.1e-5 for those two, a normal that
/// passes is within an angle of cosine at least d = bound − e of the first's, so two such normals
/// are within an angle of cosine 2d² − 1 > cos θ + 2e-4, and their computed dot exceeds cos θ. The
/// bound is above 0 for every angle, so a zero normal never passes.
fn within_half_angle(cos_limit: f32) -> f32 {
    ((((1.0 + f64::from(cos_limit)) / 2.0).max(0.0) + 1e-4).sqrt() + 1e-4) as f32
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
        let corpus = |f: &str| {
            object(&std::fs::read(format!("/usr/share/assimp/models/LWO/{f}")).expect("assimp-testmodels is installed"))
        };
        let objects = [
            object(&crate::fixtures::lwo::large_object(40, 30)),
            corpus("LWO2/hierarchy_smoothed.lwo"),
            // Two cubes of two smoothed surfaces beside a flat one: one angle among those they use.
            corpus("LWO2/hierarchy.lwo"),
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

    /// A one-layer LWO2 object of `points` and `polygons`, each polygon of surface "Smooth" (smoothed
    /// at `degrees`) or, where `flat` says so, "Flat" (shaded flat).
    fn smoothed_object(
        points: &[[f32; 3]],
        polygons: &[Vec<u32>],
        degrees: f32,
        flat: impl Fn(usize) -> bool,
    ) -> Vec<u8> {
        use crate::fixtures::lwo::{chunk, f32s, form, s0, sub_chunk, vx};
        let (mut records, mut tags) = (b"FACE".to_vec(), b"SURF".to_vec());
        for (k, corners) in polygons.iter().enumerate() {
            records.extend((corners.len() as u16).to_be_bytes());
            corners.iter().for_each(|&v| records.extend(vx(v)));
            tags.extend(vx(k as u32));
            tags.extend(u16::from(flat(k)).to_be_bytes());
        }
        let mut layer = vec![0; 4];
        layer.extend(f32s(&[0.0; 3]));
        layer.extend(s0(""));
        let mut body = chunk(b"TAGS", &[s0("Smooth"), s0("Flat")].concat());
        body.extend(chunk(b"LAYR", &layer));
        body.extend(chunk(b"PNTS", &f32s(points.as_flattened())));
        body.extend(chunk(b"POLS", &records));
        body.extend(chunk(b"PTAG", &tags));
        for (name, angle) in [("Smooth", degrees.to_radians()), ("Flat", 0.0)] {
            let mut surface = s0(name);
            surface.extend(s0(""));
            surface.extend(sub_chunk(b"SMAN", &f32s(&[angle])));
            body.extend(chunk(b"SURF", &surface));
        }
        form(b"LWO2", &body)
    }

    /// A strip of four polygons folded along three lines, at 40°, 50° and 70°, smoothed at 60°: the
    /// first two folds are smooth but wider than half the angle, the third is a crease; the last
    /// polygon names one of its points twice, and with `flat_last` it is of a surface shaded flat.
    fn folded_strip(flat_last: bool) -> Vec<u8> {
        let mut profile = vec![[0.0f32, 0.0]];
        for slope in [20.0f32, -20.0, -70.0, 0.0] {
            let [x, y] = profile[profile.len() - 1];
            profile.push([x + slope.to_radians().cos(), y + slope.to_radians().sin()]);
        }
        let points: Vec<[f32; 3]> = profile.iter().flat_map(|&[x, y]| [[x, y, 0.0], [x, y, 1.0]]).collect();
        // The last polygon names its last point twice (the full test then shares no normal there).
        let polygons: Vec<Vec<u32>> = (0..4u32)
            .map(|k| {
                if k < 3 {
                    vec![2 * k, 2 * k + 1, 2 * k + 3, 2 * k + 2]
                } else {
                    vec![2 * k, 2 * k + 1, 2 * k + 3, 2 * k + 2, 2 * k + 2]
                }
            })
            .collect();
        smoothed_object(&points, &polygons, 60.0, |k| flat_last && k == 3)
    }

    /// Three triangles around point 0 like pages of a book about the x axis, tilted 0°, −35° and 35°,
    /// smoothed at 60°: each is within the angle of the first, the last two are not within it of each
    /// other (70°), so the point shares no normal.
    fn open_book() -> Vec<u8> {
        let mut points = vec![[0.0f32; 3]];
        let mut polygons = Vec::new();
        for (k, tilt) in [0.0f32, -35.0, 35.0].into_iter().enumerate() {
            let (sin, cos) = tilt.to_radians().sin_cos();
            points.push([1.0 + k as f32, 0.0, 0.0]);
            points.push([0.5 + k as f32, cos, sin]);
            polygons.push(vec![0, points.len() as u32 - 2, points.len() as u32 - 1]);
        }
        smoothed_object(&points, &polygons, 60.0, |_| false)
    }

    /// Two quads side by side, smoothed at `degrees`; the second names the point they share first
    /// twice, apart in its list (so that the full test shares no normal there), and a line from the
    /// other shared point out of the plane has no normal of its own (which the full test passes
    /// from 90° up).
    fn quads_with_a_line(degrees: f32) -> Vec<u8> {
        let points = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [2.0, 0.0, 0.0],
            [2.0, 0.0, 1.0],
            [1.0, 1.0, 1.0],
        ];
        let polygons = [vec![0, 1, 2, 3], vec![1, 4, 5, 2, 1], vec![2, 6]];
        smoothed_object(&points, &polygons, degrees, |_| false)
    }

    /// The shared normals made polygon by polygon, and every corner asked of the table left for the
    /// points they do not settle, have the bits the full test gives on every point's listed polygons:
    /// on the generated terrain (small, and large enough to have its table cut), smoothed real files,
    /// LightWave 2018's objects, a strip whose smooth folds only the full test can settle (also with a
    /// flat polygon), three polygons each within the angle of the first but not of each other, and
    /// quads with a point named twice in its second polygon and a line at a point (smoothed below and
    /// above 90°); each also with two smoothing groups and with two smoothing angles.
    #[test]
    fn shared_normals_gathered_polygon_by_polygon_have_the_full_test_s_bits() {
        let corpus = |f: &str| {
            object(&std::fs::read(format!("/usr/share/assimp/models/LWO/{f}")).expect("assimp-testmodels is installed"))
        };
        let mut objects = vec![
            object(&crate::fixtures::lwo::large_object(40, 30)),
            object(&crate::fixtures::lwo::large_object(300, 240)),
            object(&folded_strip(false)),
            object(&folded_strip(true)),
            object(&open_book()),
            object(&quads_with_a_line(60.0)),
            object(&quads_with_a_line(170.0)),
            corpus("LWO2/hierarchy_smoothed.lwo"),
            corpus("LWO2/sphere_with_gradient.lwo"),
            corpus("LWO2/UglyVertexColors.lwo"),
            corpus("LXOB_Modo/CrazyEngine.lxo"),
        ];
        let lightwave_2018 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lightwave-2018/Objects");
        for entry in
            std::fs::read_dir(&lightwave_2018).expect("tests/data/lightwave-2018 is in the repository").flatten()
        {
            objects.push(object(&std::fs::read(entry.path()).expect("readable")));
        }
        let bits = |n: [f32; 3]| n.map(f32::to_bits);
        let (mut one_angle, mut several, mut cut_tables, mut cut_unlisted) = (0, 0, 0, 0);
        for object in &objects {
            for layer in &object.layers {
                // As written; with the fourth polygon in a smoothing group of its own;
                // with the second surface smoothed at half its angle (where there are two, every point
                // takes the full test).
                let mut grouped = layer.clone();
                let count = grouped.polygons.len();
                grouped.polygons.set_smoothing_group(3.min(count), 7);
                let mut surfaces = object.surfaces.clone();
                if let Some(second) = surfaces.get_mut(1) {
                    second.max_smoothing_angle *= 0.5;
                }
                for (layer, surfaces) in [(layer, &object.surfaces), (&grouped, &object.surfaces), (layer, &surfaces)] {
                    let full = CornerNormals::new(layer, surfaces, true);
                    let (normals, shared) = CornerNormals::with_shared(layer, surfaces, true, true);
                    match full.uniform_cos_limit {
                        Some(_) => one_angle += 1,
                        None => several += usize::from(full.smooths_any()),
                    }
                    // Tables cut once smoothed (a large layer shaded flat keeps none from the start).
                    cut_tables += usize::from(normals.smooths_any() && normals.kept.is_some());
                    // No point left to the full test: no list was made before the table was cut.
                    cut_unlisted += usize::from(
                        normals.smooths_any()
                            && normals.kept.as_ref().is_some_and(Vec::is_empty)
                            && normals.incident.is_empty(),
                    );
                    for v in 0..layer.points.len() as u32 {
                        let expected = full.shared_at(v).unwrap_or([f32::NAN; 3]);
                        assert_eq!(
                            bits(shared.by_point.get(v as usize).copied().unwrap_or([f32::NAN; 3])),
                            bits(expected),
                            "point {v}"
                        );
                    }
                    // The count kept as the table was made is the table's.
                    assert_eq!(
                        shared.shared_count(),
                        shared.by_point.iter().filter(|n| !n[0].is_nan()).count(),
                        "points sharing a normal"
                    );
                    for p in 0..layer.polygons.len() {
                        for &v in layer.polygons.vertices(p).iter().filter(|&&v| !shared.shares(v)) {
                            assert_eq!(bits(shared.at(&normals, p, v)), bits(full.at(p, v)), "polygon {p}, point {v}");
                        }
                    }
                }
            }
        }
        assert!(
            one_angle >= 4 && several >= 8 && cut_tables >= 2 && cut_unlisted >= 1,
            "{one_angle} layers of one angle, {several} of several, {cut_tables} tables cut, {cut_unlisted} unlisted"
        );

        // The strip: the gathering leaves the folds' points and the twice-named one to the full test,
        // which shares the two smooth folds' normals and not the crease's or the twice-named point's.
        let strip = object(&folded_strip(false));
        let layer = &strip.layers[0];
        let (normals, shared) = CornerNormals::with_shared(layer, &strip.surfaces, true, true);
        let Gathered { unsettled, .. } =
            PointNormals::gathered(&normals, normals.uniform_cos_limit.expect("one angle"));
        assert_eq!(unsettled, 7);
        let shares: Vec<bool> = (0..10).map(|v| shared.shares(v)).collect();
        assert_eq!(shares, [true, true, true, true, true, true, false, false, false, true]);
        assert_eq!(shared.shared_count(), 7, "the count kept through the full test's pass");
    }

    /// A flat layer's corners each have their polygon's own normal, whether its polygons' normals are
    /// made into a table first (a small layer) or each as its corners ask (a large one).
    #[test]
    fn flat_layers_give_each_corner_its_polygons_normal_with_or_without_the_table() {
        for (columns, rows, tabled) in [(40, 30, true), (300, 240, false)] {
            let object = object(&crate::fixtures::lwo::large_object(columns, rows));
            let layer = &object.layers[0];
            assert_eq!(layer.polygons.len() < FLAT_NORMALS_TABLED_BELOW, tabled, "{} polygons", layer.polygons.len());
            let (normals, shared) = CornerNormals::with_shared(layer, &object.surfaces, false, true);
            assert_eq!(normals.face_normals.is_empty(), !tabled);
            for p in 0..layer.polygons.len() {
                let own = polygon_normal(&layer.points, layer.polygons.vertices(p)).map(f32::to_bits);
                assert_eq!(
                    normals.flat_normal(p, layer.polygons.surface().get(p)).map(|n| n.map(f32::to_bits)),
                    Some(own),
                    "polygon {p}"
                );
                for &v in layer.polygons.vertices(p) {
                    assert_eq!(shared.at(&normals, p, v).map(f32::to_bits), own, "polygon {p}, point {v}");
                }
            }
        }
    }

    /// Two normals on either side of a third, each as far from it as the half-angle bound lets through
    /// and a little short of unit length, still pass the full test's `dot >= cos_limit - 1e-6` with
    /// each other, at every angle where the bound is used.
    #[test]
    fn normals_within_the_half_angle_bound_of_one_are_within_the_angle_of_each_other() {
        for step in 1..=3140 {
            let angle = step as f32 * 0.001;
            let cos_limit = angle.cos();
            if within_half_angle(cos_limit) >= 1.0 {
                // No two polygons pass; `CornerNormals::with_shared` does not gather.
                continue;
            }
            // As far from the third as a normal that passes can be, rounding and length errors taken
            // against it (the e of `within_half_angle`), each 2e-5 short of unit length.
            let half = (f64::from(within_half_angle(cos_limit)) - 4.1e-5).min(1.0).acos();
            let side = |sign: f64| [0.0, (sign * half).sin() as f32, (sign * half).cos() as f32];
            let short = |n: [f32; 3]| n.map(|c| c * (1.0 - 2e-5));
            let (a, b) = (short(normalize(side(1.0)).expect("unit")), short(normalize(side(-1.0)).expect("unit")));
            assert!(dot(a, b) >= cos_limit - 1e-6, "smoothing angle {angle}: {} < {}", dot(a, b), cos_limit - 1e-6);
            // Not much stricter than it need be: from a tenth of a radian on, within 0.025 of it.
            assert!(
                angle < 0.1 || half * 2.0 > f64::from(angle) - 0.025,
                "smoothing angle {angle}: the bound lets through only {}",
                half * 2.0
            );
        }
    }

    /// A layer is smoothed by the surfaces its own polygons use: in `hierarchy.lwo`, the sphere and one
    /// cube, of a flat surface, list no point's polygons though the object smooths two other surfaces
    /// (the two other cubes', each at one angle: the one-angle shortcut), and every corner of them
    /// keeps its polygon's normal.
    #[test]
    fn a_layer_is_smoothed_by_the_surfaces_its_polygons_use() {
        let object = object(
            &std::fs::read("/usr/share/assimp/models/LWO/LWO2/hierarchy.lwo").expect("assimp-testmodels is installed"),
        );
        assert!(object.surfaces.iter().filter(|s| s.max_smoothing_angle > 0.0).count() >= 2);
        let (mut flat_layers, mut smooth_layers) = (0, 0);
        for layer in &object.layers {
            let (normals, shared) = CornerNormals::with_shared(layer, &object.surfaces, true, true);
            if normals.smooths_any() {
                smooth_layers += 1;
                assert!(normals.uniform_cos_limit.is_some());
                continue;
            }
            flat_layers += 1;
            assert!(normals.first.is_empty() && normals.incident.is_empty() && !shared.covers_points());
            for p in 0..layer.polygons.len() {
                let own = polygon_normal(&layer.points, layer.polygons.vertices(p)).map(f32::to_bits);
                for &v in layer.polygons.vertices(p) {
                    assert_eq!(shared.at(&normals, p, v).map(f32::to_bits), own, "polygon {p}, point {v}");
                }
            }
        }
        assert_eq!((flat_layers, smooth_layers), (2, 2));
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
        grouped.polygons.set_smoothing_group(3, 7);
        assert_eq!(CornerNormals::new(&grouped, &terrain.surfaces, true).uniform_cos_limit, None);
        assert_eq!(CornerNormals::new(layer, &terrain.surfaces, false).uniform_cos_limit, None);
    }
}
