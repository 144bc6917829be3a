//! What each (surface, detail) mesh of a polygon range will hold, counted before the range is built so
//! that its columns, and the layer's, are sized once.

use std::ops::Range;

use crate::formats::lwo::{Layer, NONE, PolygonKind};

use super::{BuildOptions, HashMap};

/// Per (surface, detail) mesh: how many corners its polygons have and how many triangles they give
/// when none crosses itself.
pub(super) type MeshSizes = HashMap<(u32, bool), (usize, usize)>;

/// Per (surface, detail) mesh: the corners and the triangles its simple polygons will give (n − 2 each).
pub(super) fn expected_sizes(layer: &Layer, options: BuildOptions, range: Range<usize>) -> MeshSizes {
    let polys = &layer.polygons;
    let mut sizes = MeshSizes::default();
    // Where every polygon is a face on no other (nearly every layer), each run of a surface is summed
    // from the start column alone.
    if polys.kind().uniform() == Some(PolygonKind::Face) && polys.detail_of().uniform() == Some(NONE) {
        let index_count = polys.indices().len();
        polys.surface().for_each_run(range.start..range.end.min(polys.len()), |surface, run| {
            let (mut corners, mut triangles) = (0, 0);
            let starts = polys.starts().get(run.start..=run.end).unwrap_or(&[]);
            // Each polygon's corners from its start and the next, summed without a branch: a choice of
            // values per polygon, which the compiler does four at a time.
            for (&start, &end) in starts.iter().zip(starts.iter().skip(1)) {
                // As `Polygons::vertices` reads it: a polygon past the index column has no corners.
                let n = if start <= end && end as usize <= index_count { (end - start) as usize } else { 0 };
                let counted = if n >= 3 { n } else { 0 };
                corners += counted;
                triangles += counted.saturating_sub(2);
            }
            if corners > 0 {
                let entry = sizes.entry((surface, false)).or_default();
                *entry = (entry.0 + corners, entry.1 + triangles);
            }
        });
        return sizes;
    }
    expected_sizes_polygon_by_polygon(layer, options, range)
}

/// [`expected_sizes`] read polygon by polygon, as any layer can be.
pub(super) fn expected_sizes_polygon_by_polygon(
    layer: &Layer,
    options: BuildOptions,
    range: Range<usize>,
) -> MeshSizes {
    let polys = &layer.polygons;
    let mut sizes = MeshSizes::default();
    let mut run: Option<((u32, bool), usize, usize)> = None;
    let mut flush = |run: &mut Option<((u32, bool), usize, usize)>| {
        if let Some((key, corners, triangles)) = run.take() {
            let entry = sizes.entry(key).or_default();
            entry.0 += corners;
            entry.1 += triangles;
        }
    };
    for p in range {
        let n = polys.vertices(p).len();
        let kind = polys.kind()[p];
        if !kind.is_surface() || n < 3 || (kind == PolygonKind::Patch && options.subdivision_level > 0) {
            continue;
        }
        let key = (polys.surface().get(p), polys.detail_of()[p] != NONE);
        match &mut run {
            Some((k, corners, triangles)) if *k == key => {
                *corners += n;
                *triangles += n - 2;
            }
            _ => {
                flush(&mut run);
                run = Some((key, n, n - 2));
            }
        }
    }
    flush(&mut run);
    sizes
}
