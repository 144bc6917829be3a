//! The Bevy plugin: one asset loader for `.lwo`/`.lxo`, `.wmo` and `.m2`, in the manner of `bevy_gltf`.
//! The library builds the neutral [`Scene`]; this module only translates it into
//! Bevy meshes, materials, images and one scene ([`WorldAsset`]) with labeled sub-assets.

pub mod animation;
mod convert;
mod dependencies;
mod source;
pub mod wmo_material;

use std::path::PathBuf;
use std::sync::Arc;

use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;

use crate::formats::{FORMATS, parse_document};
use crate::scene::FileError;
use crate::scene::{self, LoadOptions, Scene, SceneFile};
use crate::source::{FileSource, LooseFolder};
use dependencies::{AssetPlace, DependencyReads};

pub use crate::scene::{DoodadInfo, MaterialInfo, ModelLabel, ModelStats, PartInfo};
pub use animation::{M2Billboard, M2Clock, M2Joint, M2Motion};
pub use convert::texture_image;
pub use source::{FileSourcePlugin, Listfiles, ModelSources, SourceReader};
pub use wmo_material::{WmoExtension, WmoMaterial};

/// Registers the [`ModelAsset`] type and its loader for LightWave (`.lwo`, `.lxo`), WMO (`.wmo`) and
/// M2 (`.m2`) files, told apart by their content.
///
/// A loaded file's sub-assets are labeled as [`ModelLabel`] prints them: `Scene` (the world to spawn
/// with `WorldAssetRoot`), `Layer0/Surface2` and `Layer0/Surface2/Detail`, `Layer0/Lines`,
/// `Layer0/Points`, `Surface2` (LightWave); `Group3/Batch1`, `Group3/Collision`, `Group3/Liquid`,
/// `Portal0`, `Material4`, `Texture84` (a MOTX offset) (WMO); `M2Model1/Unit2`, `M2Model1/Material0`,
/// `M2Model1/Texture0` (M2 models, 0 for a model opened alone, then a WMO's doodad models in MODN
/// order); `Placeholder` and `Overlay/…` for the viewer's own materials. [`ModelLoaderSettings`] set
/// smoothing, subdivision and the data root.
#[derive(Default)]
pub struct LwoWmoPlugin;

