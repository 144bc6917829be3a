//! The animated blocks of an M2 (`m2-animation.md`): global loops, sequences and their lookup, bones,
//! colours, texture weights, texture transforms, attachments, events, lights and cameras, in both header
//! layouts. Every array is optional: one that runs past the file is read as empty with a warning, and a
//! damaged track is a warning and a track without keys, so a model always keeps its geometry.

use crate::formats::error::{Result, Warning};
use crate::formats::reader::Reader;

use super::track::{
    BYTE, COMPRESSED_QUATERNION, FIXED16, FLOAT, NONE, QUATERNION, SPLINE_FLOAT, SPLINE_VEC3, SequenceSpan, SplineKey,
    Track, TrackReader, VEC3,
};
use super::{HeaderArray, optional_array};

/// M2Sequence: one animation (Stand, Walk, …) or one variation of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sequence {
    /// An AnimationData id (0 Stand); see [`super::animation_name`].
    pub id: u16,
    pub variation: u16,
    pub duration_ms: u32,
    /// 256–263: where the sequence starts on the timeline all sequences share (0 in 264).
    pub start_ms: u32,
    pub move_speed: f32,
    pub flags: u32,
    /// The chance of this variation, out of 0x7FFF for all variations of an id.
    pub frequency: i16,
    pub replay_ms: [u32; 2],
    pub blend_time_ms: u32,
    pub bounds: [[f32; 3]; 2],
    pub bounds_radius: f32,
    /// The next variation of the same id, −1 for none.
    pub variation_next: i16,
    /// The sequence an alias plays instead.
    pub alias_next: u16,
    /// Version 264: the keys are in `Name{id:04}-{variation:02}.anim`, not in the .m2.
    pub in_anim_file: bool,
}

impl Sequence {
    /// The keys are in the .m2 (version 264).
    pub const KEYS_IN_M2: u32 = 0x20;
    /// The sequence plays `alias_next` instead of keys of its own.
    pub const ALIAS: u32 = 0x40;

    pub fn is_alias(&self) -> bool {
        self.flags & Self::ALIAS != 0 && self.flags & Self::KEYS_IN_M2 == 0
    }
}

/// Which way a billboarded bone turns to the camera.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Billboard {
    /// Its YZ plane faces the viewer.
    Spherical,
    /// It turns about its own axis (0 = X, 1 = Y, 2 = Z) toward the viewer.
    Cylindrical(usize),
}

/// M2CompBone.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    pub key_bone_id: i32,
    pub flags: u32,
    /// −1 for a root.
    pub parent: i16,
    pub submesh_id: u16,
    pub translation: Track<[f32; 3]>,
    /// (x, y, z, w).
    pub rotation: Track<[f32; 4]>,
    pub scale: Track<[f32; 3]>,
    /// The point the bone rotates and scales about, in model space.
    pub pivot: [f32; 3],
}

impl Bone {
    pub fn billboard(&self) -> Option<Billboard> {
        match self.flags {
            f if f & 0x08 != 0 => Some(Billboard::Spherical),
            f if f & 0x10 != 0 => Some(Billboard::Cylindrical(0)),
            f if f & 0x20 != 0 => Some(Billboard::Cylindrical(1)),
            f if f & 0x40 != 0 => Some(Billboard::Cylindrical(2)),
            _ => None,
        }
    }

    /// The parent's index, if it names an existing bone other than this one.
    pub fn parent_index(&self, bone_count: usize) -> Option<usize> {
        usize::try_from(self.parent).ok().filter(|&p| p < bone_count)
    }
}

/// M2TextureTransform: UV motion (scrolling water and lava, turning runes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextureTransform {
    pub translation: Track<[f32; 3]>,
    pub rotation: Track<[f32; 4]>,
    pub scaling: Track<[f32; 3]>,
}

