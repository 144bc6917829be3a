//! Moving about a model and the panel beside it as a user does, with real pointer and key events
//! (XTest): the fly camera, the wheel that walks into a building, the panel put away and resized.

use std::time::Duration;

use super::app::*;
use super::xserver::XServer;
use crate::support::{asset, scratch};

const MINUTE: Duration = Duration::from_secs(90);

fn vec3(value: &serde_json::Value) -> [f32; 3] {
    std::array::from_fn(|i| value[i].as_f64().unwrap_or(f64::NAN) as f32)
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    std::array::from_fn(|i| a[i] - b[i])
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|i| a[i] * b[i]).sum()
}

fn length(a: [f32; 3]) -> f32 {
    dot(a, a).sqrt()
}

/// Starts the app on the courtyard on `x` and waits until it shows and its camera has come to rest.
fn start_on_courtyard(x: &XServer, name: &str) -> (std::path::PathBuf, RunningApp) {
    let dir = scratch(name);
    let wmo = asset("courtyard.wmo");
    let child = start_on(x, &dir, &wmo);
    let path = wmo.display().to_string();
    wait_for(&dir, "the WMO to show", MINUTE, |s| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false);
    settle(&dir);
    (dir, child)
}

/// Waits until the camera has stayed where it is for more than 30 frames. Counting frames, not time:
/// on a loaded machine one frame can take longer than any fixed wait, and the camera may still be
/// easing. The app writes its status when something changes and every 30 frames besides.
fn settle(dir: &std::path::Path) -> serde_json::Value {
    let mut since: Option<(serde_json::Value, u64)> = None;
    wait_for(dir, "the camera to come to rest", MINUTE, |s| {
        let frame = s["frame"].as_u64().unwrap_or(0);
        let still = match &since {
            Some((camera, first)) if *camera == s["camera"] => frame > first + 30,
            _ => {
                since = Some((s["camera"].clone(), frame));
                false
            }
        };
        std::thread::sleep(Duration::from_millis(200));
        still && !s["camera"].is_null()
    })
}

/// V starts the fly camera; W held moves it along the view, a drag to the right turns it right, the
/// wheel raises its speed, Esc goes back to orbiting; W pressed while orbiting starts flying and says so.
#[test]
fn the_fly_camera_moves_with_wasd_turns_with_a_drag_and_lands_with_esc() {
    let x = XServer::start();
    let (dir, child) = start_on_courtyard(&x, "window-fly");
    let start = status(&dir);
    let (eye0, forward0) = (vec3(&start["camera"]["eye"]), vec3(&start["camera"]["forward"]));
    x.act(&["focus", "move:900:400", "key:v"]);
    wait_for(&dir, "fly mode", MINUTE, |s| s["fly"]["on"] == true);
    x.act(&["keydown:w", "sleep:1.5", "keyup:w"]);
    let s = settle(&dir);
    let moved = sub(vec3(&s["camera"]["eye"]), eye0);
    assert!(length(moved) > 0.1, "W moved nothing: {s}");
    assert!(dot(moved, forward0) > 0.99 * length(moved), "W moves along the view: {moved:?} vs {forward0:?}");

    let picks = s["picks"].as_u64();
    x.act(&["move:900:400", "down:1", "sleep:0.6", "move:960:400", "sleep:0.6", "move:1020:400", "sleep:0.6", "up:1"]);
    let s = settle(&dir);
    let forward1 = vec3(&s["camera"]["forward"]);
    // The view's right: forward × up.
    let right0 = [-forward0[2], 0.0, forward0[0]];
    assert!(dot(forward1, right0) > 0.05, "a drag to the right turns right: {forward0:?} → {forward1:?}");
    assert_eq!(s["picks"].as_u64(), picks, "a drag is no pick");

    let speed = s["fly"]["speed"].as_f64().unwrap();
    x.act(&["click:4", "sleep:0.3"]);
    wait_for(&dir, "a faster flight", MINUTE, |s| s["fly"]["speed"].as_f64().is_some_and(|v| v > speed));

    x.act(&["key:Escape"]);
    wait_for(&dir, "orbiting again", MINUTE, |s| s["fly"]["on"] == false);
    x.act(&["key:w"]);
    let s = wait_for(&dir, "W to start flying", MINUTE, |s| s["fly"]["on"] == true);
    assert!(s["notice"].as_str().is_some_and(|n| n.contains("fly camera")), "{s}");
    quit(&dir, child);
}

/// The orbit camera's wheel goes on past the point it orbits: the target walks forward, so the camera
/// ends up farther along the view than the target was (it used to stall in front of it).
#[test]
fn the_wheel_walks_through_the_model_instead_of_stalling_at_the_target() {
    let x = XServer::start();
    let (dir, child) = start_on_courtyard(&x, "window-wheel");
    let start = status(&dir);
    let (eye0, forward0) = (vec3(&start["camera"]["eye"]), vec3(&start["camera"]["forward"]));
    let to_target = length(sub(vec3(&start["camera"]["focus"]), eye0));
    let mut steps = vec!["move:900:400"];
    steps.extend(std::iter::repeat_n("click:4", 60));
    x.act(&steps);
    let s = settle(&dir);
    let travelled = dot(sub(vec3(&s["camera"]["eye"]), eye0), forward0);
    assert!(travelled > to_target, "the camera went {travelled} along the view; the target was {to_target} away");
    assert_eq!(s["fly"]["on"], false);
    quit(&dir, child);
}

/// N puts the panel away (the 3D view takes the window) and brings it back; its edge can be dragged
/// from a few pixels beside it, which resizes the panel and does not orbit the camera.
#[test]
fn the_panel_goes_away_with_n_and_resizes_from_a_wide_edge_without_orbiting() {
    let x = XServer::start();
    let (dir, child) = start_on_courtyard(&x, "window-panel-edge");
    let s = status(&dir);
    let right = s["panel"]["right"].as_f64().unwrap();
    assert_eq!(s["camera"]["viewport"][0].as_f64(), Some(right), "{s}");
    x.act(&["focus", "move:900:400", "key:n"]);
    wait_for(&dir, "the panel away", MINUTE, |s| s["panel"]["hidden"] == true && s["camera"]["viewport"][0] == 0.0);
    x.act(&["key:n"]);
    wait_for(&dir, "the panel back", MINUTE, |s| {
        s["panel"]["hidden"] == false && s["camera"]["viewport"][0].as_f64() == Some(right)
    });
    let before = settle(&dir);
    // 6 px right of the edge: outside egui's own 3 px grab, inside the panel's.
    let grab = format!("move:{}:400", right as u32 + 6);
    x.act(&[&grab, "down:1", "sleep:0.6", "move:520:400", "sleep:0.6", "move:600:400", "sleep:0.6", "up:1"]);
    wait_for(&dir, "the wider panel", MINUTE, |s| {
        s["panel"]["right"].as_f64().is_some_and(|r| (r - 600.0).abs() < 12.0)
    });
    let after = settle(&dir);
    assert_eq!(after["camera"]["eye"], before["camera"]["eye"], "the drag orbited the camera");
    quit(&dir, child);
}
