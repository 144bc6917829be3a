//! The inspector panel without a window: a bare egui context draws it, and the drawn text is read back.

use std::sync::Arc;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_egui::egui;
use lwo_wmo_viewer::fixtures::wmo::sample_scene;
use lwo_wmo_viewer::formats::parse_document;
use lwo_wmo_viewer::mesh::Bounds;
use lwo_wmo_viewer::plugin::{DoodadInfo, ModelAsset, ModelPart, Overlay, PartInfo};
use lwo_wmo_viewer::scene::{Scene, SceneFile};
use lwo_wmo_viewer::viewer::morphs::MorphControls;
use lwo_wmo_viewer::viewer::overlays::ViewOptions;
use lwo_wmo_viewer::viewer::panel::{ChunkSelection, FreeArea, PanelInput, PanelState, inspector};
use lwo_wmo_viewer::viewer::scene::{ViewToggles, apply_visibility};

fn sample_model() -> ModelAsset {
    let root = &sample_scene().files("courtyard")[0].1;
    let document = Some(Arc::new(parse_document(root).unwrap()));
    let part = |name: &str| PartInfo { name: name.into(), description: "interior".into(), parent: None, visible: true };
    ModelAsset {
        scene: Handle::default(),
        description: Scene {
            files: vec![scene_file("courtyard.wmo", root, document)],
            parts: vec![part("Hall"), part("Courtyard"), part("Tower")],
            doodad_sets: vec!["Set_$DefaultGlobal".into(), "Set_Furniture".into()],
            doodads: vec![DoodadInfo {
                set: 0,
                model: "World\\Generic\\Barrel.m2".into(),
                position: [20.0, 0.0, -6.0],
                scale: 1.0,
            }],
            portal_count: 2,
            bounds: Bounds::EMPTY,
            ..Scene::default()
        },
        meshes: Vec::new(),
        images: Vec::new(),
        materials: Vec::new(),
        standard_materials: Vec::new(),
        wmo_materials: Vec::new(),
        motions: Vec::new(),
    }
}

fn scene_file(path: &str, bytes: &[u8], document: Option<Arc<lwo_wmo_viewer::formats::Document>>) -> SceneFile {
    SceneFile { path: path.into(), display_path: path.into(), bytes: Arc::from(bytes), document }
}

