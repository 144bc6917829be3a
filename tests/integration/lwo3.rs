//! LightWave 2018 objects (LWO3) as LightWave writes them: the real files in
//! `tests/data/lightwave-2018` (CC BY 4.0, committed with their licence), the LWO3 fixture writer
//! read back, and lenient reading of optional sub-chunks that are shorter or longer than the spec says.

use std::path::{Path, PathBuf};

use lwo_wmo_viewer::fixtures::lwo::{chunk, f32s, form, lwo3_object, lwo3_sample, s0, sub_chunk, vx};
use lwo_wmo_viewer::formats::lwo::shading::{AlphaMode, ShadingSource, TextureSlot};
use lwo_wmo_viewer::formats::lwo::{self, ClipSource, LwoObject, MorphKind, Projection, Wrap};
use lwo_wmo_viewer::mesh::lwo::{BuildOptions, build};

pub fn content_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lightwave-2018");
    assert!(root.join("Objects").is_dir(), "{}: the real LightWave 2018 objects are missing", root.display());
    root
}

fn real(name: &str) -> (Vec<u8>, lwo_wmo_viewer::formats::ChunkTree, LwoObject) {
    let path = content_root().join("Objects").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (tree, object) = lwo::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (bytes, tree, object)
}

/// Independent count straight from the bytes: every top-level chunk of LWO3 has a U4 length; points are
/// PNTS length ÷ 12; each POLS record is a U2 count (low 10 bits) and that many VX indices; triangles
/// are Σ(n − 2) over FACE polygons.
fn independent_counts(bytes: &[u8]) -> (usize, usize, usize) {
    let be16 = |p: usize| u16::from_be_bytes([bytes[p], bytes[p + 1]]) as usize;
    let be32 = |p: usize| u32::from_be_bytes([bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]]) as usize;
    assert_eq!(&bytes[8..12], b"LWO3");
    let (mut points, mut polygons, mut triangles) = (0, 0, 0);
    let mut p = 12;
    while p + 8 <= bytes.len() {
        let (id, len) = (&bytes[p..p + 4], be32(p + 4));
        let data = p + 8;
        if id == b"PNTS" {
            points += len / 12;
        } else if id == b"POLS" {
            let face = &bytes[data..data + 4] == b"FACE";
            let mut q = data + 4;
            while q < data + len {
                let n = be16(q) & 0x3FF;
                q += 2;
                for _ in 0..n {
                    q += if bytes[q] == 0xFF { 4 } else { 2 };
                }
                polygons += 1;
                if face {
                    triangles += n.saturating_sub(2);
                }
            }
        }
        p = data + len + (len & 1);
    }
    (points, polygons, triangles)
}

