//! Texture coordinates from an image block's projection (lwo-surfaces.md §4), for image maps that have
//! no UV map: planar, cylindrical, spherical and cubic, in the object's own (LightWave) frame.

use std::f32::consts::{PI, TAU};

use crate::formats::lwo::{Block, Projection};

/// `x − ⌊x⌋`. A longitude comes here in (0, 2) (1 − heading / 2π): there `⌊x⌋` is 0 or 1 and `x − 1` is
/// exact, so the result is the same to the bit without `floorf`, which on the baseline x86-64 (no
/// SSE4.1; what `RUSTFLAGS= cargo build` targets) is a routine of its own, and in the default build for
/// the host CPU one rounding instruction; other values take it (zeros too: −0 less its floor is +0).
#[inline]
fn fract(x: f32) -> f32 {
    if x > 0.0 && x < 2.0 { x - f32::from(u8::from(x >= 1.0)) } else { x - x.floor() }
}

/// The angle of (x, y), as `f32::atan2` gives it, without its calls and branches: glibc's reduces the
/// ratio by a branch on its range, which a sphere's points, all around, mispredict (`atanf` and
/// `atan2f` took 15 % of loading a spherically mapped corpus sphere). Made in f64 and rounded once,
/// so it is the correctly rounded angle but where the exact one lies within about 1e-12 of a
/// rounding boundary (one of the test's 6 M points; glibc 2.36's is within an ulp, off by one on an eighth).
/// The ratio a of the smaller coordinate to the larger, past tan(π/8) taken as π/4 + atan(t) with
/// t = (a − 1)/(a + 1) (one division either way), is at most tan(π/8), where an even polynomial of
/// degree 16 gives atan(t)/t to 7.5e-13 (a Chebyshev fit, `mpmath.chebyfit`, on [0, tan²(π/8)]),
/// summed in pairs (Estrin's scheme: a chain of five products and sums, not Horner's nine of each).
/// Then the octant: π/2 − r above the diagonal, π − r for x < 0 (−0 too), and y's sign. Zeros give
/// 0 or π, NaN gives NaN, two infinities a diagonal, as `atan2` does.
#[inline]
fn atan2(y: f32, x: f32) -> f32 {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    const TAN_PI_8: f64 = 0.414_213_562_373_095_1;
    // Lowest degree first, in u = t².
    const C: [f64; 9] = [
        0.999_999_999_999_973_232,
        -0.333_333_333_308_034_459,
        0.199_999_996_048_919_780,
        -0.142_856_904_238_392_872,
        0.111_103_850_461_480_137,
        -0.090_783_920_729_434_234,
        0.075_637_035_519_151_920,
        -0.058_745_056_213_078_307,
        0.030_662_440_370_424_449,
    ];
    let (y, x) = (f64::from(y), f64::from(x));
    let (ay, ax) = (y.abs(), x.abs());
    // Comparisons, not `min`/`max`, so that a NaN reaches the ratio.
    let steep = ay > ax;
    let (small, large) = if steep { (ax, ay) } else { (ay, ax) };
    // Two infinities are a ratio of 1 (the smaller is infinite only when both are).
    let (small, large) = if small.is_infinite() { (1.0, 1.0) } else { (small, large) };
    let past = small > TAN_PI_8 * large;
    let (above, below) = if past { (small - large, small + large) } else { (small, large) };
    // Two zeros are a ratio of 0; a NaN beside a zero stays NaN.
    let t = if small == 0.0 && large == 0.0 { 0.0 } else { above / below };
    let u = t * t;
    let (u2, u4) = (u * u, u * u * (u * u));
    let pairs = [C[0] + C[1] * u, C[2] + C[3] * u, C[4] + C[5] * u, C[6] + C[7] * u];
    let quads = [pairs[0] + pairs[1] * u2, pairs[2] + pairs[3] * u2];
    let atan_over_t = quads[0] + quads[1] * u4 + C[8] * (u4 * u4);
    let r = atan_over_t * t + if past { FRAC_PI_4 } else { 0.0 };
    let r = if steep { FRAC_PI_2 - r } else { r };
    let r = if x.is_sign_negative() { PI - r } else { r };
    r.copysign(y) as f32
}

fn rotate(v: [f32; 3], axis: usize, angle: f32) -> [f32; 3] {
    let (s, c) = angle.sin_cos();
    let (i, j) = match axis {
        0 => (1, 2),
        1 => (2, 0),
        _ => (0, 1),
    };
    let mut out = v;
    out[i] = v[i] * c - v[j] * s;
    out[j] = v[i] * s + v[j] * c;
    out
}

