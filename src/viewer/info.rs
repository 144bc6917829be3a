//! `--info`: the format, the chunk tree and a summary, as text or as one JSON object.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::formats::lwo::LwoObject;
use crate::formats::m2::{self, M2Model};
use crate::formats::wmo::{WmoGroup, WmoRoot};
use crate::formats::{ChunkRef, Document, Model};
use crate::mesh;
use crate::scene::FileError;
use crate::source::FileSource;

/// Everything `--info` reports about one file.
pub struct Info {
    pub document: Document,
    /// The file's bytes, which the chunk tree's decoded fields are read from.
    pub bytes: Arc<[u8]>,
    pub summary: Map<String, Value>,
    pub warnings: Vec<String>,
}

/// Everything about a file on disk.
pub fn gather(path: &Path) -> Result<Info, FileError> {
    let (folder, relative) = crate::source::LooseFolder::containing(path);
    gather_in(&folder, &relative, crate::scene::Lookup::default())
}

/// Everything about the file at `path` in `source` (its groups and skins read from the same source;
/// an MD21 model's skin through `lookup`'s listfile, in its game data or the data root above the file).
pub fn gather_in(source: &dyn FileSource, path: &str, lookup: crate::scene::Lookup<'_>) -> Result<Info, FileError> {
    let file = crate::scene::read_file(source, path)?;
    let display_path = file.display_path.clone();
    let bytes = file.bytes.clone();
    let Some(document) = file.document.map(Arc::unwrap_or_clone) else {
        return Err(FileError::Unsupported {
            file: display_path.into(),
            message: "not a model this viewer builds".into(),
        });
    };
    let mut warnings: Vec<String> = document.warnings().iter().map(ToString::to_string).collect();
    let summary = match &document.model {
        Model::Lwo(object) => {
            // A LightWave warning names the file too, as its errors do (`file: path at byte …: …`).
            warnings = warnings.into_iter().map(|w| format!("{display_path}: {w}")).collect();
            lwo_summary(object)
        }
        Model::WmoRoot(root) => {
            let mut groups = Vec::new();
            for (i, found) in
                crate::scene::find_group_files(source, path, root.group_infos.len()).into_iter().enumerate()
            {
                let read = found
                    .map_err(|missing| format!("group {i}: {} is missing", missing.name))
                    .and_then(|p| crate::scene::read_file(source, &p).map_err(|e| e.to_string()));
                match read.map(|f| f.document.map(Arc::unwrap_or_clone)) {
                    Ok(Some(Document { model: Model::WmoGroup(g), .. })) => {
                        warnings.extend(g.warnings.iter().map(|w| format!("group {i}: {w}")));
                        groups.push(g);
                    }
                    Ok(_) => warnings.push(format!("group {i}: not a WMO group file")),
                    Err(e) => warnings.push(e),
                }
            }
            wmo_summary(Some(root), &groups)
        }
        Model::WmoGroup(group) => {
            warnings.push("a group file opened alone: materials, portals and doodads live in the root".into());
            wmo_summary(None, std::slice::from_ref(group))
        }
        Model::M2(model) => m2_summary(source, path, model, lookup, &mut warnings),
        Model::Blp(blp) => {
            // The header alone may be sound while the pixels are not: a texture that does not decode is
            // refused here as it is in the window.
            if let Err(e) = crate::formats::blp::decode(&bytes) {
                return Err(FileError::parse(display_path, e.into()));
            }
            blp_summary(blp)
        }
    };
    Ok(Info { document, bytes, summary, warnings })
}

