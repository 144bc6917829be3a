//! Renderer-neutral [`MeshData`] → Bevy [`Mesh`], and the placeholder texture.

use bevy::asset::RenderAssetUsages;
use bevy::image::{Image, ImageAddressMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use crate::mesh::{MeshData, Topology};

pub fn to_bevy_mesh(data: &MeshData) -> Mesh {
    let topology = match data.topology {
        Topology::Triangles => PrimitiveTopology::TriangleList,
        Topology::Lines => PrimitiveTopology::LineList,
        Topology::Points => PrimitiveTopology::PointList,
    };
    let mut mesh = Mesh::new(topology, RenderAssetUsages::default());
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, data.positions.clone());
    if data.normals.len() == data.positions.len() {
        mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, data.normals.clone());
    }
    if let Some(uv) = data.uv_sets.first().filter(|u| u.len() == data.positions.len()) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, uv.clone());
    }
    if let Some(uv) = data.uv_sets.get(1).filter(|u| u.len() == data.positions.len()) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_1, uv.clone());
    }
    if let Some(colors) = data.colors.as_ref().filter(|c| c.len() == data.positions.len()) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colors.clone());
    }
    mesh.insert_indices(Indices::U32(data.indices.clone()));
    mesh
}

/// A magenta and grey checker: a missing texture must be obvious, not silently white.
pub fn placeholder_image() -> Image {
    const SIZE: u32 = 8;
    let mut data = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let on = (x + y) % 2 == 0;
            data.extend_from_slice(if on { &[230, 0, 200, 255] } else { &[60, 60, 60, 255] });
        }
    }
    let mut image = Image::new(
        Extent3d { width: SIZE, height: SIZE, depth_or_array_layers: 1 },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    image.sampler = sampler([true, true], true);
    image
}

/// Repeat or clamp per axis; `nearest` keeps the placeholder's checker crisp.
pub fn sampler(repeat: [bool; 2], nearest: bool) -> ImageSampler {
    let mode = |r: bool| if r { ImageAddressMode::Repeat } else { ImageAddressMode::ClampToEdge };
    let mut descriptor = if nearest { ImageSamplerDescriptor::nearest() } else { ImageSamplerDescriptor::linear() };
    descriptor.address_mode_u = mode(repeat[0]);
    descriptor.address_mode_v = mode(repeat[1]);
    ImageSampler::Descriptor(descriptor)
}
