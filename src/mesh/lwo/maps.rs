//! Per-corner lookups into a layer's vertex maps: a VMAP read by point, the VMAD of the same name
//! overriding it at the corners it names, and which maps (or projection) each surface's corners read.

use std::sync::Arc;

use crate::formats::lwo::{Block, Layer, NONE, Projection, Surface, VertexMap};
use crate::mesh::normalize;

use super::HashMap;

/// Per-corner lookups into the vertex maps a surface uses, or the projection that makes its UVs.
pub(super) struct CornerMaps<'a> {
    pub(super) uv: Option<Arc<MapLookup<'a>>>,
    pub(super) projection: Option<&'a Block>,
    /// Another TXUV map of the layer, kept as the second UV set.
    pub(super) second_uv: Option<Arc<MapLookup<'a>>>,
    pub(super) color: Option<Arc<MapLookup<'a>>>,
    /// At which points all corners get the same values from these maps.
    pub(super) point_values: PointValues,
}

/// Where a surface's maps give every corner of a point the same values. There a corner whose point
/// already has a vertex in the mesh, made by such a corner, can take that vertex without its values
/// being made and compared: most corners of a smooth object (three of a grid point's four).
pub(super) enum PointValues {
    /// At no point: a cubic projection follows each polygon's normal, or a VMAD names a third of the
    /// corners or more (and is kept as a table by corner).
    PerCorner,
    /// At every point but those a VMAD of these maps names at some corner: a bit set per point, in
    /// the maps' tables joined into one (empty where no map has a VMAD).
    ExceptNamed(Vec<u64>),
}

impl PointValues {
    fn of(projection: Option<&Block>, maps: [&Option<Arc<MapLookup<'_>>>; 3]) -> Self {
        if projection.is_some_and(|b| b.projection == Projection::Cubic) {
            return Self::PerCorner;
        }
        let mut named: Vec<u64> = Vec::new();
        for map in maps.into_iter().flatten() {
            match &map.vmad {
                None => {}
                Some((_, VmadEntries::Sorted { point_has_corners, .. })) => {
                    named.resize(named.len().max(point_has_corners.len()), 0);
                    named.iter_mut().zip(point_has_corners).for_each(|(word, bits)| *word |= bits);
                }
                Some((_, VmadEntries::ByCorner(_))) => return Self::PerCorner,
            }
        }
        Self::ExceptNamed(named)
    }

    #[inline]
    pub(super) fn hold_at(&self, point: u32) -> bool {
        match self {
            Self::PerCorner => false,
            Self::ExceptNamed(named) => {
                named.get(point as usize / 64).is_none_or(|word| word & (1 << (point % 64)) == 0)
            }
        }
    }
}

/// A VMAP by point, with the VMAD of the same name overriding it by corner: a dense table by point,
/// and the VMAD's entries by corner ([`VmadEntries`]).
pub(super) struct MapLookup<'a> {
    vmap: Option<&'a VertexMap>,
    /// Entry k of the VMAP is point k, for every entry ([`MapPoints::in_point_order`]): no table is
    /// then needed.
    pub(super) in_point_order: bool,
    /// The points a map in point order answers for: its entries, and no point past the layer's (a
    /// second PNTS can leave fewer points than an earlier map named).
    ordered_points: usize,
    /// Otherwise the VMAP entry of each point.
    pub(super) entry_of_point: Vec<u32>,
    /// The VMAD of the same name, with where its entries are found.
    vmad: Option<(&'a VertexMap, VmadEntries)>,
    pub(super) dimension: usize,
}

/// Where a VMAD's entries are found, in the form that costs less memory for how many corners it names.
pub(super) enum VmadEntries {
    /// A VMAD that names few corners (UV seams, the usual kind): (point, polygon, entry), sorted for a
    /// binary search, with one bit a point for whether the point has any.
    Sorted { corners: Vec<(u32, u32, u32)>, point_has_corners: Vec<u64> },
    /// A VMAD that names a third of the corners or more (modo writes its normals as one naming every
    /// corner): the entry of each corner of the layer, by its place in the polygons' index column
    /// (`NONE`: none). Filled in the file's order, with no sort, and read with no search.
    ByCorner(Vec<u32>),
}

impl VmadEntries {
    pub(super) fn new(layer: &Layer, vmad: &VertexMap) -> Self {
        // Four bytes a corner against twelve an entry: the table is the smaller from a third on.
        let corners = layer.polygons.indices().len();
        if 3 * vmad.len() >= corners {
            // Each entry looks for its point among its polygon's corners: a few for real polygons,
            // but a crafted file can name one polygon of thousands of corners over and over.
            if let Some(table) = Self::by_corner(layer, vmad, 64 * corners + (1 << 20)) {
                return table;
            }
        }
        Self::sorted(layer, vmad)
    }

