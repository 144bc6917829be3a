//! Which WMO groups the camera can see, the way the game client (and WebWowViewerCpp) decides it: the
//! interior groups the camera stands in are drawn, and from there every group reached through a chain
//! of portals, each portal clipped to the view that reaches it, so the view narrows portal by portal.
//! Exterior groups are always drawn, and seen from outside they are where the chains start. A doodad
//! is drawn with the groups whose MODR lists it. Everything here is in scene space (Y up); no Bevy.

use crate::formats::wmo::{WmoGroup, WmoRoot};
use crate::mesh::Bounds;
use crate::mesh::coords::wmo_to_bevy;

/// A half-space `n·p + d ≥ 0`, as `[n.x, n.y, n.z, d]`.
pub type Plane = [f32; 4];

/// The groups, the portals between them and which doodads each group holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortalGraph {
    pub groups: Vec<CullGroup>,
    /// Portal polygons (MOPT over MOPV), in scene space.
    pub portals: Vec<Vec<[f32; 3]>>,
    /// The number of MODD entries: doodads no group lists are always drawn.
    pub doodad_count: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CullGroup {
    /// False for a group whose file is missing: it is never drawn.
    pub present: bool,
    pub exterior: bool,
    /// The MOGP bounding box with the group's geometry, in scene space: the camera is in an interior
    /// group when it is inside this box.
    pub bounds: Bounds,
    /// Its MOPR entries: a portal and the group on the other side.
    pub links: Vec<PortalLink>,
    /// MODD indices its MODR lists.
    pub doodads: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortalLink {
    pub portal: usize,
    pub to: usize,
}

/// What the camera sees, for one camera placement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupVisibility {
    /// One flag per group.
    pub groups: Vec<bool>,
    /// One flag per MODD entry.
    pub doodads: Vec<bool>,
    /// The interior groups the camera is inside (empty: it is outside, or the graph tells nothing).
    pub camera_in: Vec<usize>,
}

impl GroupVisibility {
    pub fn drawn_count(&self) -> usize {
        self.groups.iter().filter(|&&d| d).count()
    }

    pub fn group_drawn(&self, group: usize) -> bool {
        self.groups.get(group).copied().unwrap_or(true)
    }

    pub fn doodad_drawn(&self, doodad: usize) -> bool {
        self.doodads.get(doodad).copied().unwrap_or(true)
    }
}

/// Portal crossings one traversal may make before it gives up and draws every group: a chain never
/// crosses a portal twice, but a maze of wide portals could still have very many chains.
const CROSSING_BUDGET: usize = 20_000;

impl PortalGraph {
    /// The graph of a root and the groups that were read: `(MOGI index, group, the bounds of its built
    /// geometry in scene space)`.
    pub fn from_wmo(root: &WmoRoot, groups: &[(usize, &WmoGroup, Bounds)]) -> Self {
        let count = root.group_infos.len().max(groups.iter().map(|(i, _, _)| i + 1).max().unwrap_or(0));
        let mut out = PortalGraph {
            groups: vec![CullGroup::default(); count],
            portals: Vec::with_capacity(root.portals.len()),
            doodad_count: root.doodads.len(),
        };
        for portal in &root.portals {
            let start = usize::from(portal.first_vertex);
            let corners = root.portal_vertices.get(start..start + usize::from(portal.vertex_count)).unwrap_or(&[]);
            out.portals.push(corners.iter().map(|&p| wmo_to_bevy(p)).collect());
        }
        for &(i, group, geometry) in groups {
            let header = &group.header;
            let mut bounds = geometry;
            let [lo, hi] = header.bounding_box;
            if (0..3).all(|k| lo[k] <= hi[k]) {
                bounds.include(wmo_to_bevy(lo));
                bounds.include(wmo_to_bevy(hi));
            }
            let start = usize::from(header.portal_start);
            let refs = root.portal_refs.get(start..start + usize::from(header.portal_count)).unwrap_or(&[]);
            let links = refs
                .iter()
                .map(|r| PortalLink { portal: usize::from(r.portal), to: usize::from(r.group) })
                .filter(|l| l.portal < out.portals.len() && l.to < count && l.to != i)
                .collect();
            out.groups[i] = CullGroup {
                present: true,
                exterior: header.is_exterior(),
                bounds,
                links,
                doodads: group
                    .doodad_refs
                    .iter()
                    .map(|&d| usize::from(d))
                    .filter(|&d| d < root.doodads.len())
                    .collect(),
            };
        }
        out
    }

