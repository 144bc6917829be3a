//! LightWave objects against assimp's test models (`/usr/share/assimp/models/LWO`, package
//! assimp-testmodels, installed by `.ci/run`): every file loads, and the counts match an independent
//! reading of PNTS and POLS written here in a few lines.

use std::path::{Path, PathBuf};

use lwo_wmo_viewer::formats::lwo::{self, LwoObject};
use lwo_wmo_viewer::mesh::lwo::{BuildOptions, build};
use lwo_wmo_viewer::mesh::triangulate::{Triangulator, winding_number};

pub(crate) const CORPUS: &str = "/usr/share/assimp/models/LWO";

pub(crate) fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e} (install assimp-testmodels)", dir.display()))
        {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                let name = path.file_name().unwrap().to_string_lossy().to_lowercase();
                if name.ends_with(".lwo") || name.ends_with(".lxo") || name == "formatdetection" {
                    out.push(path);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(CORPUS), &mut out);
    out.sort();
    out
}

/// Independent count: points, polygons, and Σ(n − 2) over FACE and PTCH polygons (LWOB: all polygons,
/// detail polygons included), straight from the chunk bytes.
fn independent_counts(bytes: &[u8]) -> (usize, usize, usize) {
    let be16 = |b: &[u8], p: usize| u16::from_be_bytes([b[p], b[p + 1]]) as usize;
    let be32 = |b: &[u8], p: usize| u32::from_be_bytes([b[p], b[p + 1], b[p + 2], b[p + 3]]) as usize;
    let lightwave5 = &bytes[8..12] == b"LWOB";
    let (mut points, mut polygons, mut triangles) = (0, 0, 0);
    let mut p = 12;
    while p + 8 <= bytes.len() {
        let (id, len) = (&bytes[p..p + 4], be32(bytes, p + 4));
        let data = &bytes[p + 8..p + 8 + len];
        match id {
            b"PNTS" => points += len / 12,
            b"POLS" if lightwave5 => {
                let mut q = 0;
                while q < data.len() {
                    let n = be16(data, q);
                    let surface = be16(data, q + 2 + 2 * n) as i16;
                    q += 4 + 2 * n;
                    polygons += 1;
                    triangles += n.saturating_sub(2);
                    if surface < 0 {
                        q += 2;
                    }
                }
            }
            b"POLS" => {
                let surface_kind = matches!(&data[..4], b"FACE" | b"PTCH" | b"SUBD");
                let mut q = 4;
                while q < data.len() {
                    let n = be16(data, q) & 0x3FF;
                    q += 2;
                    for _ in 0..n {
                        q += if data[q] == 0xFF { 4 } else { 2 };
                    }
                    polygons += 1;
                    if surface_kind {
                        triangles += n.saturating_sub(2);
                    }
                }
            }
            _ => {}
        }
        p += 8 + len + (len & 1);
    }
    (points, polygons, triangles)
}

fn load(path: &Path) -> LwoObject {
    let bytes = std::fs::read(path).unwrap();
    lwo::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display())).1
}

/// Files whose triangle count is not Σ(n − 2), each named with the difference and why, so that any other
/// deviation fails the test:
/// - UglyVertexColors.lwo has a 24-gon whose 24 distinct points all sit at one position: no area, 22
///   triangles fewer;
/// - nonplanar_polygon.lwo's 18-gon crosses itself on its best-fit plane; it is split at the crossings
///   and filled by the non-zero rule (see the coverage test below): 26 more.
const NAMED_DIFFERENCES: &[(&str, isize)] = &[("UglyVertexColors.lwo", -22), ("nonplanar_polygon.lwo", 26)];

#[test]
fn every_corpus_file_loads_with_independently_counted_points_polygons_and_triangles() {
    let files = corpus_files();
    assert_eq!(files.len(), 43, "assimp-testmodels holds 41 .lwo/formatDetection and 2 .lxo files");
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let object = load(path);
        let (points, polygons, sum_n_minus_2) = independent_counts(&bytes);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(object.point_count(), points, "{name}: points");
        assert_eq!(object.polygon_count(), polygons, "{name}: polygons");
        let built = build(&object, BuildOptions::default());
        let difference = NAMED_DIFFERENCES.iter().find(|(n, _)| *n == name).map_or(0, |(_, d)| *d);
        assert_eq!(built.triangle_count as isize, sum_n_minus_2 as isize + difference, "{name}: triangles");
        assert_eq!(
            lwo_wmo_viewer::mesh::lwo::triangle_count(&object),
            built.triangle_count,
            "{name}: --info triangles"
        );
    }
}

fn signed_area_2d(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]))
}

/// Projects onto the plane of the polygon's Newell normal, as the triangulator does.
fn project(points: &[[f32; 3]]) -> Vec<[f64; 2]> {
    let n = lwo_wmo_viewer::mesh::triangulate::newell_normal(points).map(f64::from);
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    let n = n.map(|c| c / len);
    let helper = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let u = cross(helper, n);
    let ul = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
    let u = u.map(|c| c / ul);
    let v = cross(n, u);
    points
        .iter()
        .map(|p| {
            let p = p.map(f64::from);
            [p[0] * u[0] + p[1] * u[1] + p[2] * u[2], p[0] * v[0] + p[1] * v[1] + p[2] * v[2]]
        })
        .collect()
}

