//! LightWave objects: LWOB and LWLO (LightWave 5), LWO2 (6 and later), LWO3 (2018 and later), and modo's
//! LXOB where its chunks agree with LWO2. Bytes → [`LwoObject`]; no engine types.

pub mod chunks;
mod clip;
mod geometry;
pub mod model;
pub mod nodes;
pub mod shading;
mod surface;

pub use chunks::{read_iff_tree, IffDialect};
pub use model::*;
pub use nodes::NodeGraph;
pub use shading::{shading, SurfaceShading};

use crate::formats::chunk::{ChunkRef, ChunkTree};
use crate::formats::error::{ErrorKind, ParseError, Result, Warning};

/// Walks the chunk tree and reads the object.
pub fn parse(bytes: &[u8]) -> Result<(ChunkTree, LwoObject)> {
    let tree = read_iff_tree(bytes)?;
    let object = parse_tree(bytes, &tree)?;
    Ok((tree, object))
}

/// Reads the object from an already walked tree.
pub fn parse_tree(bytes: &[u8], tree: &ChunkTree) -> Result<LwoObject> {
    let form = tree.root_chunks().next().ok_or_else(|| ParseError::invalid(0, "empty file"))?;
    let form_type = form.form_type.unwrap_or(form.id);
    let kind = LwoKind::from_form_type(form_type).ok_or_else(|| {
        ParseError::new(8, ErrorKind::BadMagic { expected: "LWOB, LWLO, LWO2, LWO3 or LXOB", found: form_type.to_string() })
            .within("FORM")
    })?;
    let mut builder = geometry::ObjectBuilder::new(kind);
    builder.warnings.extend(tree.warnings.iter().cloned());
    let dialect = IffDialect::of(form_type);
    let mut surface_nodes: Vec<ChunkRef<'_>> = Vec::new();
    let mut clip_nodes: Vec<ChunkRef<'_>> = Vec::new();
    let mut envelope_nodes: Vec<ChunkRef<'_>> = Vec::new();
    for node in form.children() {
        builder.read_chunk(bytes, node)?;
        match &node.kind().0 {
            b"SURF" => surface_nodes.push(node),
            b"CLIP" => clip_nodes.push(node),
            b"ENVL" => envelope_nodes.push(node),
            _ => {}
        }
    }
    let surfaces = surface_nodes.into_iter().map(|node| surface::parse_surface(bytes, node, dialect, &mut builder.warnings)).collect();
    let clips = clip_nodes.into_iter().map(|node| clip::parse_clip(bytes, node, dialect, &mut builder.warnings)).collect();
    let envelopes = envelope_nodes.into_iter().map(|node| clip::parse_envelope(bytes, node, dialect, &mut builder.warnings)).collect();
    Ok(builder.finish(surfaces, clips, envelopes))
}

/// Lenient reading of an optional chunk: an error becomes one warning naming the chunk `at`, and what
/// was read before it stays (the rest keeps the spec's defaults).
pub(crate) fn read_leniently(warnings: &mut Vec<Warning>, at: ChunkRef<'_>, result: Result<()>) {
    if let Err(error) = result {
        let message = format!("{}; read as far as it goes, the rest take the spec's defaults", error.kind);
        warnings.push(Warning::new(at.path(), error.offset, message));
    }
}

pub(crate) fn warn(warnings: &mut Vec<Warning>, at: ChunkRef<'_>, offset: usize, message: impl Into<String>) {
    warnings.push(Warning::new(at.path(), offset, message));
}

