//! Where a triangle of the scene comes from: the file, the chunk, the record and its bytes. Picking
//! shows it; the tests check that every triangle of every mesh leads to bytes inside its chunk.

use std::ops::Range;

use crate::formats::{ChunkNode, Model};

use super::{RecordKind, Scene};

/// A triangle's source record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriangleOrigin {
    /// Index into [`Scene::files`].
    pub file: usize,
    /// The chunk holding the record (`FORM/LAYR[1]/POLS`, `MOGP/MOPY`), or the M2 header array.
    pub chunk_path: String,
    /// The chunk's data bytes in the file.
    pub chunk_data: Range<usize>,
    /// The record's position: a polygon in its POLS chunk, a MOPY/MOVI triangle, a skin triangle.
    pub record: u32,
    /// The record's bytes in the file (for WMO: its MOPY entry).
    pub bytes: Range<usize>,
}

impl Scene {
    /// The record that made `triangle` of mesh `mesh`, if the mesh was made from records.
    pub fn triangle_origin(&self, mesh: usize, triangle: usize) -> Option<TriangleOrigin> {
        let mesh = self.meshes.get(mesh)?;
        let source = mesh.source?;
        let record = *mesh.data.triangle_records.get(triangle)?;
        let file = self.files.get(source.file)?;
        match source.kind {
            RecordKind::LwoPolygon { layer } => {
                let document = file.document.as_deref()?;
                let Model::Lwo(object) = &document.model else { return None };
                let polygons = &object.layers.get(layer)?.polygons;
                let at = *polygons.record_offset.get(record as usize)? as usize;
                let (chunk_path, node) = deepest_chunk_at(&document.tree.paths(), at)?;
                let chunk = node.data_range();
                // A record ends where the next one of its chunk starts, the last one at the chunk's end.
                let end = polygons.record_offset.iter().map(|&o| o as usize).filter(|&o| o > at && o < chunk.end).min().unwrap_or(chunk.end);
                Some(TriangleOrigin {
                    file: source.file,
                    chunk_path,
                    chunk_data: chunk,
                    record: *polygons.index_in_chunk.get(record as usize)?,
                    bytes: at..end,
                })
            }
            RecordKind::WmoTriangle { .. } => {
                let document = file.document.as_deref()?;
                let (chunk_path, node) = document.tree.paths().into_iter().find_map(|(path, node)| {
                    let mut found = None;
                    node.visit(&path, &mut |p, n| {
                        if found.is_none() && n.id.0 == *b"MOPY" {
                            found = Some((p.to_owned(), n));
                        }
                    });
                    found
                })?;
                let start = node.data_offset() + 2 * record as usize;
                Some(TriangleOrigin { file: source.file, chunk_path, chunk_data: node.data_range(), record, bytes: start..start + 2 })
            }
            RecordKind::M2SkinTriangle { indices_offset, .. } => {
                let start = indices_offset as usize + 6 * record as usize;
                let array_length = 2 * mesh_index_count(self, source.file)?;
                Some(TriangleOrigin {
                    file: source.file,
                    chunk_path: "triangle indices".into(),
                    chunk_data: indices_offset as usize..indices_offset as usize + array_length,
                    record,
                    bytes: start..start + 6,
                })
            }
        }
    }
}

/// The number of entries of the skin's triangle index array in `file` (a `.skin`, or an M2 with an
/// embedded view).
fn mesh_index_count(scene: &Scene, file: usize) -> Option<usize> {
    let bytes = &scene.files.get(file)?.bytes;
    let skin = crate::formats::m2::parse_skin(bytes).ok().map(|s| s.triangle_indices.len());
    skin.or_else(|| {
        let document = scene.files[file].document.as_deref()?;
        let Model::M2(model) = &document.model else { return None };
        model.embedded_views.first().map(|v| v.triangle_indices.len())
    })
}

/// The deepest chunk whose data holds byte `at`, with its path.
pub fn deepest_chunk_at<'a>(roots: &[(String, &'a ChunkNode)], at: usize) -> Option<(String, &'a ChunkNode)> {
    let mut best: Option<(String, &'a ChunkNode)> = None;
    for (path, root) in roots {
        root.visit(path, &mut |p, n| {
            if n.data_range().contains(&at) {
                best = Some((p.to_owned(), n));
            }
        });
    }
    best
}