fn strictly_inside(t: [[f64; 2]; 3], p: [f64; 2]) -> bool {
    let (d1, d2, d3) = (signed_area_2d(t[0], t[1], p), signed_area_2d(t[1], t[2], p), signed_area_2d(t[2], t[0], p));
    (d1 > 0.0 && d2 > 0.0 && d3 > 0.0) || (d1 < 0.0 && d2 < 0.0 && d3 < 0.0)
}

/// On the polygon's best-fit plane: no triangle is inverted; every sample point of a fine grid is inside
/// exactly one triangle where the outline's winding number is not zero, and inside none elsewhere; and for
/// simple outlines the triangle areas add up to the polygon's within 1e-4.
#[test]
fn concave_non_planar_and_self_intersecting_polygons_are_covered_exactly_once() {
    // The non-planar 18-gon has 13 corners in the XZ plane and 5 in the XY plane, so on its best-fit plane
    // its outline crosses itself, like the self-intersecting one's.
    let cases = [
        ("LWO2/concave_polygon.lwo", true),
        ("LWOB/ConcavePolygon.lwo", true),
        ("LWO2/nonplanar_polygon.lwo", false),
        ("LWO2/concave_self_intersecting.lwo", false),
    ];
    for (file, simple) in cases {
        let object = load(&Path::new(CORPUS).join(file));
        let layer = &object.layers[0];
        for p in 0..layer.polygons.len() {
            let corners: Vec<[f32; 3]> = layer.polygons.vertices(p).iter().map(|&v| layer.points[v as usize]).collect();
            let outline = project(&corners);
            let mut triangulator = Triangulator::new();
            let mut tris = Vec::new();
            triangulator.triangulate(&corners, &mut tris);
            let at = |i: u32| -> [f64; 2] {
                match outline.get(i as usize) {
                    Some(p) => *p,
                    None => {
                        let c = triangulator.crossings()[i as usize - outline.len()];
                        let (a, b) = (outline[c.from as usize], outline[c.to as usize]);
                        let t = f64::from(c.t);
                        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
                    }
                }
            };
            let triangles: Vec<[[f64; 2]; 3]> = tris.iter().map(|t| t.map(at)).collect();
            let orientation = outline
                .iter()
                .enumerate()
                .map(|(i, a)| signed_area_2d([0.0, 0.0], *a, outline[(i + 1) % outline.len()]))
                .sum::<f64>()
                .signum();
            for t in &triangles {
                let a = signed_area_2d(t[0], t[1], t[2]) * orientation;
                assert!(a >= -1e-9, "{file}: polygon {p} has an inverted triangle ({a})");
            }
            let (lo, hi) = outline.iter().fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), q| {
                ([lo[0].min(q[0]), lo[1].min(q[1])], [hi[0].max(q[0]), hi[1].max(q[1])])
            });
            const GRID: usize = 120;
            for gx in 0..GRID {
                for gy in 0..GRID {
                    let q = [
                        lo[0] + (hi[0] - lo[0]) * (gx as f64 + 0.377) / GRID as f64,
                        lo[1] + (hi[1] - lo[1]) * (gy as f64 + 0.613) / GRID as f64,
                    ];
                    let covered = triangles.iter().filter(|t| strictly_inside(**t, q)).count();
                    let expected = usize::from(winding_number(&outline, q) != 0);
                    assert_eq!(covered, expected, "{file}: polygon {p}: sample {q:?} is covered {covered} times");
                }
            }
            if simple {
                let polygon_area: f64 = (0..outline.len())
                    .map(|i| signed_area_2d([0.0, 0.0], outline[i], outline[(i + 1) % outline.len()]))
                    .sum();
                let total: f64 = triangles.iter().map(|t| signed_area_2d(t[0], t[1], t[2])).sum();
                let rel = (total - polygon_area).abs() / polygon_area.abs();
                assert!(rel < 1e-4, "{file}: polygon {p}: triangles cover {total}, the polygon {polygon_area}");
            }
        }
    }
}

#[test]
fn hierarchy_has_four_layers_with_the_files_parents_and_pivots() {
    let object = load(&Path::new(CORPUS).join("LWO2/hierarchy.lwo"));
    let numbers: Vec<u16> = object.layers.iter().map(|l| l.number).collect();
    assert_eq!(numbers, [3, 4, 2, 1], "file order, a child before its parent");
    let parents: Vec<Option<u16>> = object.layers.iter().map(|l| l.parent).collect();
    assert_eq!(parents, [Some(4), None, Some(3), Some(4)]);
    assert_eq!(object.layers[2].pivot, [0.8, 0.0, 1.35]);
    assert_eq!(object.layers[3].pivot, [-2.75, 0.0, -0.85]);
    let built = build(&object, BuildOptions::default());
    let parent_index: Vec<Option<usize>> = built.layers.iter().map(|l| l.parent).collect();
    assert_eq!(parent_index, [Some(1), None, Some(0), Some(1)]);
    // Translations are relative to the parent's pivot, in Bevy's frame (LightWave Z mirrored).
    assert_eq!(built.layers[2].translation, [0.8, 0.0, -1.35]);
    assert_eq!(built.layers[3].translation, [-2.75, 0.0, 0.85]);
    let names: Vec<&str> = object.layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["ChildOfRoot0", "RootOfHierarchy", "GrandChildOfRoot0", "ChildOfRoot1"]);
}

