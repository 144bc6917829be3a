//! LightWave objects: LWOB and LWLO (LightWave 5), LWO2 (6 and later), LWO3 (2018 and later), and modo's
//! LXOB where its chunks agree with LWO2. Bytes → [`LwoObject`]; no engine types.

mod clip;
mod geometry;
pub mod model;
mod surface;

pub use model::*;

use crate::formats::chunk::{read_iff_tree, ChunkNode, ChunkTree, IffDialect};
use crate::formats::error::{ErrorKind, ParseError, Result, Warning};

/// Walks the chunk tree and reads the object.
pub fn parse(bytes: &[u8]) -> Result<(ChunkTree, LwoObject)> {
    let tree = read_iff_tree(bytes)?;
    let object = parse_tree(bytes, &tree)?;
    Ok((tree, object))
}

/// Reads the object from an already walked tree.
pub fn parse_tree(bytes: &[u8], tree: &ChunkTree) -> Result<LwoObject> {
    let form = tree.roots.first().ok_or_else(|| ParseError::invalid(0, "empty file"))?;
    let form_type = form.form_type.unwrap_or(form.id);
    let kind = LwoKind::from_form_type(form_type).ok_or_else(|| {
        ParseError::new(8, ErrorKind::BadMagic { expected: "LWOB, LWLO, LWO2, LWO3 or LXOB", found: form_type.to_string() })
            .within("FORM")
    })?;
    let mut builder = geometry::ObjectBuilder::new(kind);
    builder.warnings.extend(tree.warnings.iter().cloned());
    let dialect = IffDialect::of(form_type);
    let mut surface_nodes: Vec<(String, &ChunkNode)> = Vec::new();
    let mut clip_nodes: Vec<(String, &ChunkNode)> = Vec::new();
    let mut envelope_nodes: Vec<(String, &ChunkNode)> = Vec::new();
    form.visit("FORM", &mut |path, node| {
        if path == "FORM" || path.matches('/').count() != 1 {
            return;
        }
        let id = node.form_type.filter(|_| node.id.0 == *b"FORM").unwrap_or(node.id);
        match &id.0 {
            b"SURF" => surface_nodes.push((path.to_owned(), node)),
            b"CLIP" => clip_nodes.push((path.to_owned(), node)),
            b"ENVL" => envelope_nodes.push((path.to_owned(), node)),
            _ => {}
        }
    });
    for node in &form.children {
        builder.read_chunk(bytes, node)?;
    }
    let mut surfaces = Vec::with_capacity(surface_nodes.len());
    for (path, node) in surface_nodes {
        surfaces.push(surface::parse_surface(bytes, node, dialect, &path, &mut builder.warnings)?);
    }
    let mut clips = Vec::with_capacity(clip_nodes.len());
    for (path, node) in clip_nodes {
        clips.push(clip::parse_clip(bytes, node, dialect, &path)?);
    }
    let mut envelopes = Vec::with_capacity(envelope_nodes.len());
    for (path, node) in envelope_nodes {
        envelopes.push(clip::parse_envelope(bytes, node, dialect, &path)?);
    }
    Ok(builder.finish(surfaces, clips, envelopes))
}

pub(crate) fn warn(warnings: &mut Vec<Warning>, path: &str, offset: usize, message: impl Into<String>) {
    warnings.push(Warning::new(path, offset, message));
}
