//! M2 models (magic MD20, versions 256–274, alone or in the `MD21` container): the static geometry, as
//! `m2.md` lays it out. Little-endian; every header array is a (count, offset) pair into the model's data,
//! checked against its length before anything is read or allocated. From version 264 the views are
//! `NameNN.skin` files ([`parse_skin`]); 256–263 embed them. `docs/m2-versions.md` says what changes
//! after 264.

mod animation;
pub mod chunked;
mod sequence_names;
pub mod track;

pub use animation::{
    Animation, Attachment, Billboard, Bone, Camera, Color, Event, Light, Sequence, TextureTransform, anim_file_name,
};
pub use sequence_names::animation_name;

use super::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use super::reader::Reader;

pub const MAGIC: &[u8; 4] = b"MD20";
pub const SKIN_MAGIC: &[u8; 4] = b"SKIN";
pub const SUPPORTED: &str = "256–274 (MD20, alone or in MD21)";

/// One header array as the file states it: the inspector's counterpart of a chunk.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HeaderArray {
    pub name: &'static str,
    /// Where the (count, offset) pair sits in the header.
    pub header_offset: usize,
    pub count: u32,
    pub offset: u32,
    pub entry_size: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    pub position: [f32; 3],
    pub bone_weights: [u8; 4],
    pub bone_indices: [u8; 4],
    pub normal: [f32; 3],
    pub uv: [[f32; 2]; 2],
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Texture {
    /// 0: the file named here; others are replaceable (skins, capes, monster skins) and have no name.
    pub kind: u32,
    /// 0x1 wrap S, 0x2 wrap T.
    pub flags: u32,
    pub file_name: String,
}

