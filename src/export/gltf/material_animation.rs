//! M2 texture-coordinate, colour and transparency animation in glTF: the texture unit's look baked
//! per sequence into `KHR_animation_pointer` channels on the material's base colour factor and on its
//! base colour texture's `KHR_texture_transform`, and the look at the export's pose as their still
//! values. The `gltf` crate's types cannot hold a channel without a node (gltf-rs issue 439), so
//! those channels and the texture transforms are added to the serialised document.

use glam::Mat4;
use gltf::json;
use serde_json::{Value, json as value};

use super::animation::{Curve, loop_starts};
use super::document::Builder;
use crate::animation::{Clock, UnitAppearance, unit_appearance};
use crate::formats::Model;
use crate::formats::m2::{M2Model, TextureUnit};
use crate::scene::animation::clock_at;

/// Baked samples per second of a look that moves (plus every key and loop boundary of its tracks).
const SAMPLES_PER_SECOND: u32 = 30;
/// The most evenly spaced samples of one sequence, whatever its length.
const MAX_SAMPLES: u32 = 10_000;

/// An animation channel whose target is a JSON pointer into the document.
pub(super) struct PointerChannel {
    pub animation: usize,
    pub sampler: u32,
    pub pointer: String,
}

/// A material's base colour texture transform, as written before anything moves it.
pub(super) struct StillTextureTransform {
    pub material: usize,
    pub offset: [f32; 2],
    pub rotation: f32,
    pub scale: [f32; 2],
}

/// `KHR_texture_transform`'s offset, rotation and scale of a UV matrix (`T · R(−rotation) · S`, the
/// rotation counter-clockwise in UV space as the extension defines it, the form Bevy's loader reads).
pub(super) fn texture_transform_parts(m: Mat4) -> ([f32; 2], f32, [f32; 2]) {
    let (c0, c1) = (m.x_axis.truncate().truncate(), m.y_axis.truncate().truncate());
    let angle = c0.y.atan2(c0.x);
    let (sin, cos) = angle.sin_cos();
    let scale = [c0.length(), c1.dot(glam::Vec2::new(-sin, cos))];
    let offset = m.w_axis.truncate().truncate().to_array();
    (offset, -angle, scale)
}

/// A look's colour as glTF's linear base colour factor.
fn color_factor(look: &UnitAppearance) -> [f32; 4] {
    let [r, g, b, a] = look.color.map(|c| if c.is_finite() { c.clamp(0.0, 1.0) } else { 1.0 });
    let [r, g, b] = crate::formats::lwo::shading::srgb_to_linear([r, g, b]);
    [r, g, b, a]
}

/// Whether a unit's first texture slot names a texture transform.
fn has_transform(model: &M2Model, unit: &TextureUnit) -> bool {
    let a = &model.animation;
    a.texture_transform_lookup
        .get(usize::from(unit.transform_combo))
        .and_then(|&k| usize::try_from(k).ok())
        .is_some_and(|k| k < a.texture_transforms.len())
}