#[test]
fn every_lightwave_2018_object_opens_with_independently_counted_geometry() {
    // Points and polygons as the README of the data set and a hex dump show them.
    let expected = [
        ("Cube00-Basic.lwo", 8, 6),
        ("Cube04-MultipleStandard.lwo", 8, 6),
        ("Cube06-UVTextureMapStandard.lwo", 8, 6),
        ("Cube09-UVTextureMapPhong-Repeat.lwo", 8, 6),
        ("Cube10-Morphs.lwo", 8, 6),
        ("DoubleSidedMaterials.lwo", 8, 2),
        ("Line-Basic.lwo", 12, 11),
        ("PhongMaterials01-Basic.lwo", 16995, 17757),
        ("Points-Basic.lwo", 48, 48),
        ("SmoothingSphere.lwo", 266, 288),
        ("multipleUVs.lwo", 8, 6),
    ];
    let mut found: Vec<String> = std::fs::read_dir(content_root().join("Objects"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.to_lowercase().ends_with(".lwo"))
        .collect();
    found.sort();
    assert_eq!(found, expected.iter().map(|e| e.0).collect::<Vec<_>>());
    for (name, points, polygons) in expected {
        let (bytes, _, object) = real(name);
        assert_eq!(object.kind, lwo::LwoKind::Lwo3, "{name}");
        assert!(object.warnings.is_empty(), "{name}: {:?}", object.warnings);
        let (walked_points, walked_polygons, triangles) = independent_counts(&bytes);
        assert_eq!((walked_points, walked_polygons), (points, polygons), "{name}: the independent walk");
        assert_eq!((object.point_count(), object.polygon_count()), (points, polygons), "{name}");
        let built = build(&object, BuildOptions::default());
        assert_eq!(built.triangle_count, triangles, "{name}: triangles");
        assert_eq!(lwo_wmo_viewer::mesh::lwo::triangle_count(&object), triangles, "{name}: --info triangles");
        for surface in &object.surfaces {
            assert!(surface.is_default || surface.nodes.is_some(), "{name}: {} has its node graph", surface.name);
        }
    }
}

#[test]
fn cube04_faces_take_their_colours_from_their_principled_nodes() {
    let (_, _, object) = real("Cube04-MultipleStandard.lwo");
    let expected = [
        ("Back", [0.0, 0.502, 0.0]),
        ("Bottom", [0.502, 0.0, 0.502]),
        ("Front", [0.502, 1.0, 0.502]),
        ("Left", [0.0, 0.502, 1.0]),
        ("Right", [1.0, 0.502, 0.502]),
        ("Top", [0.502, 0.502, 1.0]),
    ];
    let polygons = &object.layers[0].polygons;
    let mut seen = Vec::new();
    for p in 0..polygons.len() {
        let surface = &object.surfaces[polygons.surface().get(p) as usize];
        let shading = lwo::shading(surface, &object);
        assert_eq!(shading.source, ShadingSource::Nodes, "{}", surface.name);
        let (_, colour) = expected
            .iter()
            .find(|(n, _)| *n == surface.name)
            .unwrap_or_else(|| panic!("unexpected surface {}", surface.name));
        for k in 0..3 {
            assert!(
                (shading.base_color[k] - colour[k]).abs() < 1e-3,
                "{}: {:?} != {colour:?}",
                surface.name,
                shading.base_color
            );
        }
        assert_eq!(
            (shading.metallic, shading.alpha, shading.alpha_mode, shading.diffuse),
            (0.0, 1.0, AlphaMode::Opaque, 1.0)
        );
        assert!((shading.reflectance - 0.5).abs() < 1e-6, "Principled Specular 0.5");
        assert!(shading.notes.is_empty(), "{:?}", shading.notes);
        seen.push(surface.name.clone());
    }
    seen.sort();
    assert_eq!(seen, expected.iter().map(|e| e.0.to_owned()).collect::<Vec<_>>(), "one surface per face");
}

#[test]
fn cube06_reads_its_clip_and_the_image_node_on_the_principled_colour() {
    let (bytes, tree, object) = real("Cube06-UVTextureMapStandard.lwo");
    assert_eq!(object.clips.len(), 1);
    assert_eq!(
        (object.clips[0].index, &object.clips[0].source),
        (1, &ClipSource::Still("Images/general/UV_Grid.jpg".into()))
    );
    let shading = lwo::shading(&object.surfaces[0], &object);
    let texture = shading.texture(TextureSlot::BaseColor).expect("the Image node drives the colour");
    assert_eq!(texture.file.as_deref(), Some("Images/general/UV_Grid.jpg"));
    assert_eq!(
        (texture.clip, texture.uv_map.as_deref(), texture.projection),
        (Some(1), Some("Texture"), Projection::Uv)
    );
    assert_eq!((texture.wrap, texture.tiling), ([Wrap::Repeat; 2], [1.0, 1.0]));
    assert!(content_root().join(texture.file.as_ref().unwrap()).is_file(), "the image is found from the content root");
    assert_eq!(shading.base_color, [1.0; 3], "the image is the colour");
    // The graph holds a Standard node too, unconnected: the material is the one on Surface.Material.
    let graph = object.surfaces[0].nodes.as_ref().unwrap();
    let kinds: Vec<&str> = graph.nodes.iter().map(|n| n.kind.as_str()).collect();
    assert_eq!(kinds, ["Surface", "Input", "Principled BSDF", "Image", "Standard"]);
    assert_eq!(graph.material_node().unwrap().name, "Principled BSDF (1)");
    let lines = graph.describe();
    assert!(lines.contains(&"Image (1).Color → Principled BSDF (1).Color".to_owned()), "{lines:?}");
    assert!(
        lines.iter().any(|l| l
            .starts_with("Standard (1) [Standard]: Color = (0.5020, 0.5020, 0.5020), Luminosity = 0, Diffuse = 0.95")),
        "{lines:?}"
    );
    // Paths name the forms; the anonymous chunks show decoded.
    let paths: Vec<(String, Vec<(&str, String)>)> = tree
        .paths()
        .into_iter()
        .map(|(path, id)| (path, lwo_wmo_viewer::formats::chunk_fields(&tree, id, &bytes)))
        .collect();
    let find =
        |p: &str| paths.iter().find(|(path, _)| path == p).map(|(_, f)| f.clone()).unwrap_or_else(|| panic!("no {p}"));
    assert_eq!(find("FORM LWO3/FORM CLIP \"1\"/(fields)"), [("index", "1".to_owned())]);
    assert_eq!(
        find("FORM LWO3/FORM CLIP \"1\"/FORM STIL \"Images/general/UV_Grid.jpg\"/(fields)"),
        [("file", "Images/general/UV_Grid.jpg".to_owned())]
    );
    assert_eq!(
        find("FORM LWO3/FORM SURF \"Default\"/(fields)"),
        [("name", "Default".to_owned()), ("source", String::new())]
    );
    let colour = find(
        "FORM LWO3/FORM SURF \"Default\"/FORM NODS/FORM NNDS/FORM NTAG \"Standard (1)\"/FORM NDTA/FORM SATR/FORM META/FORM ADAT/FORM ENTR \"Color\"/FORM VALU/FORM VALU/(fields)",
    );
    assert_eq!(colour[0], ("count", "3".to_owned()));
}

#[test]
fn cube10_lists_its_three_morphs() {
    let (_, _, object) = real("Cube10-Morphs.lwo");
    let layer = &object.layers[0];
    let morphs = layer.morphs();
    let names: Vec<&str> = morphs.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Random", "Tall & Skinny", "Wide"]);
    for morph in &morphs {
        assert_eq!(morph.kind, MorphKind::Relative);
        let offsets = morph.offsets(&layer.points);
        assert_eq!(offsets.len(), 8);
        assert!(offsets.iter().any(|o| o.iter().any(|c| c.abs() > 0.01)), "{} moves points", morph.name);
    }
}

#[test]
fn double_sided_surfaces_and_smoothing_angles_are_read_beside_the_nodes() {
    let (_, _, object) = real("DoubleSidedMaterials.lwo");
    assert_eq!(object.surfaces.len(), 2);
    for s in &object.surfaces {
        assert!(lwo::shading(s, &object).double_sided, "{}", s.name);
    }
    let (_, _, sphere) = real("SmoothingSphere.lwo");
    let angles: Vec<(String, f32)> = sphere.surfaces.iter().map(|s| (s.name.clone(), s.max_smoothing_angle)).collect();
    assert_eq!(angles[0], ("Sphere-Flat".to_owned(), 0.0));
    assert_eq!(angles[1], ("Sphere-Smooth".to_owned(), 1.5625));
    assert!((angles[2].1 - 0.3141592).abs() < 1e-6, "{angles:?}");
}

#[test]
fn each_polygon_knows_the_bytes_of_its_record() {
    let (bytes, tree, object) = real("Cube00-Basic.lwo");
    let pols = tree.chunk(tree.roots()[0]).children().find(|c| c.id.to_string() == "POLS").unwrap();
    let polygons = &object.layers[0].polygons;
    assert!(
        (0..polygons.len()).all(|p| polygons.chunk_of(p) == Some(pols.chunk)),
        "every polygon knows its POLS by id"
    );
    let records: Vec<_> = (0..polygons.len()).map(|p| polygons.record(p).unwrap()).collect();
    assert_eq!(records.iter().map(|r| r.index_in_chunk).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    assert_eq!(records[0].offset as usize, pols.data_offset() + 4, "after the FACE type");
    for (p, record) in records.iter().enumerate() {
        let at = record.offset as usize;
        let count = u16::from_be_bytes([bytes[at], bytes[at + 1]]) & 0x3FF;
        assert_eq!(usize::from(count), polygons.vertices(p).len());
        let first = u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]);
        assert_eq!(u32::from(first), polygons.vertices(p)[0]);
    }
}