    /// The table, or `None` once more than `scan_budget` corners have been looked at.
    pub(super) fn by_corner(layer: &Layer, vmad: &VertexMap, scan_budget: usize) -> Option<Self> {
        let polys = &layer.polygons;
        let point_count = layer.points.len();
        let mut entry_of_corner = vec![NONE; polys.indices().len()];
        let mut scanned = 0usize;
        // A later entry for the same corner wins, as the file's order says. An entry names each corner
        // of its polygon at its point (a point a polygon lists twice has two); an entry for a point
        // past the layer's (a second PNTS left fewer) names none, as the VMAP's do not.
        for (entry, (point, &polygon)) in vmad.points.iter().zip(&vmad.polygons).enumerate() {
            let Some(&[start, end]) = polys.starts().get(polygon as usize..).and_then(|s| s.first_chunk::<2>()) else {
                continue;
            };
            if point as usize >= point_count {
                continue;
            }
            scanned += (end - start) as usize;
            if scanned > scan_budget {
                return None;
            }
            let end = (end as usize).min(polys.indices().len());
            let start = (start as usize).min(end);
            for (slot, &at_point) in entry_of_corner[start..end].iter_mut().zip(&polys.indices()[start..end]) {
                if at_point == point {
                    *slot = entry as u32;
                }
            }
        }
        Some(Self::ByCorner(entry_of_corner))
    }

    pub(super) fn sorted(layer: &Layer, vmad: &VertexMap) -> Self {
        let point_count = layer.points.len();
        let mut corners: Vec<(u32, u32, u32)> =
            vmad.points.iter().zip(&vmad.polygons).enumerate().map(|(i, (p, &poly))| (p, poly, i as u32)).collect();
        // A later entry for the same corner wins, as the file's order says.
        // Entry numbers are unique, so no two keys are equal and an unstable sort gives the same order.
        corners.sort_unstable_by_key(|&(p, poly, i)| (p, poly, std::cmp::Reverse(i)));
        corners.dedup_by_key(|&mut (p, poly, _)| (p, poly));
        let mut point_has_corners = vec![0u64; point_count.div_ceil(64)];
        for &(p, _, _) in corners.iter().filter(|&&(p, _, _)| (p as usize) < point_count) {
            if let Some(word) = point_has_corners.get_mut(p as usize / 64) {
                *word |= 1 << (p % 64);
            }
        }
        Self::Sorted { corners, point_has_corners }
    }

