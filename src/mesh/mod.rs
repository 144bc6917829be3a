//! Typed models → renderer-neutral triangle, line and point lists: triangulation, normals, UVs and the
//! conversion of both formats' axes into Bevy's right-handed Y-up frame. Plain Rust; the plugin turns
//! a [`MeshData`] into a Bevy mesh.

pub mod coords;
pub mod lwo;
pub mod m2;
pub mod normals;
pub mod point_table;
pub mod projection;
pub mod subdivide;
pub mod triangulate;
pub mod wmo;

/// What one file builds on its own (a WMO group without its root): the work the benchmark times and the
/// fuzz target and mutation test run on every parsed input.
#[derive(Clone, Debug, PartialEq)]
// One per file, never in a collection: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum StandaloneMeshes {
    Lwo(lwo::LwoMeshes),
    WmoRoot {
        portals: Vec<Option<MeshData>>,
        doodads: Vec<wmo::Placement>,
    },
    WmoGroup(wmo::GroupMeshes),
    /// Built from the embedded view 0; a version-264 model's `.skin` is another file, so it builds nothing here.
    M2(Option<m2::M2Meshes>),
    /// A texture has no meshes of its own (the scene shows it on a quad).
    Texture,
}

impl StandaloneMeshes {
    pub fn build(model: &crate::formats::Model, options: lwo::BuildOptions) -> Self {
        use crate::formats::Model;
        match model {
            Model::Lwo(object) => Self::Lwo(lwo::build(object, options)),
            Model::WmoRoot(root) => Self::WmoRoot {
                portals: wmo::portal_meshes(root),
                doodads: root.doodads.iter().map(wmo::doodad_placement).collect(),
            },
            Model::WmoGroup(group) => Self::WmoGroup(wmo::build_group(group, None)),
            Model::M2(model) => Self::M2(model.view(None).map(|view| m2::build(model, view, m2::Geosets::All, false))),
            Model::Blp(_) => Self::Texture,
        }
    }

    pub fn rendered_triangles(&self) -> usize {
        match self {
            Self::Lwo(meshes) => meshes.rendered_triangles,
            Self::WmoRoot { .. } | Self::Texture => 0,
            Self::WmoGroup(meshes) => meshes.rendered_triangles,
            Self::M2(meshes) => meshes.as_ref().map_or(0, |m| m.triangles),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Triangles,
    Lines,
    Points,
}

/// One drawable: vertex attributes in Bevy's frame and an index list.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshData {
    pub topology: Topology,
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    /// Texture-coordinate sets, each as long as `positions`, top-left origin.
    pub uv_sets: Vec<Vec<[f32; 2]>>,
    pub colors: Option<Vec<[f32; 4]>>,
    pub indices: Vec<u32>,
    /// For each triangle, the record of the file it was made from: a polygon's position in its layer
    /// (LightWave), a MOVI/MOPY triangle (WMO), a skin triangle (M2). Empty for lines, points and
    /// meshes that no record made (liquids, portals, markers).
    pub triangle_records: Vec<u32>,
    /// Morph targets (LightWave's MORF and SPOT maps), each as long as `positions`; every mesh of one
    /// layer carries the same targets in the same order, so one set of weights drives them all.
    pub morph_targets: Vec<MorphTarget>,
    /// Each vertex's joints and weights (M2 bones), for a mesh posed by a skeleton.
    pub skin: Option<SkinWeights>,
}

/// The joints (up to four) that move each vertex and how much each does (summing to 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinWeights {
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
}

/// One morph target of a mesh: what each vertex's position and normal gain at weight 1.
#[derive(Clone, Debug, PartialEq)]
pub struct MorphTarget {
    pub name: String,
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
}