#[test]
fn the_lwo3_writer_round_trips_nodes_clips_and_morphs() {
    let sample = lwo3_sample();
    let bytes = lwo3_object(&sample);
    let (tree, object) = lwo::parse(&bytes).unwrap();
    assert!(object.warnings.is_empty(), "{:?}", object.warnings);
    assert!(tree.warnings.is_empty(), "{:?}", tree.warnings);
    assert_eq!((object.kind, object.point_count(), object.polygon_count()), (lwo::LwoKind::Lwo3, 7, 3));
    let names: Vec<&str> = object.surfaces.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Painted", "Plain", "Odd"]);
    assert_eq!(object.clips[0].source, ClipSource::Still("Images/grid.png".into()));
    let envelope = &object.envelopes[0];
    assert_eq!((envelope.index, envelope.kind, envelope.keys.len()), (1, 2, 2));
    assert_eq!((envelope.keys[1].time, envelope.keys[1].value), (1.0, 0.5));
    assert_eq!(envelope.keys[1].span.as_ref().map(|(shape, _)| shape.to_string()).as_deref(), Some("LINE"));
    // Every node and input the writer wrote is read back, with its value.
    for (written, read) in sample.surfaces.iter().zip(&object.surfaces) {
        let graph = read.nodes.as_ref().unwrap();
        assert_eq!(graph.nodes.len(), written.nodes.len(), "{}", written.name);
        for (w, r) in written.nodes.iter().zip(&graph.nodes) {
            assert_eq!((r.kind.as_str(), r.name.as_str()), (w.kind.as_str(), w.name.as_str()));
            let inputs: Vec<(String, Vec<f64>)> =
                r.inputs.iter().map(|i| (i.name.clone(), i.value.numbers())).collect();
            let expected: Vec<(String, Vec<f64>)> = w
                .inputs
                .iter()
                .map(|(n, v)| {
                    use lwo_wmo_viewer::fixtures::lwo::Lwo3Value::*;
                    (
                        n.clone(),
                        match v {
                            Int(i) => vec![f64::from(*i)],
                            Double(d) | Scalar(d) => vec![*d],
                            Vector(v) => v.to_vec(),
                        },
                    )
                })
                .collect();
            assert_eq!(inputs, expected, "{}", w.name);
        }
        let connections: Vec<[String; 4]> = graph
            .connections
            .iter()
            .map(|c| [c.to_node.clone(), c.to_input.clone(), c.from_node.clone(), c.from_output.clone()])
            .collect();
        let expected: Vec<[String; 4]> = written
            .connections
            .iter()
            .map(|c| [c.to_node.clone(), c.to_input.clone(), c.from_node.clone(), c.from_output.clone()])
            .collect();
        assert_eq!(connections, expected);
    }
    let image = object.surfaces[0].nodes.as_ref().unwrap().node("Image (1)").unwrap().image.clone().unwrap();
    assert_eq!((image.file.as_deref(), image.uv_map.as_deref()), (Some("Images/grid.png"), Some("Texture")));
    assert_eq!((image.setting(b"IUTL"), image.setting(b"IVTL"), image.setting(b"IMAP")), (Some(1), Some(2), Some(5)));

    // Principled with an Image on its Color.
    let painted = lwo::shading(&object.surfaces[0], &object);
    assert_eq!(
        (painted.source, painted.base_color, painted.roughness, painted.metallic),
        (ShadingSource::Nodes, [1.0; 3], 0.25, 0.75)
    );
    assert!((painted.clearcoat - 0.4).abs() < 1e-6 && (painted.clearcoat_roughness - 0.25).abs() < 1e-6);
    assert_eq!(painted.emissive, [0.5; 3], "luminous 0.5 × white");
    let texture = painted.texture(TextureSlot::BaseColor).unwrap();
    assert_eq!(
        (texture.clip, texture.file.as_deref(), texture.uv_map.as_deref()),
        (Some(1), Some("Images/grid.png"), Some("Texture"))
    );
    assert_eq!(
        (texture.wrap, texture.tiling, texture.center, texture.size),
        ([Wrap::Repeat, Wrap::Mirror], [2.0, 3.0], [0.0, 0.5, 0.0], [1.0, 2.0, 1.0])
    );
    // Standard, connected although listed after an unconnected Principled BSDF.
    let plain = lwo::shading(&object.surfaces[1], &object);
    assert_eq!(plain.base_color, [0.2, 0.4, 0.6]);
    assert!(
        (plain.diffuse - 0.8).abs() < 1e-6
            && (plain.reflectance - 0.3).abs() < 1e-6
            && (plain.roughness - 0.4).abs() < 1e-6
    );
    assert!((plain.alpha - 0.75).abs() < 1e-6 && (plain.ior - 1.33).abs() < 1e-6);
    assert_eq!(plain.alpha_mode, AlphaMode::Blend);
    // An unknown material node: its Color, one note naming the type; SIDE 3 double-sided.
    let odd = lwo::shading(&object.surfaces[2], &object);
    assert_eq!((odd.base_color, odd.double_sided), ([0.0, 0.502, 0.0], true));
    assert_eq!(odd.notes, ["unknown material node type Hypothetical BSDF: its Color input is used"]);

    let layer = &object.layers[0];
    let morphs: Vec<(&str, MorphKind)> = layer.morphs().iter().map(|m| (m.name, m.kind)).collect();
    assert_eq!(morphs, [("Lift", MorphKind::Relative), ("Flatten", MorphKind::Absolute)]);
    let flatten = layer.morphs()[1].offsets(&layer.points);
    assert_eq!(flatten[6], [0.0, -0.5, 0.0], "SPOT positions become offsets from the base");
    assert!(layer.vertex_map(b"TXUV", "Texture", false).is_some());
    let labels: Vec<String> = tree.chunk(tree.roots()[0]).children().map(|c| c.label()).collect();
    assert_eq!(
        labels[labels.len() - 5..],
        ["FORM CLIP \"1\"", "FORM ENVL \"1\"", "FORM SURF \"Painted\"", "FORM SURF \"Plain\"", "FORM SURF \"Odd\""]
    );
    assert_eq!(build(&object, BuildOptions::default()).triangle_count, 6);
}

