//! M2 models into the scene, opened on their own or placed as WMO doodads. A model's meshes and
//! materials are built once; every node that places it draws the same ones.

use crate::formats::m2::{parse_skin, skin_file_name, M2Model, Material as M2Material, Skin};
use crate::formats::{FileError, Model};
use crate::mesh::m2::{build as build_meshes, Geosets};
use crate::mesh::Bounds;
use crate::source::FileSource;

use super::diagnostics::{Diagnostic, DiagnosticKind};
use super::material::{m2_blend_name, m2_flag_names, GamePass, Material, PassBlend};
use super::texture::{ImageFormat, Located, Sampler, TextureSet};
use super::{file_name, find_sibling, Draw, MaterialInfo, MeshSource, ModelLabel, Node, NodeTransform, PartInfo, RecordKind, Scene, SceneFile};

/// A drawable of a built model: a texture unit's mesh and material, with the panel's words for it.
#[derive(Clone, Debug)]
pub(super) struct BuiltUnit {
    pub draw: Draw,
    pub name: String,
    pub description: String,
}

#[derive(Clone, Debug)]
pub(super) struct BuiltModel {
    pub units: Vec<BuiltUnit>,
    pub bounds: Bounds,
}

/// The skin a version-264 model at `model_path` draws: `Name00.skin` beside it, found ignoring case.
/// `Ok(None)` for earlier versions, whose views are embedded. The loader and `--info` both use it.
pub fn read_skin_beside(source: &dyn FileSource, model_path: &str, model: &M2Model) -> Result<Option<(SceneFile, Skin)>, Diagnostic> {
    if model.version < 264 {
        return Ok(None);
    }
    let name = skin_file_name(file_name(model_path));
    let model_file = source.display_path(model_path);
    let found = find_sibling(source, model_path, &name)
        .ok_or_else(|| Diagnostic::new(DiagnosticKind::MissingFile, &model_file, format!("{name} is missing beside the model")))?;
    let display_path = source.display_path(&found);
    let unreadable = |message: String| Diagnostic::new(DiagnosticKind::UnreadableFile, &display_path, message);
    let bytes = source.read(&found).map_err(|e| unreadable(e.to_string()))?;
    let skin = parse_skin(&bytes).map_err(|e| unreadable(e.to_string()))?;
    // Kept as a file of the scene (picking and the hex view read its bytes); a skin is no document.
    Ok(Some((SceneFile { path: found, display_path, bytes, document: None }, skin)))
}

/// Builds `model` (the file `file` of the scene) into meshes labeled `M2Model{index}/…`.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_model(
    scene: &mut Scene,
    index: usize,
    source: &dyn FileSource,
    model_file: usize,
    model: &M2Model,
    data: Option<&dyn FileSource>,
    textures: &mut TextureSet,
) -> Result<BuiltModel, Diagnostic> {
    let model_path = scene.files[model_file].path.clone();
    let owner = scene.files[model_file].display_path.clone();
    let skin_file = read_skin_beside(source, &model_path, model)?;
    let (skin, triangles_file) = match skin_file {
        Some((file, skin)) => {
            scene.files.push(file);
            (Some(skin), scene.files.len() - 1)
        }
        None => (None, model_file),
    };
    let view = model
        .view(skin.as_ref())
        .ok_or_else(|| Diagnostic::new(DiagnosticKind::DroppedGeometry, &owner, "the model has no view (skin) to draw"))?;
    let meshes = build_meshes(model, view, Geosets::for_path(&model_path));
    if meshes.dropped_triangles > 0 {
        scene.warnings.push(Diagnostic::new(
            DiagnosticKind::DroppedGeometry,
            &owner,
            format!("{} triangles index past the vertex lookup or the vertices and were dropped", meshes.dropped_triangles),
        ));
    }
    if meshes.dropped_units > 0 {
        scene.warnings.push(Diagnostic::new(
            DiagnosticKind::DroppedGeometry,
            &owner,
            format!("{} texture units name a submesh that does not exist and were dropped", meshes.dropped_units),
        ));
    }
    let mut built = BuiltModel { units: Vec::new(), bounds: meshes.bounds };
    // One material per (M2 material, texture) pair the units use.
    let mut made: Vec<((Option<usize>, Option<usize>), usize)> = Vec::new();
    let indices_offset = view.arrays.iter().find(|a| a.name == "triangle indices").map_or(0, |a| a.offset);
    for unit in meshes.units {
        let kind = RecordKind::M2SkinTriangle { indices_offset, model: model_file, unit: unit.unit, submesh: unit.submesh };
        let mesh_source = Some(MeshSource { file: triangles_file, kind });
        let key = (unit.material, unit.texture);
        let material = match made.iter().find(|(k, _)| *k == key) {
            Some(&(_, material)) => material,
            None => {
                let state = unit.material.map_or(M2Material { flags: 0, blend_mode: 0 }, |m| model.materials[m]);
                let texture = unit.texture.map(|t| {
                    let texture = &model.textures[t];
                    let located = if texture.kind != 0 {
                        Err(format!("texture {t} is replaceable (type {}), resolved by game data this viewer does not read", texture.kind))
                    } else {
                        locate_in_data(data, &texture.file_name)
                    };
                    let name = if texture.file_name.is_empty() { format!("replaceable type {}", texture.kind) } else { texture.file_name.clone() };
                    let (reference, found) = textures.get(
                        &format!("m2 {index} texture {t}"),
                        ModelLabel::M2Texture { model: index, texture: t }.to_string(),
                        &name,
                        located,
                        ImageFormat::Blp,
                        Sampler { repeat: texture.wraps(), nearest: false },
                        &owner,
                        &mut scene.warnings,
                    );
                    (reference, name, found)
                });
                let label = ModelLabel::M2Material { model: index, material: made.len() }.to_string();
                let material = scene.add_material(unit_material(label, state, texture.as_ref().map(|(r, _, _)| *r)));
                scene.material_infos.push(MaterialInfo {
                    name: format!("{} material {}", file_name(&model_path), unit.material.map_or("–".into(), |m| m.to_string())),
                    parameters: material_parameters(state),
                    texture: texture.map(|(_, name, found)| (name, found)),
                });
                made.push((key, material));
                material
            }
        };
        let blend = unit.material.map_or(0, |m| model.materials[m].blend_mode);
        let name = format!("Unit {}: submesh {} (geoset {})", unit.unit, unit.submesh, unit.geoset);
        let description = format!("blend {blend}, texture {}", unit.texture.map_or("–".into(), |t| t.to_string()));
        let mesh = scene.add_mesh(ModelLabel::M2Unit { model: index, unit: unit.unit }, unit.mesh, mesh_source);
        built.units.push(BuiltUnit { draw: Draw { mesh, material }, name, description });
    }
    Ok(built)
}

