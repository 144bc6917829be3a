//! Where the camera goes: framing a model's bounds from one of the named view directions.

use bevy::prelude::*;

use super::cli::ViewDirection;
use crate::mesh::Bounds;

pub const FOV_Y: f32 = std::f32::consts::FRAC_PI_4;

/// Yaw and pitch (radians) of a view direction, in the orbit camera's convention: yaw 0 looks along −Z
/// from +Z, pitch > 0 looks down.
pub fn yaw_pitch(view: ViewDirection) -> (f32, f32) {
    match view {
        ViewDirection::Iso => (std::f32::consts::FRAC_PI_4, 0.5),
        ViewDirection::Front => (0.0, 0.0),
        ViewDirection::Side => (std::f32::consts::FRAC_PI_2, 0.0),
        ViewDirection::Top => (0.0, std::f32::consts::FRAC_PI_2 - 1e-3),
    }
}

/// Centre and the distance at which the bounding sphere fills the view, with a margin.
pub fn frame(bounds: &Bounds, aspect: f32) -> (Vec3, f32) {
    if bounds.is_empty() {
        return (Vec3::ZERO, 5.0);
    }
    let center = Vec3::from_array(bounds.center());
    let radius = (Vec3::from_array(bounds.extent()).length() * 0.5).max(1e-3);
    let half_fov = (FOV_Y * 0.5).min((FOV_Y * 0.5).tan().atan2(1.0 / aspect.max(0.1)));
    (center, radius / half_fov.sin() * 1.05)
}

/// A transform orbiting `focus` at `distance` from the given view direction.
pub fn orbit_transform(focus: Vec3, distance: f32, yaw: f32, pitch: f32) -> Transform {
    let rotation = Quat::from_euler(EulerRot::YXZ, yaw, -pitch, 0.0);
    let position = focus + rotation * Vec3::new(0.0, 0.0, distance);
    Transform::from_translation(position).looking_at(focus, Vec3::Y)
}

pub fn near_far(distance: f32) -> (f32, f32) {
    ((distance * 0.001).max(0.001), (distance * 100.0).max(100.0))
}