fn texts(shapes: &[egui::epaint::ClippedShape]) -> String {
    fn walk(shape: &egui::Shape, out: &mut String) {
        match shape {
            egui::Shape::Text(t) => {
                out.push_str(t.galley.text());
                out.push('\n');
            }
            egui::Shape::Vec(inner) => inner.iter().for_each(|s| walk(s, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    for s in shapes {
        walk(&s.shape, &mut out);
    }
    out
}

/// What the panel selects for `path` in the scene's first file: the chunk at that path, else (an M2)
/// the header array of that name.
fn selection(scene: &Scene, path: &str) -> Option<(usize, ChunkSelection)> {
    let chunk = scene.files[0].document.as_ref().and_then(|d| d.tree.find_path(path));
    Some((0, chunk.map_or_else(|| ChunkSelection::Array(path.to_owned()), ChunkSelection::Chunk)))
}

/// Draws the panel with `selected` chunk and returns all text on screen.
fn draw(model: &ModelAsset, selected: &str) -> String {
    let mut state = PanelState { selected: selection(&model.description, selected), ..Default::default() };
    run_panel(Some(model), None, &mut state, &mut ViewToggles { parts: vec![true; 3], ..Default::default() }, false)
}

/// Runs the inspector twice on a bare context (egui lays out in the first pass and settles in the
/// second) and returns the text of the last frame; `reveal` opens the tree down to the selection.
fn run_panel(
    model: Option<&ModelAsset>,
    error: Option<&str>,
    state: &mut PanelState,
    toggles: &mut ViewToggles,
    reveal: bool,
) -> String {
    run_panel_in(model, error, state, toggles, reveal, egui::vec2(1400.0, 8000.0), 2).text
}

/// What one run of the panel drew: its text, the room it left the 3D view, and the shapes themselves.
struct Drawn {
    text: String,
    free: FreeArea,
    shapes: Vec<egui::epaint::ClippedShape>,
}

/// What the panel is given when no file is loading and no dialog is up.
fn panel_input<'a>(model: Option<&'a ModelAsset>, error: Option<&'a str>) -> PanelInput<'a> {
    PanelInput {
        model,
        current_path: None,
        loading: None,
        error,
        load_time_ms: None,
        dialog_open: false,
        notice: None,
        progress: None,
        culling: None,
        flying: false,
        texture_view: Default::default(),
    }
}

/// One frame of the inspector on `ctx`, `size` logical pixels at `time` seconds: egui's output and the
/// room left to the 3D view.
fn panel_frame(
    ctx: &egui::Context,
    input: &PanelInput<'_>,
    state: &mut PanelState,
    toggles: &mut ViewToggles,
    size: egui::Vec2,
    time: f64,
) -> (egui::FullOutput, FreeArea) {
    let raw = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
        time: Some(time),
        ..Default::default()
    };
    let mut free = FreeArea { left: 0.0, top: 0.0 };
    let output = ctx.run_ui(raw, |ui| {
        let options = &mut ViewOptions::default();
        free = inspector(ui.ctx(), input, state, toggles, options, &mut MorphControls::default(), None).1;
    });
    (output, free)
}

/// The inspector drawn `passes` times on a bare context of `size` logical pixels, its clock moving a
/// tenth of a second a pass so egui's open and close animations finish.
fn run_panel_in(
    model: Option<&ModelAsset>,
    error: Option<&str>,
    state: &mut PanelState,
    toggles: &mut ViewToggles,
    reveal: bool,
    size: egui::Vec2,
    passes: usize,
) -> Drawn {
    let ctx = egui::Context::default();
    let input = panel_input(model, error);
    let mut drawn = Drawn { text: String::new(), free: FreeArea { left: 0.0, top: 0.0 }, shapes: Vec::new() };
    for pass in 0..passes {
        state.reveal = reveal;
        let (mut output, free) = panel_frame(&ctx, &input, state, toggles, size, pass as f64 * 0.1);
        // No renderer here to upload the font atlas to.
        output.textures_delta.clear();
        drawn = Drawn { text: texts(&output.shapes), free, shapes: output.shapes };
    }
    drawn
}

#[test]
fn chunk_tree_lists_mohd_and_momt_with_decoded_fields() {
    let model = sample_model();
    let with_mohd = draw(&model, "MOHD");
    assert!(with_mohd.contains("MOHD") && with_mohd.contains("MOMT"), "{with_mohd}");
    assert!(with_mohd.contains("groups: 3"), "{with_mohd}");
    assert!(with_mohd.contains("doodad sets: 2"));
    assert!(with_mohd.contains("ambient (RGBA): [40, 40, 40, 255]"));
    let with_momt = draw(&model, "MOMT");
    assert!(with_momt.contains("material 5: blend 5 (mod2x)"), "{with_momt}");
    assert!(with_momt.contains("material 8: blend 0 (opaque), flags 0x4 [two-sided]"), "{with_momt}");
    assert!(with_momt.contains("Hall") && with_momt.contains("Set_$DefaultGlobal"));
    assert!(with_momt.contains("doodads shown (1)"), "{with_momt}");
}

#[test]
fn unticking_a_group_hides_its_entity() {
    let mut world = World::new();
    world.insert_resource(ViewToggles { parts: vec![true, true], ..Default::default() });
    let hall = world.spawn((ModelPart(0), Visibility::Inherited)).id();
    let yard = world.spawn((ModelPart(1), Visibility::Inherited)).id();
    world.run_system_once(apply_visibility).unwrap();
    world.resource_mut::<ViewToggles>().parts[0] = false;
    world.run_system_once(apply_visibility).unwrap();
    assert_eq!(world.get::<Visibility>(hall), Some(&Visibility::Hidden));
    assert_eq!(world.get::<Visibility>(yard), Some(&Visibility::Inherited));
}

/// Choosing another doodad set in the panel swaps the instances shown (set 0 stays) without reloading:
/// the doodad entities of the other sets are only hidden.
#[test]
fn choosing_a_doodad_set_swaps_the_instances_shown() {
    let mut world = World::new();
    world.insert_resource(ViewToggles::default());
    let always = world.spawn((Overlay::Doodad(0), Visibility::Inherited)).id();
    let furniture = world.spawn((Overlay::Doodad(1), Visibility::Hidden)).id();
    let other = world.spawn((Overlay::Doodad(2), Visibility::Hidden)).id();
    world.run_system_once(apply_visibility).unwrap();
    world.resource_mut::<ViewToggles>().doodad_set = 1;
    world.run_system_once(apply_visibility).unwrap();
    let visibility = |world: &World, e| *world.get::<Visibility>(e).unwrap();
    assert_eq!(
        [always, furniture, other].map(|e| visibility(&world, e)),
        [Visibility::Inherited, Visibility::Inherited, Visibility::Hidden]
    );
    world.resource_mut::<ViewToggles>().doodad_set = 2;
    world.run_system_once(apply_visibility).unwrap();
    assert_eq!(
        [always, furniture, other].map(|e| visibility(&world, e)),
        [Visibility::Inherited, Visibility::Hidden, Visibility::Inherited]
    );
}

#[test]
fn an_m2_lists_its_header_arrays_in_place_of_chunks_and_its_texture_units_as_parts() {
    let (_, barrel) = &lwo_wmo_viewer::fixtures::m2::sample_doodads()[0];
    let bytes = lwo_wmo_viewer::fixtures::m2::write_model(barrel);
    let document = Some(Arc::new(parse_document(&bytes).unwrap()));
    let mut model = sample_model();
    model.description.files = vec![scene_file("Barrel.m2", &bytes, document)];
    model.description.parts = (0..3)
        .map(|u| PartInfo {
            name: format!("Unit {u}: submesh {u} (geoset {u})"),
            description: "blend 0".into(),
            parent: None,
            visible: true,
        })
        .collect();
    model.description.doodad_sets.clear();
    model.description.doodads.clear();
    let text = draw(&model, "vertices");
    assert!(text.contains("MD20 version 264"), "{text}");
    assert!(text.contains("vertices") && text.contains("texture lookup") && text.contains("materials"), "{text}");
    assert!(text.contains("header field at 0x3C: count 52"), "the selected array's fields: {text}");
    assert!(text.contains("Unit 2: submesh 2"), "{text}");
}

/// The panel over a scene the library built from a real file, with `selected` chunk opened.
fn draw_scene(path: &std::path::Path, selected: &str) -> String {
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(path);
    let description = lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default()).unwrap();
    let parts = description.parts.len();
    let model = ModelAsset {
        scene: Handle::default(),
        description,
        meshes: Vec::new(),
        images: Vec::new(),
        materials: Vec::new(),
        standard_materials: Vec::new(),
        wmo_materials: Vec::new(),
        motions: Vec::new(),
    };
    let mut state = PanelState { selected: selection(&model.description, selected), ..Default::default() };
    run_panel(Some(&model), None, &mut state, &mut ViewToggles { parts: vec![true; parts], ..Default::default() }, true)
}

#[test]
fn a_lightwave_file_with_several_layers_shows_each_layer_and_its_decoded_chunk() {
    let file = std::path::Path::new("/usr/share/assimp/models/LWO/LWO2/hierarchy.lwo");
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(file);
    let scene = lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default()).unwrap();
    assert!(scene.parts.len() > 1, "hierarchy.lwo has several layers");
    let text = draw_scene(file, "FORM/LAYR[1]");
    for part in &scene.parts {
        assert!(text.contains(&part.name), "layer {} not listed: {text}", part.name);
    }
    let Some(lwo_wmo_viewer::formats::Model::Lwo(object)) = scene.files[0].document.as_deref().map(|d| &d.model) else {
        panic!()
    };
    let second = &object.layers[1];
    assert!(
        text.contains(&format!("number: {}", second.number)) && text.contains(&format!("name: {}", second.name)),
        "{text}"
    );
    assert!(text.contains(&format!("points: {}", second.points.len())), "{text}");
}

#[test]
fn lwo3_surfaces_show_by_name_with_their_fields_and_node_graph() {
    let file = crate::lwo3::content_root().join("Objects/Cube04-MultipleStandard.lwo");
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(&file);
    let scene = lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default()).unwrap();
    let document = scene.files[0].document.clone().unwrap();
    // The surface form named Back, by the path the format layer gives it.
    let back = document.tree.paths().into_iter().find_map(|(path, id)| {
        let node = document.tree.node(id);
        (node.is_form(b"SURF") && node.label().contains("\"Back\"")).then_some(path)
    });
    let back = back.expect("a FORM SURF named Back");
    assert!(back.starts_with("FORM LWO3/FORM SURF \"Back\""), "{back}");
    let text = draw_scene(&file, &back);
    assert!(text.contains("FORM SURF \"Back\""), "{text}");
    assert!(text.contains("name: Back"), "the selected surface's decoded fields: {text}");
    let back_material = scene.material_infos.iter().find(|m| m.name == "Back").unwrap();
    let shading = &back_material.parameters.iter().find(|(k, _)| k == "shading").unwrap().1;
    assert!(shading.starts_with("node material: base 0.000 0.502 0.000"), "{shading}");
    assert!(
        back_material.parameters.iter().any(|(k, v)| k == "node" && v.contains("Principled BSDF")),
        "{:?}",
        back_material.parameters
    );
}

