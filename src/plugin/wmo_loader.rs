//! `.wmo` → [`ModelAsset`]. A root file brings its group files (found beside it, ignoring case; parsed
//! and meshed in parallel); a group file opened alone shows that group and says the root is missing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::asset::{AssetPath, LoadContext};
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};
use bevy::world_serialization::WorldAsset;

use crate::formats::m2::model_file_name;
use crate::formats::wmo::{group_file_paths, root_of_group_file, Material, WmoGroup, WmoRoot};
use crate::formats::{find_case_insensitive, parse_document, Document, FileError, Model};
use crate::mesh::wmo::{build_group, doodad_placement, portal_meshes, GroupMeshes};
use crate::mesh::{Bounds, MeshData, Topology};

use super::convert::{placeholder_image, sampler, to_bevy_mesh};
use super::m2_loader;
use super::textures::{decode_blp, find_blp, find_data_root, resolve_case_insensitive};
use super::wmo_material::{PassBlend, WmoExtension, WmoMaterial};
use super::{DoodadInfo, LoadedFile, MaterialInfo, ModelAsset, ModelLabel, ModelLoadError, ModelLoaderSettings, ModelPart, ModelStats, Overlay, PartInfo};


pub(super) async fn load_bytes(
    ctx: &mut LoadContext<'_>,
    path: PathBuf,
    bytes: Vec<u8>,
    settings: &ModelLoaderSettings,
) -> Result<ModelAsset, ModelLoadError> {
    {
        let document = Arc::new(parse_document(&bytes).map_err(|e| FileError::parse(&path, e))?);
        let mut warnings: Vec<String> = document.warnings().iter().map(|w| format!("{}: {w}", display_name(&path))).collect();
        let (root_doc, groups): (Option<LoadedFile>, Vec<(usize, Option<LoadedFile>)>) = match &document.model {
            Model::WmoRoot(root) => {
                let mut group_bytes = Vec::new();
                for (i, found) in group_file_paths(&path, root.group_infos.len()).into_iter().enumerate() {
                    match found {
                        Ok(group_path) => match ctx.read_asset_bytes(AssetPath::from(group_path.clone())).await {
                            Ok(b) => group_bytes.push((i, group_path, b)),
                            Err(e) => warnings.push(format!("group {i}: {}: {e}; the group is not shown", group_path.display())),
                        },
                        Err(name) => warnings.push(format!("group {i}: {name} is missing beside the root; the group is not shown")),
                    }
                }
                let parsed = parse_groups_in_parallel(group_bytes);
                let mut groups = Vec::new();
                for (i, group_path, result) in parsed {
                    match result {
                        Ok(doc) => {
                            warnings.extend(doc.warnings().iter().map(|w| format!("{}: {w}", display_name(&group_path))));
                            groups.push((i, Some(LoadedFile { path: group_path, document: Arc::new(doc) })));
                        }
                        Err(e) => warnings.push(format!("{e}; the group is not shown")),
                    }
                }
                (Some(LoadedFile { path: path.clone(), document: document.clone() }), groups)
            }
            Model::WmoGroup(_) => {
                let index = root_of_group_file(&path).map_or(0, |(_, i)| i);
                let root = root_of_group_file(&path)
                    .and_then(|(root_name, _)| find_case_insensitive(path.parent()?, &root_name));
                let root_doc = match root {
                    Some(root_path) => match std::fs::read(&root_path).map_err(|e| e.to_string()).and_then(|b| parse_document(&b).map_err(|e| e.to_string())) {
                        Ok(doc) if matches!(doc.model, Model::WmoRoot(_)) => Some(LoadedFile { path: root_path.clone(), document: Arc::new(doc) }),
                        Ok(_) => None,
                        Err(e) => {
                            warnings.push(format!("root file {}: {e}; materials and portals are not shown", root_path.display()));
                            None
                        }
                    },
                    None => {
                        warnings.push(format!("{}: the root file is missing; default materials are used", display_name(&path)));
                        None
                    }
                };
                (root_doc, vec![(index, Some(LoadedFile { path: path.clone(), document: document.clone() }))])
            }
            Model::Lwo(_) | Model::M2(_) => return Err(ModelLoadError::Other { file: path.display().to_string(), message: "not a WMO file".into() }),
        };
        let root = root_doc.as_ref().and_then(|f| match &f.document.model {
            Model::WmoRoot(r) => Some(r),
            _ => None,
        });
        let files: Vec<LoadedFile> = root_doc.iter().cloned().collect();
        let data_root = settings.data_root.clone().or_else(|| find_data_root(&path));
        Ok(build_asset(ctx, &path, root, groups, files, data_root.as_deref(), warnings))
    }
}

