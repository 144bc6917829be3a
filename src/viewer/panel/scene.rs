//! The Scene section: the file's parts with visibility and selection, doodad sets, portals and portal
//! culling, the overlays the file has, and a legend for the marks the view draws over the model.

use bevy_egui::egui;

use super::PanelAction;
use crate::formats::Model;
use crate::plugin::ModelAsset;
use crate::viewer::overlays::ViewOptions;
use crate::viewer::scene::ViewToggles;

/// What the file calls its parts: a LightWave object's layers, a WMO's groups, an M2's texture units.
fn part_kind(model: &ModelAsset) -> (&'static str, &'static str) {
    match model.description.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model) {
        Some(Model::Lwo(_)) => ("layer", "layers"),
        Some(Model::WmoRoot(_) | Model::WmoGroup(_)) => ("group", "groups"),
        Some(Model::M2(_)) => ("texture unit", "texture units"),
        Some(Model::Blp(_)) => ("texture", "textures"),
        None => ("part", "parts"),
    }
}

pub(super) fn scene_section(
    ui: &mut egui::Ui,
    model: &ModelAsset,
    toggles: &mut ViewToggles,
    options: &mut ViewOptions,
    culling: Option<&crate::viewer::culling::PortalCulling>,
    actions: &mut Vec<PanelAction>,
) {
    let count = model.description.parts.len();
    let (one, many) = part_kind(model);
    let header = format!("Scene: {count} {}", if count == 1 { one } else { many });
    egui::CollapsingHeader::new(header).id_salt("scene").default_open(true).show(ui, |ui| {
        if let Some(Model::M2(m2)) =
            model.description.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model)
        {
            // Which view the texture units come from: the first .skin (264) or the embedded view 0.
            let skin = model.description.files.iter().find(|f| f.path.to_ascii_lowercase().ends_with(".skin"));
            ui.label(match (skin, m2.version >= 264) {
                (Some(skin), _) => format!(
                    "view: {} (skin 1 of {})",
                    skin.path.rsplit('/').next().unwrap_or(&skin.path),
                    m2.skin_file_count
                ),
                (None, true) => format!("view: no .skin found ({} named)", m2.skin_file_count),
                (None, false) => format!("view: embedded view 0 of {}", m2.embedded_views.len()),
            });
        }
        for (i, part) in model.description.parts.iter().enumerate() {
            if toggles.parts.len() <= i {
                toggles.parts.resize(i + 1, true);
            }
            let indent = parent_depth(model, i);
            ui.horizontal(|ui| {
                ui.add_space(indent as f32 * 12.0);
                let mut shown = toggles.parts[i];
                if ui.checkbox(&mut shown, "").changed() {
                    toggles.parts[i] = shown;
                }
                let selected = options.selected_part == Some(i);
                if ui.selectable_label(selected, format!("{}  ({})", part.name, part.description)).clicked() {
                    options.selected_part = if selected { None } else { Some(i) };
                }
            });
        }
        if !model.description.doodad_sets.is_empty() {
            ui.separator();
            ui.checkbox(&mut toggles.doodads, "doodad markers");
            egui::ComboBox::from_label("doodad set")
                .selected_text(
                    model.description.doodad_sets.get(toggles.doodad_set as usize).cloned().unwrap_or_default(),
                )
                .show_ui(ui, |ui| {
                    for (i, name) in model.description.doodad_sets.iter().enumerate() {
                        let label = if i == 0 { format!("{name} (always on)") } else { name.clone() };
                        ui.selectable_value(&mut toggles.doodad_set, i as u32, label);
                    }
                });
            let shown: Vec<_> =
                model.description.doodads.iter().filter(|d| d.set == 0 || d.set == toggles.doodad_set).collect();
            egui::CollapsingHeader::new(format!("doodads shown ({})", shown.len())).id_salt("doodads").show(ui, |ui| {
                for d in shown {
                    let [x, y, z] = d.position;
                    ui.label(format!("{}  at ({x:.1}, {y:.1}, {z:.1}) ×{:.2}", d.model, d.scale));
                }
            });
        }
        if model.description.portal_count > 0 {
            ui.checkbox(&mut toggles.portals, format!("portals ({})", model.description.portal_count));
        }
        if let (Some(graph), Some(culling)) = (&model.description.portal_graph, culling) {
            ui.horizontal(|ui| {
                let mut enabled = culling.enabled;
                if ui
                    .checkbox(&mut enabled, "portal culling")
                    .on_hover_text("draw only the groups the camera sees through portals")
                    .changed()
                {
                    actions.push(PanelAction::PortalCulling(enabled));
                }
                let total = graph.groups.iter().filter(|g| g.present).count();
                if culling.interiors_from_outside {
                    ui.add(
                        egui::Label::new("camera outside, interior groups only: the ticked groups are drawn whole")
                            .wrap(),
                    )
                    .on_hover_text(
                        "The camera is outside and only interior groups are ticked: from outside, portal \
                             culling would show the exterior and what its portals let through, so the ticked \
                             rooms are drawn whole instead.",
                    );
                    return;
                }
                ui.label(match &culling.seen {
                    Some(seen) => {
                        let inside: Vec<&str> = seen
                            .camera_in
                            .iter()
                            .filter_map(|&g| model.description.parts.get(g))
                            .map(|p| p.name.as_str())
                            .collect();
                        let place =
                            if inside.is_empty() { "outside".to_owned() } else { format!("in {}", inside.join(", ")) };
                        format!("{} of {total} groups drawn, camera {place}", seen.drawn_count())
                    }
                    None => format!("{total} of {total} groups drawn"),
                });
            });
        }
        // Overlay toggles only where the file has something to show with them.
        let has = |overlay: crate::scene::Overlay| model.description.nodes.iter().any(|n| n.overlay == Some(overlay));
        if has(crate::scene::Overlay::Liquid) {
            ui.checkbox(&mut toggles.liquids, "liquids");
        }
        if has(crate::scene::Overlay::Collision) {
            ui.checkbox(&mut toggles.collision, "collision-only triangles");
        }
        legend(ui, model, options, toggles.doodad_set);
    });
}

