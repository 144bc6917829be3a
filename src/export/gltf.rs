//! Scene → glTF 2.0. What is written is what the viewer shows: nodes that are not hidden, the doodads
//! of set 0 and of the chosen set, and — only when asked — the portal and liquid overlays.
//!
//! Scene nodes become glTF nodes with their transforms (LightWave pivots, doodad placements). The
//! anonymous drawing children of a node (a group's batches, a layer's surfaces, a doodad's texture
//! units) fold into one glTF mesh on that node, one primitive each, so that every node placing the same
//! model draws the same glTF mesh. Materials are metallic-roughness PBR; what glTF cannot say (the
//! game's additive and modulating blend passes, MOCV's doubling, depth flags) is named in the
//! material's `extras` and listed in the asset's. Textures are level 0 of the decoded image, as PNG.
//!
//! The document is `gltf-json`'s; the container is a `.glb` (one buffer), or a `.gltf` whose buffer is
//! a `.bin` file beside it.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use gltf::json;
use json::validation::{Checked, USize64};
use serde_json::{Value, json as value};

use crate::formats::Model;
use crate::mesh::{MeshData, Topology};
use crate::scene::{AlphaMode, Draw, Material, NodeTransform, Overlay, PassBlend, Sampler, Scene, Texture};

/// What to write besides what the viewer shows by default.
#[derive(Clone, Copy, Default)]
pub struct ExportOptions<'a> {
    /// The WMO doodad set written with set 0 (0: set 0 alone).
    pub doodad_set: u32,
    /// Write the WMO portal polygons (hidden in the viewer until asked for).
    pub portals: bool,
    /// Write the WMO liquid surfaces (shown in the viewer, but not geometry most tools want).
    pub liquids: bool,
    /// Weights of the morph targets by name, written as the meshes' default weights (others at 0).
    pub morph_weights: &'a [(String, f32)],
    /// Called as `(done, total)` while the buffer is built and the textures are encoded; it may be
    /// called from several threads.
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportReport {
    pub nodes: usize,
    pub meshes: usize,
    pub primitives: usize,
    pub materials: usize,
    pub textures: usize,
    /// Triangles drawn, each instance of a shared mesh counted.
    pub triangles: usize,
    /// Triangles in the glTF meshes, each mesh counted once (what an importer reports).
    pub mesh_triangles: usize,
    pub bytes: u64,
    /// Whatever was dropped or replaced on the way (bad indices, non-finite values, unreadable images).
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    #[error("writing the glTF: {0}")]
    Write(#[from] std::io::Error),
    #[error("writing the glTF container: {0}")]
    Container(gltf::Error),
    #[error("serialising the glTF document: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the binary buffer has {0} bytes; a .glb holds at most 4 GiB")]
    TooLarge(u64),
    #[error("{0:?}: the export file must end in .glb or .gltf")]
    UnknownContainer(PathBuf),
}

/// The two ways of storing a glTF asset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// One binary file: the JSON chunk and the buffer.
    Glb,
    /// A JSON file and its buffer in a `.bin` file of the same name beside it.
    Gltf,
}

impl Container {
    pub fn of_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "glb" => Some(Self::Glb),
            "gltf" => Some(Self::Gltf),
            _ => None,
        }
    }
}

/// Writes `scene` as a `.glb` to `out`.
pub fn write(scene: &Scene, options: &ExportOptions<'_>, out: &mut impl Write) -> Result<ExportReport, ExportError> {
    let (document, buffer, mut report) = build(scene, options, None);
    report.bytes = write_glb(&document, &buffer, out)?;
    Ok(report)
}

/// An I/O error on `path`, named.
fn io(path: &Path) -> impl Fn(std::io::Error) -> ExportError + '_ {
    move |error| ExportError::Io { path: path.to_path_buf(), error }
}

/// Writes `scene` to `path`: a `.glb`, or a `.gltf` with `NAME.bin` beside it (its size is counted in
/// the report's bytes).
pub fn write_file(scene: &Scene, options: &ExportOptions<'_>, path: &Path) -> Result<ExportReport, ExportError> {
    let container = Container::of_path(path).ok_or_else(|| ExportError::UnknownContainer(path.to_path_buf()))?;
    match container {
        Container::Glb => {
            let file = std::fs::File::create(path).map_err(io(path))?;
            let mut out = std::io::BufWriter::new(file);
            let report = write(scene, options, &mut out)?;
            out.flush().map_err(io(path))?;
            Ok(report)
        }
        Container::Gltf => {
            let bin_path = path.with_extension("bin");
            let bin_name = bin_path.file_name().and_then(|n| n.to_str()).unwrap_or("buffer.bin").to_owned();
            let (document, buffer, mut report) = build(scene, options, Some(bin_name));
            let text = json::serialize::to_vec_pretty(&document)?;
            std::fs::write(path, &text).map_err(io(path))?;
            std::fs::write(&bin_path, &buffer).map_err(io(&bin_path))?;
            report.bytes = (text.len() + buffer.len()) as u64;
            Ok(report)
        }
    }
}