impl MeshData {
    pub fn new(topology: Topology) -> Self {
        Self {
            topology,
            positions: Vec::new(),
            normals: Vec::new(),
            uv_sets: Vec::new(),
            colors: None,
            indices: Vec::new(),
            triangle_records: Vec::new(),
            morph_targets: Vec::new(),
            skin: None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    pub fn triangle_count(&self) -> usize {
        if self.topology == Topology::Triangles { self.indices.len() / 3 } else { 0 }
    }

    pub fn bounds(&self) -> Bounds {
        Bounds::of(&self.positions)
    }

    /// Empties every buffer but keeps its room (and the morph targets' names), for a mesh of the same
    /// layout built again in the same memory.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.uv_sets.iter_mut().for_each(Vec::clear);
        if let Some(colors) = &mut self.colors {
            colors.clear();
        }
        self.indices.clear();
        self.triangle_records.clear();
        if let Some(skin) = &mut self.skin {
            skin.joints.clear();
            skin.weights.clear();
        }
        for target in &mut self.morph_targets {
            target.positions.clear();
            target.normals.clear();
        }
    }

    /// `piece`'s vertices and primitives after these, its indices moved past the vertices before it.
    /// The two share a layout (the same UV sets, colours and morph targets).
    pub fn append(&mut self, piece: &MeshData) {
        let offset = self.positions.len() as u32;
        fn extend<T: Copy>(column: &mut Vec<T>, more: &[T]) {
            column.extend_from_slice(more);
        }
        extend(&mut self.positions, &piece.positions);
        extend(&mut self.normals, &piece.normals);
        for (set, more) in self.uv_sets.iter_mut().zip(&piece.uv_sets) {
            extend(set, more);
        }
        if let (Some(colors), Some(more)) = (&mut self.colors, &piece.colors) {
            extend(colors, more);
        }
        if let (Some(skin), Some(more)) = (&mut self.skin, &piece.skin) {
            extend(&mut skin.joints, &more.joints);
            extend(&mut skin.weights, &more.weights);
        }
        for (target, more) in self.morph_targets.iter_mut().zip(&piece.morph_targets) {
            extend(&mut target.positions, &more.positions);
            extend(&mut target.normals, &more.normals);
        }
        self.indices.reserve(piece.indices.len());
        // Wrapping: `offset` is the vertex count cast to u32, so past 4 G vertices the indices are
        // wrong either way, and without an overflow test per index the loop runs four at a time.
        self.indices.extend(piece.indices.iter().map(|&i| i.wrapping_add(offset)));
        extend(&mut self.triangle_records, &piece.triangle_records);
    }

    /// The bounds of the rest pose and of every morph target fully applied: where the mesh can be
    /// at weights from 0 to 1, so a camera framing it keeps a morphed shape in view.
    pub fn reach(&self) -> Bounds {
        let mut b = self.bounds();
        for target in &self.morph_targets {
            for (p, d) in self.positions.iter().zip(&target.positions) {
                b.include(add(*p, *d));
            }
        }
        b
    }
}

/// An axis-aligned box that ignores non-finite points, so one NaN vertex cannot poison the camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Default for Bounds {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Bounds {
    pub const EMPTY: Self = Self { min: [f32::INFINITY; 3], max: [f32::NEG_INFINITY; 3] };

    pub fn is_empty(&self) -> bool {
        (0..3).any(|k| self.min[k] > self.max[k])
    }

    #[inline]
    pub fn include(&mut self, p: [f32; 3]) {
        if p[0].is_finite() & p[1].is_finite() & p[2].is_finite() {
            self.take(p);
        }
    }

    /// [`Self::include`] for a point known to be finite.
    #[inline(always)]
    fn take(&mut self, p: [f32; 3]) {
        // Comparisons rather than `f32::min`, whose NaN handling a finite point does not need; selects,
        // not branches: they compile to min and max instructions.
        self.min = std::array::from_fn(|k| if p[k] < self.min[k] { p[k] } else { self.min[k] });
        self.max = std::array::from_fn(|k| if p[k] > self.max[k] { p[k] } else { self.max[k] });
    }

    /// The box of `points`, skipping non-finite ones as [`Self::include`] does.
    pub fn of(points: &[[f32; 3]]) -> Self {
        // A large mesh's box on every core, each a run of the points, the boxes joined: the benchmark
        // terrain's four meshes (about 330 K vertices each) took 3–4 ms on one core at the end of
        // their build, the other idle. A run is at least 128 K points, about 0.4 ms, against some tens
        // of µs to start a thread.
        const LEAST_RUN: usize = 1 << 17;
        Self::of_runs(points, (points.len() / LEAST_RUN).min(crate::parallel::cores()))
    }

    /// [`Self::of`] in `runs` runs of the points (one per thread; one or none on the calling thread),
    /// their boxes joined in order. The joined box is the one-by-one box to the bit: minima and maxima
    /// are exact, a box of only non-finite points is empty and joins as nothing, and where a side is
    /// zero each run's box keeps its first zero met, which the join keeps from the earliest run that
    /// has one.
    fn of_runs(points: &[[f32; 3]], runs: usize) -> Self {
        if runs < 2 {
            return Self::of_run(points);
        }
        let runs: Vec<&[[f32; 3]]> = points.chunks(points.len().div_ceil(runs)).collect();
        crate::parallel::parallel_map(&runs, |run| Self::of_run(run)).iter().fold(Self::EMPTY, |mut joined, run| {
            joined.union(run);
            joined
        })
    }