/// A small LWO3 file as the readers that handle the format lay it out: geometry chunks as in LWO2,
/// SURF and CLIP as nested FORMs whose elements have U4 lengths, eight bytes before the surface name.
fn lwo3_fixture() -> Vec<u8> {
    use lwo_wmo_viewer::fixtures::lwo::{chunk, f32s, form, s0, vx};
    let mut body = chunk(b"TAGS", &s0("Skin"));
    let mut layr = vec![0, 0, 0, 0];
    layr.extend(f32s(&[0.0, 0.0, 0.0]));
    layr.extend(s0("Base"));
    body.extend(chunk(b"LAYR", &layr));
    body.extend(chunk(b"PNTS", &f32s(&[-1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0])));
    let mut pols = b"FACE".to_vec();
    pols.extend(4u16.to_be_bytes());
    for v in [3, 2, 1, 0] {
        pols.extend(vx(v));
    }
    body.extend(chunk(b"POLS", &pols));
    let mut ptag = b"SURF".to_vec();
    ptag.extend(vx(0));
    ptag.extend(0u16.to_be_bytes());
    body.extend(chunk(b"PTAG", &ptag));
    let mut surf = vec![0u8; 8];
    surf.extend(s0("Skin"));
    surf.extend(s0(""));
    let mut colr = f32s(&[0.2, 0.4, 0.6]);
    colr.extend(vx(0));
    surf.extend(chunk(b"COLR", &colr));
    surf.extend(chunk(b"SIDE", &3u16.to_be_bytes()));
    body.extend(form(b"SURF", &surf));
    let mut clip = 1u32.to_be_bytes().to_vec();
    clip.extend(form(b"STIL", &chunk(b"FNAM", &s0("Images/skin.png"))));
    body.extend(form(b"CLIP", &clip));
    form(b"LWO3", &body)
}

/// Two POLS chunks in one layer: each polygon knows its own chunk by id, without a table per polygon.
#[test]
fn polygons_of_two_pols_chunks_know_each_their_chunk() {
    use lwo_wmo_viewer::fixtures::lwo::{chunk, f32s, form};
    let triangle = [0u8, 3, 0, 0, 0, 1, 0, 2];
    let mut body = chunk(b"PNTS", &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]));
    body.extend(chunk(b"POLS", &[b"FACE".as_slice(), &triangle, &triangle].concat()));
    body.extend(chunk(b"POLS", &[b"FACE".as_slice(), &triangle].concat()));
    let (tree, object) = lwo::parse(&form(b"LWO2", &body)).unwrap();
    let polygons = &object.layers[0].polygons;
    let (first, second) = (tree.find_path("FORM/POLS").unwrap(), tree.find_path("FORM/POLS[1]").unwrap());
    assert_eq!((0..3).map(|p| polygons.chunk_of(p)).collect::<Vec<_>>(), [Some(first), Some(first), Some(second)]);
    assert_eq!((0..3).map(|p| polygons.record(p).unwrap().index_in_chunk).collect::<Vec<_>>(), [0, 1, 0]);
    assert_eq!(polygons.chunks().len(), 2, "one entry per chunk");
}

#[test]
fn lwo3_nested_forms_read_through_the_same_path() {
    let bytes = lwo3_fixture();
    let (tree, object) = lwo::parse(&bytes).unwrap();
    assert_eq!(object.kind, lwo::LwoKind::Lwo3);
    let form = tree.chunk(tree.roots()[0]);
    let ids: Vec<String> = form.children().map(|c| c.label()).collect();
    assert_eq!(ids, ["TAGS", "LAYR", "PNTS", "POLS", "PTAG", "FORM SURF", "FORM CLIP"]);
    assert_eq!(form.children().nth(5).unwrap().first_child().unwrap().id.to_string(), "COLR");
    assert_eq!((object.layers.len(), object.point_count(), object.polygon_count()), (1, 4, 1));
    assert_eq!(object.layers[0].name, "Base");
    let surface = &object.surfaces[object.layers[0].polygons.surface().get(0) as usize];
    assert_eq!(surface.name, "Skin");
    assert_eq!(object.layers[0].chunk, form.children().nth(1).map(|c| c.chunk), "the layer knows its LAYR");
    assert_eq!(surface.chunk, form.children().nth(5).map(|c| c.chunk), "the surface knows its FORM SURF");
    assert_eq!(surface.color, [0.2, 0.4, 0.6]);
    assert!(surface.double_sided());
    assert_eq!(object.clips.len(), 1);
    assert_eq!(object.clips[0].index, 1);
    assert_eq!(object.clips[0].source.file_name().as_deref(), Some("Images/skin.png"));
    assert_eq!(build(&object, BuildOptions::default()).triangle_count, 2);
}