fn write_glb(document: &json::Root, buffer: &[u8], out: &mut impl Write) -> Result<u64, ExportError> {
    let text = json::serialize::to_vec(document)?;
    let padded = |n: usize| n.div_ceil(4) * 4;
    let length =
        12 + 8 + padded(text.len()) as u64 + if buffer.is_empty() { 0 } else { 8 + padded(buffer.len()) as u64 };
    if length > u64::from(u32::MAX) {
        return Err(ExportError::TooLarge(buffer.len() as u64));
    }
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header { magic: *b"glTF", version: 2, length: length as u32 },
        json: Cow::Owned(text),
        bin: (!buffer.is_empty()).then_some(Cow::Borrowed(buffer)),
    };
    glb.to_writer(out).map_err(|e| match e {
        gltf::Error::Io(e) => ExportError::Write(e),
        other => ExportError::Container(other),
    })?;
    Ok(length)
}

/// Whether each scene node is written: shown itself (by the options for overlays) and its parent too.
fn written_nodes(scene: &Scene, options: &ExportOptions<'_>) -> Vec<bool> {
    let mut written = vec![false; scene.nodes.len()];
    for (i, node) in scene.nodes.iter().enumerate() {
        let shown = match node.overlay {
            Some(Overlay::Doodad(set)) => set == 0 || set == options.doodad_set,
            Some(Overlay::Portals) => options.portals,
            Some(Overlay::Liquid) => options.liquids,
            Some(Overlay::Collision) => false,
            None => !node.hidden,
        };
        // Parents come before children; a parent index that breaks that rule writes nothing.
        let parent_written = node.parent.is_none_or(|p| p < i && written[p]);
        written[i] = shown && parent_written;
    }
    written
}

/// The accessors of one scene mesh, written once however many primitives draw it.
#[derive(Clone)]
struct MeshAccessors {
    attributes: BTreeMap<Checked<json::mesh::Semantic>, json::Index<json::Accessor>>,
    indices: json::Index<json::Accessor>,
    mode: json::mesh::Mode,
    has_uv: bool,
    triangles: usize,
    /// Morph targets (position and normal displacements) and their names, in target order.
    targets: Vec<json::mesh::MorphTarget>,
    target_names: Vec<String>,
}

struct Builder<'s> {
    scene: &'s Scene,
    root: json::Root,
    buffer: Vec<u8>,
    accessors: HashMap<usize, Option<MeshAccessors>>,
    /// (scene material, whether the primitive has UVs to sample its texture with) → glTF material.
    materials: HashMap<(usize, bool), json::Index<json::Material>>,
    /// The texture whose pixels each image holds → the image (none when it could not be encoded).
    images: HashMap<usize, Option<json::Index<json::Image>>>,
    textures: HashMap<usize, Option<json::Index<json::Texture>>>,
    /// (image, sampler) → texture, so equal pairs are one texture.
    texture_of_image:
        HashMap<(json::Index<json::Image>, json::Index<json::texture::Sampler>), json::Index<json::Texture>>,
    samplers: HashMap<(bool, bool, bool), json::Index<json::texture::Sampler>>,
    /// The game's blend passes glTF has no mode for, by name.
    unmapped_blends: BTreeSet<&'static str>,
    /// The morph weights chosen, by name (the last setting of a name wins).
    morph_weights: &'s [(String, f32)],
    notes: Vec<String>,
}

