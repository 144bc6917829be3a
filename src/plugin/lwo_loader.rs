//! `.lwo` / `.lxo` → [`ModelAsset`]: a layer hierarchy (pivots, parents) with one mesh per surface.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::asset::LoadContext;
use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;

use crate::formats::lwo::{LwoObject, Surface, Wrap};
use crate::formats::{parse_document, Document, FileError, Model};
use crate::mesh::coords::lwo_to_bevy;
use crate::mesh::lwo::{build, BuildOptions};
use crate::mesh::Bounds;

use super::convert::{placeholder_image, sampler, to_bevy_mesh};
use super::textures::{decode_image, find_lightwave_image};
use super::{LoadedFile, MaterialInfo, ModelAsset, ModelLabel, ModelLoadError, ModelLoaderSettings, ModelPart, ModelStats, PartInfo};

pub(super) fn load_bytes(
    ctx: &mut LoadContext<'_>,
    path: PathBuf,
    bytes: Vec<u8>,
    settings: &ModelLoaderSettings,
) -> Result<ModelAsset, ModelLoadError> {
    let document = parse_document(&bytes).map_err(|e| FileError::parse(&path, e))?;
    // The model owns its data; the file's bytes need not stay through mesh building.
    drop(bytes);
    Ok(build_asset(ctx, path, Arc::new(document), settings))
}

