//! Moving through a model rather than around it: the fly camera (V, View ▸ Fly camera; W A S D move,
//! Q and E go down and up, a drag looks around, the wheel sets the speed, Shift goes faster), as WoW
//! map editors and game engines' editors have it; and the orbit camera's wheel, which walks the orbit
//! target forward once the camera is close to it instead of stalling there, so one can go from room to
//! room of a building with the wheel alone.

use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;
use bevy_panorbit_camera::PanOrbitCamera;

use super::camera::{CameraPlacement, ViewCamera};
use super::scene::Viewer;

/// The orbit camera comes no closer to its target than this share of the distance that frames the
/// model; the wheel then moves the target forward.
pub const CLOSEST_SHARE: f32 = 0.02;
/// How far one wheel notch walks the target at the closest distance, in that distance.
const WALK_PER_NOTCH: f32 = 1.0;
/// The fly camera's first speed: this share of the framing distance per second.
const SPEED_SHARE: f32 = 0.1;
/// How much the orbit zooms per wheel notch (bevy_panorbit_camera's own step is 20 % at 1).
pub const ZOOM_SENSITIVITY: f32 = 0.5;
/// Radians of turn per logical pixel dragged.
const LOOK_PER_PIXEL: f32 = 0.004;
/// Speed per wheel notch in fly mode, and what Shift multiplies it by.
const SPEED_STEP: f32 = 1.25;
const SHIFT_FACTOR: f32 = 4.0;

/// The fly camera: on or off, and how fast it goes.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct FlyCamera {
    pub on: bool,
    /// Scene units per second; set from the model's size when it is first needed.
    pub speed: Option<f32>,
    /// Where the drag that looks around started this frame's step (the cursor, last frame).
    looking_from: Option<Vec2>,
    yaw: f32,
    pitch: f32,
    /// Asked for this frame; applied by [`fly`] where it can read the camera.
    toggle_asked: bool,
}

impl Default for FlyCamera {
    fn default() -> Self {
        Self { on: false, speed: None, looking_from: None, yaw: 0.0, pitch: 0.0, toggle_asked: false }
    }
}

impl FlyCamera {
    pub fn toggle(&mut self) {
        self.toggle_asked = !self.toggle_asked;
    }
}

pub struct FlyPlugin;

/// The flight's systems: the app orders them after whatever frames the camera, so a framing is seen
/// (and ends a flight) in the frame it is asked for.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct FlySystems;

impl Plugin for FlyPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FlyCamera>()
            .add_systems(Update, (fly_keys, fly, walk_the_orbit_target).chain().in_set(FlySystems));
    }
}

const MOVE_KEYS: [KeyCode; 6] =
    [KeyCode::KeyW, KeyCode::KeyA, KeyCode::KeyS, KeyCode::KeyD, KeyCode::KeyQ, KeyCode::KeyE];

/// V toggles; a movement key in orbit mode starts flying (it is what a user tries first); Esc lands.
fn fly_keys(
    keys: Res<ButtonInput<KeyCode>>,
    wants: Res<EguiWantsInput>,
    mut fly: ResMut<FlyCamera>,
    mut viewer: ResMut<Viewer>,
) {
    if wants.wants_keyboard_input() {
        return;
    }
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    if keys.just_pressed(KeyCode::KeyV) && !ctrl {
        fly.toggle();
    }
    if !fly.on && !ctrl && keys.any_just_pressed(MOVE_KEYS) && viewer.current.is_some() {
        fly.toggle_asked = true;
        viewer.notice = Some("a movement key started the fly camera".into());
    }
    if fly.on && keys.just_pressed(KeyCode::Escape) {
        fly.toggle_asked = true;
    }
}