    /// The entry for a corner, if the VMAD names it. Always inlined, as [`MapLookup::entry`] is; no
    /// `bool::then` closure, which stayed a call.
    #[inline(always)]
    pub(super) fn at(&self, corner: Corner) -> Option<usize> {
        match self {
            Self::ByCorner(entry_of_corner) => {
                entry_of_corner.get(corner.at).filter(|&&e| e != NONE).map(|&e| e as usize)
            }
            Self::Sorted { corners, point_has_corners } => {
                let Corner { point, polygon, .. } = corner;
                // The point's bit first: most points have no entry.
                let has_corners =
                    point_has_corners.get(point as usize / 64).is_some_and(|word| word & (1 << (point % 64)) != 0);
                if !has_corners {
                    return None;
                }
                let at = corners.binary_search_by_key(&(point, polygon), |&(p, poly, _)| (p, poly)).ok()?;
                Some(corners[at].2 as usize)
            }
        }
    }
}

/// One corner of a polygon: its point, its polygon, and its place in the layer's index column
/// (`Polygons::indices`).
#[derive(Clone, Copy)]
pub(super) struct Corner {
    pub(super) point: u32,
    pub(super) polygon: u32,
    pub(super) at: usize,
}

impl<'a> MapLookup<'a> {
    pub(super) fn new(layer: &'a Layer, kinds: &[&[u8; 4]], name: &str) -> Option<Self> {
        let find = |discontinuous: bool| -> Option<&'a VertexMap> {
            layer
                .vertex_maps
                .iter()
                .find(|m| kinds.contains(&&m.kind.0) && m.name == name && m.discontinuous == discontinuous)
        };
        let vmap = find(false);
        let vmad = find(true);
        let dimension = usize::from(vmap.or(vmad)?.dimension);
        let point_count = layer.points.len();
        let in_point_order = vmap.is_some_and(|m| m.points.in_point_order());
        let ordered_points = vmap.map_or(0, |m| m.points.len().min(point_count));
        let mut entry_of_point = vec![NONE; if vmap.is_some() && !in_point_order { point_count } else { 0 }];
        for (i, p) in vmap.iter().filter(|_| !in_point_order).flat_map(|m| m.points.iter()).enumerate() {
            if let Some(slot) = entry_of_point.get_mut(p as usize) {
                *slot = i as u32;
            }
        }
        let vmad = vmad.map(|vmad| (vmad, VmadEntries::new(layer, vmad)));
        Some(Self { vmap, in_point_order, ordered_points, entry_of_point, vmad, dimension })
    }

    /// Whether every corner of `layer` finds a direction here (a value of three that normalizes):
    /// its point's VMAP entry, or a VMAD entry for the corner, which wins. A corner naming a point past
    /// the layer's (a second PNTS left fewer) finds none.
    pub(super) fn directs_every_corner(&self, layer: &Layer) -> bool {
        let point_count = layer.points.len();
        let directions = |map: &VertexMap| {
            let (values, rest) = map.values.as_chunks::<3>();
            rest.is_empty() && values.len() == map.len() && values.iter().all(|&v| normalize(v).is_some())
        };
        let every_point = match self.vmap {
            Some(vmap) if self.in_point_order => vmap.points.len() >= point_count,
            Some(_) => self.entry_of_point.iter().all(|&e| e != NONE),
            None => false,
        };
        self.dimension == 3
            && every_point
            && self.vmap.is_some_and(directions)
            && self.vmad.as_ref().is_none_or(|(vmad, _)| directions(vmad))
            // The largest index, not a test of each: a loop without an exit, which the compiler vectorizes.
            && layer.polygons.indices().iter().copied().max().is_none_or(|v| (v as usize) < point_count)
    }

    /// The map and entry that give a corner its value: the VMAD's for the corner, else the VMAP's for
    /// its point. The per-corner lookups are always inlined: with `build_range` compiled twice, the
    /// compiler made them calls, a call per corner (4 % of a modo object's load).
    #[inline(always)]
    fn entry(&self, corner: Corner) -> Option<(&'a VertexMap, usize)> {
        // The VMAD is asked only when there is one: most maps have none.
        if let Some((vmad, entries)) = &self.vmad
            && let Some(entry) = entries.at(corner)
        {
            return Some((vmad, entry));
        }
        self.point_entry(corner.point)
    }

    /// The VMAP's entry for a point, whatever the VMAD says at its corners.
    #[inline(always)]
    pub(super) fn point_entry(&self, point: u32) -> Option<(&'a VertexMap, usize)> {
        let vmap = self.vmap?;
        let entry = if self.in_point_order {
            Some(point).filter(|&p| (p as usize) < self.ordered_points)?
        } else {
            *self.entry_of_point.get(point as usize)?
        };
        (entry != NONE).then_some((vmap, entry as usize))
    }

