//! M2 animation in Bevy: one [`M2Motion`] asset per moving model, shared by its instances, and systems
//! that each frame pose every instance's joints and move the animated materials from one clock. The
//! evaluation is `crate::animation`'s; Bevy's `AnimationClip`s are not used, because global sequences
//! loop on clocks of their own, billboards turn with the camera and colours, weights and texture
//! transforms live in materials, all from the same tracks.

use std::sync::Arc;

use bevy::camera::primitives::Aabb;
use bevy::math::Affine2;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::animation::{Clock, joint_offset, unit_appearance};
use crate::formats::m2::{Billboard, M2Model, TextureUnit};
use crate::formats::{Document, Model};
use crate::mesh::coords::wmo_to_bevy;
use crate::scene::NodeTransform;
use crate::scene::animation::joint_pose;
use crate::source::FileSource;

use super::wmo_material::WmoMaterial;

/// A moving M2: its model, the sequence it plays, and the materials its texture units move.
#[derive(Asset, TypePath, Debug)]
pub struct M2Motion {
    /// The .m2's document (its model is an M2), with the `.anim` files read so far.
    pub document: Arc<Document>,
    /// The .m2's index in the scene's files: 0 for a model opened on its own.
    pub file: usize,
    /// The sequence to play (an index into the model's sequences); `None` plays its default, Stand.
    pub sequence: Option<usize>,
    pub materials: Vec<(Handle<WmoMaterial>, TextureUnit)>,
    /// Where the `.anim` files of sequences chosen later are read: the source and path of the .m2.
    pub anim_files: Option<(Arc<dyn FileSource>, String)>,
    /// What reading them found wrong (also logged), one line each.
    pub warnings: Vec<String>,
}

impl M2Motion {
    pub fn model(&self) -> Option<&M2Model> {
        match &self.document.model {
            Model::M2(model) => Some(model),
            _ => None,
        }
    }

    /// The sequence that plays: the chosen one or the default, its alias followed.
    pub fn playing(&self) -> Option<usize> {
        let animation = &self.model()?.animation;
        let chosen =
            self.sequence.filter(|&s| s < animation.sequences.len()).or_else(|| animation.default_sequence())?;
        Some(animation.resolve_alias(chosen))
    }
}

/// On each joint entity of an M2 instance: the motion that poses it and its bone (the bone count for
/// the joint that stands still).
#[derive(Component, Reflect, Clone, Debug)]
#[reflect(Component)]
pub struct M2Joint {
    pub motion: Handle<M2Motion>,
    pub bone: u16,
}

/// On a skinned M2 mesh: the box, in the mesh's space, that holds it in every pose its sequences take
/// (the file's own culling box). It stands in for the mesh's bind-pose bounds, so a moving model is
/// culled as the game culls it, with no bounds recomputed from the joints every frame.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component)]
pub struct M2MotionBounds {
    pub min: Vec3,
    pub max: Vec3,
}

/// Grows each skinned mesh's `Aabb`, where Bevy has just computed the bind pose's (on spawn, or when
/// the mesh changed), to hold its [`M2MotionBounds`] too: a file's box that misses part of the model at
/// rest still never culls what is drawn at rest.
fn apply_motion_bounds(mut meshes: Query<(&M2MotionBounds, &mut Aabb), Changed<Aabb>>) {
    for (bounds, mut aabb) in &mut meshes {
        let (min, max) = (Vec3::from(aabb.min()).min(bounds.min), Vec3::from(aabb.max()).max(bounds.max));
        aabb.set_if_neq(Aabb::from_min_max(min, max));
    }
}

/// On a joint that turns to face the camera: how (spherical 0, cylindrical about X/Y/Z 1–3).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component)]
pub struct M2Billboard(pub u8);

impl M2Billboard {
    pub fn new(kind: Billboard) -> Self {
        Self(match kind {
            Billboard::Spherical => 0,
            Billboard::Cylindrical(axis) => 1 + axis as u8,
        })
    }
}

/// The one clock every M2 plays on: doodads of a WMO stay in step, as in WoW Model Viewer.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct M2Clock {
    /// Seconds since the sequences started.
    pub seconds: f64,
    /// 1 plays in real time.
    pub speed: f64,
    pub playing: bool,
    /// Off: every model at rest, as a file with no animation.
    pub enabled: bool,
    /// Where playing stops (the end of a sequence played once); `None` loops.
    pub stop_at: Option<f64>,
}

