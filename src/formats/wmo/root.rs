//! The root file: header, materials, names, portals, lights, doodads, fog.

use crate::formats::chunk::ChunkTree;
use crate::formats::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use crate::formats::fourcc::FourCc;
use crate::formats::reader::Reader;

use super::model::*;
use super::{check_version, fixed_header, read_bgra, read_box, read_entries, read_vec3s};

pub(super) fn parse_root(bytes: &[u8], tree: &ChunkTree) -> Result<WmoRoot> {
    let version = check_version(bytes, tree)?;
    let mut root = WmoRoot {
        version,
        header: RootHeader::default(),
        textures: StringBlock::default(),
        materials: Vec::new(),
        group_names: StringBlock::default(),
        group_infos: Vec::new(),
        skybox: StringBlock::default(),
        portal_vertices: Vec::new(),
        portals: Vec::new(),
        portal_refs: Vec::new(),
        visible_block_vertices: Vec::new(),
        visible_blocks: Vec::new(),
        lights: Vec::new(),
        doodad_sets: Vec::new(),
        doodad_names: StringBlock::default(),
        doodads: Vec::new(),
        fogs: Vec::new(),
        convex_volume_planes: Vec::new(),
        warnings: Vec::new(),
    };
    let mut seen_header = false;
    for (path, node) in tree.root_paths() {
        let node = node.node();
        let blob = || StringBlock { bytes: node.data(bytes).to_vec() };
        match &node.id.0 {
            b"MOHD" => {
                let header = fixed_header(bytes, node, &path, 64, &mut root.warnings);
                let mut r = Reader::little(&header, node.data_offset());
                root.header = (|| -> Result<RootHeader> {
                    Ok(RootHeader {
                        material_count: r.u32()?,
                        group_count: r.u32()?,
                        portal_count: r.u32()?,
                        light_count: r.u32()?,
                        doodad_name_count: r.u32()?,
                        doodad_count: r.u32()?,
                        doodad_set_count: r.u32()?,
                        ambient: read_bgra(&mut r)?,
                        wmo_id: r.u32()?,
                        bounding_box: read_box(&mut r)?,
                        flags: r.u16()?,
                        lod_count: r.u16()?,
                    })
                })()
                .within(&path)?;
                seen_header = true;
            }
            b"MOTX" => root.textures = blob(),
            b"MOMT" => {
                root.materials = read_entries(bytes, node, &path, 64, &mut root.warnings, |r| {
                    Ok(Material {
                        flags: r.u32()?,
                        shader: r.u32()?,
                        blend_mode: r.u32()?,
                        texture1: r.u32()?,
                        emissive: read_bgra(r)?,
                        emissive_runtime: read_bgra(r)?,
                        texture2: r.u32()?,
                        diffuse: read_bgra(r)?,
                        ground_type: r.u32()?,
                        texture3: r.u32()?,
                        color2: read_bgra(r)?,
                        flags2: r.u32()?,
                        runtime: [r.u32()?, r.u32()?, r.u32()?, r.u32()?],
                    })
                })?
            }
            b"MOGN" => root.group_names = blob(),
            b"MOGI" => {
                root.group_infos = read_entries(bytes, node, &path, 32, &mut root.warnings, |r| {
                    Ok(GroupInfo { flags: r.u32()?, bounding_box: read_box(r)?, name_offset: r.i32()? })
                })?
            }
            b"MOSB" => root.skybox = blob(),
            b"MOPV" => root.portal_vertices = read_vec3s(bytes, node, &path, &mut root.warnings)?,
            b"MOPT" => {
                root.portals = read_entries(bytes, node, &path, 20, &mut root.warnings, |r| {
                    Ok(Portal { first_vertex: r.u16()?, vertex_count: r.u16()?, plane: r.vec4()? })
                })?
            }
            b"MOPR" => {
                root.portal_refs = read_entries(bytes, node, &path, 8, &mut root.warnings, |r| {
                    Ok(PortalRef { portal: r.u16()?, group: r.u16()?, side: r.i16()?, padding: r.u16()? })
                })?
            }
            b"MOVV" => root.visible_block_vertices = read_vec3s(bytes, node, &path, &mut root.warnings)?,
            b"MOVB" => {
                root.visible_blocks =
                    read_entries(bytes, node, &path, 4, &mut root.warnings, |r| Ok([r.u16()?, r.u16()?]))?
            }
            b"MOLT" => {
                root.lights = read_entries(bytes, node, &path, 48, &mut root.warnings, |r| {
                    Ok(Light {
                        kind: r.u8()?,
                        use_attenuation: r.u8()?,
                        padding: r.array::<2>()?,
                        color: read_bgra(r)?,
                        position: r.vec3()?,
                        intensity: r.f32()?,
                        tail: [r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?],
                    })
                })?
            }
            b"MODS" => {
                root.doodad_sets = read_entries(bytes, node, &path, 32, &mut root.warnings, |r| {
                    let name_bytes = r.bytes(20)?;
                    let end = name_bytes.iter().position(|&b| b == 0).unwrap_or(20);
                    Ok(DoodadSet {
                        name: crate::formats::reader::decode_text(&name_bytes[..end]),
                        first_doodad: r.u32()?,
                        doodad_count: r.u32()?,
                        padding: r.u32()?,
                    })
                })?
            }
            b"MODN" => root.doodad_names = blob(),
            b"MODD" => {
                root.doodads = read_entries(bytes, node, &path, 40, &mut root.warnings, |r| {
                    let packed = r.u32()?;
                    Ok(Doodad {
                        name_offset: packed & 0x00FF_FFFF,
                        flags: (packed >> 24) as u8,
                        position: r.vec3()?,
                        rotation: r.vec4()?,
                        scale: r.f32()?,
                        color: read_bgra(r)?,
                    })
                })?
            }
            b"MFOG" => {
                root.fogs = read_entries(bytes, node, &path, 48, &mut root.warnings, |r| {
                    Ok(Fog {
                        flags: r.u32()?,
                        position: r.vec3()?,
                        small_radius: r.f32()?,
                        large_radius: r.f32()?,
                        end: r.f32()?,
                        start_multiplier: r.f32()?,
                        color: read_bgra(r)?,
                        underwater_end: r.f32()?,
                        underwater_multiplier: r.f32()?,
                        underwater_color: read_bgra(r)?,
                    })
                })?
            }
            b"MCVP" => {
                root.convex_volume_planes = read_entries(bytes, node, &path, 16, &mut root.warnings, |r| r.vec4())?
            }
            _ => {}
        }
    }
    if !seen_header {
        return Err(ParseError::new(bytes.len(), ErrorKind::MissingChunk(FourCc::new(b"MOHD"))));
    }
    let present: Vec<FourCc> = tree.root_chunks().map(|n| n.id).collect();
    // Every v17 root the game ships has these, so one missing most likely means a cut-off file.
    let expected: [&[u8; 4]; 15] = [
        b"MOTX", b"MOMT", b"MOGN", b"MOGI", b"MOSB", b"MOPV", b"MOPT", b"MOPR", b"MOVV", b"MOVB", b"MOLT", b"MODS",
        b"MODN", b"MODD", b"MFOG",
    ];
    for id in expected {
        if !present.contains(&FourCc::new(id)) {
            let id = FourCc::new(id);
            root.warnings.push(Warning::new(
                "",
                bytes.len(),
                format!("chunk {id} is missing: the file may be truncated"),
            ));
        }
    }
    let mohd = tree.root_chunks().find(|n| n.id.0 == *b"MOHD").map_or(0, |n| n.data_offset());
    // A count check names the counted chunk's data, or the MOHD field when the chunk is absent.
    let offset_of = |id: &str, field: usize| {
        tree.root_chunks().find(|n| n.id.0 == id.as_bytes()[..4]).map_or(mohd + field, |n| n.data_offset())
    };
    validate(&mut root, &offset_of);
    Ok(root)
}