fn display_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn parse_groups_in_parallel(group_bytes: Vec<(usize, PathBuf, Vec<u8>)>) -> Vec<(usize, PathBuf, Result<Document, FileError>)> {
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    pool.scope(|scope| {
        for (i, group_path, bytes) in group_bytes {
            scope.spawn(async move {
                let parsed = parse_document(&bytes).map_err(|e| FileError::parse(&group_path, e));
                (i, group_path, parsed)
            });
        }
    })
}

fn build_asset(
    ctx: &mut LoadContext<'_>,
    path: &Path,
    root: Option<&WmoRoot>,
    groups: Vec<(usize, Option<LoadedFile>)>,
    mut files: Vec<LoadedFile>,
    data_root: Option<&Path>,
    mut warnings: Vec<String>,
) -> ModelAsset {
    let group_models: Vec<(usize, &WmoGroup)> = groups
        .iter()
        .filter_map(|(i, f)| match f.as_ref().map(|f| &f.document.model) {
            Some(Model::WmoGroup(g)) => Some((*i, g)),
            _ => None,
        })
        .collect();
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let built: Vec<(usize, GroupMeshes)> = pool.scope(|scope| {
        for &(i, group) in &group_models {
            scope.spawn(async move { (i, build_group(group, root)) });
        }
    });

    let mut placeholder: Option<Handle<Image>> = None;
    let (materials, material_infos) = build_materials(ctx, root, data_root, &mut placeholder, &mut warnings);
    let default_material = ctx.add_labeled_asset(
        ModelLabel::OverlayMaterial("Default").to_string(),
        WmoMaterial { base: StandardMaterial { base_color: Color::srgb(0.75, 0.75, 0.75), ..default() }, extension: WmoExtension::new(2.0, PassBlend::Opaque, 0) },
    );
    let overlay = |ctx: &mut LoadContext<'_>, name: &'static str, color: Color| {
        ctx.add_labeled_asset(
            ModelLabel::OverlayMaterial(name).to_string(),
            StandardMaterial { base_color: color, unlit: true, alpha_mode: AlphaMode::Blend, cull_mode: None, double_sided: true, ..default() },
        )
    };
    let collision_material = overlay(ctx, "Collision", Color::srgba(1.0, 0.3, 0.1, 0.35));
    let portal_material = overlay(ctx, "Portal", Color::srgba(0.2, 0.9, 1.0, 0.35));
    let marker_material = ctx.add_labeled_asset(
        ModelLabel::OverlayMaterial("DoodadMarker").to_string(),
        StandardMaterial { base_color: Color::srgb(1.0, 0.8, 0.2), unlit: true, ..default() },
    );

    let mut world = World::new();
    let root_entity = world.spawn((Transform::default(), Visibility::default(), Name::new(display_name(path)))).id();
    let mut stats = ModelStats::default();
    let mut bounds = Bounds::EMPTY;
    let mut mesh_handles = Vec::new();
    let group_count = root.map_or(0, |r| r.group_infos.len()).max(groups.iter().map(|(i, _)| i + 1).max().unwrap_or(0));
    let mut parts: Vec<PartInfo> = (0..group_count)
        .map(|i| PartInfo { name: group_name(root, None, i), description: "missing".into(), parent: None, visible: false })
        .collect();
    for (i, meshes) in &built {
        let (i, meshes) = (*i, meshes);
        let group = group_models.iter().find(|(gi, _)| *gi == i).map(|(_, g)| *g);
        if let Some(g) = group {
            parts[i] = PartInfo {
                name: group_name(root, Some(g), i),
                description: if g.header.is_exterior() { "exterior".into() } else { "interior".into() },
                parent: None,
                visible: true,
            };
        }
        let entity = world
            .spawn((Transform::default(), Visibility::Inherited, Name::new(parts[i].name.clone()), ModelPart(i), ChildOf(root_entity)))
            .id();
        bounds.union(&meshes.bounds);
        for batch in &meshes.batches {
            let handle = ctx.add_labeled_asset(ModelLabel::GroupBatch { group: i, batch: batch.batch }.to_string(), to_bevy_mesh(&batch.mesh));
            let material = materials.get(usize::from(batch.material)).cloned().unwrap_or_else(|| default_material.clone());
            stats.vertices += batch.mesh.positions.len();
            stats.triangles += batch.mesh.triangle_count();
            stats.draw_calls += 1;
            world.spawn((Mesh3d(handle.clone()), MeshMaterial3d(material), Transform::default(), Visibility::Inherited, ModelPart(i), ChildOf(entity)));
            mesh_handles.push(handle);
        }
        if let Some(collision) = &meshes.collision {
            let handle = ctx.add_labeled_asset(ModelLabel::GroupCollision(i).to_string(), to_bevy_mesh(collision));
            world.spawn((Mesh3d(handle.clone()), MeshMaterial3d(collision_material.clone()), Transform::default(), Visibility::Hidden, ModelPart(i), Overlay::Collision, ChildOf(entity)));
            mesh_handles.push(handle);
        }
        if let Some((material, liquid)) = &meshes.liquid {
            let handle = ctx.add_labeled_asset(ModelLabel::GroupLiquid(i).to_string(), to_bevy_mesh(liquid));
            let m = materials.get(usize::from(*material)).cloned().unwrap_or_else(|| default_material.clone());
            stats.draw_calls += 1;
            world.spawn((Mesh3d(handle.clone()), MeshMaterial3d(m), Transform::default(), Visibility::Inherited, ModelPart(i), Overlay::Liquid, ChildOf(entity)));
            mesh_handles.push(handle);
        }
    }
    let mut doodad_sets = Vec::new();
    let mut doodads = Vec::new();
    let mut extra_materials = Vec::new();
    let mut portal_count = 0;
    if let Some(root) = root {
        for (p, mesh) in portal_meshes(root).into_iter().enumerate() {
            let Some(mesh) = mesh else { continue };
            portal_count += 1;
            let handle = ctx.add_labeled_asset(ModelLabel::Portal(p).to_string(), to_bevy_mesh(&mesh));
            world.spawn((Mesh3d(handle.clone()), MeshMaterial3d(portal_material.clone()), Transform::default(), Visibility::Hidden, Overlay::Portals, ChildOf(root_entity)));
            mesh_handles.push(handle);
        }
        let marker = ctx.add_labeled_asset(ModelLabel::DoodadMarkerMesh.to_string(), to_bevy_mesh(&doodad_marker_mesh()));
        mesh_handles.push(marker.clone());
        // Each distinct MODN model is read and built once; its instances share the meshes and materials.
        let mut doodad_models: Vec<(u32, Option<m2_loader::BuiltModel>)> = Vec::new();
        for (s, set) in root.doodad_sets.iter().enumerate() {
            doodad_sets.push(set.name.clone());
            let start = set.first_doodad as usize;
            let end = (start + set.doodad_count as usize).min(root.doodads.len());
            for d in start.min(end)..end {
                let doodad = &root.doodads[d];
                let placement = doodad_placement(doodad);
                let name = root.doodad_names.get(doodad.name_offset).unwrap_or_else(|| format!("doodad {d}"));
                let slot = match doodad_models.iter().position(|(offset, _)| *offset == doodad.name_offset) {
                    Some(slot) => slot,
                    None => {
                        let built = load_doodad_model(ctx, doodad_models.len(), &name, data_root, &mut placeholder, &mut warnings);
                        if let Some(model) = &built {
                            mesh_handles.extend(model.meshes.iter().cloned());
                            extra_materials.extend(model.materials.iter().cloned());
                        }
                        doodad_models.push((doodad.name_offset, built));
                        doodad_models.len() - 1
                    }
                };
                let transform = Transform {
                    translation: Vec3::from_array(placement.translation),
                    rotation: Quat::from_array(placement.rotation),
                    scale: Vec3::splat(placement.scale),
                };
                doodads.push(DoodadInfo { set: s as u32, model: name.clone(), position: placement.translation, scale: placement.scale });
                let overlay = Overlay::Doodad(s as u32);
                let visibility = if overlay.shown_by_default() { Visibility::Inherited } else { Visibility::Hidden };
                let entity = world.spawn((transform, visibility, Name::new(name), overlay, ChildOf(root_entity))).id();
                match &doodad_models[slot].1 {
                    Some(model) => {
                        for unit in &model.units {
                            world.spawn((Mesh3d(unit.mesh.clone()), MeshMaterial3d(unit.material.clone()), Transform::default(), Visibility::Inherited, ChildOf(entity)));
                        }
                    }
                    None => {
                        world.entity_mut(entity).insert((Mesh3d(marker.clone()), MeshMaterial3d(marker_material.clone())));
                    }
                }
            }
        }
    }
    let scene = ctx.add_labeled_asset(ModelLabel::Scene.to_string(), WorldAsset::new(world));
    files.extend(groups.into_iter().filter_map(|(_, f)| f));
    ModelAsset {
        scene,
        files,
        parts,
        doodad_sets,
        doodads,
        portal_count,
        materials: material_infos,
        meshes: mesh_handles,
        standard_materials: Vec::new(),
        wmo_materials: materials.into_iter().chain(extra_materials).collect(),
        bounds,
        stats,
        warnings,
    }
}

