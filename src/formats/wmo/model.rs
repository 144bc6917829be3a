//! The typed WMO v17 model: root and group files as plain owned structs.

use crate::formats::error::Warning;

pub const SUPPORTED_VERSION: u32 = 17;

/// A blob of zero-terminated names (MOTX, MOGN, MODN) that other chunks address by byte offset.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StringBlock {
    pub bytes: Vec<u8>,
}

impl StringBlock {
    /// Builds a block, each name starting at a multiple of `align` (MOTX aligns to 4), with the offsets.
    pub fn from_names(names: &[&str], align: usize) -> (Self, Vec<u32>) {
        let mut bytes = Vec::new();
        let mut offsets = Vec::new();
        for name in names {
            offsets.push(bytes.len() as u32);
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
            while align > 1 && bytes.len() % align != 0 {
                bytes.push(0);
            }
        }
        (Self { bytes }, offsets)
    }

    /// The name starting at `offset`, if the offset lands inside the block.
    pub fn get(&self, offset: u32) -> Option<String> {
        let rest = self.bytes.get(offset as usize..)?;
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        Some(crate::formats::reader::decode_text(&rest[..end]))
    }

    /// Every non-empty name with its offset.
    pub fn entries(&self) -> Vec<(u32, String)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, &b) in self.bytes.iter().enumerate() {
            if b == 0 {
                if i > start {
                    out.push((start as u32, crate::formats::reader::decode_text(&self.bytes[start..i])));
                }
                start = i + 1;
            }
        }
        if start < self.bytes.len() {
            out.push((start as u32, crate::formats::reader::decode_text(&self.bytes[start..])));
        }
        out
    }
}

/// A colour stored as B, G, R, A bytes on disk, held here in that order with named accessors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bgra(pub [u8; 4]);

impl Bgra {
    pub fn rgba(self) -> [u8; 4] {
        let [b, g, r, a] = self.0;
        [r, g, b, a]
    }

