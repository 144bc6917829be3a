//! The egui side panel: file and stats, scene parts with visibility, materials, the chunk tree with
//! decoded fields and a hex view, warnings; and the error window. The UI is a plain function of its
//! inputs returning actions, so tests can drive it with a bare `egui::Context`.

use std::path::{Path, PathBuf};

use bevy::camera::Viewport;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, egui};

mod animation;
mod chunks;
mod scene;
mod texture;

pub use animation::Playback;

pub use chunks::{chunk_fields, hex_dump};
use chunks::{chunks_section, rejected_tree};

use super::morphs::MorphControls;
use super::overlays::ViewOptions;
use super::scene::{ViewToggles, Viewer};
use super::window::{FileDialog, save_recent};
use crate::formats::{ChunkId, ChunkTree};
use crate::plugin::ModelAsset;

const RECENT_LIMIT: usize = 10;
const HEX_BYTES: usize = 128;
/// The side panel's first width, its narrowest, and the least the 3D view keeps beside it (logical px).
const PANEL_WIDTH: f32 = 400.0;
const PANEL_MIN_WIDTH: f32 = 220.0;
const MIN_VIEW_WIDTH: f32 = 240.0;
/// How far either side of the panel's edge a drag resizes it (egui's default is 3 px).
pub const GRAB_RADIUS: f32 = 8.0;

#[derive(Resource, Default)]
pub struct PanelState {
    pub recent: Vec<PathBuf>,
    pub show_path_field: bool,
    /// The path field was drawn last frame (it is given the keyboard on the frame it opens).
    pub path_field_was_shown: bool,
    pub path_input: String,
    /// Selected chunk: file index in `ModelAsset::files` and the chunk there.
    pub selected: Option<(usize, ChunkSelection)>,
    /// Bytes of the selected chunk shown in the hex view, from file offset `hex_base`.
    pub hex: Vec<u8>,
    pub hex_base: usize,
    pub frame_time_ms: f32,
    /// The picked triangle, with the records it came from.
    pub picked: Option<super::picking::PickInfo>,
    /// Open the chunk tree down to the selected chunk in the next frame (after a pick).
    pub reveal: bool,
    /// The chunks of a file that could not be opened, up to where reading broke.
    pub rejected: Option<RejectedFile>,
    /// What File ▸ Export is doing or last did.
    pub export_status: Option<String>,
    /// The size of F12 and File ▸ Save screenshot images; `None`: the 3D view's size on screen.
    pub screenshot_size: Option<(u32, u32)>,
    /// The side panel is put away (N, View ▸ Panel): the 3D view takes the whole window.
    pub panel_hidden: bool,
    /// The scale the font atlas was filled at (see [`prepare_glyphs`]).
    pub glyphs_ready_at: f32,
    /// Where the side panel ends, in logical pixels from the window's left edge (its resize edge).
    pub panel_right: f32,
    /// The BLP drawn for each of the shown model's replaceable textures (`Scene::replaceable_textures`
    /// order; 0, the first, as loaded).
    pub texture_choices: Vec<usize>,
}

/// What the chunk list can select in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkSelection {
    /// A chunk of the file's tree.
    Chunk(ChunkId),
    /// An M2 header array (an M2 has no chunks), by name.
    Array(String),
}

/// A file its parser refused, walked as far as its chunks go.
#[derive(Clone, Debug, PartialEq)]
pub struct RejectedFile {
    pub name: String,
    pub tree: ChunkTree,
    pub error: Option<crate::formats::ParseError>,
}

impl RejectedFile {
    pub fn read(path: &Path) -> Option<Self> {
        let bytes = crate::source::read_file(path).ok()?;
        let (tree, error) = crate::formats::parse_chunk_tree(&bytes);
        // A file with no chunks to list (no model at all) is its error line alone.
        if tree.is_empty() {
            return None;
        }
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        Some(Self { name, tree, error })
    }
}

