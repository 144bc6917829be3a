//! The glTF document: which scene nodes are written and which fold into their parent's mesh, the
//! builder that gathers the document and its buffer, the nodes with their transforms, and the asset.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use gltf::json;
use json::validation::USize64;
use serde_json::{Value, json as value};

use super::material_animation::{PointerChannel, StillTextureTransform, add_to_document};
use super::materials::{encode_textures, material_textures};
use super::meshes::{MeshAccessors, has_uv};
use super::{ExportOptions, ExportReport};
use crate::formats::Model;
use crate::scene::animation::SkinBinding;
use crate::scene::{Draw, NodeTransform, Overlay, Scene};

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

pub(super) struct Builder<'s> {
    pub(super) scene: &'s Scene,
    pub(super) root: json::Root,
    pub(super) buffer: Vec<u8>,
    pub(super) accessors: HashMap<usize, Option<MeshAccessors>>,
    /// (scene material, whether the primitive has UVs to sample its texture with) → glTF material.
    pub(super) materials: HashMap<(usize, bool), json::Index<json::Material>>,
    /// The texture whose pixels each image holds → the image (none when it could not be encoded).
    pub(super) images: HashMap<usize, Option<json::Index<json::Image>>>,
    pub(super) textures: HashMap<usize, Option<json::Index<json::Texture>>>,
    /// (image, sampler) → texture, so equal pairs are one texture.
    pub(super) texture_of_image:
        HashMap<(json::Index<json::Image>, json::Index<json::texture::Sampler>), json::Index<json::Texture>>,
    pub(super) samplers: HashMap<(bool, bool, bool), json::Index<json::texture::Sampler>>,
    /// The game's blend passes glTF has no mode for, by name.
    pub(super) unmapped_blends: BTreeSet<&'static str>,
    /// The morph weights chosen, by name (the last setting of a name wins).
    pub(super) morph_weights: &'s [(String, f32)],
    /// Each skeleton's inverse bind matrices, written once for all its instances.
    pub(super) inverse_binds: HashMap<usize, json::Index<json::Accessor>>,
    pub(super) notes: Vec<String>,
    /// [`ExportOptions::pose_at`], [`ExportOptions::sequence`], [`ExportOptions::material_animation`].
    pub(super) pose_at: Option<f64>,
    pub(super) sequence: Option<usize>,
    pub(super) material_animation: bool,
    /// What the serialised document gains that the `gltf` crate's types cannot hold.
    pub(super) texture_transforms: Vec<StillTextureTransform>,
    pub(super) pointer_channels: Vec<PointerChannel>,
}

/// The document as JSON, its buffer, and what was written.
pub(super) fn build(
    scene: &Scene,
    options: &ExportOptions<'_>,
    buffer_uri: Option<String>,
) -> (Value, Vec<u8>, ExportReport) {
    let written = written_nodes(scene, options);
    let folded = folded_nodes(scene, &written);
    // The draws each written, unfolded node carries: its own and its folded children's.
    let mut draws: Vec<Vec<Draw>> = vec![Vec::new(); scene.nodes.len()];
    // The joints that pose each holder's skinned meshes (an M2 instance's).
    let mut skin_of: Vec<Option<&SkinBinding>> = vec![None; scene.nodes.len()];
    for (i, node) in scene.nodes.iter().enumerate() {
        if !written[i] {
            continue;
        }
        let holder = if folded[i] { node.parent.unwrap_or(i) } else { i };
        if let Some(draw) = node.draw.filter(|d| d.mesh < scene.meshes.len() && d.material < scene.materials.len()) {
            draws[holder].push(draw);
        }
        if let Some(skin) = &node.skin {
            skin_of[holder] = Some(skin);
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
        inverse_binds: HashMap::new(),
        notes: Vec::new(),
        pose_at: options.pose_at,
        sequence: options.sequence,
        material_animation: options.material_animation,
        texture_transforms: Vec::new(),
        pointer_channels: Vec::new(),
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
        let transform = builder.posed_joint(node).unwrap_or(node.transform);
        let scale = finite_or(transform.scale, 1.0).map(|s| s * unit_scale);
        let index = builder.root.push(json::Node {
            name: node.name.clone(),
            mesh: mesh.map(|(m, _)| m),
            translation: (transform.translation != NodeTransform::IDENTITY.translation)
                .then(|| finite_or(transform.translation, 0.0)),
            rotation: rotation(transform.rotation),
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
    // Skins once every joint has its node (an instance's joints come after the instance).
    let mut written_skins = Vec::new();
    for (i, binding) in skin_of.iter().enumerate() {
        let (Some(binding), Some(node)) = (binding, node_of[i]) else { continue };
        if builder.root.nodes[node.value()].mesh.is_none() {
            continue;
        }
        match builder.add_skin(binding, &node_of, &mut written_skins) {
            Some(skin) => builder.root.nodes[node.value()].skin = Some(skin),
            None => builder.notes.push(format!(
                "{}: some of its joints are not written; its meshes are written unposed",
                scene.nodes[i].name.as_deref().unwrap_or("an M2 instance")
            )),
        }
    }
    report.skins = builder.root.skins.len();
    report.animations = builder.add_animations(&written_skins);
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
    // Through text, not `to_value`: a Value holds f64s, and would write every f32 with its binary tail.
    let text = serde_json::to_vec(&builder.root).expect("a glTF document always serialises");
    let mut document: Value = serde_json::from_slice(&text).expect("serde_json reads what it wrote");
    add_to_document(&mut document, &builder.texture_transforms, &builder.pointer_channels);
    (document, builder.buffer, report)
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

pub(super) fn raw(extras: &Value) -> Box<json::extras::RawValue> {
    serde_json::value::to_raw_value(extras).expect("a serde_json Value always serialises")
}

pub(super) fn finite_or<const N: usize>(v: [f32; N], fallback: f32) -> [f32; N] {
    v.map(|c| if c.is_finite() { c } else { fallback })
}

/// The node's rotation as a unit quaternion, or none for identity and for one that cannot be normalised.
fn rotation(q: [f32; 4]) -> Option<json::scene::UnitQuaternion> {
    let length = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if !length.is_finite() || length < 1e-6 || q == NodeTransform::IDENTITY.rotation {
        return None;
    }
    Some(json::scene::UnitQuaternion(q.map(|c| c / length)))
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

impl Builder<'_> {
    /// A joint node's transform in the pose the export writes, if it poses moving models.
    fn posed_joint(&self, node: &crate::scene::Node) -> Option<NodeTransform> {
        let joint = node.joint?;
        let file = self.scene.skeletons.get(joint.skeleton)?.model_file;
        let Some(Model::M2(model)) = self.scene.files.get(file)?.document.as_deref().map(|d| &d.model) else {
            return None;
        };
        let clock = self.pose_clock(file, model)?;
        Some(crate::scene::animation::joint_pose(model, joint.bone, &clock))
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
        if !self.scene.animated_materials.is_empty() && !self.material_animation {
            extras.insert("not_written".into(), value!(["M2 texture-coordinate, colour and transparency animation"]));
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
