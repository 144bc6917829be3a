//! Skins and animations of moving M2s: every written instance gets a skin over its joint nodes (the
//! inverse bind matrices written once per skeleton), and each moving model one animation per sequence
//! whose channels move every instance's joints (and, when asked, its materials:
//! `material_animation.rs`). A joint's translation is its pivot's offset from its
//! parent's plus the bone's track, its rotation and scale the bone's; what has no keys in a sequence
//! stays at rest. Global-sequence tracks repeat their loop across the sequence, since glTF has one
//! clock per animation.

use gltf::json;
use json::validation::{Checked, USize64};
use serde_json::json as value;

use super::document::Builder;
use super::material_animation::PointerChannel;
use crate::animation::{Interpolate, joint_offset, sample_keys};
use crate::formats::Model;
use crate::formats::m2::track::{STEP, Track};
use crate::formats::m2::{Animation, M2Model, animation_name};
use crate::mesh::coords::{wmo_quat_to_bevy, wmo_scale_to_bevy, wmo_to_bevy};
use crate::scene::animation::SkinBinding;

/// One written instance: its skeleton and the glTF node of each joint.
pub(super) struct WrittenSkin {
    pub skeleton: usize,
    pub joints: Vec<json::Index<json::Node>>,
}

impl Builder<'_> {
    /// An accessor outside any vertex buffer (inverse bind matrices, animation keys).
    fn add_data_accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        kind: json::accessor::Type,
        bounds: Option<(serde_json::Value, serde_json::Value)>,
    ) -> json::Index<json::Accessor> {
        let view = self.add_view(bytes, None);
        let (min, max) = bounds.unzip();
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(json::accessor::GenericComponentType(json::accessor::ComponentType::F32)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(kind),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A sampler of `curve`'s keys (times and values as accessors), added to `samplers`.
    fn add_sampler(
        &mut self,
        samplers: &mut Vec<json::animation::Sampler>,
        curve: &Curve,
    ) -> json::Index<json::animation::Sampler> {
        let times: Vec<u8> = curve.times.iter().flat_map(|t| t.to_le_bytes()).collect();
        let bounds = (value!([curve.times[0]]), value!([curve.times[curve.times.len() - 1]]));
        let input = self.add_data_accessor(&times, curve.times.len(), json::accessor::Type::Scalar, Some(bounds));
        let kind = match curve.width {
            1 => json::accessor::Type::Scalar,
            2 => json::accessor::Type::Vec2,
            3 => json::accessor::Type::Vec3,
            _ => json::accessor::Type::Vec4,
        };
        let bytes: Vec<u8> = curve.values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let output = self.add_data_accessor(&bytes, curve.times.len(), kind, None);
        samplers.push(json::animation::Sampler {
            extensions: None,
            extras: None,
            input,
            interpolation: Checked::Valid(curve.interpolation),
            output,
        });
        json::Index::new(samplers.len() as u32 - 1)
    }

    /// The skin of one instance whose joints were all written; `None` otherwise.
    pub(super) fn add_skin(
        &mut self,
        binding: &SkinBinding,
        node_of: &[Option<json::Index<json::Node>>],
        skins: &mut Vec<WrittenSkin>,
    ) -> Option<json::Index<json::Skin>> {
        let joints: Vec<json::Index<json::Node>> =
            binding.joints.iter().map(|&n| node_of.get(n).copied().flatten()).collect::<Option<_>>()?;
        let inverse_binds = match self.inverse_binds.get(&binding.skeleton) {
            Some(&accessor) => accessor,
            None => {
                let matrices = &self.scene.skeletons[binding.skeleton].inverse_bindposes;
                let bytes: Vec<u8> = matrices.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
                let accessor = self.add_data_accessor(&bytes, matrices.len(), json::accessor::Type::Mat4, None);
                self.inverse_binds.insert(binding.skeleton, accessor);
                accessor
            }
        };
        // Meshes of one instance drawn from several nodes share its joints: one set of channels.
        if !skins.iter().any(|s| s.joints == joints) {
            skins.push(WrittenSkin { skeleton: binding.skeleton, joints: joints.clone() });
        }
        Some(self.root.push(json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: Some(inverse_binds),
            joints,
            name: None,
            skeleton: None,
        }))
    }

    /// One animation per sequence of every moving model with written instances (or, when the export
    /// writes material animation, written materials that move).
    pub(super) fn add_animations(&mut self, skins: &[WrittenSkin]) -> usize {
        let mut files: Vec<usize> = self.scene.skeletons.iter().map(|s| s.model_file).collect();
        if self.material_animation {
            files.extend(self.scene.animated_materials.iter().map(|m| m.model_file));
        }
        files.sort_unstable();
        files.dedup();
        let mut written = 0;
        for file in files {
            let Some(Model::M2(model)) = self.scene.files[file].document.as_deref().map(|d| &d.model) else {
                continue;
            };
            let skeletons: Vec<usize> =
                (0..self.scene.skeletons.len()).filter(|&s| self.scene.skeletons[s].model_file == file).collect();
            let instances: Vec<&WrittenSkin> = skins.iter().filter(|s| skeletons.contains(&s.skeleton)).collect();
            let materials = if self.material_animation { self.animated_materials_of(file) } else { Vec::new() };
            if instances.is_empty() && materials.is_empty() {
                continue;
            }
            let stem = crate::scene::file_name(&self.scene.files[file].path).to_owned();
            for sequence in 0..model.animation.sequences.len() {
                self.add_animation(model, &stem, sequence, &instances, &materials);
                written += 1;
            }
        }
        if !self.pointer_channels.is_empty() {
            self.uses_extension("KHR_animation_pointer");
        }
        written
    }

    fn add_animation(
        &mut self,
        model: &M2Model,
        stem: &str,
        index: usize,
        instances: &[&WrittenSkin],
        materials: &[(usize, crate::formats::m2::TextureUnit, bool)],
    ) {
        let animation = &model.animation;
        let sequence = &animation.sequences[index];
        let played = animation.resolve_alias(index);
        let duration_ms = sequence.duration_ms;
        use json::animation::Property;
        let mut curves: Vec<(usize, Property, Curve)> = Vec::new();
        if !instances.is_empty() {
            for (b, bone) in animation.bones.iter().enumerate() {
                let offset = joint_offset(animation, b);
                let translation = curve(animation, &bone.translation, played, duration_ms, 3, |t: [f32; 3]| {
                    wmo_to_bevy(std::array::from_fn(|k| offset[k] + t[k])).to_vec()
                });
                let rotation = curve(animation, &bone.rotation, played, duration_ms, 4, |q: [f32; 4]| {
                    let length = q.iter().map(|c| c * c).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
                    wmo_quat_to_bevy(q.map(|c| c / length)).to_vec()
                });
                let scale =
                    curve(animation, &bone.scale, played, duration_ms, 3, |s: [f32; 3]| wmo_scale_to_bevy(s).to_vec());
                for (path, curve) in
                    [(Property::Translation, translation), (Property::Rotation, rotation), (Property::Scale, scale)]
                {
                    if let Some(curve) = curve {
                        curves.push((b, path, curve));
                    }
                }
            }
        }
        let material_curves = self.material_curves(model, played, duration_ms, materials);
        if curves.is_empty() && material_curves.is_empty() {
            // Nothing moves in this sequence: the first joint held at rest for its length, so the
            // animation is there with its duration.
            let end = duration_ms as f32 / 1000.0;
            let times = if duration_ms == 0 { vec![0.0] } else { vec![0.0, end] };
            let rest = [0.0, 0.0, 0.0, 1.0];
            let rest = Curve {
                values: times.iter().flat_map(|_| rest).collect(),
                times,
                width: 4,
                interpolation: json::animation::Interpolation::Step,
            };
            curves.push((0, Property::Rotation, rest));
        }
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let animation_index = self.root.animations.len();
        for (pointer, curve) in material_curves {
            let sampler = self.add_sampler(&mut samplers, &curve);
            self.pointer_channels.push(PointerChannel {
                animation: animation_index,
                sampler: sampler.value() as u32,
                pointer,
            });
        }
        for (bone, path, curve) in curves {
            let sampler = self.add_sampler(&mut samplers, &curve);
            for instance in instances {
                channels.push(json::animation::Channel {
                    sampler,
                    target: json::animation::Target {
                        extensions: None,
                        extras: None,
                        node: instance.joints[bone],
                        path: Checked::Valid(path),
                    },
                    extensions: None,
                    extras: None,
                });
            }
        }
        let name = animation_name(sequence.id).map_or_else(|| format!("id {}", sequence.id), str::to_owned);
        self.root.push(json::Animation {
            extensions: None,
            extras: Some(super::document::raw(&value!({
                "model": stem,
                "sequence": index,
                "id": sequence.id,
                "variation": sequence.variation,
                "duration_ms": duration_ms,
            }))),
            channels,
            name: Some(format!("{stem} {name} ({}.{})", sequence.id, sequence.variation)),
            samplers,
        });
    }
}

