//! M2 models into the scene, opened on their own or placed as WMO doodads. A model's meshes and
//! materials are built once; every node that places it draws the same ones.

use crate::formats::Model;
use crate::formats::m2::{M2Model, Material as M2Material, Skin, parse_skin, skin_file_name};
use crate::mesh::Bounds;
use crate::mesh::m2::{Geosets, build as build_meshes};
use crate::scene::FileError;
use crate::source::FileSource;

use super::animation::place_instance;
use super::diagnostics::{Diagnostic, DiagnosticKind, TextureUser};
use super::material::{GamePass, Material, PassBlend, m2_blend_name, m2_flag_names};
use super::texture::{ImageFormat, Located, NotLocated, Sampler, TextureSet};
use super::{
    Draw, MaterialInfo, MeshSource, ModelLabel, Node, NodeTransform, PartInfo, RecordKind, Scene, SceneFile, file_name,
    find_sibling,
};

/// A drawable of a built model: a texture unit's mesh and material, with the panel's words for it.
#[derive(Clone, Debug)]
pub(super) struct BuiltUnit {
    pub draw: Draw,
    /// The first unit drawing its submesh: the one that counts its triangles (the others are more
    /// passes over the same geometry).
    pub counts_geometry: bool,
    pub name: String,
    pub description: String,
}

#[derive(Clone, Debug)]
pub(super) struct BuiltModel {
    pub units: Vec<BuiltUnit>,
    pub bounds: Bounds,
    /// Its skeleton in [`Scene::skeletons`], when its bones move.
    pub skeleton: Option<usize>,
}

/// The skin a model of version 264 or later at `model_path` draws: for an MD21 model, its first SFID
/// file where the listfile names it and the game data holds it; else `Name00.skin` beside it, found
/// ignoring case, or where that is absent (real data ships models with only some of their skins) the
/// lowest-numbered `NameNN.skin` present, with a warning in `warnings`. `Ok(None)` for earlier
/// versions, whose views are embedded. The loader and `--info` both use it.
pub fn read_skin_beside(
    source: &dyn FileSource,
    model_path: &str,
    model: &M2Model,
    lookup: super::Lookup<'_>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<(SceneFile, Skin)>, Diagnostic> {
    if model.version < 264 {
        return Ok(None);
    }
    // An MD21 model names its first skin by FileDataID: where the listfile knows it and the game
    // data holds it, that file.
    let by_id = model.file_ids.skins.first().and_then(|&id| {
        let path = lookup.listfile?.path(id)?;
        let data = lookup.data?;
        Some((data, data.find(path)?))
    });
    let (source, found) = match by_id {
        Some(found) => found,
        None => (source, skin_beside(source, model_path, warnings)?),
    };
    let display_path = source.display_path(&found);
    let unreadable = |message: String| Diagnostic::new(DiagnosticKind::UnreadableFile, &display_path, message);
    let bytes = source.read(&found).map_err(|e| unreadable(e.to_string()))?;
    let skin = parse_skin(&bytes).map_err(|e| unreadable(e.to_string()))?;
    // Kept as a file of the scene (picking and the hex view read its bytes); a skin is no document.
    Ok(Some((SceneFile { path: found, display_path, bytes, document: None }, skin)))
}

