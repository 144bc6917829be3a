//! What the window and the headless render share: loading a file through the plugin, swapping the shown
//! scene only once the new one has loaded (a bad file never replaces a good one), and visibility.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::asset::{AssetLoadFailedEvent, AssetPath, LoadState};
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;

use crate::LwoWmoPlugin;
use crate::plugin::{DoodadInstance, ModelAsset, ModelLoadError, ModelLoaderSettings, ModelPart, Overlay};
use crate::scene::LoadProgress;

use super::morphs::{MorphControls, apply_morph_weights};

pub struct ViewerScenePlugin {
    pub data_root: Option<PathBuf>,
    /// The game data `data_root` names, opened (see [`add_game_data_source`]).
    pub game_data: Option<Arc<dyn crate::source::FileSource>>,
    /// Morph weights to start with (`--morph NAME=WEIGHT`).
    pub morphs: Vec<(String, f32)>,
    /// Whether WMO groups the camera cannot see through portals are hidden (`--no-portal-culling`).
    pub portal_culling: bool,
    /// `--animation` and `--time`.
    pub animation: super::animation::AnimationStart,
    /// `--listfile`'s path and the list read from it.
    pub listfile: Option<(PathBuf, Arc<crate::source::Listfile>)>,
}

/// The asset source that serves the game data given with `--data`: a model inside it is opened as
/// `wow://World/…`, and pulls its groups, skins, textures and doodad models from the same data.
pub const GAME_DATA_SOURCE: &str = "wow";

/// The path inside the game data that `path` names, if it is a `wow://` path.
pub fn game_data_path(path: &Path) -> Option<&str> {
    path.to_str()?.strip_prefix("wow://")
}

/// A `wow://` path for a file of the game data.
pub fn in_game_data(path: &str) -> PathBuf {
    PathBuf::from(format!("{GAME_DATA_SOURCE}://{}", crate::source::normalise(path)))
}

/// The asset source of the game data `--data` names, as opened at the start: the data root of models
/// opened from disk, read through the asset server and opened once, not for every load. (`wow://`
/// follows the game data browsed, which a dropped archive changes.)
pub const DATA_ROOT_SOURCE: &str = "wow-data-root";

/// Registers the game data browsed as the `wow://` asset source and the game data `--data` opened as
/// [`DATA_ROOT_SOURCE`]; before `DefaultPlugins`, which builds the asset sources.
pub fn add_game_data_source(
    app: &mut App,
    browsed: Option<&Arc<dyn crate::source::FileSource>>,
    opened: Option<&Arc<dyn crate::source::FileSource>>,
) {
    if let Some(source) = browsed {
        app.add_plugins(crate::plugin::FileSourcePlugin { name: GAME_DATA_SOURCE, source: source.clone() });
    }
    if let Some(source) = opened {
        app.add_plugins(crate::plugin::FileSourcePlugin { name: DATA_ROOT_SOURCE, source: source.clone() });
    }
}

impl Plugin for ViewerScenePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(LwoWmoPlugin);
        if let Some((path, listfile)) = &self.listfile {
            app.world().resource::<crate::plugin::Listfiles>().insert(path, listfile.clone());
        }
        app.insert_resource(Viewer {
            data_root: self.data_root.clone(),
            game_data: self.game_data.clone(),
            listfile: self.listfile.clone(),
            ..default()
        })
        .insert_resource(ViewToggles::default())
        .insert_resource(MorphControls { weights: self.morphs.iter().cloned().collect() })
        .insert_resource(super::culling::PortalCulling::new(self.portal_culling))
        .insert_resource(self.animation.clone())
        .add_message::<ModelShown>()
        .add_systems(PreStartup, run_main_world_on_one_thread)
        .add_systems(
            Update,
            (
                poll_pending_load,
                super::animation::apply_animation_start,
                super::culling::update_portal_culling,
                apply_visibility,
                apply_morph_weights,
            )
                .chain(),
        );
    }
}

/// The viewer's main world runs its systems one after another on the main thread. They are small (the
/// camera, the panel, visibility flags, a load's polling), and Bevy's multi-threaded executor woke the
/// compute pool's threads for them at a cost greater than their own: with lavapipe busy on both cores,
/// the main world of an idle one-polygon scene ran 3.4 ms of CPU a frame, and of the 300-group zone
/// seen from inside 4.7 ms; on one thread, 0.7 and 0.6 ms (the bench's `--frames` section).
/// Systems that split their own work (`par_iter`, the loader's tasks) still use the pools. Run in
/// `PreStartup`, so every schedule after it (`Startup` on) is changed; the running one is not in
/// [`Schedules`] and keeps its executor for that one run.
fn run_main_world_on_one_thread(mut schedules: ResMut<Schedules>) {
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
    }
}