#[test]
fn a_file_that_cannot_be_opened_shows_its_chunks_up_to_the_break() {
    let dir = crate::support::scratch("panel-rejected");
    let bad = dir.join("bad.wmo");
    std::fs::write(&bad, b"REVM\x04\x00\x00\x00\x11\x00\x00\x00DHOM\x40\x00\x00\x00\x01\x02").unwrap();
    let rejected = lwo_wmo_viewer::viewer::panel::RejectedFile::read(&bad).unwrap();
    let mut state = PanelState { rejected: Some(rejected), ..Default::default() };
    let text = run_panel(None, Some("bad.wmo: MOHD at byte 16: …"), &mut state, &mut ViewToggles::default(), false);
    assert!(text.contains("MVER") && text.contains("bad.wmo: the chunks up to where reading broke"), "{text}");
    let mohd = text.lines().find(|l| l.contains("MOHD") && l.contains('@')).unwrap_or_default();
    assert!(mohd.contains("reading broke here"), "{text}");
}

#[test]
fn a_lightwave_object_with_morphs_shows_a_slider_per_morph() {
    let file = crate::lwo3::content_root().join("Objects/Cube10-Morphs.lwo");
    let text = draw_scene(&file, "");
    assert!(text.contains("Morphs (3)"), "{text}");
    for name in ["Random", "Tall & Skinny", "Wide", "Reset"] {
        assert!(text.contains(name), "{name}: {text}");
    }
    // A file without morphs has no such section.
    let plain = draw_scene(&crate::lwo3::content_root().join("Objects/Cube04-MultipleStandard.lwo"), "");
    assert!(!plain.contains("Morphs ("), "{plain}");
}