fn build(
    scene: &Scene,
    options: &ExportOptions<'_>,
    buffer_uri: Option<String>,
) -> (json::Root, Vec<u8>, ExportReport) {
    let written = written_nodes(scene, options);
    let folded = folded_nodes(scene, &written);
    // The draws each written, unfolded node carries: its own and its folded children's.
    let mut draws: Vec<Vec<Draw>> = vec![Vec::new(); scene.nodes.len()];
    for (i, node) in scene.nodes.iter().enumerate() {
        if !written[i] {
            continue;
        }
        let holder = if folded[i] { node.parent.unwrap_or(i) } else { i };
        if let Some(draw) = node.draw.filter(|d| d.mesh < scene.meshes.len() && d.material < scene.materials.len()) {
            draws[holder].push(draw);
        }
    }
    let used_meshes: BTreeSet<usize> = draws.iter().flatten().map(|d| d.mesh).collect();
    let used_textures: BTreeSet<usize> = draws
        .iter()
        .flatten()
        .filter(|d| has_uv(&scene.meshes[d.mesh].data))
        .flat_map(|d| material_textures(&scene.materials[d.material]).map(|t| t.texture))
        .filter(|&t| t < scene.textures.len())
        .collect();
    // A file decoded twice (a WMO material and a doodad's M2 naming one BLP) is written as one image.
    let mut first_with_pixels: HashMap<(u32, u32, &[u8]), usize> = HashMap::new();
    let image_source: HashMap<usize, usize> = used_textures
        .iter()
        .map(|&t| {
            let image = &scene.textures[t].image;
            let pixels = image.levels.first().map_or(&[][..], |l| l.as_slice());
            (t, *first_with_pixels.entry((image.width, image.height, pixels)).or_insert(t))
        })
        .collect();
    let images: BTreeSet<usize> = image_source.values().copied().collect();
    let total = used_meshes.len() + images.len();
    let done = AtomicUsize::new(0);
    let step = || {
        let now = done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(progress) = options.progress {
            progress(now, total);
        }
    };
    let mut builder = Builder {
        scene,
        root: json::Root::default(),
        buffer: Vec::new(),
        accessors: HashMap::new(),
        materials: HashMap::new(),
        images: HashMap::new(),
        textures: HashMap::new(),
        texture_of_image: HashMap::new(),
        samplers: HashMap::new(),
        unmapped_blends: BTreeSet::new(),
        morph_weights: options.morph_weights,
        notes: Vec::new(),
    };
    for (t, png) in encode_textures(scene, &images, &step) {
        builder.add_image(t, png);
    }
    for &t in &used_textures {
        builder.add_texture(t, image_source[&t]);
    }
    for &m in &used_meshes {
        let accessors = builder.write_mesh(m);
        builder.accessors.insert(m, accessors);
        step();
    }

    let mut report = ExportReport::default();
    let mut node_of: Vec<Option<json::Index<json::Node>>> = vec![None; scene.nodes.len()];
    let mut meshes_by_draws: HashMap<Vec<Draw>, Option<(json::Index<json::Mesh>, usize)>> = HashMap::new();
    let mut roots = Vec::new();
    for (i, node) in scene.nodes.iter().enumerate() {
        if !written[i] || folded[i] {
            continue;
        }
        let mesh = match meshes_by_draws.get(&draws[i]) {
            Some(&mesh) => mesh,
            None => {
                let mesh = builder.add_mesh(&draws[i], node.name.as_deref());
                meshes_by_draws.insert(draws[i].clone(), mesh);
                mesh
            }
        };
        if let Some((_, triangles)) = mesh {
            report.triangles += triangles;
        }
        // glTF is in metres; World of Warcraft's files are in yards, scaled once at their root.
        let unit_scale = if node.parent.is_none() { metres_per_unit(scene) } else { 1.0 };
        let scale = finite_or(node.transform.scale, 1.0).map(|s| s * unit_scale);
        let index = builder.root.push(json::Node {
            name: node.name.clone(),
            mesh: mesh.map(|(m, _)| m),
            translation: (node.transform.translation != NodeTransform::IDENTITY.translation)
                .then(|| finite_or(node.transform.translation, 0.0)),
            rotation: rotation(node.transform.rotation),
            scale: (scale != NodeTransform::IDENTITY.scale).then_some(scale),
            extras: node.overlay.map(overlay_extras),
            ..Default::default()
        });
        node_of[i] = Some(index);
        match node.parent.and_then(|p| node_of[p]) {
            Some(parent) => builder.root.nodes[parent.value()].children.get_or_insert_with(Vec::new).push(index),
            None => roots.push(index),
        }
    }
    let scene_index = builder.root.push(json::Scene {
        name: scene.nodes.first().and_then(|n| n.name.clone()),
        nodes: roots,
        extensions: None,
        extras: None,
    });
    builder.root.scene = Some(scene_index);

    report.nodes = builder.root.nodes.len();
    report.meshes = builder.root.meshes.len();
    report.primitives = builder.root.meshes.iter().map(|m| m.primitives.len()).sum();
    report.mesh_triangles = meshes_by_draws.values().flatten().map(|(_, t)| t).sum();
    report.materials = builder.root.materials.len();
    report.textures = builder.root.textures.len();
    builder.finish(buffer_uri);
    report.notes = std::mem::take(&mut builder.notes);
    (builder.root, builder.buffer, report)
}

/// Drawing children that fold into their parent's mesh: written, unnamed, untransformed, no overlay
/// and no children of their own.
fn folded_nodes(scene: &Scene, written: &[bool]) -> Vec<bool> {
    let mut has_children = vec![false; scene.nodes.len()];
    for node in &scene.nodes {
        if let Some(p) = node.parent.filter(|&p| p < has_children.len()) {
            has_children[p] = true;
        }
    }
    scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            written[i]
                && n.parent.is_some()
                && n.draw.is_some()
                && n.name.is_none()
                && n.overlay.is_none()
                && n.transform == NodeTransform::IDENTITY
                && !has_children[i]
        })
        .collect()
}

fn overlay_extras(overlay: Overlay) -> Box<json::extras::RawValue> {
    let extras = match overlay {
        Overlay::Doodad(set) => value!({ "overlay": "doodad", "doodad_set": set }),
        Overlay::Portals => value!({ "overlay": "portal" }),
        Overlay::Liquid => value!({ "overlay": "liquid" }),
        Overlay::Collision => value!({ "overlay": "collision" }),
    };
    raw(&extras)
}

fn raw(extras: &Value) -> Box<json::extras::RawValue> {
    serde_json::value::to_raw_value(extras).expect("a serde_json Value always serialises")
}

fn finite_or<const N: usize>(v: [f32; N], fallback: f32) -> [f32; N] {
    v.map(|c| if c.is_finite() { c } else { fallback })
}

/// Every texture a material samples: base colour, metallic-roughness, normal, emissive.
fn material_textures(material: &Material) -> impl Iterator<Item = crate::scene::TextureRef> {
    [
        material.base_color_texture,
        material.metallic_roughness_texture,
        material.normal_map_texture,
        material.emissive_texture,
    ]
    .into_iter()
    .flatten()
}

