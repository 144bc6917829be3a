//! The WMO material: `StandardMaterial` extended with the WMO blend modes 0–7 (the spec's source and
//! destination factors, set on the pipeline per mode, with depth writes off for the blended ones) and the
//! doubled vertex-colour modulation (`shaders/wmo_material.wgsl`).

use bevy::asset::uuid_handle;
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{ExtendedMaterial, MaterialExtension, MaterialExtensionKey, MaterialExtensionPipeline};
use bevy::prelude::*;
use bevy::render::render_resource::{
    AsBindGroup, BlendComponent, BlendFactor, BlendOperation, BlendState, RenderPipelineDescriptor, SpecializedMeshPipelineError,
};
use bevy::shader::ShaderRef;

use crate::formats::wmo::BlendMode;

pub const WMO_SHADER: Handle<Shader> = uuid_handle!("4c1f7a52-7d0e-4d5b-9a37-0c8e2b6f9e11");

pub type WmoMaterial = ExtendedMaterial<StandardMaterial, WmoExtension>;

#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, Default)]
#[bind_group_data(WmoMaterialKey)]
pub struct WmoExtension {
    /// 2 where vertex colours carry baked lighting at half intensity.
    #[uniform(100)]
    pub vertex_color_scale: f32,
    /// The MOMT blend mode; picks the pipeline's blend state.
    pub blend_mode: u32,
}

#[repr(C)]
#[derive(Eq, PartialEq, Hash, Copy, Clone)]
pub struct WmoMaterialKey {
    blend_mode: u32,
}

impl From<&WmoExtension> for WmoMaterialKey {
    fn from(extension: &WmoExtension) -> Self {
        Self { blend_mode: extension.blend_mode }
    }
}

/// The blend state of a WMO blend mode, `None` for the opaque ones (spec: "Blend modes").
pub fn blend_state(mode: BlendMode) -> Option<BlendState> {
    let color = |src_factor, dst_factor| BlendComponent { src_factor, dst_factor, operation: BlendOperation::Add };
    let keep_alpha = BlendComponent { src_factor: BlendFactor::Zero, dst_factor: BlendFactor::One, operation: BlendOperation::Add };
    let (src, dst) = match mode {
        BlendMode::Opaque | BlendMode::AlphaKey => return None,
        BlendMode::Alpha | BlendMode::Other(_) => (BlendFactor::SrcAlpha, BlendFactor::OneMinusSrcAlpha),
        BlendMode::Add => (BlendFactor::SrcAlpha, BlendFactor::One),
        BlendMode::Mod => (BlendFactor::Dst, BlendFactor::Zero),
        BlendMode::Mod2x => (BlendFactor::Dst, BlendFactor::Src),
        BlendMode::ModAdd => (BlendFactor::Dst, BlendFactor::One),
        BlendMode::InvSrcAlphaAdd => (BlendFactor::OneMinusSrcAlpha, BlendFactor::One),
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
        let mode = BlendMode::from_code(key.bind_group_data.blend_mode);
        if let Some(blend) = blend_state(mode) {
            if let Some(fragment) = descriptor.fragment.as_mut() {
                for target in fragment.targets.iter_mut().flatten() {
                    target.blend = Some(blend);
                }
            }
            if let Some(depth) = descriptor.depth_stencil.as_mut() {
                depth.depth_write_enabled = Some(false);
            }
        }
        Ok(())
    }
}