/// Turns fly mode on and off and, while it is on, moves and turns the 3D camera.
#[allow(clippy::too_many_arguments)]
fn fly(
    mut fly: ResMut<FlyCamera>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    scroll: Res<AccumulatedMouseScroll>,
    wants: Res<EguiWantsInput>,
    time: Res<Time<Real>>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut cameras: Query<(&mut PanOrbitCamera, &mut Transform, &Camera), With<ViewCamera>>,
    mut shown: MessageReader<super::scene::ModelShown>,
) {
    let Ok((mut orbit, mut transform, camera)) = cameras.single_mut() else { return };
    if shown.read().any(|s| !s.reload) {
        // Another model may be another size: its first flight takes its own speed.
        fly.speed = None;
    }
    // Framing the model (F, Home, the view keys, a new file) is an orbit move: it ends the flight, and
    // the orbit eases to its framing from where the flight left the camera.
    let framed = fly.on && orbit.force_update;
    if std::mem::take(&mut fly.toggle_asked) || framed {
        fly.on = !fly.on;
        if fly.on {
            let (yaw, pitch, _) = transform.rotation.to_euler(EulerRot::YXZ);
            (fly.yaw, fly.pitch) = (yaw, pitch);
            let framing = orbit.zoom_lower_limit / CLOSEST_SHARE;
            fly.speed.get_or_insert((framing * SPEED_SHARE).max(1e-3));
            orbit.enabled = false;
        } else {
            // Orbit from here, around a point a little ahead, so the wheel goes on from where one is
            // (after a framing, toward the framing's distance).
            let distance = if framed { orbit.target_radius } else { orbit.zoom_lower_limit * 5.0 }.max(1e-3);
            let eye = transform.translation;
            let placement = CameraPlacement { eye, target: eye + transform.forward() * distance };
            let (focus, radius, yaw, pitch) = placement.orbit();
            (orbit.focus, orbit.radius, orbit.yaw, orbit.pitch) = (focus, Some(radius), Some(yaw), Some(pitch));
            if !framed {
                (orbit.target_focus, orbit.target_radius) = (focus, radius);
                (orbit.target_yaw, orbit.target_pitch) = (yaw, pitch);
            }
        }
        fly.looking_from = None;
    }
    if fly.on {
        // The orbit camera writes the transform whenever its targets differ from where it is, enabled
        // or not (it may still be easing, or a hair short of its target): held where it is, it leaves
        // the transform to the flight.
        let (focus, radius, yaw, pitch) = (orbit.focus, orbit.radius, orbit.yaw, orbit.pitch);
        orbit.target_focus = focus;
        if let (Some(radius), Some(yaw), Some(pitch)) = (radius, yaw, pitch) {
            (orbit.target_radius, orbit.target_yaw, orbit.target_pitch) = (radius, yaw, pitch);
        }
    }
    if !fly.on {
        return;
    }
    let cursor = window.single().ok().and_then(Window::cursor_position);
    let in_view = cursor.is_some_and(|c| camera.logical_viewport_rect().is_some_and(|v| v.contains(c)));
    let free = in_view && !wants.wants_pointer_input();
    // A drag that starts in the view turns the camera; one that starts on the panel is the panel's.
    if buttons.any_just_pressed([MouseButton::Left, MouseButton::Right]) && free {
        fly.looking_from = cursor;
    }
    if !buttons.any_pressed([MouseButton::Left, MouseButton::Right]) {
        fly.looking_from = None;
    }
    if let (Some(from), Some(to)) = (fly.looking_from, cursor) {
        let moved = to - from;
        fly.yaw -= moved.x * LOOK_PER_PIXEL;
        fly.pitch = (fly.pitch - moved.y * LOOK_PER_PIXEL).clamp(-1.55, 1.55);
        fly.looking_from = Some(to);
    }
    let notches = wheel_notches(&scroll);
    let mut speed = fly.speed.unwrap_or(1.0);
    if notches != 0.0 && free {
        speed = (speed * SPEED_STEP.powf(notches)).clamp(1e-3, 1e5);
        fly.speed = Some(speed);
    }
    transform.rotation = Quat::from_euler(EulerRot::YXZ, fly.yaw, fly.pitch, 0.0);
    if wants.wants_keyboard_input() {
        return;
    }
    let axis = |plus: KeyCode, minus: KeyCode| f32::from(keys.pressed(plus)) - f32::from(keys.pressed(minus));
    let forward = transform.forward().as_vec3();
    let right = transform.right().as_vec3();
    let step = forward * axis(KeyCode::KeyW, KeyCode::KeyS)
        + right * axis(KeyCode::KeyD, KeyCode::KeyA)
        + Vec3::Y * axis(KeyCode::KeyE, KeyCode::KeyQ);
    let fast = if keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]) { SHIFT_FACTOR } else { 1.0 };
    transform.translation += step.normalize_or_zero() * speed * fast * time.delta_secs();
}

/// This frame's wheel turn in notches (a touchpad's pixels counted a notch per hundred).
fn wheel_notches(scroll: &AccumulatedMouseScroll) -> f32 {
    match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / 100.0,
    }
}

/// The orbit camera's wheel at its closest: the target walks forward by a share of that distance per
/// notch, and the camera with it.
fn walk_the_orbit_target(
    scroll: Res<AccumulatedMouseScroll>,
    fly: Res<FlyCamera>,
    mut cameras: Query<(&mut PanOrbitCamera, &Transform), With<ViewCamera>>,
) {
    let notches = wheel_notches(&scroll);
    if notches <= 0.0 || fly.on {
        return;
    }
    for (mut orbit, transform) in &mut cameras {
        let closest = orbit.zoom_lower_limit;
        // bevy_panorbit_camera zooms in this same frame, after this; once that would go below the
        // closest distance, the target moves instead.
        let zoomed = orbit.target_radius * (1.0 - 0.2 * ZOOM_SENSITIVITY).powf(notches);
        if !orbit.enabled || zoomed > closest {
            continue;
        }
        let forward = transform.forward().as_vec3();
        orbit.target_focus += forward * closest * WALK_PER_NOTCH * notches;
    }
}