/// M2Color: an RGB tint (0..1) and an alpha.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Color {
    pub color: Track<[f32; 3]>,
    pub alpha: Track<f32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    pub id: u32,
    pub bone: u16,
    pub position: [f32; 3],
    pub animate: Track<u8>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub identifier: [u8; 4],
    pub data: u32,
    pub bone: u32,
    pub position: [f32; 3],
    /// The times it fires.
    pub enabled: Track<()>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Light {
    /// 0 directional, 1 point.
    pub kind: u16,
    pub bone: i16,
    pub position: [f32; 3],
    pub ambient_color: Track<[f32; 3]>,
    pub ambient_intensity: Track<f32>,
    pub diffuse_color: Track<[f32; 3]>,
    pub diffuse_intensity: Track<f32>,
    pub attenuation_start: Track<f32>,
    pub attenuation_end: Track<f32>,
    pub visibility: Track<u8>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Camera {
    pub kind: u32,
    /// Below 272; from 272 the field of view is [`Camera::field_of_view_keys`] and this is 0.
    pub field_of_view: f32,
    pub far_clip: f32,
    pub near_clip: f32,
    pub positions: Track<SplineKey<[f32; 3]>>,
    pub position_base: [f32; 3],
    pub targets: Track<SplineKey<[f32; 3]>>,
    pub target_base: [f32; 3],
    pub roll: Track<SplineKey<f32>>,
    /// From 272: the field of view, animated (empty below).
    pub field_of_view_keys: Track<SplineKey<f32>>,
}

/// Everything in an M2 that moves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Animation {
    /// Each global sequence's loop length in ms.
    pub global_loops: Vec<u32>,
    pub sequences: Vec<Sequence>,
    pub sequence_lookup: Vec<i16>,
    pub bones: Vec<Bone>,
    pub key_bone_lookup: Vec<i16>,
    pub bone_lookup: Vec<u16>,
    pub colors: Vec<Color>,
    pub texture_weights: Vec<Track<f32>>,
    pub texture_transforms: Vec<TextureTransform>,
    pub texture_transform_lookup: Vec<i16>,
    pub attachments: Vec<Attachment>,
    pub attachment_lookup: Vec<i16>,
    pub events: Vec<Event>,
    pub lights: Vec<Light>,
    pub cameras: Vec<Camera>,
    pub camera_lookup: Vec<i16>,
    pub particle_emitters: u32,
    pub ribbon_emitters: u32,
    /// The sequences whose `.anim` file has been read ([`Animation::resolve_anim_file`]) or looked for
    /// and found missing ([`Animation::anim_file_missing`]): a file is not part of the .m2, it is read
    /// when its sequence first plays, and once.
    pub anim_files_tried: Vec<usize>,
}

impl Animation {
    /// The sequence playing `id` (main variation), found as the client finds it: probing the lookup table
    /// from `id % n` in quadratic steps; by a linear search when the table is empty.
    pub fn find_sequence(&self, id: u16) -> Option<usize> {
        let n = self.sequence_lookup.len();
        if n == 0 {
            return self.sequences.iter().position(|s| s.id == id);
        }
        let mut index = usize::from(id) % n;
        for step in 1..=n {
            let entry = usize::try_from(self.sequence_lookup[index]).ok()?;
            if self.sequences.get(entry).is_some_and(|s| s.id == id) {
                return Some(entry);
            }
            index = (index + step * step) % n;
        }
        None
    }

    /// The sequence whose keys play for `index`: aliases followed (at most once round the list).
    pub fn resolve_alias(&self, mut index: usize) -> usize {
        for _ in 0..self.sequences.len() {
            match self.sequences.get(index) {
                Some(s) if s.is_alias() && usize::from(s.alias_next) < self.sequences.len() => {
                    index = usize::from(s.alias_next);
                }
                _ => break,
            }
        }
        index
    }

    /// The sequence a model plays when nothing is chosen: Stand (0), else Closed (147), else the first.
    pub fn default_sequence(&self) -> Option<usize> {
        if self.sequences.is_empty() {
            return None;
        }
        Some(self.find_sequence(0).or_else(|| self.find_sequence(147)).unwrap_or(0))
    }

    /// Whether `sequence` keeps its keys in an `.anim` file not read yet.
    pub fn waits_for_anim_file(&self, sequence: usize) -> bool {
        self.sequences.get(sequence).is_some_and(|s| s.in_anim_file) && !self.anim_files_tried.contains(&sequence)
    }

    /// Records that `sequence`'s `.anim` file was looked for and is not there (or could not be read):
    /// it is not looked for again, and the sequence plays the keys kept in the .m2.
    pub fn anim_file_missing(&mut self, sequence: usize) {
        if !self.anim_files_tried.contains(&sequence) {
            self.anim_files_tried.push(sequence);
        }
    }

