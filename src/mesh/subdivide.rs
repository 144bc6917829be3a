//! Catmull–Clark subdivision of LightWave PTCH/SUBD cages. LightWave's own scheme is undocumented;
//! Catmull–Clark is what it approximates, and open edges (and edges shared by more than two faces) are
//! kept sharp with the usual boundary rules, so an open cage does not shrink away from its border.

use std::collections::HashMap;

/// A polygon mesh: points and faces as point-index lists, with one extra value vector per point carried
/// through the same averaging (UVs, colours).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cage {
    pub points: Vec<[f32; 3]>,
    pub extras: Vec<Vec<f32>>,
    pub faces: Vec<Vec<u32>>,
    /// For each face, the record it descends from (the cage polygon's position in its layer), so a
    /// subdivided triangle still names the polygon of the file it came from.
    pub face_origins: Vec<u32>,
}

/// The most levels allowed: each level multiplies the face count by about four.
pub const MAX_LEVEL: u32 = 6;

fn edge_key(a: u32, b: u32) -> (u32, u32) {
    if a < b { (a, b) } else { (b, a) }
}

fn lerp_into(acc: &mut [f32], value: &[f32], weight: f32) {
    for (a, v) in acc.iter_mut().zip(value) {
        *a += v * weight;
    }
}

/// One Catmull–Clark step: every n-gon becomes n quads.
pub fn subdivide_once(cage: &Cage) -> Cage {
    let width = cage.extras.first().map_or(0, Vec::len);
    let point_count = cage.points.len();
    // Each point's values as one vector: position then extras, so one averaging serves both.
    let value = |p: u32| -> Vec<f32> {
        let i = p as usize;
        let mut v = cage.points.get(i).map_or(vec![0.0; 3], |p| p.to_vec());
        v.extend(cage.extras.get(i).cloned().unwrap_or_else(|| vec![0.0; width]));
        v
    };
    let dim = 3 + width;
    let face_points: Vec<Vec<f32>> = cage
        .faces
        .iter()
        .map(|f| {
            let mut acc = vec![0.0; dim];
            for &p in f {
                lerp_into(&mut acc, &value(p), 1.0 / f.len() as f32);
            }
            acc
        })
        .collect();
    let mut edges: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (fi, f) in cage.faces.iter().enumerate() {
        for k in 0..f.len() {
            edges.entry(edge_key(f[k], f[(k + 1) % f.len()])).or_default().push(fi);
        }
    }
    let mut edge_index: HashMap<(u32, u32), u32> = HashMap::new();
    let mut edge_values: Vec<Vec<f32>> = Vec::with_capacity(edges.len());
    let mut keys: Vec<&(u32, u32)> = edges.keys().collect();
    keys.sort();
    for key in keys {
        let faces = &edges[key];
        let mut acc = vec![0.0; dim];
        if faces.len() == 2 {
            for v in [value(key.0), value(key.1), face_points[faces[0]].clone(), face_points[faces[1]].clone()] {
                lerp_into(&mut acc, &v, 0.25);
            }
        } else {
            lerp_into(&mut acc, &value(key.0), 0.5);
            lerp_into(&mut acc, &value(key.1), 0.5);
        }
        edge_index.insert(*key, (point_count + cage.faces.len() + edge_values.len()) as u32);
        edge_values.push(acc);
    }
    // Per point: adjacent faces, and edges with whether each is sharp.
    let mut point_faces: Vec<Vec<usize>> = vec![Vec::new(); point_count];
    for (fi, f) in cage.faces.iter().enumerate() {
        for &p in f {
            if let Some(list) = point_faces.get_mut(p as usize) {
                if !list.contains(&fi) {
                    list.push(fi);
                }
            }
        }
    }
    let mut point_edges: Vec<Vec<((u32, u32), bool)>> = vec![Vec::new(); point_count];
    for (key, faces) in &edges {
        let sharp = faces.len() != 2;
        for p in [key.0, key.1] {
            if let Some(list) = point_edges.get_mut(p as usize) {
                list.push((*key, sharp));
            }
        }
    }
    let mut new_values: Vec<Vec<f32>> = Vec::with_capacity(point_count + face_points.len() + edge_values.len());
    for p in 0..point_count as u32 {
        let original = value(p);
        let faces = &point_faces[p as usize];
        let edges_here = &point_edges[p as usize];
        let sharp: Vec<&(u32, u32)> = edges_here.iter().filter(|(_, s)| *s).map(|(k, _)| k).collect();
        let mut acc = vec![0.0; dim];
        if faces.is_empty() {
            acc = original;
        } else if sharp.len() >= 2 {
            if sharp.len() == 2 {
                // On an open border: 3/4 the point, 1/8 each border neighbour.
                lerp_into(&mut acc, &original, 0.75);
                for k in &sharp {
                    let other = if k.0 == p { k.1 } else { k.0 };
                    lerp_into(&mut acc, &value(other), 0.125);
                }
            } else {
                acc = original;
            }
        } else {
            let n = faces.len() as f32;
            let mut f_avg = vec![0.0; dim];
            for &fi in faces {
                lerp_into(&mut f_avg, &face_points[fi], 1.0 / n);
            }
            let mut r_avg = vec![0.0; dim];
            let m = edges_here.len().max(1) as f32;
            for (k, _) in edges_here {
                lerp_into(&mut r_avg, &value(k.0), 0.5 / m);
                lerp_into(&mut r_avg, &value(k.1), 0.5 / m);
            }
            lerp_into(&mut acc, &f_avg, 1.0 / n);
            lerp_into(&mut acc, &r_avg, 2.0 / n);
            lerp_into(&mut acc, &original, (n - 3.0) / n);
        }
        new_values.push(acc);
    }
    new_values.extend(face_points);
    new_values.extend(edge_values);
    let mut faces = Vec::with_capacity(cage.faces.iter().map(Vec::len).sum());
    let mut face_origins = Vec::with_capacity(if cage.face_origins.is_empty() { 0 } else { faces.capacity() });
    for (fi, f) in cage.faces.iter().enumerate() {
        if let Some(&origin) = cage.face_origins.get(fi) {
            face_origins.extend(std::iter::repeat_n(origin, f.len()));
        }
        let center = (point_count + fi) as u32;
        let n = f.len();
        for k in 0..n {
            let prev = edge_index[&edge_key(f[(k + n - 1) % n], f[k])];
            let next = edge_index[&edge_key(f[k], f[(k + 1) % n])];
            faces.push(vec![f[k], next, center, prev]);
        }
    }
    Cage {
        points: new_values.iter().map(|v| [v[0], v[1], v[2]]).collect(),
        extras: if width > 0 { new_values.iter().map(|v| v[3..].to_vec()).collect() } else { Vec::new() },
        faces,
        face_origins,
    }
}