/// The times a look is baked at over a sequence: a fixed rate, the sequence's end, and each key and
/// loop boundary of the unit's tracks with the moment just before it (so steps and loop restarts stay
/// sharp under linear interpolation).
fn sample_times(model: &M2Model, unit: &TextureUnit, sequence: usize, duration_ms: u32) -> Vec<u32> {
    let a = &model.animation;
    // A damaged file's sequence of days is sampled no more than MAX_SAMPLES times.
    let step = (1000 / SAMPLES_PER_SECOND).max(duration_ms / MAX_SAMPLES);
    let mut times: Vec<u32> = (0..=duration_ms).step_by(step as usize).collect();
    times.push(duration_ms);
    let mut edge = |t: u32| {
        if t <= duration_ms {
            times.extend([t.saturating_sub(1), t]);
        }
    };
    let mut track_times = |global: Option<u16>, keys: Option<&[u32]>| {
        let Some(keys) = keys else { return };
        match global.map(|g| a.global_loops.get(usize::from(g)).copied().unwrap_or(0)) {
            Some(0) => {}
            Some(length) => {
                for start in loop_starts(length, duration_ms) {
                    edge(start);
                    keys.iter().for_each(|&k| edge(start.saturating_add(k)));
                }
            }
            None => keys.iter().for_each(|&k| edge(k)),
        }
    };
    if let Some(c) = usize::try_from(unit.color_index).ok().and_then(|i| a.colors.get(i)) {
        track_times(c.color.global_sequence, c.color.keys(sequence).map(|k| &k.times[..]));
        track_times(c.alpha.global_sequence, c.alpha.keys(sequence).map(|k| &k.times[..]));
    }
    if let Some(w) = model
        .transparency_lookup
        .get(usize::from(unit.weight_combo))
        .and_then(|&i| a.texture_weights.get(usize::from(i)))
    {
        track_times(w.global_sequence, w.keys(sequence).map(|k| &k.times[..]));
    }
    if let Some(t) = a
        .texture_transform_lookup
        .get(usize::from(unit.transform_combo))
        .and_then(|&k| usize::try_from(k).ok())
        .and_then(|k| a.texture_transforms.get(k))
    {
        track_times(t.translation.global_sequence, t.translation.keys(sequence).map(|k| &k.times[..]));
        track_times(t.rotation.global_sequence, t.rotation.keys(sequence).map(|k| &k.times[..]));
        track_times(t.scaling.global_sequence, t.scaling.keys(sequence).map(|k| &k.times[..]));
    }
    times.sort_unstable();
    times.dedup();
    times
}

impl<'s> Builder<'s> {
    /// The model and texture unit whose look scene material `m` follows, if it moves.
    pub(super) fn animated_unit(&self, m: usize) -> Option<(usize, &'s M2Model, TextureUnit)> {
        let scene = self.scene;
        let animated = scene.animated_materials.iter().find(|a| a.material == m)?;
        let Some(Model::M2(model)) = scene.files.get(animated.model_file)?.document.as_deref().map(|d| &d.model) else {
            return None;
        };
        Some((animated.model_file, model, animated.unit))
    }

    /// The clock a moving model of `model_file` is written posed at, if the export poses them.
    pub(super) fn pose_clock(&self, model_file: usize, model: &M2Model) -> Option<Clock> {
        let seconds = self.pose_at?;
        let sequence = if model_file == 0 { self.sequence } else { None };
        Some(clock_at(model, sequence, seconds))
    }

    /// The still look of an animated material, where the export poses models or writes their material
    /// animation: its colour factor, and its texture transform when it has one and a texture.
    pub(super) fn still_look(&self, m: usize, textured: bool) -> Option<([f32; 4], Option<Mat4>)> {
        if self.pose_at.is_none() && !self.material_animation {
            return None;
        }
        let (file, model, unit) = self.animated_unit(m)?;
        let clock = self.pose_clock(file, model).unwrap_or_else(|| clock_at(model, None, 0.0));
        let look = unit_appearance(model, &unit, &clock);
        let transform = (textured && has_transform(model, &unit)).then_some(look.uv[0]);
        Some((color_factor(&look), transform))
    }

    /// Records the still texture transform of glTF material `material`, added to the document at its end.
    pub(super) fn add_still_texture_transform(&mut self, material: json::Index<json::Material>, uv: Mat4) {
        let (offset, rotation, scale) = texture_transform_parts(uv);
        self.texture_transforms.push(StillTextureTransform { material: material.value(), offset, rotation, scale });
        self.uses_extension("KHR_texture_transform");
    }

    /// The written glTF materials that follow a texture unit of the model in `model_file`, with whether
    /// each carries a texture transform.
    pub(super) fn animated_materials_of(&self, model_file: usize) -> Vec<(usize, TextureUnit, bool)> {
        let mut out = Vec::new();
        for animated in self.scene.animated_materials.iter().filter(|a| a.model_file == model_file) {
            for (&(m, _), &index) in &self.materials {
                if m == animated.material {
                    let moved = self.texture_transforms.iter().any(|t| t.material == index.value());
                    out.push((index.value(), animated.unit, moved));
                }
            }
        }
        out.sort_by_key(|(index, _, _)| *index);
        out
    }