/// The point in texture space: centred, and turned back by the block's heading, pitch and bank (the
/// spec defines ROTA; no reader we checked applies it, so this order is our reading of HPB).
fn texture_space(block: &Block, p: [f32; 3]) -> [f32; 3] {
    let q = centred(block, p);
    if unrotated(block) {
        return q;
    }
    let [h, pitch, b] = block.rotation;
    rotate(rotate(rotate(q, 1, -h), 0, -pitch), 2, -b)
}

/// The point less the block's centre.
#[inline(always)]
fn centred(block: &Block, p: [f32; 3]) -> [f32; 3] {
    [p[0] - block.center[0], p[1] - block.center[1], p[2] - block.center[2]]
}

/// Whether the block turns nothing (a zero of either sign each; a NaN turns).
#[inline(always)]
fn unrotated(block: &Block) -> bool {
    let [h, pitch, b] = block.rotation;
    h == 0.0 && pitch == 0.0 && b == 0.0
}

fn size(block: &Block, axis: usize) -> f32 {
    let s = block.size[axis];
    if s.abs() > 1e-12 { s } else { 1.0 }
}

fn planar(block: &Block, q: [f32; 3], axis: usize) -> [f32; 2] {
    match axis {
        0 => [q[2] / size(block, 2) + 0.5, -q[1] / size(block, 1) + 0.5],
        1 => [q[0] / size(block, 0) + 0.5, -q[2] / size(block, 2) + 0.5],
        _ => [q[0] / size(block, 0) + 0.5, -q[1] / size(block, 1) + 0.5],
    }
}

/// The permuted vector (a, b, c) of the cylindrical and spherical formulas, and the cylinder's t.
fn around_axis(block: &Block, q: [f32; 3], axis: usize) -> ([f32; 3], f32) {
    match axis {
        0 => ([q[2], q[0], -q[1]], -q[0] / size(block, 0) + 0.5),
        1 => ([-q[0], q[1], q[2]], -q[1] / size(block, 1) + 0.5),
        _ => ([-q[0], q[2], -q[1]], -q[2] / size(block, 2) + 0.5),
    }
}

fn cycles(longitude: f32, repeats: f32) -> f32 {
    if (repeats - 1.0).abs() > 1e-6 && repeats > 0.0 { fract(longitude) * repeats } else { longitude }
}

/// Image coordinates (s, t), t = 0 at the top of the image, for one point. `normal` (the polygon's
/// geometric normal) picks the face of a cubic projection. `None` for front projection, which depends on
/// a camera, and for UV blocks, which read a map instead.
///
/// The point is taken by reference, best to the layer's own copy: a point passed by value went
/// through a copy the caller had just written, which this read in other widths than it was written
/// (no store forwards to a load it only partly covers: the read waits for the write to reach the
/// cache; a spherically or cylindrically mapped corpus sphere loads 8 % faster without it).
pub fn project(block: &Block, point: &[f32; 3], normal: [f32; 3]) -> Option<[f32; 2]> {
    let q = texture_space(block, *point);
    let axis = usize::from(block.axis.min(2));
    Some(match block.projection {
        Projection::Planar => planar(block, q, axis),
        Projection::Cubic => {
            let n = normal.map(f32::abs);
            // Ties go to Z, then Y.
            let axis = if n[2] >= n[0] && n[2] >= n[1] {
                2
            } else if n[1] >= n[0] {
                1
            } else {
                0
            };
            planar(block, q, axis)
        }
        Projection::Cylindrical => cylindrical(block, q, axis),
        Projection::Spherical => spherical(block, q, axis),
        Projection::Front | Projection::Uv => return None,
    })
}

#[inline(always)]
fn cylindrical(block: &Block, q: [f32; 3], axis: usize) -> [f32; 2] {
    let ([a, _, c], t) = around_axis(block, q, axis);
    let heading = atan2(-a, c);
    [fract(cycles(1.0 - heading / TAU, block.wrap_cycles[0])), t]
}

