//! A picked triangle in words: the records it was made from, decoded, as the panel and the control
//! hook show them.

use crate::formats::Model;
use crate::formats::wmo::COLLISION_ONLY_MATERIAL;

use super::provenance::TriangleOrigin;
use super::{RecordKind, Scene, file_name};

/// What a triangle is and where it lives in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct TriangleDescription {
    pub origin: TriangleOrigin,
    /// One line: the file, the part and the record (`courtyard_001.wmo · batch 2 · triangle 37`).
    pub heading: String,
    /// Decoded fields, in the order a person reads them.
    pub fields: Vec<(String, String)>,
}

/// The names of a MOPY entry's flag bits (`wmo.md` §MOPY).
pub fn mopy_flag_names(flags: u8) -> Vec<&'static str> {
    const NAMES: [&str; 8] =
        ["transition", "no camera collision", "detail", "collision", "hint", "render", "cull objects", "collide hit"];
    (0..8).filter(|bit| flags & (1 << bit) != 0).map(|bit| NAMES[bit]).collect()
}

fn vector<const N: usize>(v: [f32; N]) -> String {
    let parts: Vec<String> = v.iter().map(|c| format!("{c:.3}")).collect();
    format!("({})", parts.join(", "))
}

impl Scene {
    /// The WMO doodad of MODD entry `modd` as the panel lists it (the first set that places it).
    pub fn doodad_of_modd(&self, modd: usize) -> Option<&super::DoodadInfo> {
        let Some(Model::WmoRoot(root)) = self.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model)
        else {
            return None;
        };
        let mut listed = 0;
        for (s, set) in root.doodad_sets.iter().enumerate() {
            let start = set.first_doodad as usize;
            let end = (start + set.doodad_count as usize).min(root.doodads.len());
            let range = start.min(end)..end;
            if range.contains(&modd) {
                return self.doodads.get(listed + modd - range.start).filter(|d| d.set == s as u32);
            }
            listed += range.len();
        }
        None
    }

    /// The records behind `triangle` of mesh `mesh`, decoded.
    pub fn describe_triangle(&self, mesh: usize, triangle: usize) -> Option<TriangleDescription> {
        let origin = self.triangle_origin(mesh, triangle)?;
        let source = self.meshes[mesh].source?;
        let file = &self.files[source.file];
        let mut fields = Vec::new();
        let mut field = |name: &str, value: String| fields.push((name.to_owned(), value));
        let heading = match source.kind {
            RecordKind::WmoTriangle { group: group_index, batch } => {
                let Model::WmoGroup(group) = &file.document.as_deref()?.model else { return None };
                let t = origin.record as usize;
                let (flags, material) =
                    (group.triangle_flags.get(t).copied()?, group.triangle_materials.get(t).copied()?);
                field("group", format!("{group_index} ({})", file_name(&file.path)));
                field("batch", batch.map_or("none: collision only".to_owned(), |b| b.to_string()));
                field("triangle", format!("{t} (MOPY entry at byte {})", origin.bytes.start));
                field("MOPY flags", format!("0x{flags:02X} {}", mopy_flag_names(flags).join(", ")));
                field("collision only", (material == COLLISION_ONLY_MATERIAL).to_string());
                for k in 0..3 {
                    let Some(&v) = group.indices.get(3 * t + k) else { continue };
                    let v = usize::from(v);
                    let mut value = format!("vertex {v}");
                    if let Some(p) = group.positions.get(v) {
                        value.push_str(&format!(", MOVT {}", vector(*p)));
                    }
                    if let Some(n) = group.normals.get(v) {
                        value.push_str(&format!(", MONR {}", vector(*n)));
                    }
                    for (s, uvs) in group.uv_sets.iter().enumerate() {
                        if let Some(uv) = uvs.get(v) {
                            value.push_str(&format!(
                                ", MOTV{} {}",
                                if s == 0 { String::new() } else { format!("[{s}]") },
                                vector(*uv)
                            ));
                        }
                    }
                    for (s, colors) in group.color_sets.iter().enumerate() {
                        if let Some(c) = colors.get(v) {
                            value.push_str(&format!(
                                ", MOCV{} {:?}",
                                if s == 0 { String::new() } else { format!("[{s}]") },
                                c.rgba()
                            ));
                        }
                    }
                    field(&format!("MOVI {}", 3 * t + k), value);
                }
                let root = self.files.first().and_then(|f| match f.document.as_deref().map(|d| &d.model) {
                    Some(Model::WmoRoot(root)) => Some(root),
                    _ => None,
                });
                if material != COLLISION_ONLY_MATERIAL {
                    match root.and_then(|r| r.materials.get(usize::from(material)).map(|m| (r, m))) {
                        Some((root, m)) => {
                            let blend = m.blend();
                            // The second and third offsets are 0 where a material has no such texture.
                            let extra = [m.texture2, m.texture3].into_iter().filter(|&t| t != 0);
                            let textures: Vec<String> = std::iter::once(m.texture1)
                                .chain(extra)
                                .filter_map(|t| root.textures.get(t))
                                .filter(|n| !n.is_empty())
                                .collect();
                            field(
                                "material",
                                format!(
                                    "MOMT {material}: blend {} ({}), flags 0x{:X} {}",
                                    blend.code(),
                                    blend.name(),
                                    m.flags,
                                    m.flag_names().join(", ")
                                ),
                            );
                            field("textures", if textures.is_empty() { "none".into() } else { textures.join(", ") });
                        }
                        None => field("material", format!("MOMT {material} (no root material)")),
                    }
                }
                format!(
                    "{} · {} · triangle {t}",
                    file_name(&file.path),
                    batch.map_or("collision".to_owned(), |b| format!("batch {b}"))
                )
            }
            RecordKind::M2SkinTriangle { model: model_file, unit, submesh, .. } => {
                let Model::M2(model) = &self.files.get(model_file)?.document.as_deref()?.model else { return None };
                let skin = crate::formats::m2::parse_skin(&file.bytes).ok();
                let view = model.view(skin.as_ref())?;
                let t = origin.record as usize;
                field("submesh", format!("{submesh} (geoset {})", view.submeshes.get(submesh).map_or(0, |s| s.id)));
                field("texture unit", unit.to_string());
                field(
                    "triangle",
                    format!("{t} in {} (bytes {}..{})", file_name(&file.path), origin.bytes.start, origin.bytes.end),
                );
                for k in 0..3 {
                    let Some(&lookup) = view.triangle_indices.get(3 * t + k) else { continue };
                    let Some(&v) = view.vertex_lookup.get(usize::from(lookup)) else { continue };
                    let Some(vertex) = model.vertices.get(usize::from(v)) else { continue };
                    // The bones that move the corner, with their share (weights are out of 255).
                    let bones: Vec<String> = (0..4)
                        .filter(|&b| vertex.bone_weights[b] > 0)
                        .map(|b| {
                            let share = f32::from(vertex.bone_weights[b]) / 2.55;
                            format!("bone {} {share:.0}%", vertex.bone_indices[b])
                        })
                        .collect();
                    let bones = if bones.is_empty() { "no bone".to_owned() } else { bones.join(", ") };
                    field(
                        &format!("corner {k}"),
                        format!("vertex {v} (lookup {lookup}), position {}, {bones}", vector(vertex.position)),
                    );
                }
                format!("{} · unit {unit} · triangle {t}", file_name(&self.files[model_file].path))
            }
            RecordKind::LwoPolygon { layer } => {
                let polygon = *self.meshes[mesh].data.triangle_records.get(triangle)? as usize;
                self.describe_lightwave(file, layer, polygon, &origin, &mut field)?
            }
        };
        Some(TriangleDescription { origin, heading, fields })
    }
}