impl Plugin for LwoWmoPlugin {
    fn build(&self, app: &mut App) {
        bevy::asset::load_internal_asset!(
            app,
            wmo_material::WMO_SHADER,
            "../../shaders/wmo_material.wgsl",
            Shader::from_wgsl
        );
        app.add_plugins(MaterialPlugin::<WmoMaterial>::default());
        animation::build(app);
        let sources = app.world_mut().get_resource_or_init::<ModelSources>().clone();
        let listfiles = app.world_mut().get_resource_or_init::<Listfiles>().clone();
        app.init_asset::<ModelAsset>()
            .register_type::<ModelPart>()
            .register_type::<Overlay>()
            .register_type::<DrawnMesh>()
            .register_type::<DoodadInstance>()
            .register_type::<MorphTargetNames>()
            .register_asset_loader(ModelLoader { sources, listfiles });
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
    /// Folder that holds `World\…` for WMO and M2 textures and doodads — loose files, or a client's
    /// `Data/` folder of MPQ archives; `None` walks up from the file to find a folder holding `World`.
    pub data_root: Option<PathBuf>,
    /// The name of an asset source registered with [`FileSourcePlugin`] to use as the data root (the
    /// viewer's `wow` game data); over `data_root`, and its files are read through the asset server.
    pub data_source: Option<String>,
    /// The community listfile (`FileDataID;path` lines) that names the skins and textures an MD21 model
    /// names by number; read once per path for all loads ([`Listfiles`]).
    pub listfile: Option<PathBuf>,
    /// Where the build reports how far it is, and is told to stop (not part of the asset's meta file).
    #[serde(skip)]
    pub progress: Option<Arc<scene::LoadProgress>>,
}

/// A loaded file (or, for a WMO root, the root and the files it pulled in), translated for Bevy.
#[derive(Asset, TypePath, Debug)]
pub struct ModelAsset {
    pub scene: Handle<WorldAsset>,
    /// What the library built: files with their bytes and documents, nodes, parts, materials,
    /// per-triangle sources, warnings. Mesh vertex data has moved into [`ModelAsset::meshes`].
    pub description: Scene,
    /// One handle per [`Scene::meshes`] entry, in order.
    pub meshes: Vec<Handle<Mesh>>,
    /// One handle per [`Scene::textures`] entry, in order.
    pub images: Vec<Handle<Image>>,
    /// One per [`Scene::materials`] entry, in order.
    pub materials: Vec<ModelMaterial>,
    pub standard_materials: Vec<Handle<StandardMaterial>>,
    /// WMO materials (MOMT) and M2 materials, drawn by the WMO shader.
    pub wmo_materials: Vec<Handle<WmoMaterial>>,
    /// One per M2 whose bones or surfaces move (the model on its own, or a WMO's doodad models).
    pub motions: Vec<Handle<M2Motion>>,
}

/// A scene material as Bevy draws it: Bevy's own, or the WMO shader's (WMO and M2 materials).
#[derive(Clone, Debug)]
pub enum ModelMaterial {
    Standard(Handle<StandardMaterial>),
    Game(Handle<WmoMaterial>),
}

/// Marks every entity of a layer or group, so the viewer can hide or highlight it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component)]
pub struct ModelPart(pub usize);

/// On every entity that draws a mesh: its index in [`Scene::meshes`], so a picked entity leads to the
/// mesh's triangle sources.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component)]
pub struct DrawnMesh(pub usize);

/// On the entity whose `MorphWeights` drive the morph targets of the meshes under it (a LightWave
/// layer): the targets' names, in weight order.
#[derive(Component, Reflect, Clone, Debug, PartialEq, Eq)]
#[reflect(Component)]
pub struct MorphTargetNames(pub Vec<String>);

/// On a WMO doodad's entity: its MODD entry.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component)]
pub struct DoodadInstance(pub usize);

/// Marks overlay entities that the viewer toggles as a kind (see [`scene::Overlay`]).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Component)]
pub enum Overlay {
    Portals,
    Liquid,
    Collision,
    /// A doodad of the given MODS set: its model, or its marker where the model is missing.
    Doodad(u32),
}

impl From<scene::Overlay> for Overlay {
    fn from(overlay: scene::Overlay) -> Self {
        match overlay {
            scene::Overlay::Portals => Self::Portals,
            scene::Overlay::Liquid => Self::Liquid,
            scene::Overlay::Collision => Self::Collision,
            scene::Overlay::Doodad(set) => Self::Doodad(set),
        }
    }
}

/// One loader for every format: the library tells the formats apart by content, so an extension-less
/// or misnamed file still opens.
#[derive(Default, TypePath)]
pub struct ModelLoader {
    /// Named asset sources backed by a file source: a model loaded from one pulls its other files
    /// from the same source.
    sources: ModelSources,
    listfiles: Listfiles,
}

/// The whole file from Bevy's reader, into the buffer the scene keeps. Where the reader can seek (Bevy's
/// file reader can), the file's size first and the bytes read into a buffer of that size
/// ([`crate::source::zeroed_file_buffer`], as [`crate::source::read_file`] reads); otherwise read to its
/// end and copied into one. (`read_to_end` grows a `Vec` as it goes, and sharing that is one more copy.)
async fn read_whole(reader: &mut dyn bevy::asset::io::Reader) -> std::io::Result<Arc<[u8]>> {
    use bevy::asset::{AsyncReadExt, AsyncSeekExt};
    use std::io::SeekFrom;
    if let Ok(seekable) = reader.seekable() {
        let size = seekable.seek(SeekFrom::End(0)).await?;
        seekable.seek(SeekFrom::Start(0)).await?;
        if let Some(size) = usize::try_from(size).ok().filter(|&n| n > 0) {
            let mut bytes = crate::source::zeroed_file_buffer(size)?;
            // A file that shrank since is read to its end below.
            match seekable.read_exact(Arc::get_mut(&mut bytes).expect("made here, not shared yet")).await {
                Ok(()) => return Ok(bytes),
                Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => {
                    seekable.seek(SeekFrom::Start(0)).await.map(drop)?
                }
                Err(error) => return Err(error),
            }
        }
    }
    let mut bytes = Vec::new();
    bevy::asset::io::Reader::read_to_end(reader, &mut bytes).await?;
    Ok(Arc::from(bytes))
}

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
        let asset_path = ctx.path().path().to_path_buf();
        let named_source = match ctx.path().source() {
            bevy::asset::io::AssetSourceId::Name(name) => {
                self.sources.get(name).map(|source| (source, name.to_string()))
            }
            bevy::asset::io::AssetSourceId::Default => None,
        };
        // A file of a registered file source pulls its other files from that source; a file of Bevy's
        // own file source from the folder on disk it lies in.
        let from_named_source = named_source.is_some();
        let assets_root = bevy::asset::io::file::FileAssetReader::get_base_path().join("assets");
        let on_disk = |folder: &LooseFolder| AssetPlace::OnDisk {
            folder: folder.root().to_path_buf(),
            assets_root: assets_root.clone(),
        };
        let (source, place, path): (Arc<dyn FileSource>, AssetPlace, String) = match named_source {
            Some((source, name)) => (source, AssetPlace::Named(name), asset_path.to_string_lossy().replace('\\', "/")),
            None => {
                let (folder, path) = LooseFolder::containing(&assets_root.join(&asset_path));
                let place = on_disk(&folder);
                (Arc::new(folder), place, path)
            }
        };
        let display_path = source.display_path(&path);
        let bytes =
            read_whole(reader).await.map_err(|source| FileError::Io { file: display_path.clone().into(), source })?;
        let document = parse_document(&bytes).map_err(|e| FileError::parse(&display_path, e))?;
        // Only game models name files by number; a LightWave object loads whatever the listfile.
        let game_model = matches!(document.format, crate::formats::Format::M2 | crate::formats::Format::WmoRoot);
        let file = SceneFile { path, display_path, bytes, document: Some(Arc::new(document)) };
        let defaults = LoadOptions::default();
        let options = LoadOptions {
            lwo: crate::mesh::lwo::BuildOptions {
                smoothing: settings.smoothing.unwrap_or(defaults.lwo.smoothing),
                subdivision_level: settings.subdivision_level.unwrap_or(defaults.lwo.subdivision_level),
            },
            progress: settings.progress.clone(),
            anim_files: defaults.anim_files,
            listfile: match &settings.listfile {
                Some(path) if game_model => Some(self.listfiles.get(path)?),
                _ => None,
            },
        };
        // The model's other files are read through the asset server (see `dependencies`).
        let reads = DependencyReads::new();
        let data: Option<Arc<dyn FileSource>> = match (&settings.data_source, &settings.data_root) {
            // A registered file source as the data root: the viewer's `wow://` game data.
            (Some(name), _) => {
                let data = self.sources.get(name).ok_or_else(|| ModelLoadError::UnknownDataSource(name.clone()))?;
                Some(reads.through(data, AssetPlace::Named(name.clone())))
            }
            // A client's Data/ folder (its archives in load order, loose files over them), or a plain
            // folder of loose files, named by path: no asset source holds it, so it is read directly.
            (None, Some(root)) => Some(crate::source::open_data_root(root)),
            // Game data is its own data root: textures and doodads are looked up beside the model there.
            (None, None) if from_named_source => Some(reads.through(source.clone(), place.clone())),
            // A file on disk: the folder holding `World` above it.
            (None, None) => scene::find_data_root(source.as_ref(), &file.path).map(|folder| {
                let place = on_disk(&folder);
                reads.through(Arc::new(folder), place)
            }),
        };
        let opened = source.clone();
        let source = reads.through(source, place);
        let scene = reads
            .serve_while(ctx, move || scene::build(source.as_ref(), file, data.as_deref(), &options))
            .await
            .map_err(ModelLoadError::NoBuildThread)??;
        Ok(convert::translate(ctx, scene, opened))
    }

    fn extensions(&self) -> &[&str] {
        // Bevy matches extensions as written; the format table keeps them in lower case, and the few
        // upper-case spellings are made once for the life of the process.
        static EXTENSIONS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
            FORMATS
                .iter()
                .flat_map(|f| f.extensions)
                .flat_map(|e| [*e, Box::leak(e.to_ascii_uppercase().into_boxed_str()) as &str])
                .collect()
        });
        &EXTENSIONS
    }
}

/// Why a file could not be loaded; the message names the file, the chunk and the byte offset.
#[derive(Debug, thiserror::Error)]
pub enum ModelLoadError {
    #[error(transparent)]
    File(#[from] crate::scene::FileError),
    /// `ModelLoaderSettings::data_source` names no source registered with [`FileSourcePlugin`].
    #[error("the data source {0:?} is not a registered file source")]
    UnknownDataSource(String),
    #[error("no thread could be started to build the model: {0}")]
    NoBuildThread(std::io::Error),
    #[error("listfile {0}")]
    Listfile(#[from] crate::source::ListfileError),
}
