//! The LightWave mesh builder's tests: the vertex-map lookups, the shortcuts held to every corner
//! compared, stored normals, UVs projected up front, the quick quad cache and the expected sizes.

use super::maps::{Corner, VmadEntries};
use super::plain::QuickQuads;
use super::range::UVS_MADE_UP_FRONT;
use super::sizes::expected_sizes_polygon_by_polygon;
use super::*;
use crate::formats::fourcc::FourCc;
use crate::formats::lwo::{NONE, PolygonKind, Projection, VertexMap};
use crate::mesh::triangulate::{QUICK_QUAD_LANES, fans_quickly};

/// A map of `kind` with `dimension` values an entry, for `points` (and a VMAD's `polygons`).
fn vertex_map(
    kind: &[u8; 4],
    dimension: u16,
    name: &str,
    discontinuous: bool,
    points: &[u32],
    polygons: &[u32],
    values: Vec<f32>,
) -> VertexMap {
    let (points, polygons) = (points.iter().copied().collect(), polygons.to_vec());
    VertexMap {
        kind: FourCc(*kind),
        dimension,
        name: name.into(),
        discontinuous,
        points,
        polygons,
        values,
        parameters: None,
    }
}

/// A UV map whose entry i for point p is (p, i).
fn uv_map(name: &str, discontinuous: bool, points: &[u32], polygons: &[u32]) -> VertexMap {
    vertex_map(
        b"TXUV",
        2,
        name,
        discontinuous,
        points,
        polygons,
        points.iter().enumerate().flat_map(|(i, &p)| [p as f32, i as f32]).collect(),
    )
}

/// The corner of `polygon` at `point` (its first, if the polygon lists the point twice).
fn corner_of(layer: &Layer, point: u32, polygon: u32) -> Corner {
    let start = layer.polygons.starts()[polygon as usize] as usize;
    let k =
        layer.polygons.vertices(polygon as usize).iter().position(|&v| v == point).expect("the polygon has the point");
    Corner { point, polygon, at: start + k }
}

/// Eight triangles over six points: polygon q is (q, q + 1, q + 2), each modulo 6.
fn layer_of_triangles() -> Layer {
    let mut layer = Layer::new(0);
    layer.points = vec![[0.0; 3]; 6];
    for q in 0..8u32 {
        let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
        layer.polygons.push(PolygonKind::Face, 0, &[q % 6, (q + 1) % 6, (q + 2) % 6], 0, NONE, record);
    }
    layer
}

#[test]
fn a_map_lookup_finds_each_points_entry_in_order_or_not() {
    let mut layer = layer_of_triangles();
    // Entry k is point k (the first four points): no table.
    layer.vertex_maps.push(uv_map("ordered", false, &[0, 1, 2, 3], &[]));
    // Out of order, point 2 twice (the later entry wins), a point past the layer's end.
    layer.vertex_maps.push(uv_map("shuffled", false, &[4, 2, 0, 2, 9], &[]));
    // Per corner: point 1 of polygon 7 differs from the map.
    layer.vertex_maps.push(uv_map("ordered", true, &[1], &[7]));
    let ordered = MapLookup::new(&layer, UV_KINDS, "ordered").unwrap();
    assert!(ordered.in_point_order && ordered.entry_of_point.is_empty());
    let got: Vec<_> = (0..6).map(|p| ordered.point_entry(p).map(|(m, e)| m.value(e).to_vec())).collect();
    assert_eq!(
        got,
        [Some(vec![0.0, 0.0]), Some(vec![1.0, 1.0]), Some(vec![2.0, 2.0]), Some(vec![3.0, 3.0]), None, None]
    );
    assert_eq!(ordered.get(corner_of(&layer, 1, 7)), Some(&[1.0, 0.0][..]), "the VMAD entry wins at its corner");
    assert_eq!(ordered.get(corner_of(&layer, 1, 0)), Some(&[1.0, 1.0][..]), "and only there");
    // A second PNTS left fewer points than the maps name: past them, nothing, as with a table.
    let mut shrunk = layer.clone();
    shrunk.points.truncate(2);
    let ordered_past_points = MapLookup::new(&shrunk, UV_KINDS, "ordered").unwrap();
    let at_point = |p| ordered_past_points.point_entry(p).map(|(m, e)| m.value(e));
    assert_eq!((at_point(1).is_some(), at_point(2), at_point(3)), (true, None, None));
    let shuffled = MapLookup::new(&layer, UV_KINDS, "shuffled").unwrap();
    assert!(!shuffled.in_point_order);
    let got: Vec<_> = (0..6).map(|p| shuffled.point_entry(p).map(|(m, e)| m.value(e)[1])).collect();
    assert_eq!(got, [Some(2.0), None, Some(3.0), None, Some(0.0), None]);
}