impl Default for M2Clock {
    fn default() -> Self {
        Self { seconds: 0.0, speed: 1.0, playing: true, enabled: true, stop_at: None }
    }
}

pub(super) fn build(app: &mut App) {
    app.init_asset::<M2Motion>()
        .init_resource::<M2Clock>()
        .register_type::<M2Joint>()
        .register_type::<M2Billboard>()
        .register_type::<M2MotionBounds>()
        .add_systems(
            PostUpdate,
            (advance_clock, read_anim_files, pose_joints, face_camera).chain().before(TransformSystems::Propagate),
        )
        .add_systems(
            PostUpdate,
            apply_motion_bounds
                .after(bevy::camera::visibility::VisibilitySystems::CalculateBounds)
                .before(bevy::camera::visibility::VisibilitySystems::CheckVisibility),
        );
}

/// Reads the `.anim` file of a sequence the first time it plays. The model records what it tried, so a
/// missing file is one warning; a reload brings a fresh model, which looks again.
fn read_anim_files(mut motions: ResMut<Assets<M2Motion>>) {
    let waiting: Vec<(AssetId<M2Motion>, usize)> = motions
        .iter()
        .filter(|(_, m)| m.anim_files.is_some())
        .filter_map(|(id, m)| Some((id, m.playing()?, m)))
        .filter(|(_, s, m)| m.model().is_some_and(|model| model.animation.waits_for_anim_file(*s)))
        .map(|(id, s, _)| (id, s))
        .collect();
    for (id, sequence) in waiting {
        let Some(mut motion) = motions.get_mut(id) else { continue };
        let Some((source, path)) = motion.anim_files.clone() else { continue };
        if let Some(warning) =
            crate::scene::anim_files::read_anim_file(source.as_ref(), &path, &mut motion.document, sequence)
        {
            warn!("{warning}");
            motion.warnings.push(warning.to_string());
        }
    }
}

fn advance_clock(time: Res<Time>, mut clock: ResMut<M2Clock>) {
    if clock.playing && clock.enabled {
        clock.seconds += time.delta_secs_f64() * clock.speed;
        if let Some(end) = clock.stop_at.filter(|&end| clock.seconds >= end) {
            clock.seconds = end;
            clock.playing = false;
        }
    }
}

/// Each joint's transform relative to its parent joint, in Bevy's frame, for every bone of a motion
/// and the still joint after them: at `clock`, or at rest.
fn joint_transforms(model: &M2Model, clock: Option<&Clock>, out: &mut Vec<Transform>) {
    let animation = &model.animation;
    out.clear();
    for i in 0..=animation.bones.len() {
        let pose = match clock {
            Some(clock) => joint_pose(model, i, clock),
            None if i < animation.bones.len() => {
                NodeTransform::from_translation(wmo_to_bevy(joint_offset(animation, i)))
            }
            None => NodeTransform::IDENTITY,
        };
        out.push(Transform {
            translation: Vec3::from_array(pose.translation),
            rotation: Quat::from_array(pose.rotation),
            scale: Vec3::from_array(pose.scale),
        });
    }
}

