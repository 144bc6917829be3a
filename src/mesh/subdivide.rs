//! Catmull–Clark subdivision of LightWave PTCH/SUBD cages. LightWave's own scheme is undocumented;
//! Catmull–Clark is what it approximates, and open edges (and edges shared by more than two faces) are
//! kept sharp with the usual boundary rules, so an open cage does not shrink away from its border.
//!
//! A cage is held in flat columns (no vector per face or per point) and its edges are found by
//! sorting, not hashing: each level makes four times the faces of the last, and allocation and hashing
//! were most of the cost. Sorting also fixes the order in which each point sums its edges, so the same
//! cage always gives the same bits.

/// A polygon mesh: points and faces as point-index lists, with `extra_width` more values per point
/// carried through the same averaging (UVs, morph offsets).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cage {
    pub points: Vec<[f32; 3]>,
    /// `extra_width` values per point, point after point (empty when the width is 0).
    pub extras: Vec<f32>,
    pub extra_width: usize,
    /// `face_starts[f]..face_starts[f + 1]` are face f's entries in `corners`; one longer than the
    /// face count once a face has been added.
    face_starts: Vec<u32>,
    corners: Vec<u32>,
    /// For each face, the record it descends from (the cage polygon's position in its layer), so a
    /// subdivided triangle still names the polygon of the file it came from.
    pub face_origins: Vec<u32>,
}

impl Cage {
    /// Appends a face of the given points.
    pub fn push_face(&mut self, face: impl IntoIterator<Item = u32>) {
        if self.face_starts.is_empty() {
            self.face_starts.push(0);
        }
        self.corners.extend(face);
        self.face_starts.push(self.corners.len() as u32);
    }

    pub fn face_count(&self) -> usize {
        self.face_starts.len().saturating_sub(1)
    }

    pub fn face(&self, face: usize) -> &[u32] {
        match (self.face_starts.get(face), self.face_starts.get(face + 1)) {
            (Some(&a), Some(&b)) => self.corners.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    pub fn faces(&self) -> impl Iterator<Item = &[u32]> + '_ {
        (0..self.face_count()).map(|f| self.face(f))
    }

    /// Point `point`'s extra values (empty when there are none).
    pub fn extras_of(&self, point: usize) -> &[f32] {
        self.extras.get(point * self.extra_width..(point + 1) * self.extra_width).unwrap_or(&[])
    }
}

/// The most levels allowed: each level multiplies the face count by about four.
pub const MAX_LEVEL: u32 = 6;

/// Values a block of a row holds: four lanes, one vector register.
const LANES: usize = 4;
type Block = [f32; LANES];

/// A cage's points as one row of values each (position, then extras), the form every Catmull–Clark
/// rule averages, each row cut into blocks of four lanes (the last one padded with zeros). A rule sums
/// one block at a time, so its sum stays in a register and each weighted term is one vector multiply
/// and add per block: summed value by value through memory, with the row's width known only at run
/// time, the sums were a third of a small cage's subdivision. Each lane takes the same operations in
/// the same order as a value summed alone, so the bits are those of the value-by-value sums.
struct Rows {
    width: usize,
    blocks: usize,
    values: Vec<Block>,
}

impl Rows {
    fn of(cage: &Cage) -> Self {
        let width = 3 + cage.extra_width;
        let blocks = width.div_ceil(LANES);
        let mut values = vec![[0.0; LANES]; blocks * cage.points.len()];
        let mut row = Vec::with_capacity(blocks * LANES);
        for (i, (p, blocks_of_point)) in cage.points.iter().zip(values.chunks_exact_mut(blocks)).enumerate() {
            row.clear();
            row.extend_from_slice(p);
            // A short extras column reads as zeros, as a point beyond the cage does.
            row.extend_from_slice(cage.extras_of(i));
            row.resize(blocks * LANES, 0.0);
            for (block, values) in blocks_of_point.iter_mut().zip(row.chunks_exact(LANES)) {
                block.copy_from_slice(values);
            }
        }
        Self { width, blocks, values }
    }

    fn len(&self) -> usize {
        self.values.len() / self.blocks.max(1)
    }

    /// Block `b` of row `i`; `None` for a point beyond the cage, which adds nothing.
    fn block(&self, i: u32, b: usize) -> Option<&Block> {
        self.values.get(i as usize * self.blocks + b)
    }

