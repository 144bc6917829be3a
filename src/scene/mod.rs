//! The neutral scene description between the formats and everything that shows or exports a file:
//! nodes with their hierarchy and transforms, meshes that remember which record of which file made
//! each triangle, neutral materials and decoded textures, doodad instances that share one model each,
//! and the overlays (portals, liquids, collision). No Bevy here: each format builds a [`Scene`] once
//! (`lwo.rs`, `wmo.rs`, `m2.rs`), and the Bevy plugin, picking and export all read it.

pub mod anim_files;
pub mod animation;
mod blp;
mod describe;
pub mod diagnostics;
mod error;
pub mod label;
mod lwo;
mod m2;
pub mod material;
pub mod portals;
pub mod progress;
pub mod provenance;
pub mod texture;
mod wmo;

use std::sync::Arc;

use crate::formats::{Document, Format, Model, parse_document};
use crate::mesh::{Bounds, MeshData};
use crate::source::{FileSource, LooseFolder};

pub use diagnostics::{Diagnostic, DiagnosticKind};
pub use error::FileError;
pub use label::ModelLabel;
pub use m2::read_skin_beside;
pub use material::{AlphaMode, GamePass, Material, PassBlend, TextureRef};
pub use progress::LoadProgress;
pub use texture::{DecodedImage, Sampler, Texture};
pub use wmo::{MissingGroupFile, find_group_files};

/// Options of a build, for every format.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub lwo: crate::mesh::lwo::BuildOptions,
    /// Where to report how far the build is, and to be told to stop.
    pub progress: Option<std::sync::Arc<LoadProgress>>,
    /// Which M2 sequences' `.anim` files are read with the model.
    pub anim_files: anim_files::AnimFiles,
    /// Maps the FileDataIDs an MD21 model names its skins and textures by to paths in the game data.
    pub listfile: Option<Arc<crate::source::Listfile>>,
}

/// Where a model's other files are found: the game data (a data root), and for models that name files
/// by number (MD21) the listfile that maps numbers to paths.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lookup<'a> {
    pub data: Option<&'a dyn FileSource>,
    pub listfile: Option<&'a crate::source::Listfile>,
}

/// A file the scene was built from, with its bytes (the inspector's hex view and picking read them)
/// and its parsed document.
#[derive(Clone, Debug)]
pub struct SceneFile {
    /// The path in its source.
    pub path: String,
    /// The path as a person would find the file (an absolute path for loose files).
    pub display_path: String,
    pub bytes: Arc<[u8]>,
    /// `None` for files that are parts of another's model (an M2's `.skin`).
    pub document: Option<Arc<Document>>,
}

/// Which kind of record a mesh's [`MeshData::triangle_records`] count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// A polygon's position in `Layer::polygons` of this layer (`LwoObject::layers` index).
    LwoPolygon { layer: usize },
    /// A triangle of the group's MOVI/MOPY, drawn by MOBA batch `batch` (`None`: the collision overlay).
    WmoTriangle { group: usize, batch: Option<usize> },
    /// A triangle of the skin's index list (the `.skin` file, or the embedded view), whose array
    /// starts at `indices_offset` in that file, drawn by texture unit `unit` of submesh `submesh`;
    /// `model` is the file of the `.m2` itself.
    M2SkinTriangle { indices_offset: u32, model: usize, unit: usize, submesh: usize },
}

/// Where a mesh's triangles come from: the file (index into [`Scene::files`]) and the record kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshSource {
    pub file: usize,
    pub kind: RecordKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SceneMesh {
    pub label: String,
    pub data: MeshData,
    pub source: Option<MeshSource>,
}

/// Colours of the marks a scene draws over a model (a viewer's legend names them).
pub const DOODAD_MARKER_COLOR: [f32; 3] = [1.0, 0.8, 0.2];
pub const PORTAL_COLOR: [f32; 3] = [0.2, 0.9, 1.0];
pub const COLLISION_COLOR: [f32; 3] = [1.0, 0.3, 0.1];

/// An overlay kind the viewer toggles as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// Translation, rotation (a quaternion, x y z w) and scale, in Bevy's Y-up frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeTransform {
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

impl NodeTransform {
    pub const IDENTITY: Self = Self { translation: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0], scale: [1.0; 3] };

    pub fn from_translation(translation: [f32; 3]) -> Self {
        Self { translation, ..Self::IDENTITY }
    }
}

/// A mesh drawn with a material (indices into [`Scene::meshes`] and [`Scene::materials`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Draw {
    pub mesh: usize,
    pub material: usize,
}

