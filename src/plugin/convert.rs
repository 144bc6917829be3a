//! The neutral scene → Bevy: meshes, images, `StandardMaterial`s or WMO materials, and one world of
//! entities with the parts and overlays marked, each asset under the scene's label.

use bevy::asset::{LoadContext, RenderAssetUsages};
use bevy::image::{Image, ImageAddressMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::morph::{MeshMorphWeights, MorphAttributes, MorphWeights};
use bevy::mesh::{Indices, Mesh, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::world_serialization::WorldAsset;

use crate::mesh::{MeshData, MorphTarget, Topology};
use crate::scene::{self, Scene};
use crate::source::FileSource;
use std::sync::Arc;

use bevy::camera::visibility::DynamicSkinnedMeshBounds;
use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};

use super::animation::{M2Billboard, M2Joint, M2Motion};
use super::wmo_material::{WmoExtension, WmoMaterial};
use super::{DoodadInstance, DrawnMesh, ModelAsset, ModelLabel, ModelMaterial, ModelPart, MorphTargetNames, Overlay};

/// `opened` is the source the opened file was read from: later `.anim` files of a model opened on its
/// own are read there.
pub(super) fn translate(ctx: &mut LoadContext<'_>, mut description: Scene, opened: Arc<dyn FileSource>) -> ModelAsset {
    let images: Vec<Handle<Image>> =
        description.textures.iter().map(|t| ctx.add_labeled_asset(t.label.clone(), texture_image(t))).collect();
    let mut standard_materials = Vec::new();
    let mut wmo_materials = Vec::new();
    let materials: Vec<ModelMaterial> = description
        .materials
        .iter()
        .map(|m| {
            let base = standard_material(m, &images);
            match m.game_pass {
                Some(pass) => {
                    let extension = WmoExtension::new(pass.vertex_color_scale, pass.blend, depth_flags(pass));
                    let handle = ctx.add_labeled_asset(m.label.clone(), WmoMaterial { base, extension });
                    wmo_materials.push(handle.clone());
                    ModelMaterial::Game(handle)
                }
                None => {
                    let handle = ctx.add_labeled_asset(m.label.clone(), base);
                    standard_materials.push(handle.clone());
                    ModelMaterial::Standard(handle)
                }
            }
        })
        .collect();
    // Normal maps need tangents, which only the meshes drawn with one get.
    let mut needs_tangents = vec![false; description.meshes.len()];
    for draw in description.nodes.iter().filter_map(|n| n.draw) {
        if description.materials[draw.material].normal_map_texture.is_some() {
            needs_tangents[draw.mesh] = true;
        }
    }
    let morph_counts: Vec<usize> = description.meshes.iter().map(|m| drawn_morph_targets(&m.data).len()).collect();
    let has_morphs: Vec<bool> = morph_counts.iter().map(|&n| n > 0).collect();
    // The vertex data moves into Bevy's meshes; the description keeps each triangle's source record.
    let meshes: Vec<Handle<Mesh>> = description
        .meshes
        .iter_mut()
        .zip(needs_tangents)
        .map(|(m, tangents)| {
            let topology = m.data.topology;
            let mut data = std::mem::replace(&mut m.data, MeshData::new(topology));
            m.data.triangle_records = std::mem::take(&mut data.triangle_records);
            let skinned = data.skin.is_some();
            let mut mesh = to_bevy_mesh(data);
            if skinned {
                // Bounds that follow the joints, so a moving model is not culled at the view's edges.
                let _ = mesh.generate_skinned_mesh_bounds();
            }
            if tangents {
                // Without UVs there are no tangents to make; the normal map then has no effect.
                let _ = mesh.generate_tangents();
            }
            ctx.add_labeled_asset(m.label.clone(), mesh)
        })
        .collect();

    let inverse_bindposes: Vec<Handle<SkinnedMeshInverseBindposes>> = description
        .skeletons
        .iter()
        .map(|s| {
            let matrices: Vec<Mat4> = s.inverse_bindposes.iter().map(Mat4::from_cols_array).collect();
            ctx.add_labeled_asset(ModelLabel::M2InverseBindposes(s.model).to_string(), matrices.into())
        })
        .collect();
    let motions = motions(ctx, &description, &materials, &opened);

    let mut world = World::new();
    let mut entities: Vec<Entity> = Vec::with_capacity(description.nodes.len());
    for node in &description.nodes {
        let t = node.transform;
        let transform = Transform {
            translation: Vec3::from_array(t.translation),
            rotation: Quat::from_array(t.rotation),
            scale: Vec3::from_array(t.scale),
        };
        let visibility = if node.hidden { Visibility::Hidden } else { Visibility::Inherited };
        let mut entity = world.spawn((transform, visibility));
        if let Some(name) = &node.name {
            entity.insert(Name::new(name.clone()));
        }
        if let Some(part) = node.part {
            entity.insert(ModelPart(part));
        }
        if let Some(overlay) = node.overlay {
            entity.insert(Overlay::from(overlay));
        }
        if let Some(parent) = node.parent {
            entity.insert(ChildOf(entities[parent]));
        }
        if let Some(modd) = node.doodad {
            entity.insert(DoodadInstance(modd));
        }
        if let Some(joint) = node.joint {
            let skeleton = &description.skeletons[joint.skeleton];
            if let Some((_, motion)) = motions.iter().find(|(file, _)| *file == skeleton.model_file) {
                entity.insert(M2Joint { motion: motion.clone(), bone: joint.bone as u16 });
            }
            if let Some(kind) = skeleton.joints[joint.bone].billboard {
                entity.insert(M2Billboard::new(kind));
            }
        }
        if let Some(skin) = &node.skin {
            let joints = skin.joints.iter().map(|&j| entities[j]).collect();
            let inverse_bindposes = inverse_bindposes[skin.skeleton].clone();
            entity.insert(SkinnedMesh { inverse_bindposes, joints });
            match description.skeletons[skin.skeleton].motion_bounds {
                // The file's own box for every pose: nothing to recompute as the joints move.
                Some(bounds) => entity.insert(super::animation::M2MotionBounds {
                    min: Vec3::from_array(bounds.min),
                    max: Vec3::from_array(bounds.max),
                }),
                // Bounds that follow the joints, so a moving model is not culled at the view's edges.
                None => entity.insert(DynamicSkinnedMeshBounds),
            };
        }
        if !node.morph_targets.is_empty() {
            let weights = MorphWeights::new(vec![0.0; node.morph_targets.len()], None).unwrap_or_default();
            entity.insert((weights, MorphTargetNames(node.morph_targets.clone())));
        }
        if let Some(draw) = node.draw {
            entity.insert((Mesh3d(meshes[draw.mesh].clone()), DrawnMesh(draw.mesh)));
            if has_morphs[draw.mesh] {
                // The nearest node above with weights drives this mesh's targets (Bevy requires every
                // morphed mesh to have weights, or it does not draw it).
                let mut controller = node.parent;
                while let Some(c) = controller.filter(|&c| description.nodes[c].morph_targets.is_empty()) {
                    controller = description.nodes[c].parent;
                }
                let weights = match controller {
                    Some(c) => MeshMorphWeights::Reference(entities[c]),
                    None => MeshMorphWeights::Value { weights: vec![0.0; morph_counts[draw.mesh]] },
                };
                // Bevy's bounding box is the rest pose's; a morph may move the mesh out of it.
                entity.insert((weights, bevy::camera::visibility::NoFrustumCulling));
            }
            // A click may hit the back of a two-sided surface; a one-sided one is seen only from the front.
            #[cfg(feature = "picking")]
            if description.materials[draw.material].double_sided {
                entity.insert(bevy::picking::mesh_picking::ray_cast::RayCastBackfaces);
            }
            match &materials[draw.material] {
                ModelMaterial::Standard(h) => entity.insert(MeshMaterial3d(h.clone())),
                ModelMaterial::Game(h) => entity.insert(MeshMaterial3d(h.clone())),
            };
        }
        entities.push(entity.id());
    }
    let scene = ctx.add_labeled_asset(ModelLabel::Scene.to_string(), WorldAsset::new(world));
    let motions = motions.into_iter().map(|(_, handle)| handle).collect();
    ModelAsset { scene, description, meshes, images, materials, standard_materials, wmo_materials, motions }
}

/// One motion per moving M2 (by its file in the scene), with the materials its units move.
fn motions(
    ctx: &mut LoadContext<'_>,
    description: &Scene,
    materials: &[ModelMaterial],
    opened: &Arc<dyn FileSource>,
) -> Vec<(usize, Handle<M2Motion>)> {
    let mut models: Vec<(usize, usize)> = description.skeletons.iter().map(|s| (s.model_file, s.model)).collect();
    for m in &description.animated_materials {
        if !models.iter().any(|(file, _)| *file == m.model_file) {
            models.push((m.model_file, m.model));
        }
    }
    models
        .into_iter()
        .filter_map(|(file, model)| {
            let document = description.files[file].document.clone()?;
            let materials = description
                .animated_materials
                .iter()
                .filter(|m| m.model_file == file)
                .filter_map(|m| match &materials[m.material] {
                    ModelMaterial::Game(handle) => Some((handle.clone(), m.unit)),
                    ModelMaterial::Standard(_) => None,
                })
                .collect();
            // Doodads play only Stand, read with the scene; a model on its own may play any sequence.
            let anim_files = (file == 0).then(|| (opened.clone(), description.files[0].path.clone()));
            let motion = M2Motion { document, file, sequence: None, materials, anim_files, warnings: Vec::new() };
            Some((file, ctx.add_labeled_asset(ModelLabel::M2Motion(model).to_string(), motion)))
        })
        .collect()
}

fn depth_flags(pass: scene::GamePass) -> u32 {
    let mut flags = 0;
    if pass.no_depth_write {
        flags |= WmoExtension::NO_DEPTH_WRITE;
    }
    if pass.no_depth_test {
        flags |= WmoExtension::NO_DEPTH_TEST;
    }
    flags
}

fn standard_material(m: &scene::Material, images: &[Handle<Image>]) -> StandardMaterial {
    let [r, g, b, a] = m.base_color;
    let [er, eg, eb] = m.emissive;
    StandardMaterial {
        base_color: Color::srgba(r, g, b, a),
        base_color_texture: m.base_color_texture.map(|t| images[t.texture].clone()),
        normal_map_texture: m.normal_map_texture.map(|t| images[t.texture].clone()),
        emissive_texture: m.emissive_texture.map(|t| images[t.texture].clone()),
        metallic_roughness_texture: m.metallic_roughness_texture.map(|t| images[t.texture].clone()),
        clearcoat: m.clearcoat,
        clearcoat_perceptual_roughness: m.clearcoat_roughness,
        specular_transmission: m.specular_transmission,
        diffuse_transmission: m.diffuse_transmission,
        thickness: m.thickness,
        ior: m.ior,
        emissive: LinearRgba::rgb(er, eg, eb),
        perceptual_roughness: m.perceptual_roughness,
        metallic: m.metallic,
        reflectance: m.reflectance,
        alpha_mode: match m.alpha_mode {
            scene::AlphaMode::Opaque => AlphaMode::Opaque,
            scene::AlphaMode::Mask(cutoff) => AlphaMode::Mask(cutoff),
            scene::AlphaMode::Blend => AlphaMode::Blend,
            scene::AlphaMode::Add => AlphaMode::Add,
        },
        double_sided: m.double_sided,
        cull_mode: if m.double_sided { None } else { Some(bevy::render::render_resource::Face::Back) },
        unlit: m.unlit,
        fog_enabled: m.fog,
        depth_bias: m.depth_bias,
        ..default()
    }
}

pub fn to_bevy_mesh(data: MeshData) -> Mesh {
    let topology = match data.topology {
        Topology::Triangles => PrimitiveTopology::TriangleList,
        Topology::Lines => PrimitiveTopology::LineList,
        Topology::Points => PrimitiveTopology::PointList,
    };
    let vertex_count = data.positions.len();
    let targets = drawn_morph_targets(&data);
    // Bevy wants the targets one after another, each a run of the mesh's vertices.
    let morph_attributes: Vec<MorphAttributes> = targets
        .iter()
        .flat_map(|t| t.positions.iter().zip(&t.normals))
        .map(|(p, n)| MorphAttributes::new(Vec3::from_array(*p), Vec3::from_array(*n), Vec3::ZERO))
        .collect();
    let morph_names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
    let mut mesh = Mesh::new(topology, RenderAssetUsages::default());
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, data.positions);
    if data.normals.len() == vertex_count {
        mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, data.normals);
    }
    let mut uv_sets = data.uv_sets.into_iter();
    if let Some(uv) = uv_sets.next().filter(|u| u.len() == vertex_count) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, uv);
        if let Some(uv) = uv_sets.next().filter(|u| u.len() == vertex_count) {
            mesh.insert_attribute(Mesh::ATTRIBUTE_UV_1, uv);
        }
    }
    if let Some(colors) = data.colors.filter(|c| c.len() == vertex_count) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colors);
    }
    if let Some(skin) = data.skin.filter(|s| s.joints.len() == vertex_count && s.weights.len() == vertex_count) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_JOINT_INDEX, VertexAttributeValues::Uint16x4(skin.joints));
        mesh.insert_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT, skin.weights);
    }
    if !morph_names.is_empty() {
        mesh.set_morph_targets(morph_attributes);
        mesh.set_morph_target_names(morph_names);
    }
    mesh.insert_indices(Indices::U32(data.indices));
    mesh
}