impl PanelState {
    /// Selects a chunk of a scene file and loads the first bytes of its data for the hex view: the
    /// bytes the file was parsed from, kept with it, never a second read from disk.
    pub fn show_chunk(
        &mut self,
        scene: &crate::scene::Scene,
        file: usize,
        selection: ChunkSelection,
        data: std::ops::Range<usize>,
        focus: Option<usize>,
        reveal: bool,
    ) {
        // From the chunk's start, or a little before the byte in focus (a picked record) when that
        // lies past the first rows.
        let start = focus.map_or(data.start, |at| (at.saturating_sub(32) & !15).max(data.start));
        let end = data.end.min(start + HEX_BYTES);
        self.hex = scene
            .files
            .get(file)
            .and_then(|f| f.bytes.get(start..end.min(f.bytes.len())))
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        self.hex_base = start;
        self.selected = Some((file, selection));
        self.reveal = reveal;
    }

    pub fn remember(&mut self, path: &Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(RECENT_LIMIT);
        save_recent(&self.recent);
    }
}

/// What the user asked for in this frame.
#[derive(Debug, Clone, PartialEq)]
pub enum PanelAction {
    Open(PathBuf),
    OpenDialog,
    Reload,
    SaveScreenshot,
    DismissError,
    SelectChunk {
        file: usize,
        selection: ChunkSelection,
        data_offset: usize,
        length: usize,
    },
    Export,
    /// Open the game data browser on the data root or the archive dropped last.
    Browse,
    /// Draw replaceable texture `texture` (its place in `Scene::replaceable_textures`) with its BLP `choice`.
    ChooseTexture {
        texture: usize,
        choice: usize,
    },
    /// Turn WMO portal culling on or off.
    PortalCulling(bool),
    /// Switch between the orbit and the fly camera.
    ToggleFly,
    /// Show mip level `level` of a texture opened on its own, or its alpha channel alone.
    ShowTexture {
        level: usize,
        alpha_only: bool,
    },
}

/// Everything the panel shows, borrowed from the app.
pub struct PanelInput<'a> {
    pub model: Option<&'a ModelAsset>,
    pub current_path: Option<&'a Path>,
    pub loading: Option<&'a Path>,
    pub error: Option<&'a str>,
    pub load_time_ms: Option<f32>,
    pub dialog_open: bool,
    pub notice: Option<&'a str>,
    /// How far the load is ("group files 120 / 300, 1.2 s").
    pub progress: Option<String>,
    pub culling: Option<&'a super::culling::PortalCulling>,
    /// The fly camera is on.
    pub flying: bool,
    /// The level and channel a texture opened on its own shows.
    pub texture_view: super::texture_view::TextureView,
}