/// Cross-chunk checks: counts the header promises, and references between chunks. Mismatches are
/// warnings (the data that is there still shows); references out of range are dropped at mesh time.
fn validate(root: &mut WmoRoot, offset_of: &dyn Fn(&str, usize) -> usize) {
    let h = &root.header;
    // (chunk, what, the MOHD field's position, promised, found)
    let checks = [
        ("MOMT", "materials", 0, h.material_count as usize, root.materials.len()),
        ("MOGI", "groups", 4, h.group_count as usize, root.group_infos.len()),
        ("MOPT", "portals", 8, h.portal_count as usize, root.portals.len()),
        ("MOLT", "lights", 12, h.light_count as usize, root.lights.len()),
        ("MODD", "doodads", 20, h.doodad_count as usize, root.doodads.len()),
        ("MODS", "doodad sets", 24, h.doodad_set_count as usize, root.doodad_sets.len()),
    ];
    for (chunk, what, field, promised, found) in checks {
        if promised != found {
            root.warnings.push(Warning::new(
                chunk,
                offset_of(chunk, field),
                format!("MOHD promises {promised} {what}, {chunk} holds {found}"),
            ));
        }
    }
    let portals_at = offset_of("MOPT", 8);
    let sets_at = offset_of("MODS", 24);
    for (i, portal) in root.portals.iter().enumerate() {
        let end = usize::from(portal.first_vertex) + usize::from(portal.vertex_count);
        if end > root.portal_vertices.len() {
            root.warnings.push(Warning::new(
                "MOPT",
                portals_at + 20 * i,
                format!(
                    "portal {i} uses vertices up to {end}, MOPV holds {}; it is not drawn",
                    root.portal_vertices.len()
                ),
            ));
        }
    }
    for (i, set) in root.doodad_sets.iter().enumerate() {
        let end = u64::from(set.first_doodad) + u64::from(set.doodad_count);
        if end > root.doodads.len() as u64 {
            root.warnings.push(Warning::new(
                "MODS",
                sets_at + 32 * i,
                format!("doodad set {i} ({}) runs to doodad {end}, MODD holds {}", set.name, root.doodads.len()),
            ));
        }
    }
}