    /// The curves of one sequence for each animated material: its colour factor, and where it has a
    /// texture transform, its offset, rotation and scale, as (JSON pointer, curve).
    pub(super) fn material_curves(
        &self,
        model: &M2Model,
        sequence: usize,
        duration_ms: u32,
        materials: &[(usize, TextureUnit, bool)],
    ) -> Vec<(String, Curve)> {
        let linear = json::animation::Interpolation::Linear;
        let mut curves = Vec::new();
        for &(index, unit, moved) in materials {
            let times_ms = sample_times(model, &unit, sequence, duration_ms);
            let looks: Vec<UnitAppearance> = times_ms
                .iter()
                .map(|&t| {
                    let clock = Clock { sequence, time_ms: f64::from(t), global_ms: f64::from(t) };
                    unit_appearance(model, &unit, &clock)
                })
                .collect();
            let times: Vec<f32> = times_ms.iter().map(|&t| t as f32 / 1000.0).collect();
            let curve =
                |width: usize, values: Vec<f32>| Curve { times: times.clone(), values, width, interpolation: linear };
            let base = format!("/materials/{index}/pbrMetallicRoughness");
            curves.push((format!("{base}/baseColorFactor"), curve(4, looks.iter().flat_map(color_factor).collect())));
            if moved {
                let parts: Vec<_> = looks.iter().map(|l| texture_transform_parts(l.uv[0])).collect();
                let transform = format!("{base}/baseColorTexture/extensions/KHR_texture_transform");
                curves.push((format!("{transform}/offset"), curve(2, parts.iter().flat_map(|p| p.0).collect())));
                curves.push((format!("{transform}/rotation"), curve(1, parts.iter().map(|p| p.1).collect())));
                curves.push((format!("{transform}/scale"), curve(2, parts.iter().flat_map(|p| p.2).collect())));
            }
        }
        curves
    }
}

/// Adds to the serialised document what the `gltf` crate's types cannot hold: the still texture
/// transforms and the channels that target a JSON pointer.
pub(super) fn add_to_document(document: &mut Value, transforms: &[StillTextureTransform], channels: &[PointerChannel]) {
    for t in transforms {
        if let Some(texture) =
            document.pointer_mut(&format!("/materials/{}/pbrMetallicRoughness/baseColorTexture", t.material))
        {
            texture["extensions"]["KHR_texture_transform"] =
                value!({ "offset": t.offset, "rotation": t.rotation, "scale": t.scale });
        }
    }
    for c in channels {
        // An animation whose channels all target pointers was written without a channel list.
        let animation = document.pointer_mut(&format!("/animations/{}", c.animation)).and_then(Value::as_object_mut);
        let Some(animation) = animation else { continue };
        if let Some(list) = animation.entry("channels").or_insert_with(|| value!([])).as_array_mut() {
            list.push(value!({
                "sampler": c.sampler,
                "target": { "path": "pointer", "extensions": { "KHR_animation_pointer": { "pointer": c.pointer } } },
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Affine2, Mat4, Vec2, Vec3};

    #[test]
    fn texture_transform_parts_rebuild_the_matrix_as_bevy_reads_them() {
        // A UV matrix of a scroll, a turn about the centre and a stretch, as the M2 evaluation makes it.
        let centre = Vec3::new(0.5, 0.5, 0.0);
        let m = Mat4::from_translation(centre)
            * Mat4::from_rotation_z(0.7)
            * Mat4::from_scale(Vec3::new(2.0, 0.5, 1.0))
            * Mat4::from_translation(-centre)
            * Mat4::from_translation(Vec3::new(0.25, 0.1, 0.0));
        let (offset, rotation, scale) = super::texture_transform_parts(m);
        // Bevy's glTF loader: T(offset) · R(−rotation) · S(scale).
        let read = Affine2::from_scale_angle_translation(Vec2::from(scale), -rotation, Vec2::from(offset));
        for uv in [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.3, 0.8)] {
            let expected = m.transform_point3(uv.extend(0.0)).truncate();
            assert!(read.transform_point2(uv).abs_diff_eq(expected, 1e-5), "{uv}");
        }
    }
}
