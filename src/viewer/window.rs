//! The windowed viewer: orbit camera, drag-and-drop, the open dialog, keys, recent files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy::app::AppExit;
use bevy::camera::CameraOutputMode;
use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy::render::render_resource::BlendState;
use bevy::tasks::{AsyncComputeTaskPool, Task, poll_once};
use bevy::window::FileDragAndDrop;
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiGlobalSettings, EguiPlugin, EguiPrimaryContextPass, PrimaryEguiContext};
use bevy_panorbit_camera::{PanOrbitCamera, PanOrbitCameraPlugin};

use super::camera::{CameraPlacement, FOV_Y, frame, near_far, yaw_pitch};
use super::cli::{Args, ViewDirection};
use super::panel::{PanelState, draw_panel};
use super::scene::{ModelShown, Viewer, ViewerScenePlugin};
use crate::formats::is_supported_path;
use crate::plugin::ModelAsset;

pub fn run(mut args: Args) -> ExitCode {
    // `wow://` in the window is whatever game data is browsed: `--data`'s, or an archive dropped later.
    let opened = args.game_data.clone();
    let switch = std::sync::Arc::new(crate::source::SwitchableSource::new(opened.clone()));
    args.game_data = Some(switch.clone());
    let listfile = args.listfile_read.clone();
    let mut app = App::new();
    super::scene::add_game_data_source(&mut app, args.game_data.as_ref(), opened.as_ref());
    app.add_plugins(
        DefaultPlugins
            .set(super::log_plugin(&[]))
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "lwo-wmo-viewer".into(),
                    resolution: (1280u32, 800u32).into(),
                    ..default()
                }),
                ..default()
            })
            .set(AssetPlugin { unapproved_path_mode: bevy::asset::UnapprovedPathMode::Allow, ..default() }),
    )
    .add_plugins(EguiPlugin::default())
    .add_plugins(PanOrbitCameraPlugin)
    .add_plugins(ViewerScenePlugin {
        data_root: args.data.clone(),
        game_data: args.game_data.clone(),
        listfile: args.listfile.clone().zip(args.listfile_read.clone()),
        morphs: args.morph.clone(),
        portal_culling: !args.no_portal_culling,
        animation: super::animation::AnimationStart { sequence: args.animation.clone(), time: args.time, still: false },
    })
    .add_plugins(super::overlays::ViewOptionsPlugin)
    .add_plugins(super::picking::PickingPlugin)
    .add_plugins(super::fly::FlyPlugin)
    .add_plugins(super::texture_view::TextureViewPlugin)
    .configure_sets(Update, super::fly::FlySystems.after(handle_keys).after(place_camera).after(frame_on_show))
    // Picks are cast on a click, not on every pointer move over the view.
    .insert_resource(bevy::picking::mesh_picking::MeshPickingSettings { require_markers: true, ..default() })
    .insert_resource(ClearColor(Color::srgb(0.16, 0.17, 0.19)))
    .insert_resource(PanelState { recent: load_recent(), screenshot_size: args.screenshot_size, ..default() })
    .insert_resource(CameraRequest(args.camera))
    .insert_resource(StartupArgs(args))
    .insert_resource(FileDialog::default())
    .init_resource::<super::export::WindowExport>()
    .init_resource::<super::screenshot::ScreenshotDialog>()
    .init_resource::<super::watch::FileWatch>()
    .add_systems(Update, (super::watch::follow_shown_files, super::watch::reload_on_change).chain())
    .add_message::<super::screenshot::TakeScreenshot>()
    .add_plugins(super::screenshot::RenderProgressPlugin)
    .add_systems(
        Update,
        (
            super::screenshot::poll_screenshot_dialog,
            super::screenshot::take_screenshots,
            super::screenshot::capture_sized_shots,
        )
            .chain(),
    )
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            handle_drops,
            handle_keys,
            poll_dialog,
            frame_on_show.after(super::scene::poll_pending_load),
            place_camera.after(frame_on_show),
            gate_camera,
            poll_export,
        ),
    )
    .insert_resource(super::browser::GameDataSwitch(switch))
    .insert_resource(super::browser::ArchiveBrowser::with_listfile(listfile))
    .add_systems(EguiPrimaryContextPass, (draw_panel, super::browser::draw_browser).chain());
    if let Some(channel) = super::control::ControlChannel::from_env() {
        app.insert_resource(channel).add_systems(PreUpdate, super::control::poll_control);
    }
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

