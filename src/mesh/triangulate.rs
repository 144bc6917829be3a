//! Polygon triangulation on the polygon's best-fit plane with earcut (ear clipping), never a fan, so
//! concave polygons keep their shape. Output triangles keep the polygon's own winding.

use earcut::Earcut;

use super::{cross, dot, normalize, sub};

/// Reusable buffers: one triangulator serves a whole mesh build without allocating per polygon.
pub struct Triangulator {
    earcut: Earcut<f64>,
    projected: Vec<[f64; 2]>,
    local: Vec<u32>,
}

impl Default for Triangulator {
    fn default() -> Self {
        Self::new()
    }
}

/// Newell's normal: robust for concave and slightly non-planar polygons; its length is twice the area.
pub fn newell_normal(points: &[[f32; 3]]) -> [f32; 3] {
    let mut n = [0.0f64; 3];
    for (i, a) in points.iter().enumerate() {
        let b = points[(i + 1) % points.len()];
        let (a, b) = (a.map(f64::from), b.map(f64::from));
        n[0] += (a[1] - b[1]) * (a[2] + b[2]);
        n[1] += (a[2] - b[2]) * (a[0] + b[0]);
        n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    n.map(|c| c as f32)
}

impl Triangulator {
    pub fn new() -> Self {
        Self { earcut: Earcut::new(), projected: Vec::new(), local: Vec::new() }
    }

    /// Appends triangles of the polygon `points` to `out`, as indices into `points`. Returns how many
    /// were added; a polygon with non-finite or collinear points yields none.
    pub fn triangulate(&mut self, points: &[[f32; 3]], out: &mut Vec<[u32; 3]>) -> usize {
        let n = points.len();
        if n < 3 || points.iter().any(|p| p.iter().any(|c| !c.is_finite())) {
            return 0;
        }
        if n == 3 {
            out.push([0, 1, 2]);
            return 1;
        }
        let Some(normal) = normalize(newell_normal(points)) else {
            return 0;
        };
        // An orthonormal basis (u, v) of the plane with u × v = normal, so projected winding matches.
        let helper = if normal[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
        let Some(u) = normalize(cross(helper, normal)) else {
            return 0;
        };
        let v = cross(normal, u);
        self.projected.clear();
        let origin = points[0];
        self.projected.extend(points.iter().map(|p| {
            let d = sub(*p, origin);
            [f64::from(dot(d, u)), f64::from(dot(d, v))]
        }));
        self.earcut.earcut(self.projected.iter().copied(), &[] as &[u32], &mut self.local);
        let before = out.len();
        for t in self.local.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]];
            let [pa, pb, pc] = [a, b, c].map(|i| self.projected[i as usize]);
            let signed = (pb[0] - pa[0]) * (pc[1] - pa[1]) - (pc[0] - pa[0]) * (pb[1] - pa[1]);
            // Earcut's output orientation is its own; turn each triangle to the polygon's winding.
            out.push(if signed >= 0.0 { [a, b, c] } else { [a, c, b] });
        }
        out.len() - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(points: &[[f32; 3]], tris: &[[u32; 3]]) -> f32 {
        tris.iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| points[i as usize]);
                0.5 * dot(cross(sub(b, a), sub(c, a)), [0.0, 0.0, 1.0])
            })
            .sum()
    }

    #[test]
    fn concave_polygon_is_covered_once_with_the_input_winding() {
        // An L shape, counter-clockwise about +Z; a fan from vertex 0 would leave the notch filled.
        let l = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 2.0, 0.0]];
        let mut t = Triangulator::new();
        let mut tris = Vec::new();
        assert_eq!(t.triangulate(&l, &mut tris), 4);
        assert!((area(&l, &tris) - 3.0).abs() < 1e-5);
        for tri in &tris {
            assert!(area(&l, &[*tri]) > 0.0, "inverted triangle {tri:?}");
        }
    }

    #[test]
    fn clockwise_input_stays_clockwise() {
        let square = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
        let mut tris = Vec::new();
        Triangulator::new().triangulate(&square, &mut tris);
        assert!((area(&square, &tris) + 1.0).abs() < 1e-5);
    }

    #[test]
    fn non_finite_points_give_no_triangles() {
        let bad = [[0.0, 0.0, 0.0], [f32::NAN, 1.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
        let mut tris = Vec::new();
        assert_eq!(Triangulator::new().triangulate(&bad, &mut tris), 0);
    }
}