/// An LWO2 surface whose optional sub-chunks disagree with the spec's sizes: AAST with its flags only
/// (2 bytes, as an older exporter writes it; the spec says 6), SIDE with two bytes too many, GLOW cut
/// after its type, and a clip's TIME with one value of three.
fn lwo2_with_odd_sub_chunks() -> Vec<u8> {
    let u16b = |v: u16| v.to_be_bytes().to_vec();
    let mut body = chunk(b"TAGS", &s0("Skin"));
    body.extend(chunk(b"PNTS", &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0])));
    body.extend(chunk(b"POLS", &[b"FACE".to_vec(), u16b(3), vx(0), vx(1), vx(2)].concat()));
    body.extend(chunk(b"PTAG", &[b"SURF".to_vec(), vx(0), u16b(0)].concat()));
    let imap = [
        sub_chunk(b"IMAP", &[s0("\u{80}"), sub_chunk(b"CHAN", b"COLR")].concat()),
        sub_chunk(b"PROJ", &u16b(5)),
        sub_chunk(b"IMAG", &vx(1)),
        sub_chunk(b"AAST", &u16b(1)),
        sub_chunk(b"VMAP", &s0("uv")),
    ]
    .concat();
    let surf = [
        s0("Skin"),
        s0(""),
        sub_chunk(b"COLR", &[f32s(&[0.1, 0.2, 0.3]), vx(0)].concat()),
        sub_chunk(b"SIDE", &[u16b(3), u16b(0)].concat()),
        sub_chunk(b"GLOW", &u16b(1)),
        sub_chunk(b"DIFF", &[f32s(&[0.5]), vx(0)].concat()),
        sub_chunk(b"BLOK", &imap),
    ]
    .concat();
    body.extend(chunk(b"SURF", &surf));
    body.extend(chunk(
        b"CLIP",
        &[1u32.to_be_bytes().to_vec(), sub_chunk(b"STIL", &s0("Images/skin.png")), sub_chunk(b"TIME", &f32s(&[0.0]))]
            .concat(),
    ));
    form(b"LWO2", &body)
}