/// One node of the hierarchy; node 0 is the file's root and parents come before their children.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub transform: NodeTransform,
    /// The layer, group or texture unit (index into [`Scene::parts`]) the node belongs to.
    pub part: Option<usize>,
    pub overlay: Option<Overlay>,
    /// Hidden until the user shows it (a hidden layer, the collision overlay, other doodad sets).
    pub hidden: bool,
    pub draw: Option<Draw>,
    /// For a WMO doodad's node: its MODD entry.
    pub doodad: Option<usize>,
    /// The morph targets (in target order) of the meshes drawn under this node, which one set of
    /// weights on this node drives: a LightWave layer's morph maps.
    pub morph_targets: Vec<String>,
    /// For a joint of an M2 instance: which skeleton's joint it is.
    pub joint: Option<animation::JointOf>,
    /// For a drawing node whose mesh is skinned: the joints (nodes) that pose it.
    pub skin: Option<animation::SkinBinding>,
}

impl Node {
    pub fn group(name: impl Into<String>, parent: Option<usize>, transform: NodeTransform) -> Self {
        Self {
            name: Some(name.into()),
            parent,
            transform,
            part: None,
            overlay: None,
            hidden: false,
            draw: None,
            doodad: None,
            morph_targets: Vec::new(),
            joint: None,
            skin: None,
        }
    }

    pub fn drawing(parent: usize, draw: Draw) -> Self {
        Self {
            name: None,
            parent: Some(parent),
            transform: NodeTransform::IDENTITY,
            part: None,
            overlay: None,
            hidden: false,
            draw: Some(draw),
            doodad: None,
            morph_targets: Vec::new(),
            joint: None,
            skin: None,
        }
    }
}

/// A layer, group or texture unit as the panel lists it.
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
    /// MODS set the doodad belongs to (its MODD entry is in the doodad's [`Node::doodad`]).
    pub set: u32,
    /// The M2 model's file name from MODN.
    pub model: String,
    /// Position in the scene (Bevy's frame).
    pub position: [f32; 3],
    pub scale: f32,
}

/// A material as the panel describes it.
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

/// Everything a file (with the files it pulls in) shows.
#[derive(Debug, Default)]
pub struct Scene {
    /// The file opened first, then the files it pulled in (WMO groups, M2 skins).
    pub files: Vec<SceneFile>,
    pub nodes: Vec<Node>,
    pub meshes: Vec<SceneMesh>,
    pub materials: Vec<Material>,
    pub textures: Vec<Texture>,
    pub parts: Vec<PartInfo>,
    pub doodad_sets: Vec<String>,
    pub doodads: Vec<DoodadInfo>,
    pub portal_count: usize,
    /// A WMO's groups and portals, for drawing only what the camera can see.
    pub portal_graph: Option<portals::PortalGraph>,
    pub material_infos: Vec<MaterialInfo>,
    pub stats: ModelStats,
    /// Bounds of everything drawn, in scene space.
    pub bounds: Bounds,
    pub warnings: Vec<Diagnostic>,
    /// M2 textures the game fills in (creature skins …) that BLPs beside the model stand in for.
    pub replaceable_textures: Vec<ReplaceableTexture>,
    /// The skeletons of the M2 models whose bones move (each instance has its own joints).
    pub skeletons: Vec<animation::Skeleton>,
    /// Materials whose colour, alpha or texture coordinates move.
    pub animated_materials: Vec<animation::AnimatedMaterial>,
}

/// A replaceable M2 texture drawn with a BLP from the model's folder, and the others to choose from.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplaceableTexture {
    /// The model: 0 for an M2 opened on its own, else its doodad model number (MODN order).
    pub model: usize,
    /// Its index in the model's texture list, and its type (11: creature skin 1, …).
    pub texture: usize,
    pub kind: u32,
    pub model_file: String,
    /// The folder's BLPs that decoded, the shown one first.
    pub choices: Vec<TextureChoice>,
    /// The scene materials that draw it.
    pub materials: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TextureChoice {
    pub name: String,
    pub texture: TextureRef,
}

