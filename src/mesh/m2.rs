//! M2 view → one mesh per texture unit (`m2.md` §5 "Building the drawable mesh"), in Bevy's frame: the
//! same Z-up → Y-up turn as WMO, which keeps the counter-clockwise winding.

use crate::formats::m2::{M2Model, Skin};

use super::coords::wmo_to_bevy;
use super::{Bounds, MeshData, SkinWeights, Topology};

#[derive(Clone, Debug, PartialEq)]
pub struct UnitMesh {
    /// Position in the view's texture units.
    pub unit: usize,
    pub submesh: usize,
    /// No earlier unit draws this submesh: the first pass over its geometry.
    pub first_of_submesh: bool,
    /// The submesh's geoset id.
    pub geoset: u16,
    /// Index into `M2Model::materials`, when in range.
    pub material: Option<usize>,
    /// Index into `M2Model::textures` of the unit's first texture, when the lookups lead to one.
    pub texture: Option<usize>,
    /// 0 or 1, from the texture unit lookup (sphere maps, −1, fall back to 0).
    pub uv_set: usize,
    pub priority_plane: i8,
    pub material_layer: u16,
    pub mesh: MeshData,
}

#[derive(Clone, Debug, PartialEq)]
pub struct M2Meshes {
    pub units: Vec<UnitMesh>,
    /// The skin's triangles drawn, each once however many texture units draw it.
    pub triangles: usize,
    /// Texture units drawn: passes over the geometry (several units may draw one submesh).
    pub draw_passes: usize,
    /// Triangles left out because an index led outside the vertex lookup or the vertices.
    pub dropped_triangles: usize,
    /// Units left out because their submesh does not exist.
    pub dropped_units: usize,
    pub bounds: Bounds,
}

/// Which submeshes to draw: every one (world doodads, `m2.md` §7), or id 0 and the x01 variants
/// (creature and character models, which stack alternatives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geosets {
    All,
    DefaultVariants,
}

impl Geosets {
    /// The rule for a model at this archive path.
    pub fn for_path(path: &str) -> Self {
        let lower = path.to_ascii_lowercase().replace('\\', "/");
        if lower.contains("creature/") || lower.contains("character/") { Self::DefaultVariants } else { Self::All }
    }

    pub fn shows(self, id: u16) -> bool {
        match self {
            Self::All => true,
            Self::DefaultVariants => id == 0 || (id > 100 && id % 100 == 1),
        }
    }
}

