//! What an M2 holds that moves, listed under its header arrays: sequences (id, name, variation,
//! duration, flags), global loops, the bone tree, and the texture transforms, colours, weights,
//! attachments, events, lights and cameras with how many keys each track has.

use bevy_egui::egui;

use crate::formats::m2::track::Track;
use crate::formats::m2::{Animation, M2Model, animation_name};

/// One line per track: its key count and, on a global sequence, which one.
fn keys<T>(track: &Track<T>) -> String {
    let unread = track.is_animated() && track.key_count() == 0;
    match (track.global_sequence, unread) {
        (_, true) => "keys in .anim".to_owned(),
        (Some(g), _) => format!("{} keys, global {g}", track.key_count()),
        (None, _) => format!("{} keys", track.key_count()),
    }
}

fn mono(ui: &mut egui::Ui, text: String) {
    ui.label(egui::RichText::new(text).monospace());
}

pub(super) fn m2_animation(ui: &mut egui::Ui, file: usize, model: &M2Model) {
    let a = &model.animation;
    egui::CollapsingHeader::new(format!("Sequences ({})", a.sequences.len())).id_salt(("sequences", file)).show(
        ui,
        |ui| {
            for (i, s) in a.sequences.iter().enumerate() {
                let name = animation_name(s.id).map_or_else(|| format!("id {}", s.id), str::to_owned);
                let place = if s.in_anim_file { ", in .anim" } else { "" };
                mono(
                    ui,
                    format!(
                        "{i:>3}: {name} ({}.{}) {} ms, flags 0x{:X}{place}",
                        s.id, s.variation, s.duration_ms, s.flags
                    ),
                );
            }
            if !a.global_loops.is_empty() {
                let loops: Vec<String> = a.global_loops.iter().map(|ms| format!("{ms} ms")).collect();
                ui.label(format!("global sequences: {}", loops.join(", ")));
            }
        },
    );
    egui::CollapsingHeader::new(format!("Bones ({})", a.bones.len()))
        .id_salt(("bones", file))
        .show(ui, |ui| bone_tree(ui, a));
    let counted = [
        ("Texture transforms", a.texture_transforms.len()),
        ("Colours", a.colors.len()),
        ("Texture weights", a.texture_weights.len()),
        ("Attachments", a.attachments.len()),
        ("Events", a.events.len()),
        ("Lights", a.lights.len()),
        ("Cameras", a.cameras.len()),
    ];
    for (kind, (title, count)) in counted.into_iter().enumerate() {
        if count == 0 {
            continue;
        }
        egui::CollapsingHeader::new(format!("{title} ({count})")).id_salt(("animated", file, kind)).show(ui, |ui| {
            for line in block_lines(a, kind) {
                mono(ui, line);
            }
        });
    }
    ui.label(format!("particle emitters: {}, ribbon emitters: {}", a.particle_emitters, a.ribbon_emitters));
}

/// Bones indented under their parents, with flags, pivot and their tracks' key counts.
fn bone_tree(ui: &mut egui::Ui, a: &Animation) {
    let n = a.bones.len();
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, bone) in a.bones.iter().enumerate() {
        match bone.parent_index(n).filter(|&p| p != i) {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    // Depth-first from the roots; a bone in a parent loop is reached from none and listed last.
    let mut listed = vec![false; n];
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
    let mut order = Vec::with_capacity(n);
    while let Some((i, depth)) = stack.pop() {
        if std::mem::replace(&mut listed[i], true) {
            continue;
        }
        order.push((i, depth));
        stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
    }
    order.extend((0..n).filter(|&i| !listed[i]).map(|i| (i, 0)));
    for (i, depth) in order {
        let b = &a.bones[i];
        let billboard = b.billboard().map_or(String::new(), |k| format!(" billboard {k:?}"));
        let [x, y, z] = b.pivot;
        mono(
            ui,
            format!(
                "{:indent$}{i}: flags 0x{:X}{billboard}, pivot ({x:.2}, {y:.2}, {z:.2}); t {}, r {}, s {}",
                "",
                b.flags,
                keys(&b.translation),
                keys(&b.rotation),
                keys(&b.scale),
                indent = depth * 2
            ),
        );
    }
}

/// The lines of one kind of animated block (in the order [`m2_animation`] counts them).
fn block_lines(a: &Animation, kind: usize) -> Vec<String> {
    match kind {
        0 => a
            .texture_transforms
            .iter()
            .enumerate()
            .map(|(i, t)| {
                format!("{i}: move {}, turn {}, scale {}", keys(&t.translation), keys(&t.rotation), keys(&t.scaling))
            })
            .collect(),
        1 => a
            .colors
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{i}: rgb {}, alpha {}", keys(&c.color), keys(&c.alpha)))
            .collect(),
        2 => a.texture_weights.iter().enumerate().map(|(i, w)| format!("{i}: {}", keys(w))).collect(),
        3 => a
            .attachments
            .iter()
            .enumerate()
            .map(|(i, at)| format!("{i}: id {} on bone {}, visible {}", at.id, at.bone, keys(&at.animate)))
            .collect(),
        4 => a
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let tag = String::from_utf8_lossy(&e.identifier).into_owned();
                format!("{i}: {tag:?} data {} on bone {}, fires {}", e.data, e.bone, keys(&e.enabled))
            })
            .collect(),
        5 => a
            .lights
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let kind = if l.kind == 0 { "directional" } else { "point" };
                format!(
                    "{i}: {kind} on bone {}, diffuse {}, visible {}",
                    l.bone,
                    keys(&l.diffuse_color),
                    keys(&l.visibility)
                )
            })
            .collect(),
        _ => a
            .cameras
            .iter()
            .enumerate()
            .map(|(i, c)| {
                // From version 272 the field of view is a track.
                let fov = if !c.field_of_view_keys.is_animated() {
                    format!("{:.2}", c.field_of_view)
                } else {
                    keys(&c.field_of_view_keys)
                };
                format!(
                    "{i}: type {}, fov {fov}, positions {}, targets {}",
                    c.kind,
                    keys(&c.positions),
                    keys(&c.targets)
                )
            })
            .collect(),
    }
}