    /// [`Self::of`] on the calling thread.
    fn of_run(points: &[[f32; 3]]) -> Self {
        let mut b = Self::EMPTY;
        // Twelve running minima and maxima over the coordinates of four points at a time (lane j holds
        // axis j mod 3), joined at the end: three vector minima and maxima per four points, where a
        // box per point was a chain of comparisons each waiting on the last (a small file's meshes
        // spent 3–5 % of the load here). The same pass sums each coordinate less itself, 0 when it is
        // finite and NaN when not: nearly always every coordinate is finite, and the box is then taken
        // without a test per point, the same box, to the bit, as including each point.
        let fours = points.as_flattened().as_chunks::<4>().0.as_chunks::<3>().0;
        let (mut low, mut high) = ([[f32::INFINITY; 4]; 3], [[f32::NEG_INFINITY; 4]; 3]);
        let mut poison = [[0.0f32; 4]; 3];
        for four in fours {
            for ((v, (l, h)), z) in four.iter().zip(low.iter_mut().zip(high.iter_mut())).zip(poison.iter_mut()) {
                *l = std::array::from_fn(|j| if v[j] < l[j] { v[j] } else { l[j] });
                *h = std::array::from_fn(|j| if v[j] > h[j] { v[j] } else { h[j] });
                // A coordinate less itself: 0 when finite, NaN when infinite or NaN.
                #[allow(clippy::eq_op)]
                let poisoned: [f32; 4] = std::array::from_fn(|j| v[j] - v[j]);
                *z = std::array::from_fn(|j| z[j] + poisoned[j]);
            }
        }
        let rest = &points[4 * fours.len()..];
        if poison.as_flattened().iter().any(|&z| z != 0.0) || !rest.as_flattened().iter().all(|c| c.is_finite()) {
            for p in points {
                b.include(*p);
            }
            return b;
        }
        // Among finite values only zeros compare equal with different bits, so the joined box is the
        // one-by-one box except where a side is zero: there the one-by-one box keeps the first zero
        // met (nothing on that side of zero came before or after it), and so does this one.
        for (j, (l, h)) in low.as_flattened().iter().zip(high.as_flattened()).enumerate() {
            let k = j % 3;
            if *l < b.min[k] {
                b.min[k] = *l;
            }
            if *h > b.max[k] {
                b.max[k] = *h;
            }
        }
        rest.iter().for_each(|&p| b.take(p));
        for k in 0..3 {
            if b.min[k] == 0.0 || b.max[k] == 0.0 {
                let first_zero = points.iter().map(|p| p[k]).find(|&c| c == 0.0).unwrap_or(0.0);
                for side in [&mut b.min[k], &mut b.max[k]] {
                    if *side == 0.0 {
                        *side = first_zero;
                    }
                }
            }
        }
        b
    }

    pub fn union(&mut self, other: &Bounds) {
        if !other.is_empty() {
            self.include(other.min);
            self.include(other.max);
        }
    }

    pub fn translated(&self, t: [f32; 3]) -> Bounds {
        if self.is_empty() {
            return *self;
        }
        Bounds { min: std::array::from_fn(|k| self.min[k] + t[k]), max: std::array::from_fn(|k| self.max[k] + t[k]) }
    }

    pub fn center(&self) -> [f32; 3] {
        std::array::from_fn(|k| (self.min[k] + self.max[k]) * 0.5)
    }

    pub fn extent(&self) -> [f32; 3] {
        std::array::from_fn(|k| (self.max[k] - self.min[k]).max(0.0))
    }
}

/// Appends triangles to an index column, each index written in place. A triangle made as an array and
/// copied in was stored in four-byte pieces and read back in an eight-byte one, which waits for the
/// stores to reach the cache (no store forwards to a load it only partly covers): 12 % of the plain
/// loop's samples on a flat corpus sphere, whose load is about 2 % faster without them.
#[inline(always)]
pub(crate) fn append_triangles(indices: &mut Vec<u32>, triangles: impl ExactSizeIterator<Item = [u32; 3]>) {
    let at = indices.len();
    indices.resize(at + 3 * triangles.len(), 0);
    for (slot, [a, b, c]) in indices[at..].chunks_exact_mut(3).zip(triangles) {
        if let [x, y, z] = slot {
            (*x, *y, *z) = (a, b, c);
        }
    }
}

/// Point `index` of `points`, or the origin past their end (parsed layers only hold in-range indices;
/// a hand-made model that does not still builds).
#[inline(always)]
pub(crate) fn point_at(points: &[[f32; 3]], index: u32) -> [f32; 3] {
    // The point's place or the origin's, then one read. A copy of an optional point
    // (`get(i).copied().unwrap_or(origin)`) went through the stack, written in two parts and read back in
    // others, a read no store forwards to: about 25 instructions a corner, and a stall on each read
    // (the benchmark terrain's 1.2 M polygon normals, on two threads: 24 ms with the copy, 7.5 without).
    *point_ref(points, index)
}

/// [`point_at`]'s point where it is kept, for a function that takes it by reference.
#[inline(always)]
pub(crate) fn point_ref(points: &[[f32; 3]], index: u32) -> &[f32; 3] {
    const ORIGIN: [f32; 3] = [0.0; 3];
    points.get(index as usize).unwrap_or(&ORIGIN)
}