impl Scene {
    /// Every morph target's name, in the order the nodes list them, each once (two layers may have
    /// a morph of the same name, which one slider drives).
    pub fn morph_target_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for name in self.nodes.iter().flat_map(|n| &n.morph_targets) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }

    /// Every file the scene was read from, as their sources name them: the model, its group files,
    /// skins and doodad models, and the texture images (a file inside an archive is named under the
    /// archive's path).
    pub fn read_paths(&self) -> Vec<&str> {
        let files = self.files.iter().map(|f| f.display_path.as_str());
        let mut paths: Vec<&str> = files.chain(self.textures.iter().filter_map(|t| t.source.as_deref())).collect();
        paths.sort_unstable();
        paths.dedup();
        paths
    }

    pub(crate) fn add_mesh(&mut self, label: impl ToString, data: MeshData, source: Option<MeshSource>) -> usize {
        self.meshes.push(SceneMesh { label: label.to_string(), data, source });
        self.meshes.len() - 1
    }

    pub(crate) fn add_material(&mut self, material: Material) -> usize {
        self.materials.push(material);
        self.materials.len() - 1
    }

    pub(crate) fn add_node(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Counts a drawn mesh in the statistics; `new_geometry` is false for one more pass over geometry
    /// already counted (an M2's second texture unit on a submesh), which adds a draw call only.
    pub(crate) fn count_draw(&mut self, mesh: usize, new_geometry: bool) {
        if new_geometry {
            let data = &self.meshes[mesh].data;
            self.stats.vertices += data.positions.len();
            self.stats.triangles += data.triangle_count();
        }
        self.stats.draw_calls += 1;
    }
}

/// Reads and parses one file of a source.
pub fn read_file(source: &dyn FileSource, path: &str) -> Result<SceneFile, FileError> {
    let display_path = source.display_path(path);
    let bytes = source.read(path).map_err(|e| FileError::Source { file: display_path.clone().into(), error: e })?;
    let document = parse_document(&bytes).map_err(|e| FileError::parse(&display_path, e))?;
    Ok(SceneFile { path: path.to_owned(), display_path, bytes, document: Some(Arc::new(document)) })
}

/// Builds the scene of `path` in `source`. `data` is where WMO and M2 textures and doodad models are
/// looked up (a game data root); `None` looks for the folder holding `World` above the file.
pub fn load(
    source: &dyn FileSource,
    path: &str,
    data: Option<&dyn FileSource>,
    options: &LoadOptions,
) -> Result<Scene, FileError> {
    let file = read_file(source, path)?;
    build(source, file, data, options)
}

/// Builds the scene of an already read file.
pub fn build(
    source: &dyn FileSource,
    file: SceneFile,
    data: Option<&dyn FileSource>,
    options: &LoadOptions,
) -> Result<Scene, FileError> {
    let found_data_root;
    let data = match data {
        Some(data) => Some(data),
        None => {
            found_data_root = find_data_root(source, &file.path);
            found_data_root.as_ref().map(|d| d as &dyn FileSource)
        }
    };
    let Some(document) = file.document.clone() else {
        return Err(FileError::Unsupported {
            file: file.display_path.into(),
            message: "not a model this viewer builds".into(),
        });
    };
    let report = progress::Report(options.progress.as_deref());
    let lookup = Lookup { data, listfile: options.listfile.as_deref() };
    let display_path = file.display_path.clone();
    let scene = match (&document.format, &document.model) {
        (Format::Lwo(_), Model::Lwo(object)) => {
            report.begin("meshes", crate::mesh::lwo::work_items(object));
            Ok(lwo::build(source, file, options, report))
        }
        (_, Model::WmoRoot(_) | Model::WmoGroup(_)) => Ok(wmo::build(source, file, lookup, report)),
        (_, Model::M2(_)) => m2::build_standalone(source, file, lookup),
        (_, Model::Blp(_)) => blp::build(file),
        _ => Err(FileError::Unsupported {
            file: file.display_path.into(),
            message: "not a model this viewer builds".into(),
        }),
    };
    // A cancelled build stops early and leaves a partial scene: it is never shown.
    if report.cancelled() {
        return Err(FileError::Cancelled { file: display_path.into() });
    }
    let mut scene = scene?;
    // Its last other holder let go, the opened model's document is changed in place, not copied.
    drop(document);
    anim_files::read_for_scene(&mut scene, source, data, options.anim_files);
    Ok(scene)
}

/// The data root for WMO and M2 textures and doodads: the folder holding `World`, walking up from the
/// file in a folder on disk.
pub fn find_data_root(source: &dyn FileSource, path: &str) -> Option<LooseFolder> {
    let mut folder = parent_folder(path);
    loop {
        let holds_world = source.list(folder).iter().any(|e| e.is_folder && e.name.eq_ignore_ascii_case("World"));
        if holds_world {
            let on_disk = source.display_path(folder);
            return Some(LooseFolder::new(on_disk));
        }
        if folder.is_empty() {
            return None;
        }
        folder = parent_folder(folder);
    }
}

/// The folder part of a source path (`""` at the top).
pub fn parent_folder(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or("", |i| &path[..i])
}

/// The last component of a source path.
pub fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// `name` beside `path`, found ignoring case.
pub fn find_sibling(source: &dyn FileSource, path: &str, name: &str) -> Option<String> {
    let folder = parent_folder(path);
    source.find(&if folder.is_empty() { name.to_owned() } else { format!("{folder}/{name}") })
}
