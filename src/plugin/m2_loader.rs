//! M2 models, opened on their own or placed as WMO doodads. A model's meshes and materials are built
//! once, as labeled sub-assets, and every entity that places it shares them (Bevy batches the instances).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::asset::LoadContext;
use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;

use crate::formats::m2::{read_skin_beside, M2Model, Material};
use crate::formats::{parse_document, FileError, Model};
use crate::mesh::m2::{build, Geosets};
use crate::mesh::Bounds;

use super::convert::{placeholder_image, sampler, to_bevy_mesh};
use super::labels::ModelLabel;
use super::textures::{decode_blp, find_blp, find_data_root};
use super::m2_blend::{blend_name, flag_names};
use super::wmo_material::{PassBlend, WmoExtension, WmoMaterial};
use super::{LoadedFile, MaterialInfo, ModelAsset, ModelLoadError, ModelLoaderSettings, ModelPart, ModelStats, PartInfo};

/// One drawable of a built model: a texture unit's mesh and the material it is drawn with.
#[derive(Clone)]
pub(super) struct BuiltUnit {
    pub mesh: Handle<Mesh>,
    pub material: Handle<WmoMaterial>,
    pub name: String,
    pub description: String,
}

pub(super) struct BuiltModel {
    pub units: Vec<BuiltUnit>,
    pub materials: Vec<Handle<WmoMaterial>>,
    pub material_infos: Vec<MaterialInfo>,
    pub meshes: Vec<Handle<Mesh>>,
    pub bounds: Bounds,
    pub stats: ModelStats,
}

/// Builds `model` (read from `path`) into sub-assets labeled `M2Model{index}/…`.
pub(super) fn build_model(
    ctx: &mut LoadContext<'_>,
    index: usize,
    path: &Path,
    model: &M2Model,
    data_root: Option<&Path>,
    placeholder: &mut Option<Handle<Image>>,
    warnings: &mut Vec<String>,
) -> Result<BuiltModel, String> {
    let skin = read_skin_beside(path, model)?;
    let view = model.view(skin.as_ref()).ok_or("the model has no view (skin) to draw")?;
    let meshes = build(model, view, Geosets::for_path(&path.to_string_lossy()));
    let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if meshes.dropped_triangles > 0 {
        warnings.push(format!("{file}: {} triangles index past the vertex lookup or the vertices and were dropped", meshes.dropped_triangles));
    }
    if meshes.dropped_units > 0 {
        warnings.push(format!("{file}: {} texture units name a submesh that does not exist and were dropped", meshes.dropped_units));
    }
    // Per texture: its handle and whether the file was found (else the placeholder).
    let mut textures: Vec<Option<(Handle<Image>, bool)>> = vec![None; model.textures.len()];
    let mut texture_handle = |ctx: &mut LoadContext<'_>, t: usize, warnings: &mut Vec<String>| -> (Handle<Image>, bool) {
        if let Some(known) = &textures[t] {
            return known.clone();
        }
        let texture = &model.textures[t];
        let decoded = if texture.kind != 0 {
            Err(format!("texture {t} is replaceable (type {}), resolved by game data this viewer does not read", texture.kind))
        } else {
            data_root
                .ok_or_else(|| "no data root (a folder holding World) was found or given".to_owned())
                .and_then(|root| find_blp(root, &texture.file_name).ok_or_else(|| format!("{} is not under the data root", texture.file_name)))
                .and_then(|p| std::fs::read(&p).map_err(|e| e.to_string()))
                .and_then(|bytes| decode_blp(&bytes, sampler(texture.wraps(), false)))
        };
        let known = match decoded {
            Ok(image) => (ctx.add_labeled_asset(ModelLabel::M2Texture { model: index, texture: t }.to_string(), image), true),
            Err(reason) => {
                warnings.push(format!("{file}: {reason}; a placeholder is shown"));
                (placeholder.get_or_insert_with(|| ctx.add_labeled_asset(ModelLabel::Placeholder.to_string(), placeholder_image())).clone(), false)
            }
        };
        textures[t] = Some(known.clone());
        known
    };

    let mut built = BuiltModel {
        units: Vec::new(),
        materials: Vec::new(),
        material_infos: Vec::new(),
        meshes: Vec::new(),
        bounds: meshes.bounds,
        stats: ModelStats::default(),
    };
    // One material per (M2 material, texture) pair the units use.
    let mut made: Vec<((Option<usize>, Option<usize>), Handle<WmoMaterial>)> = Vec::new();
    for unit in &meshes.units {
        let key = (unit.material, unit.texture);
        let material = match made.iter().find(|(k, _)| *k == key) {
            Some((_, handle)) => handle.clone(),
            None => {
                let state = unit.material.map_or(Material { flags: 0, blend_mode: 0 }, |m| model.materials[m]);
                let texture = unit.texture.map(|t| (t, texture_handle(ctx, t, warnings)));
                let handle = ctx.add_labeled_asset(
                    ModelLabel::M2Material { model: index, material: made.len() }.to_string(),
                    unit_material(state, texture.as_ref().map(|(_, (h, _))| h.clone())),
                );
                built.material_infos.push(MaterialInfo {
                    name: format!("{file} material {}", unit.material.map_or("–".into(), |m| m.to_string())),
                    parameters: material_parameters(state),
                    texture: texture.map(|(t, (_, found))| {
                        let texture = &model.textures[t];
                        let name = if texture.file_name.is_empty() { format!("replaceable type {}", texture.kind) } else { texture.file_name.clone() };
                        (name, found)
                    }),
                });
                built.materials.push(handle.clone());
                made.push((key, handle.clone()));
                handle
            }
        };
        let mesh = ctx.add_labeled_asset(ModelLabel::M2Unit { model: index, unit: unit.unit }.to_string(), to_bevy_mesh(&unit.mesh));
        built.stats.vertices += unit.mesh.positions.len();
        built.stats.triangles += unit.mesh.triangle_count();
        built.stats.draw_calls += 1;
        built.meshes.push(mesh.clone());
        let blend = unit.material.map_or(0, |m| model.materials[m].blend_mode);
        built.units.push(BuiltUnit {
            mesh,
            material,
            name: format!("Unit {}: submesh {} (geoset {})", unit.unit, unit.submesh, unit.geoset),
            description: format!("blend {blend}, texture {}", unit.texture.map_or("–".into(), |t| t.to_string())),
        });
    }
    Ok(built)
}