#[test]
fn short_and_long_optional_sub_chunks_load_with_one_warning_each() {
    let (_, object) = lwo::parse(&lwo2_with_odd_sub_chunks()).expect("optional sub-chunks never refuse a file");
    let warnings: Vec<String> = object.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 4, "{warnings:#?}");
    let has = |needle: &str| warnings.iter().any(|w| w.contains(needle));
    assert!(has("FORM/SURF/BLOK/AAST at byte ") && has("expected 4 more bytes"), "{warnings:#?}");
    assert!(has("FORM/SURF/SIDE at byte ") && has("2 bytes more than the spec's layout of SIDE"), "{warnings:#?}");
    assert!(has("FORM/SURF/GLOW at byte "), "{warnings:#?}");
    assert!(has("FORM/CLIP/TIME at byte "), "{warnings:#?}");
    let s = &object.surfaces[0];
    // What was there is read, what follows the short chunk still is, the rest keeps the defaults.
    assert_eq!((s.color, s.diffuse, s.sidedness, s.glow.clone()), ([0.1, 0.2, 0.3], 0.5, 3, None));
    let block = &s.blocks[0];
    assert_eq!(
        (block.projection, block.image, block.antialiasing, block.uv_map.as_deref()),
        (Projection::Uv, 1, Some(1.0), Some("uv"))
    );
    assert_eq!((object.clips[0].time, object.clips[0].source.file_name().as_deref()), (None, Some("Images/skin.png")));
    assert_eq!(build(&object, BuildOptions::default()).triangle_count, 1);
}

#[test]
fn a_surface_sub_chunk_running_past_its_surface_keeps_the_surface_and_the_geometry() {
    let mut file = lwo2_with_odd_sub_chunks();
    // The SIDE sub-chunk's U2 length made larger than what is left of its SURF.
    let at = file.windows(4).position(|w| w == b"SIDE").unwrap();
    file[at + 4..at + 6].copy_from_slice(&900u16.to_be_bytes());
    let (_, object) = lwo::parse(&file).expect("a broken surface does not refuse the geometry");
    assert_eq!((object.point_count(), object.polygon_count()), (3, 1));
    assert_eq!(object.surfaces[0].color, [0.1, 0.2, 0.3], "what came before is kept");
    assert!(
        object
            .warnings
            .iter()
            .any(|w| w.path == "FORM/SURF/SIDE" && w.message.contains("runs past the end of its parent")),
        "{:?}",
        object.warnings
    );
}