pub fn draw_panel(
    mut contexts: EguiContexts,
    mut viewer: ResMut<Viewer>,
    mut state: ResMut<PanelState>,
    mut toggles: ResMut<ViewToggles>,
    mut options: ResMut<ViewOptions>,
    mut dialog: ResMut<FileDialog>,
    models: Res<Assets<ModelAsset>>,
    asset_server: Res<AssetServer>,
    time: Res<Time>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut cameras: Query<&mut Camera, With<super::camera::ViewCamera>>,
    mut export: ResMut<super::export::WindowExport>,
    mut morphs: ResMut<MorphControls>,
    mut screenshot_dialog: ResMut<super::screenshot::ScreenshotDialog>,
    mut wmo_materials: ResMut<Assets<crate::plugin::WmoMaterial>>,
    (switch, mut browser, mut culling, mut clock, mut motions, mut fly, mut texture_view): (
        Option<Res<super::browser::GameDataSwitch>>,
        ResMut<super::browser::ArchiveBrowser>,
        ResMut<super::culling::PortalCulling>,
        ResMut<crate::plugin::M2Clock>,
        ResMut<Assets<crate::plugin::M2Motion>>,
        ResMut<super::fly::FlyCamera>,
        ResMut<super::texture_view::TextureView>,
    ),
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let dt = time.delta_secs() * 1000.0;
    state.frame_time_ms = if state.frame_time_ms == 0.0 { dt } else { state.frame_time_ms * 0.95 + dt * 0.05 };
    let model = viewer.current.as_ref().and_then(|h| models.get(h));
    let input = PanelInput {
        model,
        current_path: viewer.current_path.as_deref(),
        loading: viewer.pending.as_ref().map(|p| p.path.as_path()),
        error: viewer.error.as_deref(),
        load_time_ms: viewer.load_time.map(|d| d.as_secs_f32() * 1000.0),
        dialog_open: dialog.is_open(),
        notice: viewer.notice.as_deref(),
        progress: viewer.pending.as_ref().map(|p| p.describe()),
        culling: Some(&culling),
        flying: fly.on,
        texture_view: *texture_view,
    };
    let mut edited = options.clone();
    let mut edited_morphs = morphs.clone();
    let before = model.map(|m| Playback::of(m, &motions, *clock));
    let mut playback = before.clone();
    let (actions, free) =
        inspector(ctx, &input, &mut state, &mut toggles, &mut edited, &mut edited_morphs, playback.as_mut());
    if let (Some(model), Some(before), Some(after)) = (model, before, playback)
        && after != before
    {
        *clock = after.clock;
        if after.playing != before.playing {
            // Another sequence starts from its beginning, looping or not as the last one did.
            let chosen = super::animation::opened_motion(model, &motions);
            if let Some(mut motion) = chosen.and_then(|h| motions.get_mut(&h)) {
                motion.sequence = after.playing;
            }
            clock.seconds = 0.0;
            clock.playing = true;
            if clock.stop_at.is_some() {
                clock.stop_at = after.playing.and_then(|p| after.sequences.get(p)).map(|(_, seconds)| *seconds);
            }
        }
    }
    if edited_morphs != *morphs {
        *morphs = edited_morphs;
    }
    if edited != *options {
        *options = edited;
    }
    if let Ok(window) = window.single() {
        let scale = window.scale_factor();
        let position = UVec2::new((free.left * scale) as u32, (free.top * scale) as u32);
        let full = UVec2::new(window.physical_width(), window.physical_height());
        let size = full.saturating_sub(position).max(UVec2::ONE);
        for mut camera in &mut cameras {
            camera.viewport =
                Some(Viewport { physical_position: position.min(full - UVec2::ONE), physical_size: size, ..default() });
        }
    }
    for action in actions {
        match action {
            PanelAction::Open(path) => {
                super::browser::open_recent(&mut viewer, &asset_server, switch.as_deref(), &path)
            }
            PanelAction::Browse => {
                if let Some(switch) = &switch {
                    let source = super::browser::browse_source(switch, &mut browser, viewer.current_path.as_deref());
                    browser.show(source);
                }
            }
            PanelAction::OpenDialog => {
                dialog.start(viewer.current_path.as_deref().and_then(Path::parent).map(Path::to_path_buf))
            }
            PanelAction::Reload => viewer.reload(&asset_server),
            PanelAction::PortalCulling(on) => culling.enabled = on,
            PanelAction::ToggleFly => fly.toggle(),
            PanelAction::ShowTexture { level, alpha_only } => {
                (texture_view.level, texture_view.alpha_only) = (level, alpha_only);
            }
            PanelAction::Export => {
                export.ask(viewer.current_path.as_deref().and_then(Path::parent).map(Path::to_path_buf))
            }
            PanelAction::SaveScreenshot => screenshot_dialog.ask(
                viewer.current_path.as_deref().and_then(Path::parent).map(Path::to_path_buf),
                super::screenshot::screenshot_name(viewer.current_path.as_deref()),
            ),
            PanelAction::DismissError => {
                viewer.error = None;
                state.rejected = None;
            }
            PanelAction::ChooseTexture { texture, choice } => {
                super::scene::choose_texture(&viewer, &models, &mut wmo_materials, &mut state, texture, choice);
            }
            PanelAction::SelectChunk { file, selection, data_offset, length } => {
                if let Some(model) = model {
                    state.show_chunk(
                        &model.description,
                        file,
                        selection,
                        data_offset..data_offset + length,
                        None,
                        false,
                    );
                }
            }
        }
    }
    Ok(())
}

