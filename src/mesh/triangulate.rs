//! Polygon triangulation on the polygon's best-fit plane, never a fan, so concave polygons keep their
//! shape: earcut (ear clipping) for simple outlines, and lyon's fill tessellator for outlines that cross
//! themselves, which splits the edges where they cross and fills by the non-zero winding rule, so the
//! triangles cover the filled region exactly once. Output triangles keep the polygon's own winding.

use earcut::Earcut;
use lyon_tessellation::geom::point;
use lyon_tessellation::path::Polygon;
use lyon_tessellation::{
    BuffersBuilder, FillGeometryBuilder, FillOptions, FillRule, FillTessellator, FillVertex, GeometryBuilder,
    GeometryBuilderError, VertexBuffers, VertexId, VertexSource,
};

use super::{cross, dot, normalize, sub};

/// Reusable buffers: one triangulator serves a whole mesh build without allocating per polygon.
pub struct Triangulator {
    earcut: Earcut<f64>,
    fill: FillTessellator,
    projected: Vec<[f64; 2]>,
    local: Vec<u32>,
    crossings: Vec<Crossing>,
}

/// A corner the triangulator added where two edges cross: the point `t` of the way from polygon corner
/// `from` to the next corner. Triangle indices from `n` (the polygon's corner count) on refer to these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    pub from: u32,
    pub to: u32,
    pub t: f32,
}

/// Whether two segments cross at a point inside both (touching ends do not count).
fn segments_cross(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let orient = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
    let (d1, d2) = (orient(a, b, c), orient(a, b, d));
    let (d3, d4) = (orient(c, d, a), orient(c, d, b));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// How many times the closed outline winds around `p` (counter-clockwise positive): the non-zero rule
/// fills where this is not 0.
pub fn winding_number(outline: &[[f64; 2]], p: [f64; 2]) -> i32 {
    let mut w = 0;
    for i in 0..outline.len() {
        let (a, b) = (outline[i], outline[(i + 1) % outline.len()]);
        let side = (b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1]);
        if a[1] <= p[1] && b[1] > p[1] && side > 0.0 {
            w += 1;
        } else if a[1] > p[1] && b[1] <= p[1] && side < 0.0 {
            w -= 1;
        }
    }
    w
}

/// The largest projected coordinate (from the polygon's first corner) the triangulators are given:
/// lyon multiplies two coordinate differences in f32, which stays finite below about 9·10¹⁸. No real
/// polygon spans a thousandth of this.
const MAX_PROJECTED: f64 = 1e18;

/// Outlines above this many corners are not checked edge against edge (that is quadratic); they are
/// taken as simple, as every exporter writes them.
const MAX_CHECKED_CORNERS: usize = 512;

fn is_simple(outline: &[[f64; 2]]) -> bool {
    let n = outline.len();
    if !(4..=MAX_CHECKED_CORNERS).contains(&n) {
        return true;
    }
    for i in 0..n {
        let (a, b) = (outline[i], outline[(i + 1) % n]);
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            if segments_cross(a, b, outline[j], outline[(j + 1) % n]) {
                return false;
            }
        }
    }
    true
}

impl Default for Triangulator {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether every coordinate is finite, without a branch per coordinate: a coordinate times zero is
/// ±0 when it is finite and NaN when it is infinite or NaN, and one NaN makes the sum NaN.
#[inline(always)]
fn all_finite(points: &[[f32; 3]]) -> bool {
    points.iter().fold(0.0f32, |sum, p| sum + p[0] * 0.0 + p[1] * 0.0 + p[2] * 0.0) == 0.0
}

/// A quad's coordinates by axis, `[x, y, z]`, each holding the four corners' values in order, for
/// [`quad_finite`] to take four corners in each operation.
#[inline(always)]
fn by_axis(quad: &[[f32; 3]; 4]) -> [[f32; 4]; 3] {
    std::array::from_fn(|axis| quad.map(|corner| corner[axis]))
}

/// [`all_finite`] for a quad: a coordinate less itself is 0 when it is finite and NaN when it is
/// infinite or NaN, summed in four lanes of three.
#[inline(always)]
#[allow(clippy::eq_op)]
fn quad_finite([x, y, z]: &[[f32; 4]; 3]) -> bool {
    let lanes: [f32; 4] = std::array::from_fn(|k| (x[k] - x[k]) + (y[k] - y[k]) + (z[k] - z[k]));
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) == 0.0
}