/// `Name00.skin` beside the model, else the lowest-numbered skin there with a warning.
fn skin_beside(
    source: &dyn FileSource,
    model_path: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<String, Diagnostic> {
    let name = skin_file_name(file_name(model_path));
    if let Some(found) = find_sibling(source, model_path, &name) {
        return Ok(found);
    }
    let model_file = source.display_path(model_path);
    let other = lowest_skin_beside(source, model_path).ok_or_else(|| {
        Diagnostic::new(
            DiagnosticKind::MissingFile,
            &model_file,
            format!("{name} is missing beside the model, and no other skin is there"),
        )
    })?;
    warnings.push(Diagnostic::new(
        DiagnosticKind::MissingFile,
        &model_file,
        format!("{name} is missing; drawn from {}, the lowest-numbered skin beside the model", file_name(&other)),
    ));
    Ok(other)
}

/// `NameNN.skin` beside the model with the lowest NN, matched ignoring case.
fn lowest_skin_beside(source: &dyn FileSource, model_path: &str) -> Option<String> {
    let model_name = file_name(model_path);
    let stem = model_name.rsplit_once('.').map_or(model_name, |(stem, _)| stem).to_ascii_lowercase();
    let folder = super::parent_folder(model_path);
    let number = |name: &str| -> Option<u32> {
        let lower = name.to_ascii_lowercase();
        let digits = lower.strip_prefix(&stem)?.strip_suffix(".skin")?;
        (digits.len() == 2 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.parse().ok())?
    };
    let (_, name) = source
        .list(folder)
        .into_iter()
        .filter(|e| !e.is_folder)
        .filter_map(|e| Some((number(&e.name)?, e.name)))
        .min()?;
    Some(if folder.is_empty() { name } else { format!("{folder}/{name}") })
}

/// Builds `model` (the file `file` of the scene) into meshes labeled `M2Model{index}/…`.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_model(
    scene: &mut Scene,
    index: usize,
    source: &dyn FileSource,
    model_file: usize,
    model: &M2Model,
    lookup: super::Lookup<'_>,
    textures: &mut TextureSet,
) -> Result<BuiltModel, Diagnostic> {
    let model_path = scene.files[model_file].path.clone();
    let owner = scene.files[model_file].display_path.clone();
    let skin_file = read_skin_beside(source, &model_path, model, lookup, &mut scene.warnings)?;
    let (skin, triangles_file) = match skin_file {
        Some((file, skin)) => {
            scene.files.push(file);
            (Some(skin), scene.files.len() - 1)
        }
        None => (None, model_file),
    };
    let view = model.view(skin.as_ref()).ok_or_else(|| {
        Diagnostic::new(DiagnosticKind::DroppedGeometry, &owner, "the model has no view (skin) to draw")
    })?;
    let skinned = super::animation::skinned(model);
    let meshes = build_meshes(model, view, Geosets::for_path(&model_path), skinned);
    if meshes.dropped_triangles > 0 {
        scene.warnings.push(Diagnostic::new(
            DiagnosticKind::DroppedGeometry,
            &owner,
            format!(
                "{} triangles index past the vertex lookup or the vertices and were dropped",
                meshes.dropped_triangles
            ),
        ));
    }
    if meshes.dropped_units > 0 {
        scene.warnings.push(Diagnostic::new(
            DiagnosticKind::DroppedGeometry,
            &owner,
            format!("{} texture units name a submesh that does not exist and were dropped", meshes.dropped_units),
        ));
    }
    let skeleton = skinned.then(|| {
        scene.skeletons.push(super::animation::skeleton(model, index, model_file));
        scene.skeletons.len() - 1
    });
    let mut built = BuiltModel { units: Vec::new(), bounds: meshes.bounds, skeleton };
    // One material per (M2 material, texture) pair the units use.
    type MaterialKey = (Option<usize>, Option<usize>, Option<(i16, u16, u16)>);
    let mut made: Vec<(MaterialKey, usize)> = Vec::new();
    let indices_offset = view.arrays.iter().find(|a| a.name == "triangle indices").map_or(0, |a| a.offset);
    // Listed only for a model that has such a texture: listing a folder of an archive walks its names.
    let folder_skins = if model.textures.iter().any(|t| FOLDER_SKIN_TYPES.contains(&t.kind)) {
        folder_skins(source, &model_path)
    } else {
        Vec::new()
    };
    for unit in meshes.units {
        let kind =
            RecordKind::M2SkinTriangle { indices_offset, model: model_file, unit: unit.unit, submesh: unit.submesh };
        let mesh_source = Some(MeshSource { file: triangles_file, kind });
        // Looked up for every unit (decoded once), so that a texture that cannot be shown is one
        // warning per texture unit using it.
        let texture = unit.texture.map(|t| {
            let texture = &model.textures[t];
            // An MD21 model names its files by FileDataID (TXID) where the name is empty.
            let file_data_id = model.texture_file_data_id(t);
            let name = model.texture_name(t);
            let sampler = Sampler { repeat: texture.wraps(), nearest: false };
            let label = ModelLabel::M2Texture { model: index, texture: t }.to_string();
            let located = match texture.kind {
                0 if let Some(id) = file_data_id => match lookup.listfile.and_then(|l| l.path(id)) {
                    Some(path) => locate_in_data(lookup.data, path),
                    None => Err(NotLocated::ByFileDataId { id }),
                },
                0 => locate_in_data(lookup.data, &texture.file_name),
                kind if FOLDER_SKIN_TYPES.contains(&kind) && !folder_skins.is_empty() => {
                    Ok(Located { source, path: folder_skins[0].clone() })
                }
                kind if FOLDER_SKIN_TYPES.contains(&kind) => {
                    Err(NotLocated::ReplaceableWithoutStandIn { texture: t, kind })
                }
                kind => Err(NotLocated::ReplaceableFromGameData { texture: t, kind }),
            };
            let (reference, found) = textures.get(
                &format!("m2 {index} texture {t}"),
                label,
                &name,
                located,
                ImageFormat::Blp,
                sampler,
                (&owner, TextureUser::TextureUnit),
                &mut scene.warnings,
            );
            (t, reference, name, found)
        });
        // A unit whose look moves gets a material of its own unless another unit moves the same way.
        let texture_unit = view.texture_units[unit.unit];
        let animates = super::animation::unit_animates(model, &texture_unit);
        let motion =
            animates.then_some((texture_unit.color_index, texture_unit.weight_combo, texture_unit.transform_combo));
        let key = (unit.material, unit.texture, motion);
        let material = match made.iter().find(|(k, _)| *k == key) {
            Some(&(_, material)) => material,
            None => {
                let state = unit.material.map_or(M2Material { flags: 0, blend_mode: 0 }, |m| model.materials[m]);
                let label = ModelLabel::M2Material { model: index, material: made.len() }.to_string();
                let material = scene.add_material(unit_material(label, state, texture.as_ref().map(|(_, r, _, _)| *r)));
                scene.material_infos.push(MaterialInfo {
                    name: format!(
                        "{} material {}",
                        file_name(&model_path),
                        unit.material.map_or("–".into(), |m| m.to_string())
                    ),
                    parameters: material_parameters(state),
                    texture: texture.as_ref().map(|(_, _, name, found)| (name.clone(), *found)),
                });
                if let Some((t, _, _, true)) = &texture
                    && FOLDER_SKIN_TYPES.contains(&model.textures[*t].kind)
                {
                    offer_folder_skins(
                        scene,
                        textures,
                        source,
                        (index, *t, model.textures[*t].kind),
                        &owner,
                        &folder_skins,
                        material,
                    );
                }
                made.push((key, material));
                if animates {
                    scene.animated_materials.push(super::animation::AnimatedMaterial {
                        material,
                        model: index,
                        model_file,
                        unit: texture_unit,
                    });
                }
                material
            }
        };
        let blend = unit.material.map_or(0, |m| model.materials[m].blend_mode);
        let name = format!("Unit {}: submesh {} (geoset {})", unit.unit, unit.submesh, unit.geoset);
        let description = format!("blend {blend}, texture {}", unit.texture.map_or("–".into(), |t| t.to_string()));
        let mesh = scene.add_mesh(ModelLabel::M2Unit { model: index, unit: unit.unit }, unit.mesh, mesh_source);
        built.units.push(BuiltUnit {
            draw: Draw { mesh, material },
            name,
            description,
            counts_geometry: unit.first_of_submesh,
        });
    }
    Ok(built)
}

