//! A BLP texture opened on its own: one quad, as wide and high as the texture's aspect, drawn unlit
//! with the texture's own pixels (alpha blended, texels sharp when zoomed in), facing the front view.

use crate::formats::{Model, ParseError};
use crate::mesh::{Bounds, MeshData, Topology};

use super::material::{AlphaMode, Material, TextureRef};
use super::texture::{DecodedImage, Sampler, Texture};
use super::{Diagnostic, Draw, FileError, Node, NodeTransform, PartInfo, Scene, SceneFile, file_name};

/// Scene units per texel: a 256-texel texture is one unit across.
const UNITS_PER_TEXEL: f32 = 1.0 / 256.0;

pub(super) fn build(file: SceneFile) -> Result<Scene, FileError> {
    let document = file.document.clone().expect("the caller matched the model");
    let Model::Blp(info) = &document.model else { unreachable!("the caller matched the model") };
    let blp = crate::formats::blp::decode(&file.bytes)
        .map_err(|e| FileError::parse(&file.display_path, ParseError::from(e)))?;
    let mut scene = Scene::default();
    // The decoder reads the header again and gives the same warnings as `info`'s: one copy of them.
    scene.warnings.extend(blp.warnings.iter().map(|w| Diagnostic::from_format(&file.display_path, w)));
    let name = file_name(&file.path).to_owned();
    let (width, height) = (blp.width as f32 * UNITS_PER_TEXEL, blp.height as f32 * UNITS_PER_TEXEL);
    let mesh = scene.add_mesh("Texture/Quad", quad(width, height), None);
    scene.textures.push(Texture {
        label: "Texture0".into(),
        name: name.clone(),
        found: true,
        image: DecodedImage { width: blp.width, height: blp.height, levels: blp.levels },
        sampler: Sampler { repeat: [false, false], nearest: true },
        linear: false,
        source: Some(file.display_path.clone()),
    });
    let material = scene.add_material(Material {
        base_color_texture: Some(TextureRef { texture: 0 }),
        alpha_mode: AlphaMode::Blend,
        double_sided: true,
        unlit: true,
        fog: false,
        ..Material::new("Texture")
    });
    let root = scene.add_node(Node::group(name.clone(), None, NodeTransform::IDENTITY));
    scene.add_node(Node { part: Some(0), ..Node::drawing(root, Draw { mesh, material }) });
    scene.parts.push(PartInfo {
        name,
        description: format!("{}×{} texture", info.width, info.height),
        parent: None,
        visible: true,
    });
    scene.count_draw(mesh, true);
    scene.bounds = Bounds { min: [-width / 2.0, 0.0, 0.0], max: [width / 2.0, height, 0.0] };
    scene.files.push(file);
    Ok(scene)
}

/// A `width` × `height` quad in the XY plane, standing on y = 0, facing +Z, texture's top at the top.
fn quad(width: f32, height: f32) -> MeshData {
    let (x, y) = (width / 2.0, height);
    let mut mesh = MeshData::new(Topology::Triangles);
    mesh.positions = vec![[-x, 0.0, 0.0], [x, 0.0, 0.0], [x, y, 0.0], [-x, y, 0.0]];
    mesh.normals = vec![[0.0, 0.0, 1.0]; 4];
    mesh.uv_sets = vec![vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]];
    mesh.indices = vec![0, 1, 2, 0, 2, 3];
    mesh
}