/// Newell's normal: robust for concave and slightly non-planar polygons; its length is twice the area.
#[inline(always)]
pub fn newell_normal(points: &[[f32; 3]]) -> [f32; 3] {
    let mut n = [0.0f64; 3];
    // Each edge (a, b) in order, the closing one last; no division per corner to wrap around.
    let closing = points.last().zip(points.first());
    for (a, b) in points.windows(2).map(|w| (&w[0], &w[1])).chain(closing) {
        let (a, b) = (a.map(f64::from), b.map(f64::from));
        n[0] += (a[1] - b[1]) * (a[2] + b[2]);
        n[1] += (a[2] - b[2]) * (a[0] + b[0]);
        n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    n.map(|c| c as f32)
}

impl Triangulator {
    pub fn new() -> Self {
        Self {
            earcut: Earcut::new(),
            fill: FillTessellator::new(),
            projected: Vec::new(),
            local: Vec::new(),
            crossings: Vec::new(),
        }
    }

    /// The corners added by the last call, where its outline crossed itself (empty for simple outlines).
    pub fn crossings(&self) -> &[Crossing] {
        &self.crossings
    }

    /// Appends triangles of the polygon `points` to `out`, as indices into `points`, or from
    /// `points.len()` on into [`Self::crossings`]. Returns how many were added; a polygon with
    /// non-finite points yields none, and so does one of four or more corners with no area (a
    /// triangle of finite points is always one triangle, even a flat one).
    #[inline(always)]
    pub fn triangulate(&mut self, points: &[[f32; 3]], out: &mut Vec<[u32; 3]>) -> usize {
        // Guards, not a closure: a closure around the quick test was left as a call.
        let passed_quick_test = match (points.first_chunk::<3>(), points.first_chunk::<4>()) {
            (Some(triangle), _) if points.len() == 3 => fans_quickly(triangle),
            (_, Some(quad)) if points.len() == 4 => fans_quickly(quad),
            _ => false,
        };
        self.triangulate_pretested(points, passed_quick_test, out)
    }

    /// [`Self::triangulate`] where the caller has asked [`fans_quickly`] of the polygon itself:
    /// `passed_quick_test` must be its answer for these points (false for other corner counts). A
    /// caller that holds a quad's points in an array it passes here should ask it of copies read from
    /// where the points are kept: the test's wide reads of the array's just-written corners waited for
    /// the writes to reach the cache (no store forwards to a load it only partly covers; a corpus
    /// sphere with a vertex map loads 7 % faster without it).
    ///
    /// Always inlined: a quad that the quick test fans, and a triangle, are decided in the caller's
    /// loop, without a call into the triangulator's large frame; every other polygon takes
    /// `Self::triangulate_rest`, which tests a quad's finiteness again (a cost only there).
    #[inline(always)]
    pub fn triangulate_pretested(
        &mut self,
        points: &[[f32; 3]],
        passed_quick_test: bool,
        out: &mut Vec<[u32; 3]>,
    ) -> usize {
        self.crossings.clear();
        match (passed_quick_test, points.len()) {
            (true, 3) => {
                out.push(QUICK_FANS[0][0]);
                1
            }
            (true, 4) => {
                out.push(QUICK_FANS[1][0]);
                out.push(QUICK_FANS[1][1]);
                2
            }
            _ => self.triangulate_rest(points, out),
        }
    }

    /// [`Self::triangulate_pretested`] for the polygons the quick test leaves.
    #[inline(never)]
    fn triangulate_rest(&mut self, points: &[[f32; 3]], out: &mut Vec<[u32; 3]>) -> usize {
        let n = points.len();
        // Quads, most polygons of real meshes, take the same steps with the corner count known, so
        // the compiler unrolls them.
        let fan = match <&[[f32; 3]; 4]>::try_from(points) {
            Ok(quad) => {
                if !quad_finite(&by_axis(quad)) {
                    return 0;
                }
                fan(quad, out)
            }
            Err(_) if n < 3 || !all_finite(points) => return 0,
            Err(_) if n == 3 => {
                out.push([0, 1, 2]);
                return 1;
            }
            Err(_) => fan(points, out),
        };
        let normal = match fan {
            Fan::Made(count) => return count,
            Fan::Degenerate => return 0,
            Fan::Not { normal } => normal,
        };
        // An orthonormal basis (u, v) of the plane with u × v = normal, so projected winding matches.
        let helper = if normal[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
        let Some(u) = normalize(cross(helper, normal)) else {
            return 0;
        };
        let v = cross(normal, u);
        self.projected.clear();
        let origin = points[0];
        self.projected.extend(points.iter().map(|p| {
            let d = sub(*p, origin);
            [f64::from(dot(d, u)), f64::from(dot(d, v))]
        }));
        // Finite corners can project to infinities (their differences, or the dot products of those,
        // past f32's range), and to coordinates so large that lyon's f32 products of two differences
        // overflow: neither triangulator can order such an outline (lyon's sweep, given one, broke its
        // own invariants). No triangles, as for non-finite corners.
        if !self.projected.iter().flatten().all(|c| c.abs() < MAX_PROJECTED) {
            return 0;
        }
        let before = out.len();
        if is_simple(&self.projected) {
            self.earcut.earcut(self.projected.iter().copied(), &[] as &[u32], &mut self.local);
        } else if !self.fill_crossing_outline() {
            return 0;
        }
        for t in self.local.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]];
            let [pa, pb, pc] = [a, b, c].map(|i| self.corner_2d(i));
            let signed = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pc[0] - pa[0]) * (pb[1] - pa[1]);
            // Earcut's output orientation is its own; turn each triangle to the polygon's winding.
            out.push(if signed >= 0.0 { [a, b, c] } else { [a, c, b] });
        }
        out.len() - before
    }

    fn corner_2d(&self, index: u32) -> [f64; 2] {
        match self.projected.get(index as usize) {
            Some(p) => *p,
            None => {
                let c = self.crossings[index as usize - self.projected.len()];
                let (a, b) = (self.projected[c.from as usize], self.projected[c.to as usize]);
                let t = f64::from(c.t);
                [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
            }
        }
    }

    /// The outline edge nearest `v`, and where along it `v` lies.
    fn nearest_edge(&self, v: [f64; 2]) -> (u32, u32, f32) {
        let n = self.projected.len();
        let mut best = (f64::MAX, 0usize, 0.0f64);
        for i in 0..n {
            let (a, b) = (self.projected[i], self.projected[(i + 1) % n]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len2 = dx * dx + dy * dy;
            if len2 == 0.0 {
                continue;
            }
            let t = (((v[0] - a[0]) * dx + (v[1] - a[1]) * dy) / len2).clamp(0.0, 1.0);
            let d = (a[0] + dx * t - v[0]).powi(2) + (a[1] + dy * t - v[1]).powi(2);
            if d < best.0 {
                best = (d, i, t);
            }
        }
        let (_, i, t) = best;
        (i as u32, ((i + 1) % n) as u32, t as f32)
    }

    /// Tessellates a self-crossing outline into `local`, recording the corners lyon adds as crossings
    /// along the polygon's own edges. False when lyon gives up on the outline.
    fn fill_crossing_outline(&mut self) -> bool {
        /// Where an output vertex comes from: a corner of the outline, or a point on one of its edges
        /// (a crossing). lyon says so from the outline's endpoint ids, corner k's id being k (a path
        /// without ids, as `tessellate_polygon` makes, gave every vertex only its position, to be found
        /// by a search of the outline).
        #[derive(Clone, Copy)]
        enum Source {
            Corner(u32),
            OnEdge {
                from: u32,
                to: u32,
                t: f32,
            },
            /// A vertex none of whose sources names a corner at its place or one of the outline's own
            /// edges: found by position, nearest edge.
            At([f32; 2]),
        }
        let outline: Vec<_> = self.projected.iter().map(|p| point(p[0] as f32, p[1] as f32)).collect();
        let mut buffers: VertexBuffers<Source, u32> = VertexBuffers::new();
        let options = FillOptions::default().with_fill_rule(FillRule::NonZero).with_tolerance(1e-4);
        let n = self.projected.len();
        let scale = self.projected.iter().fold(0.0f64, |m, p| m.max(p[0].abs()).max(p[1].abs())).max(1e-12);
        // A source is taken only where it says what lyon's position says, as the search would: a corner
        // within the search's distance of the vertex (lyon can name an edge's end corner for a vertex it
        // moved to a crossing), or an edge from a corner to the next (an edge lyon drops for having no
        // length makes the next one start a corner early).
        let near = (scale * 1e-5) as f32;
        let at_corner = |id: usize, position: lyon_tessellation::math::Point| {
            outline.get(id).is_some_and(|corner| (*corner - position).length() <= near)
        };
        let polygon = Polygon { points: &outline, closed: true };
        let result = self.fill.tessellate_with_ids(
            polygon.id_iter(),
            &polygon,
            None,
            &options,
            &mut VertexBudget::for_outline(
                n,
                BuffersBuilder::new(&mut buffers, |v: FillVertex| {
                    // A vertex may list several sources (the two edges of a crossing); any valid one places it.
                    let position = v.position();
                    let edge_of_outline = |from: usize, to: usize| from < n && to == (from + 1) % n;
                    v.sources()
                        .find_map(|source| match source {
                            VertexSource::Endpoint { id } if at_corner(id.to_usize(), position) => {
                                Some(Source::Corner(id.0))
                            }
                            VertexSource::Edge { from, to, t } if edge_of_outline(from.to_usize(), to.to_usize()) => {
                                Some(if t <= 0.0 {
                                    Source::Corner(from.0)
                                } else if t >= 1.0 {
                                    Source::Corner(to.0)
                                } else {
                                    Source::OnEdge { from: from.0, to: to.0, t }
                                })
                            }
                            _ => None,
                        })
                        .unwrap_or(Source::At(position.to_array()))
                }),
            ),
        );
        if result.is_err() {
            return false;
        }
        let n = n as u32;
        // Each unplaced vertex costs a pass over the edges; a hostile outline with thousands of crossings
        // is given up (no triangles, counted as degenerate) rather than stalling the load.
        let unplaced = buffers.vertices.iter().filter(|s| matches!(s, Source::At(_))).count();
        if unplaced.saturating_mul(n as usize) > MAX_CROSSING_SEARCH {
            return false;
        }
        let mut remap = Vec::with_capacity(buffers.vertices.len());
        for source in &buffers.vertices {
            let (from, to, t) = match *source {
                Source::Corner(k) if k < n => {
                    remap.push(k);
                    continue;
                }
                Source::OnEdge { from, to, t } if from < n && to < n => (from, to, t),
                Source::At([x, y]) => {
                    #[cfg(test)]
                    VERTICES_FOUND_BY_POSITION.with(|count| count.set(count.get() + 1));
                    let v = [f64::from(x), f64::from(y)];
                    let near = |p: &[f64; 2]| ((p[0] - v[0]).powi(2) + (p[1] - v[1]).powi(2)).sqrt() <= scale * 1e-5;
                    if let Some(k) = self.projected.iter().position(near) {
                        remap.push(k as u32);
                        continue;
                    }
                    self.nearest_edge(v)
                }
                _ => return false,
            };
            self.crossings.push(Crossing { from, to, t });
            remap.push(n + self.crossings.len() as u32 - 1);
        }
        self.local.clear();
        self.local.extend(buffers.indices.iter().map(|&i| remap[i as usize]));
        true
    }
}

#[cfg(test)]
thread_local! {
    /// How many of lyon's vertices this thread's outlines placed by a search of their position, so that
    /// tests can tell that lyon named the others' corners and edges.
    static VERTICES_FOUND_BY_POSITION: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A fill geometry builder that stops lyon's sweep once it has made more vertices than the outline
/// would keep. With exact numbers an outline of n corners has at most n + n(n − 3)/2 vertices (its
/// corners and one crossing per pair of edges that are not neighbours). The budget is the smaller of
/// n + n(n − 1)/2 and `MAX_CROSSING_SEARCH` / n: the vertices that could still be placed by a search of
/// the outline if lyon named none of them (see `fill_crossing_outline`), which also holds a large
/// outline's sweep to a bounded amount of work. On some outlines whose coordinates span many orders of
/// magnitude (a fuzzed object's polygon of 217 corners, one of them 10⁷ from the others) lyon's f32
/// sweep keeps finding crossings of the pieces it has just cut: it made 1.46 million vertices in 4.5 s
/// and 390 MB before it returned. Stopped, the outline gets no triangles, as when lyon gives up on one.
struct VertexBudget<B> {
    inner: B,
    left: usize,
}

impl<B> VertexBudget<B> {
    fn for_outline(corners: usize, inner: B) -> Self {
        let every_corner_and_crossing = corners.saturating_add(corners.saturating_mul(corners.saturating_sub(1)) / 2);
        Self { inner, left: every_corner_and_crossing.min(MAX_CROSSING_SEARCH / corners.max(1)) }
    }
}

impl<B: GeometryBuilder> GeometryBuilder for VertexBudget<B> {
    fn begin_geometry(&mut self) {
        self.inner.begin_geometry();
    }

    fn end_geometry(&mut self) {
        self.inner.end_geometry();
    }

    fn add_triangle(&mut self, a: VertexId, b: VertexId, c: VertexId) {
        self.inner.add_triangle(a, b, c);
    }

    fn abort_geometry(&mut self) {
        self.inner.abort_geometry();
    }
}

impl<B: FillGeometryBuilder> FillGeometryBuilder for VertexBudget<B> {
    fn add_fill_vertex(&mut self, vertex: FillVertex) -> Result<VertexId, GeometryBuilderError> {
        self.left = self.left.checked_sub(1).ok_or(GeometryBuilderError::TooManyVertices)?;
        self.inner.add_fill_vertex(vertex)
    }
}

/// What [`fan`] did with a polygon.
enum Fan {
    /// Appended this many triangles.
    Made(usize),
    /// Nothing: the polygon has no area.
    Degenerate,
    /// Nothing: no fan covers it; its unit normal, for the general path.
    Not { normal: [f32; 3] },
}

/// Triangulates a polygon of four or more corners as a fan from [`fan_apex`], when one covers it.
#[inline(always)]
fn fan(points: &[[f32; 3]], out: &mut Vec<[u32; 3]>) -> Fan {
    let area_normal = newell_normal(points);
    let Some(normal) = normalize(area_normal) else {
        return Fan::Degenerate;
    };
    let Some(apex) = fan_apex(points, normal, dot(area_normal, normal)) else {
        return Fan::Not { normal };
    };
    // Most polygons of real meshes are convex or have one notch: a fan from the right corner covers
    // them, in their own winding, without projecting them.
    let n = points.len() as u32;
    let wrap = |i: u32| if i >= n { i - n } else { i };
    // Pushed one by one: for a quad the loop unrolls into two pushes, where `extend` was a call.
    for j in 1..n - 1 {
        out.push([apex, wrap(apex + j), wrap(apex + j + 1)]);
    }
    Fan::Made(n as usize - 2)
}

/// Whether [`Triangulator::triangulate`] decides this triangle or quad by its quick cases: a finite
/// triangle, or a quad its quick test fans from corner 0. Its triangles are then [`QUICK_FANS`]`[N - 3]`.
/// A quad is not tested for finite corners first: the quick test fails any other by itself, since a
/// non-finite coordinate makes one of the fan's cross products, and so their sum, infinite or NaN
/// (`non_finite_points_give_no_triangles` holds it to that).
#[inline(always)]
pub fn fans_quickly<const N: usize>(points: &[[f32; 3]; N]) -> bool {
    match points.as_slice().first_chunk::<4>() {
        Some(quad) if N == 4 => fans_from_corner_0(quad),
        _ => N == 3 && all_finite(points),
    }
}

/// The triangles of [`fans_quickly`]'s triangles and quads, as [`Triangulator::triangulate`] makes them.
pub const QUICK_FANS: [&[[u32; 3]]; 2] = [&[[0, 1, 2]], &[[0, 1, 2], [0, 2, 3]]];

/// Whether [`fan`] would fan the quad from corner 0, decided from the fan's own two triangles instead of
/// Newell's normal in f64 (the quick test was a fifth of a small file's load while it made that normal).
///
/// True only where every test of [`fan_apex`] passes with a margin no rounding can cross. The fan's
/// triangles' cross products `a1 = b1 × c1`, `a2 = c1 × c2` (`b1`, `c1`, `c2`: corners 1, 2, 3 less
/// corner 0, in f32, the full test's own values) sum exactly to the quad's area vector `V`, of which
/// Newell's normal `N` is the f32 rounding; so `n = a1 + a2` stands for `N`. Each triangle's `a`, and
/// the turns `t` (edge into a corner × edge out of it) at corners 0 and 2, must clear
/// `(v · n)² ≥ |x|²·|y|²·|n|² / 4M²` with `v · n > 0`, `x`, `y` the two vectors crossed and M = 32:
/// those angles are between about 2° and 178°, so `v` lies along `n` by at least `|x|·|y| / 2M`. The
/// turns at corners 1 and 3 are `a1` and `a2` before rounding, and follow from them while sides 0–1
/// and 0–3 are at most 1024 times the diagonal 0–2. Then the roundings are bounded by the margins:
/// `|n − V|` by about `10·M·u·|n|` (u = 2⁻²⁴: the corners' differences and the cross products, each
/// rounded once per step, against `|b1|·|c1| + |c1|·|c2| ≤ 2M·|n|`), and the full test's dot products
/// along `N / |N|` by about as much again. That is below 4·10⁻⁵ of the area, under the full test's
/// 10⁻⁴ for its sum; its turns and areas, positive by at least `|x|·|y| / 64` here (the turns at 1 and
/// 3 by that over 1025, less roundings of about 10·u·1025 of it), keep their signs and clear its 10⁻⁴
/// thinness bound by far. Quads thinner than about 32 : 1, and corners sharper than that, take the
/// full test. The bounds hold where roundings are relative, so the clearances are taken in f64 (the
/// f32 vectors' products there are exact) and also ask `|x|·|y| ≥ 10⁻³⁰`: below that the f32 products
/// of either test fall out of the normal range, where a rounding is a fixed step (a quad with a side
/// of 10⁻³⁵ was taken while its turn there was reflex; a review found it).
#[inline(always)]
fn fans_from_corner_0(quad: &[[f32; 3]; 4]) -> bool {
    let [p0, p1, p2, p3] = *quad;
    let (b1, c1, c2) = (sub(p1, p0), sub(p2, p0), sub(p3, p0));
    let (a1, a2) = (cross(b1, c1), cross(c1, c2));
    let n = [a1[0] + a2[0], a1[1] + a2[1], a1[2] + a2[2]].map(f64::from);
    let nn_wide = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    // Far inside `normalize`'s range (length above 1e-20, finite): there, nothing below overflows.
    // Elsewhere the values below can be infinite or NaN, and the answer is false all the same.
    let in_range = (nn_wide > 1e-30) & (nn_wide < 1e30);
    // Every test is taken (`&`, not `&&`): without a branch between them, [`quads_fan_quickly`]'s loop
    // over several quads is compiled into vector instructions, each quad a lane.
    let (b1_squared, c1_squared, c2_squared) = (squared(b1), squared(c1), squared(c2));
    // The turns at corners 1 and 3 are the fan's triangles (edge 0→1 × edge 1→2 is b1 × c1, edge 2→3 ×
    // edge 3→0 is c1 × c2, before rounding): they clear with them, as long as the sides about the
    // diagonal 0–2 are not over a thousand times its length (the turns' roundings, against the edges'
    // lengths, then stay under 10⁻³ of what the triangles clear by).
    in_range
        & clears(a1, b1_squared, c1_squared, n, nn_wide)
        & clears(a2, c1_squared, c2_squared, n, nn_wide)
        & (b1_squared <= SIDE_OVER_DIAGONAL_SQUARED * c1_squared)
        & (c2_squared <= SIDE_OVER_DIAGONAL_SQUARED * c1_squared)
        // The turn at corner 0 is edge 3→0 × edge 0→1, (−c2) × b1: the same values as b1 × c2, since
        // negating is exact and a − b is −(b − a) but for the sign of a zero, which `clears` does not
        // see (a zero `along` fails either way); its edges' squares are those above.
        & clears(cross(b1, c2), c2_squared, b1_squared, n, nn_wide)
        & turn_clears(p1, p2, p3, n, nn_wide)
}

/// How many quads [`quads_fan_quickly`] decides at once.
pub const QUICK_QUAD_LANES: usize = 8;

/// [`fans_quickly`] for [`QUICK_QUAD_LANES`] quads at once: bit k of the answer is quad k's. Each quad's
/// operations are those of its own test, in the same order, so its answer is the same (Rust neither
/// fuses a multiply-add nor reorders a sum on its own); the loop over the quads, without a branch, is
/// what the compiler makes vector instructions of, the quads side by side in the lanes (SSE2's two f64
/// lanes in a baseline x86-64 build, more where the target has wider registers).
#[inline(always)]
pub fn quads_fan_quickly(by_lane: &QuadLanes) -> u32 {
    let mut passed = [false; QUICK_QUAD_LANES];
    for (k, passed) in passed.iter_mut().enumerate() {
        let corner = |c: usize| [by_lane[c][0][k], by_lane[c][1][k], by_lane[c][2][k]];
        *passed = fans_from_corner_0(&[corner(0), corner(1), corner(2), corner(3)]);
    }
    passed.iter().enumerate().fold(0, |bits, (k, &passed)| bits | (u32::from(passed) << k))
}

/// [`QUICK_QUAD_LANES`] quads by corner and axis, `[corner][axis][quad]`: each quad's value in its
/// lane, so that the vector instructions read each coordinate of all the quads in plain loads. Read
/// quad by quad, the compiler gathers each coordinate, which is slow on most x86 processors. The values
/// go in one at a time ([`set_quad_lane`]), and each vector load waits for the stores it spans to reach
/// the cache (no store forwards to a load wider than itself).
pub type QuadLanes = [[[f32; QUICK_QUAD_LANES]; 3]; 4];

/// Puts `quad`'s corners in lane `k` of `lanes`.
#[inline(always)]
pub fn set_quad_lane(lanes: &mut QuadLanes, k: usize, quad: [&[f32; 3]; 4]) {
    for (corner, point) in quad.into_iter().enumerate() {
        for axis in 0..3 {
            lanes[corner][axis][k] = point[axis];
        }
    }
}

/// How much longer than the diagonal 0–2 the sides 0–1 and 0–3 may be, squared (1024²), for the quick
/// test to take the turns at corners 1 and 3 from the fan's triangles.
const SIDE_OVER_DIAGONAL_SQUARED: f64 = (1u64 << 20) as f64;

/// `a · b` of an f32 vector and an f64 one, in f64: every product exact, no underflow or overflow.
#[inline(always)]
fn dot_wide(a: [f32; 3], b: [f64; 3]) -> f64 {
    let a = a.map(f64::from);
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `|v|²`, in f64.
#[inline(always)]
fn squared(v: [f32; 3]) -> f64 {
    dot_wide(v, v.map(f64::from))
}

/// The clearance of [`fans_from_corner_0`]: `v` (the cross product of vectors of squared lengths
/// `x_squared`, `y_squared`) lies along `n` by at least `|x|·|y| / 2M`. In f64, where the squares and
/// products of f32 values neither overflow nor underflow; written as "greater" so that a NaN fails.
/// `|x|·|y|` must also be at least 10⁻³⁰: the f32 cross products (this test's and the full test's)
/// then stay far above the smallest normal f32, where their roundings are relative to their size
/// (below it a rounding is a fixed step, and a tiny turn of the wrong sign can come out positive).
#[inline(always)]
fn clears(v: [f32; 3], x_squared: f64, y_squared: f64, n: [f64; 3], nn: f64) -> bool {
    /// `1 / 4M²` for M = 32.
    const CLEARANCE: f64 = 1.0 / 4096.0;
    /// The least `|x|²·|y|²`.
    const FLOOR: f64 = 1e-60;
    let (along, product) = (dot_wide(v, n), x_squared * y_squared);
    (along > 0.0) & (product >= FLOOR) & (along * along >= CLEARANCE * product * nn)
}

/// Whether the turn at corner `b`, between corners `a` before it and `c` after it (edge in × edge out,
/// as the full test takes it), [`clears`].
#[inline(always)]
fn turn_clears(a: [f32; 3], b: [f32; 3], c: [f32; 3], n: [f64; 3], nn: f64) -> bool {
    let (edge_in, edge_out) = (sub(b, a), sub(c, b));
    clears(cross(edge_in, edge_out), squared(edge_in), squared(edge_out), n, nn)
}

/// Work allowed for placing crossings that lyon gives no source for (vertices × edges).
const MAX_CROSSING_SEARCH: usize = 1 << 20;

/// The corner a fan triangulation can start from, if one can: the only reflex corner, or corner 0 when
/// there is none. The fan is accepted only when every triangle turns with the polygon and their areas add
/// up to the polygon's (`double_area`, from Newell's normal): positive triangles that overlap would add
/// up to more, so equality means they cover the polygon exactly once.
#[inline(always)]
fn fan_apex(points: &[[f32; 3]], normal: [f32; 3], double_area: f32) -> Option<u32> {
    let n = points.len();
    // Indices past the end wrap to the start, without a division per corner.
    let wrap = |i: usize| if i >= n { i - n } else { i };
    let mut apex = None;
    for k in 0..n {
        let (a, b, c) = (points[wrap(k + n - 1)], points[k], points[wrap(k + 1)]);
        let turn = dot(cross(sub(b, a), sub(c, b)), normal);
        if turn < 0.0 {
            if apex.is_some() {
                return None;
            }
            apex = Some(k);
        }
    }
    let apex = apex.unwrap_or(0);
    let origin = points[apex];
    let mut sum = 0.0f32;
    for j in 1..n - 1 {
        let (b, c) = (sub(points[wrap(apex + j)], origin), sub(points[wrap(apex + j + 1)], origin));
        let twice_area = dot(cross(b, c), normal);
        // Written as "not greater" so that NaN also sends the polygon to the general path.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(twice_area > 1e-4 * (dot(b, b) * dot(c, c)).sqrt()) {
            return None;
        }
        sum += twice_area;
    }
    ((sum - double_area).abs() <= 1e-4 * double_area).then_some(apex as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budget stops lyon with its error once an outline's vertices run past it, and lets it finish
    /// where they do not: a bowtie's five (four corners, one crossing).
    #[test]
    fn lyon_is_stopped_at_the_vertex_budget() {
        let bowtie = [point(0.0, 0.0), point(2.0, 2.0), point(2.0, 0.0), point(0.0, 2.0)];
        let fill = |left: usize| {
            let mut buffers: VertexBuffers<[f32; 2], u32> = VertexBuffers::new();
            let mut builder = VertexBudget {
                inner: BuffersBuilder::new(&mut buffers, |v: FillVertex| v.position().to_array()),
                left,
            };
            let options = FillOptions::default().with_fill_rule(FillRule::NonZero);
            let result = FillTessellator::new().tessellate_polygon(
                Polygon { points: &bowtie, closed: true },
                &options,
                &mut builder,
            );
            (result, buffers.vertices.len())
        };
        assert!(matches!(fill(5), (Ok(_), 5)));
        assert!(matches!(
            fill(4).0,
            Err(lyon_tessellation::TessellationError::GeometryBuilder(GeometryBuilderError::TooManyVertices))
        ));
        // An outline's budget: every corner and crossing, or what the search for its vertices allows.
        assert_eq!(VertexBudget::for_outline(4, ()).left, 10);
        assert_eq!(VertexBudget::for_outline(217, ()).left, MAX_CROSSING_SEARCH / 217);
        assert_eq!(VertexBudget::for_outline(0, ()).left, 0);
    }

    fn area(points: &[[f32; 3]], tris: &[[u32; 3]]) -> f32 {
        tris.iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| points[i as usize]);
                0.5 * dot(cross(sub(b, a), sub(c, a)), [0.0, 0.0, 1.0])
            })
            .sum()
    }

    #[test]
    fn concave_polygon_is_covered_once_with_the_input_winding() {
        // An L shape, counter-clockwise about +Z; a fan from vertex 0 would leave the notch filled.
        let l = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 2.0, 0.0]];
        let mut t = Triangulator::new();
        let mut tris = Vec::new();
        assert_eq!(t.triangulate(&l, &mut tris), 4);
        assert!((area(&l, &tris) - 3.0).abs() < 1e-5);
        for tri in &tris {
            assert!(area(&l, &[*tri]) > 0.0, "inverted triangle {tri:?}");
        }
    }

    #[test]
    fn clockwise_input_stays_clockwise() {
        let square = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
        let mut tris = Vec::new();
        Triangulator::new().triangulate(&square, &mut tris);
        assert!((area(&square, &tris) + 1.0).abs() < 1e-5);
    }

    fn inside(tri: [[f64; 2]; 3], p: [f64; 2]) -> bool {
        let s = |a: [f64; 2], b: [f64; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1]);
        let (d1, d2, d3) = (s(tri[0], tri[1]), s(tri[1], tri[2]), s(tri[2], tri[0]));
        (d1 > 0.0 && d2 > 0.0 && d3 > 0.0) || (d1 < 0.0 && d2 < 0.0 && d3 < 0.0)
    }

    /// A five-pointed star of unit radius about the origin, its corners in drawing order.
    fn pentagram() -> Vec<[f32; 3]> {
        (0..5)
            .map(|k| {
                let a = std::f32::consts::FRAC_PI_2 + k as f32 * 4.0 * std::f32::consts::PI / 5.0;
                [a.cos(), a.sin(), 0.0]
            })
            .collect()
    }

    #[test]
    fn a_pentagram_is_covered_exactly_once_where_its_winding_is_not_zero() {
        let star = pentagram();
        let mut t = Triangulator::new();
        let mut tris = Vec::new();
        t.triangulate(&star, &mut tris);
        assert_eq!(t.crossings().len(), 5, "five crossings make the inner pentagon");
        let outline: Vec<[f64; 2]> = (0..5).map(|i| t.corner_2d(i)).collect();
        let corners: Vec<[[f64; 2]; 3]> = tris.iter().map(|tri| tri.map(|i| t.corner_2d(i))).collect();
        for gx in 0..60 {
            for gy in 0..60 {
                // Offset from the grid so no sample lands exactly on an edge.
                let p = [-1.0 + (gx as f64 + 0.37) / 30.0, -1.0 + (gy as f64 + 0.61) / 30.0];
                let covered = corners.iter().filter(|tri| inside(**tri, p)).count();
                let expected = usize::from(winding_number(&outline, p) != 0);
                assert_eq!(covered, expected, "at {p:?}");
            }
        }
    }

    #[test]
    fn lyon_names_the_corner_or_the_edges_of_every_vertex_of_a_crossing_outline() {
        // The pentagram's five crossings are its inner pentagon's corners, at cos 72° / cos 36° of its
        // outer radius from the centre; the bowtie's one crossing is where y = x / 2 meets y = 4 − x
        // (its lobes unequal, so that it has an area and a normal).
        let star = pentagram();
        let bowtie = vec![[0.0, 0.0, 0.0], [4.0, 2.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]];
        let inner = (72f32.to_radians().cos() / 36f32.to_radians().cos(), [0.0, 0.0, 0.0]);
        for (outline, crossings, (radius, centre)) in
            [(star, 5, inner), (bowtie, 1, (0.0, [8.0 / 3.0, 4.0 / 3.0, 0.0]))]
        {
            let mut t = Triangulator::new();
            let mut tris = Vec::new();
            let searched_before = VERTICES_FOUND_BY_POSITION.with(|count| count.get());
            assert!(t.triangulate(&outline, &mut tris) > 0);
            assert_eq!(
                VERTICES_FOUND_BY_POSITION.with(|count| count.get()),
                searched_before,
                "no vertex was searched for"
            );
            assert_eq!(t.crossings().len(), crossings);
            for c in t.crossings() {
                assert_eq!(
                    c.to as usize,
                    (c.from as usize + 1) % outline.len(),
                    "crossing {c:?} lies on an edge of the outline"
                );
                let (a, b) = (outline[c.from as usize], outline[c.to as usize]);
                let at: [f32; 3] = std::array::from_fn(|k| a[k] + (b[k] - a[k]) * c.t);
                let distance = sub(at, centre).iter().map(|d| d * d).sum::<f32>().sqrt();
                assert!((distance - radius).abs() < 1e-5, "crossing {c:?} at {at:?}");
            }
        }
    }

    #[test]
    fn a_polygon_with_one_notch_is_fanned_from_the_notch() {
        // An L: one reflex corner (index 3), which a fan from corner 0 would cross.
        let l = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 2.0, 0.0]];
        let mut t = Triangulator::new();
        let mut tris = Vec::new();
        assert_eq!(t.triangulate(&l, &mut tris), 4);
        assert!(tris.iter().all(|tri| tri[0] == 3), "{tris:?}");
        assert!(tris.iter().all(|tri| area(&l, &[*tri]) > 0.0));
        assert!((area(&l, &tris) - 3.0).abs() < 1e-5);
        // Two notches: not a fan, the general path (earcut) still covers it.
        let u = [
            [0.0, 0.0, 0.0],
            [3.0, 0.0, 0.0],
            [3.0, 2.0, 0.0],
            [2.0, 2.0, 0.0],
            [2.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [1.0, 2.0, 0.0],
            [0.0, 2.0, 0.0],
        ];
        tris.clear();
        assert_eq!(t.triangulate(&u, &mut tris), 6);
        assert!((area(&u, &tris) - 5.0).abs() < 1e-5);
    }

    /// The full quad test's answer: the fan's apex, or none.
    fn full_test(quad: &[[f32; 3]; 4]) -> Option<u32> {
        let area_normal = newell_normal(quad);
        let normal = normalize(area_normal)?;
        fan_apex(quad, normal, dot(area_normal, normal))
    }

    #[test]
    fn the_quick_quad_test_says_fan_only_where_the_full_test_fans_from_corner_0() {
        // The same quads on every run.
        let mut xorshift = crate::fixtures::xorshift64(0x9E37_79B9_7F4A_7C15);
        let mut random = move || (xorshift() >> 40) as f32 / (1u64 << 24) as f32;
        let (mut quick, mut well_shaped, mut well_shaped_quick, mut strips_quick, mut kites_quick) = (0, 0, 0, 0, 0);
        // The quads again, eight at a time, through the test that takes them side by side.
        let mut block = Vec::new();
        for case in 0..400_000 {
            let family = case % 15;
            // Where the quad sits and how large it is: far from the origin and tiny, huge, or near.
            let (origin, size) = match family {
                0 | 8 | 10 => ([1e4, -3e3, 7e2], 1e-3),
                1 => ([0.0; 3], 1e9),
                2 => ([0.0; 3], 1e-12),
                // Around the quick test's range of sizes: areas from 1e-6 down to 1e-15, and from
                // 1e10 up to 1e15.
                12 => ([0.0; 3], 10f32.powf(-3.0 - 4.5 * random())),
                14 => ([0.0; 3], 1e-3),
                13 => ([0.0; 3], 10f32.powf(5.0 + 2.5 * random())),
                _ => ([random() * 10.0, random() * 10.0, random() * 10.0], 0.1 + random() * 5.0),
            };
            // A rectangle of random proportions, each corner moved by up to `jitter` of its size, in
            // and out of the plane (`lift`); family 5 moves corners far enough to make reflex corners,
            // crossings and slivers; family 6 flattens it towards a line; families 8 and 9 make strips
            // 20 to 45 times as long as they are wide, around the quick test's limit of thinness, far
            // from the origin (where the corners' differences round most) and near it; families 10 and
            // 11 pull one corner out from the centre, 10 to a million times as far, into a kite with a
            // sharp corner there (the quick test's bound on sides against the diagonal 0–2); families
            // 12 and 13 are tiny and huge at the origin, and 14 moves one corner to within 1e-30 to
            // 1e-38 of the corner before it, in any direction, with that corner at the origin: f32
            // products there fall below the normal range.
            let w = 0.05 + random();
            let h = match family {
                6 => 1e-7 * random(),
                8 | 9 => w / (20.0 + 25.0 * random()),
                _ => 0.05 + random(),
            };
            let (jitter, lift) = match family {
                5 => (1.0, 0.3),
                8 | 9 => (0.001, 0.01),
                4 => (0.05, 0.5),
                _ => (0.1, 0.01),
            };
            // Any angle in about a turn: the cases the test was written with, not τ to the last digit.
            #[allow(clippy::approx_constant)]
            let angle = random() * 6.283;
            let (s, c) = angle.sin_cos();
            let mut quad = [[0.0f32; 3]; 4];
            for (k, corner) in [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]].iter().enumerate() {
                let x = corner[0] + jitter * (random() - 0.5);
                let y = corner[1] + jitter * (random() - 0.5);
                let z = lift * (random() - 0.5) * w.min(h).max(0.05);
                let (x, y) = (c * x - s * y, s * x + c * y);
                quad[k] = [origin[0] + size * x, origin[1] + size * z, origin[2] + size * y];
            }
            if family == 14 {
                // Any direction from the corner before, so that the turn there takes either sign.
                let k = (random() * 4.0) as usize % 4;
                let before = quad[(k + 3) % 4];
                // The corner before at the origin, so that the short side's tiny coordinates are
                // kept (beside a corner elsewhere they would round away).
                let t = 10f32.powf(-30.0 - 8.0 * random());
                for corner in &mut quad {
                    *corner = std::array::from_fn(|axis| corner[axis] - before[axis]);
                }
                quad[k] = std::array::from_fn(|_| t * (random() - 0.5));
            }
            if family == 10 || family == 11 {
                let far = (random() * 4.0) as usize % 4;
                let centre: [f32; 3] = std::array::from_fn(|axis| quad.iter().map(|p| p[axis]).sum::<f32>() / 4.0);
                let scale = 10f32.powf(1.0 + 5.0 * random());
                quad[far] = std::array::from_fn(|axis| centre[axis] + scale * (quad[far][axis] - centre[axis]));
            }
            if case % 16 == 3 {
                quad.reverse();
            }
            let fast = fans_from_corner_0(&quad);
            let full = full_test(&quad);
            block.push((quad, fast));
            if block.len() == QUICK_QUAD_LANES {
                assert_eq!(quads_fan_quickly(&by_lane(&block)), answers(&block), "{block:?}");
                block.clear();
            }
            if fast {
                quick += 1;
                strips_quick += usize::from(family == 8 || family == 9);
                kites_quick += usize::from(family == 10 || family == 11);
                assert_eq!(full, Some(0), "case {case}: {quad:?}");
            }
            if (family == 3 || family == 7) && full == Some(0) {
                well_shaped += 1;
                well_shaped_quick += usize::from(fast);
            }
        }
        assert!(quick > 100_000, "{quick} quads decided quickly");
        // Strips near the limit of thinness, where the quick test's roundings are largest, are among
        // them (about half of families 8 and 9).
        assert!(strips_quick > 20_000, "{strips_quick} strips decided quickly");
        assert!(kites_quick > 10_000, "{kites_quick} kites decided quickly");
        // Nearly every ordinary quad the full test fans from corner 0 is decided without it.
        assert!(well_shaped_quick * 100 >= well_shaped * 99, "{well_shaped_quick} of {well_shaped}");
    }

    /// Quads laid out as [`quads_fan_quickly`] takes them.
    fn by_lane(quads: &[([[f32; 3]; 4], bool)]) -> QuadLanes {
        let mut lanes = [[[0.0; QUICK_QUAD_LANES]; 3]; 4];
        for (k, (quad, _)) in quads.iter().enumerate() {
            set_quad_lane(&mut lanes, k, [&quad[0], &quad[1], &quad[2], &quad[3]]);
        }
        lanes
    }

    /// The answers of the quads' own tests, as [`quads_fan_quickly`] gives them.
    fn answers(quads: &[([[f32; 3]; 4], bool)]) -> u32 {
        quads.iter().enumerate().fold(0, |bits, (k, &(_, passed))| bits | (u32::from(passed) << k))
    }

    /// Each lane is answered as its quad alone is, whatever the others hold: non-finite corners, a
    /// quad of zeros (the lanes of polygons that are not quads), squares far below and far above the
    /// sizes the test takes and just inside them, a concave quad and a crossed one, beside ordinary
    /// ones.
    #[test]
    fn quads_taken_side_by_side_are_each_answered_as_alone() {
        let square = |scale: f32| [[0.0, 0.0, 0.0], [scale, 0.0, 0.0], [scale, 0.0, scale], [0.0, 0.0, scale]];
        let specials = [
            square(1.0),
            [[0.0; 3]; 4],
            [[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0]],
            [[0.0, 0.0, 0.0], [f32::INFINITY, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0]],
            square(1e-16),
            square(1e15),
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.2, 0.0, 0.2], [0.0, 0.0, 1.0]],
            [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            square(-3.0),
            [[f32::MAX, 0.0, 0.0], [-f32::MAX, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]],
            // Just inside either end of the sizes taken (|n|² = 4 s⁴ between 10⁻³⁰ and 10³⁰).
            square(1e-7),
            square(2e7),
        ];
        let quads: Vec<_> = specials.iter().map(|quad| (*quad, fans_from_corner_0(quad))).collect();
        let passing: Vec<usize> = (0..quads.len()).filter(|&k| quads[k].1).collect();
        assert_eq!(passing, [0, 8, 10, 11], "the squares within the sizes taken pass; the rest fail");
        // Eight at a time from each place in the list, round its end, so each quad sits in every lane.
        for start in 0..quads.len() {
            let block: Vec<_> = (0..QUICK_QUAD_LANES).map(|k| quads[(start + k) % quads.len()]).collect();
            assert_eq!(quads_fan_quickly(&by_lane(&block)), answers(&block), "{block:?}");
        }
    }

    /// Quads whose side 0–1 is so short that the f32 products of the fan's first triangle fall below
    /// the normal range. The first one's turn at corner 1 is reflex (the full test fans it from corner
    /// 1); with its squares in f32 the quick test took it, its side's square flushed to 0. The second
    /// one took it in a model of the f32 arithmetic, with a dot product rounded up from below 0.
    #[test]
    fn the_quick_quad_test_leaves_quads_of_subnormal_products_to_the_full_test() {
        let quads: [[[f32; 3]; 4]; 2] = [
            [[0.0, 0.0, 0.0], [4e-36, -4e-36, 2e-35], [1e-3, 5e-4, 3e-4], [-1e-4, 8e-4, 3e-4]],
            [
                [0.0, 0.0, 0.0],
                [5.447824e-21, 3.137049e-21, 2.184915e-21],
                [1.7586621e-9, 1.7270133e-9, -1.7101265e-9],
                [-2.643_602e-7, 9.4861525e-7, -1.5583176e-8],
            ],
        ];
        assert_eq!(full_test(&quads[0]), Some(1));
        for quad in &quads {
            assert!(!fans_from_corner_0(quad) || full_test(quad) == Some(0), "{quad:?}");
        }
        assert!(!fans_from_corner_0(&quads[0]));
    }

    /// Finite corners whose projection onto their plane leaves the range the triangulators can order
    /// (the mesh_build fuzzer found one projecting to −∞, on which lyon's sweep broke its own ordering
    /// invariant): no triangles, as for non-finite corners.
    #[test]
    fn outlines_too_wide_for_the_triangulators_give_no_triangles() {
        // A thin bow tie (self-crossing, so no fan covers it, and its lobes unequal, so it has an area
        // f32 holds) whose ends are at ±`half` on the x axis.
        let bow_tie = |half: f32| [[-half, 0.0, 0.0], [half, 0.5, 0.0], [half, 0.0, 0.0], [-half, 0.3, 0.0]];
        let mut tris = Vec::new();
        // 1.5 times f32::MAX wide: the difference of its ends overflows f32.
        let overflowing = bow_tie(0.75 * f32::MAX);
        assert!(all_finite(&overflowing));
        assert_eq!(Triangulator::new().triangulate(&overflowing, &mut tris), 0, "{tris:?}");
        // 10²⁰ wide: finite, but past what lyon's f32 products of differences hold.
        assert_eq!(Triangulator::new().triangulate(&bow_tie(5e19), &mut tris), 0, "{tris:?}");
        // An ordinary one is filled (its two lobes, split where the sides cross).
        assert_eq!(Triangulator::new().triangulate(&bow_tie(2.0), &mut tris), 2);
    }

    #[test]
    fn non_finite_points_give_no_triangles() {
        let bad = [[0.0, 0.0, 0.0], [f32::NAN, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
        let mut tris = Vec::new();
        assert_eq!(Triangulator::new().triangulate(&bad, &mut tris), 0);
        // Every kind of non-finite value in every coordinate of triangles, quads and pentagons.
        let outline = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.5, 1.5, 0.0], [0.0, 1.0, 0.0]];
        for n in 3..=5 {
            let mut good = outline[..n].to_vec();
            if n == 3 {
                good[2] = [0.0, 1.0, 0.0];
            }
            assert_eq!(Triangulator::new().triangulate(&good, &mut tris), n - 2, "{n} finite corners");
            for corner in 0..n {
                for axis in 0..3 {
                    for value in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                        let mut points = good.clone();
                        points[corner][axis] = value;
                        assert_eq!(
                            Triangulator::new().triangulate(&points, &mut tris),
                            0,
                            "{n} corners, {value} at {corner}.{axis}"
                        );
                    }
                }
            }
        }
        // The largest finite values are finite.
        let huge = [[f32::MAX, 0.0, 0.0], [f32::MAX, 1.0, 0.0], [-f32::MAX, 1.0, 0.0]];
        assert!(all_finite(&huge));
        assert!(quad_finite(&by_axis(&[huge[0], huge[1], huge[2], [f32::MIN_POSITIVE, -f32::MAX, f32::MAX]])));
    }
}