#[test]
fn modo_vertex_normals_are_used_when_present() {
    let object = load(&Path::new(CORPUS).join("LWO2/ModoExport_vertNormals.lwo"));
    let layer = &object.layers[0];
    let maps: Vec<_> = layer.vertex_maps.iter().filter(|m| m.kind.0 == *b"NORM").collect();
    assert!(!maps.is_empty(), "the file has NORM maps");
    let built = build(&object, BuildOptions { smoothing: false, ..BuildOptions::default() });
    // With smoothing off every normal would be a face normal; the NORM maps' own vectors show instead.
    let stored: Vec<[f32; 3]> = maps
        .iter()
        .flat_map(|m| (0..m.len()).map(move |i| m.value(i)))
        .map(|v| {
            let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            lwo_wmo_viewer::mesh::coords::lwo_to_bevy([v[0] / n, v[1] / n, v[2] / n])
        })
        .collect();
    let normals = &built.layers[0].surfaces[0].mesh.normals;
    let matching = normals.iter().filter(|n| stored.iter().any(|s| (0..3).all(|k| (s[k] - n[k]).abs() < 1e-4))).count();
    assert_eq!(matching, normals.len());
}

/// An LWO2 file with every surface, block, clip and envelope sub-chunk the reader knows, each value
/// distinct so that a field read from the wrong place shows.
fn lwo2_everything_fixture() -> Vec<u8> {
    use lwo_wmo_viewer::fixtures::lwo::{chunk, f32s, form, s0, sub_chunk, vx};
    let u16b = |v: u16| v.to_be_bytes().to_vec();
    let cat = |parts: &[Vec<u8>]| parts.concat();
    let mut body = chunk(b"TAGS", &cat(&[s0("Skin"), s0("Arm"), s0("Leg")]));
    body.extend(chunk(b"DESC", &s0("a test object")));
    body.extend(chunk(b"TEXT", &s0("line one\nline two")));
    body.extend(chunk(b"ICON", &cat(&[u16b(0), u16b(2), vec![255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]])));
    body.extend(chunk(b"LAYR", &cat(&[u16b(1), u16b(1), f32s(&[0.5, 0.0, 0.0]), s0("Hidden one"), u16b(0xFFFF)])));
    body.extend(chunk(
        b"PNTS",
        &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0]),
    ));
    body.extend(chunk(b"BBOX", &f32s(&[0.0, 0.0, 0.0, 3.0, 1.0, 0.0])));
    body.extend(chunk(b"VMPA", &cat(&[1i32.to_be_bytes().to_vec(), 7i32.to_be_bytes().to_vec()])));
    body.extend(chunk(
        b"VMAP",
        &cat(&[b"TXUV".to_vec(), u16b(2), s0("uv"), vx(0), f32s(&[0.0, 0.0]), vx(2), f32s(&[1.0, 1.0])]),
    ));
    let pols = cat(&[b"FACE".to_vec(), u16b(4), vx(0), vx(1), vx(2), vx(3), u16b(2), vx(1), vx(4)]);
    body.extend(chunk(b"POLS", &pols));
    body.extend(chunk(b"PTAG", &cat(&[b"PART".to_vec(), vx(0), u16b(1)])));
    body.extend(chunk(b"PTAG", &cat(&[b"SMGP".to_vec(), vx(0), u16b(5)])));
    body.extend(chunk(b"VMAD", &cat(&[b"TXUV".to_vec(), u16b(2), s0("uv"), vx(2), vx(0), f32s(&[0.5, 0.25])])));
    // PTAG and VMAD count polygons from the most recent POLS: this bone's tag is its own polygon 0.
    body.extend(chunk(b"POLS", &cat(&[b"BONE".to_vec(), u16b(2), vx(4), vx(5)])));
    body.extend(chunk(b"PTAG", &cat(&[b"PART".to_vec(), vx(0), u16b(2)])));
    // Surface parameters.
    let mut surf = cat(&[s0("Skin"), s0("")]);
    surf.extend(sub_chunk(b"COLR", &cat(&[f32s(&[0.1, 0.2, 0.3]), vx(3)])));
    surf.extend(sub_chunk(b"DIFF", &cat(&[f32s(&[0.8]), vx(0)])));
    surf.extend(sub_chunk(b"RFOP", &u16b(3)));
    surf.extend(sub_chunk(b"RIMG", &vx(2)));
    surf.extend(sub_chunk(b"RSAN", &cat(&[f32s(&[0.5]), vx(0)])));
    surf.extend(sub_chunk(b"TROP", &u16b(1)));
    surf.extend(sub_chunk(b"TIMG", &vx(1)));
    surf.extend(sub_chunk(b"GLOW", &cat(&[u16b(1), f32s(&[0.7]), vx(0), f32s(&[0.05]), vx(0)])));
    surf.extend(sub_chunk(b"LINE", &cat(&[u16b(1), f32s(&[2.0]), vx(0), f32s(&[1.0, 0.5, 0.25]), vx(0)])));
    surf.extend(sub_chunk(b"ALPH", &cat(&[u16b(1), f32s(&[0.6])])));
    surf.extend(sub_chunk(b"VCOL", &cat(&[f32s(&[0.9]), vx(0), b"RGB ".to_vec(), s0("paint")])));
    let header = |kind: &[u8; 4], ordinal: &str, extra: Vec<u8>| sub_chunk(kind, &cat(&[s0(ordinal), extra]));
    let imap_header = cat(&[
        sub_chunk(b"CHAN", b"COLR"),
        sub_chunk(b"ENAB", &u16b(1)),
        sub_chunk(b"OPAC", &cat(&[u16b(0), f32s(&[0.75]), vx(0)])),
        sub_chunk(b"NEGA", &u16b(1)),
    ]);
    let tmap = cat(&[
        sub_chunk(b"CNTR", &cat(&[f32s(&[1.0, 2.0, 3.0]), vx(0)])),
        sub_chunk(b"SIZE", &cat(&[f32s(&[4.0, 5.0, 6.0]), vx(0)])),
        sub_chunk(b"ROTA", &cat(&[f32s(&[0.1, 0.2, 0.3]), vx(0)])),
        sub_chunk(b"OREF", &s0("Null")),
        sub_chunk(b"FALL", &cat(&[u16b(1), f32s(&[0.5, 0.5, 0.5]), vx(0)])),
        sub_chunk(b"CSYS", &u16b(1)),
    ]);
    let imap = cat(&[
        header(b"IMAP", "\u{80}", imap_header),
        sub_chunk(b"TMAP", &tmap),
        sub_chunk(b"PROJ", &u16b(5)),
        sub_chunk(b"AXIS", &u16b(2)),
        sub_chunk(b"IMAG", &vx(1)),
        sub_chunk(b"WRAP", &cat(&[u16b(2), u16b(3)])),
        sub_chunk(b"WRPW", &cat(&[f32s(&[2.0]), vx(0)])),
        sub_chunk(b"WRPH", &cat(&[f32s(&[3.0]), vx(0)])),
        sub_chunk(b"VMAP", &s0("uv")),
        sub_chunk(b"AAST", &cat(&[u16b(1), f32s(&[0.4])])),
        sub_chunk(b"PIXB", &u16b(1)),
        sub_chunk(b"STCK", &cat(&[u16b(1), f32s(&[12.0])])),
        sub_chunk(b"TAMP", &cat(&[f32s(&[0.3]), vx(0)])),
    ]);
    surf.extend(sub_chunk(b"BLOK", &imap));
    let proc_block = cat(&[
        header(b"PROC", "\u{81}", sub_chunk(b"CHAN", b"DIFF")),
        sub_chunk(b"VALU", &f32s(&[0.1, 0.2, 0.3])),
        sub_chunk(b"FUNC", &cat(&[s0("Turbulence"), vec![0, 0]])),
    ]);
    surf.extend(sub_chunk(b"BLOK", &proc_block));
    let grad = cat(&[
        header(b"GRAD", "\u{82}", sub_chunk(b"CHAN", b"COLR")),
        sub_chunk(b"PNAM", &s0("Slope")),
        sub_chunk(b"INAM", &s0("(none)")),
        sub_chunk(b"GRST", &f32s(&[0.0])),
        sub_chunk(b"GREN", &f32s(&[1.0])),
        sub_chunk(b"FKEY", &f32s(&[0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0])),
        sub_chunk(b"IKEY", &cat(&[u16b(1), u16b(2)])),
    ]);
    surf.extend(sub_chunk(b"BLOK", &grad));
    surf.extend(sub_chunk(
        b"BLOK",
        &cat(&[header(b"SHDR", "\u{83}", sub_chunk(b"ENAB", &u16b(0))), sub_chunk(b"FUNC", &s0("Fresnel"))]),
    ));
    body.extend(chunk(b"SURF", &surf));
    // Clips.
    let clip1 = cat(&[
        1u32.to_be_bytes().to_vec(),
        sub_chunk(b"STIL", &s0("Images/skin.png")),
        sub_chunk(b"TIME", &f32s(&[0.0, 2.0, 24.0])),
        sub_chunk(b"CONT", &cat(&[f32s(&[0.1]), vx(0)])),
        sub_chunk(b"BRIT", &cat(&[f32s(&[0.2]), vx(0)])),
        sub_chunk(b"SATR", &cat(&[f32s(&[0.3]), vx(0)])),
        sub_chunk(b"HUE ", &cat(&[f32s(&[0.4]), vx(0)])),
        sub_chunk(b"GAMM", &cat(&[f32s(&[2.2]), vx(0)])),
        sub_chunk(b"NEGA", &u16b(1)),
        sub_chunk(b"IFLT", &cat(&[s0("Blur"), u16b(0)])),
        sub_chunk(b"PFLT", &cat(&[s0("Halo"), u16b(0)])),
        sub_chunk(b"CLRS", &cat(&[u16b(0), u16b(2), s0("linear.icc")])),
        sub_chunk(b"FILT", &u16b(1)),
        sub_chunk(b"DITH", &u16b(2)),
    ]);
    body.extend(chunk(b"CLIP", &clip1));
    let iseq = cat(&[
        vec![3, 1],
        2i16.to_be_bytes().to_vec(),
        u16b(0),
        1i16.to_be_bytes().to_vec(),
        30i16.to_be_bytes().to_vec(),
        s0("Images/frame"),
        s0(".tga"),
    ]);
    body.extend(chunk(b"CLIP", &cat(&[2u32.to_be_bytes().to_vec(), sub_chunk(b"ISEQ", &iseq)])));
    body.extend(chunk(
        b"CLIP",
        &cat(&[3u32.to_be_bytes().to_vec(), sub_chunk(b"XREF", &cat(&[1u32.to_be_bytes().to_vec(), s0("(1)")]))]),
    ));
    // An envelope.
    let envl = cat(&[
        vx(3),
        sub_chunk(b"TYPE", &[0x03, 0x0A]),
        sub_chunk(b"PRE ", &u16b(2)),
        sub_chunk(b"POST", &u16b(3)),
        sub_chunk(b"KEY ", &f32s(&[0.0, 0.1])),
        sub_chunk(b"KEY ", &f32s(&[1.0, 0.9])),
        sub_chunk(b"SPAN", &cat(&[b"TCB ".to_vec(), f32s(&[0.0, 0.5, -0.5])])),
        sub_chunk(b"CHAN", &cat(&[s0("Noise"), u16b(1)])),
        sub_chunk(b"NAME", &s0("Colour.R")),
    ]);
    body.extend(chunk(b"ENVL", &envl));
    form(b"LWO2", &body)
}

