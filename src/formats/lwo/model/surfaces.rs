//! Surfaces and what they hold: glow, outline, vertex colour, texture blocks and gradients, with the
//! spec's defaults. Their own file, as the surface types are many fields and no geometry.

use crate::formats::chunk::ChunkId;
use crate::formats::fourcc::FourCc;

/// Surface parameters with the spec's defaults (lwo-surfaces.md §3.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    pub name: String,
    pub source: String,
    pub color: [f32; 3],
    pub diffuse: f32,
    pub luminosity: f32,
    pub specular: f32,
    pub reflection: f32,
    pub transparency: f32,
    pub translucency: f32,
    pub glossiness: f32,
    pub sharpness: f32,
    pub bump: f32,
    /// 1 front only, 3 both sides.
    pub sidedness: u16,
    /// Radians; ≤ 0 is flat shading.
    pub max_smoothing_angle: f32,
    pub refraction_index: f32,
    pub color_highlights: f32,
    pub color_filter: f32,
    pub additive_transparency: f32,
    pub alpha_mode: u16,
    pub vertex_color: Option<VertexColor>,
    /// RFOP / TROP: 0 backdrop, 1 ray-trace + backdrop, 2 spherical map, 3 ray-trace + spherical map.
    pub reflection_options: u16,
    pub refraction_options: u16,
    /// RIMG / TIMG: CLIP index, 0 for none.
    pub reflection_image: u32,
    pub refraction_image: u32,
    pub reflection_seam_angle: f32,
    pub reflection_blur: f32,
    pub refraction_blur: f32,
    /// ALPH value (or AVAL), used with alpha mode 1.
    pub alpha_value: f32,
    pub glow: Option<Glow>,
    pub outline: Option<Outline>,
    /// Envelope index per animated parameter (`COLR`, `DIFF`, …), for those that name one.
    pub envelopes: Vec<(FourCc, u32)>,
    pub blocks: Vec<Block>,
    /// LWO3's node graph (NODS), when the surface has one.
    pub nodes: Option<crate::formats::lwo::nodes::NodeGraph>,
    /// Whether this surface was named by a tag but never defined by a SURF chunk.
    pub is_default: bool,
    /// The SURF chunk (LWO3: `FORM SURF`) the surface was read from; `None` for a default one.
    pub chunk: Option<ChunkId>,
}

impl Surface {
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            source: String::new(),
            color: [200.0 / 255.0; 3],
            diffuse: 1.0,
            luminosity: 0.0,
            specular: 0.0,
            reflection: 0.0,
            transparency: 0.0,
            translucency: 0.0,
            glossiness: 0.4,
            sharpness: 0.0,
            bump: 1.0,
            sidedness: 1,
            max_smoothing_angle: 0.0,
            refraction_index: 1.0,
            color_highlights: 0.0,
            color_filter: 0.0,
            additive_transparency: 0.0,
            alpha_mode: 2,
            vertex_color: None,
            reflection_options: 0,
            refraction_options: 0,
            reflection_image: 0,
            refraction_image: 0,
            reflection_seam_angle: 0.0,
            reflection_blur: 0.0,
            refraction_blur: 0.0,
            alpha_value: 1.0,
            glow: None,
            outline: None,
            envelopes: Vec::new(),
            blocks: Vec::new(),
            nodes: None,
            is_default: false,
            chunk: None,
        }
    }

    pub fn double_sided(&self) -> bool {
        self.sidedness & 2 != 0
    }

    /// The colour image block that drives the base colour, if any.
    /// The last in ordinal order (layered last, drawn on top); of equal ordinals, the later block.
    /// Without one, the image layer of the node material's base colour input (LightWave 2018), so that
    /// the mesh takes that layer's UV map and projection.
    pub fn color_map(&self) -> Option<&Block> {
        // `max_by` gives the last of equal maxima: what the last of a stable sort gives, with no list
        // made (asked for each surface several times a load).
        let surface_map = self
            .blocks
            .iter()
            .filter(|b| b.enabled && b.channel.0 == *b"COLR" && b.kind == BlockKind::Image)
            .max_by(|a, b| a.ordinal.as_bytes().cmp(b.ordinal.as_bytes()));
        surface_map.or_else(|| {
            let material = self.nodes.as_ref()?.material_node()?;
            ["Color", "Base Color"].iter().find_map(|name| material.input(name)?.image_layer())
        })
    }
}