/// A model being loaded, not yet shown.
pub struct PendingLoad {
    pub path: PathBuf,
    pub handle: Handle<ModelAsset>,
    pub started: Instant,
    /// The file shown now, loaded again (Ctrl+R, `--watch`): camera, selection and toggles stay.
    pub reload: bool,
    pub progress: Arc<LoadProgress>,
}

impl PendingLoad {
    /// "group files 120 / 300, 1.2 s", for the menu bar.
    pub fn describe(&self) -> String {
        let (stage, done, total) = self.progress.snapshot();
        let seconds = self.started.elapsed().as_secs_f32();
        match (stage, total) {
            ("", _) => format!("{seconds:.1} s"),
            (stage, 0) => format!("{stage}, {seconds:.1} s"),
            // A LightWave object's pieces are ranges of polygons, of no interest by themselves: a share.
            ("meshes", total) => format!("meshes {} %, {seconds:.1} s", 100 * done / total),
            (stage, total) => format!("{stage} {done} / {total}, {seconds:.1} s"),
        }
    }
}

#[derive(Resource, Default)]
pub struct Viewer {
    pub data_root: Option<PathBuf>,
    pub game_data: Option<Arc<dyn crate::source::FileSource>>,
    /// `--listfile`'s path (every load is given it) and the list, read once.
    pub listfile: Option<(PathBuf, Arc<crate::source::Listfile>)>,
    pub pending: Option<PendingLoad>,
    pub current: Option<Handle<ModelAsset>>,
    pub current_path: Option<PathBuf>,
    pub scene_entity: Option<Entity>,
    pub load_time: Option<Duration>,
    /// The last failure, shown in the window until the next successful open.
    pub error: Option<String>,
    /// The progress the shown model's load reported to (its reloads report there too).
    pub current_progress: Option<Arc<LoadProgress>>,
    /// How many models have been put on screen (a reload counts), for scripts to see one happen.
    pub shown_count: u64,
    /// A passing message for the menu bar (what a drop of several files did, where a screenshot went).
    pub notice: Option<String>,
}

impl Viewer {
    /// Starts loading `path`; the model now shown stays until this one has loaded.
    pub fn open(&mut self, asset_server: &AssetServer, path: &Path) {
        let (path, handle, progress) = self.request(asset_server, path);
        // The shown file again (dropped, picked in Recent or the browser) is read again: the asset
        // server would hand back the loaded asset, which never reports a load.
        if self.current.as_ref().is_some_and(|shown| shown.id() == handle.id()) {
            self.reload(asset_server);
            return;
        }
        self.pending = Some(PendingLoad { path, handle, started: Instant::now(), reload: false, progress });
    }

    /// Asks the asset server for `path` with this viewer's settings, without waiting for it or
    /// showing it: the path as the viewer keeps it, the handle, and where the load reports. Asking
    /// again for a path still loading or loaded gives the same handle and loads nothing.
    pub fn request(&self, asset_server: &AssetServer, path: &Path) -> (PathBuf, Handle<ModelAsset>, Arc<LoadProgress>) {
        // A file of the game data is its own data root: the loader finds the rest in the same source.
        // A file on disk with `--data` draws from the game data opened at the start (`DATA_ROOT_SOURCE`).
        let (path, asset_path, data_source) = match game_data_path(path) {
            Some(inside) => {
                (path.to_path_buf(), AssetPath::parse(&format!("{GAME_DATA_SOURCE}://{inside}")).into_owned(), None)
            }
            None => {
                let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
                (path.clone(), AssetPath::from(path), self.data_root.as_ref().map(|_| DATA_ROOT_SOURCE.to_owned()))
            }
        };
        let progress = Arc::new(LoadProgress::default());
        let reported = progress.clone();
        let listfile = self.listfile.as_ref().map(|(path, _)| path.clone());
        let handle = asset_server
            .load_builder()
            .with_settings(move |s: &mut ModelLoaderSettings| {
                s.data_source = data_source.clone();
                s.listfile = listfile.clone();
                s.progress = Some(reported.clone());
            })
            .override_unapproved()
            .load(asset_path);
        (path, handle, progress)
    }

    /// The game data the shown file draws its textures and doodads from, for a second load of it (the
    /// export): the game data for a file inside it or with `--data`, else none (the folder holding
    /// `World` is found by walking up from the file).
    pub fn data_for_current(&self) -> Option<Arc<dyn crate::source::FileSource>> {
        let inside = self.current_path.as_deref().is_some_and(|p| game_data_path(p).is_some());
        (inside || self.data_root.is_some()).then(|| self.game_data.clone()).flatten()
    }