/// File ▸ Screenshot size: the view's size, two common ones, or any other typed in.
fn screenshot_size_choice(ui: &mut egui::Ui, size: &mut Option<(u32, u32)>) {
    ui.horizontal(|ui| {
        ui.label("Screenshot size");
        ui.radio_value(size, None, "the view's");
        ui.radio_value(size, Some((1920, 1080)), "1920×1080");
        ui.radio_value(size, Some((3840, 2160)), "3840×2160");
        let mut custom = size.is_some_and(|s| s != (1920, 1080) && s != (3840, 2160));
        if ui.radio(custom, "other").clicked() && !custom {
            custom = true;
            *size = Some((1024, 1024));
        }
        if let (true, Some((w, h))) = (custom, size.as_mut()) {
            ui.add(egui::DragValue::new(w).range(16..=8192).suffix(" w"));
            ui.add(egui::DragValue::new(h).range(16..=8192).suffix(" h"));
        }
    });
}

/// The part of the window the panels leave for the 3D view, in logical pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FreeArea {
    pub left: f32,
    pub top: f32,
}

/// Draws the whole inspector into `ctx` and returns the user's actions and what the panels leave free.
pub fn inspector(
    ctx: &egui::Context,
    input: &PanelInput<'_>,
    state: &mut PanelState,
    toggles: &mut ViewToggles,
    options: &mut ViewOptions,
    morphs: &mut MorphControls,
    playback: Option<&mut Playback>,
) -> (Vec<PanelAction>, FreeArea) {
    let mut actions = Vec::new();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "viewer_root".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    let top = egui::Panel::top("menu").show(&mut root, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open… (Ctrl+O)").clicked() {
                    actions.push(PanelAction::OpenDialog);
                }
                if ui.button("Open path…").clicked() {
                    state.show_path_field = true;
                }
                if ui.add_enabled(input.current_path.is_some(), egui::Button::new("Reload (Ctrl+R)")).clicked() {
                    actions.push(PanelAction::Reload);
                }
                if ui.add_enabled(input.current_path.is_some(), egui::Button::new("Export glTF…")).clicked() {
                    actions.push(PanelAction::Export);
                }
                if ui.button("Save screenshot… (F12: beside the model)").clicked() {
                    actions.push(PanelAction::SaveScreenshot);
                }
                screenshot_size_choice(ui, &mut state.screenshot_size);
                if ui.button("Browse game data… (--data, or drop an .MPQ)").clicked() {
                    actions.push(PanelAction::Browse);
                }
                ui.separator();
                ui.label("Recent");
                for path in &state.recent {
                    if ui.button(super::browser::recent_label(path)).clicked() {
                        actions.push(PanelAction::Open(path.clone()));
                    }
                }
            });
            ui.menu_button("View", |ui| {
                let mut shown = !state.panel_hidden;
                if ui.checkbox(&mut shown, "Panel (N)").changed() {
                    state.panel_hidden = !shown;
                }
                let mut flying = input.flying;
                if ui
                    .checkbox(&mut flying, "Fly camera (V)")
                    .on_hover_text("W A S D move, Q E down and up, drag to look, wheel sets the speed, Shift faster")
                    .changed()
                {
                    actions.push(PanelAction::ToggleFly);
                }
            });
            if input.flying {
                ui.label("fly: W A S D, Q E, drag to look, wheel speed (V: orbit)");
            }
            if input.dialog_open {
                ui.label("the open dialog is up…");
            }
            if let Some(loading) = input.loading {
                ui.spinner();
                match &input.progress {
                    Some(progress) => ui.label(format!("loading {}: {progress} (Esc cancels)", loading.display())),
                    None => ui.label(format!("loading {}", loading.display())),
                };
            }
            if let Some(status) = &state.export_status {
                ui.label(status);
            }
            if let Some(notice) = input.notice {
                ui.label(notice);
            }
        });
    });
    if state.glyphs_ready_at != ctx.pixels_per_point() {
        prepare_glyphs(ctx);
        state.glyphs_ready_at = ctx.pixels_per_point();
    }
    if ctx.global_style().interaction.resize_grab_radius_side != GRAB_RADIUS {
        ctx.all_styles_mut(|style| style.interaction.resize_grab_radius_side = GRAB_RADIUS);
    }
    // The panel keeps the width the user gave it, whatever the file, and always leaves the 3D view room.
    let window_width = ctx.viewport_rect().width();
    let widest = (window_width - MIN_VIEW_WIDTH).max(window_width * 0.5);
    let mut expanded = !state.panel_hidden;
    let left = egui::Panel::left("inspector")
        .resizable(true)
        .default_size(PANEL_WIDTH.min(widest))
        .size_range(PANEL_MIN_WIDTH.min(widest)..=widest)
        .show_collapsible(&mut root, &mut expanded, |ui| {
            // Scrolling both ways, so content wider than the panel (hex rows, long names) never widens it.
            egui::ScrollArea::both().auto_shrink([false; 2]).show(ui, |ui| {
                file_section(ui, input, state);
                if let Some(model) = input.model {
                    warnings_section(ui, model);
                    texture::texture_section(ui, model, input.texture_view, &mut actions);
                }
                view_section(ui, options);
                if let Some(playback) = playback {
                    animation::playback_section(ui, playback);
                }
                if let Some(model) = input.model {
                    picked_section(ui, state);
                    scene::scene_section(ui, model, toggles, options, input.culling, &mut actions);
                    morphs_section(ui, model, morphs);
                    materials_section(ui, model);
                    replaceable_section(ui, model, state, &mut actions);
                    chunks_section(ui, model, state, &mut actions);
                } else if input.loading.is_none() {
                    ui.label(
                        "No file open. Drop a .lwo, .lxo, .wmo, .m2 or .blp file (or an .MPQ archive) on the window, or use \
                         File > Open (Ctrl+O).",
                    );
                }
            });
        });
    state.panel_hidden = !expanded;
    let panel_right = left.map_or(ctx.viewport_rect().left(), |l| l.response.rect.right());
    state.panel_right = panel_right;
    let free = FreeArea { left: panel_right, top: top.response.rect.bottom() };
    state.reveal = false;
    if state.show_path_field {
        egui::Window::new("Open a file by path").collapsible(false).show(ctx, |ui| {
            ui.label("No file dialog is available here (it needs xdg-desktop-portal or zenity). Type a path:");
            let response = ui.text_edit_singleline(&mut state.path_input);
            // The field takes the keyboard as it opens, so the keys typed next are not lost. (Asked
            // before the field is drawn, egui drops the request: the field is not known yet.)
            if !state.path_field_was_shown {
                response.request_focus();
                state.path_field_was_shown = true;
            }
            let enter = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.horizontal(|ui| {
                if ui.button("Open").clicked() || enter {
                    actions.push(PanelAction::Open(PathBuf::from(state.path_input.trim())));
                    state.show_path_field = false;
                }
                if ui.button("Cancel").clicked() {
                    state.show_path_field = false;
                }
            });
        });
    }
    if !state.show_path_field {
        state.path_field_was_shown = false;
    }
    if let Some(error) = input.error {
        egui::Window::new("Could not open the file").id("error_panel".into()).collapsible(false).show(ctx, |ui| {
            ui.colored_label(egui::Color32::from_rgb(255, 120, 100), error);
            if input.model.is_some() {
                ui.label("The model that was open is still shown.");
            }
            if let Some(rejected) = &state.rejected {
                rejected_tree(ui, rejected);
            }
            if ui.button("Dismiss").clicked() {
                actions.push(PanelAction::DismissError);
            }
        });
    }
    (actions, free)
}

