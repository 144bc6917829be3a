//! `--output`: render one frame into an image without a window (lavapipe works), save it, exit.
//! `--output-dir`: the same for a queue of models in one process, the next ones loading while one is
//! drawn (the queue and its index are `batch`'s).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::app::{AppExit, ScheduleRunnerPlugin};
use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::render::render_resource::TextureFormat;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::render::{Render, RenderApp, RenderPlugin, RenderSystems};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy::world_serialization::WorldInstanceReady;

use super::batch::{BatchJob, BatchRow, Outcome};
use super::camera::{FOV_Y, frame, near_far, orbit_transform, yaw_pitch};
use super::cli::Args;
use super::scene::{ModelShown, ShownScene, ViewToggles, Viewer, ViewerScenePlugin};
use super::screenshot::{RenderProgress, RenderProgressPlugin, SETTLE_FRAMES};
use crate::plugin::ModelAsset;

/// `--measure-frames`: per frame, the main world's span (First → Last) in wall time and in the CPU time
/// its threads ran, the spans of the render world's preparation (extract → bind groups ready) and of
/// its render graph (encoding and submission, where lavapipe also rasterizes), and the wall time
/// between frames from Bevy's frame-time diagnostics.
#[derive(Resource, Default)]
struct FrameMeasurement {
    wanted: usize,
    main_started: Option<(Instant, Option<u64>)>,
    main_spans: Vec<f64>,
    /// The CPU of each measured span, where the kernel gives it.
    main_cpu: Vec<f64>,
    /// The schedstat files of the main world's threads, listed on first use.
    cpu_threads: Vec<PathBuf>,
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
    if let Ok(mut spans) = spans.0.lock()
        && let Some(started) = spans.started.take()
    {
        spans.prepare.push(started.elapsed().as_secs_f64() * 1e3);
        spans.prepared = Some(Instant::now());
    }
}

fn render_span_end(spans: Res<SharedRenderSpans>) {
    if let Ok(mut spans) = spans.0.lock()
        && let Some(prepared) = spans.prepared.take()
    {
        spans.graph.push(prepared.elapsed().as_secs_f64() * 1e3);
    }
}

