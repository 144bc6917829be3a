//! Where a triangle of the scene comes from: the file, the chunk, the record and its bytes. Picking
//! shows it; the tests check that every triangle of every mesh leads to bytes inside its chunk.

use std::ops::Range;

use crate::formats::{ChunkId, Model};

use super::{RecordKind, Scene};

/// A triangle's source record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriangleOrigin {
    /// Index into [`Scene::files`].
    pub file: usize,
    /// The chunk holding the record in its file's tree; `None` for an M2 header array, which is no chunk.
    pub chunk: Option<ChunkId>,
    /// The chunk's path, to show (`FORM/POLS[1]`, `MOGP/MOPY`), or the M2 header array's name.
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
                let polygon = record as usize;
                let record = polygons.record(polygon)?;
                let chunk = polygons.chunk_of(polygon)?;
                let data = document.tree.node(chunk).data_range();
                // A record ends where the next one of its chunk starts (records are read in file order),
                // the last one at the chunk's end.
                let next = polygons.record(polygon + 1).filter(|_| polygons.chunk_of(polygon + 1) == Some(chunk));
                let end = next.map_or(data.end, |r| r.offset as usize);
                Some(TriangleOrigin {
                    file: source.file,
                    chunk: Some(chunk),
                    chunk_path: document.tree.path(chunk),
                    chunk_data: data,
                    record: record.index_in_chunk,
                    bytes: record.offset as usize..end,
                })
            }
            RecordKind::WmoTriangle { .. } => {
                // The triangle's file is its group file: its MOPY holds the triangle's entry.
                let document = file.document.as_deref()?;
                let mopy = crate::formats::wmo::group::triangle_chunk(&document.tree)?;
                let data = document.tree.node(mopy).data_range();
                let start = data.start + 2 * record as usize;
                Some(TriangleOrigin {
                    file: source.file,
                    chunk: Some(mopy),
                    chunk_path: document.tree.path(mopy),
                    chunk_data: data,
                    record,
                    bytes: start..start + 2,
                })
            }
            RecordKind::M2SkinTriangle { indices_offset, .. } => {
                let start = indices_offset as usize + 6 * record as usize;
                let array_length = 2 * mesh_index_count(self, source.file)?;
                Some(TriangleOrigin {
                    file: source.file,
                    chunk: None,
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

impl super::SceneMesh {
    /// The outline of the record `triangle` came from, while the mesh still holds its vertices (see
    /// [`record_outline`]).
    pub fn record_outline(&self, triangle: usize) -> Vec<[[f32; 3]; 2]> {
        record_outline(&self.data.positions, &self.data.indices, &self.data.triangle_records, triangle)
    }
}

/// The outline of the record `triangle` came from, in the mesh's space: the edges of its triangles that
/// no two of them share, so a LightWave quad is outlined by its four sides, not by the two triangles it
/// was cut into. A triangle no record made is its own outline. The vertices are passed apart from the
/// records because a loaded model's vertices live in the renderer's mesh.
pub fn record_outline(
    positions: &[[f32; 3]],
    indices: &[u32],
    triangle_records: &[u32],
    triangle: usize,
) -> Vec<[[f32; 3]; 2]> {
    let corner = |t: usize, k: usize| -> Option<[f32; 3]> { positions.get(*indices.get(3 * t + k)? as usize).copied() };
    let triangles: Vec<usize> = match triangle_records.get(triangle) {
        Some(&record) => (0..triangle_records.len()).filter(|&t| triangle_records[t] == record).collect(),
        None => vec![triangle],
    };
    // Edges keyed by their end points' bits, either way round: the corners of one polygon may be
    // different vertices at the same place (split for their normals or UVs).
    let key = |p: [f32; 3]| p.map(f32::to_bits);
    let mut edges: Vec<([[u32; 3]; 2], [[f32; 3]; 2], usize)> = Vec::new();
    // A double-sided surface's back faces are the same triangles wound the other way: counted once.
    let mut seen: Vec<[[u32; 3]; 3]> = Vec::new();
    for t in triangles {
        let Some(corners) = (0..3).map(|k| corner(t, k)).collect::<Option<Vec<_>>>() else { continue };
        let mut same_place = [key(corners[0]), key(corners[1]), key(corners[2])];
        same_place.sort_unstable();
        if seen.contains(&same_place) {
            continue;
        }
        seen.push(same_place);
        for k in 0..3 {
            let (a, b) = (corners[k], corners[(k + 1) % 3]);
            let (ka, kb) = (key(a), key(b));
            let edge_key = if ka <= kb { [ka, kb] } else { [kb, ka] };
            match edges.iter_mut().find(|(k, _, _)| *k == edge_key) {
                Some((_, _, count)) => *count += 1,
                None => edges.push((edge_key, [a, b], 1)),
            }
        }
    }
    edges.into_iter().filter(|(_, _, count)| *count == 1).map(|(_, segment, _)| segment).collect()
}