/// The node's rotation as a unit quaternion, or none for identity and for one that cannot be normalised.
fn rotation(q: [f32; 4]) -> Option<json::scene::UnitQuaternion> {
    let length = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if !length.is_finite() || length < 1e-6 || q == NodeTransform::IDENTITY.rotation {
        return None;
    }
    Some(json::scene::UnitQuaternion(q.map(|c| c / length)))
}

fn has_uv(mesh: &MeshData) -> bool {
    mesh.uv_sets.first().is_some_and(|uv| uv.len() == mesh.positions.len())
}

/// A texture as PNG bytes, or why it could not be encoded.
type EncodedImage = Result<Vec<u8>, ImageNotEncoded>;

/// Why a texture was left out of the export.
#[derive(Debug, thiserror::Error)]
enum ImageNotEncoded {
    #[error("{width}×{height} with {bytes} bytes of pixels")]
    PixelsDoNotFit { width: u32, height: u32, bytes: usize },
    #[error(transparent)]
    Png(#[from] image::ImageError),
}

/// Every used texture's level 0 as PNG, on every core (a WMO has hundreds of textures).
fn encode_textures(scene: &Scene, used: &BTreeSet<usize>, step: &(dyn Fn() + Sync)) -> Vec<(usize, EncodedImage)> {
    let wanted: Vec<usize> = used.iter().copied().collect();
    let encoded = crate::parallel::parallel_map(&wanted, |&t| {
        let png = encode_png(&scene.textures[t]);
        step();
        png
    });
    wanted.into_iter().zip(encoded).collect()
}

fn encode_png(texture: &Texture) -> EncodedImage {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let image = &texture.image;
    let level = image.levels.first().map_or(&[][..], |level| &level[..]);
    let expected = u64::from(image.width) * u64::from(image.height) * 4;
    if image.width == 0 || image.height == 0 || level.len() as u64 != expected {
        return Err(ImageNotEncoded::PixelsDoNotFit { width: image.width, height: image.height, bytes: level.len() });
    }
    let mut png = Vec::new();
    PngEncoder::new_with_quality(&mut png, CompressionType::Fast, FilterType::Adaptive).write_image(
        level,
        image.width,
        image.height,
        image::ExtendedColorType::Rgba8,
    )?;
    Ok(png)
}

impl Builder<'_> {
    /// Appends `bytes` as a buffer view, 4-byte aligned (every accessor's component size divides 4).
    fn add_view(&mut self, bytes: &[u8], target: Option<json::buffer::Target>) -> json::Index<json::buffer::View> {
        let offset = self.buffer.len();
        self.buffer.extend_from_slice(bytes);
        self.buffer.resize(self.buffer.len().next_multiple_of(4), 0);
        self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: (offset > 0).then(|| USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn add_accessor(
        &mut self,
        bytes: &[u8],
        target: json::buffer::Target,
        count: usize,
        component: json::accessor::ComponentType,
        kind: json::accessor::Type,
        normalized: bool,
        bounds: Option<([f32; 3], [f32; 3])>,
    ) -> json::Index<json::Accessor> {
        let view = self.add_view(bytes, Some(target));
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(kind),
            min: bounds.map(|(min, _)| value!(min)),
            max: bounds.map(|(_, max)| value!(max)),
            name: None,
            normalized,
            sparse: None,
        })
    }

    /// Writes a scene mesh's vertices and its valid elements; `None` when nothing drawable is left.
    /// Elements that index past the vertices or touch a non-finite position are dropped, and the
    /// attributes that do not have one value per vertex are left out, each with a note.
    fn write_mesh(&mut self, m: usize) -> Option<MeshAccessors> {
        use json::accessor::{ComponentType, Type};
        use json::buffer::Target;
        use json::mesh::Semantic;
        let scene_mesh = &self.scene.meshes[m];
        let mesh = &scene_mesh.data;
        let label = &scene_mesh.label;
        let vertex_count = mesh.positions.len();
        let (corners, mode) = match mesh.topology {
            Topology::Triangles => (3, json::mesh::Mode::Triangles),
            Topology::Lines => (2, json::mesh::Mode::Lines),
            Topology::Points => (1, json::mesh::Mode::Points),
        };
        if vertex_count == 0 || mesh.indices.is_empty() {
            return None;
        }
        let finite = |p: &[f32; 3]| p.iter().all(|c| c.is_finite());
        let mut indices: Vec<u32> = Vec::with_capacity(mesh.indices.len());
        let mut dropped = 0;
        for element in mesh.indices.chunks(corners) {
            let valid =
                element.len() == corners && element.iter().all(|&i| mesh.positions.get(i as usize).is_some_and(finite));
            if valid { indices.extend_from_slice(element) } else { dropped += 1 }
        }
        if dropped > 0 {
            self.notes.push(format!(
                "{label}: {dropped} elements index past the vertices or touch a non-finite position and were dropped"
            ));
        }
        if indices.is_empty() {
            return None;
        }
        let mut attributes = BTreeMap::new();
        // Non-finite positions (no element uses them any more) take the first finite one's place, so
        // the written values stay finite and inside the bounds.
        let stand_in = mesh.positions.iter().find(|p| finite(p)).copied().unwrap_or([0.0; 3]);
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        let mut bytes = Vec::with_capacity(vertex_count * 12);
        for p in &mesh.positions {
            let p = if finite(p) { *p } else { stand_in };
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
                bytes.extend_from_slice(&p[k].to_le_bytes());
            }
        }
        let positions = self.add_accessor(
            &bytes,
            Target::ArrayBuffer,
            vertex_count,
            ComponentType::F32,
            Type::Vec3,
            false,
            Some((min, max)),
        );
        attributes.insert(Checked::Valid(Semantic::Positions), positions);