#[derive(Resource)]
pub struct StartupArgs(pub Args);

/// The open dialog, running on a task so the window keeps drawing while it is up.
#[derive(Resource, Default)]
pub struct FileDialog {
    task: Option<Task<Option<PathBuf>>>,
}

impl FileDialog {
    pub fn is_open(&self) -> bool {
        self.task.is_some()
    }

    pub fn start(&mut self, start_dir: Option<PathBuf>) {
        if self.task.is_some() {
            return;
        }
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let mut dialog = rfd::AsyncFileDialog::new().set_title("Open a LightWave, WMO, M2 or BLP file");
            // Every format together first, then each family, from the one format table.
            let every: Vec<String> = crate::formats::FORMATS
                .iter()
                .flat_map(|f| f.extensions)
                .flat_map(|e| [e.to_string(), e.to_ascii_uppercase()])
                .collect();
            dialog = dialog.add_filter("LightWave, WMO and M2", &every);
            for family in crate::formats::FORMATS {
                let extensions: Vec<String> =
                    family.extensions.iter().flat_map(|e| [e.to_string(), e.to_ascii_uppercase()]).collect();
                dialog = dialog.add_filter(family.name, &extensions);
            }
            dialog = dialog.add_filter("All files", &["*"]);
            if let Some(dir) = start_dir {
                dialog = dialog.set_directory(dir);
            }
            dialog.pick_file().await.map(|f| f.path().to_path_buf())
        });
        self.task = Some(task);
    }
}

pub fn spawn_lights(commands: &mut Commands) {
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: false, ..default() },
        Transform::from_xyz(3.0, 8.0, 5.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 2500.0, shadow_maps_enabled: false, ..default() },
        Transform::from_xyz(-4.0, 2.0, -6.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight { color: Color::WHITE, brightness: 400.0, ..default() });
}