/// A doodad's M2 under the data root (MODN's `.mdx` names end in `.m2` on disk), or `None` with a
/// warning: the doodad then keeps its marker.
fn load_doodad_model(
    ctx: &mut LoadContext<'_>,
    index: usize,
    name: &str,
    data_root: Option<&Path>,
    placeholder: &mut Option<Handle<Image>>,
    warnings: &mut Vec<String>,
) -> Option<m2_loader::BuiltModel> {
    let file_name = model_file_name(name);
    let result = data_root
        .ok_or_else(|| "no data root (a folder holding World) was found or given".to_owned())
        .and_then(|root| resolve_case_insensitive(root, &file_name).ok_or_else(|| "not found under the data root".to_owned()))
        .and_then(|path| {
            let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
            let model = crate::formats::m2::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            warnings.extend(model.warnings.iter().map(|w| format!("doodad {name}: {w}")));
            m2_loader::build_model(ctx, index, &path, &model, data_root, placeholder, warnings)
        });
    match result {
        Ok(model) => Some(model),
        Err(reason) => {
            warnings.push(format!("doodad {name}: {reason}; a marker is shown"));
            None
        }
    }
}

fn group_name(root: Option<&WmoRoot>, group: Option<&WmoGroup>, index: usize) -> String {
    let from_root = |offset: u32| root.and_then(|r| r.group_names.get(offset)).filter(|n| !n.is_empty());
    group
        .and_then(|g| from_root(g.header.name_offset))
        .or_else(|| root.and_then(|r| r.group_infos.get(index)).and_then(|gi| u32::try_from(gi.name_offset).ok()).and_then(from_root))
        .unwrap_or_else(|| format!("Group {index:03}"))
}

