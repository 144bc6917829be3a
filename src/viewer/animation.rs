//! `--animation` and `--time`: which sequence the model opened on its own plays, and where the one
//! M2 clock starts. For an image or a batch the clock then stands still there, so the same time
//! always gives the same frame.

use bevy::prelude::*;

use crate::plugin::{M2Clock, M2Motion, ModelAsset};

use super::scene::{ModelShown, Viewer};

#[derive(Resource, Clone, Debug, Default)]
pub struct AnimationStart {
    /// `--animation ID|NAME`.
    pub sequence: Option<String>,
    /// `--time SECONDS`.
    pub time: Option<f64>,
    /// Images and batches: the clock does not run.
    pub still: bool,
}

/// On each newly shown model (not a reload, which keeps the playback).
pub fn apply_animation_start(
    mut shown: MessageReader<ModelShown>,
    start: Res<AnimationStart>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    mut motions: ResMut<Assets<M2Motion>>,
    mut clock: ResMut<M2Clock>,
) {
    for event in shown.read() {
        if event.reload {
            continue;
        }
        *clock = M2Clock { seconds: start.time.unwrap_or(0.0), playing: !start.still, ..M2Clock::default() };
        let (Some(spec), Some(model)) = (&start.sequence, viewer.current.as_ref().and_then(|h| models.get(h))) else {
            continue;
        };
        let Some(mut motion) = opened_motion(model, &motions).and_then(|h| motions.get_mut(&h)) else {
            warn!("--animation {spec}: the file shown is not a moving M2 opened on its own");
            continue;
        };
        let Some(animation) = motion.model().map(|m| &m.animation) else { continue };
        match crate::animation::find_sequence(animation, spec) {
            Ok(sequence) => motion.sequence = Some(sequence),
            Err(message) => warn!("--animation: {message}"),
        }
    }
}

/// The motion of the file opened itself (an M2 on its own), not of a WMO's doodads.
pub fn opened_motion(model: &ModelAsset, motions: &Assets<M2Motion>) -> Option<Handle<M2Motion>> {
    model.motions.iter().find(|h| motions.get(*h).is_some_and(|m| m.file == 0)).cloned()
}

/// The control hook's `animation`, `time`, `play` and `pause`; `false` for another verb.
pub fn control_command(
    verb: &str,
    arg: &str,
    model: Option<&ModelAsset>,
    motions: &mut Assets<M2Motion>,
    clock: &mut M2Clock,
) -> bool {
    match verb {
        "play" => clock.playing = true,
        "pause" => clock.playing = false,
        "time" => match super::cli::parse_time(arg) {
            Ok(seconds) => clock.seconds = seconds,
            Err(e) => warn!("time: {e}"),
        },
        "animation" => {
            let motion = model.and_then(|m| opened_motion(m, motions)).and_then(|h| motions.get_mut(&h));
            let Some(mut motion) = motion else {
                warn!("animation: the file shown is not a moving M2 opened on its own");
                return true;
            };
            let Some(animation) = motion.model().map(|m| &m.animation) else { return true };
            match crate::animation::find_sequence(animation, arg) {
                Ok(sequence) => {
                    motion.sequence = Some(sequence);
                    clock.seconds = 0.0;
                }
                Err(message) => warn!("animation: {message}"),
            }
        }
        _ => return false,
    }
    true
}

/// The control hook's status of the animation: the clock, and the sequence the opened model plays.
pub fn status(model: Option<&ModelAsset>, motions: &Assets<M2Motion>, clock: &M2Clock) -> serde_json::Value {
    let motion = model.and_then(|m| opened_motion(m, motions)).and_then(|h| motions.get(&h));
    let sequence = motion.and_then(|m| Some((m.playing()?, m.model()?)));
    serde_json::json!({
        "seconds": clock.seconds,
        "playing": clock.playing,
        "speed": clock.speed,
        "enabled": clock.enabled,
        "motions": model.map_or(0, |m| m.motions.len()),
        "sequence": sequence.map(|(s, _)| s),
        "sequence_id": sequence.and_then(|(s, m)| m.animation.sequences.get(s)).map(|s| s.id),
    })
}