fn build_asset(ctx: &mut LoadContext<'_>, path: PathBuf, document: Arc<Document>, settings: &ModelLoaderSettings) -> ModelAsset {
    let Model::Lwo(object) = &document.model else { unreachable!("checked by the caller") };
    let defaults = BuildOptions::default();
    let options = BuildOptions {
        smoothing: settings.smoothing.unwrap_or(defaults.smoothing),
        subdivision_level: settings.subdivision_level.unwrap_or(defaults.subdivision_level),
    };
    let meshes = build(object, options);
    let mut warnings: Vec<String> = object.warnings.iter().map(ToString::to_string).collect();
    let mut placeholder: Option<Handle<Image>> = None;
    let mut material_infos = Vec::with_capacity(object.surfaces.len());
    let mut materials = Vec::with_capacity(object.surfaces.len());
    let mut material_values = Vec::with_capacity(object.surfaces.len());
    for (i, surface) in object.surfaces.iter().enumerate() {
        let (texture, info_texture) = surface_texture(ctx, &path, object, i, &mut placeholder, &mut warnings);
        let material = surface_material(surface, texture);
        material_values.push(material.clone());
        materials.push(ctx.add_labeled_asset(ModelLabel::Surface(i).to_string(), material));
        material_infos.push(MaterialInfo { name: surface.name.clone(), parameters: surface_parameters(surface), texture: info_texture });
    }
    let line_material = ctx.add_labeled_asset(
        ModelLabel::OverlayMaterial("Lines").to_string(),
        StandardMaterial { base_color: Color::srgb(0.9, 0.9, 0.6), unlit: true, ..default() },
    );

    let mut world = World::new();
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let root = world.spawn((Transform::default(), Visibility::default(), Name::new(file_name))).id();
    let mut entities: Vec<Option<Entity>> = vec![None; meshes.layers.len()];
    let mut mesh_handles = Vec::new();
    let mut detail_materials: Vec<Option<Handle<StandardMaterial>>> = vec![None; materials.len()];
    let mut stats = ModelStats::default();
    let mut bounds = Bounds::EMPTY;
    let mut parts = Vec::with_capacity(meshes.layers.len());
    for layer in &meshes.layers {
        let number = object.layers[layer.index].number;
        let name = if layer.name.is_empty() { format!("Layer {number}") } else { layer.name.clone() };
        parts.push(PartInfo { name, description: format!("layer {number}"), parent: layer.parent, visible: !layer.hidden });
        bounds.union(&layer.bounds.translated(lwo_to_bevy(object.layers[layer.index].pivot)));
    }
    // Parents before children, whatever order the file lists the layers in.
    let mut order: Vec<usize> = (0..meshes.layers.len()).collect();
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = meshes.layers[i].parent {
            i = p;
            d += 1;
        }
        d
    };
    order.sort_by_key(|&i| depth(i));
    for i in order {
        let layer = &meshes.layers[i];
        let parent = layer.parent.and_then(|p| entities[p]).unwrap_or(root);
        let visibility = if layer.hidden { Visibility::Hidden } else { Visibility::Inherited };
        let entity = world
            .spawn((
                Transform::from_translation(Vec3::from_array(layer.translation)),
                visibility,
                Name::new(parts[i].name.clone()),
                ModelPart(i),
                ChildOf(parent),
            ))
            .id();
        entities[i] = Some(entity);
        for s in &layer.surfaces {
            let label = ModelLabel::LayerSurface { layer: i, surface: s.surface as usize, detail: s.detail };
            let handle = ctx.add_labeled_asset(label.to_string(), to_bevy_mesh(&s.mesh));
            let surface = s.surface as usize;
            let material = if s.detail {
                detail_materials[surface]
                    .get_or_insert_with(|| {
                        // Detail polygons lie in their base polygon's plane: a depth bias draws them on
                        // top without z-fighting.
                        let detail = StandardMaterial { depth_bias: 100.0, ..material_values[surface].clone() };
                        ctx.add_labeled_asset(format!("{}/Detail", ModelLabel::Surface(surface)), detail)
                    })
                    .clone()
            } else {
                materials[surface].clone()
            };
            stats.vertices += s.mesh.positions.len();
            stats.triangles += s.mesh.triangle_count();
            stats.draw_calls += 1;
            world.spawn((Mesh3d(handle.clone()), MeshMaterial3d(material), Transform::default(), Visibility::Inherited, ModelPart(i), ChildOf(entity)));
            mesh_handles.push(handle);
        }
        for (label, data) in [(ModelLabel::LayerLines(i), &layer.lines), (ModelLabel::LayerPoints(i), &layer.points)] {
            if let Some(data) = data {
                let handle = ctx.add_labeled_asset(label.to_string(), to_bevy_mesh(data));
                stats.vertices += data.positions.len();
                stats.draw_calls += 1;
                world.spawn((Mesh3d(handle.clone()), MeshMaterial3d(line_material.clone()), Transform::default(), Visibility::Inherited, ModelPart(i), ChildOf(entity)));
                mesh_handles.push(handle);
            }
        }
    }
    if meshes.degenerate_polygons > 0 {
        warnings.push(format!("{} degenerate polygons gave fewer triangles than corners − 2", meshes.degenerate_polygons));
    }
    let scene = ctx.add_labeled_asset(ModelLabel::Scene.to_string(), WorldAsset::new(world));
    ModelAsset {
        scene,
        files: vec![LoadedFile { path, document: document.clone() }],
        parts,
        doodad_sets: Vec::new(),
        doodads: Vec::new(),
        portal_count: 0,
        materials: material_infos,
        meshes: mesh_handles,
        standard_materials: materials,
        wmo_materials: Vec::new(),
        bounds,
        stats,
        warnings,
    }
}

