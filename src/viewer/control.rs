//! A scripting hook for tests and automation: with `LWO_WMO_VIEWER_CONTROL=DIR`, the window reads
//! commands appended to `DIR/commands`, one per line, and keeps `DIR/status.json` up to date.
//!
//! - `drop PATH`: the same `FileDragAndDrop` message a real drop onto the window produces;
//! - `screenshot PATH`: saves the window as PNG; `screenshot-view [PATH]`: the 3D view alone, as F12
//!   (no path: beside the model) and File ▸ Save screenshot… do; `screenshot-size WxH|view`: the size
//!   of those, as File ▸ Screenshot size;
//! - `view OPTION on|off` (wireframe, normals, grid, axes, culling, unlit, watch, portal-culling),
//!   `select N|none` and `part N on|off`: the panel's view options, part selection and part checkboxes;
//! - `pick X Y`: picks the triangle at window pixel (X, Y), as a click there does;
//! - `export PATH`: File ▸ Export to PATH (`.glb` or `.gltf`), without the dialog;
//! - `morph NAME WEIGHT`: sets a morph's weight, as its slider in the panel does;
//! - `texture-choice N CHOICE`: draws replaceable texture N with the BLP CHOICE of those beside the
//!   model, as the panel's Replaceable textures list does;
//! - `browse`, `browser-filter TEXT`, `browser-kind all|wmo|m2|blp`, `browser-open ROW`: the game data
//!   browser (File ▸ Browse game data), its filters, and a click on a row of its list;
//!   `open-recent N`: File ▸ Recent's entry N;
//! - `animation ID|NAME`, `time SECONDS`, `play`, `pause`: the M2 sequence the model opened on its own
//!   plays (as `--animation`), the clock's time, and playing it, as the panel's Animation section;
//!   `view animate on|off` turns all M2 animation on or off;
//! - `texture LEVEL [alpha]`: for a texture opened on its own, the mip level shown and its alpha
//!   channel alone, as the panel's Texture section;
//! - `cancel`: stops the load in progress, as Esc does;
//! - `quit`: exits.
//!
//! The status is `{"frame", "shown", "loading", "error", "screenshots", "pick", "view", "parts",
//! "animation", …}` (`animation`: seconds, playing, speed, enabled, and the opened model's sequence)
//! (`view` the view options and selected part, `parts` each part's checkbox), `pick` being the
//! picked triangle's heading, file, chunk, record, bytes, decoded fields and doodad, or null.

use std::path::PathBuf;

use bevy::app::AppExit;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::window::{FileDragAndDrop, PrimaryWindow};

use super::overlays::ViewOptions;
use super::panel::PanelState;
use super::picking::PickRequest;
use super::scene::Viewer;

pub const CONTROL_ENV: &str = "LWO_WMO_VIEWER_CONTROL";

#[derive(Resource)]
pub struct ControlChannel {
    dir: PathBuf,
    lines_done: usize,
    last_state: serde_json::Value,
    screenshots: Vec<String>,
}

impl ControlChannel {
    pub fn from_env() -> Option<Self> {
        let dir = PathBuf::from(std::env::var_os(CONTROL_ENV)?);
        Some(Self { dir, lines_done: 0, last_state: serde_json::Value::Null, screenshots: Vec::new() })
    }
}

#[derive(Component)]
struct ControlScreenshot(String);