/// Replaceable texture types the game fills in from its database per creature or item (1 body skin,
/// 2 cape or object skin, 11–13 creature skins): BLPs lying beside the model stand in for them, the
/// first by name as the default and the others offered in the panel, as WoW Model Viewer does.
pub const FOLDER_SKIN_TYPES: [u32; 5] = [1, 2, 11, 12, 13];

/// At most this many BLPs beside a model are offered for a replaceable texture (each is decoded).
const MAX_FOLDER_SKINS: usize = 16;

/// The BLPs in the model's folder, by name ignoring case.
fn folder_skins(source: &dyn FileSource, model_path: &str) -> Vec<String> {
    let folder = super::parent_folder(model_path);
    let mut found: Vec<String> = source
        .list(folder)
        .into_iter()
        .filter(|e| !e.is_folder && e.name.to_ascii_lowercase().ends_with(".blp"))
        .map(|e| if folder.is_empty() { e.name } else { format!("{folder}/{}", e.name) })
        .collect();
    found.sort_by_key(|p| p.to_ascii_lowercase());
    found.truncate(MAX_FOLDER_SKINS);
    found
}

/// Records the choice of folder BLPs for replaceable texture `texture` of model `index`, drawn by
/// `material`; each BLP is decoded as a texture of the scene so the viewer can swap it in.
#[allow(clippy::too_many_arguments)]
fn offer_folder_skins(
    scene: &mut Scene,
    textures: &mut TextureSet,
    source: &dyn FileSource,
    (index, texture, kind): (usize, usize, u32),
    owner: &str,
    skins: &[String],
    material: usize,
) {
    if let Some(offered) = scene.replaceable_textures.iter_mut().find(|r| r.model == index && r.texture == texture) {
        offered.materials.push(material);
        return;
    }
    let mut choices = Vec::new();
    for (choice, path) in skins.iter().enumerate() {
        let label = if choice == 0 {
            ModelLabel::M2Texture { model: index, texture }
        } else {
            ModelLabel::M2TextureChoice { model: index, texture, choice }
        };
        let key = if choice == 0 {
            format!("m2 {index} texture {texture}")
        } else {
            format!("m2 {index} texture {texture} choice {path}")
        };
        let located = Ok(Located { source, path: path.clone() });
        let sampler = Sampler { repeat: [true, true], nearest: false };
        let (reference, found) = textures.get(
            &key,
            label.to_string(),
            file_name(path),
            located,
            ImageFormat::Blp,
            sampler,
            (owner, TextureUser::TextureUnit),
            &mut scene.warnings,
        );
        if found {
            choices.push(super::TextureChoice { name: file_name(path).to_owned(), texture: reference });
        }
    }
    scene.replaceable_textures.push(super::ReplaceableTexture {
        model: index,
        texture,
        kind,
        model_file: owner.to_owned(),
        choices,
        materials: vec![material],
    });
}

