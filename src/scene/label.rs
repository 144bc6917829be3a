//! Labels of a scene's meshes, materials and textures, printed the way `bevy_gltf` prints its sub-assets
//! (`Layer0/Surface2`, `Group3/Batch1`): the Bevy plugin uses them as sub-asset labels, an exporter as names.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelLabel {
    Scene,
    LayerSurface {
        layer: usize,
        surface: usize,
        detail: bool,
    },
    LayerLines(usize),
    LayerPoints(usize),
    Surface(usize),
    GroupBatch {
        group: usize,
        batch: usize,
    },
    GroupCollision(usize),
    GroupLiquid(usize),
    Material(usize),
    Portal(usize),
    Texture(usize),
    Placeholder,
    OverlayMaterial(&'static str),
    DoodadMarkerMesh,
    /// An M2 model's parts: the model itself is 0, a WMO's doodad models are numbered in MODN order.
    M2Unit {
        model: usize,
        unit: usize,
    },
    M2Material {
        model: usize,
        material: usize,
    },
    M2Texture {
        model: usize,
        texture: usize,
    },
    /// Another BLP beside the model that can stand in for a replaceable texture (the first is the
    /// texture itself).
    M2TextureChoice {
        model: usize,
        texture: usize,
        choice: usize,
    },
    /// A moving M2's joints at rest (the skin's inverse bind poses).
    M2InverseBindposes(usize),
    /// A moving M2's animation, as the plugin plays it.
    M2Motion(usize),
}

impl fmt::Display for ModelLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Scene => write!(f, "Scene"),
            Self::LayerSurface { layer, surface, detail: false } => write!(f, "Layer{layer}/Surface{surface}"),
            Self::LayerSurface { layer, surface, detail: true } => write!(f, "Layer{layer}/Surface{surface}/Detail"),
            Self::LayerLines(layer) => write!(f, "Layer{layer}/Lines"),
            Self::LayerPoints(layer) => write!(f, "Layer{layer}/Points"),
            Self::Surface(s) => write!(f, "Surface{s}"),
            Self::GroupBatch { group, batch } => write!(f, "Group{group}/Batch{batch}"),
            Self::GroupCollision(group) => write!(f, "Group{group}/Collision"),
            Self::GroupLiquid(group) => write!(f, "Group{group}/Liquid"),
            Self::Material(m) => write!(f, "Material{m}"),
            Self::Portal(p) => write!(f, "Portal{p}"),
            Self::Texture(t) => write!(f, "Texture{t}"),
            Self::Placeholder => write!(f, "Placeholder"),
            Self::OverlayMaterial(name) => write!(f, "Overlay/{name}"),
            Self::DoodadMarkerMesh => write!(f, "DoodadMarker"),
            Self::M2Unit { model, unit } => write!(f, "M2Model{model}/Unit{unit}"),
            Self::M2Material { model, material } => write!(f, "M2Model{model}/Material{material}"),
            Self::M2Texture { model, texture } => write!(f, "M2Model{model}/Texture{texture}"),
            Self::M2TextureChoice { model, texture, choice } => {
                write!(f, "M2Model{model}/Texture{texture}/Choice{choice}")
            }
            Self::M2InverseBindposes(model) => write!(f, "M2Model{model}/InverseBindposes"),
            Self::M2Motion(model) => write!(f, "M2Model{model}/Motion"),
        }
    }
}