/// The morph targets Bevy can draw: whole ones, as many as its weights allow.
fn drawn_morph_targets(data: &MeshData) -> Vec<&MorphTarget> {
    let vertex_count = data.positions.len();
    let whole =
        data.morph_targets.iter().filter(|t| t.positions.len() == vertex_count && t.normals.len() == vertex_count);
    whole.take(bevy::mesh::morph::MAX_MORPH_WEIGHTS).collect()
}

/// Decoded RGBA8 levels → a texture with its mip chain, sRGB unless it holds data (normals, roughness).
pub fn texture_image(texture: &scene::Texture) -> Image {
    let image = &texture.image;
    let mut levels = image.levels.iter();
    let top = levels.next().cloned().unwrap_or_default();
    let mut out = Image::new(
        Extent3d { width: image.width, height: image.height, depth_or_array_layers: 1 },
        TextureDimension::D2,
        top,
        if texture.linear { TextureFormat::Rgba8Unorm } else { TextureFormat::Rgba8UnormSrgb },
        RenderAssetUsages::default(),
    );
    // Image::new checks the data against level 0 alone; the rest of the chain follows it.
    if let Some(data) = out.data.as_mut() {
        levels.for_each(|level| data.extend_from_slice(level));
    }
    out.texture_descriptor.mip_level_count = image.levels.len().max(1) as u32;
    out.sampler = sampler(texture.sampler);
    out
}

fn sampler(sampler: scene::Sampler) -> ImageSampler {
    let mode = |r: bool| if r { ImageAddressMode::Repeat } else { ImageAddressMode::ClampToEdge };
    let mut descriptor =
        if sampler.nearest { ImageSamplerDescriptor::nearest() } else { ImageSamplerDescriptor::linear() };
    descriptor.address_mode_u = mode(sampler.repeat[0]);
    descriptor.address_mode_v = mode(sampler.repeat[1]);
    ImageSampler::Descriptor(descriptor)
}