/// A file named by the game (`World\Generic\Barrel.blp`) in the data root.
pub(super) fn locate_in_data<'a>(data: Option<&'a dyn FileSource>, name: &str) -> Result<Located<'a>, NotLocated> {
    let data = data.ok_or(NotLocated::NoDataRoot)?;
    let path = data.find(name).ok_or(NotLocated::NotUnderDataRoot)?;
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
pub(super) fn build_standalone(
    source: &dyn FileSource,
    file: SceneFile,
    lookup: super::Lookup<'_>,
) -> Result<Scene, FileError> {
    let document = file.document.clone().expect("the caller matched the model");
    let Model::M2(model) = &document.model else { unreachable!("the caller matched the model") };
    let mut scene = Scene::default();
    scene.warnings.extend(model.warnings.iter().map(|w| Diagnostic::from_format(&file.display_path, w)));
    let display_path = file.display_path.clone();
    let name = file_name(&file.path).to_owned();
    scene.files.push(file);
    let mut textures = TextureSet::default();
    let built = build_model(&mut scene, 0, source, 0, model, lookup, &mut textures)
        .map_err(|d| FileError::Unsupported { file: display_path.into(), message: d.message })?;
    let root = scene.add_node(Node::group(name, None, NodeTransform::IDENTITY));
    let draws = built.units.iter().map(|u| u.draw);
    place_instance(&mut scene, root, built.skeleton, draws, |i, node| Node {
        name: Some(built.units[i].name.clone()),
        part: Some(i),
        ..node
    });
    for unit in &built.units {
        scene.count_draw(unit.draw.mesh, unit.counts_geometry);
        scene.parts.push(PartInfo {
            name: unit.name.clone(),
            description: unit.description.clone(),
            parent: None,
            visible: true,
        });
    }
    scene.textures = textures.textures;
    scene.bounds = built.bounds;
    Ok(scene)
}
