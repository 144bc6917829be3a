//! WMO groups → meshes: one per MOBA batch, a collision overlay from the material-0xFF triangles, the
//! liquid surface, portal polygons, and doodad transforms; all in Bevy's Y-up frame.

use crate::formats::wmo::{Batch, Bgra, COLLISION_ONLY_MATERIAL, Doodad, Liquid, RootHeader, WmoGroup, WmoRoot};

use super::coords::{wmo_quat_to_bevy, wmo_to_bevy};
use super::triangulate::Triangulator;
use super::{Bounds, MeshData, Topology};

#[derive(Clone, Debug, PartialEq)]
pub struct BatchMesh {
    pub batch: usize,
    /// MOMT index.
    pub material: u8,
    pub mesh: MeshData,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GroupMeshes {
    pub batches: Vec<BatchMesh>,
    pub collision: Option<MeshData>,
    pub liquid: Option<(u16, MeshData)>,
    pub bounds: Bounds,
    /// Triangles drawn (batched, not collision-only).
    pub rendered_triangles: usize,
    pub collision_triangles: usize,
}

/// A colour byte as the unit fraction meshes take (x / 255, as f32 divides it): looked up, where the
/// division per channel was the hottest line of building a large zone's meshes.
const UNIT_OF_BYTE: [f32; 256] = {
    let mut table = [0.0; 256];
    let mut x = 0;
    while x < 256 {
        table[x] = x as f32 / 255.0;
        x += 1;
    }
    table
};

/// Vertex colours after the client's MOCV fix (spec: "the vertex-colour fix"), as RGBA bytes.
pub fn fixed_vertex_colors(group: &WmoGroup, root_header: Option<&RootHeader>) -> Option<Vec<[u8; 4]>> {
    let colors = group.color_sets.first().filter(|c| c.len() == group.positions.len())?;
    let exterior = group.header.is_exterior();
    let exterior_alpha = if exterior { 255 } else { 0 };
    if root_header.is_some_and(|h| h.has(RootHeader::DO_NOT_FIX_VERTEX_COLOR_ALPHA)) {
        return Some(
            colors
                .iter()
                .map(|c| {
                    let [r, g, b, _] = c.rgba();
                    [r, g, b, exterior_alpha]
                })
                .collect(),
        );
    }
    let ambient = match root_header {
        Some(h) if !h.has(RootHeader::UNIFIED_RENDER_PATH) => h.ambient.rgba(),
        _ => [0, 0, 0, 0],
    };
    let transparent = usize::from(group.header.transparent_batch_count);
    let start = match transparent {
        0 => 0,
        n => group.batches.get(n - 1).map_or(0, |b| usize::from(b.last_vertex) + 1),
    };
    // The colours of the transparent batches' vertices, then the rest: each part one loop with its
    // case fixed, which the compiler runs several vertices at a time.
    let (transparent, opaque) = colors.split_at(start.min(colors.len()));
    let mut fixed = Vec::with_capacity(colors.len());
    fixed.extend(transparent.iter().map(|c| fix_one(*c, ambient, true, exterior_alpha)));
    fixed.extend(opaque.iter().map(|c| fix_one(*c, ambient, false, exterior_alpha)));
    Some(fixed)
}

/// One vertex colour through the fix, as the client computes it in signed integers, here in unsigned
/// ones with the same results: a channel whose value would come out negative is clamped to 0 anyway,
/// so its difference with the ambient is taken as 0 where it would go below, and every product fits
/// 16 bits. Without a branch or a signed division, the loop over a group's colours runs several
/// vertices at a time (it was a seventh of building a large zone's meshes).
#[inline(always)]
fn fix_one(color: Bgra, ambient: [u8; 4], in_transparent_batch: bool, exterior_alpha: u8) -> [u8; 4] {
    let [r, g, b, a] = color.rgba().map(u16::from);
    let channel = |c: u16, am: u8| -> u8 {
        let am = u16::from(am);
        // Transparent batches: (c − am)(255 − a) / 255 / 2.
        let transparent = c.saturating_sub(am) * (255 - a) / 255 / 2;
        // Opaque ones: (c·a / 64 + c − am) / 2, at most 1271 / 2 before the clamp.
        let opaque = ((c * a / 64 + c).saturating_sub(am) / 2).min(255);
        (if in_transparent_batch { transparent } else { opaque }) as u8
    };
    let alpha = if in_transparent_batch { a as u8 } else { exterior_alpha };
    [channel(r, ambient[0]), channel(g, ambient[1]), channel(b, ambient[2]), alpha]
}

pub fn build_group(group: &WmoGroup, root: Option<&WmoRoot>) -> GroupMeshes {
    let vertex_count = group.positions.len();
    // The group's own columns, in its frame: each vertex a batch takes is turned into Bevy's as the batch
    // gathers it. A turned copy of the group's columns, made first for the batches to read, cost as much
    // again: every vertex written once more and read back.
    let positions = group.positions.as_slice();
    let normals = (group.normals.len() == vertex_count).then_some(group.normals.as_slice());
    let uv_sets: Vec<&Vec<[f32; 2]>> = group.uv_sets.iter().filter(|u| u.len() == vertex_count).collect();
    let colors = fixed_vertex_colors(group, root.map(|r| &r.header));
    let vertices = GroupVertices { positions, normals, uv_sets: &uv_sets, colors: colors.as_deref() };
    let triangle_ok = |t: usize| -> Option<[u16; 3]> {
        let i = group.indices.get(t * 3..t * 3 + 3)?;
        let tri = [i[0], i[1], i[2]];
        tri.iter().all(|&v| usize::from(v) < vertex_count).then_some(tri)
    };
    // Group vertex → batch vertex, shared by the batches (each leaves it as it found it); MOVI indices
    // are u16, so the table is small and dense.
    let mut remap = vec![u32::MAX; vertex_count];
    let mut batches = Vec::new();
    let mut rendered = 0;
    let mut bounds = Bounds::EMPTY;
    for (b, batch) in group.batches.iter().enumerate() {
        let Some(mesh) = batch_mesh(group, batch, &vertices, &triangle_ok, &mut remap) else {
            continue;
        };
        rendered += mesh.triangle_count();
        bounds.union(&mesh.bounds());
        batches.push(BatchMesh { batch: b, material: batch.material, mesh });
    }
    let mut collision = MeshData::new(Topology::Triangles);
    let mut collision_triangles = 0;
    for (t, &material) in group.triangle_materials.iter().enumerate() {
        if material != COLLISION_ONLY_MATERIAL {
            continue;
        }
        let Some(tri) = triangle_ok(t) else { continue };
        collision_triangles += 1;
        collision.triangle_records.push(t as u32);
        for v in tri {
            collision.indices.push(collision.positions.len() as u32);
            collision.positions.push(wmo_to_bevy(positions[usize::from(v)]));
            collision.normals.push(normals.map_or([0.0, 1.0, 0.0], |n| wmo_to_bevy(n[usize::from(v)])));
        }
    }
    let liquid = group.liquid.as_ref().and_then(|l| liquid_mesh(l).map(|m| (l.material, m)));
    if let Some((_, m)) = &liquid {
        bounds.union(&m.bounds());
    }
    bounds.union(&collision.bounds());
    GroupMeshes {
        batches,
        collision: (!collision.is_empty()).then_some(collision),
        liquid,
        bounds,
        rendered_triangles: rendered,
        collision_triangles,
    }
}

/// A group's vertex columns as every batch reads them: positions and normals in the group's frame (turned
/// into Bevy's as a batch gathers them), the colours fixed, each as long as the positions (columns of
/// another length are left out).
struct GroupVertices<'a> {
    positions: &'a [[f32; 3]],
    normals: Option<&'a [[f32; 3]]>,
    uv_sets: &'a [&'a Vec<[f32; 2]>],
    colors: Option<&'a [[u8; 4]]>,
}