#[test]
fn every_known_sub_chunk_reads_into_the_model() {
    use lwo_wmo_viewer::formats::lwo::{BlockKind, ClipSource, PolygonKind, Projection, Wrap};
    let (_, o) = lwo::parse(&lwo2_everything_fixture()).unwrap();
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    assert_eq!(o.description.as_deref(), Some("a test object"));
    assert_eq!(o.comments, ["line one\nline two"]);
    let icon = o.icon.as_ref().unwrap();
    assert_eq!((icon.width, icon.height), (2, 2));
    let layer = &o.layers[0];
    assert!(layer.hidden());
    assert_eq!(
        (layer.number, layer.name.as_str(), layer.parent, layer.pivot),
        (1, "Hidden one", None, [0.5, 0.0, 0.0])
    );
    assert_eq!(layer.bounding_box, Some([[0.0; 3], [3.0, 1.0, 0.0]]));
    let p = &layer.polygons;
    assert_eq!(
        (0..p.len()).map(|i| p.kind()[i]).collect::<Vec<_>>(),
        [PolygonKind::Face, PolygonKind::Face, PolygonKind::Bone]
    );
    assert_eq!((p.part()[0], p.smoothing_group()[0]), (1, 5));
    assert_eq!(p.part()[2], 2);
    let uv = layer.vertex_map(b"TXUV", "uv", false).unwrap();
    assert_eq!((uv.points.iter().collect::<Vec<_>>(), uv.parameters), (vec![0, 2], Some([1, 7])));
    let vmad = layer.vertex_map(b"TXUV", "uv", true).unwrap();
    assert_eq!(
        (vmad.points.iter().collect::<Vec<_>>(), vmad.polygons.as_slice(), vmad.value(0)),
        (vec![2], &[0][..], &[0.5, 0.25][..])
    );

    let s = &o.surfaces[0];
    assert_eq!((s.color, s.diffuse), ([0.1, 0.2, 0.3], 0.8));
    assert_eq!(s.envelopes, [(lwo_wmo_viewer::formats::FourCc::new(b"COLR"), 3)]);
    assert_eq!((s.reflection_options, s.reflection_image, s.reflection_seam_angle), (3, 2, 0.5));
    assert_eq!((s.refraction_options, s.refraction_image), (1, 1));
    let glow = s.glow.as_ref().unwrap();
    assert_eq!((glow.kind, glow.intensity, glow.size), (1, 0.7, 0.05));
    let line = s.outline.as_ref().unwrap();
    assert_eq!((line.flags, line.size, line.color), (1, Some(2.0), Some([1.0, 0.5, 0.25])));
    assert_eq!((s.alpha_mode, s.alpha_value), (1, 0.6));
    assert_eq!(s.vertex_color.as_ref().unwrap().map_name, "paint");
    assert_eq!(s.blocks.len(), 4);
    let b = &s.blocks[0];
    assert_eq!(
        (b.kind, b.channel.to_string(), b.enabled, b.opacity_type, b.opacity, b.negative),
        (BlockKind::Image, "COLR".to_owned(), true, 0, 0.75, true)
    );
    assert_eq!((b.center, b.size, b.rotation), ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.1, 0.2, 0.3]));
    assert_eq!(
        (b.reference_object.as_deref(), b.falloff, b.world_coordinates),
        (Some("Null"), Some((1, [0.5; 3])), true)
    );
    assert_eq!((b.projection, b.axis, b.image, b.wrap), (Projection::Uv, 2, 1, [Wrap::Mirror, Wrap::Edge]));
    assert_eq!((b.wrap_cycles, b.uv_map.as_deref()), ([2.0, 3.0], Some("uv")));
    assert_eq!((b.antialiasing, b.pixel_blending, b.sticky_time, b.amplitude), (Some(0.4), true, Some(12.0), 0.3));
    let proc_block = &s.blocks[1];
    assert_eq!(
        (proc_block.kind, proc_block.function.as_deref(), proc_block.procedural_value.as_slice()),
        (BlockKind::Procedural, Some("Turbulence"), &[0.1, 0.2, 0.3][..])
    );
    let g = s.blocks[2].gradient.as_ref().unwrap();
    assert_eq!(
        (g.parameter.as_str(), g.item.as_str(), g.range, g.spans.as_slice()),
        ("Slope", "(none)", [0.0, 1.0], &[1, 2][..])
    );
    assert_eq!(g.keys, [(0.0, [1.0, 0.0, 0.0, 1.0]), (1.0, [0.0, 0.0, 1.0, 1.0])]);
    assert_eq!(
        (s.blocks[3].kind, s.blocks[3].enabled, s.blocks[3].function.as_deref()),
        (BlockKind::Shader, false, Some("Fresnel"))
    );

    let c = &o.clips[0];
    assert_eq!(c.source, ClipSource::Still("Images/skin.png".into()));
    assert_eq!(
        (c.time, c.contrast, c.brightness, c.saturation, c.hue, c.gamma, c.negative),
        (Some([0.0, 2.0, 24.0]), 0.1, 0.2, 0.3, 0.4, 2.2, true)
    );
    assert_eq!(
        (c.filters.as_slice(), c.color_space.clone(), c.filtering, c.dithering),
        (&["Blur".to_owned(), "Halo".to_owned()][..], Some((2, "linear.icc".to_owned())), Some(1), Some(2))
    );
    assert_eq!(
        o.clips[1].source.file_name().as_deref(),
        Some("Images/frame003.tga"),
        "start 1 + offset 2, three digits"
    );
    assert_eq!(o.clips[2].source, ClipSource::Reference { index: 1, name: "(1)".into() });

    let e = &o.envelopes[0];
    assert_eq!(
        (e.index, e.kind, e.pre_behavior, e.post_behavior, e.name.as_deref()),
        (3, 0x030A, 2, 3, Some("Colour.R"))
    );
    assert_eq!(e.keys.len(), 2);
    assert_eq!(
        e.keys[1].span.as_ref().map(|(shape, p)| (shape.to_string(), p.clone())),
        Some(("TCB ".to_owned(), vec![0.0, 0.5, -0.5]))
    );
    assert_eq!(e.modifiers, [("Noise".to_owned(), 1)]);
}

