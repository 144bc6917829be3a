//! The fields the chunk tree shows for a WMO chunk, read from the root or group it made (the header's
//! counts and flags, each material, group and doodad set): one decoding for the inspector panel and for
//! `--info --json`.

use super::{WmoGroup, WmoRoot, group_flag_names};

/// Adds to `out` the fields of a root file's chunk of kind `id`.
pub(crate) fn root_fields(root: &WmoRoot, id: &str, out: &mut Vec<(String, String)>) {
    let mut push = |k: &str, v: String| out.push((k.to_owned(), v));
    let h = &root.header;
    match id {
        "MVER" => push("version", root.version.to_string()),
        "MOHD" => {
            push("materials", h.material_count.to_string());
            push("groups", h.group_count.to_string());
            push("portals", h.portal_count.to_string());
            push("lights", h.light_count.to_string());
            push("doodad names", h.doodad_name_count.to_string());
            push("doodads", h.doodad_count.to_string());
            push("doodad sets", h.doodad_set_count.to_string());
            push("ambient (RGBA)", format!("{:?}", h.ambient.rgba()));
            push("WMO id", h.wmo_id.to_string());
            push("bounding box", format!("{:?}", h.bounding_box));
            push("flags", format!("0x{:X} {}", h.flags, h.flag_names().join(", ")));
        }
        "MOMT" => {
            for (i, m) in root.materials.iter().enumerate() {
                let texture = root.textures.get(m.texture1).unwrap_or_default();
                push(
                    &format!("material {i}"),
                    format!(
                        "blend {} ({}), flags 0x{:X} [{}], shader {}, {texture}",
                        m.blend_mode,
                        m.blend().name(),
                        m.flags,
                        m.flag_names().join(", "),
                        m.shader
                    ),
                );
            }
        }
        "MOTX" => push(
            "textures",
            root.textures.entries().into_iter().map(|(o, n)| format!("{o}: {n}")).collect::<Vec<_>>().join("; "),
        ),
        "MOGN" => push(
            "names",
            root.group_names.entries().into_iter().map(|(o, n)| format!("{o}: {n}")).collect::<Vec<_>>().join("; "),
        ),
        "MOGI" => {
            for (i, g) in root.group_infos.iter().enumerate() {
                push(
                    &format!("group {i}"),
                    format!("flags 0x{:X} [{}]", g.flags, group_flag_names(g.flags).join(", ")),
                );
            }
        }
        "MODS" => {
            for (i, s) in root.doodad_sets.iter().enumerate() {
                push(
                    &format!("set {i}"),
                    format!("{}: doodads {}..{}", s.name, s.first_doodad, s.first_doodad + s.doodad_count),
                );
            }
        }
        "MODD" => push("doodads", root.doodads.len().to_string()),
        "MOPT" => push("portals", root.portals.len().to_string()),
        "MOPR" => push("portal references", root.portal_refs.len().to_string()),
        "MOLT" => push("lights", root.lights.len().to_string()),
        _ => {}
    }
}

/// Adds to `out` the fields of a group file's chunk of kind `id`.
pub(crate) fn group_fields(group: &WmoGroup, id: &str, out: &mut Vec<(String, String)>) {
    let mut push = |k: &str, v: String| out.push((k.to_owned(), v));
    let h = &group.header;
    match id {
        "MVER" => push("version", group.version.to_string()),
        "MOGP" => {
            push("flags", format!("0x{:X} [{}]", h.flags, h.flag_names().join(", ")));
            push("bounding box", format!("{:?}", h.bounding_box));
            push("portal refs", format!("{} from {}", h.portal_count, h.portal_start));
            push(
                "batches (trans, int, ext)",
                format!("{}, {}, {}", h.transparent_batch_count, h.interior_batch_count, h.exterior_batch_count),
            );
            push("liquid type", h.liquid_type.to_string());
            push("group id", h.group_id.to_string());
        }
        "MOVT" => push("vertices", group.positions.len().to_string()),
        "MOVI" => push("triangles", group.triangle_count().to_string()),
        "MOBA" => push("batches", group.batches.len().to_string()),
        "MLIQ" => {
            if let Some(l) = &group.liquid {
                push("vertices", format!("{} × {}", l.vertex_counts[0], l.vertex_counts[1]));
                push("tiles", format!("{} × {}", l.tile_counts[0], l.tile_counts[1]));
                push("material", l.material.to_string());
            }
        }
        _ => {}
    }
}
