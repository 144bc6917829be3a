//! Vertex maps (VMAP, VMAD), the compact list of the points they name ([`MapPoints`]), and the
//! morph targets seen through them ([`Morph`]). Their own file: per-point data, apart from polygons and
//! surfaces.

use super::NONE;
use crate::formats::fourcc::FourCc;

/// A VMAP (per point) or VMAD (per polygon corner).
#[derive(Clone, Debug, PartialEq)]
pub struct VertexMap {
    pub kind: FourCc,
    pub dimension: u16,
    pub name: String,
    pub discontinuous: bool,
    /// The point of each entry.
    pub points: MapPoints,
    /// VMAD only: the polygon (layer-wide index) each entry belongs to.
    pub polygons: Vec<u32>,
    /// `dimension` values per entry.
    pub values: Vec<f32>,
    /// VMPA before the map: UV subdivision type and sketch colour.
    pub parameters: Option<[i32; 2]>,
}

impl VertexMap {
    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    pub fn value(&self, entry: usize) -> &[f32] {
        let d = usize::from(self.dimension);
        self.values.get(entry * d..entry * d + d).unwrap_or(&[])
    }

    pub fn is_uv(&self) -> bool {
        self.kind.0 == *b"TXUV"
    }

    pub fn is_color(&self) -> bool {
        matches!(&self.kind.0, b"RGB " | b"RGBA")
    }
}

/// The point of each entry of a vertex map. LightWave writes a VMAP that covers the points from the
/// first on in their order (a UV map, a weight map, a morph of the whole mesh): while entry k is point
/// k for every k, only the count is kept, not a column as long as the points (4 MB a million).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapPoints {
    len: usize,
    /// Every entry's point, once one is out of that order; empty until then.
    listed: Vec<u32>,
}

impl MapPoints {
    #[inline]
    pub fn push(&mut self, point: u32) {
        if self.listed.is_empty() && point as usize == self.len {
            self.len += 1;
            return;
        }
        if self.listed.is_empty() {
            self.listed = (0..self.len as u32).collect();
        }
        self.listed.push(point);
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether entry k is point k for every entry.
    pub fn in_point_order(&self) -> bool {
        self.listed.is_empty()
    }

    /// Entry `entry`'s point.
    #[inline]
    pub fn get(&self, entry: usize) -> Option<u32> {
        match self.in_point_order() {
            true => (entry < self.len).then_some(entry as u32),
            false => self.listed.get(entry).copied(),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len).map(|entry| self.get(entry).unwrap_or(NONE))
    }
}

impl FromIterator<u32> for MapPoints {
    fn from_iter<I: IntoIterator<Item = u32>>(points: I) -> Self {
        let mut list = Self::default();
        points.into_iter().for_each(|p| list.push(p));
        list
    }
}

/// How a morph map's values move its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MorphKind {
    /// MORF: offsets added to the base positions.
    Relative,
    /// SPOT: the positions themselves.
    Absolute,
}

/// A morph target of a layer: a MORF or SPOT vertex map seen as per-point displacements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Morph<'a> {
    pub name: &'a str,
    pub kind: MorphKind,
    pub map: &'a VertexMap,
}

impl Morph<'_> {
    /// The points the map names, each with its value as stored (an offset for MORF, a position for SPOT).
    pub fn values(&self) -> impl Iterator<Item = (u32, [f32; 3])> + '_ {
        (0..self.map.len()).map(|i| {
            let v = self.map.value(i);
            (self.map.points.get(i).unwrap_or(NONE), [v[0], v[1], v[2]])
        })
    }

    /// One offset per point of `base` (the layer's points): zero where the map names no point, so a
    /// weight w moves point p to `base[p] + w · offsets[p]` for either kind.
    pub fn offsets(&self, base: &[[f32; 3]]) -> Vec<[f32; 3]> {
        let mut out = vec![[0.0; 3]; base.len()];
        for (point, value) in self.values() {
            let Some(slot) = out.get_mut(point as usize) else { continue };
            *slot = match self.kind {
                MorphKind::Relative => value,
                MorphKind::Absolute => {
                    let b = base[point as usize];
                    [value[0] - b[0], value[1] - b[1], value[2] - b[2]]
                }
            };
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_points_keep_only_a_count_while_in_point_order() {
        let ordered: MapPoints = [0, 1, 2].into_iter().collect();
        assert!(ordered.in_point_order() && ordered.listed.is_empty());
        assert_eq!((ordered.len(), ordered.iter().collect::<Vec<_>>(), ordered.get(3)), (3, vec![0, 1, 2], None));
        // A skipped point ends the order: every entry is then listed, the earlier ones too.
        let mut broken = ordered.clone();
        broken.push(5);
        broken.push(3);
        assert!(!broken.in_point_order());
        assert_eq!(broken.iter().collect::<Vec<_>>(), [0, 1, 2, 5, 3]);
        assert_eq!((broken.get(3), broken.get(5)), (Some(5), None));
        assert_eq!(broken, [0, 1, 2, 5, 3].into_iter().collect::<MapPoints>(), "one content, one form");
        let starts_late: MapPoints = [4, 5].into_iter().collect();
        assert_eq!((starts_late.in_point_order(), starts_late.iter().collect::<Vec<_>>()), (false, vec![4, 5]));
    }
}
