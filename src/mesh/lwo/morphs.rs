//! A layer's morph targets, and the vertices that are made apart from a polygon's corners: those the
//! triangulator adds where an outline crosses itself, and the plain ones of lines and points.

use crate::formats::lwo::Layer;
use crate::mesh::coords::lwo_to_bevy;
use crate::mesh::normals::{CornerNormals, face_normals_for};
use crate::mesh::subdivide::Cage;
use crate::mesh::triangulate::Crossing;
use crate::mesh::{MeshData, MorphTarget, add, normalize, point_at, sub};

use super::patches::limit_surface_normals;

/// A corner the triangulator added where the outline crosses itself: every attribute interpolated along
/// the edge between the two polygon corners it lies on.
pub(super) fn push_crossing(mesh: &mut MeshData, corner_vertex: &[u32], crossing: &Crossing) {
    let (a, b, t) =
        (corner_vertex[crossing.from as usize] as usize, corner_vertex[crossing.to as usize] as usize, crossing.t);
    fn lerp<const N: usize>(values: &[[f32; N]], a: usize, b: usize, t: f32) -> [f32; N] {
        std::array::from_fn(|k| values[a][k] + (values[b][k] - values[a][k]) * t)
    }
    let position = lerp(&mesh.positions, a, b, t);
    mesh.positions.push(position);
    let normal = normalize(lerp(&mesh.normals, a, b, t)).unwrap_or(mesh.normals[a]);
    mesh.normals.push(normal);
    for set in &mut mesh.uv_sets {
        let uv = lerp(set, a, b, t);
        set.push(uv);
    }
    if let Some(colors) = &mut mesh.colors {
        let c = lerp(colors, a, b, t);
        colors.push(c);
    }
    for target in &mut mesh.morph_targets {
        let p = lerp(&target.positions, a, b, t);
        target.positions.push(p);
        let n = lerp(&target.normals, a, b, t);
        target.normals.push(n);
    }
}

/// A layer's morph maps (MORF, SPOT), made ready to give each vertex what it gains at weight 1.
pub(super) struct LayerMorphs<'a> {
    names: Vec<&'a str>,
    /// Per morph: every point's offset, in the file's frame.
    pub(super) offsets: Vec<Vec<[f32; 3]>>,
    /// Per morph: every polygon's normal in the morphed shape, for the smoothing rule.
    face_normals: Vec<Vec<[f32; 3]>>,
}

impl<'a> LayerMorphs<'a> {
    pub(super) fn new(layer: &'a Layer) -> Self {
        let morphs = layer.morphs();
        let offsets: Vec<Vec<[f32; 3]>> = morphs.iter().map(|m| m.offsets(&layer.points)).collect();
        let face_normals = offsets
            .iter()
            .map(|offsets| {
                let shape: Vec<[f32; 3]> = layer.points.iter().zip(offsets).map(|(&p, &d)| add(p, d)).collect();
                face_normals_for(layer, &shape)
            })
            .collect();
        Self { names: morphs.iter().map(|m| m.name).collect(), offsets, face_normals }
    }

    pub(super) fn len(&self) -> usize {
        self.names.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Empty targets, one per morph, for a new mesh of the layer.
    pub(super) fn targets(&self) -> Vec<MorphTarget> {
        self.names
            .iter()
            .map(|name| MorphTarget { name: (*name).to_owned(), positions: Vec::new(), normals: Vec::new() })
            .collect()
    }

    /// The targets' values for a vertex just pushed for `point`; `corner` (its polygon and base normal,
    /// Bevy's frame) when its normal follows the shape, else the normal stays.
    pub(super) fn push_vertex(
        &self,
        corner_normals: &CornerNormals<'_>,
        mesh: &mut MeshData,
        point: u32,
        corner: Option<(usize, [f32; 3])>,
    ) {
        for (k, target) in mesh.morph_targets.iter_mut().enumerate() {
            target.positions.push(lwo_to_bevy(point_at(&self.offsets[k], point)));
            let normal = corner.map_or([0.0; 3], |(polygon, base)| {
                sub(lwo_to_bevy(corner_normals.at_with(&self.face_normals[k], polygon, point)), base)
            });
            target.normals.push(normal);
        }
    }

    /// Targets for a subdivided cage whose extras hold, after `skip` values, three offsets per morph.
    pub(super) fn add_to_limit_surface(&self, mesh: &mut MeshData, cage: &Cage, skip: usize) {
        mesh.morph_targets = self.targets();
        for (k, target) in mesh.morph_targets.iter_mut().enumerate() {
            let at = skip + 3 * k;
            let offsets: Vec<[f32; 3]> = (0..cage.points.len())
                .map(|i| cage.extras_of(i).get(at..at + 3).map_or([0.0; 3], |o| [o[0], o[1], o[2]]))
                .collect();
            let shape: Vec<[f32; 3]> = cage.points.iter().zip(&offsets).map(|(&p, &d)| add(p, d)).collect();
            target.normals =
                limit_surface_normals(&shape, cage).iter().zip(&mesh.normals).map(|(&n, &base)| sub(n, base)).collect();
            target.positions = offsets.into_iter().map(lwo_to_bevy).collect();
        }
    }
}

pub(super) fn push_plain_vertex(mesh: &mut MeshData, p: [f32; 3]) {
    mesh.indices.push(mesh.positions.len() as u32);
    mesh.positions.push(p);
    mesh.normals.push([0.0, 1.0, 0.0]);
}
