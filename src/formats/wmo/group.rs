//! A group file: MVER, then one MOGP whose 68-byte header is followed by the geometry sub-chunks.

use crate::formats::chunk::{ChunkId, ChunkRef, ChunkTree};
use crate::formats::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use crate::formats::fourcc::FourCc;
use crate::formats::reader::{Endian, Reader};

use super::model::*;
use super::{check_version, decode_entries, read_bgras, read_box, read_entries, read_u16s, read_vec2s, read_vec3s};

pub const MOGP_HEADER_SIZE: usize = 68;
const LIQUID_HEADER_SIZE: usize = 30;

/// A group file's MOGP: the chunk holding the group's geometry chunks.
fn group_chunk(tree: &ChunkTree) -> Option<ChunkRef<'_>> {
    tree.root_chunks().find(|n| n.id.0 == *b"MOGP")
}

/// The MOPY chunk of a group file's tree: the one [`WmoGroup::triangle_flags`] and
/// [`WmoGroup::triangle_materials`] were read from, so the last inside MOGP (a later MOPY replaces an
/// earlier one).
pub fn triangle_chunk(tree: &ChunkTree) -> Option<ChunkId> {
    group_chunk(tree)?.children().filter(|n| n.id.0 == *b"MOPY").last().map(|n| n.chunk)
}

pub(super) fn parse_group(bytes: &[u8], tree: &ChunkTree) -> Result<WmoGroup> {
    let version = check_version(bytes, tree)?;
    let mogp =
        group_chunk(tree).ok_or_else(|| ParseError::new(bytes.len(), ErrorKind::MissingChunk(FourCc::new(b"MOGP"))))?;
    let header = read_header(&mut mogp.reader(bytes, Endian::Little)).within("MOGP")?;
    let mut group = WmoGroup::new(version, header);
    for (path, node) in mogp.child_paths("MOGP") {
        let node = node.node();
        match &node.id.0 {
            b"MOPY" => {
                let pairs = decode_entries(bytes, node, &path, &mut group.warnings, |[flags, material]: [u8; 2]| {
                    (flags, material)
                })?;
                (group.triangle_flags, group.triangle_materials) = pairs.into_iter().unzip();
            }
            b"MOVI" => group.indices = read_u16s(bytes, node, &path, &mut group.warnings)?,
            b"MOVT" => group.positions = read_vec3s(bytes, node, &path, &mut group.warnings)?,
            b"MONR" => group.normals = read_vec3s(bytes, node, &path, &mut group.warnings)?,
            b"MOTV" => group.uv_sets.push(read_vec2s(bytes, node, &path, &mut group.warnings)?),
            b"MOBA" => {
                group.batches = read_entries(bytes, node, &path, 24, &mut group.warnings, |r| {
                    Ok(Batch {
                        bounding_box: [r.i16()?, r.i16()?, r.i16()?, r.i16()?, r.i16()?, r.i16()?],
                        first_index: r.u32()?,
                        index_count: r.u16()?,
                        first_vertex: r.u16()?,
                        last_vertex: r.u16()?,
                        flags: r.u8()?,
                        material: r.u8()?,
                    })
                })?
            }
            b"MOLR" => group.light_refs = read_u16s(bytes, node, &path, &mut group.warnings)?,
            b"MODR" => group.doodad_refs = read_u16s(bytes, node, &path, &mut group.warnings)?,
            b"MOBN" => {
                group.bsp_nodes = read_entries(bytes, node, &path, 16, &mut group.warnings, |r| {
                    Ok(BspNode {
                        flags: r.u16()?,
                        negative_child: r.i16()?,
                        positive_child: r.i16()?,
                        face_count: r.u16()?,
                        first_face: r.u32()?,
                        distance: r.f32()?,
                    })
                })?
            }
            b"MOBR" => group.bsp_faces = read_u16s(bytes, node, &path, &mut group.warnings)?,
            b"MOCV" => group.color_sets.push(read_bgras(bytes, node, &path, &mut group.warnings)?),
            // The liquid is an overlay: one that cannot be read is left out, the group still opens.
            b"MLIQ" => match read_liquid(&mut node.reader(bytes, Endian::Little)).within(&path) {
                Ok(liquid) => group.liquid = Some(liquid),
                Err(e) => group.warnings.push(Warning::new(
                    path.clone(),
                    e.offset,
                    format!("{}; the liquid is not shown", e.kind),
                )),
            },
            b"MORI" => group.triangle_strip_indices = read_u16s(bytes, node, &path, &mut group.warnings)?,
            b"MORB" => group.triangle_strips = read_u16s(bytes, node, &path, &mut group.warnings)?,
            _ => {}
        }
    }
    // A check names the data of the chunk it is about, or MOGP's when that chunk is absent.
    let offset_of = |id: &str| {
        mogp.children().find(|n| n.id.0 == id.as_bytes()[..4]).map_or(mogp.data_offset(), |n| n.data_offset())
    };
    validate(&mut group, &offset_of);
    Ok(group)
}