/// The most times a global-sequence loop is repeated across one sequence: a damaged file's loop of 1 ms
/// over a sequence of days would otherwise ask for billions of keys.
const MAX_LOOP_REPEATS: usize = 10_000;

/// Where each repeat of a global-sequence loop of `length` ms starts within a sequence of `duration_ms`.
pub(super) fn loop_starts(length: u32, duration_ms: u32) -> impl Iterator<Item = u32> {
    std::iter::successors(Some(0u32), move |&start| start.checked_add(length.max(1)))
        .take_while(move |&start| start <= duration_ms)
        .take(MAX_LOOP_REPEATS)
}

/// Keys in seconds and their values, flattened.
pub(super) struct Curve {
    pub times: Vec<f32>,
    pub values: Vec<f32>,
    pub width: usize,
    pub interpolation: json::animation::Interpolation,
}

/// Keys gathered in time order; a repeated time keeps the later value (glTF's times must rise).
struct KeyList<T> {
    times_ms: Vec<u32>,
    values: Vec<T>,
}

impl<T> KeyList<T> {
    fn push(&mut self, t: u32, v: T) {
        if self.times_ms.last() == Some(&t) {
            self.times_ms.pop();
            self.values.pop();
        }
        self.times_ms.push(t);
        self.values.push(v);
    }
}