#[test]
fn curves_bones_and_short_polygons_become_lines_and_points() {
    use lwo_wmo_viewer::fixtures::lwo::{chunk, f32s, form, vx};
    let u16b = |v: u16| v.to_be_bytes().to_vec();
    let mut body = chunk(b"PNTS", &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]));
    body.extend(chunk(b"POLS", &[b"CURV".to_vec(), u16b(3), vx(0), vx(1), vx(2)].concat()));
    body.extend(chunk(b"POLS", &[b"BONE".to_vec(), u16b(2), vx(2), vx(3)].concat()));
    body.extend(chunk(b"POLS", &[b"FACE".to_vec(), u16b(1), vx(3), u16b(2), vx(0), vx(3)].concat()));
    let (_, object) = lwo::parse(&form(b"LWO2", &body)).unwrap();
    let built = build(&object, BuildOptions::default());
    let layer = &built.layers[0];
    assert!(layer.surfaces.is_empty());
    // Curve: 2 segments, bone: 1, two-point polygon: 1.
    assert_eq!(layer.lines.as_ref().unwrap().indices.len(), 2 * 4);
    assert_eq!(layer.points.as_ref().unwrap().indices.len(), 1);
}

#[test]
fn vmad_overrides_the_vmap_per_corner_and_splits_the_shared_point() {
    let (_, object) = lwo::parse(&lwo2_everything_fixture()).unwrap();
    let built = build(&object, BuildOptions::default());
    let mesh = &built.layers[0].surfaces[0].mesh;
    // Polygon 0's corner at point 2 takes the VMAD value (0.5, 0.25); V is flipped to top-origin.
    let uvs = &mesh.uv_sets[0];
    assert_eq!(uvs[2], [0.5, 0.75]);
    assert_eq!(uvs[0], [0.0, 1.0]);
}