/// A 5 × 5 grid of points in 16 quads, smoothed; the left half of surface 0, the right of surface 1
/// (the middle column's points are in both meshes). Its UV map gives point 11 (inside the left half)
/// NaN, and a VMAD gives point 6 its own UV in polygon 0 only.
fn grid_with_nan_and_a_named_corner() -> (Layer, Vec<Surface>) {
    let mut layer = Layer::new(0);
    layer.points = (0..25).map(|i| [(i % 5) as f32, ((i / 5) as f32 * 0.7).sin(), (i / 5) as f32]).collect();
    for q in 0..16u32 {
        let (i, j) = (q % 4, q / 4);
        let a = j * 5 + i;
        let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
        layer.polygons.push(PolygonKind::Face, 0, &[a, a + 1, a + 6, a + 5], u32::from(i >= 2), NONE, record);
    }
    let mut uv = uv_map("UV", false, &(0..25).collect::<Vec<_>>(), &[]);
    uv.values[2 * 11] = f32::NAN;
    layer.vertex_maps.push(uv);
    layer.vertex_maps.push(uv_map("UV", true, &[6], &[0]));
    let smooth = |name: &str| Surface { max_smoothing_angle: 1.5, ..Surface::new(name) };
    (layer, vec![smooth("left"), smooth("right")])
}

