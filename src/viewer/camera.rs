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

/// The view's rotation for a yaw and pitch, as the orbit camera builds it.
fn view_rotation(yaw: f32, pitch: f32) -> Quat {
    Quat::from_euler(EulerRot::YXZ, yaw, -pitch, 0.0)
}

/// Centre of the bounds and the smallest distance from which all eight corners fit in the view from this
/// direction, with a small margin.
pub fn frame(bounds: &Bounds, aspect: f32, yaw: f32, pitch: f32) -> (Vec3, f32) {
    if bounds.is_empty() {
        return (Vec3::ZERO, 5.0);
    }
    let center = Vec3::from_array(bounds.center());
    let half = Vec3::from_array(bounds.extent()) * 0.5;
    let rotation = view_rotation(yaw, pitch);
    let (right, up, forward) = (rotation * Vec3::X, rotation * Vec3::Y, rotation * Vec3::NEG_Z);
    let tan_y = (FOV_Y * 0.5).tan();
    let tan_x = tan_y * aspect.max(0.1);
    let mut distance: f32 = 0.0;
    for i in 0..8 {
        let corner = Vec3::new(
            if i & 1 == 0 { -half.x } else { half.x },
            if i & 2 == 0 { -half.y } else { half.y },
            if i & 4 == 0 { -half.z } else { half.z },
        );
        let depth_offset = corner.dot(forward);
        distance = distance
            .max(corner.dot(right).abs() / tan_x - depth_offset)
            .max(corner.dot(up).abs() / tan_y - depth_offset);
    }
    let size = half.length().max(1e-3);
    (center, (distance * 1.08).max(size * 0.5))
}

/// A transform orbiting `focus` at `distance` from the given view direction.
pub fn orbit_transform(focus: Vec3, distance: f32, yaw: f32, pitch: f32) -> Transform {
    let rotation = view_rotation(yaw, pitch);
    let position = focus + rotation * Vec3::new(0.0, 0.0, distance);
    Transform::from_translation(position).looking_at(focus, Vec3::Y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placement_orbits_back_to_its_eye() {
        let placement = parse_camera("4,3,-10:40,1,-12").unwrap();
        let (focus, distance, yaw, pitch) = placement.orbit();
        let transform = orbit_transform(focus, distance, yaw, pitch);
        assert!(transform.translation.distance(placement.eye) < 1e-3, "{transform:?}");
        assert!(
            parse_camera("1,2,3").is_err()
                && parse_camera("1,2,3:1,2,3").is_err()
                && parse_camera("1,2:3,4,5").is_err()
        );
    }
}

/// The camera put at `eye`, looking at `target`, in the view's frame (`--camera`, the control hook's
/// `camera`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraPlacement {
    pub eye: Vec3,
    pub target: Vec3,
}

impl CameraPlacement {
    /// As the orbit camera holds it: focus, distance, yaw and pitch (see [`orbit_transform`]).
    pub fn orbit(&self) -> (Vec3, f32, f32, f32) {
        let offset = self.eye - self.target;
        let distance = offset.length().max(1e-3);
        let direction = offset / distance;
        (self.target, distance, direction.x.atan2(direction.z), direction.y.clamp(-1.0, 1.0).asin())
    }
}

/// `X,Y,Z:X,Y,Z`, the eye then the target.
pub fn parse_camera(s: &str) -> Result<CameraPlacement, String> {
    let point = |text: &str| -> Result<Vec3, String> {
        let values: Vec<f32> = text
            .split(',')
            .map(|v| v.trim().parse::<f32>().map_err(|e| format!("{v}: {e}")))
            .collect::<Result<_, _>>()?;
        match values[..] {
            [x, y, z] if values.iter().all(|v| v.is_finite()) => Ok(Vec3::new(x, y, z)),
            _ => Err(format!("expected x,y,z, got {text}")),
        }
    };
    let (eye, target) = s.split_once(':').ok_or_else(|| format!("expected EYE:TARGET (x,y,z:x,y,z), got {s}"))?;
    let placement = CameraPlacement { eye: point(eye)?, target: point(target)? };
    if placement.eye.distance(placement.target) < 1e-3 {
        return Err(format!("{s}: the eye and the target are the same point"));
    }
    Ok(placement)
}

pub fn near_far(distance: f32) -> (f32, f32) {
    ((distance * 0.001).max(0.001), (distance * 100.0).max(100.0))
}

/// The window's 3D camera, the one the user orbits (a screenshot at a chosen size renders through a
/// second camera for a few frames, which the panel, picking and the status must not take for it).
#[derive(bevy::prelude::Component)]
pub struct ViewCamera;
