//! `--output`: render one frame into an image without a window (lavapipe works), save it, exit.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::app::{AppExit, ScheduleRunnerPlugin};
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::render_resource::{PipelineCache, TextureFormat};
use bevy::render::{Render, RenderApp, RenderPlugin, RenderSystems};
use bevy::render::view::screenshot::{save_to_disk, Screenshot, ScreenshotCaptured};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy::world_serialization::WorldInstanceReady;

use super::camera::{frame, near_far, orbit_transform, yaw_pitch, FOV_Y};
use super::cli::Args;
use super::scene::{ModelShown, ShownScene, ViewToggles, Viewer, ViewerScenePlugin};
use crate::plugin::ModelAsset;

/// Frames rendered after the scene is in place, with no pipeline still compiling, before the capture:
/// meshes and textures reach the GPU a frame or two after their entities appear.
const SETTLE_FRAMES: usize = 4;

/// Shared with the render world: pipelines still compiling, and frames rendered so far.
#[derive(Resource, Clone, Default)]
struct RenderProgress(Arc<(AtomicUsize, AtomicUsize)>);

fn report_render_progress(cache: Res<PipelineCache>, progress: Res<RenderProgress>) {
    progress.0 .0.store(cache.waiting_pipelines().count(), Ordering::Relaxed);
    progress.0 .1.fetch_add(1, Ordering::Relaxed);
}

/// `--measure-frames`: per frame, the CPU spans of the main world (First → Last), of the render world's
/// preparation (extract → bind groups ready) and of its render graph (encoding and submission, where
/// lavapipe also rasterizes), and the wall time between frames from Bevy's frame-time diagnostics.
#[derive(Resource, Default)]
struct FrameMeasurement {
    wanted: usize,
    main_started: Option<Instant>,
    main_spans: Vec<f64>,
    render_spans: Arc<Mutex<RenderSpans>>,
    first_frame_reported: bool,
    measuring: bool,
}

#[derive(Default)]
struct RenderSpans {
    started: Option<Instant>,
    prepared: Option<Instant>,
    prepare: Vec<f64>,
    graph: Vec<f64>,
}

#[derive(Resource, Clone)]
struct SharedRenderSpans(Arc<Mutex<RenderSpans>>);

fn render_span_start(spans: Res<SharedRenderSpans>) {
    if let Ok(mut spans) = spans.0.lock() {
        spans.started = Some(Instant::now());
    }
}

fn render_span_prepared(spans: Res<SharedRenderSpans>) {
    if let Ok(mut spans) = spans.0.lock() {
        if let Some(started) = spans.started.take() {
            spans.prepare.push(started.elapsed().as_secs_f64() * 1e3);
            spans.prepared = Some(Instant::now());
        }
    }
}

fn render_span_end(spans: Res<SharedRenderSpans>) {
    if let Ok(mut spans) = spans.0.lock() {
        if let Some(prepared) = spans.prepared.take() {
            spans.graph.push(prepared.elapsed().as_secs_f64() * 1e3);
        }
    }
}

fn main_span_start(mut measurement: ResMut<FrameMeasurement>) {
    measurement.main_started = Some(Instant::now());
}