#[test]
fn info_json_lists_materials_and_morphs() {
    let path = content_root().join("Objects/Cube04-MultipleStandard.lwo");
    let info = lwo_wmo_viewer::viewer::info::gather(&path).unwrap();
    let v = lwo_wmo_viewer::viewer::info::to_json(&path, &info);
    let materials = v["materials"].as_array().unwrap();
    let back = materials.iter().find(|m| m["name"] == "Back").unwrap();
    assert_eq!(back["source"], "nodes");
    let colour: Vec<f64> = back["base_color"].as_array().unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
    assert!((colour[1] - 0.502).abs() < 1e-3 && colour[0] == 0.0 && colour[2] == 0.0, "{colour:?}");
    assert_eq!(
        (back["metallic"].as_f64(), back["alpha"].as_f64(), back["double_sided"].as_bool()),
        (Some(0.0), Some(1.0), Some(false))
    );
    assert!(back["base_color_texture"].is_null() && back["normal_map_texture"].is_null());
    assert_eq!(v["format"], "LWO3");
    assert_eq!(v["points"], 8);

    let textured = content_root().join("Objects/Cube06-UVTextureMapStandard.lwo");
    let v = lwo_wmo_viewer::viewer::info::to_json(&textured, &lwo_wmo_viewer::viewer::info::gather(&textured).unwrap());
    assert_eq!(v["materials"][0]["base_color_texture"], "Images/general/UV_Grid.jpg");
    let morphs = content_root().join("Objects/Cube10-Morphs.lwo");
    let v = lwo_wmo_viewer::viewer::info::to_json(&morphs, &lwo_wmo_viewer::viewer::info::gather(&morphs).unwrap());
    assert_eq!(v["morphs"], serde_json::json!(["Random", "Tall & Skinny", "Wide"]));
    // Warnings name the file, the chunk path and the offset.
    let odd = std::env::temp_dir().join(format!("lwo3-test-odd-{}.lwo", std::process::id()));
    std::fs::write(&odd, lwo2_with_odd_sub_chunks()).unwrap();
    let info = lwo_wmo_viewer::viewer::info::gather(&odd).unwrap();
    std::fs::remove_file(&odd).ok();
    let prefix = format!("{}: FORM/SURF/", odd.display());
    assert!(info.warnings.iter().any(|w| w.starts_with(&prefix) && w.contains("AAST at byte ")), "{:?}", info.warnings);
    // An LWO2 surface goes the basic way.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/square-with-detail.lwo");
    let v = lwo_wmo_viewer::viewer::info::to_json(&sample, &lwo_wmo_viewer::viewer::info::gather(&sample).unwrap());
    assert_eq!(v["materials"][0]["source"], "basic");
    assert_eq!(v["morphs"], serde_json::json!([]));
}