    /// The groups and doodads seen from `eye` through the view `frustum` (half-spaces that hold the
    /// view volume, as [`frustum_planes`] gives them).
    pub fn visible(&self, eye: [f32; 3], frustum: &[Plane]) -> GroupVisibility {
        let n = self.groups.len();
        let mut drawn: Vec<bool> = self.groups.iter().map(|g| g.present && g.exterior).collect();
        let camera_in: Vec<usize> = (0..n)
            .filter(|&g| self.groups[g].present && !self.groups[g].exterior && contains(&self.groups[g].bounds, eye))
            .collect();
        let starts: Vec<usize> =
            if camera_in.is_empty() { (0..n).filter(|&g| drawn[g]).collect() } else { camera_in.clone() };
        let has_portals = self.groups.iter().any(|g| !g.links.is_empty());
        let mut everything = starts.is_empty() || !has_portals;
        if !everything {
            let mut walk = Walk { graph: self, drawn: &mut drawn, path: Vec::new(), budget: CROSSING_BUDGET };
            for &start in &starts {
                walk.drawn[start] = true;
                if !walk.through(start, eye, frustum) {
                    everything = true;
                    break;
                }
            }
        }
        if everything {
            // Nothing to reason from (no portals, or outside every group with no exterior to start at),
            // or too many chains: everything that was read is drawn.
            drawn = self.groups.iter().map(|g| g.present).collect();
        }
        let mut doodads = vec![true; self.doodad_count];
        let mut listed = vec![false; self.doodad_count];
        for (g, group) in self.groups.iter().enumerate() {
            for &d in &group.doodads {
                doodads[d] = if listed[d] { doodads[d] || drawn[g] } else { drawn[g] };
                listed[d] = true;
            }
        }
        GroupVisibility { groups: drawn, doodads, camera_in }
    }
}

struct Walk<'a> {
    graph: &'a PortalGraph,
    drawn: &'a mut Vec<bool>,
    /// The portals of the chain being followed.
    path: Vec<usize>,
    budget: usize,
}

impl Walk<'_> {
    /// Follows every portal of `group` that shows inside `view`; false when the budget ran out.
    fn through(&mut self, group: usize, eye: [f32; 3], view: &[Plane]) -> bool {
        for link in &self.graph.groups[group].links {
            if self.path.contains(&link.portal) || !self.graph.groups[link.to].present {
                continue;
            }
            let mut polygon = self.graph.portals[link.portal].clone();
            for plane in view {
                polygon = clip(&polygon, *plane);
                if polygon.len() < 3 {
                    break;
                }
            }
            if polygon.len() < 3 {
                continue;
            }
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            self.drawn[link.to] = true;
            let narrowed = narrow(eye, &polygon).unwrap_or_else(|| view.to_vec());
            self.path.push(link.portal);
            let finished = self.through(link.to, eye, &narrowed);
            self.path.pop();
            if !finished {
                return false;
            }
        }
        true
    }
}

fn contains(bounds: &Bounds, p: [f32; 3]) -> bool {
    !bounds.is_empty() && (0..3).all(|k| p[k] >= bounds.min[k] - 1e-3 && p[k] <= bounds.max[k] + 1e-3)
}

fn dot(plane: Plane, p: [f32; 3]) -> f32 {
    plane[0] * p[0] + plane[1] * p[1] + plane[2] * p[2] + plane[3]
}