fn unit_material(state: Material, texture: Option<Handle<Image>>) -> WmoMaterial {
    let blend = PassBlend::from_m2(state.blend_mode);
    let two_sided = state.flags & Material::TWO_SIDED != 0;
    let mut depth = 0;
    if state.flags & Material::NO_DEPTH_WRITE != 0 {
        depth |= WmoExtension::NO_DEPTH_WRITE;
    }
    if state.flags & Material::NO_DEPTH_TEST != 0 {
        depth |= WmoExtension::NO_DEPTH_TEST;
    }
    WmoMaterial {
        base: StandardMaterial {
            base_color: Color::WHITE,
            base_color_texture: texture,
            unlit: state.flags & Material::UNLIT != 0,
            fog_enabled: state.flags & Material::UNFOGGED == 0,
            alpha_mode: blend.alpha_mode(),
            double_sided: two_sided,
            cull_mode: if two_sided { None } else { Some(bevy::render::render_resource::Face::Back) },
            perceptual_roughness: 0.8,
            reflectance: 0.2,
            ..default()
        },
        // M2 vertices carry no baked colour: the MOCV doubling does not apply.
        extension: WmoExtension::new(1.0, blend, depth),
    }
}

fn material_parameters(state: Material) -> Vec<(String, String)> {
    vec![
        ("blend mode".into(), format!("{} ({})", state.blend_mode, blend_name(state.blend_mode))),
        ("render flags".into(), format!("0x{:X} {}", state.flags, flag_names(state.flags).join(", "))),
    ]
}

/// An M2 opened on its own: one part per texture unit.
pub(super) fn load_bytes(ctx: &mut LoadContext<'_>, path: PathBuf, bytes: Vec<u8>, settings: &ModelLoaderSettings) -> Result<ModelAsset, ModelLoadError> {
    let document = parse_document(&bytes).map_err(|e| FileError::parse(&path, e))?;
    drop(bytes);
    let Model::M2(model) = &document.model else { unreachable!("checked by the caller") };
    let data_root = settings.data_root.clone().or_else(|| find_data_root(&path));
    let mut warnings: Vec<String> = model.warnings.iter().map(ToString::to_string).collect();
    let mut placeholder = None;
    let built = build_model(ctx, 0, &path, model, data_root.as_deref(), &mut placeholder, &mut warnings)
        .map_err(|message| ModelLoadError::Other { file: path.display().to_string(), message })?;
    let mut world = World::new();
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let root = world.spawn((Transform::default(), Visibility::default(), Name::new(file_name))).id();
    let mut parts = Vec::new();
    for (i, unit) in built.units.iter().enumerate() {
        world.spawn((Mesh3d(unit.mesh.clone()), MeshMaterial3d(unit.material.clone()), Transform::default(), Visibility::Inherited, Name::new(unit.name.clone()), ModelPart(i), ChildOf(root)));
        parts.push(PartInfo { name: unit.name.clone(), description: unit.description.clone(), parent: None, visible: true });
    }
    let scene = ctx.add_labeled_asset(ModelLabel::Scene.to_string(), WorldAsset::new(world));
    let document = Arc::new(document);
    let files = vec![LoadedFile { path: path.clone(), document }];
    Ok(ModelAsset {
        scene,
        files,
        parts,
        doodad_sets: Vec::new(),
        doodads: Vec::new(),
        portal_count: 0,
        materials: built.material_infos,
        meshes: built.meshes,
        standard_materials: Vec::new(),
        wmo_materials: built.materials,
        bounds: built.bounds,
        stats: built.stats,
        warnings,
    })
}