/// The joints and weights of a vertex: its bones (global indices into the model's bones) at weight/255.
/// Weights on bones that do not exist are dropped and the rest scaled back to 1; a vertex with no
/// weight at all follows `spare`, the skeleton's identity joint (an M2 leaves such a vertex in place).
fn vertex_skin(weights: [u8; 4], bones: [u8; 4], bone_count: usize, spare: u16) -> ([u16; 4], [f32; 4]) {
    let mut joints = [0; 4];
    let mut out = [0.0; 4];
    let mut total = 0u32;
    for k in 0..4 {
        if weights[k] > 0 && usize::from(bones[k]) < bone_count {
            joints[k] = u16::from(bones[k]);
            out[k] = f32::from(weights[k]);
            total += u32::from(weights[k]);
        }
    }
    if total == 0 {
        return ([spare, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
    }
    (joints, out.map(|w| w / total as f32))
}

/// The meshes of `view`'s texture units. With `skinned`, each vertex carries its bones and weights,
/// with joint `bones.len()` standing for the identity.
pub fn build(model: &M2Model, view: &Skin, geosets: Geosets, skinned: bool) -> M2Meshes {
    let mut out = M2Meshes {
        units: Vec::new(),
        triangles: 0,
        draw_passes: 0,
        dropped_triangles: 0,
        dropped_units: 0,
        bounds: Bounds::EMPTY,
    };
    let mut submeshes_drawn = std::collections::HashSet::new();
    let bone_count = model.animation.bones.len();
    let positions: Vec<[f32; 3]> = model.vertices.iter().map(|v| wmo_to_bevy(v.position)).collect();
    let normals: Vec<[f32; 3]> = model.vertices.iter().map(|v| wmo_to_bevy(v.normal)).collect();
    for (u, unit) in view.texture_units.iter().enumerate() {
        let Some(submesh) = view.submeshes.get(usize::from(unit.submesh)) else {
            out.dropped_units += 1;
            continue;
        };
        if !geosets.shows(submesh.id) {
            continue;
        }
        let uv_set =
            model.texture_unit_lookup.get(usize::from(unit.coord_combo)).map_or(0, |&c| if c == 1 { 1 } else { 0 });
        let texture = model
            .texture_lookup
            .get(usize::from(unit.texture_combo))
            .map(|&t| usize::from(t))
            .filter(|&t| t < model.textures.len());
        let material = Some(usize::from(unit.material)).filter(|&m| m < model.materials.len());
        let mut mesh = MeshData::new(Topology::Triangles);
        mesh.uv_sets = vec![Vec::new()];
        if skinned {
            mesh.skin = Some(SkinWeights::default());
        }
        let mut remap = vec![u32::MAX; model.vertices.len()];
        let first = submesh.first_index();
        let end = first.saturating_add(usize::from(submesh.index_count)).min(view.triangle_indices.len());
        let first_of_submesh = submeshes_drawn.insert(usize::from(unit.submesh));
        let mut k = first;
        while k + 3 <= end {
            let corners = [k, k + 1, k + 2].map(|i| {
                let lookup = usize::from(view.triangle_indices[i]);
                view.vertex_lookup.get(lookup).map(|&v| usize::from(v)).filter(|&v| v < model.vertices.len())
            });
            k += 3;
            let [Some(a), Some(b), Some(c)] = corners else {
                out.dropped_triangles += usize::from(first_of_submesh);
                continue;
            };
            mesh.triangle_records.push(((k - 3) / 3) as u32);
            for v in [a, b, c] {
                if remap[v] == u32::MAX {
                    remap[v] = mesh.positions.len() as u32;
                    mesh.positions.push(positions[v]);
                    mesh.normals.push(normals[v]);
                    let vertex = &model.vertices[v];
                    mesh.uv_sets[0].push(vertex.uv[uv_set]);
                    if let Some(skin) = &mut mesh.skin {
                        let (joints, weights) =
                            vertex_skin(vertex.bone_weights, vertex.bone_indices, bone_count, bone_count as u16);
                        skin.joints.push(joints);
                        skin.weights.push(weights);
                    }
                }
                mesh.indices.push(remap[v]);
            }
            out.triangles += usize::from(first_of_submesh);
        }
        if mesh.is_empty() {
            continue;
        }
        out.draw_passes += 1;
        out.bounds.union(&mesh.bounds());
        out.units.push(UnitMesh {
            unit: u,
            submesh: usize::from(unit.submesh),
            first_of_submesh,
            geoset: submesh.id,
            material,
            texture,
            uv_set,
            priority_plane: unit.priority_plane,
            material_layer: unit.material_layer,
            mesh,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::vertex_skin;

    #[test]
    fn vertex_weights_become_joint_weights() {
        assert_eq!(vertex_skin([255, 0, 0, 0], [3, 0, 0, 0], 4, 4), ([3, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        let (joints, weights) = vertex_skin([128, 127, 0, 0], [1, 2, 0, 0], 4, 4);
        assert_eq!(joints, [1, 2, 0, 0]);
        assert!((weights[0] - 128.0 / 255.0).abs() < 1e-6 && (weights[1] - 127.0 / 255.0).abs() < 1e-6);
        // No weight, or weight only on a bone that does not exist: the identity joint.
        assert_eq!(vertex_skin([0; 4], [0; 4], 4, 4), ([4, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        assert_eq!(vertex_skin([255, 0, 0, 0], [9, 0, 0, 0], 4, 4), ([4, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        // A weight on a missing bone is dropped and the rest scaled back to 1.
        assert_eq!(vertex_skin([100, 100, 0, 0], [1, 9, 0, 0], 4, 4), ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
    }
}
