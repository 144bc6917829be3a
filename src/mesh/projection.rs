//! Texture coordinates from an image block's projection (lwo-surfaces.md §4), for image maps that have
//! no UV map: planar, cylindrical, spherical and cubic, in the object's own (LightWave) frame.

use std::f32::consts::{PI, TAU};

use crate::formats::lwo::{Block, Projection};

fn fract(x: f32) -> f32 {
    x - x.floor()
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
    let q = [p[0] - block.center[0], p[1] - block.center[1], p[2] - block.center[2]];
    let [h, pitch, b] = block.rotation;
    if h == 0.0 && pitch == 0.0 && b == 0.0 {
        return q;
    }
    rotate(rotate(rotate(q, 1, -h), 0, -pitch), 2, -b)
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
            let axis = if n[2] >= n[0] && n[2] >= n[1] { 2 } else if n[1] >= n[0] { 1 } else { 0 };
            planar(block, q, axis)
        }
        Projection::Cylindrical => {
            let ([a, _, c], t) = around_axis(block, q, axis);
            let heading = (-a).atan2(c);
            [fract(cycles(1.0 - heading / TAU, block.wrap_cycles[0])), t]
        }
        Projection::Spherical => {
            let ([a, b, c], _) = around_axis(block, q, axis);
            let heading = (-a).atan2(c);
            let pitch = b.atan2((a * a + c * c).sqrt());
            // Latitude already runs 0 (top pole) to 1 (bottom pole); only repeats need wrapping.
            let latitude = 0.5 - pitch / PI;
            let t = if (block.wrap_cycles[1] - 1.0).abs() > 1e-6 { fract(cycles(latitude, block.wrap_cycles[1])) } else { latitude };
            [fract(cycles(1.0 - heading / TAU, block.wrap_cycles[0])), t]
        }
        Projection::Front | Projection::Uv => return None,
    })
}

/// Keeps a polygon on one side of a cylindrical or spherical seam: where its corners' s values span more
/// than half the image, the small ones move up by one (the texture repeats), so the polygon does not
/// stretch back across the whole image. Returns whether it moved any (a polygon at the seam, whose
/// corners then differ from other polygons' at the same points).
pub fn unwrap_seam(uvs: &mut [[f32; 2]]) -> bool {
    // Comparisons rather than `f32::min`/`max`: a NaN is skipped by both, and these need no NaN fix-up.
    let (min, max) = uvs.iter().fold((f32::MAX, f32::MIN), |(lo, hi), uv| (if uv[0] < lo { uv[0] } else { lo }, if uv[0] > hi { uv[0] } else { hi }));
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