/// The Scene section names the parts as the file does and offers only the overlays the file has: a
/// LightWave object's layers (no liquid or collision toggles), a WMO's groups with its liquid and
/// collision toggles, an M2's texture units with the skin they come from.
#[test]
fn the_scene_section_fits_each_format() {
    let hierarchy = std::path::Path::new("/usr/share/assimp/models/LWO/LWO2/hierarchy.lwo");
    let lwo = draw_scene(hierarchy, "");
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(hierarchy);
    let layers = lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default()).unwrap().parts.len();
    assert!(lwo.contains(&format!("Scene: {layers} layers")), "{lwo}");
    assert!(!lwo.contains("liquids") && !lwo.contains("collision-only"), "{lwo}");
    let wmo = draw_scene(&crate::support::asset("courtyard.wmo"), "");
    assert!(wmo.contains("Scene: ") && wmo.contains(" groups"), "{wmo}");
    assert!(wmo.contains("liquids") && wmo.contains("collision-only triangles"), "{wmo}");
    let m2 = draw_scene(&crate::support::asset("World/Generic/Barrel.m2"), "");
    assert!(m2.contains(" texture units") && m2.contains("view: Barrel00.skin (skin 1 of 1)"), "{m2}");
    assert!(!m2.contains("liquids") && !m2.contains("collision-only"), "{m2}");
}