    /// The rows as a cage's points and extras.
    fn unpack(&self) -> (Vec<[f32; 3]>, Vec<f32>) {
        let rows = self.values.chunks_exact(self.blocks.max(1));
        let points = rows.clone().map(|row| [row[0][0], row[0][1], row[0][2]]).collect();
        let extras = if self.width > 3 {
            rows.flat_map(|row| row.as_flattened()[3..self.width].iter().copied()).collect()
        } else {
            Vec::new()
        };
        (points, extras)
    }
}

/// `sum + value × weight`, lane by lane.
#[inline(always)]
fn add_weighted(sum: Block, value: &Block, weight: f32) -> Block {
    std::array::from_fn(|k| sum[k] + value[k] * weight)
}

/// Compressed lists, one per point: `starts[p]..starts[p + 1]` index `items`.
struct PerPoint<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy + Default> PerPoint<T> {
    /// Lists of the `(point, item)` pairs (every point below `point_count`), each in the pairs' order.
    /// The pairs are gone through twice, to count and to place, so no list of them is made.
    fn collect(point_count: usize, pairs: impl Iterator<Item = (u32, T)> + Clone) -> Self {
        // Counted one place on (point p's count at p + 2), so that after the running sum `starts[p + 1]`
        // is where p's list begins: it is the cursor placing p's items, and ends where p + 1's begins,
        // which is what it must hold then.
        let mut starts = vec![0u32; point_count + 1];
        let mut total = 0usize;
        for (p, _) in pairs.clone() {
            if let Some(count) = starts.get_mut(p as usize + 2) {
                *count += 1;
            }
            total += 1;
        }
        for i in 2..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut items = vec![T::default(); total];
        for (p, item) in pairs {
            let cursor = &mut starts[p as usize + 1];
            items[*cursor as usize] = item;
            *cursor += 1;
        }
        Self { starts, items }
    }