/// Poses every motion once for the clock, sets each instance's joints from it, and moves the animated
/// materials. Nothing is evaluated while the clock and the motions stand still.
fn pose_joints(
    clock: Res<M2Clock>,
    motions: Res<Assets<M2Motion>>,
    mut materials: ResMut<Assets<WmoMaterial>>,
    mut joints: Query<(&M2Joint, &mut Transform)>,
    mut poses: Local<Vec<(AssetId<M2Motion>, Vec<Transform>)>>,
    mut evaluated: Local<Option<M2Clock>>,
    mut motion_events: MessageReader<AssetEvent<M2Motion>>,
    added: Query<(), Added<M2Joint>>,
) {
    let motions_changed = motion_events.read().count() > 0;
    if *evaluated == Some(*clock) && !motions_changed && added.is_empty() {
        return;
    }
    *evaluated = Some(*clock);
    poses.retain(|(id, _)| motions.contains(*id));
    for (id, motion) in motions.iter() {
        let Some(model) = motion.model() else { continue };
        let sequence = motion.playing().unwrap_or(0);
        let seconds = if clock.enabled { clock.seconds } else { 0.0 };
        let at = Clock::looping(&model.animation, sequence, seconds);
        let slot = match poses.iter().position(|(p, _)| *p == id) {
            Some(slot) => slot,
            None => {
                poses.push((id, Vec::new()));
                poses.len() - 1
            }
        };
        joint_transforms(model, clock.enabled.then_some(&at), &mut poses[slot].1);
        for (handle, unit) in &motion.materials {
            let look = unit_appearance(model, unit, &at);
            let [r, g, b, a] = if clock.enabled { look.color } else { [1.0; 4] };
            let color = Color::srgba(r, g, b, a);
            let m = if clock.enabled { look.uv[0] } else { Mat4::IDENTITY };
            let uv = Affine2::from_cols(
                m.x_axis.truncate().truncate(),
                m.y_axis.truncate().truncate(),
                m.w_axis.truncate().truncate(),
            );
            // Written only when the look changed: a write sends the material to the GPU again.
            let unchanged =
                materials.get(handle).is_none_or(|m| m.base.base_color == color && m.base.uv_transform == uv);
            if !unchanged && let Some(mut material) = materials.get_mut(handle) {
                material.base.base_color = color;
                material.base.uv_transform = uv;
            }
        }
    }
    // A joint's motion is found by a scan from the last one's: joints of one model come in runs, and
    // a scene has few moving models.
    let mut last = 0;
    for (joint, mut transform) in &mut joints {
        let id = joint.motion.id();
        if poses.get(last).is_none_or(|(p, _)| *p != id) {
            let Some(slot) = poses.iter().position(|(p, _)| *p == id) else { continue };
            last = slot;
        }
        if let Some(pose) = poses[last].1.get(usize::from(joint.bone)) {
            transform.set_if_neq(*pose);
        }
    }
}

/// Turns billboarded joints to the active camera: a spherical one's X axis back at the viewer with its
/// Y up the screen (the model's Z-up turned into Bevy's Y-up), a cylindrical one about its own locked
/// axis. The parent's placement is last frame's, which for a still doodad is exact.
fn face_camera(
    clock: Res<M2Clock>,
    cameras: Query<(&Camera, &GlobalTransform), With<Camera3d>>,
    parents: Query<&GlobalTransform>,
    mut billboards: Query<(&M2Billboard, &ChildOf, &mut Transform)>,
) {
    if !clock.enabled {
        return;
    }
    let Some((_, camera)) = cameras.iter().find(|(c, _)| c.is_active) else { return };
    let (toward_viewer, up) = (camera.back().as_vec3(), camera.up().as_vec3());
    for (kind, child_of, mut transform) in &mut billboards {
        let Ok(parent) = parents.get(child_of.parent()) else { continue };
        let parent_rotation = parent.compute_transform().rotation;
        let world = parent_rotation * transform.rotation;
        let facing = match kind.0 {
            0 => {
                let x = toward_viewer;
                let y = (up - x * up.dot(x)).normalize_or_zero();
                Mat3::from_cols(x, y, x.cross(y))
            }
            axis => {
                // The model's X, Y, Z are Bevy's X, −Z, Y.
                let locked = match axis {
                    1 => world * Vec3::X,
                    2 => world * Vec3::NEG_Z,
                    _ => world * Vec3::Y,
                };
                let facing = (toward_viewer - locked * toward_viewer.dot(locked)).normalize_or_zero();
                match axis {
                    // X locked: the model's Z (Bevy's Y) faces the viewer.
                    1 => Mat3::from_cols(locked, facing, locked.cross(facing)),
                    // Y locked: X faces; Bevy's Z is the model's −Y.
                    2 => Mat3::from_cols(facing, (-locked).cross(facing), -locked),
                    _ => Mat3::from_cols(facing, locked, facing.cross(locked)),
                }
            }
        };
        if facing.determinant() < 0.5 {
            continue;
        }
        transform.rotation = parent_rotation.inverse() * Quat::from_mat3(&facing);
    }
}