/// One WMO material per MOMT entry: the blend mode picks the pipeline's blend state (see
/// `wmo_material`); the base material sets the render phase (opaque, alpha-tested, or blended).
fn build_materials(
    ctx: &mut LoadContext<'_>,
    root: Option<&WmoRoot>,
    data_root: Option<&Path>,
    placeholder: &mut Option<Handle<Image>>,
    warnings: &mut Vec<String>,
) -> (Vec<Handle<WmoMaterial>>, Vec<MaterialInfo>) {
    let Some(root) = root else { return (Vec::new(), Vec::new()) };
    let mut handles = Vec::with_capacity(root.materials.len());
    let mut infos = Vec::with_capacity(root.materials.len());
    let mut textures: std::collections::HashMap<u32, (Handle<Image>, bool)> = std::collections::HashMap::new();
    for (i, m) in root.materials.iter().enumerate() {
        let texture_name = root.textures.get(m.texture1).filter(|n| !n.is_empty());
        let texture = texture_name.as_ref().map(|name| {
            textures
                .entry(m.texture1)
                .or_insert_with(|| {
                    let repeat = [!m.has(Material::CLAMP_S), !m.has(Material::CLAMP_T)];
                    let decoded = data_root
                        .ok_or_else(|| "no data root (a folder holding World) was found or given".to_owned())
                        .and_then(|r| find_blp(r, name).ok_or_else(|| "not found under the data root".to_owned()))
                        .and_then(|p| std::fs::read(&p).map_err(|e| e.to_string()))
                        .and_then(|b| decode_blp(&b, sampler(repeat, false)));
                    match decoded {
                        Ok(image) => (ctx.add_labeled_asset(ModelLabel::Texture(m.texture1 as usize).to_string(), image), true),
                        Err(reason) => {
                            warnings.push(format!("texture {name}: {reason}; a placeholder is shown"));
                            let handle = placeholder.get_or_insert_with(|| ctx.add_labeled_asset(ModelLabel::Placeholder.to_string(), placeholder_image())).clone();
                            (handle, false)
                        }
                    }
                })
                .clone()
        });
        let blend = m.blend();
        let pass = PassBlend::from_wmo(blend);
        let alpha_mode = pass.alpha_mode();
        let [r, g, b, a] = m.diffuse.rgba_f32();
        let (found, texture_handle) = match &texture {
            Some((h, found)) => (*found, Some(h.clone())),
            None => (false, None),
        };
        // Without its texture the diffuse colour is the only hint of what the material looks like.
        let base = if found { Color::WHITE } else { Color::srgba(r, g, b, if blend.writes_depth() { 1.0 } else { a }) };
        let emissive = if m.has(Material::EMISSIVE_AT_NIGHT) {
            let [er, eg, eb, _] = m.emissive.rgba_f32();
            Color::srgb(er, eg, eb).to_linear()
        } else {
            LinearRgba::BLACK
        };
        let material = StandardMaterial {
            base_color: base,
            base_color_texture: texture_handle,
            emissive,
            unlit: m.has(Material::UNLIT),
            alpha_mode,
            double_sided: m.two_sided(),
            cull_mode: if m.two_sided() { None } else { Some(bevy::render::render_resource::Face::Back) },
            perceptual_roughness: 0.8,
            reflectance: 0.2,
            ..default()
        };
        let material = WmoMaterial { base: material, extension: WmoExtension::new(2.0, pass, 0) };
        handles.push(ctx.add_labeled_asset(ModelLabel::Material(i).to_string(), material));
        let mut parameters = vec![
            ("blend mode".to_owned(), format!("{} ({})", blend.code(), blend.name())),
            ("shader".to_owned(), m.shader.to_string()),
            ("flags".to_owned(), format!("0x{:X} {}", m.flags, m.flag_names().join(", "))),
            ("diffuse".to_owned(), format!("{:?}", m.diffuse.rgba())),
        ];
        if m.has(Material::EMISSIVE_AT_NIGHT) {
            parameters.push(("emissive".to_owned(), format!("{:?}", m.emissive.rgba())));
        }
        infos.push(MaterialInfo {
            name: format!("Material {i}"),
            parameters,
            texture: texture_name.map(|n| (n, texture.as_ref().is_some_and(|(_, f)| *f))),
        });
    }
    (handles, infos)
}

