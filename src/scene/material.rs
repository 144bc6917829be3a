//! Neutral materials: PBR parameters, the textures they sample, and for WMO and M2 the game's blend
//! pass and flags. The Bevy plugin turns each into a `StandardMaterial` or the WMO material; an exporter
//! reads the same values.

use crate::formats::wmo::BlendMode;

/// How a material's alpha is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    Opaque,
    /// Discard below the cutoff.
    Mask(f32),
    Blend,
    /// Added to what is behind (LightWave additive transparency).
    Add,
}

/// A texture a material samples: an index into [`super::Scene::textures`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureRef {
    pub texture: usize,
}

/// How a WMO or M2 pass is drawn beyond the PBR values: its blend factors and depth flags.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GamePass {
    pub blend: PassBlend,
    /// 2 where vertex colours carry baked lighting at half intensity (WMO MOCV), else 1.
    pub vertex_color_scale: f32,
    pub no_depth_write: bool,
    pub no_depth_test: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// The sub-asset label (`Surface2`, `Material4`, `M2Model1/Material0`, `Overlay/Lines`).
    pub label: String,
    /// sRGB colour and alpha.
    pub base_color: [f32; 4],
    pub base_color_texture: Option<TextureRef>,
    /// A tangent-space normal map (LightWave node materials).
    pub normal_map_texture: Option<TextureRef>,
    pub emissive_texture: Option<TextureRef>,
    /// glTF's and Bevy's layout: roughness in green, metallic in blue, multiplied by the factors.
    pub metallic_roughness_texture: Option<TextureRef>,
    /// Linear RGB.
    pub emissive: [f32; 3],
    pub perceptual_roughness: f32,
    pub metallic: f32,
    pub reflectance: f32,
    pub alpha_mode: AlphaMode,
    pub double_sided: bool,
    pub unlit: bool,
    pub fog: bool,
    /// Drawn over coplanar geometry (LightWave detail polygons).
    pub depth_bias: f32,
    pub clearcoat: f32,
    pub clearcoat_roughness: f32,
    /// Refraction (specular transmission) and translucency (diffuse transmission), 0–1.
    pub specular_transmission: f32,
    pub diffuse_transmission: f32,
    pub thickness: f32,
    pub ior: f32,
    /// WMO and M2 materials: drawn by the game's blend pass instead of the plain PBR one.
    pub game_pass: Option<GamePass>,
}

impl Material {
    /// Bevy's `StandardMaterial` defaults, so a format sets only what it knows.
    pub fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            base_color: [1.0, 1.0, 1.0, 1.0],
            base_color_texture: None,
            normal_map_texture: None,
            emissive_texture: None,
            metallic_roughness_texture: None,
            emissive: [0.0; 3],
            perceptual_roughness: 0.5,
            metallic: 0.0,
            reflectance: 0.5,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            unlit: false,
            fog: true,
            depth_bias: 0.0,
            clearcoat: 0.0,
            clearcoat_roughness: 0.5,
            specular_transmission: 0.0,
            diffuse_transmission: 0.0,
            thickness: 0.0,
            ior: 1.5,
            game_pass: None,
        }
    }

    /// An unlit, see-through colour for overlays (collision, portals).
    pub fn overlay(label: impl Into<String>, rgba: [f32; 4]) -> Self {
        Self { base_color: rgba, unlit: true, alpha_mode: AlphaMode::Blend, double_sided: true, ..Self::new(label) }
    }

    /// An unlit solid colour (lines, doodad markers).
    pub fn flat(label: impl Into<String>, rgb: [f32; 3]) -> Self {
        Self { base_color: [rgb[0], rgb[1], rgb[2], 1.0], unlit: true, ..Self::new(label) }
    }
}

/// How a pass combines with what is behind it: the WMO and the M2 blend modes, which number the same
/// factors differently, on one scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassBlend {
    Opaque,
    AlphaKey,
    /// SRC_ALPHA, ONE_MINUS_SRC_ALPHA
    Alpha,
    /// ONE, ONE (M2 "NoAlphaAdd")
    OneOne,
    /// SRC_ALPHA, ONE (WMO 3, M2 4)
    Add,
    /// DST_COLOR, ZERO
    Mod,
    /// DST_COLOR, SRC_COLOR
    Mod2x,
    /// DST_COLOR, ONE
    ModAdd,
    /// ONE_MINUS_SRC_ALPHA, ONE
    InvSrcAlphaAdd,
}

/// Alpha-key materials discard below this alpha; readers use 1/255 to 0.878 (M2: 128/255 to 224/255),
/// and about a half is the common choice.
pub const ALPHA_KEY_CUTOFF: f32 = 0.5;

impl PassBlend {
    const ALL: [PassBlend; 9] = [
        Self::Opaque,
        Self::AlphaKey,
        Self::Alpha,
        Self::OneOne,
        Self::Add,
        Self::Mod,
        Self::Mod2x,
        Self::ModAdd,
        Self::InvSrcAlphaAdd,
    ];

    pub fn from_wmo(mode: BlendMode) -> Self {
        match mode {
            BlendMode::Opaque => Self::Opaque,
            BlendMode::AlphaKey => Self::AlphaKey,
            BlendMode::Alpha | BlendMode::Other(_) => Self::Alpha,
            BlendMode::Add => Self::Add,
            BlendMode::Mod => Self::Mod,
            BlendMode::Mod2x => Self::Mod2x,
            BlendMode::ModAdd => Self::ModAdd,
            BlendMode::InvSrcAlphaAdd => Self::InvSrcAlphaAdd,
        }
    }

    /// M2 blending modes 0–6 (`m2.md` §4); later ones are drawn as alpha.
    pub fn from_m2(mode: u16) -> Self {
        match mode {
            0 => Self::Opaque,
            1 => Self::AlphaKey,
            3 => Self::OneOne,
            4 => Self::Add,
            5 => Self::Mod,
            6 => Self::Mod2x,
            7 => Self::InvSrcAlphaAdd,
            _ => Self::Alpha,
        }
    }

    pub fn code(self) -> u32 {
        Self::ALL.iter().position(|&b| b == self).unwrap_or(0) as u32
    }

    pub fn from_code(code: u32) -> Self {
        Self::ALL.get(code as usize).copied().unwrap_or(Self::Opaque)
    }

    /// The render phase the pass belongs to.
    pub fn alpha_mode(self) -> AlphaMode {
        match self {
            Self::Opaque => AlphaMode::Opaque,
            Self::AlphaKey => AlphaMode::Mask(ALPHA_KEY_CUTOFF),
            _ => AlphaMode::Blend,
        }
    }
}

/// The M2 blending modes by their client names (`m2.md` §4).
pub fn m2_blend_name(mode: u16) -> &'static str {
    match mode {
        0 => "Opaque",
        1 => "AlphaKey",
        2 => "Alpha",
        3 => "NoAlphaAdd",
        4 => "Add",
        5 => "Mod",
        6 => "Mod2x",
        7 => "BlendAdd",
        _ => "unknown (drawn as Alpha)",
    }
}

/// The names of an M2 material's set render flags.
pub fn m2_flag_names(flags: u16) -> Vec<&'static str> {
    use crate::formats::m2::Material as M2Material;
    [
        (M2Material::UNLIT, "unlit"),
        (M2Material::UNFOGGED, "unfogged"),
        (M2Material::TWO_SIDED, "two-sided"),
        (M2Material::NO_DEPTH_TEST, "no depth test"),
        (M2Material::NO_DEPTH_WRITE, "no depth write"),
    ]
    .into_iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, name)| name)
    .collect()
}