    fn of(&self, p: usize) -> &[T] {
        &self.items[self.starts[p] as usize..self.starts[p + 1] as usize]
    }
}

/// A face's side: its edge as (lower point, higher point), the face, and the side's first corner.
type Side = ((u32, u32), u32, u32);

/// `sides`, made face by face and corner by corner, in the order of `sort_unstable` (by edge, then
/// face, then corner): counted out by the edge's lower point ([`PerPoint`]), then each point's few
/// sides ordered by the higher point, keeping the order they were made in, which is face and corner
/// order. Linear in the sides where a sort of them took a fifth of a small cage's two levels. An edge
/// naming a point beyond the cage (never made by this crate) is left to the sort.
fn sorted_sides(sides: Vec<Side>, point_count: usize) -> Vec<Side> {
    let mut sides = sides;
    if sides.iter().any(|&((low, _), _, _)| low as usize >= point_count) {
        sides.sort_unstable();
        return sides;
    }
    let mut lists = PerPoint::collect(point_count, sides.iter().map(|&side| (side.0.0, side)));
    for p in 0..point_count {
        // A stable sort: sides of one edge stay in the order they were made.
        lists.items[lists.starts[p] as usize..lists.starts[p + 1] as usize].sort_by_key(|&((_, high), _, _)| high);
    }
    lists.items
}

/// An edge of the cage: its points (lower first) and, where exactly two face sides run along it, their
/// faces (one face twice, where a face names the edge twice); any other edge (open, or shared by more
/// than two sides) is sharp.
#[derive(Clone, Copy, Default)]
struct Edge {
    ends: (u32, u32),
    faces: Option<(u32, u32)>,
}

/// How a cage's faces, edges and points meet: what one step needs besides the points' values.
struct Connectivity {
    /// In key order, numbered after the points and the faces in the next cage.
    edges: Vec<Edge>,
    /// Per corner: the new point on the edge that leaves it.
    edge_after_corner: Vec<u32>,
    /// Per point: its faces (each once, in face order).
    point_faces: PerPoint<u32>,
    /// Per point: its edges (in key order).
    point_edges: PerPoint<u32>,
}

impl Connectivity {
    fn of(cage: &Cage, point_count: usize) -> Self {
        let face_count = cage.face_count();
        // Faces name their points; one beyond the cage (never made by this crate) stays out of the
        // per-point tables and reads as zeros.
        let in_cage = |p: u32| (p as usize) < point_count;
        // Every face side as (edge, face, corner), sorted: a run of one edge lists its faces in face
        // order, and the edges are numbered in key order.
        let mut sides: Vec<Side> = Vec::with_capacity(cage.corners.len());
        for f in 0..face_count {
            let face = cage.face(f);
            let start = cage.face_starts[f];
            for (k, &a) in face.iter().enumerate() {
                let b = face[if k + 1 == face.len() { 0 } else { k + 1 }];
                sides.push(((a.min(b), a.max(b)), f as u32, start + k as u32));
            }
        }
        let sides = sorted_sides(sides, point_count);
        let mut edge_after_corner = vec![0u32; cage.corners.len()];
        // Room for as many edges as sides, the most there can be (an open cage's): grown edge by edge
        // they were reallocated again and again.
        let mut edges: Vec<Edge> = Vec::with_capacity(sides.len());
        for run in sides.chunk_by(|x, y| x.0 == y.0) {
            let number = (point_count + face_count + edges.len()) as u32;
            for side in run {
                edge_after_corner[side.2 as usize] = number;
            }
            let faces = if let [(_, f0, _), (_, f1, _)] = run { Some((*f0, *f1)) } else { None };
            edges.push(Edge { ends: run[0].0, faces });
        }
        let mut face_pairs = Vec::with_capacity(cage.corners.len());
        // The face each point was last listed with: a point named twice by one face counts that face
        // once (a look-up, not a search of the face, which can have a thousand corners).
        let mut listed_with = vec![u32::MAX; point_count];
        for (f, face) in cage.faces().enumerate() {
            for &p in face.iter().filter(|&&p| in_cage(p)) {
                if listed_with[p as usize] != f as u32 {
                    listed_with[p as usize] = f as u32;
                    face_pairs.push((p, f as u32));
                }
            }
        }
        let edge_pairs = edges.iter().enumerate().flat_map(|(e, edge)| {
            [edge.ends.0, edge.ends.1].into_iter().filter(|&p| in_cage(p)).map(move |p| (p, e as u32))
        });
        let point_edges = PerPoint::collect(point_count, edge_pairs);
        Self {
            edges,
            edge_after_corner,
            point_faces: PerPoint::collect(point_count, face_pairs.iter().copied()),
            point_edges,
        }
    }
}

/// One Catmull–Clark step: every n-gon becomes n quads. `rows` are the cage's points' values; the
/// cage returned has no points of its own, its values are the rows returned.
fn subdivide_once(cage: &Cage, rows: &Rows) -> (Cage, Rows) {
    let blocks = rows.blocks;
    let point_count = rows.len();
    let face_count = cage.face_count();
    let links = Connectivity::of(cage, point_count);
    let edge_count = links.edges.len();
    // The next cage's rows: the points moved, then a point per face, then one per edge.
    let mut values = vec![[0.0f32; LANES]; blocks * (point_count + face_count + edge_count)];
    let (point_values, new_values) = values.split_at_mut(blocks * point_count);
    let (face_values, edge_values) = new_values.split_at_mut(blocks * face_count);

    for (face, out) in cage.faces().zip(face_values.chunks_exact_mut(blocks.max(1))) {
        let weight = 1.0 / face.len() as f32;
        for (b, out) in out.iter_mut().enumerate() {
            *out = face
                .iter()
                .filter_map(|&p| rows.block(p, b))
                .fold([0.0; LANES], |sum, value| add_weighted(sum, value, weight));
        }
    }
    let face_point = |f: u32, b: usize| &face_values[f as usize * blocks + b];

    for (edge, out) in links.edges.iter().zip(edge_values.chunks_exact_mut(blocks.max(1))) {
        let (a, c) = edge.ends;
        for (b, out) in out.iter_mut().enumerate() {
            let ends = |weight: f32| {
                [a, c]
                    .iter()
                    .filter_map(|&p| rows.block(p, b))
                    .fold([0.0; LANES], |sum, value| add_weighted(sum, value, weight))
            };
            *out = match edge.faces {
                Some((f0, f1)) => {
                    add_weighted(add_weighted(ends(0.25), face_point(f0, b), 0.25), face_point(f1, b), 0.25)
                }
                None => ends(0.5),
            };
        }
    }

    for (p, out) in point_values.chunks_exact_mut(blocks.max(1)).enumerate() {
        let faces = links.point_faces.of(p);
        let edges_here = links.point_edges.of(p);
        let edge = |e: &u32| links.edges[*e as usize];
        let sharp_count = edges_here.iter().filter(|e| edge(e).faces.is_none()).count();
        let p = p as u32;
        for (b, out) in out.iter_mut().enumerate() {
            let original = rows.block(p, b).copied().unwrap_or_default();
            *out = if faces.is_empty() || sharp_count > 2 {
                original
            } else if sharp_count == 2 {
                // On an open border: 3/4 the point, 1/8 each border neighbour.
                edges_here.iter().map(edge).filter(|e| e.faces.is_none()).fold(
                    add_weighted([0.0; LANES], &original, 0.75),
                    |sum, e| {
                        let (a, c) = e.ends;
                        rows.block(if a == p { c } else { a }, b).map_or(sum, |value| add_weighted(sum, value, 0.125))
                    },
                )
            } else {
                let n = faces.len() as f32;
                let face_average =
                    faces.iter().fold([0.0; LANES], |sum, &f| add_weighted(sum, face_point(f, b), 1.0 / n));
                let m = edges_here.len().max(1) as f32;
                let edge_average = edges_here.iter().map(edge).fold([0.0; LANES], |sum, e| {
                    [e.ends.0, e.ends.1]
                        .iter()
                        .filter_map(|&q| rows.block(q, b))
                        .fold(sum, |sum, value| add_weighted(sum, value, 0.5 / m))
                });
                let sum = add_weighted([0.0; LANES], &face_average, 1.0 / n);
                add_weighted(add_weighted(sum, &edge_average, 2.0 / n), &original, (n - 3.0) / n)
            };
        }
    }

    let mut out = Cage {
        points: Vec::new(),
        extras: Vec::new(),
        extra_width: cage.extra_width,
        face_starts: Vec::with_capacity(cage.corners.len() + 1),
        corners: Vec::with_capacity(4 * cage.corners.len()),
        face_origins: Vec::with_capacity(if cage.face_origins.is_empty() { 0 } else { cage.corners.len() }),
    };
    for f in 0..face_count {
        let face = cage.face(f);
        let start = cage.face_starts[f] as usize;
        if let Some(&origin) = cage.face_origins.get(f) {
            out.face_origins.extend(std::iter::repeat_n(origin, face.len()));
        }
        let center = (point_count + f) as u32;
        let n = face.len();
        for (k, &corner) in face.iter().enumerate() {
            let prev = links.edge_after_corner[start + if k == 0 { n - 1 } else { k - 1 }];
            let next = links.edge_after_corner[start + k];
            out.push_face([corner, next, center, prev]);
        }
    }
    (out, Rows { width: rows.width, blocks, values })
}

pub fn subdivide(cage: &Cage, levels: u32) -> Cage {
    let levels = levels.min(MAX_LEVEL);
    if levels == 0 {
        return cage.clone();
    }
    let (mut out, mut rows) = subdivide_once(cage, &Rows::of(cage));
    for _ in 1..levels {
        (out, rows) = subdivide_once(&out, &rows);
    }
    (out.points, out.extras) = rows.unpack();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cage(points: Vec<[f32; 3]>, faces: &[&[u32]], face_origins: Vec<u32>) -> Cage {
        let mut cage = Cage { points, face_origins, ..Cage::default() };
        for face in faces {
            cage.push_face(face.iter().copied());
        }
        cage
    }

    fn cube() -> Cage {
        let points = (0..8)
            .map(|i| [(i & 1) as f32 * 2.0 - 1.0, ((i >> 1) & 1) as f32 * 2.0 - 1.0, ((i >> 2) & 1) as f32 * 2.0 - 1.0])
            .collect();
        cage(
            points,
            &[&[0, 2, 3, 1], &[4, 5, 7, 6], &[0, 1, 5, 4], &[2, 6, 7, 3], &[0, 4, 6, 2], &[1, 3, 7, 5]],
            Vec::new(),
        )
    }

    #[test]
    fn a_closed_cube_becomes_rounder_with_four_times_the_faces() {
        let once = subdivide(&cube(), 1);
        assert_eq!(once.face_count(), 24);
        assert_eq!(once.points.len(), 8 + 6 + 12);
        // Corners move in towards the centre (they were at distance √3).
        let corner = once.points[7];
        let r = (corner[0] * corner[0] + corner[1] * corner[1] + corner[2] * corner[2]).sqrt();
        assert!(r < 3f32.sqrt() - 0.1, "{r}");
        let twice = subdivide(&cube(), 2);
        assert_eq!(twice.face_count(), 96);
        // Every face is a quad, and by symmetry the cube's eight corners stay equally far from its centre.
        assert!(twice.faces().all(|f| f.len() == 4));
        let radius = |p: [f32; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let corners: Vec<f32> = (0..8).map(|i| radius(twice.points[i])).collect();
        assert!(corners.iter().all(|r| (r - corners[0]).abs() < 1e-6), "{corners:?}");
    }

    #[test]
    fn an_open_quad_keeps_its_border_corners() {
        let quad =
            cage(vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]], &[&[0, 1, 2, 3]], vec![7]);
        let out = subdivide(&quad, 2);
        assert_eq!(out.face_count(), 16);
        assert_eq!(out.face_origins, vec![7; 16]);
        assert!(out.points.iter().all(|p| p[2] == 0.0 && (-1e-6..=1.0 + 1e-6).contains(&p[0])));
    }