/// Corners that take their point's vertex unexamined give every layer the meshes that making and
/// comparing every corner's values gives, to the bit: the assimp corpus (flat and smooth, seams of
/// cylindrical and spherical projections, vertex colours) and damaged copies of it that still
/// parse (`fixtures::lwo::damaged_copy`), the LightWave 2018 objects, the generated
/// terrain (four surfaces, a UV seam; once over two polygon ranges), and a grid with a NaN UV, a
/// corner a VMAD names and points in two surfaces' meshes, again with a VMAD naming most corners,
/// and again with triangles and a quad naming a point twice, a triangle naming a point past the
/// layer's and patches after a face; each with its patches subdivided and left as cages. Where
/// the shortcut is off (modo's stored normals, the morphs of the LightWave 2018 objects), only
/// that it is off is checked. The comparing build is also the loop compiled for
/// every kind of layer, so plain layers (flat and smooth) hold the plain loop to it as well.
#[test]
fn corners_taking_their_points_vertex_get_what_comparing_every_corner_gets() {
    let corpus = crate::fixtures::lwo::lightwave_files_under(&["/usr/share/assimp/models/LWO".into()]);
    let lightwave_2018 =
        crate::fixtures::lwo::lightwave_files_under(&[
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lightwave-2018")
        ]);
    let parsed = |(name, bytes): &(String, Vec<u8>)| {
        let object = crate::formats::lwo::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}")).1;
        (name.clone(), object.layers, object.surfaces)
    };
    let mut objects: Vec<(String, Vec<Layer>, Vec<Surface>)> =
        corpus.iter().chain(&lightwave_2018).map(parsed).collect();
    assert!(objects.len() >= 50, "the 42 corpus files and the 8 LightWave 2018 objects, found {}", objects.len());
    // Each also smoothed (most of the corpus is flat: its projections' seams would not be met), and
    // where a surface projects its UVs, cubically too.
    for (name, layers, surfaces) in objects.clone() {
        let smoothed: Vec<Surface> =
            surfaces.iter().map(|s| Surface { max_smoothing_angle: 1.5, ..s.clone() }).collect();
        if smoothed.iter().any(|s| projecting_block(Some(s)).is_some()) {
            let mut cubic = smoothed.clone();
            cubic.iter_mut().flat_map(|s| &mut s.blocks).for_each(|b| b.projection = Projection::Cubic);
            objects.push((format!("{name}, smoothed, cubic"), layers.clone(), cubic));
        }
        objects.push((format!("{name}, smoothed"), layers, smoothed));
    }
    // Damaged copies of the corpus's objects that still parse: points and indices the files never
    // hold (NaN and huge coordinates, polygons cut short or repeated, a second layer), of 30 tried
    // for each file.
    let mut next = crate::fixtures::xorshift64(0xC0FF_EED0);
    let mut damaged = 0;
    for (name, bytes) in &corpus {
        for case in 0..30 {
            if let Ok((_, object)) = crate::formats::lwo::parse(&crate::fixtures::lwo::damaged_copy(bytes, &mut next)) {
                objects.push((format!("{name}, damaged copy {case}"), object.layers, object.surfaces));
                damaged += 1;
            }
        }
    }
    assert!(damaged > 500, "{damaged} damaged copies parsed");
    for (columns, rows) in [(40, 30), (300, 240)] {
        let terrain = crate::formats::lwo::parse(&crate::fixtures::lwo::large_object(columns, rows)).expect("parses").1;
        objects.push((format!("terrain {columns} × {rows}"), terrain.layers, terrain.surfaces));
    }
    let (grid, grid_surfaces) = grid_with_nan_and_a_named_corner();
    // A VMAD naming every corner of the first eight polygons, each its own UV: kept by corner.
    let mut dense = grid.clone();
    let named: Vec<(u32, u32)> = (0..8u32)
        .flat_map(|q| dense.polygons.vertices(q as usize).iter().map(move |&v| (v, q)).collect::<Vec<_>>())
        .collect();
    let (points, polygons): (Vec<u32>, Vec<u32>) = named.into_iter().unzip();
    dense.vertex_maps[1] = uv_map("UV", true, &points, &polygons);
    // After the grid, polygons of its left surface that name a point twice (triangles, which the
    // plain loop builds, and a quad, which the general one does) or a point past the layer's, and
    // patches after a face (subdivided, they are not the plain loop's).
    let mut repeated = grid.clone();
    let (face, patch) = (PolygonKind::Face, PolygonKind::Patch);
    let extra: [(PolygonKind, &[u32]); 9] = [
        (face, &[10, 11, 16, 15]),
        (face, &[0, 0, 1]),
        (face, &[2, 3, 2]),
        (face, &[5, 6, 6, 7]),
        (face, &[10, 11, 16, 15]),
        (face, &[7, 8, 99]),
        (face, &[11, 12, 12]),
        (patch, &[1, 2, 7, 6]),
        (patch, &[2, 3, 8, 7]),
    ];
    for (q, (kind, corners)) in extra.into_iter().enumerate() {
        let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: 16 + q as u32 };
        repeated.polygons.push(kind, 0, corners, 0, NONE, record);
    }
    objects.push(("grid".into(), vec![grid], grid_surfaces.clone()));
    objects.push(("grid, a VMAD naming most corners".into(), vec![dense], grid_surfaces.clone()));
    objects.push(("grid, corners named twice and a point past the layer's".into(), vec![repeated], grid_surfaces));
    // Subdivided (the default) and not: patches left as cages are built as faces are.
    let cages = BuildOptions { subdivision_level: 0, ..BuildOptions::default() };
    for (name, layers, surfaces) in &objects {
        for (index, layer) in layers.iter().enumerate() {
            for options in [BuildOptions::default(), cages] {
                let [shortcut, compared] =
                    [VertexSearch::ByPointWherePossible, VertexSearch::EveryCorner].map(|search| {
                        let built = build_layer(layer, surfaces, options, &|| {}, search);
                        // Debug's text, where NaN equals NaN.
                        format!("{:?}", (built.surfaces, built.lines, built.points, built.triangles, built.degenerate))
                    });
                assert!(shortcut == compared, "{name}, layer {index}, {options:?}");
            }
        }
    }
    // Each half has its 15 points' vertices, and one more for each of the middle column's points 7,
    // 12 and 17, whose corners go left, right, left, right (a point's vertex is looked for in the
    // mesh of its latest corner). The left half also has a vertex for each of the NaN point's
    // three other corners, and for point 6's named corner.
    let (grid, grid_surfaces) = grid_with_nan_and_a_named_corner();
    let built = build_layer(&grid, &grid_surfaces, BuildOptions::default(), &|| {}, VertexSearch::ByPointWherePossible);
    let vertices: Vec<usize> = built.surfaces.iter().map(|s| s.mesh.positions.len()).collect();
    assert_eq!(vertices, [15 + 3 + 3 + 1, 15 + 3]);
}