fn setup(
    mut commands: Commands,
    args: Res<StartupArgs>,
    mut viewer: ResMut<Viewer>,
    asset_server: Res<AssetServer>,
    mut egui_settings: ResMut<EguiGlobalSettings>,
    mut options: ResMut<super::overlays::ViewOptions>,
) {
    options.watch = args.0.watch;
    // The 3D camera draws only beside the panels (its viewport); the panels get a camera of their own
    // that covers the window and draws nothing else.
    egui_settings.auto_create_primary_context = false;
    commands.spawn((
        PrimaryEguiContext,
        Camera2d,
        RenderLayers::none(),
        Camera {
            order: 1,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
    ));
    let (yaw, pitch) = yaw_pitch(args.0.view);
    commands.spawn((
        Camera3d::default(),
        Projection::Perspective(PerspectiveProjection { fov: FOV_Y, ..default() }),
        Transform::from_xyz(0.0, 2.0, 8.0),
        PanOrbitCamera { yaw: Some(yaw), pitch: Some(pitch), radius: Some(8.0), ..default() },
        super::camera::ViewCamera,
    ));
    spawn_lights(&mut commands);
    if let Some(file) = &args.0.file {
        viewer.open(&asset_server, file);
    }
}

/// Frames the camera on a newly shown model, keeping the user's view direction.
fn frame_on_show(
    mut shown: MessageReader<ModelShown>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    mut panel: ResMut<PanelState>,
    mut cameras: Query<(&mut PanOrbitCamera, &mut Projection, &Camera)>,
    windows: Query<&Window>,
    switch: Option<Res<super::browser::GameDataSwitch>>,
    mut placement: ResMut<CameraRequest>,
) {
    let events: Vec<ModelShown> = shown.read().copied().collect();
    if events.is_empty() {
        return;
    }
    if let Some(path) = &viewer.current_path {
        panel.remember(&super::browser::recent_entry(path, switch.as_deref()));
    }
    // The shown file loaded again keeps the user's view.
    if events.iter().any(|e| !e.reload) {
        // `--camera` places the camera for the first model; later ones are framed.
        // A texture is looked at straight on.
        let texture = super::texture_view::shown_texture(&viewer, &models).is_some();
        let aim = match placement.0.take() {
            Some(placement) => Aim::Placed(placement),
            None if texture => Aim::View(ViewDirection::Front),
            None => Aim::KeepDirection,
        };
        frame_all(&viewer, &models, &mut cameras, &windows, aim);
    }
}

/// A camera placement waiting to be applied: `--camera`'s when the first model shows, the control
/// hook's `camera` at once.
#[derive(Resource, Default)]
pub struct CameraRequest(pub Option<CameraPlacement>);

fn place_camera(
    mut request: ResMut<CameraRequest>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    mut cameras: Query<(&mut PanOrbitCamera, &mut Projection, &Camera)>,
    windows: Query<&Window>,
) {
    if viewer.current.is_some()
        && let Some(placement) = request.0.take()
    {
        frame_all(&viewer, &models, &mut cameras, &windows, Aim::Placed(placement));
    }
}

/// Where [`frame_all`] points the camera.
#[derive(Clone, Copy, Debug)]
pub enum Aim {
    /// Frames the model from the direction the camera looks now.
    KeepDirection,
    /// Frames the model from a named direction.
    View(ViewDirection),
    /// Puts the camera there, whatever the model's size.
    Placed(CameraPlacement),
}

pub fn frame_all(
    viewer: &Viewer,
    models: &Assets<ModelAsset>,
    cameras: &mut Query<(&mut PanOrbitCamera, &mut Projection, &Camera)>,
    windows: &Query<&Window>,
    aim: Aim,
) {
    let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return };
    let window_aspect = windows.iter().next().map_or(1.6, |w| w.width() / w.height().max(1.0));
    for (mut camera, mut projection, render_camera) in cameras.iter_mut() {
        // The panels take part of the window: frame for the viewport the camera draws into.
        let aspect = render_camera
            .viewport
            .as_ref()
            .map_or(window_aspect, |v| v.physical_size.x as f32 / v.physical_size.y.max(1) as f32);
        let (focus, distance, yaw, pitch) = match aim {
            Aim::Placed(placement) => placement.orbit(),
            Aim::KeepDirection | Aim::View(_) => {
                let (yaw, pitch) =
                    if let Aim::View(view) = aim { yaw_pitch(view) } else { (camera.target_yaw, camera.target_pitch) };
                let (focus, distance) = frame(&model.description.bounds, aspect, yaw, pitch);
                (focus, distance, yaw, pitch)
            }
        };
        camera.target_focus = focus;
        camera.target_radius = distance;
        // Closer than this the wheel walks the target forward (super::fly), so rooms can be walked through.
        camera.zoom_lower_limit = distance * super::fly::CLOSEST_SHARE;
        camera.zoom_sensitivity = super::fly::ZOOM_SENSITIVITY;
        camera.pan_sensitivity = 1.0;
        camera.target_yaw = yaw;
        camera.target_pitch = pitch;
        camera.force_update = true;
        if !camera.initialized {
            // A model that shows before the camera's first update: the camera starts from these fields
            // and would reset the targets above to its spawn position.
            camera.focus = focus;
            camera.radius = Some(distance);
            (camera.yaw, camera.pitch) = (Some(yaw), Some(pitch));
        }
        if let Projection::Perspective(p) = &mut *projection {
            (p.near, p.far) = near_far(distance);
        }
    }
}