    /// Reads `sequence`'s keys from the bytes of its `.anim` file into every track that waits for them
    /// (from version 264 sequences may be stored there). Returns one line per track whose range does not fit.
    pub fn resolve_anim_file(&mut self, sequence: usize, anim: &[u8]) -> Vec<String> {
        self.anim_file_missing(sequence);
        let mut problems = Vec::new();
        let mut resolve = |name: String, result: std::result::Result<(), String>| {
            if let Err(message) = result {
                problems.push(format!("{name}: {message}"));
            }
        };
        let s = sequence;
        for (i, b) in self.bones.iter_mut().enumerate() {
            resolve(format!("bones[{i}].translation"), b.translation.resolve_anim_file(s, anim, VEC3));
            resolve(format!("bones[{i}].rotation"), b.rotation.resolve_anim_file(s, anim, COMPRESSED_QUATERNION));
            resolve(format!("bones[{i}].scale"), b.scale.resolve_anim_file(s, anim, VEC3));
        }
        for (i, c) in self.colors.iter_mut().enumerate() {
            resolve(format!("colors[{i}].color"), c.color.resolve_anim_file(s, anim, VEC3));
            resolve(format!("colors[{i}].alpha"), c.alpha.resolve_anim_file(s, anim, FIXED16));
        }
        for (i, w) in self.texture_weights.iter_mut().enumerate() {
            resolve(format!("texture weights[{i}]"), w.resolve_anim_file(s, anim, FIXED16));
        }
        for (i, t) in self.texture_transforms.iter_mut().enumerate() {
            resolve(format!("texture transforms[{i}].translation"), t.translation.resolve_anim_file(s, anim, VEC3));
            resolve(format!("texture transforms[{i}].rotation"), t.rotation.resolve_anim_file(s, anim, QUATERNION));
            resolve(format!("texture transforms[{i}].scaling"), t.scaling.resolve_anim_file(s, anim, VEC3));
        }
        for (i, a) in self.attachments.iter_mut().enumerate() {
            resolve(format!("attachments[{i}].animate"), a.animate.resolve_anim_file(s, anim, BYTE));
        }
        for (i, e) in self.events.iter_mut().enumerate() {
            resolve(format!("events[{i}].enabled"), e.enabled.resolve_anim_file(s, anim, NONE));
        }
        for (i, l) in self.lights.iter_mut().enumerate() {
            resolve(format!("lights[{i}].ambient color"), l.ambient_color.resolve_anim_file(s, anim, VEC3));
            resolve(format!("lights[{i}].ambient intensity"), l.ambient_intensity.resolve_anim_file(s, anim, FLOAT));
            resolve(format!("lights[{i}].diffuse color"), l.diffuse_color.resolve_anim_file(s, anim, VEC3));
            resolve(format!("lights[{i}].diffuse intensity"), l.diffuse_intensity.resolve_anim_file(s, anim, FLOAT));
            resolve(format!("lights[{i}].attenuation start"), l.attenuation_start.resolve_anim_file(s, anim, FLOAT));
            resolve(format!("lights[{i}].attenuation end"), l.attenuation_end.resolve_anim_file(s, anim, FLOAT));
            resolve(format!("lights[{i}].visibility"), l.visibility.resolve_anim_file(s, anim, BYTE));
        }
        for (i, c) in self.cameras.iter_mut().enumerate() {
            resolve(format!("cameras[{i}].positions"), c.positions.resolve_anim_file(s, anim, SPLINE_VEC3));
            resolve(format!("cameras[{i}].targets"), c.targets.resolve_anim_file(s, anim, SPLINE_VEC3));
            resolve(format!("cameras[{i}].roll"), c.roll.resolve_anim_file(s, anim, SPLINE_FLOAT));
            let field_of_view = c.field_of_view_keys.resolve_anim_file(s, anim, SPLINE_FLOAT);
            resolve(format!("cameras[{i}].field of view"), field_of_view);
        }
        problems
    }
}

/// The `.anim` file holding a version-264 sequence's keys: `Name0004-01.anim` for `Name.m2`, id 4,
/// variation 1.
pub fn anim_file_name(model_file_name: &str, sequence: &Sequence) -> String {
    let stem = model_file_name.rsplit_once('.').map_or(model_file_name, |(stem, _)| stem);
    format!("{stem}{:04}-{:02}.anim", sequence.id, sequence.variation)
}