/// Where the file's normals answer every corner, no normal is made (`CornerNormals::unasked`),
/// and the meshes are those made when they are: modo's two corpus objects, each against itself
/// with one more point that no polygon uses and the NORM map does not name, which leaves the map
/// short of a point and so has the normals made. A map missing a point, or with a value that
/// gives no direction (zero, NaN) at a point or in its VMAD, answers for not every corner, nor
/// does any map where a polygon names a point past the layer's.
#[test]
fn a_layer_whose_every_corner_has_a_stored_normal_is_built_as_one_whose_normals_are_made() {
    let corpus = std::path::Path::new("/usr/share/assimp/models/LWO");
    for name in ["LWO2/ModoExport_vertNormals.lwo", "LXOB_Modo/sphereWithVertMap.lxo"] {
        let bytes = std::fs::read(corpus.join(name)).expect("the assimp corpus (assimp-testmodels)");
        let object = crate::formats::lwo::parse(&bytes).expect("parses").1;
        let layer = &object.layers[0];
        let mut extended = layer.clone();
        extended.points.push([1.0, 2.0, 3.0]);
        let stored = |layer: &Layer| {
            let map = layer.vertex_maps.iter().find(|m| m.kind.0 == *b"NORM").expect("a NORM map");
            MapLookup::new(layer, &[b"NORM"], &map.name).expect("a lookup").directs_every_corner(layer)
        };
        assert!(stored(layer) && !stored(&extended), "{name}");
        let [unasked, made] = [layer, &extended].map(|layer| {
            let built = build_layer(
                layer,
                &object.surfaces,
                BuildOptions::default(),
                &|| {},
                VertexSearch::ByPointWherePossible,
            );
            format!("{:?}", (built.surfaces, built.lines, built.points, built.triangles, built.degenerate))
        });
        assert!(unasked == made, "{name}");
    }
    let normals = |name: &str, discontinuous: bool, points: &[u32], polygons: &[u32], values: &[[f32; 3]]| {
        vertex_map(b"NORM", 3, name, discontinuous, points, polygons, values.as_flattened().to_vec())
    };
    let up = [[0.0, 1.0, 0.0]; 6];
    let directs = |maps: Vec<VertexMap>| {
        let mut layer = layer_of_triangles();
        layer.vertex_maps = maps;
        MapLookup::new(&layer, &[b"NORM"], "n").unwrap().directs_every_corner(&layer)
    };
    assert!(directs(vec![normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &up)]));
    assert!(directs(vec![
        normals("n", false, &[5, 4, 3, 2, 1, 0], &[], &up),
        normals("n", true, &[1], &[7], &[[2.0, 0.0, 0.0]])
    ]));
    assert!(!directs(vec![normals("n", false, &[0, 1, 2, 3, 4], &[], &up[..5])]), "a point missing");
    let mut zero = up;
    zero[3] = [0.0; 3];
    assert!(!directs(vec![normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &zero)]), "a zero normal");
    assert!(
        !directs(vec![
            normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &up),
            normals("n", true, &[1], &[7], &[[f32::NAN, 0.0, 1.0]])
        ]),
        "a NaN in the VMAD"
    );
    // A second PNTS left five points: polygons still name the sixth, which no entry answers for
    // (its corners' normals are made, smoothed; a review found the shortcut had skipped them).
    let mut short = layer_of_triangles();
    short.vertex_maps = vec![normals("n", false, &[0, 1, 2, 3, 4, 5], &[], &up)];
    short.points.truncate(5);
    assert!(
        !MapLookup::new(&short, &[b"NORM"], "n").unwrap().directs_every_corner(&short),
        "a corner past the layer's points"
    );
}