/// Deterministic damage to the real files and the fixture — bytes flipped, lengths rewritten, cut short —
/// never panics anywhere between the bytes and the shading, and the node graph stays cheap to evaluate.
#[test]
fn damaged_lwo3_files_never_panic_from_bytes_to_shading() {
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(content_root().join("Objects"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    files.push(lwo3_object(&lwo3_sample()));
    let mut state = 0x9E37_79B9u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let started = std::time::Instant::now();
    for file in &files {
        for case in 0..600 {
            let mut bytes = file.clone();
            let at = next() as usize % bytes.len();
            match case % 3 {
                0 => bytes[at] ^= 1 << (next() % 8),
                1 => {
                    // A chunk's length field rewritten: the four bytes after an id-looking word.
                    let ids: Vec<usize> = (12..bytes.len().saturating_sub(8))
                        .filter(|&i| bytes[i..i + 4].iter().all(|b| b.is_ascii_uppercase() || *b == b' '))
                        .collect();
                    if let Some(&i) = ids.get(next() as usize % ids.len().max(1)) {
                        bytes[i + 4..i + 8].copy_from_slice(&(next() % 0x2000).to_be_bytes());
                    }
                }
                _ => bytes.truncate(at),
            }
            if let Ok((_, object)) = lwo::parse(&bytes) {
                for surface in &object.surfaces {
                    let _ = lwo::shading(surface, &object);
                    if let Some(graph) = &surface.nodes {
                        let _ = graph.describe();
                    }
                }
                for layer in &object.layers {
                    for morph in layer.morphs() {
                        let _ = morph.offsets(&layer.points);
                    }
                }
                let _ = build(&object, BuildOptions::default());
            }
        }
    }
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

#[test]
fn lwo3_warnings_name_the_forms_on_their_path() {
    use lwo_wmo_viewer::fixtures::lwo::anonymous;
    let u16b = |v: u16| v.to_be_bytes().to_vec();
    let mut body = chunk(b"TAGS", &s0("Short"));
    body.extend(chunk(b"PNTS", &f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0])));
    body.extend(chunk(b"POLS", &[b"FACE".to_vec(), u16b(3), vx(0), vx(1), vx(2)].concat()));
    // SMAN with half its float, SIDE with two bytes too many.
    let surf =
        [anonymous(&[s0("Short"), s0("")].concat()), chunk(b"SMAN", &[0x3F, 0x80]), chunk(b"SIDE", &[0, 3, 0, 0])]
            .concat();
    body.extend(form(b"SURF", &surf));
    let (_, object) = lwo::parse(&form(b"LWO3", &body)).unwrap();
    let paths: Vec<&str> = object.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(paths, ["FORM LWO3/FORM SURF \"Short\"/SMAN", "FORM LWO3/FORM SURF \"Short\"/SIDE"]);
    assert_eq!(
        (object.surfaces[0].max_smoothing_angle, object.surfaces[0].sidedness),
        (0.0, 3),
        "SMAN keeps its default"
    );
}

/// Writes a `width × height` RGBA PNG whose every pixel is `pixel(x, y)`.
fn write_png(path: &Path, width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    image::RgbaImage::from_fn(width, height, |x, y| image::Rgba(pixel(x, y))).save(path).unwrap();
}

/// Image nodes on a Principled BSDF's Roughness, Metallic and Transparency (with a colour image) in a
/// content folder: roughness and metallic become one texture (green, blue) with factors of 1, the
/// transparency image the base texture's alpha, and the export carries all three.
#[test]
fn roughness_metallic_and_transparency_images_become_the_textures_bevy_and_gltf_sample() {
    use lwo_wmo_viewer::fixtures::lwo::{Lwo3Connection, Lwo3Image, Lwo3Node};
    let root = crate::support::scratch("lwo3-scalar-images");
    // Left half rough, right half smooth; metallic top to bottom; transparency a quarter; colour red.
    write_png(&root.join("Images/rough.png"), 4, 2, |x, _| if x < 2 { [255; 4] } else { [0, 0, 0, 255] });
    write_png(
        &root.join("Images/metal.png"),
        2,
        2,
        |_, y| if y == 0 { [200, 200, 200, 255] } else { [50, 50, 50, 255] },
    );
    write_png(&root.join("Images/clear.png"), 4, 2, |_, _| [64, 64, 64, 255]);
    write_png(&root.join("Images/paint.png"), 4, 2, |_, _| [255, 0, 0, 255]);
    let image_node = |name: &str, file: &str| Lwo3Node {
        image: Some(Lwo3Image {
            file: format!("Images/{file}"),
            uv_map: "Texture".into(),
            projection: 5,
            wrap: [1, 1],
            tiling: [1.0, 1.0],
            position: [0.0; 3],
            scale: [1.0; 3],
            rotation: [0.0; 3],
        }),
        ..Lwo3Node::new("Image", name)
    };
    let mut object = lwo3_sample();
    let painted = &mut object.surfaces[0];
    painted.nodes.retain(|n| n.kind != "Image");
    painted.connections.retain(|c| c.to_node != "Principled BSDF (1)");
    for (input, node, file) in [
        ("Color", "Paint", "paint.png"),
        ("Roughness", "Rough", "rough.png"),
        ("Metallic", "Metal", "metal.png"),
        ("Transparency", "Clear", "clear.png"),
    ] {
        painted.nodes.push(image_node(node, file));
        painted.connections.push(Lwo3Connection::new(("Principled BSDF (1)", input), (node, "Color")));
    }
    let path = root.join("Objects/scalar-images.lwo");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, lwo3_object(&object)).unwrap();

    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(&path);
    let scene = lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default()).unwrap();
    assert!(scene.warnings.iter().all(|w| !w.message.contains("placeholder")), "{:?}", scene.warnings);
    let material = scene.materials.iter().find(|m| m.label == "Surface0").unwrap();
    let mr = &scene.textures[material.metallic_roughness_texture.expect("a metallic-roughness texture").texture];
    assert!(mr.linear && mr.found);
    assert_eq!((mr.image.width, mr.image.height), (4, 2), "the larger image's size");
    let px = |image: &lwo_wmo_viewer::scene::DecodedImage, x: u32, y: u32| {
        let at = ((y * image.width + x) * 4) as usize;
        <[u8; 4]>::try_from(&image.levels[0][at..at + 4]).unwrap()
    };
    assert_eq!(px(&mr.image, 0, 0), [255, 255, 200, 255], "rough left, metallic top");
    assert_eq!(px(&mr.image, 3, 1), [255, 0, 50, 255], "smooth right, less metallic bottom");
    assert_eq!((material.perceptual_roughness, material.metallic), (1.0, 1.0), "the images alone drive them");
    let base = &scene.textures[material.base_color_texture.unwrap().texture];
    assert!(!base.linear);
    assert_eq!(px(&base.image, 1, 1), [255, 0, 0, 191], "red, a quarter transparent");
    assert_eq!(material.alpha_mode, lwo_wmo_viewer::scene::AlphaMode::Blend);

    let out = root.join("scalar-images.glb");
    let report = lwo_wmo_viewer::export::write_file(&scene, &Default::default(), &out).unwrap();
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    let validation = crate::export::validate(&[&out]);
    assert_eq!(validation[0]["errors"], 0, "{}", validation[0]);
    let json = crate::export::glb_json(&out);
    let written = json["materials"].as_array().unwrap().iter().find(|m| m["name"] == "Surface0").unwrap();
    let pbr = &written["pbrMetallicRoughness"];
    assert!(
        pbr["metallicRoughnessTexture"]["index"].is_u64() && pbr["baseColorTexture"]["index"].is_u64(),
        "{written}"
    );
    assert_eq!((pbr["metallicFactor"].as_f64(), pbr["roughnessFactor"].as_f64()), (Some(1.0), Some(1.0)));
}