/// Header positions of the animated arrays: 264, and 256–263 (which add three fields before the bones,
/// the flipbooks before the transforms).
struct Offsets {
    sequences: usize,
    sequence_lookup: usize,
    bones: usize,
    key_bone_lookup: usize,
    colors: usize,
    texture_weights: usize,
    texture_transforms: usize,
    bone_lookup: usize,
    texture_transform_lookup: usize,
    attachments: usize,
    attachment_lookup: usize,
    events: usize,
    lights: usize,
    cameras: usize,
    camera_lookup: usize,
    ribbons: usize,
    particles: usize,
}

const OFFSETS_264: Offsets = Offsets {
    sequences: 0x1C,
    sequence_lookup: 0x24,
    bones: 0x2C,
    key_bone_lookup: 0x34,
    colors: 0x48,
    texture_weights: 0x58,
    texture_transforms: 0x60,
    bone_lookup: 0x78,
    texture_transform_lookup: 0x98,
    attachments: 0xF0,
    attachment_lookup: 0xF8,
    events: 0x100,
    lights: 0x108,
    cameras: 0x110,
    camera_lookup: 0x118,
    ribbons: 0x120,
    particles: 0x128,
};

const OFFSETS_OLD: Offsets = Offsets {
    sequences: 0x1C,
    sequence_lookup: 0x24,
    bones: 0x34,
    key_bone_lookup: 0x3C,
    colors: 0x54,
    texture_weights: 0x64,
    texture_transforms: 0x74,
    bone_lookup: 0x8C,
    texture_transform_lookup: 0xAC,
    attachments: 0x104,
    attachment_lookup: 0x10C,
    events: 0x114,
    lights: 0x11C,
    cameras: 0x124,
    camera_lookup: 0x12C,
    ribbons: 0x134,
    particles: 0x13C,
};