/// A track's keys over one sequence of `duration_ms`, converted by `convert`: cut to the sequence, a
/// global-sequence loop repeated across it, and the value at the sequence's end added where the keys
/// stop short of it. `None` where the track has no keys then.
fn curve<T: Interpolate>(
    animation: &Animation,
    track: &Track<T>,
    sequence: usize,
    duration_ms: u32,
    width: usize,
    convert: impl Fn(T) -> Vec<f32>,
) -> Option<Curve> {
    let keys = track.keys(sequence)?;
    let interpolation = if track.interpolation == STEP {
        json::animation::Interpolation::Step
    } else {
        json::animation::Interpolation::Linear
    };
    let mut list = KeyList { times_ms: Vec::new(), values: Vec::new() };
    let global_loop = track.global_sequence.map(|g| animation.global_loops.get(usize::from(g)).copied().unwrap_or(0));
    let in_loop = |length: u32| keys.times.iter().zip(&keys.values).filter(move |(t, _)| **t <= length);
    match global_loop {
        Some(0) => list.push(0, *keys.values.first()?),
        Some(length) => {
            for start in loop_starts(length, duration_ms) {
                for (&t, &v) in in_loop(length) {
                    let at = start.saturating_add(t);
                    if at <= duration_ms {
                        list.push(at, v);
                    }
                }
            }
        }
        None => in_loop(duration_ms).for_each(|(&t, &v)| list.push(t, v)),
    }
    // Where the keys stop before the end, the value there (on a loop, at that point of it).
    if list.times_ms.last().is_none_or(|&t| t < duration_ms) {
        let at = match global_loop {
            Some(0) => 0.0,
            Some(length) => f64::from(duration_ms % length),
            None => f64::from(duration_ms),
        };
        if let Some(v) = sample_keys(keys, track.interpolation, at) {
            list.push(duration_ms, v);
        }
    }
    Some(Curve {
        times: list.times_ms.iter().map(|&t| t as f32 / 1000.0).collect(),
        values: list.values.into_iter().flat_map(convert).collect(),
        width,
        interpolation,
    })
}