/// The panel keeps one width whatever the file (the user's, 400 px at first), leaves the 3D view at
/// least 240 px of a 480 px window, and gives the whole window to the view when put away (N).
#[test]
fn the_panel_keeps_its_width_leaves_the_view_room_and_can_be_put_away() {
    let wide = egui::vec2(1400.0, 900.0);
    let mut toggles = ViewToggles { parts: vec![true; 3], ..Default::default() };
    let courtyard = sample_model();
    let mut state = PanelState { selected: selection(&courtyard.description, "MOHD"), ..Default::default() };
    let first = run_panel_in(Some(&courtyard), None, &mut state, &mut toggles, true, wide, 3);
    // A file with long names and long rows: the panel scrolls sideways rather than widening.
    let hierarchy = std::path::Path::new("/usr/share/assimp/models/LWO/LWO2/hierarchy.lwo");
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(hierarchy);
    let mut description = lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default()).unwrap();
    description.parts[0].name = "a layer name far longer than any panel is wide, so that it would push".repeat(3);
    let lwo = ModelAsset { description, ..sample_model() };
    let mut toggles_lwo = ViewToggles { parts: vec![true; lwo.description.parts.len()], ..Default::default() };
    let second = run_panel_in(Some(&lwo), None, &mut state, &mut toggles_lwo, false, wide, 3);
    assert_eq!(first.free.left, 400.0, "the first width");
    assert_eq!(second.free.left, first.free.left, "another file, another width");

    let small = run_panel_in(
        Some(&courtyard),
        None,
        &mut PanelState::default(),
        &mut toggles,
        false,
        egui::vec2(480.0, 360.0),
        3,
    );
    assert!(
        small.free.left <= 240.0 && small.free.left > 100.0,
        "a 480 px window keeps 240 px of view: {:?}",
        small.free
    );

    let mut hidden = PanelState { panel_hidden: true, ..Default::default() };
    let away = run_panel_in(Some(&courtyard), None, &mut hidden, &mut toggles, false, wide, 12);
    assert_eq!(away.free.left, 0.0, "a panel put away leaves the window to the view");
    assert!(!away.text.contains("Chunks"), "{}", away.text);
}

/// A hex row is one line at any panel width: the dump of MOHD's 64 bytes (from 0x14) is four rows, each
/// with its offset, sixteen bytes and their characters, in a 480 px window too.
#[test]
fn hex_rows_never_wrap() {
    let courtyard = sample_model();
    let mohd = courtyard.description.files[0].document.as_ref().unwrap().tree.find_path("MOHD").unwrap();
    let data = courtyard.description.files[0].document.as_ref().unwrap().tree.node(mohd).data_range();
    let mut state = PanelState::default();
    state.show_chunk(&courtyard.description, 0, ChunkSelection::Chunk(mohd), data, None, true);
    let mut toggles = ViewToggles { parts: vec![true; 3], ..Default::default() };
    let drawn = run_panel_in(Some(&courtyard), None, &mut state, &mut toggles, true, egui::vec2(480.0, 2000.0), 3);
    let mut dump = None;
    fn find(shape: &egui::Shape, dump: &mut Option<Arc<egui::Galley>>) {
        match shape {
            egui::Shape::Text(t) if t.galley.text().starts_with("00000014  ") => *dump = Some(t.galley.clone()),
            egui::Shape::Vec(inner) => inner.iter().for_each(|s| find(s, dump)),
            _ => {}
        }
    }
    drawn.shapes.iter().for_each(|s| find(&s.shape, &mut dump));
    let dump = dump.unwrap_or_else(|| panic!("no hex dump drawn: {}", drawn.text));
    let lines = dump.text().lines().count();
    assert_eq!(lines, 4, "{}", dump.text());
    // One laid-out row per line of text (a trailing empty row after the last newline aside).
    let rows = dump.rows.iter().filter(|r| !r.glyphs.is_empty()).count();
    assert_eq!(rows, lines, "the hex rows wrapped: {} rows for {lines} lines", rows);
}

/// Warnings come right after the file's own section, with their count, before the view options, the
/// scene and the chunk tree; a long list is one header line until opened.
#[test]
fn warnings_come_near_the_top_with_their_count() {
    use lwo_wmo_viewer::scene::diagnostics::{Diagnostic, DiagnosticKind};
    let mut courtyard = sample_model();
    for i in 0..3 {
        courtyard.description.warnings.push(Diagnostic::new(
            DiagnosticKind::MissingFile,
            "courtyard.wmo",
            format!("doodad World\\Generic\\Crate{i}.m2: not found under the data root; a marker is shown"),
        ));
    }
    let text = draw(&courtyard, "");
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle} not drawn: {text}"));
    // ("View" is also the menu bar's: the section is found by its first option.)
    let warnings = at("Warnings (3)");
    assert!(warnings < at("wireframe") && warnings < at("Scene: ") && at("Scene: ") < at("Chunks"), "{text}");
    assert!(text.contains("Crate1.m2"), "a short list is open: {text}");
}