/// Lays out every character the panel writes in every size it writes them, so their glyphs are in
/// egui's font atlas from the first frame: a glyph drawn for the first time reaches the renderer a
/// frame or more later, and a changing number ("frame time 184.3 ms") showed gaps until it did.
fn prepare_glyphs(ctx: &egui::Context) {
    const CHARACTERS: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~×·…–—°±²³µ½→←↑↓";
    let mut fonts: Vec<egui::FontId> = ctx.global_style().text_styles.values().cloned().collect();
    fonts.push(egui::FontId::monospace(10.0));
    // egui rasterises each glyph at four sub-pixel offsets (quarter pixels): each line starts a quarter
    // pixel further on, so every character meets every offset.
    let quarter_pixel = 0.25 / ctx.pixels_per_point();
    ctx.fonts_mut(|view| {
        for font in fonts {
            for shift in 0..4 {
                let mut job = egui::text::LayoutJob::default();
                let format = egui::TextFormat::simple(font.clone(), egui::Color32::WHITE);
                job.append(CHARACTERS, shift as f32 * quarter_pixel, format);
                view.layout_job(job);
            }
        }
    });
}

/// The rejected file's chunks as far as they could be read, the one where reading broke marked.
fn file_section(ui: &mut egui::Ui, input: &PanelInput<'_>, state: &PanelState) {
    egui::CollapsingHeader::new("File").default_open(true).show(ui, |ui| {
        if let Some(path) = input.current_path {
            ui.label(path.display().to_string());
        }
        if let Some(model) = input.model {
            if let Some(document) = model.description.files.first().and_then(|f| f.document.as_ref()) {
                ui.label(format!("format: {}", document.format.name()));
            }
            let stats = &model.description.stats;
            ui.label(format!(
                "drawn: vertices {}   triangles {}   draw calls {}",
                stats.vertices, stats.triangles, stats.draw_calls
            ))
            .on_hover_text(
                "What the view draws: vertices as the meshes were built (the ones no triangle uses left out, \
                 split where normals or texture coordinates differ), doodads and their materials included. \
                 --info counts the file's own records instead (a WMO's MOVT vertices, an M2's vertex array).",
            );
        }
        if let Some(ms) = input.load_time_ms {
            ui.label(format!("load time {ms:.0} ms"));
        }
        ui.label(format!("frame time {:.1} ms", state.frame_time_ms));
    });
}

