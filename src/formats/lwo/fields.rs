//! The fields the chunk tree shows for a LightWave chunk, read from the model item the chunk made (a
//! layer's number and counts, a surface's parameters): one decoding for the inspector panel and for
//! `--info --json`.

use super::LwoObject;
use crate::formats::ChunkId;

/// Adds to `out` the fields of chunk `chunk` (of kind `id`) that `object` holds.
pub(crate) fn model_fields(object: &LwoObject, id: &str, chunk: ChunkId, out: &mut Vec<(String, String)>) {
    let mut push = |k: &str, v: String| out.push((k.to_owned(), v));
    match id {
        "LAYR" => {
            if let Some(l) = object.layers.iter().find(|l| l.chunk == Some(chunk)) {
                push("number", l.number.to_string());
                push("name", l.name.clone());
                push("flags", format!("0x{:X}{}", l.flags, if l.hidden() { " (hidden)" } else { "" }));
                push("pivot", format!("{:?}", l.pivot));
                push("parent", l.parent.map_or("none".into(), |p| p.to_string()));
                push("points", l.points.len().to_string());
                push("polygons", l.polygons.len().to_string());
            }
        }
        "SURF" => {
            if let Some(s) = object.surfaces.iter().find(|s| s.chunk == Some(chunk)) {
                push("name", s.name.clone());
                push("colour", format!("{:.3?}", s.color));
                push("diffuse", format!("{:.3}", s.diffuse));
                push("specular", format!("{:.3}", s.specular));
                push("glossiness", format!("{:.3}", s.glossiness));
                push("transparency", format!("{:.3}", s.transparency));
                push("sides", s.sidedness.to_string());
                push("smoothing angle", format!("{:.1}°", s.max_smoothing_angle.to_degrees()));
                push("blocks", s.blocks.len().to_string());
            }
        }
        "TAGS" | "SRFS" => push("names", object.tags.join(", ")),
        "PNTS" => push("points (all layers)", object.point_count().to_string()),
        "POLS" => push("polygons (all layers)", object.polygon_count().to_string()),
        _ => {}
    }
}