/// The model and its view (embedded view 0, or for version 264 `Name00.skin` beside the file, else the
/// lowest-numbered skin there).
fn m2_summary(
    source: &dyn FileSource,
    path: &str,
    model: &M2Model,
    lookup: crate::scene::Lookup<'_>,
    warnings: &mut Vec<String>,
) -> Map<String, Value> {
    let mut notes = Vec::new();
    let found_root = lookup.data.is_none().then(|| crate::scene::find_data_root(source, path)).flatten();
    let data = lookup.data.or(found_root.as_ref().map(|d| d as &dyn FileSource));
    let skin = crate::scene::read_skin_beside(source, path, model, crate::scene::Lookup { data, ..lookup }, &mut notes)
        .map(|found| found.map(|(_, skin)| skin))
        .unwrap_or_else(|e| {
            warnings.push(format!("{e}: no submeshes or triangles to count"));
            None
        });
    warnings.extend(notes.iter().map(ToString::to_string));
    let view = model.view(skin.as_ref());
    let meshes = view.map(|v| mesh::m2::build(model, v, mesh::m2::Geosets::All, false));
    let mut out = Map::new();
    out.insert("version".into(), json!(model.version));
    out.insert("name".into(), json!(model.name));
    out.insert("vertices".into(), json!(model.vertices.len()));
    out.insert("triangles".into(), json!(meshes.as_ref().map_or(0, |m| m.triangles)));
    out.insert("draw_passes".into(), json!(meshes.as_ref().map_or(0, |m| m.draw_passes)));
    out.insert("submeshes".into(), json!(view.map_or(0, |v| v.submeshes.len())));
    out.insert("texture_units".into(), json!(view.map_or(0, |v| v.texture_units.len())));
    // An MD21 model's texture by the path the listfile gives its number, as the window finds it.
    let texture_names: Vec<String> = (0..model.textures.len())
        .map(|t| match model.texture_file_data_id(t).and_then(|id| lookup.listfile?.path(id)) {
            Some(path) => path.to_owned(),
            None => model.texture_name(t),
        })
        .collect();
    out.insert("textures".into(), json!(texture_names));
    out.insert(
        "materials".into(),
        json!(model
            .materials
            .iter()
            .map(|m| json!({ "render_flags": m.flags, "render_flag_names": crate::scene::material::m2_flag_names(m.flags), "blend_mode": m.blend_mode, "blend_mode_name": crate::scene::material::m2_blend_name(m.blend_mode) }))
            .collect::<Vec<_>>()),
    );
    let animation = &model.animation;
    out.insert(
        "sequences".into(),
        json!(
            animation
                .sequences
                .iter()
                .map(|s| json!({
                    "id": s.id,
                    "name": m2::animation_name(s.id),
                    "variation": s.variation,
                    "duration_ms": s.duration_ms,
                    "flags": s.flags,
                    "in_anim_file": s.in_anim_file,
                }))
                .collect::<Vec<_>>()
        ),
    );
    out.insert("bones".into(), json!(animation.bones.len()));
    out.insert("global_sequences".into(), json!(animation.global_loops.len()));
    out.insert("texture_transforms".into(), json!(animation.texture_transforms.len()));
    out.insert("colors".into(), json!(animation.colors.len()));
    out.insert("texture_weights".into(), json!(animation.texture_weights.len()));
    out.insert("particle_emitters".into(), json!(animation.particle_emitters));
    out.insert("ribbon_emitters".into(), json!(animation.ribbon_emitters));
    let arrays: Vec<&m2::HeaderArray> = model.arrays.iter().chain(skin.iter().flat_map(|s| s.arrays.iter())).collect();
    out.insert(
        "header_arrays".into(),
        json!(
            arrays
                .iter()
                .map(|a| json!({ "name": a.name, "count": a.count, "offset": a.offset, "entry_size": a.entry_size }))
                .collect::<Vec<_>>()
        ),
    );
    if model.data_offset != 0 {
        // MD21: the arrays' offsets count from the MD20 data inside the MD21 chunk.
        out.insert("md20_offset".into(), json!(model.data_offset));
        out.insert("file_ids".into(), json!(model.file_ids));
    }
    out
}

fn lwo_summary(object: &LwoObject) -> Map<String, Value> {
    let mut uv = BTreeSet::new();
    let mut colors = BTreeSet::new();
    for layer in &object.layers {
        for m in &layer.vertex_maps {
            if m.is_uv() {
                uv.insert(m.name.clone());
            } else if m.is_color() {
                colors.insert(m.name.clone());
            }
        }
    }
    let mut out = Map::new();
    out.insert("layers".into(), json!(object.layers.len()));
    out.insert("points".into(), json!(object.point_count()));
    out.insert("polygons".into(), json!(object.polygon_count()));
    out.insert("triangles".into(), json!(mesh::lwo::triangle_count(object)));
    out.insert("surfaces".into(), json!(object.surfaces.len()));
    out.insert("uv_maps".into(), json!(uv.len()));
    out.insert("vertex_color_maps".into(), json!(colors.len()));
    out.insert("clips".into(), json!(object.clips.len()));
    out.insert("materials".into(), Value::Array(object.surfaces.iter().map(|s| lwo_material(s, object)).collect()));
    let morphs: Vec<&str> = object.layers.iter().flat_map(|l| l.morphs()).map(|m| m.name).collect();
    out.insert("morphs".into(), json!(morphs));
    out
}

/// One surface as the renderer will draw it: evaluated from its nodes, or from its basic parameters.
fn lwo_material(surface: &crate::formats::lwo::Surface, object: &LwoObject) -> Value {
    use crate::formats::lwo::shading::{ShadingSource, TextureSlot};
    let shading = crate::formats::lwo::shading(surface, object);
    let texture = |slot| shading.texture(slot).and_then(|t| t.file.clone());
    json!({
        "name": surface.name,
        "source": match shading.source { ShadingSource::Nodes => "nodes", ShadingSource::Basic => "basic" },
        "base_color": shading.base_color,
        "metallic": shading.metallic,
        "roughness": shading.roughness,
        "emissive": shading.emissive,
        "alpha": shading.alpha,
        "double_sided": shading.double_sided,
        "base_color_texture": texture(TextureSlot::BaseColor),
        "normal_map_texture": texture(TextureSlot::Normal),
    })
}