/// LWLO's LAYR flags bit 0 marks Modeler's foreground (active) layer, not a hidden one: a foreground
/// and a background layer are both read as shown, each under its name.
#[test]
fn lightwave5_layers_flagged_foreground_are_shown() {
    use lwo_wmo_viewer::fixtures::lwo::{chunk, f32s, form, s0};
    let u16b = |v: u16| v.to_be_bytes().to_vec();
    let triangle = |x: f32| {
        let mut out = chunk(b"PNTS", &f32s(&[x, 0.0, 0.0, x + 1.0, 0.0, 0.0, x, 1.0, 0.0]));
        out.extend(chunk(b"POLS", &[u16b(3), u16b(0), u16b(1), u16b(2), u16b(1)].concat()));
        out
    };
    let mut body = chunk(b"SRFS", &s0("Default"));
    for (number, flags, name, x) in [(1, 1, "Front", 0.0), (2, 0, "Back", 5.0)] {
        body.extend(chunk(b"LAYR", &[u16b(number), u16b(flags), s0(name)].concat()));
        body.extend(triangle(x));
    }
    let (_, object) = lwo::parse(&form(b"LWLO", &body)).unwrap();
    let layers: Vec<(&str, u16, bool)> = object.layers.iter().map(|l| (l.name.as_str(), l.flags, l.hidden())).collect();
    assert_eq!(layers, [("Front", 1, false), ("Back", 0, false)]);
    let built = build(&object, BuildOptions::default());
    assert_eq!(built.triangle_count, 2);
    assert!(built.layers.iter().all(|l| !l.hidden));
}