/// The surface's colour image, decoded; a missing or unreadable one is the placeholder and a warning.
fn surface_texture(
    ctx: &mut LoadContext<'_>,
    object_path: &Path,
    object: &LwoObject,
    surface_index: usize,
    placeholder: &mut Option<Handle<Image>>,
    warnings: &mut Vec<String>,
) -> (Option<Handle<Image>>, Option<(String, bool)>) {
    let surface = &object.surfaces[surface_index];
    let Some(block) = surface.color_map() else { return (None, None) };
    let name = match (&block.image_file, object.clip(block.image)) {
        (Some(file), _) => file.clone(),
        (None, Some(clip)) => match clip.source.file_name() {
            Some(name) => name,
            None => return (None, None),
        },
        (None, None) if block.image == 0 => return (None, None),
        (None, None) => {
            warnings.push(format!("surface {}: image block names clip {}, which does not exist", surface.name, block.image));
            return (Some(placeholder_handle(ctx, placeholder)), Some((format!("clip {}", block.image), false)));
        }
    };
    let repeat = block.wrap.map(|w| matches!(w, Wrap::Repeat | Wrap::Mirror));
    let decoded = find_lightwave_image(object_path, &name)
        .ok_or_else(|| "not found".to_owned())
        .and_then(|found| {
            let bytes = std::fs::read(&found).map_err(|e| e.to_string())?;
            decode_image(&found, &bytes, sampler(repeat, false))
        });
    match decoded {
        Ok(image) => {
            (Some(ctx.add_labeled_asset(ModelLabel::Texture(surface_index).to_string(), image)), Some((name, true)))
        }
        Err(reason) => {
            warnings.push(format!("surface {}: image {name}: {reason}; a placeholder is shown", surface.name));
            (Some(placeholder_handle(ctx, placeholder)), Some((name, false)))
        }
    }
}

fn placeholder_handle(ctx: &mut LoadContext<'_>, placeholder: &mut Option<Handle<Image>>) -> Handle<Image> {
    placeholder.get_or_insert_with(|| ctx.add_labeled_asset(ModelLabel::Placeholder.to_string(), placeholder_image())).clone()
}

/// LightWave surface → PBR: colour × diffuse as base, luminosity as emission, glossiness as smoothness,
/// specular as reflectance, transparency as alpha (additive when ADTR is set), SIDE 3 without culling.
pub fn surface_material(surface: &Surface, texture: Option<Handle<Image>>) -> StandardMaterial {
    let [r, g, b] = surface.color;
    let d = surface.diffuse.clamp(0.0, 1.0);
    let alpha = (1.0 - surface.transparency).clamp(0.0, 1.0);
    let alpha_mode = if surface.additive_transparency > 0.0 && surface.transparency > 0.0 {
        AlphaMode::Add
    } else if surface.transparency > 0.0 {
        AlphaMode::Blend
    } else {
        AlphaMode::Opaque
    };
    let lumi = surface.luminosity.max(0.0);
    StandardMaterial {
        base_color: Color::srgba(r * d, g * d, b * d, alpha),
        base_color_texture: texture,
        emissive: Color::srgb(r, g, b).to_linear() * lumi,
        perceptual_roughness: (1.0 - surface.glossiness).clamp(0.08, 1.0),
        reflectance: surface.specular.clamp(0.0, 1.0),
        metallic: 0.0,
        alpha_mode,
        double_sided: surface.double_sided(),
        cull_mode: if surface.double_sided() { None } else { Some(bevy::render::render_resource::Face::Back) },
        ..default()
    }
}

fn surface_parameters(s: &Surface) -> Vec<(String, String)> {
    let pct = |v: f32| format!("{:.0}%", v * 100.0);
    let mut out = vec![
        ("colour".to_owned(), format!("{:.3} {:.3} {:.3}", s.color[0], s.color[1], s.color[2])),
        ("diffuse".to_owned(), pct(s.diffuse)),
        ("specular".to_owned(), pct(s.specular)),
        ("glossiness".to_owned(), pct(s.glossiness)),
        ("luminosity".to_owned(), pct(s.luminosity)),
        ("transparency".to_owned(), pct(s.transparency)),
        ("sides".to_owned(), if s.double_sided() { "double".to_owned() } else { "front".to_owned() }),
        ("smoothing angle".to_owned(), format!("{:.1}°", s.max_smoothing_angle.to_degrees())),
    ];
    if s.additive_transparency > 0.0 {
        out.push(("additive".to_owned(), pct(s.additive_transparency)));
    }
    if let Some(vc) = &s.vertex_color {
        out.push(("vertex colours".to_owned(), format!("{} ({})", vc.map_name, pct(vc.intensity))));
    }
    if s.is_default {
        out.push(("defined".to_owned(), "no SURF chunk: defaults".to_owned()));
    }
    out
}