/// LightWave 2018 keeps an image on a node input's own layer stack (`TXTR` → `BLOK` → `IMAP` inside
/// the input's value): Cube09's and multipleUVs' UV grid on the Standard node's Color, the Phong bumps
/// on Bump. Each is read as a classic block, drives the slot as an Image node would, and gives the mesh
/// its UV map; no other input of the eleven objects has a layer.
#[test]
fn node_inputs_take_the_images_on_their_own_layers() {
    use lwo_wmo_viewer::formats::lwo::BlockKind;
    let mut with_layers = Vec::new();
    for entry in std::fs::read_dir(content_root().join("Objects")).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let (_, _, object) = real(&name);
        assert!(object.warnings.is_empty(), "{name}: {:?}", object.warnings);
        for surface in &object.surfaces {
            let Some(graph) = &surface.nodes else { continue };
            for node in &graph.nodes {
                for input in node.inputs.iter().filter(|i| !i.layers.is_empty()) {
                    with_layers.push((name.clone(), surface.name.clone(), node.name.clone(), input.name.clone()));
                    assert_eq!(input.layers.len(), 1, "{name} {}", surface.name);
                    let layer = &input.layers[0];
                    assert_eq!((layer.kind, layer.image, layer.projection), (BlockKind::Image, 1, Projection::Uv));
                    assert!(layer.enabled && layer.opacity == 1.0, "{name} {}: {layer:?}", surface.name);
                }
            }
        }
    }
    with_layers.sort();
    let count = |file: &str, input: &str| with_layers.iter().filter(|l| l.0 == file && l.3 == input).count();
    assert_eq!(with_layers.len(), 17, "{with_layers:#?}");
    assert_eq!(count("Cube09-UVTextureMapPhong-Repeat.lwo", "Color"), 6);
    assert_eq!(count("multipleUVs.lwo", "Color"), 6);
    assert_eq!(count("PhongMaterials01-Basic.lwo", "Bump"), 5);
    assert!(with_layers.iter().all(|l| l.2 == "Standard (1)"));

    let (_, _, cube) = real("Cube09-UVTextureMapPhong-Repeat.lwo");
    for surface in &cube.surfaces {
        let shading = lwo::shading(surface, &cube);
        let texture =
            shading.texture(TextureSlot::BaseColor).unwrap_or_else(|| panic!("{}: no colour image", surface.name));
        assert_eq!(
            (texture.clip, texture.file.as_deref()),
            (Some(1), Some("Images/general/UV_Grid.jpg")),
            "{}",
            surface.name
        );
        assert_eq!(shading.base_color, [1.0; 3], "{}: the image is the colour", surface.name);
        let (uv_map, wrap) = match surface.name.as_str() {
            "Left UV Alternate UVs" => ("Texture 2", [Wrap::Repeat; 2]),
            "Front UV Oversized Mirror & Edge" => ("Texture", [Wrap::Mirror, Wrap::Edge]),
            _ => ("Texture", [Wrap::Repeat; 2]),
        };
        assert_eq!((texture.uv_map.as_deref(), texture.wrap), (Some(uv_map), wrap), "{}", surface.name);
        // The mesh builder takes its UV map from the same layer.
        assert_eq!(surface.color_map().and_then(|b| b.uv_map.as_deref()), Some(uv_map), "{}", surface.name);
    }
    let (_, _, uvs) = real("multipleUVs.lwo");
    for surface in &uvs.surfaces {
        let expected = format!("UV{}", surface.name);
        assert_eq!(surface.color_map().and_then(|b| b.uv_map.clone()), Some(expected), "{}", surface.name);
    }
    let (_, _, phong) = real("PhongMaterials01-Basic.lwo");
    let bumped = phong.surfaces.iter().find(|s| s.name == "Phong_BumpHeight_100").unwrap();
    let layer =
        bumped.nodes.as_ref().unwrap().node("Standard (1)").unwrap().input("Bump").unwrap().image_layer().unwrap();
    assert_eq!(
        (layer.amplitude, phong.clip(layer.image).and_then(|c| c.source.file_name())),
        (1.0, Some("Images/material-PBR-rocks/Rocks01_bump.jpg".to_owned()))
    );
    let notes = lwo::shading(bumped, &phong).notes;
    assert!(notes.iter().any(|n| n.contains("Bump input's image layer")), "{notes:?}");
}