/// A cylindrically or spherically mapped surface that holds every face of its layer has every
/// point's UV made before its corners ask (`build_range`); with one more face on another surface,
/// its corners make them as they meet their points. Its mesh is the same either way, on the
/// corpus's cylinders and spheres (with and without repeats).
#[test]
fn uvs_made_before_the_corners_ask_give_the_mesh_the_corners_give() {
    let corpus = std::path::Path::new("/usr/share/assimp/models/LWO/LWO2/MappingModes");
    for name in [
        "earth_cylindrical_x.lwo",
        "earth_cylindrical_x_scale_222_wrap_21.lwo",
        "earth_spherical_y.lwo",
        "earth_spherical_z_wrap_22.lwo",
    ] {
        let bytes = std::fs::read(corpus.join(name)).expect("the assimp corpus (assimp-testmodels)");
        let object = crate::formats::lwo::parse(&bytes).expect("parses").1;
        let layer = &object.layers[0];
        let mut shared = layer.clone();
        let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: 0 };
        shared.polygons.push(PolygonKind::Face, 0, &[0, 1, 2], 7, NONE, record);
        let [(alone, up_front), (beside_another, not_up_front)] = [layer, &shared].map(|layer| {
            let made_before = UVS_MADE_UP_FRONT.with(|made| made.get());
            let built = build_layer(
                layer,
                &object.surfaces,
                BuildOptions::default(),
                &|| {},
                VertexSearch::ByPointWherePossible,
            );
            let mesh = built.surfaces.into_iter().find(|s| s.surface == 0).expect("the mapped surface's mesh").mesh;
            (mesh, UVS_MADE_UP_FRONT.with(|made| made.get()) - made_before)
        });
        assert_eq!((up_front, not_up_front), (1, 0), "{name}: which way each build made its UVs");
        assert!(
            alone.uv_sets.first().is_some_and(|uvs| uvs.len() == alone.positions.len() && !uvs.is_empty()),
            "{name}: the surface has UVs"
        );
        assert!(alone == beside_another, "{name}");
    }
}

/// A VMAD read through its per-corner table and through its sorted entries names the same entry
/// at every corner: a dense map with corners named twice (the later wins), a polygon listing a
/// point twice, an entry for a point its polygon lacks and one for a polygon past the layer's.
#[test]
fn a_vmad_by_corner_and_sorted_agree_at_every_corner() {
    let mut layer = layer_of_triangles();
    let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: 8 };
    layer.polygons.push(PolygonKind::Face, 0, &[3, 4, 3, 5], 0, NONE, record);
    let mut points = Vec::new();
    let mut polygons = Vec::new();
    for q in (0..9u32).rev() {
        for &v in layer.polygons.vertices(q as usize) {
            points.push(v);
            polygons.push(q);
        }
    }
    // Named again later (this entry wins), a point polygon 2 lacks, a polygon the layer lacks.
    points.extend([3, 5, 1]);
    polygons.extend([2, 2, 40]);
    let vmad = uv_map("seams", true, &points, &polygons);
    // A second PNTS left five points: point 5's corners stay, and no entry names them.
    let mut fewer_points = layer.clone();
    fewer_points.points.truncate(5);
    for layer in [&layer, &fewer_points] {
        let table = VmadEntries::by_corner(layer, &vmad, usize::MAX).expect("no budget");
        let sorted = VmadEntries::sorted(layer, &vmad);
        assert!(
            matches!(VmadEntries::new(layer, &vmad), VmadEntries::ByCorner(_)),
            "a map naming every corner takes the table"
        );
        for q in 0..9u32 {
            let start = layer.polygons.starts()[q as usize] as usize;
            for (k, &point) in layer.polygons.vertices(q as usize).iter().enumerate() {
                let corner = Corner { point, polygon: q, at: start + k };
                assert_eq!(table.at(corner), sorted.at(corner), "polygon {q}, corner {k}");
                assert_eq!(table.at(corner).is_some(), (point as usize) < layer.points.len());
            }
        }
        assert_eq!(table.at(corner_of(layer, 3, 2)), Some(points.len() - 3), "the later entry wins");
    }
    // Past its budget of corners looked at, the table gives way to the sorted list.
    let corners = layer.polygons.indices().len();
    assert!(VmadEntries::by_corner(&layer, &vmad, corners).is_none());
    // Few entries: the sorted list.
    let seam = uv_map("seams", true, &[1], &[7]);
    assert!(matches!(VmadEntries::new(&layer, &seam), VmadEntries::Sorted { .. }));
}