/// A drop opens its first file; the other files of the same drop go to File ▸ Recent, as a file
/// manager's multi-selection would be lost otherwise. A folder is not a model: it is refused with a
/// message and the model shown stays.
fn handle_drops(
    mut drops: MessageReader<FileDragAndDrop>,
    mut viewer: ResMut<Viewer>,
    mut panel: ResMut<PanelState>,
    asset_server: Res<AssetServer>,
    (mut browser, switch): (ResMut<super::browser::ArchiveBrowser>, Res<super::browser::GameDataSwitch>),
) {
    let dropped: Vec<PathBuf> = drops
        .read()
        .filter_map(|d| match d {
            FileDragAndDrop::DroppedFile { path_buf, .. } => Some(path_buf.clone()),
            _ => None,
        })
        .collect();
    if dropped.is_empty() {
        return;
    }
    // A dropped archive is browsed, alone, instead of opened as a model.
    let (archives, dropped): (Vec<PathBuf>, Vec<PathBuf>) =
        dropped.into_iter().partition(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("mpq")) && p.is_file());
    if let Some(archive) = archives.last() {
        match crate::source::GameData::single_archive(archive) {
            Ok(data) => {
                switch.0.set(std::sync::Arc::new(data));
                browser.show(switch.0.clone());
                viewer.notice = Some(format!("browsing {}", archive.display()));
            }
            Err(e) => viewer.error = Some(e.to_string()),
        }
        if dropped.is_empty() {
            return;
        }
    }
    let (folders, files): (Vec<PathBuf>, Vec<PathBuf>) = dropped.into_iter().partition(|p| p.is_dir());
    let Some((first, rest)) = files.split_first() else {
        viewer.error = Some(format!(
            "{} is a folder: drop one of the files in it, or open one with File > Open",
            folders[0].display()
        ));
        return;
    };
    viewer.open(&asset_server, first);
    // Listed after the opened file, in the order they were dropped.
    for path in rest.iter().rev() {
        panel.remember(&std::path::absolute(path).unwrap_or_else(|_| path.clone()));
    }
    let name = |p: &Path| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned());
    let mut notice = Vec::new();
    if !rest.is_empty() {
        notice.push(format!("opening {}; the other {} dropped are in File > Recent", name(first), rest.len()));
    }
    if !folders.is_empty() {
        notice.push(format!("{} folder(s) skipped", folders.len()));
    }
    viewer.notice = (!notice.is_empty()).then(|| notice.join("; "));
}

#[allow(clippy::too_many_arguments)]
fn handle_keys(
    keys: Res<ButtonInput<KeyCode>>,
    wants: Res<EguiWantsInput>,
    mut viewer: ResMut<Viewer>,
    mut dialog: ResMut<FileDialog>,
    asset_server: Res<AssetServer>,
    models: Res<Assets<ModelAsset>>,
    mut cameras: Query<(&mut PanOrbitCamera, &mut Projection, &Camera)>,
    windows: Query<&Window>,
    mut screenshots: MessageWriter<super::screenshot::TakeScreenshot>,
    mut panel: ResMut<PanelState>,
) {
    if wants.wants_keyboard_input() {
        return;
    }
    if keys.just_pressed(KeyCode::KeyN) {
        panel.panel_hidden = !panel.panel_hidden;
    }
    if keys.just_pressed(KeyCode::Escape) && viewer.pending.is_some() {
        viewer.cancel();
    }
    if keys.just_pressed(KeyCode::F12) {
        screenshots.write(super::screenshot::TakeScreenshot(None));
    }
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    if ctrl && keys.just_pressed(KeyCode::KeyO) {
        dialog.start(viewer.current_path.as_deref().and_then(Path::parent).map(Path::to_path_buf));
    }
    if ctrl && keys.just_pressed(KeyCode::KeyR) {
        viewer.reload(&asset_server);
    }
    for (key, step, which) in [(KeyCode::PageDown, 1isize, "next"), (KeyCode::PageUp, -1, "previous")] {
        if !keys.just_pressed(key) {
            continue;
        }
        let Some(current) = viewer.current_path.clone() else { continue };
        match neighbour_file(&current, step) {
            Some(next) => viewer.open(&asset_server, &next),
            // Said, so that a key that does nothing is not taken for a key that is broken.
            None => viewer.notice = Some(format!("no {which} model file in this folder")),
        }
    }
    let views = [
        (KeyCode::KeyF, Aim::KeepDirection),
        (KeyCode::Home, Aim::View(ViewDirection::Iso)),
        (KeyCode::Digit1, Aim::View(ViewDirection::Front)),
        (KeyCode::Digit3, Aim::View(ViewDirection::Side)),
        (KeyCode::Digit7, Aim::View(ViewDirection::Top)),
    ];
    for (key, aim) in views {
        if !ctrl && keys.just_pressed(key) {
            frame_all(&viewer, &models, &mut cameras, &windows, aim);
        }
    }
}