/// The legend names the marks the model has: a built courtyard with a doodad whose model is missing
/// has its marker explained, with portals and collision; an LWO's legend has no marker line.
#[test]
fn the_legend_names_the_marks_the_model_has() {
    let dir = crate::support::scratch("panel-legend");
    crate::support::copy_folder(&crate::support::asset(""), &dir);
    std::fs::remove_file(dir.join("World/Generic/Lamp.m2")).unwrap();
    let wmo = draw_scene(&dir.join("courtyard.wmo"), "");
    assert!(wmo.contains("Legend"), "{wmo}");
    assert!(wmo.contains("a doodad whose model was not found"), "{wmo}");
    assert!(wmo.contains("portals (MOPT)") && wmo.contains("collision-only triangles, when ticked"), "{wmo}");
    let lwo = draw_scene(std::path::Path::new("/usr/share/assimp/models/LWO/LWO2/hierarchy.lwo"), "");
    // Closed until opened, where no doodad marker needs explaining.
    assert!(lwo.contains("Legend") && !lwo.contains("doodad whose model"), "{lwo}");
}

/// The window says what its counts count: drawn vertices (not the file's records, which --info gives),
/// and a WMO's own materials apart from its doodads'.
#[test]
fn the_counts_say_what_they_count() {
    let wmo = draw_scene(&crate::support::asset("courtyard.wmo"), "");
    assert!(wmo.contains("drawn: vertices "), "{wmo}");
    assert!(wmo.contains(" of the WMO, ") && wmo.contains(" of its doodads)"), "{wmo}");
}

/// Text the panel shows later (a frame time, a count) draws with glyphs already in egui's font atlas:
/// the first frame fills it, so no later frame has to upload new glyphs before they can be seen.
#[test]
fn later_text_needs_no_new_glyphs() {
    let ctx = egui::Context::default();
    let courtyard = sample_model();
    let input = panel_input(Some(&courtyard), None);
    let mut state = PanelState::default();
    let mut toggles = ViewToggles { parts: vec![true; 3], ..Default::default() };
    let size = egui::vec2(1400.0, 900.0);
    let frame =
        |state: &mut PanelState, toggles: &mut ViewToggles| panel_frame(&ctx, &input, state, toggles, size, 0.0).0;
    // (No renderer here: each frame's uploads are set aside once looked at.)
    for _ in 0..2 {
        frame(&mut state, &mut toggles).textures_delta.clear();
    }
    // Digits at places (and so sub-pixel offsets) the first frames did not show them at.
    state.frame_time_ms = 184.379;
    let mut output = frame(&mut state, &mut toggles);
    let uploads = output.textures_delta.set.len();
    output.textures_delta.clear();
    assert!(texts(&output.shapes).contains("frame time 184.4 ms"));
    assert_eq!(uploads, 0, "new glyphs were uploaded for the later text");
}

/// A texture opened on its own has a Texture section: how the file stores it, its size and levels, a
/// mip level slider and the alpha channel on its own.
#[test]
fn a_texture_shows_its_encoding_size_levels_and_alpha_choice() {
    use lwo_wmo_viewer::fixtures::blp::{BlpEncoding, write_blp2};
    let dir = crate::support::scratch("panel-texture");
    let path = dir.join("stone.blp");
    let pixels: Vec<u8> = (0..32 * 16 * 4).map(|i| (i * 3) as u8).collect();
    std::fs::write(&path, write_blp2(32, 16, &pixels, BlpEncoding::Dxt(5), true)).unwrap();
    let text = draw_scene(&path, "");
    for expected in ["Texture", "BLP2, DXT5, 8-bit alpha", "32×16, 6 mip levels", "mip level", "level 0: 32×16"] {
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
    assert!(text.contains("alpha channel alone") && text.contains("Scene: 1 texture"), "{text}");
}