fn main_span_end(mut measurement: ResMut<FrameMeasurement>) {
    if let Some(started) = measurement.main_started.take() {
        if measurement.measuring {
            measurement.main_spans.push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 }
}

#[derive(Resource)]
struct Capture {
    args: Args,
    target: Handle<Image>,
    /// Rendered-frame count when the scene instance was ready.
    ready_at: Option<usize>,
    requested: bool,
}

pub fn run(args: Args) -> ExitCode {
    let Some(file) = args.file.clone() else {
        eprintln!("--output needs a FILE");
        return ExitCode::from(2);
    };
    // Parse first so a bad file fails fast with the file, chunk and offset, before any GPU work.
    if let Err(e) = crate::formats::read_document(&file) {
        eprintln!("{e}");
        return ExitCode::FAILURE;
    }
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin { primary_window: None, exit_condition: ExitCondition::DontExit, ..default() })
            .set(AssetPlugin { unapproved_path_mode: bevy::asset::UnapprovedPathMode::Allow, ..default() })
            .set(RenderPlugin { synchronous_pipeline_compilation: true, ..default() })
            .disable::<WinitPlugin>(),
    )
    .add_plugins(ScheduleRunnerPlugin::run_loop(Duration::from_millis(1)))
    .add_plugins(ViewerScenePlugin { data_root: args.data.clone(), morphs: args.morph.clone() })
    .insert_resource(ClearColor(Color::srgb(0.16, 0.17, 0.19)))
    .add_systems(Startup, setup)
    .add_systems(Update, (frame_camera, apply_overlay_flags, report_warnings, count_frames, report_failure))
    .add_observer(scene_ready);
    let progress = RenderProgress::default();
    app.insert_resource(progress.clone());
    if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
        render_app.insert_resource(progress).add_systems(Render, report_render_progress.after(RenderSystems::Render));
    }
    if let Some(wanted) = args.measure_frames {
        let measurement = FrameMeasurement { wanted, ..default() };
        let spans = SharedRenderSpans(measurement.render_spans.clone());
        app.add_plugins(bevy::diagnostic::FrameTimeDiagnosticsPlugin::new(wanted.max(1)))
            .insert_resource(measurement)
            .add_systems(First, main_span_start)
            .add_systems(Last, main_span_end);
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app
                .insert_resource(spans)
                .add_systems(Render, render_span_start.in_set(RenderSystems::ExtractCommands))
                .add_systems(Render, render_span_prepared.after(RenderSystems::PrepareBindGroups).before(RenderSystems::Render))
                .add_systems(Render, render_span_end.after(RenderSystems::Render));
        }
    }
    app.world_mut().insert_resource(Capture { args, target: Handle::default(), ready_at: None, requested: false });
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>, mut capture: ResMut<Capture>, mut viewer: ResMut<Viewer>, asset_server: Res<AssetServer>) {
    let (w, h) = capture.args.resolution;
    let target = images.add(Image::new_target_texture(w, h, TextureFormat::Rgba8UnormSrgb, None));
    capture.target = target.clone();
    commands.spawn((
        Camera3d::default(),
        Projection::Perspective(PerspectiveProjection { fov: FOV_Y, ..default() }),
        RenderTarget::Image(target.into()),
        Transform::from_xyz(0.0, 0.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    super::window::spawn_lights(&mut commands);
    if let Some(file) = capture.args.file.clone() {
        viewer.open(&asset_server, &file);
    }
}

fn frame_camera(
    mut shown: MessageReader<ModelShown>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    capture: Res<Capture>,
    mut cameras: Query<(&mut Transform, &mut Projection), With<Camera3d>>,
) {
    if shown.read().count() == 0 {
        return;
    }
    let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return };
    let (w, h) = capture.args.resolution;
    let (yaw, pitch) = yaw_pitch(capture.args.view);
    let (focus, distance) = frame(&model.description.bounds, w as f32 / h as f32, yaw, pitch);
    for (mut transform, mut projection) in &mut cameras {
        *transform = orbit_transform(focus, distance, yaw, pitch);
        if let Projection::Perspective(p) = &mut *projection {
            (p.near, p.far) = near_far(distance);
        }
    }
}

/// What the loader noticed (a missing group, texture or doodad model) goes to stderr, one line each.
fn report_warnings(mut shown: MessageReader<ModelShown>, viewer: Res<Viewer>, models: Res<Assets<ModelAsset>>) {
    if shown.read().count() == 0 {
        return;
    }
    if let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) {
        for warning in crate::scene::diagnostics::grouped_lines(&model.description.warnings) {
            eprintln!("warning: {warning}");
        }
    }
}

/// The command line's overlay choices, applied once a model is shown (showing it resets the toggles).
fn apply_overlay_flags(mut shown: MessageReader<ModelShown>, capture: Res<Capture>, mut toggles: ResMut<ViewToggles>) {
    if shown.read().count() > 0 {
        toggles.portals = capture.args.portals;
        toggles.doodad_set = capture.args.doodad_set;
    }
}

fn scene_ready(ready: On<WorldInstanceReady>, shown: Query<(), With<ShownScene>>, mut capture: ResMut<Capture>, progress: Res<RenderProgress>) {
    if shown.contains(ready.entity) {
        capture.ready_at = Some(progress.0 .1.load(Ordering::Relaxed));
    }
}

fn count_frames(
    mut commands: Commands,
    mut capture: ResMut<Capture>,
    progress: Res<RenderProgress>,
    measurement: Option<ResMut<FrameMeasurement>>,
    diagnostics: Res<bevy::diagnostic::DiagnosticsStore>,
) {
    let Some(ready_at) = capture.ready_at else { return };
    let rendered = progress.0 .1.load(Ordering::Relaxed).saturating_sub(ready_at);
    let compiling = progress.0 .0.load(Ordering::Relaxed);
    if let Some(mut m) = measurement {
        if rendered >= 1 && !m.first_frame_reported {
            m.first_frame_reported = true;
            println!("{}", serde_json::json!({ "event": "first_frame" }));
        }
        let settled = rendered >= SETTLE_FRAMES && compiling == 0;
        if settled && !m.measuring {
            m.measuring = true;
            if let Ok(mut spans) = m.render_spans.lock() {
                spans.prepare.clear();
                spans.graph.clear();
            }
        }
        if !m.measuring || m.main_spans.len() < m.wanted {
            return;
        }
        if !capture.requested {
            let (prepare, graph) = m.render_spans.lock().map(|s| (mean(&s.prepare), mean(&s.graph))).unwrap_or_default();
            let frame_time = diagnostics
                .get(&bevy::diagnostic::FrameTimeDiagnosticsPlugin::FRAME_TIME)
                .and_then(|d| d.average())
                .unwrap_or(0.0);
            println!(
                "{}",
                serde_json::json!({
                    "event": "frames",
                    "frames": m.main_spans.len(),
                    "frame_time_ms": frame_time,
                    "main_cpu_ms": mean(&m.main_spans),
                    "render_prepare_ms": prepare,
                    "render_graph_ms": graph,
                })
            );
        }
    } else if rendered < SETTLE_FRAMES || compiling != 0 {
        return;
    }
    if !capture.requested {
        capture.requested = true;
        let path = capture.args.output.clone().expect("--output is set in this mode");
        commands.spawn(Screenshot::image(capture.target.clone())).observe(save_to_disk(path)).observe(
            |_: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                exit.write(AppExit::Success);
            },
        );
    }
}

fn report_failure(viewer: Res<Viewer>, mut exit: MessageWriter<AppExit>) {
    if let Some(error) = &viewer.error {
        eprintln!("{error}");
        exit.write(AppExit::error());
    }
}