/// One line of the legend: the mark's colour, then what it means.
fn legend_entry(ui: &mut egui::Ui, [r, g, b]: [f32; 3], text: &str) {
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
        let color = egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8);
        ui.painter().rect_filled(rect, 2.0, color);
        ui.add(egui::Label::new(text).wrap());
    });
}

/// What the marks the view draws over the model mean, for the marks this model can have.
fn legend(ui: &mut egui::Ui, model: &ModelAsset, options: &ViewOptions, doodad_set: u32) {
    let scene = &model.description;
    let marker_label = crate::scene::ModelLabel::DoodadMarkerMesh.to_string();
    let marker_mesh = scene.meshes.iter().position(|m| m.label == marker_label);
    // Markers of the doodad sets drawn now (the default set and the chosen one).
    let in_shown_set = |n: &&crate::scene::Node| match n.overlay {
        Some(crate::scene::Overlay::Doodad(set)) => set == 0 || set == doodad_set,
        _ => true,
    };
    let markers =
        scene.nodes.iter().filter(in_shown_set).filter(|n| n.draw.is_some_and(|d| Some(d.mesh) == marker_mesh)).count();
    let has = |overlay: crate::scene::Overlay| scene.nodes.iter().any(|n| n.overlay == Some(overlay));
    egui::CollapsingHeader::new("Legend").id_salt("legend").default_open(markers > 0).show(ui, |ui| {
        if markers > 0 {
            legend_entry(
                ui,
                crate::scene::DOODAD_MARKER_COLOR,
                &format!(
                    "box with axis bars: a doodad whose model was not found ({markers} in the sets shown; see Warnings)"
                ),
            );
        }
        if has(crate::scene::Overlay::Portals) {
            legend_entry(ui, crate::scene::PORTAL_COLOR, "portals (MOPT), when ticked");
        }
        if has(crate::scene::Overlay::Liquid) {
            legend_entry(ui, [0.25, 0.45, 0.7], "liquids (MLIQ), drawn with their own material");
        }
        if has(crate::scene::Overlay::Collision) {
            legend_entry(ui, crate::scene::COLLISION_COLOR, "collision-only triangles, when ticked");
        }
        legend_entry(ui, crate::viewer::picking::PICK_COLOR, "outline: the picked polygon (Esc clears)");
        if options.selected_part.is_some() {
            legend_entry(ui, crate::viewer::overlays::SELECTION_COLOR, "box: the part selected in the list");
        }
        if options.wireframe {
            legend_entry(ui, crate::viewer::overlays::WIREFRAME_COLOR, "wireframe edges");
        }
        if options.normals {
            legend_entry(ui, crate::viewer::overlays::NORMALS_COLOR, "vertex normals");
        }
    });
}

fn parent_depth(model: &ModelAsset, mut i: usize) -> usize {
    let mut depth = 0;
    while let Some(p) = model.description.parts.get(i).and_then(|p| p.parent) {
        depth += 1;
        i = p;
        if depth > model.description.parts.len() {
            break;
        }
    }
    depth
}
