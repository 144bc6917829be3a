//! The WMO material, also used for M2 doodads: `StandardMaterial` extended with the WMO blend modes 0–7
//! and the M2 modes 0–6 (the spec's source and destination factors, set on the pipeline per mode, with
//! depth writes off for the blended ones), the M2 depth flags, and the doubled vertex-colour modulation
//! (`shaders/wmo_material.wgsl`).

use bevy::asset::uuid_handle;
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{ExtendedMaterial, MaterialExtension, MaterialExtensionKey, MaterialExtensionPipeline};
use bevy::prelude::*;
use bevy::render::render_resource::{
    AsBindGroup, BlendComponent, BlendFactor, BlendOperation, BlendState, RenderPipelineDescriptor,
    SpecializedMeshPipelineError,
};
use bevy::shader::ShaderRef;

use crate::scene::PassBlend;

pub const WMO_SHADER: Handle<Shader> = uuid_handle!("4c1f7a52-7d0e-4d5b-9a37-0c8e2b6f9e11");

pub type WmoMaterial = ExtendedMaterial<StandardMaterial, WmoExtension>;

#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, Default)]
#[bind_group_data(WmoMaterialKey)]
pub struct WmoExtension {
    /// 2 where vertex colours carry baked lighting at half intensity.
    #[uniform(100)]
    pub vertex_color_scale: f32,
    /// A [`PassBlend`] code; picks the pipeline's blend state.
    pub blend: u32,
    /// [`WmoExtension::NO_DEPTH_WRITE`], [`WmoExtension::NO_DEPTH_TEST`] (M2 material flags 0x10, 0x08).
    pub depth_flags: u32,
}

impl WmoExtension {
    pub const NO_DEPTH_WRITE: u32 = 0x1;
    pub const NO_DEPTH_TEST: u32 = 0x2;

    pub fn new(vertex_color_scale: f32, blend: PassBlend, depth_flags: u32) -> Self {
        Self { vertex_color_scale, blend: blend.code(), depth_flags }
    }
}

#[repr(C)]
#[derive(Eq, PartialEq, Hash, Copy, Clone)]
pub struct WmoMaterialKey {
    blend: u32,
    depth_flags: u32,
}

impl From<&WmoExtension> for WmoMaterialKey {
    fn from(extension: &WmoExtension) -> Self {
        Self { blend: extension.blend, depth_flags: extension.depth_flags }
    }
}

/// The blend state of a pass, `None` for the opaque ones.
pub fn blend_state(blend: PassBlend) -> Option<BlendState> {
    let color = |src_factor, dst_factor| BlendComponent { src_factor, dst_factor, operation: BlendOperation::Add };
    let keep_alpha =
        BlendComponent { src_factor: BlendFactor::Zero, dst_factor: BlendFactor::One, operation: BlendOperation::Add };
    let (src, dst) = match blend {
        PassBlend::Opaque | PassBlend::AlphaKey => return None,
        PassBlend::Alpha => (BlendFactor::SrcAlpha, BlendFactor::OneMinusSrcAlpha),
        PassBlend::OneOne => (BlendFactor::One, BlendFactor::One),
        PassBlend::Add => (BlendFactor::SrcAlpha, BlendFactor::One),
        PassBlend::Mod => (BlendFactor::Dst, BlendFactor::Zero),
        PassBlend::Mod2x => (BlendFactor::Dst, BlendFactor::Src),
        PassBlend::ModAdd => (BlendFactor::Dst, BlendFactor::One),
        PassBlend::InvSrcAlphaAdd => (BlendFactor::OneMinusSrcAlpha, BlendFactor::One),
    };
    Some(BlendState { color: color(src, dst), alpha: keep_alpha })
}

impl MaterialExtension for WmoExtension {
    fn fragment_shader() -> ShaderRef {
        WMO_SHADER.into()
    }

    fn specialize(
        _pipeline: &MaterialExtensionPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        _layout: &MeshVertexBufferLayoutRef,
        key: MaterialExtensionKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        let flags = key.bind_group_data.depth_flags;
        let blend = blend_state(PassBlend::from_code(key.bind_group_data.blend));
        if let Some(blend) = blend
            && let Some(fragment) = descriptor.fragment.as_mut()
        {
            for target in fragment.targets.iter_mut().flatten() {
                target.blend = Some(blend);
            }
        }
        if let Some(depth) = descriptor.depth_stencil.as_mut() {
            if blend.is_some() || flags & WmoExtension::NO_DEPTH_WRITE != 0 {
                depth.depth_write_enabled = Some(false);
            }
            if flags & WmoExtension::NO_DEPTH_TEST != 0 {
                depth.depth_compare = Some(bevy::render::render_resource::CompareFunction::Always);
            }
        }
        Ok(())
    }
}