fn batch_mesh(
    group: &WmoGroup,
    batch: &Batch,
    vertices: &GroupVertices<'_>,
    triangle_ok: &impl Fn(usize) -> Option<[u16; 3]>,
    remap: &mut [u32],
) -> Option<MeshData> {
    let GroupVertices { positions, normals, uv_sets, colors } = *vertices;
    let first = batch.first_index as usize;
    let end = first + usize::from(batch.index_count);
    if end > group.indices.len() || !first.is_multiple_of(3) {
        return None;
    }
    // The batch's vertices first, each group vertex once in the order its first corner names it, then
    // each attribute gathered in a loop of its own into a column made to its size: pushed vertex by
    // vertex into five growing columns, the loop held up on every column's length and room, and the
    // columns were copied again as they grew.
    let mut mesh = MeshData::new(Topology::Triangles);
    let index_count = usize::from(batch.index_count);
    let mut batch_vertices: Vec<u32> = Vec::with_capacity(index_count.min(positions.len()));
    mesh.indices.reserve_exact(index_count);
    mesh.triangle_records.reserve_exact(index_count / 3);
    for t in first / 3..end / 3 {
        if group.triangle_materials.get(t) == Some(&COLLISION_ONLY_MATERIAL) {
            continue;
        }
        let Some(tri) = triangle_ok(t) else { continue };
        mesh.triangle_records.push(t as u32);
        for v in tri {
            let i = usize::from(v);
            if remap[i] == u32::MAX {
                remap[i] = batch_vertices.len() as u32;
                batch_vertices.push(v.into());
            }
            mesh.indices.push(remap[i]);
        }
    }
    mesh.positions = gathered(&batch_vertices, positions, wmo_to_bevy);
    // Where the group has no normals, the batch's are made from its triangles below.
    if let Some(normals) = normals {
        mesh.normals = gathered(&batch_vertices, normals, wmo_to_bevy);
    }
    mesh.uv_sets = uv_sets.iter().map(|uvs| gathered(&batch_vertices, uvs, |uv| uv)).collect();
    mesh.colors = colors.map(|colors| gathered(&batch_vertices, colors, |c| c.map(|x| UNIT_OF_BYTE[usize::from(x)])));
    // The table goes back to "no vertex" for the next batch, entry by entry: a batch touches only its
    // own vertices, and filling the whole table for every batch made the work batches × vertices.
    for &i in &batch_vertices {
        remap[i as usize] = u32::MAX;
    }
    if normals.is_none() {
        flat_normals(&mut mesh);
    }
    (!mesh.is_empty()).then_some(mesh)
}

