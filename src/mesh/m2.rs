//! M2 view → one mesh per texture unit (`m2.md` §5 "Building the drawable mesh"), in Bevy's frame: the
//! same Z-up → Y-up turn as WMO, which keeps the counter-clockwise winding.

use crate::formats::m2::{M2Model, Skin};

use super::coords::wmo_to_bevy;
use super::{Bounds, MeshData, Topology};

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

pub fn build(model: &M2Model, view: &Skin, geosets: Geosets) -> M2Meshes {
    let mut out = M2Meshes {
        units: Vec::new(),
        triangles: 0,
        draw_passes: 0,
        dropped_triangles: 0,
        dropped_units: 0,
        bounds: Bounds::EMPTY,
    };
    let mut submeshes_drawn = std::collections::HashSet::new();
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
                    mesh.uv_sets[0].push(model.vertices[v].uv[uv_set]);
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
