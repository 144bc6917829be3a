//! The Bevy plugin: one asset loader for `.lwo`/`.lxo`, `.wmo` and `.m2` that turns a file into meshes, materials
//! and one scene ([`WorldAsset`]), in the manner of `bevy_gltf`.

mod convert;
pub mod labels;
mod lwo_loader;
pub mod m2_blend;
mod m2_loader;
pub mod textures;
mod wmo_loader;
pub mod wmo_material;

use std::path::PathBuf;
use std::sync::Arc;

use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;

use crate::formats::Document;
use crate::mesh::Bounds;

pub use labels::ModelLabel;
pub use wmo_material::{WmoExtension, WmoMaterial};

/// Registers the [`ModelAsset`] type and its loader for LightWave, WMO and M2 files.
#[derive(Default)]
pub struct LwoWmoPlugin;

impl Plugin for LwoWmoPlugin {
    fn build(&self, app: &mut App) {
        bevy::asset::load_internal_asset!(app, wmo_material::WMO_SHADER, "../../shaders/wmo_material.wgsl", Shader::from_wgsl);
        app.add_plugins(MaterialPlugin::<WmoMaterial>::default());
        app.init_asset::<ModelAsset>()
            .register_type::<ModelPart>()
            .register_type::<Overlay>()
            .register_asset_loader(ModelLoader);
    }
}

/// Settings of the loader, for every format it reads.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ModelLoaderSettings {
    /// Apply LightWave surface smoothing angles (`None`: yes).
    pub smoothing: Option<bool>,
    /// Catmull–Clark levels for LightWave PTCH/SUBD cages (`None`: 2; 0 shows the cage).
    pub subdivision_level: Option<u32>,
    /// Folder that holds `World\…` for WMO textures; `None` walks up from the file to find one.
    pub data_root: Option<PathBuf>,
}

/// A loaded file (or, for a WMO root, the root and its groups).
#[derive(Asset, TypePath, Debug)]
pub struct ModelAsset {
    pub scene: Handle<WorldAsset>,
    /// The file opened first, then the files it pulled in (WMO groups).
    pub files: Vec<LoadedFile>,
    /// LWO layers or WMO groups, indexed by [`ModelPart`].
    pub parts: Vec<PartInfo>,
    pub doodad_sets: Vec<String>,
    /// WMO doodads per set, with their M2 names, shown as markers.
    pub doodads: Vec<DoodadInfo>,
    pub portal_count: usize,
    pub materials: Vec<MaterialInfo>,
    pub meshes: Vec<Handle<Mesh>>,
    pub standard_materials: Vec<Handle<StandardMaterial>>,
    /// WMO materials (MOMT), drawn by the WMO shader.
    pub wmo_materials: Vec<Handle<WmoMaterial>>,
    /// Bounds of everything drawn, in scene space.
    pub bounds: Bounds,
    pub stats: ModelStats,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct LoadedFile {
    pub path: PathBuf,
    pub document: Arc<Document>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PartInfo {
    pub name: String,
    /// "layer 1", "interior", "exterior", …
    pub description: String,
    pub parent: Option<usize>,
    pub visible: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DoodadInfo {
    /// MODS set the doodad belongs to.
    pub set: u32,
    /// The M2 model's file name from MODN.
    pub model: String,
    /// Position in the scene (Bevy's frame).
    pub position: [f32; 3],
    pub scale: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialInfo {
    pub name: String,
    /// Decoded parameters as `(name, value)` pairs, in file order.
    pub parameters: Vec<(String, String)>,
    /// Texture file and whether it was found.
    pub texture: Option<(String, bool)>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelStats {
    pub vertices: usize,
    pub triangles: usize,
    pub draw_calls: usize,
}

/// Marks every entity of a layer or group, so the viewer can hide or highlight it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component)]
pub struct ModelPart(pub usize);

/// Marks overlay entities that the viewer toggles as a kind.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component)]
pub enum Overlay {
    Portals,
    Liquid,
    Collision,
    /// A doodad of the given MODS set: its model, or its marker where the model is missing.
    Doodad(u32),
}

impl Overlay {
    /// Whether the overlay shows before the user toggles anything: liquids and the default doodad set.
    pub fn shown_by_default(self) -> bool {
        matches!(self, Self::Liquid | Self::Doodad(0))
    }
}

/// One loader for every format: it reads the bytes and hands them to the format their content shows
/// (`REVM` WMO, `MD20`/`MD21` M2, else IFF LightWave), so an extension-less or misnamed file still opens.
#[derive(Default, TypePath)]
pub struct ModelLoader;

impl bevy::asset::AssetLoader for ModelLoader {
    type Asset = ModelAsset;
    type Settings = ModelLoaderSettings;
    type Error = ModelLoadError;

    async fn load(
        &self,
        reader: &mut dyn bevy::asset::io::Reader,
        settings: &ModelLoaderSettings,
        ctx: &mut bevy::asset::LoadContext<'_>,
    ) -> Result<ModelAsset, ModelLoadError> {
        load_by_content(reader, settings, ctx).await
    }

    fn extensions(&self) -> &[&str] {
        &["lwo", "lxo", "wmo", "m2", "LWO", "LXO", "WMO", "M2"]
    }
}

async fn load_by_content(
    reader: &mut dyn bevy::asset::io::Reader,
    settings: &ModelLoaderSettings,
    ctx: &mut bevy::asset::LoadContext<'_>,
) -> Result<ModelAsset, ModelLoadError> {
    let path = ctx.path().path().to_path_buf();
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).await.map_err(|source| crate::formats::FileError::Io { file: path.clone(), source })?;
    if bytes.starts_with(b"REVM") {
        wmo_loader::load_bytes(ctx, path, bytes, settings).await
    } else if bytes.starts_with(b"MD20") || bytes.starts_with(b"MD21") {
        m2_loader::load_bytes(ctx, path, bytes, settings)
    } else {
        lwo_loader::load_bytes(ctx, path, bytes, settings)
    }
}

/// Why a file could not be loaded; the message names the file, the chunk and the byte offset.
#[derive(Debug, thiserror::Error)]
pub enum ModelLoadError {
    #[error(transparent)]
    File(#[from] crate::formats::FileError),
    #[error("{file}: {message}")]
    Other { file: String, message: String },
}