/// The normal a point's corners share, found once per point by the build, is the per-corner smoothing
/// rule's: on every corner of smoothed real and generated objects it agrees with
/// [`CornerNormals::at`], it is found on most points of a smooth surface, and never where the rule
/// gives corners different normals (hard edges of a box, flat shading).
#[test]
fn a_points_shared_normal_is_the_corner_rule_s() {
    use lwo_wmo_viewer::mesh::normals::{CornerNormals, PointNormals};
    let generated =
        lwo::parse(&lwo_wmo_viewer::fixtures::lwo::large_object(40, 30)).expect("the generated terrain parses").1;
    let files = [
        "LWO2/hierarchy_smoothed.lwo",
        "LWO2/sphere_with_gradient.lwo",
        "LWO2/UglyVertexColors.lwo",
        "LXOB_Modo/CrazyEngine.lxo",
        "LWO2/boxuv.lwo",
    ];
    let objects: Vec<(String, LwoObject)> = files
        .iter()
        .map(|f| (f.to_string(), load(&Path::new(CORPUS).join(f))))
        .chain([("generated terrain".to_string(), generated)])
        .collect();
    for (name, object) in &objects {
        for (index, layer) in object.layers.iter().enumerate() {
            for smooth in [true, false] {
                let normals = CornerNormals::new(layer, &object.surfaces, smooth);
                let shared = PointNormals::new(&normals);
                let (mut corners, mut points_shared) = (0, 0);
                for p in 0..layer.polygons.len() {
                    for &v in layer.polygons.vertices(p) {
                        let (rule, once) = (normals.at(p, v), shared.at(&normals, p, v));
                        assert!(
                            (0..3).all(|k| (rule[k] - once[k]).abs() < 1e-5),
                            "{name} layer {index} polygon {p} point {v}: {rule:?} by the rule, {once:?} shared"
                        );
                        corners += 1;
                    }
                }
                for v in 0..layer.points.len() as u32 {
                    points_shared += usize::from(normals.shared_at(v).is_some());
                }
                // With the table cut down to the points that do not share, each of their corners
                // gets the same normal, bit for bit, as from the whole table.
                let mut retained = CornerNormals::new(layer, &object.surfaces, smooth);
                retained.retain_points(|v| !shared.shares(v));
                for p in 0..layer.polygons.len() {
                    for &v in layer.polygons.vertices(p).iter().filter(|&&v| !shared.shares(v)) {
                        assert_eq!(
                            retained.at(p, v),
                            normals.at(p, v),
                            "{name} layer {index} polygon {p} point {v}, the table cut down"
                        );
                    }
                }
                if !smooth {
                    assert_eq!(points_shared, 0, "{name}: flat shading shares no normal");
                } else if name == "LWO2/boxuv.lwo" {
                    assert_eq!(points_shared, 0, "{name}: a box's corners are hard edges");
                } else if name == "generated terrain" {
                    assert!(
                        points_shared * 10 > layer.points.len() * 9,
                        "{name}: {points_shared} of {} points share a normal",
                        layer.points.len()
                    );
                }
                assert!(corners > 0 || layer.polygons.is_empty());
            }
        }
    }
}

/// A polygon's record is found from the few places the parser keeps, past hundreds of polygons and
/// across corners written in four bytes (points from 0xFF00 on): on a generated 90 000-point terrain
/// every polygon's record holds its corner count and its corners, and ends where the next begins.
#[test]
fn a_large_layers_polygons_find_their_records() {
    let bytes = lwo_wmo_viewer::fixtures::lwo::large_object(300, 300);
    let (_, object) = lwo::parse(&bytes).expect("the generated terrain parses");
    let polygons = &object.layers[0].polygons;
    assert!(object.layers[0].points.len() > 0xFF00, "some corners are written in four bytes");
    let vx = |at: usize| match bytes[at] {
        0xFF => (u32::from_be_bytes([0, bytes[at + 1], bytes[at + 2], bytes[at + 3]]), 4),
        _ => (u32::from(u16::from_be_bytes([bytes[at], bytes[at + 1]])), 2),
    };
    let mut long_corners = 0;
    for p in 0..polygons.len() {
        let record = polygons.record(p).unwrap();
        assert_eq!(record.index_in_chunk, p as u32, "one POLS, nothing dropped");
        let mut at = record.offset as usize;
        let count = u16::from_be_bytes([bytes[at], bytes[at + 1]]) & 0x3FF;
        at += 2;
        let mut corners = Vec::new();
        for _ in 0..count {
            let (v, width) = vx(at);
            long_corners += usize::from(width == 4);
            corners.push(v);
            at += width;
        }
        assert_eq!(corners, polygons.vertices(p), "polygon {p}");
        if let Some(next) = polygons.record(p + 1) {
            assert_eq!(next.offset as usize, at, "polygon {p}'s record ends where the next begins");
        }
    }
    assert!(long_corners > polygons.len(), "{long_corners} long corners");
}
