//! The Texture section, for a BLP opened on its own: how the file stores it, and which mip level and
//! channel the view shows.

use bevy_egui::egui;

use super::PanelAction;
use crate::formats::Model;
use crate::plugin::ModelAsset;
use crate::viewer::texture_view::{TextureView, level_size};

pub(super) fn texture_section(
    ui: &mut egui::Ui,
    model: &ModelAsset,
    view: TextureView,
    actions: &mut Vec<PanelAction>,
) {
    let Some(Model::Blp(info)) = model.description.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model)
    else {
        return;
    };
    let decoded = model.description.textures.first().map_or(0, |t| t.image.levels.len());
    egui::CollapsingHeader::new("Texture").id_salt("texture").default_open(true).show(ui, |ui| {
        ui.label(info.describe());
        ui.label(format!("{}×{}, {} mip levels", info.width, info.height, info.mip_levels));
        if decoded < info.mip_levels {
            ui.label(format!("levels {decoded} and on do not decode and are not shown"));
        }
        let (mut level, mut alpha_only) = (view.level, view.alpha_only);
        if decoded > 1 {
            ui.add(egui::Slider::new(&mut level, 0..=decoded - 1).text("mip level"));
        }
        let (w, h) = level_size(info.width, info.height, level);
        ui.label(format!("level {level}: {w}×{h}"));
        ui.checkbox(&mut alpha_only, "alpha channel alone (as grey)");
        if (level, alpha_only) != (view.level, view.alpha_only) {
            actions.push(PanelAction::ShowTexture { level, alpha_only });
        }
    });
}