pub(crate) fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(crate) fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

pub(crate) fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Unit vector, or `None` for a zero or non-finite one.
pub(crate) fn normalize(v: [f32; 3]) -> Option<[f32; 3]> {
    let len = dot(v, v).sqrt();
    (len > 1e-20 && len.is_finite()).then(|| v.map(|c| c / len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_of_points_skips_non_finite_ones_and_matches_including_each() {
        let finite = [[1.0, -2.0, 3.0], [-0.0, 0.0, 7.5], [0.0, -0.0, -1.0], [4.0, 4.0, 4.0]];
        let mut poisoned = finite.to_vec();
        poisoned.insert(1, [f32::NAN, 100.0, 100.0]);
        poisoned.push([-100.0, f32::INFINITY, 0.0]);
        // An infinity among the points taken four at a time, none among the rest.
        let infinite_in_lanes = [&finite[..], &[[1.0, f32::NEG_INFINITY, 2.0]], &finite[..]].concat();
        for points in [&finite[..], &poisoned[..], &infinite_in_lanes[..], &[]] {
            let mut each = Bounds::EMPTY;
            points.iter().for_each(|p| each.include(*p));
            let of = Bounds::of(points);
            let bits = |b: Bounds| (b.min.map(f32::to_bits), b.max.map(f32::to_bits));
            assert_eq!(bits(of), bits(each));
        }
        assert_eq!(Bounds::of(&poisoned), Bounds { min: [-0.0, -2.0, -1.0], max: [4.0, 4.0, 7.5] });
    }

    /// The box taken in lanes (four points at a time) is the one-by-one box to the bit, also where ties between zeros
    /// of either sign and repeated values are common, at every length around the lanes' width.
    #[test]
    fn the_box_in_lanes_is_the_box_point_by_point() {
        let values = [-0.0f32, 0.0, 1.5, -1.5, 3.0, -7.25, 1e-30, -1e30];
        let mut random = crate::fixtures::xorshift64(0x2545_f491_4f6c_dd1d);
        let mut next = || values[(random() % values.len() as u64) as usize];
        for round in 0..4000 {
            let points: Vec<[f32; 3]> = (0..round % 23).map(|_| [next(), next(), next()]).collect();
            let mut each = Bounds::EMPTY;
            points.iter().for_each(|p| each.include(*p));
            let of = Bounds::of(&points);
            let bits = |b: Bounds| (b.min.map(f32::to_bits), b.max.map(f32::to_bits));
            assert_eq!(bits(of), bits(each), "{points:?}");
        }
    }

    /// A box taken in runs is the one-by-one box to the bit, in 2, 3 and 7 runs whatever the machine's
    /// cores: zeros of either sign on either side, first met in a later run than the other side's
    /// extreme or at the end of an earlier run, non-finite points, runs of only non-finite ones.
    #[test]
    fn a_box_taken_in_runs_is_the_box_point_by_point() {
        let len = 1000;
        // Axis 0 spreads; on axis 1 the largest value is a zero first met half-way; on axis 2, the
        // least is a zero: a −0 just before a third of the way, then zeros of both signs.
        let zeros = |i: usize| match i {
            i if i < len / 3 - 5 => [i as f32, -5.0, 3.0],
            i if i < len / 3 => [i as f32, -5.0, -0.0],
            i if i < len / 2 => [i as f32, -5.0, 0.0],
            i if i % 2 == 0 => [i as f32, 0.0, -0.0],
            _ => [i as f32, -0.0, 0.0],
        };
        let non_finite_first =
            |i: usize| if i < 2 * len / 3 { [f32::NAN, f32::INFINITY, 1.0] } else { [1.0, 2.0, i as f32] };
        let cases: [(&str, &dyn Fn(usize) -> [f32; 3]); 3] = [
            ("zeros of both signs", &zeros),
            ("non-finite first", &non_finite_first),
            ("all non-finite", &|_| [f32::NAN; 3]),
        ];
        let bits = |b: Bounds| (b.min.map(f32::to_bits), b.max.map(f32::to_bits));
        for (name, point) in cases {
            let points: Vec<[f32; 3]> = (0..len).map(point).collect();
            let mut each = Bounds::EMPTY;
            points.iter().for_each(|p| each.include(*p));
            for runs in [2, 3, 7] {
                assert_eq!(bits(Bounds::of_runs(&points, runs)), bits(each), "{name}, {runs} runs");
            }
        }
        let mut each = Bounds::EMPTY;
        (0..len).map(zeros).for_each(|p| each.include(p));
        assert_eq!(bits(each).1[1], 0.0f32.to_bits(), "axis 1's largest is the first zero met, +0");
        assert_eq!(bits(each).0[2], (-0.0f32).to_bits(), "axis 2's least is the first zero met, −0");
    }
}