/// GLOW: type 0 Hastings, 1 convolution.
#[derive(Clone, Debug, PartialEq)]
pub struct Glow {
    pub kind: u16,
    pub intensity: f32,
    pub size: f32,
}

/// LINE: outline rendering (bit 0 of flags enables it); size and colour are optional trailers.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    pub flags: u16,
    pub size: Option<f32>,
    pub color: Option<[f32; 3]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VertexColor {
    pub intensity: f32,
    pub map_kind: FourCc,
    pub map_name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum BlockKind {
    Image,
    Procedural,
    Gradient,
    Shader,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Projection {
    Planar,
    Cylindrical,
    Spherical,
    Cubic,
    Front,
    Uv,
}

impl Projection {
    pub fn from_code(code: u16) -> Option<Self> {
        Some(match code {
            0 => Self::Planar,
            1 => Self::Cylindrical,
            2 => Self::Spherical,
            3 => Self::Cubic,
            4 => Self::Front,
            5 => Self::Uv,
            _ => return None,
        })
    }
}

/// Image wrap codes as LWO2 stores them (LWOB's TWRP codes are converted on read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Wrap {
    Reset,
    Repeat,
    Mirror,
    Edge,
}

impl Wrap {
    pub fn from_lwo2(code: u16) -> Self {
        match code {
            0 => Self::Reset,
            2 => Self::Mirror,
            3 => Self::Edge,
            _ => Self::Repeat,
        }
    }

    pub fn from_lwob(code: u16) -> Self {
        match code {
            0 => Self::Reset,
            1 => Self::Edge,
            3 => Self::Mirror,
            _ => Self::Repeat,
        }
    }
}

/// A texture layer (BLOK, or an LWOB \*TEX group).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub kind: BlockKind,
    pub ordinal: String,
    pub channel: FourCc,
    pub enabled: bool,
    pub opacity_type: u16,
    pub opacity: f32,
    pub negative: bool,
    pub projection: Projection,
    /// 0, 1, 2 = X, Y, Z.
    pub axis: u16,
    /// CLIP index, 0 for none.
    pub image: u32,
    pub wrap: [Wrap; 2],
    pub wrap_cycles: [f32; 2],
    pub uv_map: Option<String>,
    pub center: [f32; 3],
    pub size: [f32; 3],
    pub rotation: [f32; 3],
    pub world_coordinates: bool,
    /// Procedural texture or shader plug-in name (FUNC).
    pub function: Option<String>,
    /// PROC VALU: one or three values.
    pub procedural_value: Vec<f32>,
    pub gradient: Option<Gradient>,
    /// IMAP AAST strength when antialiasing is on.
    pub antialiasing: Option<f32>,
    pub pixel_blending: bool,
    /// IMAP STCK: sticky projection time, when on.
    pub sticky_time: Option<f32>,
    /// IMAP TAMP (bump amplitude).
    pub amplitude: f32,
    /// TMAP FALL: type and per-axis rate.
    pub falloff: Option<(u16, [f32; 3])>,
    /// TMAP OREF: reference object.
    pub reference_object: Option<String>,
    /// LWOB image file name (LWO2 goes through `image`).
    pub image_file: Option<String>,
}

impl Block {
    pub fn new(kind: BlockKind) -> Self {
        Self {
            kind,
            ordinal: String::new(),
            channel: FourCc::new(b"COLR"),
            enabled: true,
            opacity_type: 7,
            opacity: 1.0,
            negative: false,
            projection: Projection::Planar,
            axis: 0,
            image: 0,
            wrap: [Wrap::Repeat; 2],
            wrap_cycles: [1.0; 2],
            uv_map: None,
            center: [0.0; 3],
            size: [1.0; 3],
            rotation: [0.0; 3],
            world_coordinates: false,
            function: None,
            procedural_value: Vec::new(),
            gradient: None,
            antialiasing: None,
            pixel_blending: false,
            sticky_time: None,
            amplitude: 1.0,
            falloff: None,
            reference_object: None,
            image_file: None,
        }
    }
}

/// A GRAD block's ramp.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gradient {
    /// PNAM: the input parameter.
    pub parameter: String,
    /// INAM: the item the input is read from.
    pub item: String,
    /// GRST, GREN: the display range.
    pub range: [f32; 2],
    /// FKEY: input value and RGBA.
    pub keys: Vec<(f32, [f32; 4])>,
    /// IKEY: interpolation per span, 0 linear, 1 spline, 2 step.
    pub spans: Vec<u16>,
}