    #[test]
    fn extras_are_averaged_as_the_points_are() {
        // Extras equal to the position average exactly as the position does.
        let mut cube = cube();
        cube.extra_width = 3;
        cube.extras = cube.points.iter().flatten().copied().collect();
        let out = subdivide(&cube, 2);
        for (i, p) in out.points.iter().enumerate() {
            assert_eq!(out.extras_of(i), p, "point {i}");
        }
    }

    #[test]
    fn the_same_cage_always_gives_the_same_bits() {
        // Each point sums its edges in key order, not in a hash table's order of the moment.
        let a = subdivide(&cube(), 3);
        let b = subdivide(&cube(), 3);
        let bits = |c: &Cage| c.points.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b));
    }

    /// Sides counted out by point are in the order a sort of them gives: on subdivided cubes, a fan
    /// of 300 triangles around one point (a side run longer than a small sort), faces naming a point
    /// twice, and with a point beyond the cage (left to the sort).
    #[test]
    fn sides_counted_out_by_point_are_in_sorted_order() {
        let mut fan_points = vec![[0.0f32; 3]];
        let mut fan_faces: Vec<Vec<u32>> = Vec::new();
        for k in 0..300u32 {
            fan_points.push([k as f32, 1.0, 0.0]);
            fan_faces.push(vec![0, 1 + k, 1 + (k + 1) % 300]);
        }
        let fan = cage(fan_points, &fan_faces.iter().map(Vec::as_slice).collect::<Vec<_>>(), vec![]);
        let twice = cage(vec![[0.0; 3]; 4], &[&[0, 1, 2, 1], &[3, 2, 1], &[0, 0, 3]], vec![]);
        let beyond = cage(vec![[0.0; 3]; 3], &[&[0, 1, 2, 9], &[2, 1, 0]], vec![]);
        for cage in [cube(), subdivide(&cube(), 2), fan, twice, beyond] {
            let mut sides: Vec<Side> = Vec::new();
            for f in 0..cage.face_count() {
                let face = cage.face(f);
                for (k, &a) in face.iter().enumerate() {
                    let b = face[(k + 1) % face.len()];
                    sides.push(((a.min(b), a.max(b)), f as u32, cage.face_starts[f] + k as u32));
                }
            }
            let mut expected = sides.clone();
            expected.sort_unstable();
            assert_eq!(sorted_sides(sides, cage.points.len()), expected);
        }
    }

    #[test]
    fn per_point_lists_hold_each_points_items_in_the_pairs_order() {
        let lists = PerPoint::collect(4, [(2, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (0, 'e')].into_iter());
        assert_eq!([lists.of(0), lists.of(1), lists.of(2), lists.of(3)], [&['b', 'e'][..], &[], &['a', 'c'], &['d']]);
        let one = PerPoint::collect(1, [(0, 7u32), (0, 8)].into_iter());
        assert_eq!(one.of(0), &[7, 8]);
        let none = PerPoint::<u32>::collect(0, std::iter::empty());
        assert!(none.items.is_empty() && none.starts == [0]);
    }

    #[test]
    fn faces_naming_points_beyond_the_cage_or_one_point_twice_do_not_panic() {
        let odd =
            cage(vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]], &[&[0, 1, 2, 9], &[0, 0, 1], &[]], vec![]);
        let out = subdivide(&odd, 2);
        assert!(out.points.iter().flatten().all(|v| v.is_finite()));
        assert_eq!(out.face_count(), 4 * (4 + 3));
    }
}
