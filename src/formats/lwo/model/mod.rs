//! The typed LightWave object: plain owned structs with public fields. This file holds the object and
//! its layers; the types they are made of live in the files below, each one kind of data, and are all
//! re-exported here, so every type is still named `model::X` (and `lwo::X`).

mod clips;
mod columns;
mod polygons;
mod surfaces;
mod vertex_maps;

pub use clips::*;
pub use columns::*;
pub use polygons::*;
pub use surfaces::*;
pub use vertex_maps::*;

use crate::formats::chunk::ChunkId;
use crate::formats::error::Warning;
use crate::formats::fourcc::FourCc;

/// No polygon, part or group: index fields use this instead of an `Option` to keep the arrays flat.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum LwoKind {
    Lwob,
    Lwlo,
    Lwo2,
    Lwo3,
    Lxob,
}

impl LwoKind {
    pub fn from_form_type(t: FourCc) -> Option<Self> {
        Some(match &t.0 {
            b"LWOB" => Self::Lwob,
            b"LWLO" => Self::Lwlo,
            b"LWO2" => Self::Lwo2,
            b"LWO3" => Self::Lwo3,
            b"LXOB" => Self::Lxob,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Lwob => "LWOB",
            Self::Lwlo => "LWLO",
            Self::Lwo2 => "LWO2",
            Self::Lwo3 => "LWO3",
            Self::Lxob => "LXOB",
        }
    }

    /// LWOB and LWLO: 16-bit point indices, SRFS names, detail polygons.
    pub fn is_lightwave5(self) -> bool {
        matches!(self, Self::Lwob | Self::Lwlo)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LwoObject {
    pub kind: LwoKind,
    pub layers: Vec<Layer>,
    /// TAGS (LWO2) or SRFS (LWOB) strings.
    pub tags: Vec<String>,
    pub surfaces: Vec<Surface>,
    pub clips: Vec<Clip>,
    pub envelopes: Vec<Envelope>,
    pub description: Option<String>,
    pub comments: Vec<String>,
    pub icon: Option<Icon>,
    pub warnings: Vec<Warning>,
}

/// ICON: a thumbnail of RGB byte triples (encoding 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Icon {
    pub encoding: u16,
    pub width: u16,
    pub height: u16,
    pub rgb: Vec<u8>,
}

impl LwoObject {
    pub fn point_count(&self) -> usize {
        self.layers.iter().map(|l| l.points.len()).sum()
    }

    pub fn polygon_count(&self) -> usize {
        self.layers.iter().map(|l| l.polygons.len()).sum()
    }

    pub fn surface(&self, index: u32) -> Option<&Surface> {
        self.surfaces.get(index as usize)
    }

    pub fn clip(&self, index: u32) -> Option<&Clip> {
        self.clips.iter().find(|c| c.index == index)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub number: u16,
    pub flags: u16,
    /// Whether bit 0 of `flags` is the hidden bit: LWO2 and LWO3 only (LWLO: foreground layer; LXOB: modo's own).
    pub flags_mean_hidden: bool,
    pub pivot: [f32; 3],
    pub name: String,
    pub parent: Option<u16>,
    pub points: Vec<[f32; 3]>,
    pub polygons: Polygons,
    pub vertex_maps: Vec<VertexMap>,
    pub bounding_box: Option<[[f32; 3]; 2]>,
    /// The LAYR chunk the layer was read from; `None` for the layer that data before any LAYR goes into.
    pub chunk: Option<ChunkId>,
}

impl Layer {
    pub fn new(number: u16) -> Self {
        Self {
            number,
            flags: 0,
            flags_mean_hidden: true,
            pivot: [0.0; 3],
            name: String::new(),
            parent: None,
            points: Vec::new(),
            polygons: Polygons::default(),
            vertex_maps: Vec::new(),
            bounding_box: None,
            chunk: None,
        }
    }

    /// LightWave's hidden bit. Only LWO2/LWO3 define it (see [`Layer::flags_mean_hidden`]).
    pub fn hidden(&self) -> bool {
        self.flags_mean_hidden && self.flags & 1 != 0
    }

    /// The layer's morph targets (MORF and SPOT vertex maps), in file order.
    pub fn morphs(&self) -> Vec<Morph<'_>> {
        self.vertex_maps
            .iter()
            .filter(|m| !m.discontinuous && m.dimension >= 3)
            .filter_map(|m| {
                let kind = match &m.kind.0 {
                    b"MORF" => MorphKind::Relative,
                    b"SPOT" => MorphKind::Absolute,
                    _ => return None,
                };
                Some(Morph { name: &m.name, kind, map: m })
            })
            .collect()
    }

    pub fn vertex_map(&self, kind: &[u8; 4], name: &str, discontinuous: bool) -> Option<&VertexMap> {
        self.vertex_maps.iter().find(|m| m.kind.0 == *kind && m.name == name && m.discontinuous == discontinuous)
    }
}