/// Nanoseconds of CPU the main world's threads have run so far: the process's main thread and Bevy's
/// compute task pool, where the main world's systems run. The kernel's per-thread scheduler statistics
/// count only time on a core, so the span's CPU is not inflated by the time its threads waited while
/// lavapipe rasterized on both cores, as its wall time is. (Measuring turns pipelined rendering off, so
/// the render world's systems are not on the pool in the span.) The threads are listed once, when the
/// pool is up; the main thread is read last, so reading the others is not counted in its span. `None`
/// where the kernel gives no such statistics (no `/proc`, or scheduler statistics off: all zero).
fn main_world_cpu_ns(threads: &mut Vec<PathBuf>) -> Option<u64> {
    if threads.is_empty() {
        let main_thread = std::process::id().to_string();
        let mut listed: Vec<(bool, PathBuf)> = std::fs::read_dir("/proc/self/task")
            .ok()?
            .flatten()
            .filter_map(|task| {
                let main = task.file_name().to_str() == Some(main_thread.as_str());
                let pool =
                    std::fs::read_to_string(task.path().join("comm")).is_ok_and(|c| c.starts_with("Compute Task"));
                (main || pool).then(|| (main, task.path().join("schedstat")))
            })
            .collect();
        listed.sort_by_key(|(main, _)| *main);
        *threads = listed.into_iter().map(|(_, path)| path).collect();
    }
    let mut total = 0u64;
    for path in threads.iter() {
        let schedstat = std::fs::read_to_string(path).ok()?;
        total += schedstat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    (total > 0).then_some(total)
}

fn main_span_start(mut measurement: ResMut<FrameMeasurement>) {
    let cpu = main_world_cpu_ns(&mut measurement.cpu_threads);
    measurement.main_started = Some((Instant::now(), cpu));
}

fn main_span_end(mut measurement: ResMut<FrameMeasurement>) {
    if let Some((started, cpu_at_start)) = measurement.main_started.take() {
        let wall = started.elapsed().as_secs_f64() * 1e3;
        let cpu_now = main_world_cpu_ns(&mut measurement.cpu_threads);
        if measurement.measuring {
            measurement.main_spans.push(wall);
            if let (Some(a), Some(b)) = (cpu_at_start, cpu_now) {
                measurement.main_cpu.push(b.saturating_sub(a) as f64 / 1e6);
            }
        }
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 }
}

/// How many models load ahead of the one being drawn (`--output-dir`): enough to keep the loader busy
/// while the renderer draws, few enough that big models do not pile up in memory.
const LOAD_AHEAD: usize = 2;

/// A model not drawn this long after its turn came is given up (`--output-dir`), so one file the
/// renderer never finishes cannot stall the rest.
const MODEL_TIMEOUT: Duration = Duration::from_secs(180);

#[derive(Resource)]
struct Capture {
    args: Args,
    target: Handle<Image>,
    /// Rendered-frame count when the scene instance was ready.
    ready_at: Option<usize>,
    requested: bool,
    waiting: VecDeque<BatchJob>,
    /// The model being loaded or drawn, and when its turn began (the previous image was written; its
    /// load may have begun before, ahead of its turn), so that the turns add up to the batch's time.
    current: Option<(BatchJob, Instant)>,
    /// Loads begun ahead of their turn, held so that they are not dropped.
    ahead: Vec<(PathBuf, Handle<ModelAsset>)>,
    /// `--output-dir`; `None` for one `--output` image.
    batch: Option<Batch>,
}

struct Batch {
    dir: PathBuf,
    rows: Vec<BatchRow>,
    /// Models in the queue at the start.
    total: usize,
    started: Instant,
    group_files_skipped: usize,
}

pub fn run(args: Args) -> ExitCode {
    let (Some(file), Some(output)) = (args.file.clone(), args.output.clone()) else {
        eprintln!("--output needs a FILE");
        return ExitCode::from(2);
    };
    // Parse first so a bad file fails fast with the file, chunk and offset, before any GPU work.
    let (source, inside) = super::source_of(&file, args.game_data.as_ref());
    if let Err(e) = crate::scene::read_file(source.as_ref(), &inside) {
        eprintln!("{e}");
        return ExitCode::FAILURE;
    }
    let job = BatchJob { label: file.display().to_string(), model: file, image: output, order: 0 };
    render_queue(args, vec![job], None)
}

/// `--output-dir DIR`: a thumbnail of every model that the paths name, `DIR/index.csv`, a line per
/// model on stderr and the summary on stdout; exit 1 when any failed.
pub fn run_batch(args: Args, dir: PathBuf) -> ExitCode {
    let paths: Vec<PathBuf> = args.file.iter().chain(&args.more_files).cloned().collect();
    if paths.is_empty() {
        eprintln!(
            "--output-dir needs at least one PATH (a model, a folder, or with --data a path inside the game data)"
        );
        return ExitCode::from(2);
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("{}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let collected = super::batch::collect(&paths, args.game_data.as_deref());
    let rows: Vec<BatchRow> = collected.not_rendered.iter().map(BatchRow::not_rendered).collect();
    let jobs: Vec<BatchJob> =
        collected.jobs.into_iter().map(|job| BatchJob { image: dir.join(&job.image), ..job }).collect();
    eprintln!("{} models to render into {}", jobs.len(), dir.display());
    let batch = Batch {
        dir,
        rows,
        total: jobs.len(),
        started: Instant::now(),
        group_files_skipped: collected.group_files_skipped,
    };
    if jobs.is_empty() {
        return finish_batch(&batch);
    }
    render_queue(args, jobs, Some(batch))
}

/// Writes the index and prints the summary; the exit code the batch ends with.
fn finish_batch(batch: &Batch) -> ExitCode {
    let index = match super::batch::write_index(&batch.dir, &batch.rows) {
        Ok(index) => index,
        Err(e) => {
            eprintln!("{}: {e}", batch.dir.join("index.csv").display());
            return ExitCode::FAILURE;
        }
    };
    super::print_to_stdout(&super::batch::summary(
        &batch.rows,
        batch.group_files_skipped,
        batch.started.elapsed().as_secs_f64(),
        &index,
    ));
    if batch.rows.iter().any(|r| r.outcome == Outcome::Failed) { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn render_queue(args: Args, jobs: Vec<BatchJob>, batch: Option<Batch>) -> ExitCode {
    // Warnings and errors of a load are printed here once (a batch counts them in its index): the
    // viewer's own log lines for them would repeat them.
    let log = super::log_plugin(&["lwo_wmo_viewer::viewer::scene"]);
    let mut app = App::new();
    super::scene::add_game_data_source(&mut app, args.game_data.as_ref(), args.game_data.as_ref());
    let plugins = DefaultPlugins
        .set(WindowPlugin { primary_window: None, exit_condition: ExitCondition::DontExit, ..default() })
        .set(AssetPlugin { unapproved_path_mode: bevy::asset::UnapprovedPathMode::Allow, ..default() })
        .set(RenderPlugin { synchronous_pipeline_compilation: true, ..default() })
        .set(log)
        .disable::<WinitPlugin>();
    // Measuring, the render world runs after the main world instead of beside it, so that the threads
    // both use (the compute task pool) run only the main world's systems in its span.
    let plugins = if args.measure_frames.is_some() { plugins.disable::<PipelinedRenderingPlugin>() } else { plugins };
    app.add_plugins(plugins)
        .add_plugins(ScheduleRunnerPlugin::run_loop(Duration::from_millis(1)))
        .add_plugins(ViewerScenePlugin {
            data_root: args.data.clone(),
            game_data: args.game_data.clone(),
            listfile: args.listfile.clone().zip(args.listfile_read.clone()),
            morphs: args.morph.clone(),
            portal_culling: !args.no_portal_culling,
            animation: super::animation::AnimationStart {
                sequence: args.animation.clone(),
                time: args.time,
                // Measured frames watch the models move; an image is one moment.
                still: args.measure_frames.is_none(),
            },
        })
        .insert_resource(ClearColor(Color::srgb(0.16, 0.17, 0.19)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                frame_camera,
                apply_overlay_flags,
                report_warnings,
                write_texture.before(count_frames),
                count_frames,
                report_failure,
                give_up_on_stalled,
            ),
        )
        .add_observer(scene_ready);
    app.add_plugins(RenderProgressPlugin);
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
                .add_systems(
                    Render,
                    render_span_prepared.after(RenderSystems::PrepareBindGroups).before(RenderSystems::Render),
                )
                .add_systems(Render, render_span_end.after(RenderSystems::Render));
        }
    }
    app.world_mut().insert_resource(Capture {
        args,
        target: Handle::default(),
        ready_at: None,
        requested: false,
        waiting: jobs.into(),
        current: None,
        ahead: Vec::new(),
        batch,
    });
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

fn setup(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut capture: ResMut<Capture>,
    mut viewer: ResMut<Viewer>,
    asset_server: Res<AssetServer>,
) {
    let (w, h) = capture.args.resolution;
    let target = images.add(Image::new_target_texture(w, h, TextureFormat::Rgba8UnormSrgb, None));
    capture.target = target.clone();
    commands.spawn((
        Camera3d::default(),
        Projection::Perspective(PerspectiveProjection { fov: FOV_Y, ..default() }),
        RenderTarget::Image(target.into()),
        Transform::from_xyz(0.0, 0.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
        super::camera::ViewCamera,
    ));
    super::window::spawn_lights(&mut commands);
    start_next(&mut capture, &mut viewer, &asset_server);
}

/// Opens the next model of the queue and starts loading the ones after it; `false` when none is left.
fn start_next(capture: &mut Capture, viewer: &mut Viewer, asset_server: &AssetServer) -> bool {
    let Some(job) = capture.waiting.pop_front() else { return false };
    // The load begun ahead is found again by its path: the same handle, nothing loaded twice.
    viewer.open(asset_server, &job.model);
    capture.ahead.retain(|(model, _)| *model != job.model);
    for next in capture.waiting.iter().take(LOAD_AHEAD) {
        if !capture.ahead.iter().any(|(model, ..)| *model == next.model) {
            let (_, handle, _) = viewer.request(asset_server, &next.model);
            capture.ahead.push((next.model.clone(), handle));
        }
    }
    capture.current = Some((job, Instant::now()));
    capture.ready_at = None;
    capture.requested = false;
    true
}

/// The current model is done (its image written, or `error`): one row and progress line in a batch,
/// then the next model, or the end.
fn finish_current(
    capture: &mut Capture,
    viewer: &mut Viewer,
    asset_server: &AssetServer,
    models: &Assets<ModelAsset>,
    error: Option<String>,
    exit: &mut MessageWriter<AppExit>,
) {
    let Some((job, began)) = capture.current.take() else { return };
    let Some(batch) = capture.batch.as_mut() else {
        exit.write(match error {
            Some(error) => {
                eprintln!("{error}");
                AppExit::error()
            }
            None => AppExit::Success,
        });
        return;
    };
    let shown = viewer.current.as_ref().and_then(|h| models.get(h)).filter(|_| error.is_none());
    let row = BatchRow {
        label: job.label.clone(),
        format: shown
            .and_then(|m| m.description.files.first())
            .and_then(|f| f.document.as_ref())
            .map(|d| d.format.name().to_owned())
            .unwrap_or_default(),
        triangles: shown.map(|m| m.description.stats.triangles),
        warnings: shown.map_or(0, |m| crate::scene::diagnostics::grouped_lines(&m.description.warnings).len()),
        error: error.clone().unwrap_or_default(),
        milliseconds: began.elapsed().as_millis(),
        image: if error.is_none() {
            job.image.strip_prefix(&batch.dir).unwrap_or(&job.image).to_string_lossy().into_owned()
        } else {
            String::new()
        },
        outcome: if error.is_none() { Outcome::Rendered } else { Outcome::Failed },
        order: job.order,
    };
    let done = batch.total - capture.waiting.len();
    match &error {
        None => eprintln!(
            "[{done}/{}] {}: {} triangles, {} warnings, {} ms",
            batch.total,
            row.label,
            row.triangles.unwrap_or(0),
            row.warnings,
            row.milliseconds
        ),
        Some(e) => eprintln!("[{done}/{}] {}: failed: {e}", batch.total, row.label),
    }
    batch.rows.push(row);
    if !start_next(capture, viewer, asset_server) {
        let code = capture.batch.as_ref().map_or(ExitCode::SUCCESS, finish_batch);
        exit.write(if code == ExitCode::SUCCESS { AppExit::Success } else { AppExit::error() });
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
    let (focus, distance, yaw, pitch) = match capture.args.camera {
        Some(placement) => placement.orbit(),
        None => {
            let (yaw, pitch) = yaw_pitch(capture.args.view);
            let (focus, distance) = frame(&model.description.bounds, w as f32 / h as f32, yaw, pitch);
            (focus, distance, yaw, pitch)
        }
    };
    for (mut transform, mut projection) in &mut cameras {
        *transform = orbit_transform(focus, distance, yaw, pitch);
        if let Projection::Perspective(p) = &mut *projection {
            (p.near, p.far) = near_far(distance);
        }
    }
}

/// What the loader noticed (a missing group, texture or doodad model) goes to stderr, one line each;
/// a batch counts them in its index instead.
fn report_warnings(
    mut shown: MessageReader<ModelShown>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    capture: Res<Capture>,
) {
    if shown.read().count() == 0 || capture.batch.is_some() {
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

fn scene_ready(
    ready: On<WorldInstanceReady>,
    shown: Query<(), With<ShownScene>>,
    mut capture: ResMut<Capture>,
    progress: Res<RenderProgress>,
) {
    if shown.contains(ready.entity) {
        capture.ready_at = Some(progress.frames());
    }
}

fn count_frames(
    mut commands: Commands,
    mut capture: ResMut<Capture>,
    progress: Res<RenderProgress>,
    measurement: Option<ResMut<FrameMeasurement>>,
    diagnostics: Res<bevy::diagnostic::DiagnosticsStore>,
    (drawn, meshes, culling): (
        Query<(&Mesh3d, &ViewVisibility)>,
        Res<Assets<Mesh>>,
        Res<super::culling::PortalCulling>,
    ),
) {
    let Some(ready_at) = capture.ready_at else { return };
    let rendered = progress.frames().saturating_sub(ready_at);
    let compiling = progress.compiling();
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
            let (prepare, graph) =
                m.render_spans.lock().map(|s| (mean(&s.prepare), mean(&s.graph))).unwrap_or_default();
            let frame_time = diagnostics
                .get(&bevy::diagnostic::FrameTimeDiagnosticsPlugin::FRAME_TIME)
                .and_then(|d| d.average())
                .unwrap_or(0.0);
            // What the frame drew after portal and frustum culling, against everything in the scene.
            let (mut triangles_drawn, mut triangles_total) = (0usize, 0usize);
            for (mesh, visibility) in &drawn {
                let triangles = meshes.get(&mesh.0).and_then(|m| m.indices()).map_or(0, |i| i.len() / 3);
                triangles_total += triangles;
                if visibility.get() {
                    triangles_drawn += triangles;
                }
            }
            println!(
                "{}",
                serde_json::json!({
                    "event": "frames",
                    "frames": m.main_spans.len(),
                    "frame_time_ms": frame_time,
                    // No value rather than a wall time under the CPU time's name.
                    "main_cpu_ms": (m.main_cpu.len() == m.main_spans.len()).then(|| mean(&m.main_cpu)),
                    "main_wall_ms": mean(&m.main_spans),
                    "render_prepare_ms": prepare,
                    "render_graph_ms": graph,
                    "triangles_drawn": triangles_drawn,
                    "triangles_total": triangles_total,
                    "groups_drawn": culling.seen.as_ref().map(|s| s.drawn_count()),
                })
            );
        }
    } else if rendered < SETTLE_FRAMES || compiling != 0 {
        return;
    }
    if !capture.requested && capture.current.is_some() {
        capture.requested = true;
        commands.spawn(Screenshot::image(capture.target.clone())).observe(image_captured);
    }
}

/// A texture opened on its own is written as it is, not rendered: its top level, at its own size, with
/// its alpha.
fn write_texture(
    mut capture: ResMut<Capture>,
    mut viewer: ResMut<Viewer>,
    asset_server: Res<AssetServer>,
    models: Res<Assets<ModelAsset>>,
    mut exit: MessageWriter<AppExit>,
) {
    if capture.ready_at.is_none() || capture.requested {
        return;
    }
    let Some(model) = super::texture_view::shown_texture(&viewer, &models) else { return };
    let (Some((job, _)), Some(texture)) = (capture.current.as_ref(), model.description.textures.first()) else {
        return;
    };
    let path = job.image.clone();
    capture.requested = true;
    let image = &texture.image;
    let top = image.levels.first().cloned().unwrap_or_default();
    let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).map_err(|e| e.to_string()).and_then(|()| {
        let pixels = image::RgbaImage::from_raw(image.width, image.height, top)
            .ok_or_else(|| "the decoded level is shorter than its size".to_owned())?;
        pixels.save(&path).map_err(|e| e.to_string())
    });
    let error = written.err().map(|e| format!("{}: {e}", path.display()));
    finish_current(&mut capture, &mut viewer, &asset_server, &models, error, &mut exit);
}

fn image_captured(
    captured: On<ScreenshotCaptured>,
    mut capture: ResMut<Capture>,
    mut viewer: ResMut<Viewer>,
    asset_server: Res<AssetServer>,
    models: Res<Assets<ModelAsset>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some((job, _)) = capture.current.as_ref() else { return };
    let path = job.image.clone();
    let folder_made = path.parent().map_or(Ok(()), std::fs::create_dir_all).map_err(|e| e.to_string());
    let saved = folder_made.and_then(|()| super::screenshot::save_png(&captured.image, &path, None));
    let error = saved.err().map(|e| format!("{}: {e}", path.display()));
    finish_current(&mut capture, &mut viewer, &asset_server, &models, error, &mut exit);
}

/// A model that failed to load ends its turn with the loader's error.
fn report_failure(
    mut capture: ResMut<Capture>,
    mut viewer: ResMut<Viewer>,
    asset_server: Res<AssetServer>,
    models: Res<Assets<ModelAsset>>,
    mut exit: MessageWriter<AppExit>,
) {
    if let Some(error) = viewer.error.take() {
        finish_current(&mut capture, &mut viewer, &asset_server, &models, Some(error), &mut exit);
    }
}

fn give_up_on_stalled(
    mut capture: ResMut<Capture>,
    mut viewer: ResMut<Viewer>,
    asset_server: Res<AssetServer>,
    models: Res<Assets<ModelAsset>>,
    mut exit: MessageWriter<AppExit>,
) {
    let stalled = capture.batch.is_some()
        && !capture.requested
        && capture.current.as_ref().is_some_and(|(_, began)| began.elapsed() > MODEL_TIMEOUT);
    if stalled {
        viewer.cancel();
        let error = format!("not drawn after {} s, given up", MODEL_TIMEOUT.as_secs());
        finish_current(&mut capture, &mut viewer, &asset_server, &models, Some(error), &mut exit);
    }
}