impl Scene {
    /// A LightWave polygon: layer, POLS record, type and flags, corners, surface, maps.
    fn describe_lightwave(
        &self,
        file: &super::SceneFile,
        layer_index: usize,
        polygon: usize,
        origin: &TriangleOrigin,
        field: &mut impl FnMut(&str, String),
    ) -> Option<String> {
        let Model::Lwo(object) = &file.document.as_deref()?.model else { return None };
        let layer = object.layers.get(layer_index)?;
        let polygons = &layer.polygons;
        // `polygon` counts polygons in the layer; the origin's record, in their chunk.
        if polygon >= polygons.len() {
            return None;
        }
        let name = if layer.name.is_empty() { String::new() } else { format!(" \"{}\"", layer.name) };
        field("layer", format!("{}{name} (layer {layer_index} of the file)", layer.number));
        field(
            "polygon",
            format!("{} in {} (bytes {}..{})", origin.record, origin.chunk_path, origin.bytes.start, origin.bytes.end),
        );
        field("type", format!("{:?}, flags 0x{:X}", polygons.kind()[polygon], polygons.flags()[polygon]));
        let surface = polygons.surface().get(polygon);
        let surface_name = object.surfaces.get(surface as usize).map_or("(none)", |s| s.name.as_str());
        field("surface", format!("{surface_name} (PTAG SURF tag {surface})"));
        field("smoothing group", polygons.smoothing_group()[polygon].to_string());
        for (k, &v) in polygons.vertices(polygon).iter().enumerate() {
            let mut value = format!("point {v}");
            if let Some(position) = layer.points.get(v as usize) {
                value.push_str(&format!(" {}", vector(*position)));
            }
            // Each map's value at the corner: the VMAD entry for this polygon where one exists, else the VMAP's.
            for map in layer.vertex_maps.iter().filter(|m| matches!(&m.kind.0, b"TXUV" | b"RGB " | b"RGBA")) {
                let entry = if map.discontinuous {
                    map.points.iter().zip(&map.polygons).position(|(pt, &poly)| pt == v && poly as usize == polygon)
                } else {
                    map.points.iter().position(|pt| pt == v)
                };
                if let Some(entry) = entry {
                    let kind = if map.discontinuous { "VMAD" } else { "VMAP" };
                    let values: Vec<String> = map.value(entry).iter().map(|c| format!("{c:.3}")).collect();
                    value.push_str(&format!(", {kind} {} \"{}\" ({})", map.kind, map.name, values.join(", ")));
                }
            }
            field(&format!("corner {k}"), value);
        }
        Some(format!("{} · layer {} · polygon {}", file_name(&file.path), layer.number, origin.record))
    }
}