fn view_section(ui: &mut egui::Ui, options: &mut ViewOptions) {
    egui::CollapsingHeader::new("View").default_open(true).show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut options.wireframe, "wireframe");
            ui.checkbox(&mut options.normals, "normals");
            ui.checkbox(&mut options.grid, "grid");
            ui.checkbox(&mut options.axes, "axes");
            ui.checkbox(&mut options.backface_culling, "back-face culling");
            ui.checkbox(&mut options.unlit, "unlit");
            ui.checkbox(&mut options.watch, "watch files")
                .on_hover_text("reload when the model or one of its files changes on disk");
            ui.label("background");
            ui.color_edit_button_rgb(&mut options.background);
        });
    });
}

/// A slider per morph target (LightWave's endomorphs), 0 at rest to 1 fully applied, and a reset.
fn morphs_section(ui: &mut egui::Ui, model: &ModelAsset, morphs: &mut MorphControls) {
    let names = model.description.morph_target_names();
    if names.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Morphs ({})", names.len())).default_open(true).show(ui, |ui| {
        for name in &names {
            let mut weight = morphs.weight(name);
            if ui.add(egui::Slider::new(&mut weight, 0.0..=1.0).text(*name)).changed() {
                let _ = morphs.set(name, weight);
            }
        }
        if ui.add_enabled(!morphs.weights.is_empty(), egui::Button::new("Reset")).clicked() {
            morphs.weights.clear();
        }
    });
}