/// `column`'s values at `vertices` (each a valid index into it), each passed through `convert`.
fn gathered<T: Copy, U>(vertices: &[u32], column: &[T], convert: impl Fn(T) -> U) -> Vec<U> {
    vertices.iter().map(|&i| convert(column[i as usize])).collect()
}

/// Area-weighted vertex normals for groups without MONR.
fn flat_normals(mesh: &mut MeshData) {
    let mut sums = vec![[0.0f32; 3]; mesh.positions.len()];
    for t in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize]);
        let n = super::cross(super::sub(b, a), super::sub(c, a));
        for &i in t {
            sums[i as usize] = super::add(sums[i as usize], n);
        }
    }
    mesh.normals = sums.into_iter().map(|n| super::normalize(n).unwrap_or([0.0, 1.0, 0.0])).collect();
}

/// The liquid surface, without the tiles marked "no liquid".
pub fn liquid_mesh(liquid: &Liquid) -> Option<MeshData> {
    let [xv, yv] = liquid.vertex_counts.map(|c| c as usize);
    let [xt, yt] = liquid.tile_counts.map(|c| c as usize);
    if xv < 2 || yv < 2 || liquid.vertices.len() < xv * yv {
        return None;
    }
    let mut mesh = MeshData::new(Topology::Triangles);
    let s = Liquid::TILE_SIZE;
    for j in 0..yv {
        for i in 0..xv {
            let v = &liquid.vertices[j * xv + i];
            let p = [liquid.corner[0] + i as f32 * s, liquid.corner[1] + j as f32 * s, v.height];
            mesh.positions.push(wmo_to_bevy(p));
            mesh.normals.push([0.0, 1.0, 0.0]);
        }
    }
    mesh.uv_sets.push((0..yv).flat_map(|j| (0..xv).map(move |i| [i as f32, j as f32])).collect());
    for j in 0..yt.min(yv - 1) {
        for i in 0..xt.min(xv - 1) {
            if liquid.tiles.get(j * xt + i).is_none_or(|&t| Liquid::tile_is_empty(t)) {
                continue;
            }
            let at = |di: usize, dj: usize| ((j + dj) * xv + i + di) as u32;
            super::append_triangles(
                &mut mesh.indices,
                [[at(0, 0), at(1, 0), at(1, 1)], [at(0, 0), at(1, 1), at(0, 1)]].into_iter(),
            );
        }
    }
    (!mesh.is_empty()).then_some(mesh)
}

/// Portal polygons (MOPV vertices by MOPT ranges), triangulated, in Bevy's frame; `None` for a portal
/// whose vertex range runs past MOPV.
pub fn portal_meshes(root: &WmoRoot) -> Vec<Option<MeshData>> {
    let mut triangulator = Triangulator::new();
    root.portals
        .iter()
        .map(|portal| {
            let start = usize::from(portal.first_vertex);
            let corners = root.portal_vertices.get(start..start + usize::from(portal.vertex_count))?;
            let mut tris = Vec::new();
            triangulator.triangulate(corners, &mut tris);
            let mut mesh = MeshData::new(Topology::Triangles);
            mesh.positions = corners.iter().map(|p| wmo_to_bevy(*p)).collect();
            for c in triangulator.crossings() {
                let (a, b) = (corners[c.from as usize], corners[c.to as usize]);
                mesh.positions.push(wmo_to_bevy(std::array::from_fn(|k| a[k] + (b[k] - a[k]) * c.t)));
            }
            let corners = &mesh.positions;
            let normal = super::normalize(wmo_to_bevy([portal.plane[0], portal.plane[1], portal.plane[2]]))
                .unwrap_or([0.0, 1.0, 0.0]);
            mesh.normals = vec![normal; corners.len()];
            mesh.indices = tris.iter().flatten().copied().collect();
            Some(mesh)
        })
        .collect()
}

/// A doodad's placement in Bevy's frame: translation, rotation quaternion (x, y, z, w), uniform scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: f32,
}