    #[inline(always)]
    pub(super) fn get(&self, corner: Corner) -> Option<&'a [f32]> {
        self.entry(corner).map(|(map, entry)| map.value(entry))
    }

    /// The UV at a corner as meshes take it, v running down the image: the map's first two values, a
    /// missing one read as 0.
    #[inline(always)]
    pub(super) fn uv(&self, corner: Corner) -> Option<[f32; 2]> {
        Self::uv_of(self.entry(corner)?)
    }

    /// The VMAP's UV for a point, as [`Self::uv`] gives it.
    pub(super) fn point_uv(&self, point: u32) -> Option<[f32; 2]> {
        Self::uv_of(self.point_entry(point)?)
    }

    #[inline(always)]
    fn uv_of((map, entry): (&VertexMap, usize)) -> Option<[f32; 2]> {
        if map.dimension == 2 {
            // The usual UV map, its values taken as pairs: one bounds test, no multiplication.
            return Some(map.values.as_chunks::<2>().0.get(entry).map_or([0.0, 1.0], |&[u, v]| [u, 1.0 - v]));
        }
        let value = map.value(entry);
        Some(match value.first_chunk() {
            Some(&[u, v]) => [u, 1.0 - v],
            None => [value.first().copied().unwrap_or(0.0), 1.0],
        })
    }
}

/// Lookups built once per map and shared by every surface (and thread) that reads it.
#[derive(Default)]
pub(super) struct MapLookups<'a> {
    built: Vec<(&'static [&'static [u8; 4]], String, Option<Arc<MapLookup<'a>>>)>,
}

impl<'a> MapLookups<'a> {
    pub(super) fn get(
        &mut self,
        layer: &'a Layer,
        kinds: &'static [&'static [u8; 4]],
        name: &str,
    ) -> Option<Arc<MapLookup<'a>>> {
        if let Some((_, _, lookup)) = self.built.iter().find(|(k, n, _)| std::ptr::eq(*k, kinds) && n == name) {
            return lookup.clone();
        }
        let lookup = MapLookup::new(layer, kinds, name).map(Arc::new);
        self.built.push((kinds, name.to_string(), lookup.clone()));
        lookup
    }
}

pub(super) const UV_KINDS: &[&[u8; 4]] = &[b"TXUV"];
const COLOR_KINDS: &[&[u8; 4]] = &[b"RGB ", b"RGBA"];

/// The UV map a surface reads: its colour block's, else the layer's first — unless the colour block
/// projects its own coordinates.
pub(super) fn uv_map_name<'a>(layer: &'a Layer, surface: Option<&'a Surface>) -> Option<&'a str> {
    let block = surface.and_then(|s| s.color_map());
    if block.is_some_and(|b| b.projection != Projection::Uv) {
        return None;
    }
    block
        .and_then(|b| b.uv_map.as_deref())
        .or_else(|| layer.vertex_maps.iter().find(|m| m.is_uv()).map(|m| m.name.as_str()))
}

pub(super) fn projecting_block(surface: Option<&Surface>) -> Option<&Block> {
    surface.and_then(|s| s.color_map()).filter(|b| !matches!(b.projection, Projection::Uv | Projection::Front))
}

/// The maps of every surface the layer's polygons use, each map's lookup built once.
pub(super) fn corner_maps_by_surface<'a>(
    layer: &'a Layer,
    surfaces: &'a [Surface],
    lookups: &mut MapLookups<'a>,
) -> HashMap<u32, CornerMaps<'a>> {
    layer
        .polygons
        .surfaces_used()
        .into_iter()
        .map(|surface_index| {
            let surface = surfaces.get(surface_index as usize);
            let primary = uv_map_name(layer, surface);
            let uv = primary.and_then(|name| lookups.get(layer, UV_KINDS, name));
            let color = surface
                .and_then(|s| s.vertex_color.as_ref())
                .and_then(|vc| lookups.get(layer, COLOR_KINDS, &vc.map_name));
            let second_uv = layer
                .vertex_maps
                .iter()
                .find(|m| m.is_uv() && Some(m.name.as_str()) != primary)
                .and_then(|m| lookups.get(layer, UV_KINDS, &m.name));
            let projection = projecting_block(surface);
            let point_values = PointValues::of(projection, [&uv, &second_uv, &color]);
            (surface_index, CornerMaps { uv, projection, second_uv, color, point_values })
        })
        .collect()
}