/// Reads the animated arrays of a model whose header (of its version's length) has been checked. The
/// arrays join `arrays` (the inspector's list); problems join `warnings`.
pub(super) fn read(file: &[u8], version: u32, arrays: &mut Vec<HeaderArray>, warnings: &mut Vec<Warning>) -> Animation {
    let per_sequence = version >= 264;
    let o = if per_sequence { &OFFSETS_264 } else { &OFFSETS_OLD };
    let track = if per_sequence { 20 } else { 28 };
    let mut array = |at: usize, name: &'static str, size: usize| {
        let a = optional_array(file, at, name, size, warnings);
        arrays.push(a.clone());
        a
    };
    let global_loops = array(0x14, "global sequences", 4);
    let sequences = array(o.sequences, "sequences", if per_sequence { 64 } else { 68 });
    let sequence_lookup = array(o.sequence_lookup, "sequence lookup", 2);
    // Vanilla (below 260) bones have no name hash and keep float rotations.
    let bone_size = match version {
        264.. => 88,
        260.. => 112,
        _ => 108,
    };
    let bones = array(o.bones, "bones", bone_size);
    let key_bone_lookup = array(o.key_bone_lookup, "key bone lookup", 2);
    let colors = array(o.colors, "colors", 2 * track);
    let texture_weights = array(o.texture_weights, "texture weights", track);
    let texture_transforms = array(o.texture_transforms, "texture transforms", 3 * track);
    let bone_lookup = array(o.bone_lookup, "bone lookup", 2);
    let transform_lookup = array(o.texture_transform_lookup, "texture transform lookup", 2);
    let attachments = array(o.attachments, "attachments", 20 + track);
    let attachment_lookup = array(o.attachment_lookup, "attachment lookup", 2);
    let events = array(o.events, "events", 24 + track - 8);
    let lights = array(o.lights, "lights", 16 + 7 * track);
    // From 272 (Cataclysm) the field of view is a track after the roll, not a float after the type.
    let camera_fov_track = version >= 272;
    let cameras = array(o.cameras, "cameras", if camera_fov_track { 36 + 4 * track } else { 40 + 3 * track });
    let camera_lookup = array(o.camera_lookup, "camera lookup", 2);
    let ribbons = array(o.ribbons, "ribbon emitters", if per_sequence { 176 } else { 220 });
    // Multi-texture parameters (16 bytes) end the record from 272 (Cataclysm).
    let particle_size = match version {
        272.. => 492,
        264.. => 476,
        _ => 504,
    };
    let particles = array(o.particles, "particle emitters", particle_size);

    let global_loops = records(file, &global_loops, warnings, |_, r| r.u32());
    let sequences = records(file, &sequences, warnings, |_, r| read_sequence(r, per_sequence));
    let spans: Vec<SequenceSpan> = sequences
        .iter()
        .map(|s| SequenceSpan { start: s.start_ms, end: s.start_ms + s.duration_ms, in_anim_file: s.in_anim_file })
        .collect();
    let mut tracks = TrackReader { file, per_sequence, sequences: &spans, warnings: Vec::new() };
    let h = tracks.header_size();
    let rotation = if version >= 260 { COMPRESSED_QUATERNION } else { QUATERNION };
    let bones = indexed_records(file, &bones, warnings, |i, at, r| {
        let (key_bone_id, flags, parent, submesh_id) = (r.i32()?, r.u32()?, r.i16()?, r.u16()?);
        let first_track = if version >= 260 { at + 0x10 } else { at + 0x0C };
        let mut t = first_track;
        let mut next = |size: usize| {
            t += size;
            t - size
        };
        let (tt, tr, ts) = (next(h), next(h), next(h));
        let pivot_at = next(12);
        r.skip(pivot_at - r.offset())?;
        Ok(Bone {
            key_bone_id,
            flags,
            parent,
            submesh_id,
            translation: tracks.read(tt, || format!("bones[{i}].translation"), VEC3),
            rotation: tracks.read(tr, || format!("bones[{i}].rotation"), rotation),
            scale: tracks.read(ts, || format!("bones[{i}].scale"), VEC3),
            pivot: r.vec3()?,
        })
    });
    let colors = indexed_records(file, &colors, warnings, |i, at, _| {
        Ok(Color {
            color: tracks.read(at, || format!("colors[{i}].color"), VEC3),
            alpha: tracks.read(at + h, || format!("colors[{i}].alpha"), FIXED16),
        })
    });
    let texture_weights = indexed_records(file, &texture_weights, warnings, |i, at, _| {
        Ok(tracks.read(at, || format!("texture weights[{i}]"), FIXED16))
    });
    let texture_transforms = indexed_records(file, &texture_transforms, warnings, |i, at, _| {
        Ok(TextureTransform {
            translation: tracks.read(at, || format!("texture transforms[{i}].translation"), VEC3),
            rotation: tracks.read(at + h, || format!("texture transforms[{i}].rotation"), QUATERNION),
            scaling: tracks.read(at + 2 * h, || format!("texture transforms[{i}].scaling"), VEC3),
        })
    });
    let attachments = indexed_records(file, &attachments, warnings, |i, at, r| {
        let (id, bone, _) = (r.u32()?, r.u16()?, r.u16()?);
        Ok(Attachment {
            id,
            bone,
            position: r.vec3()?,
            animate: tracks.read(at + 20, || format!("attachments[{i}].animate"), BYTE),
        })
    });
    let events = indexed_records(file, &events, warnings, |i, at, r| {
        Ok(Event {
            identifier: r.array::<4>()?,
            data: r.u32()?,
            bone: r.u32()?,
            position: r.vec3()?,
            enabled: tracks.read(at + 24, || format!("events[{i}].enabled"), NONE),
        })
    });
    let lights = indexed_records(file, &lights, warnings, |i, at, r| {
        let (kind, bone, position) = (r.u16()?, r.i16()?, r.vec3()?);
        let track = |k: usize| at + 16 + k * h;
        Ok(Light {
            kind,
            bone,
            position,
            ambient_color: tracks.read(track(0), || format!("lights[{i}].ambient color"), VEC3),
            ambient_intensity: tracks.read(track(1), || format!("lights[{i}].ambient intensity"), FLOAT),
            diffuse_color: tracks.read(track(2), || format!("lights[{i}].diffuse color"), VEC3),
            diffuse_intensity: tracks.read(track(3), || format!("lights[{i}].diffuse intensity"), FLOAT),
            attenuation_start: tracks.read(track(4), || format!("lights[{i}].attenuation start"), FLOAT),
            attenuation_end: tracks.read(track(5), || format!("lights[{i}].attenuation end"), FLOAT),
            visibility: tracks.read(track(6), || format!("lights[{i}].visibility"), BYTE),
        })
    });
    let cameras = indexed_records(file, &cameras, warnings, |i, _, r| {
        let kind = r.u32()?;
        let field_of_view = if camera_fov_track { 0.0 } else { r.f32()? };
        let (far_clip, near_clip) = (r.f32()?, r.f32()?);
        let vec3_at = |offset: usize| {
            let mut v = Reader::little(file.get(offset..).unwrap_or(&[]), offset);
            v.vec3()
        };
        let first = r.offset();
        Ok(Camera {
            kind,
            field_of_view,
            far_clip,
            near_clip,
            positions: tracks.read(first, || format!("cameras[{i}].positions"), SPLINE_VEC3),
            position_base: vec3_at(first + h)?,
            targets: tracks.read(first + 12 + h, || format!("cameras[{i}].targets"), SPLINE_VEC3),
            target_base: vec3_at(first + 12 + 2 * h)?,
            roll: tracks.read(first + 24 + 2 * h, || format!("cameras[{i}].roll"), SPLINE_FLOAT),
            field_of_view_keys: if camera_fov_track {
                tracks.read(first + 24 + 3 * h, || format!("cameras[{i}].field of view"), SPLINE_FLOAT)
            } else {
                Track::default()
            },
        })
    });
    warnings.extend(tracks.warnings.into_iter().map(|(at, path, message)| Warning::new(path, at, message)));
    let i16s = |array: &HeaderArray, warnings: &mut Vec<Warning>| records(file, array, warnings, |_, r| r.i16());
    Animation {
        global_loops,
        sequences,
        sequence_lookup: i16s(&sequence_lookup, warnings),
        bones,
        key_bone_lookup: i16s(&key_bone_lookup, warnings),
        bone_lookup: records(file, &bone_lookup, warnings, |_, r| r.u16()),
        colors,
        texture_weights,
        texture_transforms,
        texture_transform_lookup: i16s(&transform_lookup, warnings),
        attachments,
        attachment_lookup: i16s(&attachment_lookup, warnings),
        events,
        lights,
        cameras,
        camera_lookup: i16s(&camera_lookup, warnings),
        particle_emitters: particles.count,
        ribbon_emitters: ribbons.count,
        anim_files_tried: Vec::new(),
    }
}