    /// Reads the shown file again; the model on screen stays until the new one has loaded (or failed).
    pub fn reload(&mut self, asset_server: &AssetServer) {
        let (Some(path), Some(handle)) = (self.current_path.clone(), self.current.clone()) else { return };
        // A reload keeps the settings of the first load, and so reports to its progress.
        let progress = self.current_progress.clone().unwrap_or_default();
        progress.restart();
        asset_server.reload(handle.path().cloned().unwrap_or_else(|| AssetPath::from(path.clone())));
        // The handle's asset is replaced in place: the load is over at its Modified or failed event.
        self.pending = Some(PendingLoad { path, handle, started: Instant::now(), reload: true, progress });
    }

    /// Stops the load in progress; the model shown stays.
    pub fn cancel(&mut self) {
        if let Some(pending) = self.pending.take() {
            pending.progress.cancel();
            let name = pending
                .path
                .file_name()
                .map_or_else(|| pending.path.display().to_string(), |n| n.to_string_lossy().into_owned());
            self.notice =
                Some(format!("cancelled loading {name} after {:.1} s", pending.started.elapsed().as_secs_f32()));
        }
    }
}

/// Sent once a newly loaded model is on screen, so the camera can frame it (unless it is the shown file
/// loaded again).
#[derive(Message, Clone, Copy)]
pub struct ModelShown {
    pub reload: bool,
}

/// The root entity of the shown scene.
#[derive(Component)]
pub struct ShownScene;

#[derive(Resource, Clone, Debug, PartialEq)]
pub struct ViewToggles {
    pub parts: Vec<bool>,
    pub portals: bool,
    pub liquids: bool,
    pub collision: bool,
    pub doodads: bool,
    pub doodad_set: u32,
}

impl Default for ViewToggles {
    fn default() -> Self {
        Self { parts: Vec::new(), portals: false, liquids: true, collision: false, doodads: true, doodad_set: 0 }
    }
}

impl ViewToggles {
    pub fn overlay_visible(&self, overlay: Overlay) -> bool {
        match overlay {
            Overlay::Portals => self.portals,
            Overlay::Liquid => self.liquids,
            Overlay::Collision => self.collision,
            Overlay::Doodad(set) => self.doodads && (set == 0 || set == self.doodad_set),
        }
    }
}

pub fn poll_pending_load(
    mut commands: Commands,
    mut viewer: ResMut<Viewer>,
    mut toggles: ResMut<ViewToggles>,
    asset_server: Res<AssetServer>,
    models: Res<Assets<ModelAsset>>,
    mut shown: MessageWriter<ModelShown>,
    mut panel: Option<ResMut<super::panel::PanelState>>,
    mut morphs: ResMut<MorphControls>,
    (mut changed, mut failed): (MessageReader<AssetEvent<ModelAsset>>, MessageReader<AssetLoadFailedEvent<ModelAsset>>),
) {
    // Read every frame, so that a reload only ever sees the events that came after it began.
    let changed: Vec<AssetId<ModelAsset>> =
        changed.read().filter_map(|e| if let AssetEvent::Modified { id } = e { Some(*id) } else { None }).collect();
    let failed: Vec<(AssetId<ModelAsset>, bevy::asset::AssetLoadError)> =
        failed.read().map(|f| (f.id, f.error.clone())).collect();
    let Some(pending) = &viewer.pending else { return };
    let state = if pending.reload {
        let id = pending.handle.id();
        if let Some((_, error)) = failed.iter().find(|(f, _)| *f == id) {
            LoadState::Failed(std::sync::Arc::new(error.clone()))
        } else if changed.contains(&id) {
            LoadState::Loaded
        } else {
            return;
        }
    } else {
        asset_server.load_state(&pending.handle)
    };
    match state {
        LoadState::Loaded => {
            let Some(model) = models.get(&pending.handle) else { return };
            let pending = viewer.pending.take().expect("checked above");
            // Another file starts with its morphs at rest, nothing picked and no chunk selected (the hex
            // view would show the last file's bytes); a reload of the same file keeps them.
            if viewer.current_path.as_ref().is_some_and(|shown| *shown != pending.path) {
                morphs.weights.clear();
                if let Some(panel) = panel.as_mut() {
                    panel.picked = None;
                    panel.selected = None;
                    panel.hex.clear();
                    panel.hex_base = 0;
                }
            }
            if let Some(old) = viewer.scene_entity.take() {
                commands.entity(old).despawn();
            }
            let entity = commands
                .spawn((WorldAssetRoot(model.scene.clone()), Transform::default(), Visibility::default(), ShownScene))
                .id();
            // The same file again keeps what the user toggled, as long as its parts still line up.
            let keep = pending.reload && toggles.parts.len() == model.description.parts.len();
            if !keep {
                *toggles = ViewToggles {
                    parts: model.description.parts.iter().map(|p| p.visible).collect(),
                    ..ViewToggles::default()
                };
            }
            for w in crate::scene::diagnostics::grouped_lines(&model.description.warnings) {
                warn!("{w}");
            }
            viewer.scene_entity = Some(entity);
            viewer.load_time = Some(pending.started.elapsed());
            viewer.current = Some(pending.handle);
            viewer.current_progress = Some(pending.progress.clone());
            viewer.current_path = Some(pending.path);
            viewer.error = None;
            if let Some(panel) = panel.as_mut() {
                panel.rejected = None;
                // The model's materials are new: they draw the textures it was loaded with.
                panel.texture_choices = vec![0; model.description.replaceable_textures.len()];
            }
            viewer.shown_count += 1;
            debug!("shown (reload: {}, {} ms)", pending.reload, pending.started.elapsed().as_millis());
            shown.write(ModelShown { reload: pending.reload });
        }
        LoadState::Failed(err) => {
            // Our loader's own message names the file, chunk and offset; Bevy's wrapper would add a
            // backtrace when one is being captured.
            let message = match &*err {
                bevy::asset::AssetLoadError::AssetLoaderError(e) => match e.error().downcast_ref::<ModelLoadError>() {
                    Some(ours) => ours.to_string(),
                    None => e.error().to_string().lines().next().unwrap_or_default().to_owned(),
                },
                other => other.to_string(),
            };
            error!("{message}");
            if let Some(panel) = panel.as_mut() {
                panel.rejected = super::panel::RejectedFile::read(&pending.path);
            }
            viewer.error = Some(message);
            viewer.pending = None;
        }
        _ => {}
    }
}