    pub fn rgba_f32(self) -> [f32; 4] {
        self.rgba().map(|c| f32::from(c) / 255.0)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct WmoRoot {
    pub version: u32,
    pub header: RootHeader,
    pub textures: StringBlock,
    pub materials: Vec<Material>,
    pub group_names: StringBlock,
    pub group_infos: Vec<GroupInfo>,
    pub skybox: StringBlock,
    pub portal_vertices: Vec<[f32; 3]>,
    pub portals: Vec<Portal>,
    pub portal_refs: Vec<PortalRef>,
    pub visible_block_vertices: Vec<[f32; 3]>,
    pub visible_blocks: Vec<[u16; 2]>,
    pub lights: Vec<Light>,
    pub doodad_sets: Vec<DoodadSet>,
    pub doodad_names: StringBlock,
    pub doodads: Vec<Doodad>,
    pub fogs: Vec<Fog>,
    pub convex_volume_planes: Vec<[f32; 4]>,
    pub warnings: Vec<Warning>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RootHeader {
    /// MOMT entries (older documents call the field nTextures; it counts materials).
    pub material_count: u32,
    pub group_count: u32,
    pub portal_count: u32,
    pub light_count: u32,
    pub doodad_name_count: u32,
    pub doodad_count: u32,
    pub doodad_set_count: u32,
    pub ambient: Bgra,
    pub wmo_id: u32,
    pub bounding_box: [[f32; 3]; 2],
    pub flags: u16,
    pub lod_count: u16,
}

impl RootHeader {
    pub const DO_NOT_ATTENUATE_NEAR_PORTALS: u16 = 0x1;
    pub const UNIFIED_RENDER_PATH: u16 = 0x2;
    pub const LIQUID_TYPE_FROM_DBC: u16 = 0x4;
    pub const DO_NOT_FIX_VERTEX_COLOR_ALPHA: u16 = 0x8;

    pub fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    pub fn flag_names(&self) -> Vec<&'static str> {
        let names = [
            (Self::DO_NOT_ATTENUATE_NEAR_PORTALS, "no portal attenuation"),
            (Self::UNIFIED_RENDER_PATH, "unified render path"),
            (Self::LIQUID_TYPE_FROM_DBC, "liquid type from DBC"),
            (Self::DO_NOT_FIX_VERTEX_COLOR_ALPHA, "no vertex-colour fix"),
        ];
        names.iter().filter(|(bit, _)| self.has(*bit)).map(|(_, n)| *n).collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum BlendMode {
    Opaque,
    AlphaKey,
    Alpha,
    Add,
    Mod,
    Mod2x,
    ModAdd,
    InvSrcAlphaAdd,
    /// Later modes (8–13); drawn as alpha.
    Other(u32),
}

impl BlendMode {
    pub fn from_code(code: u32) -> Self {
        match code {
            0 => Self::Opaque,
            1 => Self::AlphaKey,
            2 => Self::Alpha,
            3 => Self::Add,
            4 => Self::Mod,
            5 => Self::Mod2x,
            6 => Self::ModAdd,
            7 => Self::InvSrcAlphaAdd,
            other => Self::Other(other),
        }
    }

    pub fn code(self) -> u32 {
        match self {
            Self::Opaque => 0,
            Self::AlphaKey => 1,
            Self::Alpha => 2,
            Self::Add => 3,
            Self::Mod => 4,
            Self::Mod2x => 5,
            Self::ModAdd => 6,
            Self::InvSrcAlphaAdd => 7,
            Self::Other(code) => code,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Opaque => "opaque",
            Self::AlphaKey => "alpha key",
            Self::Alpha => "alpha",
            Self::Add => "add",
            Self::Mod => "mod",
            Self::Mod2x => "mod2x",
            Self::ModAdd => "mod add",
            Self::InvSrcAlphaAdd => "inverse source alpha add",
            Self::Other(_) => "unknown (drawn as alpha)",
        }
    }

    /// Blended modes neither write depth nor sort with the opaque pass.
    pub fn writes_depth(self) -> bool {
        matches!(self, Self::Opaque | Self::AlphaKey)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Material {
    pub flags: u32,
    pub shader: u32,
    pub blend_mode: u32,
    /// Byte offset of the first texture's name in MOTX.
    pub texture1: u32,
    pub emissive: Bgra,
    pub emissive_runtime: Bgra,
    pub texture2: u32,
    pub diffuse: Bgra,
    pub ground_type: u32,
    pub texture3: u32,
    pub color2: Bgra,
    pub flags2: u32,
    pub runtime: [u32; 4],
}

impl Material {
    pub const UNLIT: u32 = 0x1;
    pub const UNFOGGED: u32 = 0x2;
    pub const TWO_SIDED: u32 = 0x4;
    pub const EXTERIOR_LIGHT: u32 = 0x8;
    pub const EMISSIVE_AT_NIGHT: u32 = 0x10;
    pub const WINDOW: u32 = 0x20;
    pub const CLAMP_S: u32 = 0x40;
    pub const CLAMP_T: u32 = 0x80;

    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    pub fn two_sided(&self) -> bool {
        self.has(Self::TWO_SIDED)
    }

    pub fn blend(&self) -> BlendMode {
        BlendMode::from_code(self.blend_mode)
    }

    pub fn flag_names(&self) -> Vec<&'static str> {
        let names = [
            (Self::UNLIT, "unlit"),
            (Self::UNFOGGED, "unfogged"),
            (Self::TWO_SIDED, "two-sided"),
            (Self::EXTERIOR_LIGHT, "exterior light"),
            (Self::EMISSIVE_AT_NIGHT, "emissive"),
            (Self::WINDOW, "window"),
            (Self::CLAMP_S, "clamp S"),
            (Self::CLAMP_T, "clamp T"),
        ];
        names.iter().filter(|(bit, _)| self.has(*bit)).map(|(_, n)| *n).collect()
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupInfo {
    pub flags: u32,
    pub bounding_box: [[f32; 3]; 2],
    pub name_offset: i32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Portal {
    pub first_vertex: u16,
    pub vertex_count: u16,
    /// Normal (x, y, z) and distance d, with n·p + d = 0 on the plane.
    pub plane: [f32; 4],
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortalRef {
    pub portal: u16,
    /// The group on the other side.
    pub group: u16,
    pub side: i16,
    pub padding: u16,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Light {
    /// 0 omni, 1 spot, 2 directional, 3 ambient.
    pub kind: u8,
    pub use_attenuation: u8,
    pub padding: [u8; 2],
    pub color: Bgra,
    pub position: [f32; 3],
    pub intensity: f32,
    /// The six floats after the intensity, whose meaning readers disagree on (see the spec).
    pub tail: [f32; 6],
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DoodadSet {
    pub name: String,
    pub first_doodad: u32,
    pub doodad_count: u32,
    pub padding: u32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doodad {
    /// Byte offset of the model name in MODN (bits 0–23 on disk).
    pub name_offset: u32,
    /// Bits 24–31: 0x1 accepts projected textures, 0x2 interior lighting.
    pub flags: u8,
    pub position: [f32; 3],
    /// x, y, z, w (WMO space).
    pub rotation: [f32; 4],
    pub scale: f32,
    pub color: Bgra,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fog {
    pub flags: u32,
    pub position: [f32; 3],
    pub small_radius: f32,
    pub large_radius: f32,
    pub end: f32,
    pub start_multiplier: f32,
    pub color: Bgra,
    pub underwater_end: f32,
    pub underwater_multiplier: f32,
    pub underwater_color: Bgra,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WmoGroup {
    pub version: u32,
    pub header: GroupHeader,
    pub triangle_flags: Vec<u8>,
    /// MOMT index per triangle; 0xFF is collision only.
    pub triangle_materials: Vec<u8>,
    pub indices: Vec<u16>,
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    /// One or two MOTV sets.
    pub uv_sets: Vec<Vec<[f32; 2]>>,
    pub batches: Vec<Batch>,
    pub light_refs: Vec<u16>,
    pub doodad_refs: Vec<u16>,
    pub bsp_nodes: Vec<BspNode>,
    pub bsp_faces: Vec<u16>,
    /// One or two MOCV sets, as stored (BGRA).
    pub color_sets: Vec<Vec<Bgra>>,
    pub liquid: Option<Liquid>,
    pub triangle_strip_indices: Vec<u16>,
    pub triangle_strips: Vec<u16>,
    pub warnings: Vec<Warning>,
}

impl WmoGroup {
    /// A group with its header and no geometry yet.
    pub fn new(version: u32, header: GroupHeader) -> Self {
        Self {
            version,
            header,
            triangle_flags: Vec::new(),
            triangle_materials: Vec::new(),
            indices: Vec::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            uv_sets: Vec::new(),
            batches: Vec::new(),
            light_refs: Vec::new(),
            doodad_refs: Vec::new(),
            bsp_nodes: Vec::new(),
            bsp_faces: Vec::new(),
            color_sets: Vec::new(),
            liquid: None,
            triangle_strip_indices: Vec::new(),
            triangle_strips: Vec::new(),
            warnings: Vec::new(),
        }
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

pub const COLLISION_ONLY_MATERIAL: u8 = 0xFF;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupHeader {
    pub name_offset: u32,
    pub descriptive_name_offset: u32,
    pub flags: u32,
    pub bounding_box: [[f32; 3]; 2],
    pub portal_start: u16,
    pub portal_count: u16,
    pub transparent_batch_count: u16,
    pub interior_batch_count: u16,
    pub exterior_batch_count: u16,
    pub padding: u16,
    pub fog_ids: [u8; 4],
    pub liquid_type: u32,
    pub group_id: u32,
    pub flags2: u32,
    pub unused: u32,
}

impl GroupHeader {
    pub const HAS_BSP: u32 = 0x1;
    pub const HAS_VERTEX_COLORS: u32 = 0x4;
    pub const EXTERIOR: u32 = 0x8;
    pub const EXTERIOR_LIT: u32 = 0x40;
    pub const UNREACHABLE: u32 = 0x80;
    pub const HAS_LIGHTS: u32 = 0x200;
    pub const HAS_DOODADS: u32 = 0x800;
    pub const HAS_LIQUID: u32 = 0x1000;
    pub const INTERIOR: u32 = 0x2000;
    pub const ALWAYS_DRAW: u32 = 0x10000;
    pub const HAS_TRIANGLE_STRIPS: u32 = 0x20000;
    pub const SHOW_SKYBOX: u32 = 0x40000;
    pub const OCEAN: u32 = 0x80000;
    pub const SECOND_COLOR_SET: u32 = 0x100_0000;
    pub const SECOND_UV_SET: u32 = 0x200_0000;
    pub const ANTIPORTAL: u32 = 0x400_0000;

    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    pub fn is_exterior(&self) -> bool {
        self.has(Self::EXTERIOR)
    }

    pub fn flag_names(&self) -> Vec<&'static str> {
        group_flag_names(self.flags)
    }
}

/// MOGP and MOGI share their flag bits.
pub fn group_flag_names(flags: u32) -> Vec<&'static str> {
    let names = [
        (GroupHeader::HAS_BSP, "BSP"),
        (GroupHeader::HAS_VERTEX_COLORS, "vertex colours"),
        (GroupHeader::EXTERIOR, "exterior"),
        (GroupHeader::EXTERIOR_LIT, "exterior lit"),
        (GroupHeader::UNREACHABLE, "unreachable"),
        (GroupHeader::HAS_LIGHTS, "lights"),
        (GroupHeader::HAS_DOODADS, "doodads"),
        (GroupHeader::HAS_LIQUID, "liquid"),
        (GroupHeader::INTERIOR, "interior"),
        (GroupHeader::ALWAYS_DRAW, "always draw"),
        (GroupHeader::HAS_TRIANGLE_STRIPS, "triangle strips"),
        (GroupHeader::SHOW_SKYBOX, "skybox"),
        (GroupHeader::OCEAN, "ocean"),
        (GroupHeader::SECOND_COLOR_SET, "second colour set"),
        (GroupHeader::SECOND_UV_SET, "second UV set"),
        (GroupHeader::ANTIPORTAL, "antiportal"),
    ];
    names.iter().filter(|(bit, _)| flags & bit != 0).map(|(_, n)| *n).collect()
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub bounding_box: [i16; 6],
    pub first_index: u32,
    pub index_count: u16,
    pub first_vertex: u16,
    pub last_vertex: u16,
    pub flags: u8,
    pub material: u8,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BspNode {
    /// 0/1/2 split axis, 4 leaf.
    pub flags: u16,
    pub negative_child: i16,
    pub positive_child: i16,
    pub face_count: u16,
    pub first_face: u32,
    pub distance: f32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Liquid {
    pub vertex_counts: [u32; 2],
    pub tile_counts: [u32; 2],
    pub corner: [f32; 3],
    pub material: u16,
    pub vertices: Vec<LiquidVertex>,
    /// Low 4 bits liquid type; bit 0x8 means no liquid on this tile.
    pub tiles: Vec<u8>,
}

impl Liquid {
    /// Side of one liquid tile, in yards: a map chunk (533.333 / 16) divided in 8.
    pub const TILE_SIZE: f32 = 533.333_3 / 128.0;

    pub fn tile_is_empty(flags: u8) -> bool {
        flags & 0x8 != 0
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiquidVertex {
    /// Flow data (water) or texture coordinates (magma), kept raw.
    pub data: [u8; 4],
    pub height: f32,
}