pub fn doodad_placement(doodad: &Doodad) -> Placement {
    let q = doodad.rotation;
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let rotation =
        if len.is_finite() && len > 1e-6 { wmo_quat_to_bevy(q.map(|c| c / len)) } else { [0.0, 0.0, 0.0, 1.0] };
    let scale = if doodad.scale.is_finite() && doodad.scale > 0.0 { doodad.scale } else { 1.0 };
    Placement { translation: wmo_to_bevy(doodad.position), rotation, scale }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fix as the client writes it, in signed integers, for one channel.
    fn client_channel(c: i32, a: i32, am: i32, in_transparent_batch: bool) -> u8 {
        let v = if in_transparent_batch { (c - am) * (255 - a) / 255 / 2 } else { (c * a / 64 + c - am) / 2 };
        v.clamp(0, 255) as u8
    }

    #[test]
    fn the_unsigned_colour_fix_gives_the_clients_every_value() {
        for in_transparent_batch in [false, true] {
            for am in 0..=255u8 {
                for a in 0..=255u8 {
                    for c in 0..=255u8 {
                        // Blue, green and red channels each meet the value, against ambients of their own.
                        let fixed = fix_one(Bgra([c, c, c, a]), [am, am / 2, 255 - am, 0], in_transparent_batch, 7);
                        let expected = [am, am / 2, 255 - am]
                            .map(|am| client_channel(i32::from(c), i32::from(a), i32::from(am), in_transparent_batch));
                        assert_eq!(fixed[..3], expected, "c {c} a {a} ambient {am} transparent {in_transparent_batch}");
                        assert_eq!(fixed[3], if in_transparent_batch { a } else { 7 });
                    }
                }
            }
        }
    }

    #[test]
    fn a_batch_takes_its_vertices_in_first_use_order_and_numbers_them_afresh() {
        // Six vertices; batch 0 is triangles 0–2 (triangle 1 collision only, triangle 2 naming a vertex
        // past the group's), batch 1 is triangle 3, which shares vertices 4 and 1 with batch 0.
        let mut group = WmoGroup::new(17, crate::formats::wmo::GroupHeader::default());
        group.positions = (0..6).map(|k| [k as f32, 10.0 + k as f32, 20.0 + k as f32]).collect();
        group.uv_sets = vec![(0..6).map(|k| [k as f32, -(k as f32)]).collect()];
        group.color_sets = vec![(0..6).map(|k| Bgra([0, 0, 51 * k as u8, 255])).collect()];
        group.indices = vec![4, 1, 2, 0, 3, 5, 2, 4, 9, 5, 4, 1];
        group.triangle_materials = vec![0, COLLISION_ONLY_MATERIAL, 0, 1];
        group.batches = vec![
            Batch { first_index: 0, index_count: 9, ..Default::default() },
            Batch { first_index: 9, index_count: 3, material: 1, ..Default::default() },
        ];
        let built = build_group(&group, None);
        let [first, second] = [&built.batches[0].mesh, &built.batches[1].mesh];

        assert_eq!(first.triangle_records, vec![0]);
        assert_eq!(first.indices, vec![0, 1, 2]);
        assert_eq!(first.positions, [4, 1, 2].map(|k| wmo_to_bevy(group.positions[k])).to_vec());
        assert_eq!(first.uv_sets, vec![[4, 1, 2].map(|k| group.uv_sets[0][k]).to_vec()]);
        // The colours as the client fixes them, then as fractions.
        let fixed = fixed_vertex_colors(&group, None).expect("a colour for every vertex");
        assert_eq!(first.colors, Some([4, 1, 2].map(|k| fixed[k].map(|x| UNIT_OF_BYTE[usize::from(x)])).to_vec()));
        // Numbered from 0 again: the table the first batch filled was given back.
        assert_eq!(second.triangle_records, vec![3]);
        assert_eq!(second.indices, vec![0, 1, 2]);
        assert_eq!(second.positions, [5, 4, 1].map(|k| wmo_to_bevy(group.positions[k])).to_vec());
        // No MONR: each batch's normals made from its own triangles, one per vertex.
        assert_eq!(first.normals.len(), 3);
        assert_eq!(second.normals.len(), 3);
        let collision = built.collision.expect("the collision-only triangle");
        assert_eq!(collision.triangle_records, vec![1]);
        assert_eq!(collision.positions, [0, 3, 5].map(|k| wmo_to_bevy(group.positions[k])).to_vec());
        assert_eq!(collision.normals, vec![[0.0, 1.0, 0.0]; 3]);
    }

    #[test]
    fn colour_bytes_are_looked_up_as_they_divide() {
        for x in 0..=255u8 {
            assert_eq!(UNIT_OF_BYTE[usize::from(x)].to_bits(), (f32::from(x) / 255.0).to_bits());
        }
    }
}