/// Draws the shown model's replaceable texture `texture` (its place in `Scene::replaceable_textures`)
/// with its BLP `choice`: every material drawing it takes that image. Returns whether it was done.
pub fn choose_texture(
    viewer: &Viewer,
    models: &Assets<ModelAsset>,
    materials: &mut Assets<crate::plugin::WmoMaterial>,
    panel: &mut super::panel::PanelState,
    texture: usize,
    choice: usize,
) -> bool {
    let Some(model) = viewer.current.as_ref().and_then(|h| models.get(h)) else { return false };
    let description = &model.description;
    let Some(offered) = description.replaceable_textures.get(texture) else { return false };
    let Some(image) = offered.choices.get(choice).and_then(|c| model.images.get(c.texture.texture)) else {
        return false;
    };
    for &m in &offered.materials {
        if let Some(crate::plugin::ModelMaterial::Game(handle)) = model.materials.get(m)
            && let Some(mut material) = materials.get_mut(handle)
        {
            material.base.base_color_texture = Some(image.clone());
        }
    }
    panel.texture_choices.resize(description.replaceable_textures.len(), 0);
    panel.texture_choices[texture] = choice;
    true
}

/// Applies the toggles and the portal culling to part and overlay entities; runs when either changes or
/// the scene grows.
pub fn apply_visibility(
    toggles: Res<ViewToggles>,
    culling: Option<Res<super::culling::PortalCulling>>,
    added: Query<(), Or<(Added<ModelPart>, Added<Overlay>)>>,
    mut parts: Query<(&ModelPart, Option<&Overlay>, &mut Visibility)>,
    mut overlays: Query<(&Overlay, Option<&DoodadInstance>, &mut Visibility), Without<ModelPart>>,
) {
    if !toggles.is_changed() && !culling.as_ref().is_some_and(|c| c.is_changed()) && added.is_empty() {
        return;
    }
    // Without the culling resource (an app that only toggles parts) nothing is culled.
    let culling = culling.as_deref().cloned().unwrap_or_else(|| super::culling::PortalCulling::new(false));
    for (part, overlay, mut visibility) in &mut parts {
        let shown = match overlay {
            Some(o) => toggles.overlay_visible(*o),
            None => toggles.parts.get(part.0).copied().unwrap_or(true) && culling.group_drawn(part.0),
        };
        visibility.set_if_neq(if shown { Visibility::Inherited } else { Visibility::Hidden });
    }
    for (overlay, doodad, mut visibility) in &mut overlays {
        let shown = toggles.overlay_visible(*overlay) && doodad.is_none_or(|d| culling.doodad_drawn(d.0));
        visibility.set_if_neq(if shown { Visibility::Inherited } else { Visibility::Hidden });
    }
}
