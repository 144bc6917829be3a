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
//!
//! Here are the entry points and the containers; `document` gathers the document, its nodes and its
//! asset, `meshes` writes the meshes and their accessors, and `materials` the materials, textures and
//! images.

mod animation;
mod document;
mod material_animation;
mod materials;
mod meshes;

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

use self::document::build;
use crate::scene::Scene;

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
    /// Also write M2 texture-coordinate, colour and transparency animation: `KHR_texture_transform`
    /// moved by `KHR_animation_pointer` channels. Off by default: the Rust `gltf` crate (and so Bevy's
    /// loader) refuses a channel without a node, which that extension requires.
    pub material_animation: bool,
    /// Moving M2s are written posed this many seconds into their sequence (joints and animated
    /// materials); `None` writes them at rest. The animations are written either way.
    pub pose_at: Option<f64>,
    /// The sequence the opened M2 is posed in (an index into its sequences); `None`, and every doodad,
    /// its default, Stand.
    pub sequence: Option<usize>,
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
    /// Skins (one per written instance of a moving M2) and animations (one per sequence of each).
    pub skins: usize,
    pub animations: usize,
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
            let text = serde_json::to_vec_pretty(&document)?;
            std::fs::write(path, &text).map_err(io(path))?;
            std::fs::write(&bin_path, &buffer).map_err(io(&bin_path))?;
            report.bytes = (text.len() + buffer.len()) as u64;
            Ok(report)
        }
    }
}

fn write_glb(document: &serde_json::Value, buffer: &[u8], out: &mut impl Write) -> Result<u64, ExportError> {
    let text = serde_json::to_vec(document)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{MeshData, Topology};
    use crate::scene::{Draw, Material, Node, NodeTransform, SceneMesh};
    use serde_json::json as value;
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