pub fn poll_control(
    mut commands: Commands,
    mut channel: ResMut<ControlChannel>,
    mut drops: MessageWriter<FileDragAndDrop>,
    mut exit: MessageWriter<AppExit>,
    window: Query<Entity, With<PrimaryWindow>>,
    mut viewer: ResMut<Viewer>,
    frames: Res<bevy::diagnostic::FrameCount>,
    mut options: ResMut<ViewOptions>,
    mut picks: MessageWriter<PickRequest>,
    mut panel: Option<ResMut<PanelState>>,
    pick_count: Option<Res<super::picking::PickCount>>,
    cameras: Query<(&Camera, &GlobalTransform), With<super::camera::ViewCamera>>,
    (window_scale, orbits): (Query<&Window, With<PrimaryWindow>>, Query<&bevy_panorbit_camera::PanOrbitCamera>),
    (mut export, mut toggles, mut morphs, mut shots): (
        Option<ResMut<super::export::WindowExport>>,
        ResMut<super::scene::ViewToggles>,
        ResMut<super::morphs::MorphControls>,
        MessageWriter<super::screenshot::TakeScreenshot>,
    ),
    (models, watch, mut culling, mut camera_request, fly, mut texture_view): (
        Res<Assets<crate::plugin::ModelAsset>>,
        Option<Res<super::watch::FileWatch>>,
        ResMut<super::culling::PortalCulling>,
        Option<ResMut<super::window::CameraRequest>>,
        Option<Res<super::fly::FlyCamera>>,
        Option<ResMut<super::texture_view::TextureView>>,
    ),
    (mut browser, switch, asset_server, mut wmo_materials, (mut clock, mut motions)): (
        Option<ResMut<super::browser::ArchiveBrowser>>,
        Option<Res<super::browser::GameDataSwitch>>,
        Res<AssetServer>,
        ResMut<Assets<crate::plugin::WmoMaterial>>,
        (ResMut<crate::plugin::M2Clock>, ResMut<Assets<crate::plugin::M2Motion>>),
    ),
) {
    let text = std::fs::read_to_string(channel.dir.join("commands")).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    // A line without its newline yet may still be being written.
    let complete = if text.ends_with('\n') { lines.len() } else { lines.len().saturating_sub(1) };
    for line in lines.iter().take(complete).skip(channel.lines_done) {
        let (verb, arg) = line.split_once(' ').unwrap_or((line, ""));
        match verb {
            "drop" => {
                if let Ok(window) = window.single() {
                    drops.write(FileDragAndDrop::DroppedFile { window, path_buf: PathBuf::from(arg) });
                }
            }
            "screenshot" => {
                let path = arg.to_owned();
                commands
                    .spawn((Screenshot::primary_window(), ControlScreenshot(path.clone())))
                    .observe(save_to_disk(path))
                    .observe(
                        |captured: On<ScreenshotCaptured>,
                         shots: Query<&ControlScreenshot>,
                         mut channel: ResMut<ControlChannel>| {
                            if let Ok(shot) = shots.get(captured.entity) {
                                channel.screenshots.push(shot.0.clone());
                            }
                        },
                    );
            }
            // The 3D view alone, as F12 and File ▸ Save screenshot… write it (no path: beside the model).
            "screenshot-size" => {
                if let Some(panel) = panel.as_mut() {
                    panel.screenshot_size = if arg == "view" { None } else { super::cli::parse_resolution(arg).ok() };
                }
            }
            "screenshot-view" => {
                shots.write(super::screenshot::TakeScreenshot((!arg.is_empty()).then(|| PathBuf::from(arg))));
            }
            "view" => {
                let (option, state) = arg.split_once(' ').unwrap_or((arg, "on"));
                let on = state != "off";
                match option {
                    "wireframe" => options.wireframe = on,
                    "normals" => options.normals = on,
                    "grid" => options.grid = on,
                    "axes" => options.axes = on,
                    "culling" => options.backface_culling = on,
                    "unlit" => options.unlit = on,
                    "watch" => options.watch = on,
                    "portal-culling" => culling.enabled = on,
                    "animate" => clock.enabled = on,
                    _ => warn!("{CONTROL_ENV}: unknown view option {option:?}"),
                }
            }
            "select" => options.selected_part = arg.parse().ok(),
            // `part N on|off`: the panel's checkbox of part N (a layer, group or texture unit).
            "part" => {
                let (index, state) = arg.split_once(' ').unwrap_or((arg, "on"));
                match index.parse::<usize>().ok().and_then(|i| toggles.parts.get_mut(i)) {
                    Some(visible) => *visible = state != "off",
                    None => warn!("{CONTROL_ENV}: no part {index:?}"),
                }
            }
            // `camera EYE:TARGET`, as `--camera` takes it.
            "camera" => match (super::camera::parse_camera(arg.trim()), camera_request.as_mut()) {
                (Ok(placement), Some(request)) => request.0 = Some(placement),
                (Err(e), _) => warn!("{CONTROL_ENV}: camera: {e}"),
                (Ok(_), None) => {}
            },
            "pick" => {
                // Window pixels, as a screenshot counts them; the picker works in logical pixels.
                let scale = window_scale.single().map_or(1.0, |w| w.scale_factor());
                let mut xy = arg.split_whitespace().filter_map(|v| v.parse::<f32>().ok());
                match (xy.next(), xy.next()) {
                    (Some(x), Some(y)) => {
                        picks.write(PickRequest(Vec2::new(x, y) / scale));
                    }
                    _ => warn!("{CONTROL_ENV}: pick needs X Y, got {arg:?}"),
                }
            }
            "export" => match (export.as_mut(), &viewer.current_path) {
                (Some(export), Some(file)) => {
                    let shown = super::export::ExportRequest {
                        file: file.clone(),
                        data: viewer.data_for_current(),
                        doodad_set: toggles.doodad_set,
                        morph_weights: morphs.weights.clone().into_iter().collect(),
                        listfile: viewer.listfile.as_ref().map(|(_, list)| list.clone()),
                    };
                    export.start(shown, PathBuf::from(arg));
                }
                _ => warn!("{CONTROL_ENV}: export needs a shown file"),
            },
            "morph" => {
                // The name may hold spaces; the weight is the last word.
                let set = arg.rsplit_once(' ').ok_or_else(|| format!("morph needs NAME WEIGHT, got {arg:?}")).and_then(
                    |(name, weight)| {
                        let weight: f32 = weight.parse().map_err(|e| format!("morph {name}: {weight}: {e}"))?;
                        morphs.set(name, weight)
                    },
                );
                if let Err(e) = set {
                    warn!("{CONTROL_ENV}: {e}");
                }
            }
            "texture-choice" => {
                let numbers: Vec<usize> = arg.split_whitespace().filter_map(|n| n.parse().ok()).collect();
                let done = match (numbers.as_slice(), panel.as_mut()) {
                    ([texture, choice], Some(panel)) => {
                        super::scene::choose_texture(&viewer, &models, &mut wmo_materials, panel, *texture, *choice)
                    }
                    _ => false,
                };
                if !done {
                    warn!("{CONTROL_ENV}: {line:?}: no such replaceable texture or choice");
                }
            }
            "browse" => {
                if let (Some(browser), Some(switch)) = (browser.as_mut(), switch.as_ref()) {
                    let source = super::browser::browse_source(switch, browser, viewer.current_path.as_deref());
                    browser.show(source);
                }
            }
            "browser-filter" => {
                if let Some(browser) = browser.as_mut() {
                    browser.filter = arg.to_owned();
                    browser.refilter();
                }
            }
            "browser-kind" => {
                if let (Some(browser), Some(kind)) = (browser.as_mut(), super::browser::KindFilter::parse(arg)) {
                    browser.kind = kind;
                    browser.refilter();
                }
            }
            "browser-open" => {
                let source = switch.as_ref().and_then(|s| s.0.get());
                if let (Some(browser), Some(_), Ok(row)) = (browser.as_mut(), source, arg.trim().parse::<usize>())
                    && let Err(e) = super::browser::open_row(browser, row, &mut viewer, &asset_server)
                {
                    viewer.notice = Some(e);
                }
            }
            "texture" => {
                let (level, channel) = arg.split_once(' ').unwrap_or((arg, ""));
                if let (Some(view), Ok(level)) = (texture_view.as_mut(), level.trim().parse::<usize>()) {
                    (view.level, view.alpha_only) = (level, channel.trim() == "alpha");
                }
            }
            "open-recent" => {
                let entry = panel
                    .as_ref()
                    .and_then(|p| arg.trim().parse::<usize>().ok().and_then(|n| p.recent.get(n).cloned()));
                if let Some(entry) = entry {
                    super::browser::open_recent(&mut viewer, &asset_server, switch.as_deref(), &entry);
                }
            }
            // Esc while a model loads: the load stops, the model shown stays.
            "cancel" => viewer.cancel(),
            "quit" => {
                exit.write(AppExit::Success);
            }
            verb => {
                let model = viewer.current.as_ref().and_then(|h| models.get(h));
                if !super::animation::control_command(verb, arg, model, &mut motions, &mut clock) {
                    warn!("{CONTROL_ENV}: unknown command {line:?}");
                }
            }
        }
    }
    channel.lines_done = complete.max(channel.lines_done);
    let state = serde_json::json!({
        "shown": viewer.current_path.as_ref().map(|p| p.display().to_string()),
        "loading": viewer.pending.is_some(),
        "error": viewer.error,
        "screenshots": channel.screenshots,
        "pick": panel.as_ref().and_then(|p| p.picked.as_ref()).map(|p| p.to_json()),
        "hex": panel.as_ref().map(|p| serde_json::json!({ "offset": p.hex_base, "bytes": p.hex.len() })),
        "picks": pick_count.map_or(0, |c| c.0),
        "camera": camera_state(&cameras, orbits.iter().next()),
        "fly": fly.as_ref().map(|f| serde_json::json!({ "on": f.on, "speed": f.speed })),
        "panel": panel.as_ref().map(|p| serde_json::json!({ "hidden": p.panel_hidden, "right": p.panel_right })),
        "export": export.as_ref().and_then(|e| e.status.clone()),
        "morphs": morphs.weights,
        "notice": viewer.notice,
        "shown_count": viewer.shown_count,
        "progress": viewer.pending.as_ref().map(|p| p.progress.snapshot()).map(|(stage, done, total)| serde_json::json!({ "stage": stage, "done": done, "total": total })),
        "view": serde_json::json!({
            "wireframe": options.wireframe,
            "normals": options.normals,
            "grid": options.grid,
            "axes": options.axes,
            "culling": options.backface_culling,
            "unlit": options.unlit,
            "selected_part": options.selected_part,
        }),
        "parts": toggles.parts,
        "animation": super::animation::status(viewer.current.as_ref().and_then(|h| models.get(h)), &motions, &clock),
        "triangles": viewer.current.as_ref().and_then(|h| models.get(h)).map(|m| m.description.stats.triangles),
        "portal_culling": serde_json::json!({
            "enabled": culling.enabled,
            "drawn": culling.seen.as_ref().map(|s| (0..s.groups.len()).filter(|&g| s.groups[g]).collect::<Vec<_>>()),
            "camera_in": culling.seen.as_ref().map(|s| s.camera_in.clone()),
            "interiors_from_outside": culling.interiors_from_outside,
            "hidden_doodads": culling.seen.as_ref().map(|s| (0..s.doodads.len()).filter(|&d| !s.doodads[d]).collect::<Vec<_>>()),
        }),
        "watching": watch.as_ref().map(|w| w.followed()),
        "recent": panel.as_ref().map(|p| p.recent.iter().map(|r| r.display().to_string()).collect::<Vec<_>>()),
        "texture": super::texture_view::shown_texture(&viewer, &models).and_then(|m| {
            let view = texture_view.as_deref().copied().unwrap_or_default();
            let document = m.description.files.first()?.document.as_deref()?;
            let crate::formats::Model::Blp(info) = &document.model else { return None };
            let mut status = serde_json::to_value(info).ok()?;
            status["format"] = info.format_name().into();
            status["level"] = view.level.into();
            status["alpha_only"] = view.alpha_only.into();
            Some(status)
        }),
        "browser": browser.as_ref().filter(|b| b.open).map(|b| serde_json::json!({
            "source": b.source_name,
            "filter": b.filter,
            "listing": b.listing(),
            "entries": b.entries.len(),
            "shown": b.shown.iter().take(20).map(|&i| b.entries[i].label.clone()).collect::<Vec<_>>(),
            "shown_count": b.shown.len(),
        })),
        "replaceable_textures": viewer.current.as_ref().and_then(|h| models.get(h)).map(|m| {
            m.description.replaceable_textures.iter().enumerate().map(|(i, r)| serde_json::json!({
                "texture": r.texture,
                "type": r.kind,
                "choices": r.choices.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
                "chosen": panel.as_ref().and_then(|p| p.texture_choices.get(i).copied()).unwrap_or(0),
            })).collect::<Vec<_>>()
        }),
    });
    // Written when something changed, and every 30 frames so a reader sees the app is alive.
    if state != channel.last_state || frames.0.is_multiple_of(30) {
        let mut status = state.clone();
        status["frame"] = frames.0.into();
        let tmp = channel.dir.join("status.json.tmp");
        if std::fs::write(&tmp, status.to_string())
            .and_then(|()| std::fs::rename(&tmp, channel.dir.join("status.json")))
            .is_ok()
        {
            channel.last_state = state;
        }
    }
}

/// The 3D camera's clip-from-world matrix (column-major) and its viewport in logical pixels, so a
/// script can find where a point of the scene is drawn and pick there.
fn camera_state(
    cameras: &Query<(&Camera, &GlobalTransform), With<super::camera::ViewCamera>>,
    orbit: Option<&bevy_panorbit_camera::PanOrbitCamera>,
) -> serde_json::Value {
    let Ok((camera, transform)) = cameras.single() else { return serde_json::Value::Null };
    let clip_from_world = camera.clip_from_view() * transform.to_matrix().inverse();
    let viewport = camera.logical_viewport_rect().map(|r| [r.min.x, r.min.y, r.width(), r.height()]);
    let eye = transform.translation().to_array();
    let forward = transform.forward().to_array();
    let focus = orbit.map(|o| o.target_focus.to_array());
    serde_json::json!({
        "clip_from_world": clip_from_world.to_cols_array(),
        "viewport": viewport,
        "eye": eye,
        "forward": forward,
        "focus": focus,
    })
}