fn materials_section(ui: &mut egui::Ui, model: &ModelAsset) {
    let all = model.description.material_infos.len();
    // A WMO's own MOMT materials come first, its doodads' after them: said apart, as --info counts only
    // the first.
    let own = match model.description.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model) {
        Some(crate::formats::Model::WmoRoot(root)) => Some(root.materials.len().min(all)),
        _ => None,
    };
    let header = match own {
        Some(own) if own < all => format!("Materials ({own} of the WMO, {} of its doodads)", all - own),
        _ => format!("Materials ({all})"),
    };
    egui::CollapsingHeader::new(header).id_salt("materials").show(ui, |ui| {
        for (i, m) in model.description.material_infos.iter().enumerate() {
            egui::CollapsingHeader::new(format!("{i}: {}", m.name)).id_salt(("material", i)).show(ui, |ui| {
                for (k, v) in &m.parameters {
                    ui.label(format!("{k}: {v}"));
                }
                if let Some((name, found)) = &m.texture {
                    let text = if *found { format!("texture: {name}") } else { format!("texture: {name} (missing)") };
                    ui.label(text);
                }
            });
        }
    });
}

/// An M2's replaceable textures (creature skins …) and the BLPs beside the model that can stand in for
/// them, as WoW Model Viewer offers them.
fn replaceable_section(ui: &mut egui::Ui, model: &ModelAsset, state: &PanelState, actions: &mut Vec<PanelAction>) {
    let offered = &model.description.replaceable_textures;
    if offered.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Replaceable textures ({})", offered.len())).default_open(true).show(
        ui,
        |ui| {
            for (i, r) in offered.iter().enumerate() {
                let chosen = state.texture_choices.get(i).copied().unwrap_or(0);
                let model_name = crate::scene::file_name(&r.model_file);
                let shown = r.choices.get(chosen).map_or("–", |c| c.name.as_str());
                egui::ComboBox::from_label(format!("{model_name} texture {} (type {})", r.texture, r.kind))
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        for (c, choice) in r.choices.iter().enumerate() {
                            if ui.selectable_label(c == chosen, &choice.name).clicked() && c != chosen {
                                actions.push(PanelAction::ChooseTexture { texture: i, choice: c });
                            }
                        }
                    });
            }
        },
    );
}

/// The picked triangle: where it lives in the file and what its records say.
fn picked_section(ui: &mut egui::Ui, state: &PanelState) {
    let Some(picked) = &state.picked else { return };
    egui::CollapsingHeader::new("Picked triangle (Esc clears)").default_open(true).show(ui, |ui| {
        ui.label(egui::RichText::new(&picked.heading).strong());
        if let Some((modd, model, set)) = &picked.doodad {
            ui.label(format!("doodad: MODD entry {modd}, {model}, set {set}"));
        }
        if !picked.chunk_path.is_empty() {
            ui.label(format!(
                "record {} in {}, bytes {}..{}",
                picked.record, picked.chunk_path, picked.bytes.start, picked.bytes.end
            ));
        }
        for (name, value) in &picked.fields {
            ui.label(format!("{name}: {value}"));
        }
    });
}

fn warnings_section(ui: &mut egui::Ui, model: &ModelAsset) {
    let warnings = &model.description.warnings;
    if warnings.is_empty() {
        return;
    }
    let lines = crate::scene::diagnostics::grouped_lines(warnings);
    let yellow = egui::Color32::from_rgb(240, 200, 90);
    let header = egui::RichText::new(format!("Warnings ({})", warnings.len())).color(yellow);
    // Open when it is short; a long list stays one line until asked for, so the panel below stays in reach.
    egui::CollapsingHeader::new(header).id_salt("warnings").default_open(lines.len() <= 6).show(ui, |ui| {
        for line in lines {
            ui.label(egui::RichText::new(line).color(yellow));
        }
    });
}