fn read_sequence(r: &mut Reader<'_>, per_sequence: bool) -> Result<Sequence> {
    let (id, variation) = (r.u16()?, r.u16()?);
    let (start_ms, duration_ms) = if per_sequence {
        (0, r.u32()?)
    } else {
        let (start, end) = (r.u32()?, r.u32()?);
        (start, end.saturating_sub(start))
    };
    let (move_speed, flags, frequency, _) = (r.f32()?, r.u32()?, r.i16()?, r.u16()?);
    let replay_ms = [r.u32()?, r.u32()?];
    let blend_time_ms = r.u32()?;
    let bounds = [r.vec3()?, r.vec3()?];
    let (bounds_radius, variation_next, alias_next) = (r.f32()?, r.i16()?, r.u16()?);
    let in_anim_file = per_sequence && flags & (Sequence::KEYS_IN_M2 | Sequence::ALIAS) == 0;
    Ok(Sequence {
        id,
        variation,
        duration_ms,
        start_ms,
        move_speed,
        flags,
        frequency,
        replay_ms,
        blend_time_ms,
        bounds,
        bounds_radius,
        variation_next,
        alias_next,
        in_anim_file,
    })
}

/// Each record of a checked array, read by `read` from (its offset, a reader over its bytes). A record
/// whose fixed fields do not fit its size (an error in this reader's tables, not in the file) ends the
/// list with a warning.
fn records<T>(
    file: &[u8],
    array: &HeaderArray,
    warnings: &mut Vec<Warning>,
    mut read: impl FnMut(usize, &mut Reader<'_>) -> Result<T>,
) -> Vec<T> {
    let mut out = Vec::with_capacity(array.count as usize);
    for i in 0..array.count as usize {
        let at = array.offset as usize + i * array.entry_size;
        let Some(bytes) = file.get(at..at + array.entry_size) else { break };
        match read(at, &mut Reader::little(bytes, at)) {
            Ok(record) => out.push(record),
            Err(e) => {
                warnings.push(Warning::new(array.name, e.offset, format!("{}; the rest read as empty", e.kind)));
                break;
            }
        }
    }
    out
}

/// [`records`] with each record's index.
fn indexed_records<T>(
    file: &[u8],
    array: &HeaderArray,
    warnings: &mut Vec<Warning>,
    mut read: impl FnMut(usize, usize, &mut Reader<'_>) -> Result<T>,
) -> Vec<T> {
    let mut index = 0;
    records(file, array, warnings, |at, r| {
        index += 1;
        read(index - 1, at, r)
    })
}
