//! Texture coordinates from an image block's projection (lwo-surfaces.md §4), for image maps that have
//! no UV map: planar, cylindrical, spherical and cubic, in the object's own (LightWave) frame.

use std::f32::consts::{PI, TAU};

use crate::formats::lwo::{Block, Projection};

/// `x − ⌊x⌋`. A longitude comes here in (0, 2) (1 − heading / 2π): there `⌊x⌋` is 0 or 1 and `x − 1` is
/// exact, so the result is the same to the bit without `floorf`, which on the baseline x86-64 (no
/// SSE4.1) is a call of its own; other values take it (zeros too: −0 less its floor is +0).
#[inline]
fn fract(x: f32) -> f32 {
    if x > 0.0 && x < 2.0 { x - f32::from(u8::from(x >= 1.0)) } else { x - x.floor() }
}

/// The angle of (x, y), made in f64 and rounded once: the correctly rounded angle nearly everywhere,
/// where f32's own `atan2` is an ulp off for some points.
#[inline]
fn atan2(y: f32, x: f32) -> f32 {
    f64::from(y).atan2(f64::from(x)) as f32
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

/// [`project`]'s UV of every point of `points` by a cylindrical or spherical block without rotation,
/// handed to `each` with the point's index; false (and nothing handed) for any other block, whose
/// points are projected one by one as their corners ask. The same operations in the same order as
/// [`project`]'s, so the same UVs.
pub fn project_all_around(block: &Block, points: &[[f32; 3]], mut each: impl FnMut(usize, [f32; 2])) -> bool {
    // Only without rotation is `texture_space` the centring alone.
    let axis = usize::from(block.axis.min(2));
    let uv: &dyn Fn([f32; 3]) -> [f32; 2] = match block.projection {
        Projection::Cylindrical if unrotated(block) => &|q| cylindrical(block, q, axis),
        Projection::Spherical if unrotated(block) => &|q| spherical(block, q, axis),
        _ => return false,
    };
    for (index, point) in points.iter().enumerate() {
        each(index, uv(centred(block, *point)));
    }
    true
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

    /// Points projected all at once get, to the bit, the UV each gets alone (a NaN one a NaN):
    /// cylindrical and spherical blocks about each axis, centred at the origin and off it, with and
    /// without repeats, over points all around and, relative to the centre, on the axis, at the
    /// poles, at zeros of either sign, with a NaN and infinities. Other blocks, and turned ones, are left to `project`; a rotation of −0 turns
    /// nothing.
    #[test]
    fn points_projected_all_at_once_get_what_each_gets_alone() {
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
