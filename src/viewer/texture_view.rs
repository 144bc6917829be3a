//! A BLP texture opened on its own: which of its mip levels the view shows, and whether its alpha
//! channel is shown alone (as grey), chosen in the panel's Texture section or by the control hook.

use bevy::prelude::*;

use super::scene::{ModelShown, Viewer};
use crate::formats::Model;
use crate::plugin::{ModelAsset, ModelMaterial};

/// What the view shows of a texture; reset to level 0 in colour for each texture opened.
#[derive(Resource, Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureView {
    pub level: usize,
    pub alpha_only: bool,
}

impl TextureView {
    /// The level and channel asked for, when they differ from the texture as loaded (its whole chain).
    fn wanted(&self) -> Option<(usize, bool)> {
        (self.level != 0 || self.alpha_only).then_some((self.level, self.alpha_only))
    }
}

/// What the material draws now: `None`, the texture as loaded; else the level and channel, in an image
/// of their own.
#[derive(Resource, Default)]
struct ShownLevel {
    /// The model whose material this is about; another one starts from its image as loaded.
    model: Option<AssetId<ModelAsset>>,
    shown: Option<(usize, bool)>,
    image: Option<Handle<Image>>,
}

pub struct TextureViewPlugin;

impl Plugin for TextureViewPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TextureView>()
            .init_resource::<ShownLevel>()
            .add_systems(Update, (reset_on_show, show_level).chain());
    }
}

/// The shown model when it is a texture opened on its own.
pub fn shown_texture<'a>(viewer: &Viewer, models: &'a Assets<ModelAsset>) -> Option<&'a ModelAsset> {
    let model = models.get(viewer.current.as_ref()?)?;
    let document = model.description.files.first()?.document.as_deref()?;
    matches!(document.model, Model::Blp(_)).then_some(model)
}

fn reset_on_show(mut shown: MessageReader<ModelShown>, mut view: ResMut<TextureView>, mut level: ResMut<ShownLevel>) {
    let events: Vec<ModelShown> = shown.read().copied().collect();
    if events.iter().any(|e| !e.reload) {
        *view = TextureView::default();
    }
    if !events.is_empty() {
        // A new model, or the texture loaded again (Ctrl+R, --watch), draws its own image as loaded.
        *level = ShownLevel::default();
    }
}

/// Draws the chosen level (or its alpha as grey) in an image of its own, or the loaded image again.
fn show_level(
    mut view: ResMut<TextureView>,
    mut level: ResMut<ShownLevel>,
    viewer: Res<Viewer>,
    models: Res<Assets<ModelAsset>>,
    mut images: ResMut<Assets<Image>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let Some(model) = shown_texture(&viewer, &models) else { return };
    let (Some(texture), Some(loaded)) = (model.description.textures.first(), model.images.first()) else { return };
    let id = viewer.current.as_ref().map(Handle::id);
    if level.model != id {
        *level = ShownLevel { model: id, ..ShownLevel::default() };
    }
    view.level = view.level.min(texture.image.levels.len().saturating_sub(1));
    if level.shown == view.wanted() {
        return;
    }
    let Some(ModelMaterial::Standard(material)) = model.materials.first() else { return };
    let Some(mut material) = materials.get_mut(material) else { return };
    if let Some(old) = level.image.take() {
        images.remove(&old);
    }
    if let Some((chosen, alpha_only)) = view.wanted() {
        let (width, height) = level_size(texture.image.width, texture.image.height, chosen);
        let mut pixels = texture.image.levels[chosen].clone();
        if alpha_only {
            pixels.chunks_exact_mut(4).for_each(|p| p.copy_from_slice(&[p[3], p[3], p[3], 255]));
        }
        let mut shown = texture.clone();
        shown.image = crate::scene::DecodedImage { width, height, levels: vec![pixels] };
        level.image = Some(images.add(crate::plugin::texture_image(&shown)));
    }
    material.base_color_texture = Some(level.image.clone().unwrap_or_else(|| loaded.clone()));
    level.shown = view.wanted();
}

/// The size of mip level `level` of a `width` × `height` texture.
pub fn level_size(width: u32, height: u32, level: usize) -> (u32, u32) {
    let shift = level.min(31) as u32;
    ((width >> shift).max(1), (height >> shift).max(1))
}