        if mesh.normals.len() == vertex_count {
            bytes.clear();
            for n in &mesh.normals {
                let unit = crate::mesh::normalize(*n).unwrap_or([0.0, 1.0, 0.0]);
                unit.iter().for_each(|c| bytes.extend_from_slice(&c.to_le_bytes()));
            }
            let normals = self.add_accessor(
                &bytes,
                Target::ArrayBuffer,
                vertex_count,
                ComponentType::F32,
                Type::Vec3,
                false,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::Normals), normals);
        } else if !mesh.normals.is_empty() {
            self.notes
                .push(format!("{label}: {} normals for {vertex_count} vertices; NORMAL left out", mesh.normals.len()));
        }
        let mut set = 0;
        for uv in &mesh.uv_sets {
            if uv.len() != vertex_count {
                self.notes
                    .push(format!("{label}: a UV set of {} values for {vertex_count} vertices was left out", uv.len()));
                continue;
            }
            bytes.clear();
            for t in uv {
                finite_or(*t, 0.0).iter().for_each(|c| bytes.extend_from_slice(&c.to_le_bytes()));
            }
            let accessor = self.add_accessor(
                &bytes,
                Target::ArrayBuffer,
                vertex_count,
                ComponentType::F32,
                Type::Vec2,
                false,
                None,
            );
            attributes.insert(Checked::Valid(Semantic::TexCoords(set)), accessor);
            set += 1;
        }
        match &mesh.colors {
            Some(colors) if colors.len() == vertex_count => {
                bytes.clear();
                for c in colors {
                    bytes.extend(c.map(|v| if v.is_finite() { (v.clamp(0.0, 1.0) * 255.0).round() as u8 } else { 0 }));
                }
                let accessor = self.add_accessor(
                    &bytes,
                    Target::ArrayBuffer,
                    vertex_count,
                    ComponentType::U8,
                    Type::Vec4,
                    true,
                    None,
                );
                attributes.insert(Checked::Valid(Semantic::Colors(0)), accessor);
            }
            Some(colors) => self
                .notes
                .push(format!("{label}: {} colours for {vertex_count} vertices; COLOR_0 left out", colors.len())),
            None => {}
        }
        // Morph targets (LightWave endomorphs): displacements, POSITION with its bounds as glTF asks.
        let mut targets = Vec::new();
        let mut target_names = Vec::new();
        for target in &mesh.morph_targets {
            if target.positions.len() != vertex_count || target.normals.len() != vertex_count {
                self.notes.push(format!(
                    "{label}: morph {} has {} values for {vertex_count} vertices; left out",
                    target.name,
                    target.positions.len()
                ));
                continue;
            }
            let mut write = |values: &[[f32; 3]], bounded: bool| {
                bytes.clear();
                let mut min = [f32::INFINITY; 3];
                let mut max = [f32::NEG_INFINITY; 3];
                for v in values {
                    let v = finite_or(*v, 0.0);
                    for k in 0..3 {
                        min[k] = min[k].min(v[k]);
                        max[k] = max[k].max(v[k]);
                        bytes.extend_from_slice(&v[k].to_le_bytes());
                    }
                }
                self.add_accessor(
                    &bytes,
                    Target::ArrayBuffer,
                    vertex_count,
                    ComponentType::F32,
                    Type::Vec3,
                    false,
                    bounded.then_some((min, max)),
                )
            };
            let positions = write(&target.positions, true);
            let normals = (mesh.normals.len() == vertex_count).then(|| write(&target.normals, false));
            targets.push(json::mesh::MorphTarget { positions: Some(positions), normals, tangents: None });
            target_names.push(target.name.clone());
        }
        bytes.clear();
        let component = if vertex_count <= usize::from(u16::MAX) {
            indices.iter().for_each(|&i| bytes.extend_from_slice(&(i as u16).to_le_bytes()));
            ComponentType::U16
        } else {
            indices.iter().for_each(|&i| bytes.extend_from_slice(&i.to_le_bytes()));
            ComponentType::U32
        };
        let index_accessor =
            self.add_accessor(&bytes, Target::ElementArrayBuffer, indices.len(), component, Type::Scalar, false, None);
        Some(MeshAccessors {
            attributes,
            indices: index_accessor,
            mode,
            has_uv: has_uv(mesh),
            triangles: if mode == json::mesh::Mode::Triangles { indices.len() / 3 } else { 0 },
            targets,
            target_names,
        })
    }

    /// One glTF mesh with a primitive per draw; `None` when no draw has anything to show.
    fn add_mesh(&mut self, draws: &[Draw], node_name: Option<&str>) -> Option<(json::Index<json::Mesh>, usize)> {
        let mut primitives = Vec::new();
        let mut triangles = 0;
        let mut target_names: Option<Vec<String>> = None;
        let mut targets_agree = true;
        for draw in draws {
            let Some(accessors) = self.accessors.get(&draw.mesh).cloned().flatten() else { continue };
            // glTF gives one mesh one set of weights: every primitive needs the same targets.
            match &target_names {
                None => target_names = Some(accessors.target_names.clone()),
                Some(names) => targets_agree &= *names == accessors.target_names,
            }
            let material = self.material(draw.material, accessors.has_uv);
            triangles += accessors.triangles;
            primitives.push(json::mesh::Primitive {
                attributes: accessors.attributes,
                extensions: None,
                extras: None,
                indices: Some(accessors.indices),
                material: Some(material),
                mode: Checked::Valid(accessors.mode),
                targets: (!accessors.targets.is_empty()).then_some(accessors.targets),
            });
        }
        if primitives.is_empty() {
            return None;
        }
        let mut target_names = target_names.unwrap_or_default();
        if !targets_agree {
            self.notes.push(format!(
                "{}: its parts have different morph targets; written without them",
                node_name.unwrap_or("a mesh")
            ));
            primitives.iter_mut().for_each(|p| p.targets = None);
            target_names.clear();
        }
        let name = match draws {
            [one] => Some(self.scene.meshes[one.mesh].label.clone()),
            _ => node_name.map(str::to_owned),
        };
        // `targetNames` in the mesh's extras is where Blender and three.js look for the targets' names.
        let (weights, extras) = if target_names.is_empty() {
            (None, None)
        } else {
            let weight = |name: &String| {
                self.morph_weights
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map_or(0.0, |&(_, w)| if w.is_finite() { w } else { 0.0 })
            };
            (Some(target_names.iter().map(weight).collect()), Some(raw(&value!({ "targetNames": target_names }))))
        };
        let mesh = self.root.push(json::Mesh { extensions: None, extras, name, primitives, weights });
        Some((mesh, triangles))
    }

    fn add_image(&mut self, t: usize, png: EncodedImage) {
        let texture = &self.scene.textures[t];
        let png = match png {
            Ok(png) => png,
            Err(reason) => {
                self.notes.push(format!("texture {}: {reason}; written without it", texture.name));
                self.images.insert(t, None);
                return;
            }
        };
        let view = self.add_view(&png, None);
        let image = self.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: Some(texture.name.clone()),
            uri: None,
            extensions: None,
            extras: (!texture.found).then(|| raw(&value!({ "placeholder": true }))),
        });
        self.images.insert(t, Some(image));
    }

    /// Texture `t` as its image (that of `image_source`, which holds the same pixels) and its sampler.
    fn add_texture(&mut self, t: usize, image_source: usize) {
        let Some(image) = self.images.get(&image_source).copied().flatten() else {
            self.textures.insert(t, None);
            return;
        };
        let texture = &self.scene.textures[t];
        let sampler = self.sampler(texture.sampler);
        let index = match self.texture_of_image.get(&(image, sampler)) {
            Some(&index) => index,
            None => {
                let index = self.root.push(json::Texture {
                    name: Some(texture.label.clone()),
                    sampler: Some(sampler),
                    source: image,
                    extensions: None,
                    extras: None,
                });
                self.texture_of_image.insert((image, sampler), index);
                index
            }
        };
        self.textures.insert(t, Some(index));
    }

    fn sampler(&mut self, sampler: Sampler) -> json::Index<json::texture::Sampler> {
        use json::texture::{MagFilter, MinFilter, WrappingMode};
        let key = (sampler.repeat[0], sampler.repeat[1], sampler.nearest);
        if let Some(&index) = self.samplers.get(&key) {
            return index;
        }
        let wrap = |repeat: bool| Checked::Valid(if repeat { WrappingMode::Repeat } else { WrappingMode::ClampToEdge });
        let (mag, min) = if sampler.nearest {
            (MagFilter::Nearest, MinFilter::Nearest)
        } else {
            (MagFilter::Linear, MinFilter::LinearMipmapLinear)
        };
        let index = self.root.push(json::texture::Sampler {
            mag_filter: Some(Checked::Valid(mag)),
            min_filter: Some(Checked::Valid(min)),
            name: None,
            wrap_s: wrap(sampler.repeat[0]),
            wrap_t: wrap(sampler.repeat[1]),
            extensions: None,
            extras: None,
        });
        self.samplers.insert(key, index);
        index
    }

    /// The glTF material for a scene material; without UVs its texture is left out (a texture with no
    /// coordinates to sample it by is invalid glTF).
    fn material(&mut self, m: usize, with_uv: bool) -> json::Index<json::Material> {
        let material = &self.scene.materials[m];
        // Only a textured material differs with and without UVs.
        let with_uv = with_uv && material_textures(material).next().is_some();
        if let Some(&index) = self.materials.get(&(m, with_uv)) {
            return index;
        }
        let written = |slot: Option<crate::scene::TextureRef>| {
            slot.filter(|_| with_uv).and_then(|t| self.textures.get(&t.texture).copied().flatten())
        };
        let info = |index| json::texture::Info { index, tex_coord: 0, extensions: None, extras: None };
        let texture = written(material.base_color_texture);
        let metallic_roughness = written(material.metallic_roughness_texture);
        let normal = written(material.normal_map_texture);
        let emissive_texture = written(material.emissive_texture);
        let (alpha_mode, cutoff) = match material.alpha_mode {
            AlphaMode::Opaque => (json::material::AlphaMode::Opaque, None),
            AlphaMode::Mask(cutoff) => {
                (json::material::AlphaMode::Mask, Some(if cutoff.is_finite() { cutoff.max(0.0) } else { 0.5 }))
            }
            AlphaMode::Blend | AlphaMode::Add => (json::material::AlphaMode::Blend, None),
        };
        let [r, g, b, a] = finite_or(material.base_color, 1.0);
        // The scene's colour is sRGB, glTF's factor linear.
        let [r, g, b] = crate::formats::lwo::shading::srgb_to_linear([r, g, b].map(|c| c.clamp(0.0, 1.0)));
        let base_color = [r, g, b, a.clamp(0.0, 1.0)];
        let emissive = finite_or(material.emissive, 0.0).map(|c| c.max(0.0));
        let brightest = emissive.iter().copied().fold(0.0f32, f32::max);
        let (emissive_factor, emissive_strength) =
            if brightest > 1.0 { (emissive.map(|c| c / brightest), Some(brightest)) } else { (emissive, None) };
        let extras = self.material_extras(material);
        let extensions = json::extensions::material::Material {
            unlit: material.unlit.then_some(json::extensions::material::Unlit {}),
            emissive_strength: emissive_strength.map(|s| json::extensions::material::EmissiveStrength {
                emissive_strength: json::extensions::material::EmissiveStrengthFactor(s),
            }),
        };
        if material.unlit {
            self.uses_extension("KHR_materials_unlit");
        }
        if emissive_strength.is_some() {
            self.uses_extension("KHR_materials_emissive_strength");
        }
        let unit = |v: f32, fallback: f32| if v.is_finite() { v.clamp(0.0, 1.0) } else { fallback };
        let index = self.root.push(json::Material {
            alpha_cutoff: cutoff.map(json::material::AlphaCutoff),
            alpha_mode: Checked::Valid(alpha_mode),
            double_sided: material.double_sided,
            name: Some(material.label.clone()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(base_color),
                base_color_texture: texture.map(info),
                metallic_factor: json::material::StrengthFactor(unit(material.metallic, 0.0)),
                roughness_factor: json::material::StrengthFactor(unit(material.perceptual_roughness, 0.5)),
                metallic_roughness_texture: metallic_roughness.map(info),
                extensions: None,
                extras: None,
            },
            normal_texture: normal.map(|index| json::material::NormalTexture {
                index,
                scale: 1.0,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }),
            emissive_texture: emissive_texture.map(info),
            emissive_factor: json::material::EmissiveFactor(emissive_factor),
            extensions: (material.unlit || emissive_strength.is_some()).then_some(extensions),
            extras,
            ..Default::default()
        });
        self.materials.insert((m, with_uv), index);
        index
    }

    fn uses_extension(&mut self, name: &str) {
        if !self.root.extensions_used.iter().any(|e| e == name) {
            self.root.extensions_used.push(name.to_owned());
        }
    }

    /// What the material does that glTF's PBR model cannot say.
    fn material_extras(&mut self, material: &Material) -> json::Extras {
        let mut extras = serde_json::Map::new();
        if material.alpha_mode == AlphaMode::Add {
            extras.insert("blend".into(), value!("additive (ONE, ONE): written as BLEND"));
            self.unmapped_blends.insert("LightWave additive transparency");
        }
        if let Some(pass) = material.game_pass {
            if let Some((name, factors)) = unmapped_blend(pass.blend) {
                extras.insert("blend".into(), value!(format!("{name} ({factors}): written as BLEND")));
                self.unmapped_blends.insert(name);
            }
            if pass.vertex_color_scale != 1.0 {
                extras.insert("vertex_color_scale".into(), value!(pass.vertex_color_scale));
            }
            if pass.no_depth_write {
                extras.insert("depth_write".into(), value!(false));
            }
            if pass.no_depth_test {
                extras.insert("depth_test".into(), value!(false));
            }
        }
        if material.depth_bias != 0.0 {
            extras.insert("depth_bias".into(), value!(material.depth_bias));
        }
        if !material.fog {
            extras.insert("fog".into(), value!(false));
        }
        (!extras.is_empty()).then(|| raw(&Value::Object(extras)))
    }

    fn finish(&mut self, buffer_uri: Option<String>) {
        if !self.buffer.is_empty() {
            self.root.push(json::Buffer {
                byte_length: USize64::from(self.buffer.len()),
                name: None,
                uri: buffer_uri,
                extensions: None,
                extras: None,
            });
        }
        let units = match self.scene.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model) {
            Some(Model::Lwo(_)) => "metres (LightWave's unit)",
            Some(_) => "metres: World of Warcraft's yards scaled by 0.9144 on the root node",
            None => "as in the file",
        };
        let mut extras = serde_json::Map::new();
        extras.insert("units".into(), value!(units));
        if let Some(file) = self.scene.files.first() {
            extras.insert("source".into(), value!(crate::scene::file_name(&file.path)));
        }
        if !self.unmapped_blends.is_empty() {
            extras.insert("unmapped_blend_modes".into(), value!(self.unmapped_blends.iter().collect::<Vec<_>>()));
        }
        self.root.asset = json::Asset {
            copyright: None,
            extensions: None,
            extras: Some(raw(&Value::Object(extras))),
            generator: Some(format!("lwo-wmo-viewer {}", env!("CARGO_PKG_VERSION"))),
            min_version: None,
            version: "2.0".into(),
        };
    }
}