impl Texture {
    pub fn wraps(&self) -> [bool; 2] {
        [self.flags & 0x1 != 0, self.flags & 0x2 != 0]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Material {
    pub flags: u16,
    pub blend_mode: u16,
}

impl Material {
    pub const UNLIT: u16 = 0x01;
    pub const UNFOGGED: u16 = 0x02;
    pub const TWO_SIDED: u16 = 0x04;
    pub const NO_DEPTH_TEST: u16 = 0x08;
    pub const NO_DEPTH_WRITE: u16 = 0x10;
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Submesh {
    pub id: u16,
    pub level: u16,
    pub vertex_start: u16,
    pub vertex_count: u16,
    pub index_start: u16,
    pub index_count: u16,
    pub center: [f32; 3],
}

impl Submesh {
    /// First position in the skin's triangle indices: the level holds bits 16–31.
    pub fn first_index(&self) -> usize {
        usize::from(self.index_start) | (usize::from(self.level) << 16)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureUnit {
    pub flags: u8,
    pub priority_plane: i8,
    pub shader_id: u16,
    pub submesh: u16,
    pub geoset: u16,
    pub color_index: i16,
    pub material: u16,
    pub material_layer: u16,
    pub texture_count: u16,
    pub texture_combo: u16,
    pub coord_combo: u16,
    pub weight_combo: u16,
    pub transform_combo: u16,
}

/// A view: which vertices, in which triangles, grouped into submeshes and drawn by texture units.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skin {
    pub vertex_lookup: Vec<u16>,
    pub triangle_indices: Vec<u16>,
    pub submeshes: Vec<Submesh>,
    pub texture_units: Vec<TextureUnit>,
    pub max_bones: u32,
    pub arrays: Vec<HeaderArray>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct M2Model {
    pub version: u32,
    /// Where the MD20 data starts in the file: 0, or the MD21 chunk's data. Every offset the model
    /// holds (header arrays, warnings) counts from there.
    pub data_offset: usize,
    /// What an MD21 file names by FileDataID (empty for MD20 files).
    pub file_ids: chunked::FileIds,
    pub name: String,
    pub global_flags: u32,
    pub vertices: Vec<Vertex>,
    /// Version 264: how many `.skin` files exist. Earlier versions: the embedded views.
    pub skin_file_count: u32,
    pub embedded_views: Vec<Skin>,
    pub textures: Vec<Texture>,
    pub replaceable_lookup: Vec<i16>,
    pub materials: Vec<Material>,
    pub texture_lookup: Vec<u16>,
    pub texture_unit_lookup: Vec<i16>,
    pub transparency_lookup: Vec<u16>,
    pub bounding_box: [[f32; 3]; 2],
    pub bounding_radius: f32,
    /// Sequences, bones and every animated block.
    pub animation: Animation,
    pub arrays: Vec<HeaderArray>,
    pub warnings: Vec<Warning>,
}

impl M2Model {
    /// The FileDataID an MD21 model names texture `index` by, where the texture has no name of its own.
    pub fn texture_file_data_id(&self, index: usize) -> Option<u32> {
        let texture = self.textures.get(index)?;
        let id =
            (texture.kind == 0 && texture.file_name.is_empty()).then(|| self.file_ids.textures.get(index).copied());
        // 0 names no file.
        id.flatten().filter(|&id| id != 0)
    }

    /// Texture `index` as people read it: its file name, `FileDataID N`, or `replaceable type N`.
    pub fn texture_name(&self, index: usize) -> String {
        let Some(texture) = self.textures.get(index) else { return String::new() };
        match self.texture_file_data_id(index) {
            Some(id) => format!("FileDataID {id}"),
            None if texture.kind != 0 => format!("replaceable type {}", texture.kind),
            None => texture.file_name.clone(),
        }
    }

    /// The view meshes are built from: the embedded view 0 (≤ 263), or `skin_00` from 264.
    pub fn view<'a>(&'a self, skin_00: Option<&'a Skin>) -> Option<&'a Skin> {
        if self.version >= 264 { skin_00 } else { self.embedded_views.first() }
    }
}

/// Header positions that differ between 264 and 256–263 (which add three fields, +0x14).
struct Layout {
    vertices: usize,
    views: usize,
    textures: usize,
    replaceable: usize,
    materials: usize,
    texture_lookup: usize,
    unit_lookup: usize,
    transparency_lookup: usize,
    bounds: usize,
    header_len: usize,
}

const LAYOUT_264: Layout = Layout {
    vertices: 0x3C,
    views: 0x44,
    textures: 0x50,
    replaceable: 0x68,
    materials: 0x70,
    texture_lookup: 0x80,
    unit_lookup: 0x88,
    transparency_lookup: 0x90,
    bounds: 0xA0,
    header_len: 0x130,
};

const LAYOUT_OLD: Layout = Layout {
    vertices: 0x44,
    views: 0x4C,
    textures: 0x5C,
    replaceable: 0x7C,
    materials: 0x84,
    texture_lookup: 0x94,
    unit_lookup: 0x9C,
    transparency_lookup: 0xA4,
    bounds: 0xB4,
    header_len: 0x144,
};

/// Reads the (count, offset) pair at `at` and checks that `count × entry_size` bytes at `offset` lie
/// inside `file`. `base` is where the structure that holds offsets starts (the .m2 or the .skin).
fn header_array(file: &[u8], at: usize, name: &'static str, entry_size: usize) -> Result<HeaderArray> {
    let mut r = Reader::little(file.get(at..).unwrap_or(&[]), at);
    let count = r.u32().within(name)?;
    let offset = r.u32().within(name)?;
    let end = u64::from(offset) + u64::from(count) * entry_size as u64;
    if count > 0 && end > file.len() as u64 {
        return Err(ParseError::new(
            at,
            ErrorKind::Invalid(format!(
                "{count} entries of {entry_size} bytes at offset {offset} end at byte {end}, past the end of the file ({} bytes)",
                file.len()
            )),
        )
        .within(name));
    }
    Ok(HeaderArray { name, header_offset: at, count, offset, entry_size })
}

/// An array the model draws without (names, textures, materials, lookups): one whose entries run past
/// the file is read as empty, with one warning, instead of refusing the model.
fn optional_array(
    file: &[u8],
    at: usize,
    name: &'static str,
    entry_size: usize,
    warnings: &mut Vec<Warning>,
) -> HeaderArray {
    header_array(file, at, name, entry_size).unwrap_or_else(|e| {
        warnings.push(Warning::new(name, e.offset, format!("{}; read as empty", e.kind)));
        HeaderArray { name, header_offset: at, count: 0, offset: 0, entry_size }
    })
}

/// The entries of a checked array, each read by `read` from its own bytes.
fn entries<T>(file: &[u8], array: &HeaderArray, read: impl Fn(&mut Reader<'_>) -> Result<T>) -> Result<Vec<T>> {
    let start = array.offset as usize;
    let mut out = Vec::with_capacity(array.count as usize);
    for i in 0..array.count as usize {
        let at = start + i * array.entry_size;
        let mut r = Reader::little(&file[at..at + array.entry_size], at);
        out.push(read(&mut r).within(array.name)?);
    }
    Ok(out)
}

fn string(file: &[u8], array: &HeaderArray) -> String {
    if array.count == 0 {
        return String::new();
    }
    let start = array.offset as usize;
    let bytes = &file[start..start + array.count as usize];
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Reads a model: MD20, or MD21 (its chunk tree is left out: see [`parse_with_chunks`]).
pub fn parse(file: &[u8]) -> Result<M2Model> {
    parse_with_chunks(file).map(|(_, model)| model)
}

/// Reads a model with its chunk tree (empty for MD20, which has no chunks). Errors and warnings give
/// offsets in the file; the model's own offsets count from [`M2Model::data_offset`].
pub fn parse_with_chunks(file: &[u8]) -> Result<(crate::formats::ChunkTree, M2Model)> {
    if !file.starts_with(b"MD21") {
        return Ok((crate::formats::ChunkTree::default(), parse_md20(file)?));
    }
    let chunks = chunked::read(file)?;
    let base = chunks.md20.start;
    let mut model = parse_md20(&file[chunks.md20.clone()]).map_err(|mut e| {
        e.offset += base;
        e.path = if e.path.is_empty() { "MD21".to_owned() } else { format!("MD21/{}", e.path) };
        e
    })?;
    for warning in &mut model.warnings {
        warning.offset += base;
        warning.path = format!("MD21/{}", warning.path);
    }
    model.warnings.extend(chunks.warnings);
    model.data_offset = base;
    let unnamed_past_txid = model
        .textures
        .iter()
        .enumerate()
        .any(|(i, t)| t.kind == 0 && t.file_name.is_empty() && i >= chunks.file_ids.textures.len());
    if unnamed_past_txid {
        let txid = chunks.tree.root_chunks().find(|c| c.node().id == crate::formats::FourCc::new(b"TXID"));
        model.warnings.push(Warning::new(
            "TXID",
            txid.map_or(base, |c| c.node().offset),
            format!(
                "{} FileDataIDs for {} textures; a texture named by neither is drawn with the placeholder",
                chunks.file_ids.textures.len(),
                model.textures.len()
            ),
        ));
    }
    model.file_ids = chunks.file_ids;
    Ok((chunks.tree, model))
}

fn parse_md20(file: &[u8]) -> Result<M2Model> {
    let magic = file.get(..4).ok_or(ParseError::new(0, ErrorKind::Truncated { needed: 4, available: file.len() }))?;
    if magic != MAGIC {
        return Err(ParseError::new(
            0,
            ErrorKind::BadMagic { expected: "MD20", found: String::from_utf8_lossy(magic).into_owned() },
        )
        .within("header"));
    }
    let version = Reader::little(file.get(4..).unwrap_or(&[]), 4).u32().within("header")?;
    if !(256..=274).contains(&version) {
        return Err(ParseError::new(4, ErrorKind::UnsupportedVersion { what: "M2", version, supported: SUPPORTED })
            .within("header"));
    }
    let layout = if version >= 264 { &LAYOUT_264 } else { &LAYOUT_OLD };
    if file.len() < layout.header_len {
        return Err(ParseError::new(
            file.len(),
            ErrorKind::Truncated { needed: layout.header_len, available: file.len() },
        )
        .within("header"));
    }
    let word = |at: usize| u32::from_le_bytes([file[at], file[at + 1], file[at + 2], file[at + 3]]);
    let mut warnings = Vec::new();
    // The vertices (and the views) are the geometry: those must be readable. The rest is optional.
    let vertices_array = header_array(file, layout.vertices, "vertices", 48)?;
    let name_array = optional_array(file, 0x08, "name", 1, &mut warnings);
    let textures_array = optional_array(file, layout.textures, "textures", 16, &mut warnings);
    let replaceable_array = optional_array(file, layout.replaceable, "replaceable texture lookup", 2, &mut warnings);
    let materials_array = optional_array(file, layout.materials, "materials", 4, &mut warnings);
    let texture_lookup_array = optional_array(file, layout.texture_lookup, "texture lookup", 2, &mut warnings);
    let unit_lookup_array = optional_array(file, layout.unit_lookup, "texture unit lookup", 2, &mut warnings);
    let transparency_array = optional_array(file, layout.transparency_lookup, "transparency lookup", 2, &mut warnings);

    let vertices = entries(file, &vertices_array, |r| {
        let position = r.vec3()?;
        let bone_weights = r.array::<4>()?;
        let bone_indices = r.array::<4>()?;
        let normal = r.vec3()?;
        Ok(Vertex { position, bone_weights, bone_indices, normal, uv: [r.vec2()?, r.vec2()?] })
    })?;
    let texture_entries = entries(file, &textures_array, |r| Ok((r.u32()?, r.u32()?, r.offset())))?;
    let mut textures = Vec::with_capacity(texture_entries.len());
    for (kind, flags, name_at) in texture_entries {
        let name = optional_array(file, name_at, "texture names", 1, &mut warnings);
        textures.push(Texture { kind, flags, file_name: string(file, &name) });
    }
    let i16s = |array: &HeaderArray| entries(file, array, |r| r.i16());
    let u16s = |array: &HeaderArray| entries(file, array, |r| r.u16());
    let materials = entries(file, &materials_array, |r| Ok(Material { flags: r.u16()?, blend_mode: r.u16()? }))?;
    let mut bounds = Reader::little(&file[layout.bounds..layout.bounds + 28], layout.bounds);
    let bounding_box = [bounds.vec3().within("bounding box")?, bounds.vec3().within("bounding box")?];
    let bounding_radius = bounds.f32().within("bounding box")?;

    let mut arrays = vec![name_array.clone(), vertices_array.clone()];
    let (skin_file_count, embedded_views) = if version >= 264 {
        (word(layout.views), Vec::new())
    } else {
        let views_array = header_array(file, layout.views, "views", 44)?;
        arrays.push(views_array.clone());
        let submesh_size = if version >= 260 { 48 } else { 32 };
        let mut views = Vec::new();
        for i in 0..views_array.count as usize {
            views.push(read_view(file, views_array.offset as usize + i * 44, submesh_size)?);
        }
        (0, views)
    };
    arrays.extend([
        textures_array,
        replaceable_array.clone(),
        materials_array,
        texture_lookup_array.clone(),
        unit_lookup_array.clone(),
        transparency_array.clone(),
    ]);
    let animation = animation::read(file, version, &mut arrays, &mut warnings);
    if version >= 264 && skin_file_count == 0 {
        warnings.push(Warning::new("header", layout.views, "the model names no .skin file, so it has nothing to draw"));
    }
    Ok(M2Model {
        version,
        data_offset: 0,
        file_ids: chunked::FileIds::default(),
        name: string(file, &name_array),
        global_flags: word(0x10),
        vertices,
        skin_file_count,
        embedded_views,
        textures,
        replaceable_lookup: i16s(&replaceable_array)?,
        materials,
        texture_lookup: u16s(&texture_lookup_array)?,
        texture_unit_lookup: i16s(&unit_lookup_array)?,
        transparency_lookup: u16s(&transparency_array)?,
        bounding_box,
        bounding_radius,
        animation,
        arrays,
        warnings,
    })
}

/// A `.skin` file (version 264): "SKIN", then the view header with offsets from the file's start.
pub fn parse_skin(file: &[u8]) -> Result<Skin> {
    let magic = file.get(..4).ok_or(ParseError::new(0, ErrorKind::Truncated { needed: 4, available: file.len() }))?;
    if magic != SKIN_MAGIC {
        return Err(ParseError::new(
            0,
            ErrorKind::BadMagic { expected: "SKIN", found: String::from_utf8_lossy(magic).into_owned() },
        )
        .within("skin header"));
    }
    read_view(file, 4, 48)
}

fn read_view(file: &[u8], at: usize, submesh_size: usize) -> Result<Skin> {
    if file.len() < at + 44 {
        return Err(ParseError::new(file.len(), ErrorKind::Truncated { needed: at + 44, available: file.len() })
            .within("view header"));
    }
    let lookup = header_array(file, at, "vertex lookup", 2)?;
    let indices = header_array(file, at + 0x08, "triangle indices", 2)?;
    let palette = header_array(file, at + 0x10, "bone palette", 4)?;
    let submeshes_array = header_array(file, at + 0x18, "submeshes", submesh_size)?;
    let units_array = header_array(file, at + 0x20, "texture units", 24)?;
    let max_bones = u32::from_le_bytes([file[at + 0x28], file[at + 0x29], file[at + 0x2A], file[at + 0x2B]]);
    let u16s = |array: &HeaderArray| entries(file, array, |r| r.u16());
    let submeshes = entries(file, &submeshes_array, |r| {
        let [id, level, vertex_start, vertex_count, index_start, index_count] =
            [r.u16()?, r.u16()?, r.u16()?, r.u16()?, r.u16()?, r.u16()?];
        r.skip(8)?;
        Ok(Submesh { id, level, vertex_start, vertex_count, index_start, index_count, center: r.vec3()? })
    })?;
    let texture_units = entries(file, &units_array, |r| {
        Ok(TextureUnit {
            flags: r.u8()?,
            priority_plane: r.u8()? as i8,
            shader_id: r.u16()?,
            submesh: r.u16()?,
            geoset: r.u16()?,
            color_index: r.i16()?,
            material: r.u16()?,
            material_layer: r.u16()?,
            texture_count: r.u16()?,
            texture_combo: r.u16()?,
            coord_combo: r.u16()?,
            weight_combo: r.u16()?,
            transform_combo: r.u16()?,
        })
    })?;
    if indices.count % 3 != 0 {
        return Err(ParseError::invalid(
            at + 0x08,
            format!("{} triangle indices are not a multiple of 3", indices.count),
        )
        .within("triangle indices"));
    }
    Ok(Skin {
        vertex_lookup: u16s(&lookup)?,
        triangle_indices: u16s(&indices)?,
        submeshes,
        texture_units,
        max_bones,
        arrays: vec![lookup, indices, palette, submeshes_array, units_array],
    })
}

/// The file name of a version-264 model's first skin: `Name00.skin` for `Name.m2`.
pub fn skin_file_name(model_file_name: &str) -> String {
    let stem = model_file_name.rsplit_once('.').map_or(model_file_name, |(stem, _)| stem);
    format!("{stem}00.skin")
}

/// A MODN name (`World\Generic\Barrel.MDX`) → the archive path of its .m2 (`world\generic\barrel.m2`).
pub fn model_file_name(doodad_name: &str) -> String {
    let lower = doodad_name.to_ascii_lowercase();
    match lower.rsplit_once('.') {
        Some((stem, "mdx" | "mdl" | "m2")) => format!("{stem}.m2"),
        _ => lower,
    }
}