fn read_header(r: &mut Reader<'_>) -> Result<GroupHeader> {
    Ok(GroupHeader {
        name_offset: r.u32()?,
        descriptive_name_offset: r.u32()?,
        flags: r.u32()?,
        bounding_box: read_box(r)?,
        portal_start: r.u16()?,
        portal_count: r.u16()?,
        transparent_batch_count: r.u16()?,
        interior_batch_count: r.u16()?,
        exterior_batch_count: r.u16()?,
        padding: r.u16()?,
        fog_ids: r.array::<4>()?,
        liquid_type: r.u32()?,
        group_id: r.u32()?,
        flags2: r.u32()?,
        unused: r.u32()?,
    })
}

fn read_liquid(r: &mut Reader<'_>) -> Result<Liquid> {
    if r.remaining() < LIQUID_HEADER_SIZE {
        return Err(r.truncated(LIQUID_HEADER_SIZE));
    }
    let vertex_counts = [r.u32()?, r.u32()?];
    let tile_counts = [r.u32()?, r.u32()?];
    let corner = r.vec3()?;
    let material = r.u16()?;
    let grid = |counts: [u32; 2], entry: u64, r: &Reader<'_>| -> Result<usize> {
        let n = u64::from(counts[0]) * u64::from(counts[1]);
        match n.checked_mul(entry) {
            Some(size) if size <= r.remaining() as u64 => Ok(n as usize),
            _ => Err(ParseError::invalid(
                r.offset(),
                format!(
                    "{} × {} entries of {entry} bytes do not fit in the {} bytes left",
                    counts[0],
                    counts[1],
                    r.remaining()
                ),
            )),
        }
    };
    let vertex_count = grid(vertex_counts, 8, r)?;
    let mut vertices = Vec::with_capacity(vertex_count);
    for _ in 0..vertex_count {
        vertices.push(LiquidVertex { data: r.array::<4>()?, height: r.f32()? });
    }
    let tile_count = grid(tile_counts, 1, r)?;
    let tiles = r.bytes(tile_count)?.to_vec();
    Ok(Liquid { vertex_counts, tile_counts, corner, material, vertices, tiles })
}

/// Cross-chunk checks inside a group. Triangles and batches that point outside their arrays are kept in
/// the model, as the file has them, and left out when meshes are built; each kind is reported once here.
fn validate(group: &mut WmoGroup, offset_of: &dyn Fn(&str) -> usize) {
    let triangle_count = group.triangle_count();
    let mut found = Vec::new();
    let mut warn = |path: &str, message: String| {
        let chunk = path.rsplit('/').next().unwrap_or(path);
        found.push(Warning::new(path, offset_of(chunk), message));
    };
    if !group.indices.len().is_multiple_of(3) {
        warn("MOGP/MOVI", format!("{} indices are not a whole number of triangles", group.indices.len()));
    }
    let vertex_count = group.positions.len();
    let bad = group.indices.iter().filter(|&&i| usize::from(i) >= vertex_count).count();
    if bad > 0 {
        warn(
            "MOGP/MOVI",
            format!("{bad} indices point past the {vertex_count} vertices of MOVT; their triangles are dropped"),
        );
    }
    if !group.triangle_materials.is_empty() && group.triangle_materials.len() != triangle_count {
        warn("MOGP/MOPY", format!("MOPY has {} triangles, MOVI {}", group.triangle_materials.len(), triangle_count));
    }
    if !group.normals.is_empty() && group.normals.len() != vertex_count {
        warn(
            "MOGP/MONR",
            format!("MONR has {} normals for {vertex_count} vertices; normals are computed", group.normals.len()),
        );
    }
    for (i, uvs) in group.uv_sets.iter().enumerate() {
        if uvs.len() != vertex_count {
            warn(
                "MOGP/MOTV",
                format!("UV set {i} has {} entries for {vertex_count} vertices; it is ignored", uvs.len()),
            );
        }
    }
    for (i, colors) in group.color_sets.iter().enumerate() {
        if colors.len() != vertex_count {
            warn(
                "MOGP/MOCV",
                format!("colour set {i} has {} entries for {vertex_count} vertices; it is ignored", colors.len()),
            );
        }
    }
    let h = &group.header;
    let promised = usize::from(h.transparent_batch_count)
        + usize::from(h.interior_batch_count)
        + usize::from(h.exterior_batch_count);
    if promised != group.batches.len() {
        warn("MOGP", format!("the header counts {promised} batches, MOBA holds {}", group.batches.len()));
    }
    let index_count = group.indices.len() as u64;
    for (i, batch) in group.batches.iter().enumerate() {
        let end = u64::from(batch.first_index) + u64::from(batch.index_count);
        if end > index_count {
            warn("MOGP/MOBA", format!("batch {i} uses indices up to {end}, MOVI holds {index_count}; it is not drawn"));
        }
    }
    group.warnings.extend(found);
}