#[inline(always)]
fn spherical(block: &Block, q: [f32; 3], axis: usize) -> [f32; 2] {
    let ([a, b, c], _) = around_axis(block, q, axis);
    let heading = atan2(-a, c);
    let pitch = atan2(b, (a * a + c * c).sqrt());
    // Latitude already runs 0 (top pole) to 1 (bottom pole); only repeats need wrapping.
    let latitude = 0.5 - pitch / PI;
    let t = if (block.wrap_cycles[1] - 1.0).abs() > 1e-6 {
        fract(cycles(latitude, block.wrap_cycles[1]))
    } else {
        latitude
    };
    [fract(cycles(1.0 - heading / TAU, block.wrap_cycles[0])), t]
}

/// How many points [`project_all_around`] projects side by side.
const PROJECTION_LANES: usize = 8;

/// [`project`]'s UV of every point of `points` by a cylindrical or spherical block without rotation,
/// handed to `each` with the point's index; false (and nothing handed) for any other block, whose
/// points are projected one by one. Eight points at a time, laid out by coordinate, then a loop over
/// them whose only choices that depend on a point are simple ones (in [`atan2`] and [`fract`]), which
/// the compiler makes selects of and the loop vector instructions, each point a lane (in the build
/// for the host CPU; a portable build, without SSE4.1, calls a routine for `fract`'s floor). The same
/// operations in the same order as [`project`]'s, so the same UVs. `project` was about a sixth of a
/// spherically mapped corpus sphere's load (15.9 % of `earth_spherical_x.lwo`'s samples; 7.4 % now).
pub fn project_all_around(block: &Block, points: &[[f32; 3]], mut each: impl FnMut(usize, [f32; 2])) -> bool {
    // Only without rotation is `texture_space` the centring alone.
    let axis = usize::from(block.axis.min(2));
    match block.projection {
        Projection::Cylindrical if unrotated(block) => {
            in_lanes(block, points, &mut each, |q| cylindrical(block, q, axis))
        }
        Projection::Spherical if unrotated(block) => in_lanes(block, points, &mut each, |q| spherical(block, q, axis)),
        _ => return false,
    }
    true
}

/// [`project_all_around`]'s loop, `uv` one point's projection from its centred coordinates.
#[inline(always)]
fn in_lanes(
    block: &Block,
    points: &[[f32; 3]],
    each: &mut impl FnMut(usize, [f32; 2]),
    uv: impl Fn([f32; 3]) -> [f32; 2],
) {
    for (first, chunk) in (0..).step_by(PROJECTION_LANES).zip(points.chunks(PROJECTION_LANES)) {
        // `[axis][lane]`, so that the loop below reads each coordinate of the eight points in plain
        // loads (as the quick quad test's `QuadLanes`, where the points read in place were gathered).
        let mut lanes = [[0.0f32; PROJECTION_LANES]; 3];
        for (k, point) in chunk.iter().enumerate() {
            for axis in 0..3 {
                lanes[axis][k] = point[axis];
            }
        }
        let mut uvs = [[0.0f32; 2]; PROJECTION_LANES];
        for (k, out) in uvs.iter_mut().enumerate() {
            *out = uv(centred(block, [lanes[0][k], lanes[1][k], lanes[2][k]]));
        }
        for (k, &uv) in uvs[..chunk.len()].iter().enumerate() {
            each(first + k, uv);
        }
    }
}