/// A unit box with three axis bars (+X long), so a doodad marker shows where its model points.
fn doodad_marker_mesh() -> MeshData {
    let mut mesh = MeshData::new(Topology::Triangles);
    let mut cuboid = |center: [f32; 3], half: [f32; 3]| {
        let faces: [([f32; 3], [usize; 2]); 3] = [([1.0, 0.0, 0.0], [1, 2]), ([0.0, 1.0, 0.0], [2, 0]), ([0.0, 0.0, 1.0], [0, 1])];
        for (axis, [a, b]) in faces {
            for sign in [1.0f32, -1.0] {
                let normal = axis.map(|c| c * sign);
                let base = mesh.positions.len() as u32;
                let k = normal.iter().position(|c| *c != 0.0).unwrap_or(0);
                for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    let mut p = center;
                    p[k] += half[k] * sign;
                    p[a] += half[a] * su * sign;
                    p[b] += half[b] * sv;
                    mesh.positions.push(p);
                    mesh.normals.push(normal);
                }
                mesh.indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
            }
        }
    };
    cuboid([0.0, 0.5, 0.0], [0.5, 0.5, 0.5]);
    cuboid([1.0, 0.5, 0.0], [0.5, 0.06, 0.06]);
    cuboid([0.0, 1.25, 0.0], [0.06, 0.25, 0.06]);
    cuboid([0.0, 0.5, -0.75], [0.06, 0.06, 0.25]);
    mesh
}