/// The game's blend passes that glTF's alpha modes do not cover, with their blend factors.
fn unmapped_blend(blend: PassBlend) -> Option<(&'static str, &'static str)> {
    match blend {
        PassBlend::Opaque | PassBlend::AlphaKey | PassBlend::Alpha => None,
        PassBlend::OneOne => Some(("NoAlphaAdd", "ONE, ONE")),
        PassBlend::Add => Some(("Add", "SRC_ALPHA, ONE")),
        PassBlend::Mod => Some(("Mod", "DST_COLOR, ZERO")),
        PassBlend::Mod2x => Some(("Mod2x", "DST_COLOR, SRC_COLOR")),
        PassBlend::ModAdd => Some(("ModAdd", "DST_COLOR, ONE")),
        PassBlend::InvSrcAlphaAdd => Some(("InvSrcAlphaAdd", "ONE_MINUS_SRC_ALPHA, ONE")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Node, SceneMesh};
    use std::sync::Mutex;

    fn odd_scene() -> Scene {
        let mut scene = Scene::default();
        let mut mesh = MeshData::new(Topology::Triangles);
        mesh.positions = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [f32::NAN, 0.0, 0.0]];
        mesh.normals = vec![[0.0, 0.0, 1.0]; 2];
        mesh.colors = Some(vec![[1.0, 0.0, 0.0, 1.0]; 3]);
        mesh.uv_sets = vec![vec![[0.0, 0.0]; 4]];
        // One good triangle, one past the vertices, one through the NaN vertex, one cut short.
        mesh.indices = vec![0, 1, 2, 0, 1, 9, 0, 1, 3, 2, 1];
        scene.meshes.push(SceneMesh { label: "odd".into(), data: mesh, source: None });
        scene.meshes.push(SceneMesh { label: "empty".into(), data: MeshData::new(Topology::Lines), source: None });
        scene.materials.push(Material {
            base_color: [f32::NAN, 2.0, 0.5, 1.0],
            emissive: [3.0, 0.0, 0.0],
            ..Material::new("m")
        });
        scene.nodes.push(Node::group("root", None, NodeTransform::IDENTITY));
        scene.nodes.push(Node::drawing(0, Draw { mesh: 0, material: 0 }));
        scene.nodes.push(Node::drawing(0, Draw { mesh: 1, material: 0 }));
        // Out of range: skipped, not a panic.
        scene.nodes.push(Node::drawing(0, Draw { mesh: 7, material: 9 }));
        scene
    }

    #[test]
    fn odd_meshes_write_valid_glb_without_the_bad_parts() {
        let scene = odd_scene();
        let mut out = Vec::new();
        let report = write(&scene, &ExportOptions::default(), &mut out).unwrap();
        assert_eq!(report.bytes, out.len() as u64);
        assert_eq!((report.nodes, report.meshes, report.triangles), (1, 1, 1));
        assert!(report.notes.iter().any(|n| n.contains("3 elements")), "{:?}", report.notes);
        let gltf = gltf::Gltf::from_slice(&out).unwrap();
        let primitive = gltf.meshes().next().unwrap().primitives().next().unwrap();
        let position = primitive.get(&gltf::Semantic::Positions).unwrap();
        assert_eq!(position.min().unwrap(), value!([0.0, 0.0, 0.0]));
        assert_eq!(position.max().unwrap(), value!([1.0, 1.0, 0.0]));
        assert!(primitive.get(&gltf::Semantic::Normals).is_none());
        assert!(primitive.get(&gltf::Semantic::Colors(0)).is_none());
        assert_eq!(primitive.indices().unwrap().count(), 3);
        let material = primitive.material();
        assert!(
            material
                .pbr_metallic_roughness()
                .base_color_factor()
                .iter()
                .all(|c| c.is_finite() && (0.0..=1.0).contains(c))
        );
        assert_eq!(material.emissive_strength(), Some(3.0));
    }

    #[test]
    fn progress_reaches_its_total() {
        let scene = odd_scene();
        let last = Mutex::new((0, 0));
        let progress = |done, total| *last.lock().unwrap() = (done, total);
        write(&scene, &ExportOptions { progress: Some(&progress), ..Default::default() }, &mut Vec::new()).unwrap();
        let (done, total) = *last.lock().unwrap();
        assert!(total > 0 && done == total, "{done} of {total}");
    }
}

/// One yard in metres: WMO and M2 coordinates are yards.
const METRES_PER_YARD: f32 = 0.9144;

/// How many metres one unit of the scene's file is (LightWave: 1; World of Warcraft: a yard).
fn metres_per_unit(scene: &Scene) -> f32 {
    match scene.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model) {
        Some(Model::Lwo(_)) | None => 1.0,
        Some(_) => METRES_PER_YARD,
    }
}