/// Keeps a polygon on one side of a cylindrical or spherical seam: where its corners' s values span more
/// than half the image, the small ones move up by one (the texture repeats), so the polygon does not
/// stretch back across the whole image. Returns whether it moved any (a polygon at the seam, whose
/// corners then differ from other polygons' at the same points).
pub fn unwrap_seam(uvs: &mut [[f32; 2]]) -> bool {
    // Comparisons rather than `f32::min`/`max`: a NaN is skipped by both, and these need no NaN fix-up.
    let (min, max) = uvs.iter().fold((f32::MAX, f32::MIN), |(lo, hi), uv| {
        (if uv[0] < lo { uv[0] } else { lo }, if uv[0] > hi { uv[0] } else { hi })
    });
    let mut moved = false;
    if max - min > 0.5 {
        for uv in uvs.iter_mut() {
            if uv[0] < 0.5 {
                uv[0] += 1.0;
                moved = true;
            }
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lwo::BlockKind;

    fn block(projection: Projection, axis: u16) -> Block {
        let mut b = Block::new(BlockKind::Image);
        b.projection = projection;
        b.axis = axis;
        b.size = [2.0, 2.0, 2.0];
        b
    }

    #[test]
    fn planar_z_maps_the_box_face_to_the_unit_square_top_down() {
        let b = block(Projection::Planar, 2);
        assert_eq!(project(&b, &[-1.0, 1.0, 0.0], [0.0; 3]), Some([0.0, 0.0]));
        assert_eq!(project(&b, &[1.0, -1.0, 0.0], [0.0; 3]), Some([1.0, 1.0]));
    }

    #[test]
    fn cylindrical_y_goes_once_around() {
        let b = block(Projection::Cylindrical, 1);
        let front = project(&b, &[0.0, 0.0, 1.0], [0.0; 3]).unwrap();
        let side = project(&b, &[1.0, 0.0, 0.0], [0.0; 3]).unwrap();
        assert!((front[0] - 0.0).abs() < 1e-6 || (front[0] - 1.0).abs() < 1e-6, "{front:?}");
        assert!((side[0] - 0.25).abs() < 1e-6 || (side[0] - 0.75).abs() < 1e-6, "{side:?}");
        assert!((front[1] - 0.5).abs() < 1e-6);
    }

    #[test]
    fn spherical_poles_are_the_top_and_bottom_rows() {
        let b = block(Projection::Spherical, 1);
        let top = project(&b, &[0.0, 1.0, 0.0], [0.0; 3]).unwrap();
        let bottom = project(&b, &[0.0, -1.0, 0.0], [0.0; 3]).unwrap();
        assert!(top[1].abs() < 1e-6 && (bottom[1] - 1.0).abs() < 1e-6, "{top:?} {bottom:?}");
    }

    /// Our angle against f64's `atan2` rounded once, and against f32's (the platform's) within an ulp,
    /// on the axes, the diagonals, zeros and infinities of both signs, NaN beside each, and a few million
    /// points all around, at magnitudes over ten powers of ten, near the diagonals and near the axes.
    #[test]
    fn the_angle_is_f64_s_rounded_once_and_within_an_ulp_of_f32_s() {
        let mut random = crate::fixtures::xorshift64(0x2545_f491_4f6c_dd1d);
        let special = [0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, 1e-30, 3.0];
        let mut points: Vec<(f32, f32)> = special.iter().flat_map(|&y| special.map(|x| (y, x))).collect();
        for _ in 0..2_000_000 {
            // Any sign, magnitudes over ten powers of ten (a fraction from the low bits, a power from
            // the high ones), and beside each point one near a diagonal and one near an axis.
            let mut scaled = || {
                let bits = random();
                ((bits & 0xFFFF_FFFF) as f32 / u32::MAX as f32 * 2.0 - 1.0) * 10f32.powi(((bits >> 40) % 10) as i32 - 5)
            };
            let (y, x) = (scaled(), scaled());
            points.extend([(y, x), (y, y * (1.0 + (x % 1e-3))), (y * 1e-4, x)]);
        }
        let (mut differ, mut worst, mut near_ties) = (0, 0i64, 0);
        let count = points.len();
        for (y, x) in points {
            let ours = atan2(y, x);
            let exact = f64::from(y).atan2(f64::from(x));
            if ours.to_bits() != (exact as f32).to_bits() {
                // Only where the angle lies within 1e-12 of halfway between two f32 values, ours the other.
                let halfway = (f64::from(ours) + f64::from(exact as f32)) / 2.0;
                assert!(((exact - halfway) / exact).abs() < 1e-12, "atan2({y:e}, {x:e}): {ours:e} for {exact:e}");
                near_ties += 1;
            }
            let ulps = (ours.to_bits() as i64 - y.atan2(x).to_bits() as i64).abs();
            differ += usize::from(ulps > 0);
            worst = worst.max(ulps);
        }
        assert!(near_ties * 100_000 < count, "{near_ties} near ties of {count}");
        assert!(worst <= 1, "{differ} differ from f32's, by up to {worst} ulp");
        for (y, x) in [
            (f32::NAN, 1.0),
            (1.0, f32::NAN),
            (f32::NAN, 0.0),
            (f32::NAN, -0.0),
            (0.0, f32::NAN),
            (f32::NAN, f32::INFINITY),
        ] {
            assert!(atan2(y, x).is_nan(), "atan2({y}, {x})");
        }
    }

    /// Points projected eight at a time get, to the bit, the UV each gets alone (a NaN one a NaN):
    /// cylindrical and spherical blocks about each axis, centred at the origin and off it, with and
    /// without repeats, over points all around and, relative to the centre, on the axis, at the
    /// poles, at zeros of either sign, with a NaN and infinities, in a count that leaves a last,
    /// partial block. Other blocks, and turned ones, are left to `project`; a rotation of −0 turns
    /// nothing.
    #[test]
    fn points_projected_in_lanes_get_what_each_gets_alone() {
        let mut xorshift = crate::fixtures::xorshift64(0x2545_F491_4F6C_DD1D);
        let mut random = move || (xorshift() >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0;
        let random_points: Vec<[f32; 3]> = (0..997).map(|_| [random(), random(), random()]).collect();
        let specials = [
            [0.0; 3],
            [-0.0, 0.0, -0.0],
            [0.0, -0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [1.0, 0.0, 0.0],
            [-0.0, 0.5, 1.0],
            [0.5, 0.5, 0.5],
        ]
        .into_iter()
        .chain([
            [f32::NAN, 0.0, 1.0],
            [f32::INFINITY, 1.0, 0.0],
            [1.0, f32::NEG_INFINITY, 1.0],
            [1e30, -1e-30, 3.0],
        ]);
        let same_bits_or_nan_both = |uv: [f32; 2], alone: [f32; 2], what: &str| {
            for (a, b) in uv.into_iter().zip(alone) {
                assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{what}: {uv:?} against {alone:?}");
            }
        };
        for center in [[0.0; 3], [0.25, -0.5, 0.125]] {
            // The specials at the same place from the centre (a −0 survives only a centre of 0 on
            // its axis, so the first centre keeps them).
            let points: Vec<[f32; 3]> = random_points
                .iter()
                .copied()
                .chain(specials.clone().map(|p| std::array::from_fn(|i| p[i] + center[i])))
                .collect();
            for projection in [Projection::Cylindrical, Projection::Spherical] {
                for axis in 0..3 {
                    for wrap_cycles in [[1.0, 1.0], [2.0, 3.0]] {
                        let mut b = block(projection, axis);
                        (b.center, b.wrap_cycles) = (center, wrap_cycles);
                        let mut seen = 0;
                        let taken = project_all_around(&b, &points, |v, uv| {
                            let alone = project(&b, &points[v], [0.0; 3]).expect("projects");
                            same_bits_or_nan_both(
                                uv,
                                alone,
                                &format!("{projection:?} about {axis} from {center:?}, point {v}: {:?}", points[v]),
                            );
                            assert_eq!(v, seen, "in order");
                            seen += 1;
                        });
                        assert!(taken);
                        assert_eq!(seen, points.len());
                    }
                }
            }
        }
        let turned = |projection, rotation| Block { rotation, ..block(projection, 1) };
        let others = [
            block(Projection::Planar, 2),
            block(Projection::Cubic, 0),
            turned(Projection::Spherical, [0.0, 0.3, 0.0]),
            turned(Projection::Cylindrical, [0.2, 0.0, 0.0]),
            turned(Projection::Cylindrical, [0.0, 0.0, f32::NAN]),
        ];
        for other in others {
            assert!(!project_all_around(&other, &random_points, |_, _| panic!("nothing handed")));
        }
        assert!(project_all_around(&turned(Projection::Spherical, [-0.0, 0.0, -0.0]), &random_points, |_, _| {}));
    }

    /// The shortcut for (0, 2) against `x − floor(x)`, to the bit: every f32 from −2 to 3, and a
    /// stride through all the others.
    #[test]
    fn fract_is_x_less_its_floor_to_the_bit() {
        let check = |x: f32| {
            let (ours, theirs) = (fract(x), x - x.floor());
            assert!(
                ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()),
                "fract({x:e}) = {ours:e}, not {theirs:e}"
            );
        };
        let (low, high) = ((-2.0f32).to_bits(), 3.0f32.to_bits());
        (0..=high).chain(0x8000_0000..=low).map(f32::from_bits).for_each(check);
        (0..=u32::MAX).step_by(997).map(f32::from_bits).for_each(check);
    }

    #[test]
    fn seam_unwrapping_keeps_a_polygon_narrow() {
        let mut uvs = [[0.95, 0.0], [0.02, 0.0], [0.05, 1.0]];
        assert!(unwrap_seam(&mut uvs), "the polygon crosses the seam");
        assert!(uvs.iter().all(|uv| uv[0] > 0.9 && uv[0] < 1.1));
        let mut away_from_the_seam = [[0.45, 0.0], [0.55, 0.0], [0.5, 1.0]];
        assert!(!unwrap_seam(&mut away_from_the_seam));
        assert_eq!(away_from_the_seam, [[0.45, 0.0], [0.55, 0.0], [0.5, 1.0]]);
    }
}