/// The supported file before or after `current` in its folder, by name.
pub fn neighbour_file(current: &Path, step: isize) -> Option<PathBuf> {
    let dir = current.parent()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && is_supported_path(p))
        .collect();
    files.sort();
    let here = files.iter().position(|p| p.file_name() == current.file_name())?;
    let next = here.checked_add_signed(step)?;
    files.get(next).cloned()
}

fn poll_dialog(
    mut dialog: ResMut<FileDialog>,
    mut viewer: ResMut<Viewer>,
    mut panel: ResMut<PanelState>,
    asset_server: Res<AssetServer>,
) {
    let Some(task) = dialog.task.as_mut() else { return };
    let Some(result) = bevy::tasks::block_on(poll_once(task)) else { return };
    dialog.task = None;
    match result {
        Some(path) => viewer.open(&asset_server, &path),
        // With no desktop portal and no zenity the dialog returns at once, exactly like Cancel; offer the
        // path field so the user is never stuck.
        None => panel.show_path_field = true,
    }
}

/// Advances File ▸ Export: the shown file, its data root and doodad set go to the writer.
fn poll_export(
    mut export: ResMut<super::export::WindowExport>,
    viewer: Res<Viewer>,
    toggles: Res<super::scene::ViewToggles>,
    morphs: Res<super::morphs::MorphControls>,
    mut panel: ResMut<PanelState>,
) {
    let open = viewer.current_path.clone().map(|file| super::export::ExportRequest {
        file,
        data: viewer.data_for_current(),
        doodad_set: toggles.doodad_set,
        morph_weights: morphs.weights.clone().into_iter().collect(),
        listfile: viewer.listfile.as_ref().map(|(_, list)| list.clone()),
    });
    export.poll(open);
    if panel.export_status != export.status {
        panel.export_status = export.status.clone();
    }
}

/// The orbit camera takes the pointer only over the 3D view, and not while flying.
fn gate_camera(
    wants: Res<EguiWantsInput>,
    fly: Res<super::fly::FlyCamera>,
    panel: Res<PanelState>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    mut cameras: Query<&mut PanOrbitCamera>,
) {
    // The panel's resize edge reaches a few pixels into the view: a drag there resizes, never orbits.
    let on_edge = window
        .single()
        .ok()
        .and_then(Window::cursor_position)
        .is_some_and(|c| !panel.panel_hidden && (c.x - panel.panel_right).abs() <= super::panel::GRAB_RADIUS);
    let free = !wants.wants_pointer_input() && !wants.is_pointer_over_area() && !on_edge && !fly.on;
    for mut camera in &mut cameras {
        if camera.enabled != free {
            camera.enabled = free;
        }
    }
}

fn recent_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("lwo-wmo-viewer").join("recent.txt"))
}

pub fn load_recent() -> Vec<PathBuf> {
    recent_file()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .map(|text| text.lines().filter(|l| !l.is_empty()).map(PathBuf::from).collect())
        .unwrap_or_default()
}

pub fn save_recent(recent: &[PathBuf]) {
    let Some(file) = recent_file() else { return };
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let text: String = recent.iter().map(|p| format!("{}\n", p.display())).collect();
    if let Err(e) = std::fs::write(&file, text) {
        warn!("could not save the recent-files list to {}: {e}", file.display());
    }
}