/// A file named by the game (`World\Generic\Barrel.blp`) in the data root.
pub(super) fn locate_in_data<'a>(data: Option<&'a dyn FileSource>, name: &str) -> Result<Located<'a>, String> {
    let data = data.ok_or_else(|| "no data root (a folder holding World) was found or given".to_owned())?;
    let path = data.find(name).ok_or_else(|| "not found under the data root".to_owned())?;
    Ok(Located { source: data, path })
}

fn unit_material(label: String, state: M2Material, texture: Option<super::TextureRef>) -> Material {
    let blend = PassBlend::from_m2(state.blend_mode);
    Material {
        base_color_texture: texture,
        unlit: state.flags & M2Material::UNLIT != 0,
        fog: state.flags & M2Material::UNFOGGED == 0,
        alpha_mode: blend.alpha_mode(),
        double_sided: state.flags & M2Material::TWO_SIDED != 0,
        perceptual_roughness: 0.8,
        reflectance: 0.2,
        // M2 vertices carry no baked colour: the MOCV doubling does not apply.
        game_pass: Some(GamePass {
            blend,
            vertex_color_scale: 1.0,
            no_depth_write: state.flags & M2Material::NO_DEPTH_WRITE != 0,
            no_depth_test: state.flags & M2Material::NO_DEPTH_TEST != 0,
        }),
        ..Material::new(label)
    }
}

fn material_parameters(state: M2Material) -> Vec<(String, String)> {
    vec![
        ("blend mode".into(), format!("{} ({})", state.blend_mode, m2_blend_name(state.blend_mode))),
        ("render flags".into(), format!("0x{:X} {}", state.flags, m2_flag_names(state.flags).join(", "))),
    ]
}

/// An M2 opened on its own: one part per texture unit.
pub(super) fn build_standalone(source: &dyn FileSource, file: SceneFile, data: Option<&dyn FileSource>) -> Result<Scene, FileError> {
    let document = file.document.clone().expect("the caller matched the model");
    let Model::M2(model) = &document.model else { unreachable!("the caller matched the model") };
    let mut scene = Scene::default();
    scene.warnings.extend(model.warnings.iter().map(|w| Diagnostic::from_format(&file.display_path, w)));
    let display_path = file.display_path.clone();
    let name = file_name(&file.path).to_owned();
    scene.files.push(file);
    let mut textures = TextureSet::default();
    let built = build_model(&mut scene, 0, source, 0, model, data, &mut textures)
        .map_err(|d| FileError::Unsupported { file: display_path.into(), message: d.message })?;
    let root = scene.add_node(Node::group(name, None, NodeTransform::IDENTITY));
    for (i, unit) in built.units.iter().enumerate() {
        scene.count_draw(unit.draw.mesh);
        scene.add_node(Node { name: Some(unit.name.clone()), part: Some(i), ..Node::drawing(root, unit.draw) });
        scene.parts.push(PartInfo { name: unit.name.clone(), description: unit.description.clone(), parent: None, visible: true });
    }
    scene.textures = textures.textures;
    scene.bounds = built.bounds;
    Ok(scene)
}