/// The panel's copy of the playback state; the app writes back what the user changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    pub clock: crate::plugin::M2Clock,
    /// Something in the file moves.
    pub moves: bool,
    /// For a model opened on its own: its sequences (label, seconds), and the one playing.
    pub sequences: Vec<(String, f64)>,
    pub playing: Option<usize>,
    /// What reading the `.anim` files of the sequences played so far found wrong.
    pub warnings: Vec<String>,
}

impl Playback {
    /// The panel's view of `model`'s motions and the clock.
    pub fn of(
        model: &crate::plugin::ModelAsset,
        motions: &bevy::asset::Assets<crate::plugin::M2Motion>,
        clock: crate::plugin::M2Clock,
    ) -> Self {
        let mut out = Self {
            clock,
            moves: !model.motions.is_empty(),
            sequences: Vec::new(),
            playing: None,
            warnings: Vec::new(),
        };
        // Only a model opened on its own chooses its sequence; a WMO's doodads play Stand.
        let standalone = crate::viewer::animation::opened_motion(model, motions).and_then(|h| motions.get(&h));
        if let Some((motion, m2)) = standalone.and_then(|m| Some((m, m.model()?))) {
            out.sequences = m2
                .animation
                .sequences
                .iter()
                .map(|s| {
                    let name = animation_name(s.id).map_or_else(|| format!("id {}", s.id), str::to_owned);
                    (format!("{name} ({}.{})", s.id, s.variation), f64::from(s.duration_ms) / 1000.0)
                })
                .collect();
            out.playing = motion.playing();
            out.warnings.clone_from(&motion.warnings);
        }
        out
    }

    fn duration(&self) -> Option<f64> {
        self.playing.and_then(|p| self.sequences.get(p)).map(|(_, seconds)| *seconds)
    }
}

/// Play, pause, speed, time and loop for every moving model; the sequence list for one opened alone.
pub(super) fn playback_section(ui: &mut egui::Ui, playback: &mut Playback) {
    if !playback.moves {
        return;
    }
    let duration = playback.duration();
    egui::CollapsingHeader::new("Animation").default_open(true).show(ui, |ui| {
        let clock = &mut playback.clock;
        ui.horizontal(|ui| {
            ui.checkbox(&mut clock.enabled, "animate").on_hover_text("off: every model at rest");
            let label = if clock.playing { "⏸ pause" } else { "▶ play" };
            if ui.button(label).clicked() {
                clock.playing = !clock.playing;
                if clock.playing && clock.stop_at.is_some_and(|end| clock.seconds >= end) {
                    clock.seconds = 0.0;
                }
            }
            ui.add(egui::Slider::new(&mut clock.speed, 0.0..=4.0).text("speed"));
        });
        let span = duration.filter(|&d| d > 0.0).unwrap_or(60.0);
        // The slider shows the time within the sequence; a global-sequence loop runs on its own.
        let mut within = clock.seconds % span;
        if ui.add(egui::Slider::new(&mut within, 0.0..=span).text("s").max_decimals(3)).changed() {
            clock.seconds = within;
        }
        if let Some(duration) = duration {
            let mut looping = clock.stop_at.is_none();
            if ui.checkbox(&mut looping, "loop").changed() {
                clock.stop_at = (!looping).then_some(duration);
                clock.seconds = within;
            }
        }
        for (i, (name, seconds)) in playback.sequences.iter().enumerate() {
            let selected = playback.playing == Some(i);
            let text = egui::RichText::new(format!("{i:>2}: {name}  {seconds:.2} s")).monospace();
            if ui.add(egui::Button::selectable(selected, text)).clicked() && !selected {
                playback.playing = Some(i);
            }
        }
        for warning in &playback.warnings {
            ui.colored_label(egui::Color32::YELLOW, warning);
        }
    });
}