pub fn subdivide(cage: &Cage, levels: u32) -> Cage {
    let mut out = cage.clone();
    for _ in 0..levels.min(MAX_LEVEL) {
        out = subdivide_once(&out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> Cage {
        let points = (0..8).map(|i| [(i & 1) as f32 * 2.0 - 1.0, ((i >> 1) & 1) as f32 * 2.0 - 1.0, ((i >> 2) & 1) as f32 * 2.0 - 1.0]).collect();
        let faces = vec![vec![0, 2, 3, 1], vec![4, 5, 7, 6], vec![0, 1, 5, 4], vec![2, 6, 7, 3], vec![0, 4, 6, 2], vec![1, 3, 7, 5]];
        Cage { points, extras: Vec::new(), faces, face_origins: Vec::new() }
    }

    #[test]
    fn a_closed_cube_becomes_rounder_with_four_times_the_faces() {
        let once = subdivide(&cube(), 1);
        assert_eq!(once.faces.len(), 24);
        assert_eq!(once.points.len(), 8 + 6 + 12);
        // Corners move in towards the centre (they were at distance √3).
        let corner = once.points[7];
        let r = (corner[0] * corner[0] + corner[1] * corner[1] + corner[2] * corner[2]).sqrt();
        assert!(r < 3f32.sqrt() - 0.1, "{r}");
        let twice = subdivide(&cube(), 2);
        assert_eq!(twice.faces.len(), 96);
    }

    #[test]
    fn an_open_quad_keeps_its_border_corners() {
        let quad = Cage { points: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]], extras: Vec::new(), faces: vec![vec![0, 1, 2, 3]], face_origins: vec![7] };
        let out = subdivide(&quad, 2);
        assert_eq!(out.faces.len(), 16);
        assert_eq!(out.face_origins, vec![7; 16]);
        assert!(out.points.iter().all(|p| p[2] == 0.0 && (-1e-6..=1.0 + 1e-6).contains(&p[0])));
    }
}