/// The part of a convex polygon inside a half-space (Sutherland–Hodgman, one plane).
fn clip(polygon: &[[f32; 3]], plane: Plane) -> Vec<[f32; 3]> {
    let mut out = Vec::with_capacity(polygon.len() + 1);
    for (i, &a) in polygon.iter().enumerate() {
        let b = polygon[(i + 1) % polygon.len()];
        let (da, db) = (dot(plane, a), dot(plane, b));
        if da >= 0.0 {
            out.push(a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            let t = da / (da - db);
            out.push(std::array::from_fn(|k| a[k] + (b[k] - a[k]) * t));
        }
    }
    out
}

/// The view through a portal polygon already clipped to the view: a plane through the eye and each
/// edge, and the portal's own plane so that only what lies beyond it is in. `None` when the eye is in
/// the portal's plane (standing in the doorway), where the view does not narrow.
fn narrow(eye: [f32; 3], polygon: &[[f32; 3]]) -> Option<Vec<Plane>> {
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let n = polygon.len() as f32;
    let centroid: [f32; 3] = std::array::from_fn(|k| polygon.iter().map(|p| p[k]).sum::<f32>() / n);
    let oriented = |normal: [f32; 3], through: [f32; 3]| -> Option<Plane> {
        let length = (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]).sqrt();
        if length < 1e-12 {
            return None;
        }
        let normal = normal.map(|c| c / length);
        let mut plane = [
            normal[0],
            normal[1],
            normal[2],
            -(normal[0] * through[0] + normal[1] * through[1] + normal[2] * through[2]),
        ];
        if dot(plane, centroid) < 0.0 {
            plane = plane.map(|c| -c);
        }
        Some(plane)
    };
    // The portal's plane from its corners (Newell's method), facing away from the eye.
    let mut normal = [0.0f32; 3];
    for (i, a) in polygon.iter().enumerate() {
        let b = polygon[(i + 1) % polygon.len()];
        normal[0] += (a[1] - b[1]) * (a[2] + b[2]);
        normal[1] += (a[2] - b[2]) * (a[0] + b[0]);
        normal[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    let length = (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]).sqrt();
    if length < 1e-12 {
        return None;
    }
    let normal = normal.map(|c| c / length);
    let distance =
        normal[0] * (eye[0] - centroid[0]) + normal[1] * (eye[1] - centroid[1]) + normal[2] * (eye[2] - centroid[2]);
    let size = polygon
        .iter()
        .map(|p| sub(*p, centroid))
        .map(|v| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
        .fold(0.0f32, f32::max);
    if distance.abs() <= 1e-3 * size.max(1.0) {
        return None;
    }
    let away = if distance > 0.0 { normal.map(|c| -c) } else { normal };
    let mut planes =
        vec![[away[0], away[1], away[2], -(away[0] * centroid[0] + away[1] * centroid[1] + away[2] * centroid[2])]];
    for (i, &a) in polygon.iter().enumerate() {
        let b = polygon[(i + 1) % polygon.len()];
        let (ea, eb) = (sub(a, eye), sub(b, eye));
        let cross = [ea[1] * eb[2] - ea[2] * eb[1], ea[2] * eb[0] - ea[0] * eb[2], ea[0] * eb[1] - ea[1] * eb[0]];
        // A degenerate edge (two corners in line with the eye) bounds nothing.
        planes.extend(oriented(cross, eye));
    }
    Some(planes)
}

/// The six half-spaces of a view from its clip-from-world matrix (column-major, as Bevy and glam keep
/// it), for a depth range of 0 to 1 in either direction (Bevy's reversed infinite one included: its
/// far plane comes out as `0·p + near ≥ 0`, which holds everywhere).
pub fn frustum_planes(clip_from_world: [[f32; 4]; 4]) -> [Plane; 6] {
    let row = |r: usize| -> [f32; 4] { std::array::from_fn(|c| clip_from_world[c][r]) };
    let (x, y, z, w) = (row(0), row(1), row(2), row(3));
    let add = |a: [f32; 4], b: [f32; 4]| -> Plane { std::array::from_fn(|k| a[k] + b[k]) };
    let minus = |a: [f32; 4], b: [f32; 4]| -> Plane { std::array::from_fn(|k| a[k] - b[k]) };
    [add(w, x), minus(w, x), add(w, y), minus(w, y), z, minus(w, z)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_keeps_the_inside_part() {
        let square = [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 2.0, 0.0], [0.0, 2.0, 0.0]];
        let half = clip(&square, [-1.0, 0.0, 0.0, 1.0]);
        assert_eq!(half.len(), 4);
        assert!(half.iter().all(|p| p[0] <= 1.0 + 1e-6));
        assert!(clip(&square, [1.0, 0.0, 0.0, -3.0]).is_empty());
    }

    #[test]
    fn the_view_through_a_portal_keeps_only_what_lies_beyond_it() {
        let door = [[-1.0, -1.0, -5.0], [1.0, -1.0, -5.0], [1.0, 1.0, -5.0], [-1.0, 1.0, -5.0]];
        let planes = narrow([0.0; 3], &door).unwrap();
        let inside = |p: [f32; 3]| planes.iter().all(|&q| dot(q, p) >= -1e-5);
        assert!(inside([0.0, 0.0, -10.0]));
        assert!(inside([1.9, 0.0, -10.0]));
        assert!(!inside([2.1, 0.0, -10.0]), "outside the cone");
        assert!(!inside([0.0, 0.0, -4.0]), "before the portal");
        assert!(narrow([0.0, 0.0, -5.0], &door).is_none(), "standing in the doorway");
    }
}
