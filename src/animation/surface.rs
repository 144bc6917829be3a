//! What animates on a texture unit's surface: its texture coordinates (scrolling water and lava,
//! turning runes), its colour and its alpha (pulsing glows), per `m2-animation.md` §6.

use glam::{Mat4, Quat, Vec3};

use crate::formats::m2::{M2Model, TextureTransform, TextureUnit};

use super::Clock;

/// The UV matrix of a texture transform at `clock`: rotation and scaling about the texture's centre
/// (0.5, 0.5), then the translation, each only where its track has keys (WebWowViewerCpp and wow.export
/// build it so). A coordinate maps as `(M · (u, v, 0, 1)).xy`.
pub fn uv_matrix(transform: &TextureTransform, clock: &Clock, loops: &[u32]) -> Mat4 {
    let centre = Vec3::new(0.5, 0.5, 0.0);
    let about_centre = |m: Mat4| Mat4::from_translation(centre) * m * Mat4::from_translation(-centre);
    let mut matrix = Mat4::IDENTITY;
    if let Some(q) = transform.rotation.sample(clock, loops) {
        matrix *= about_centre(Mat4::from_quat(Quat::from_array(q).normalize()));
    }
    if let Some(s) = transform.scaling.sample(clock, loops) {
        matrix *= about_centre(Mat4::from_scale(Vec3::from(s)));
    }
    if let Some(t) = transform.translation.sample(clock, loops) {
        matrix *= Mat4::from_translation(Vec3::from(t));
    }
    matrix
}

/// A texture unit's animated look at a clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitAppearance {
    /// The unit's colour (RGB 0..1, white without one) and alpha: colour alpha × texture weight.
    pub color: [f32; 4],
    /// The UV matrix of each of the unit's two texture slots (identity where none is named).
    pub uv: [Mat4; 2],
}

/// The look of `unit` at `clock`: `colors[color_index]` directly (−1 none); the weight through the
/// transparency lookup, skipped when the unit's flags have 0x40 or it has no texture; each slot's
/// transform through the texture-transform lookup (−1 or out of range: identity).
pub fn unit_appearance(model: &M2Model, unit: &TextureUnit, clock: &Clock) -> UnitAppearance {
    let animation = &model.animation;
    let loops = &animation.global_loops;
    let mut color = [1.0; 4];
    if let Some(c) = usize::try_from(unit.color_index).ok().and_then(|i| animation.colors.get(i)) {
        let rgb = c.color.sample_or(clock, loops, [1.0; 3]);
        color = [rgb[0], rgb[1], rgb[2], c.alpha.sample_or(clock, loops, 1.0)];
    }
    if unit.flags & 0x40 == 0 && unit.texture_count > 0 {
        let weight = model
            .transparency_lookup
            .get(usize::from(unit.weight_combo))
            .and_then(|&i| animation.texture_weights.get(usize::from(i)))
            .map_or(1.0, |w| w.sample_or(clock, loops, 1.0));
        color[3] *= weight;
    }
    let uv = std::array::from_fn(|slot| {
        animation
            .texture_transform_lookup
            .get(usize::from(unit.transform_combo) + slot)
            .and_then(|&k| usize::try_from(k).ok())
            .and_then(|k| animation.texture_transforms.get(k))
            .filter(|_| slot < usize::from(unit.texture_count.max(1)))
            .map_or(Mat4::IDENTITY, |t| uv_matrix(t, clock, loops))
    });
    UnitAppearance { color, uv }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::m2::track::{Keys, LINEAR, Track};

    fn constant<T: Clone>(value: T) -> Track<T> {
        Track::constant_keys(LINEAR, 1, Keys { times: vec![0], values: vec![value] })
    }

    fn uv(m: Mat4, u: f32, v: f32) -> glam::Vec2 {
        m.transform_point3(Vec3::new(u, v, 0.0)).truncate()
    }

    #[test]
    fn uvs_scroll_turn_and_scale_about_the_centre() {
        let scroll = TextureTransform { translation: constant([0.25, 0.0, 0.0]), ..Default::default() };
        assert!(uv(uv_matrix(&scroll, &Clock::default(), &[]), 0.0, 0.0).abs_diff_eq(glam::vec2(0.25, 0.0), 1e-6));
        let turn = TextureTransform {
            rotation: constant(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2).to_array()),
            ..Default::default()
        };
        let m = uv_matrix(&turn, &Clock::default(), &[]);
        assert!(uv(m, 0.5, 0.5).abs_diff_eq(glam::vec2(0.5, 0.5), 1e-6), "the centre stays");
        assert!(uv(m, 1.0, 0.5).abs_diff_eq(glam::vec2(0.5, 1.0), 1e-6));
        let scale = TextureTransform { scaling: constant([2.0, 2.0, 1.0]), ..Default::default() };
        assert!(uv(uv_matrix(&scale, &Clock::default(), &[]), 1.0, 1.0).abs_diff_eq(glam::vec2(1.5, 1.5), 1e-6));
        assert_eq!(uv_matrix(&TextureTransform::default(), &Clock::default(), &[]), Mat4::IDENTITY);
    }
}