/// The quick quad test's cache answers each quad as the quad's own test does, wherever in a block
/// the quad sits and however it is asked: concave quads (which fail) at every place modulo eight
/// among convex quads (which pass), triangles and pentagons (other lanes), asked in order from
/// several starts, every polygon or every second or third, as the range loops ask.
#[test]
fn the_quick_quad_cache_answers_each_quad_as_its_own_test() {
    let mut layer = Layer::new(0);
    // A square 0-1-2-3 and, with corner 4 inside it, a dart 0-1-4-3 reflex at corner 2.
    layer.points = vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, 2.0], [0.0, 0.0, 2.0], [0.5, 0.0, 0.5]];
    let (square, dart): (&[u32], &[u32]) = (&[0, 1, 2, 3], &[0, 1, 4, 3]);
    for q in 0..100u32 {
        let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
        let shape: &[u32] = match q {
            _ if q % 9 == 0 => dart,
            _ if q % 5 == 3 => &[0, 1, 2],
            _ if q % 7 == 6 => &[0, 1, 4, 2, 3],
            _ => square,
        };
        layer.polygons.push(PolygonKind::Face, 0, shape, 0, NONE, record);
    }
    let own_test = |p: usize| match *layer.polygons.vertices(p) {
        [a, b, c, d] => Some(fans_quickly(&[a, b, c, d].map(|v| point_at(&layer.points, v)))),
        _ => None,
    };
    // The darts sit at every place in a block of eight, and fail; the squares pass.
    let darts: Vec<usize> = (0..100).filter(|&p| layer.polygons.vertices(p) == dart).collect();
    assert_eq!(
        darts.iter().map(|p| p % QUICK_QUAD_LANES).collect::<std::collections::BTreeSet<_>>().len(),
        QUICK_QUAD_LANES
    );
    assert!(darts.iter().all(|&p| own_test(p) == Some(false)));
    assert_eq!(own_test(1), Some(true));
    for start in [0, 5, 13, 98] {
        for step in 1..=3 {
            let mut cache = QuickQuads::new();
            for p in (start..100).step_by(step) {
                if let Some(answer) = own_test(p) {
                    assert_eq!(cache.fans(&layer, p), answer, "polygon {p}, from {start} by {step}");
                }
            }
        }
    }
}

/// Sizes summed run by run from the start column equal the sizes read polygon by polygon, over
/// ranges that cut runs or go past the layer's end: surfaces in runs and alternating, one-, two-
/// and five-corner polygons, a surface column of two-byte values, and corpus objects (a patch or
/// a detail polygon sends a layer to the polygon path: there the test checks that gate).
#[test]
fn expected_sizes_by_runs_are_the_polygon_by_polygon_sizes() {
    let mut layer = Layer::new(0);
    layer.points = vec![[0.0; 3]; 8];
    let shapes: [&[u32]; 6] = [&[0, 1, 2, 3], &[0, 1, 2], &[4], &[5, 6], &[0, 1, 2, 3, 4], &[7, 6, 5]];
    for q in 0..200u32 {
        let record = crate::formats::lwo::model::Record { offset: 0, index_in_chunk: q };
        let surface = match q {
            0..60 => 0,
            60..120 => q % 3,
            _ => 300 + q / 40,
        };
        layer.polygons.push(PolygonKind::Face, 0, shapes[(q as usize * 7) % 6], surface, NONE, record);
    }
    let mut layers = vec![layer.clone()];
    let mut patches = layer.clone();
    patches.polygons.set_kind(5, PolygonKind::Patch);
    layers.push(patches);
    let mut details = layer;
    details.polygons.set_detail_of(9, 3);
    layers.push(details);
    for name in ["LWO2/UglyVertexColors.lwo", "LXOB_Modo/CrazyEngine.lxo", "LWO2/hierarchy.lwo"] {
        let bytes = std::fs::read(format!("/usr/share/assimp/models/LWO/{name}"))
            .expect("the assimp corpus (apt-get install assimp-testmodels)");
        layers.extend(crate::formats::lwo::parse(&bytes).expect("a corpus object").1.layers);
    }
    for layer in &layers {
        let n = layer.polygons.len();
        for options in [BuildOptions::default(), BuildOptions { subdivision_level: 0, ..BuildOptions::default() }] {
            for range in [0..n, 0..n / 3, n / 3..n, 7.min(n)..n.saturating_sub(5).max(7.min(n)), n / 2..n + 3, n..n + 5]
            {
                let by_polygon = expected_sizes_polygon_by_polygon(layer, options, range.clone());
                assert_eq!(expected_sizes(layer, options, range.clone()), by_polygon, "range {range:?} of {n}");
            }
        }
    }
}
