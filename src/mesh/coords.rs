//! The one place where file axes become Bevy's: right-handed, Y up, counter-clockwise front faces.

/// LightWave is left-handed Y-up (+Z forward). Mirroring Z makes it right-handed; because a mirror turns
/// LightWave's clockwise front faces counter-clockwise only when seen from the mirrored side, triangle
/// winding must also be reversed (see [`LWO_REVERSES_WINDING`]).
pub fn lwo_to_bevy(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[1], -p[2]]
}

pub const LWO_REVERSES_WINDING: bool = true;

/// A LightWave triangle's corners in Bevy's winding ([`LWO_REVERSES_WINDING`]).
#[inline(always)]
pub fn lwo_triangle_to_bevy([a, b, c]: [u32; 3]) -> [u32; 3] {
    if LWO_REVERSES_WINDING { [a, c, b] } else { [a, b, c] }
}

/// WMO is right-handed Z-up: `(x, y, z) → (x, z, −y)` is a rotation, so winding is kept.
pub fn wmo_to_bevy(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[2], -p[1]]
}

/// A scale along a WMO's axes along Bevy's: the turn swaps Y and Z, and lengths keep their sign.
pub fn wmo_scale_to_bevy(s: [f32; 3]) -> [f32; 3] {
    [s[0], s[2], s[1]]
}

/// A WMO quaternion `(x, y, z, w)` rotated into Bevy's frame the same way as positions.
pub fn wmo_quat_to_bevy(q: [f32; 4]) -> [f32; 4] {
    [q[0], q[2], -q[1], q[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
        let [x, y, z, w] = q;
        let u = [x, y, z];
        let uv = crate::mesh::cross(u, v);
        let uuv = crate::mesh::cross(u, uv);
        std::array::from_fn(|k| v[k] + 2.0 * (w * uv[k] + uuv[k]))
    }

    #[test]
    fn wmo_quarter_turn_about_z_maps_x_to_y_in_both_frames() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let q = [0.0, 0.0, h, h];
        let in_wmo = rotate(q, [1.0, 0.0, 0.0]);
        assert!((in_wmo[1] - 1.0).abs() < 1e-6);
        let in_bevy = rotate(wmo_quat_to_bevy(q), wmo_to_bevy([1.0, 0.0, 0.0]));
        let expected = wmo_to_bevy(in_wmo);
        for k in 0..3 {
            assert!((in_bevy[k] - expected[k]).abs() < 1e-6, "{in_bevy:?} vs {expected:?}");
        }
    }
}