fn wmo_summary(root: Option<&WmoRoot>, groups: &[WmoGroup]) -> Map<String, Value> {
    let mut vertices = 0;
    let mut triangles = 0;
    let mut collision = 0;
    let mut batches = 0;
    let mut liquids = 0;
    for g in groups {
        let built = mesh::wmo::build_group(g, root);
        vertices += g.positions.len();
        triangles += built.rendered_triangles;
        collision += built.collision_triangles;
        batches += g.batches.len();
        liquids += usize::from(g.liquid.is_some());
    }
    let mut out = Map::new();
    out.insert("version".into(), json!(root.map_or_else(|| groups.first().map_or(0, |g| g.version), |r| r.version)));
    out.insert("groups".into(), json!(root.map_or(groups.len(), |r| r.group_infos.len())));
    out.insert("groups_loaded".into(), json!(groups.len()));
    out.insert("vertices".into(), json!(vertices));
    out.insert("triangles".into(), json!(triangles));
    out.insert("collision_triangles".into(), json!(collision));
    out.insert("batches".into(), json!(batches));
    out.insert("liquids".into(), json!(liquids));
    let Some(root) = root else {
        return out;
    };
    let textures: BTreeSet<String> =
        root.materials.iter().filter_map(|m| root.textures.get(m.texture1)).filter(|n| !n.is_empty()).collect();
    out.insert("textures".into(), json!(textures.len()));
    out.insert("doodads".into(), json!(root.doodads.len()));
    out.insert("doodad_sets".into(), json!(root.doodad_sets.len()));
    out.insert("portals".into(), json!(root.portals.len()));
    out.insert("lights".into(), json!(root.lights.len()));
    let materials: Vec<Value> = root
        .materials
        .iter()
        .map(|m| {
            json!({
                "blend_mode": m.blend_mode,
                "blend_mode_name": m.blend().name(),
                "two_sided": m.two_sided(),
                "flags": m.flags,
                "texture": root.textures.get(m.texture1).unwrap_or_default(),
            })
        })
        .collect();
    out.insert("materials".into(), Value::Array(materials));
    out
}

/// A texture's header values, as `--info` reports them (`format` says BLP1 or BLP2).
fn blp_summary(blp: &crate::formats::blp::BlpInfo) -> Map<String, Value> {
    match serde_json::to_value(blp) {
        Ok(Value::Object(values)) => values,
        _ => Map::new(),
    }
}

pub fn to_json(path: &Path, info: &Info) -> Value {
    let mut object = Map::new();
    object.insert("file".into(), json!(path.display().to_string()));
    object.insert("format".into(), json!(info.document.format.name()));
    object
        .insert("chunks".into(), serde_json::to_value(info.document.nested_chunks(&info.bytes)).unwrap_or(Value::Null));
    object.insert("warnings".into(), json!(info.warnings));
    for (k, v) in &info.summary {
        object.insert(k.clone(), v.clone());
    }
    Value::Object(object)
}

/// The chunk tree, one indented line per chunk.
pub fn tree_text(tree: &crate::formats::ChunkTree) -> String {
    let mut out = String::new();
    for root in tree.root_chunks() {
        write_node(&mut out, root, 1);
    }
    out
}

pub fn to_text(path: &Path, info: &Info) -> String {
    let mut out = String::new();
    out.push_str(&format!("file:   {}\nformat: {}\n", path.display(), info.document.format.name()));
    // M2 and BLP files have no chunks to list.
    if info.document.tree.root_chunks().next().is_some() {
        out.push_str("\nchunks (id, offset, length):\n");
        out.push_str(&tree_text(&info.document.tree));
    }
    // The window's panel counts what it draws; this is what the file holds, and says so.
    out.push_str("\nsummary (the file's own records; the window counts drawn vertices, doodads included):\n");
    for (k, v) in &info.summary {
        match v {
            Value::Array(items) => {
                out.push_str(&format!("  {k}:\n"));
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&format!("    {i}: {item}\n"));
                }
            }
            _ => out.push_str(&format!("  {k}: {v}\n")),
        }
    }
    if !info.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for w in &info.warnings {
            out.push_str(&format!("  {w}\n"));
        }
    }
    out
}

fn write_node(out: &mut String, node: ChunkRef<'_>, depth: usize) {
    out.push_str(&format!(
        "{:indent$}{:<10} 0x{:08X} {:>10}\n",
        "",
        node.label(),
        node.offset,
        node.length,
        indent = depth * 2
    ));
    for child in node.children() {
        write_node(out, child, depth + 1);
    }
}
