//! M2 models and skins: the fixture writer read back, the version and bound checks, mesh building, the
//! doodad transform chain, `--info`, and doodads drawn in a WMO.

use std::process::Command;

use bevy::prelude::{Quat, Transform, Vec3};
use lwo_wmo_viewer::fixtures::m2::{sample_doodads, write_model, write_skin};
use lwo_wmo_viewer::formats::m2::{parse, parse_skin};
use lwo_wmo_viewer::formats::wmo::{Bgra, Doodad};
use lwo_wmo_viewer::mesh::coords::wmo_to_bevy;
use lwo_wmo_viewer::mesh::m2::{Geosets, build};
use lwo_wmo_viewer::mesh::wmo::doodad_placement;

use crate::support::{asset, bin};

#[test]
fn fixture_models_and_skins_read_back_to_what_was_written() {
    for (name, parts) in sample_doodads() {
        let model = parse(&write_model(&parts)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(model.version, 264);
        assert_eq!(model.name, parts.name);
        assert_eq!(model.vertices, parts.vertices, "{name}");
        assert_eq!(model.textures, parts.textures, "{name}");
        assert_eq!(model.materials, parts.materials, "{name}");
        assert_eq!(model.texture_lookup, parts.texture_lookup);
        assert_eq!(model.texture_unit_lookup, parts.texture_unit_lookup);
        assert_eq!(model.transparency_lookup, parts.transparency_lookup);
        assert_eq!(model.replaceable_lookup, parts.replaceable_lookup);
        assert_eq!(model.skin_file_count, 1);
        let skin = parse_skin(&write_skin(&parts)).unwrap_or_else(|e| panic!("{name} skin: {e}"));
        assert_eq!(skin.vertex_lookup, parts.vertex_lookup);
        assert_eq!(skin.triangle_indices, parts.triangle_indices);
        assert_eq!(skin.submeshes, parts.submeshes);
        assert_eq!(skin.texture_units, parts.texture_units);
        // Every texture unit's triangles reach real vertices through both index arrays.
        for unit in &skin.texture_units {
            let submesh = &skin.submeshes[usize::from(unit.submesh)];
            let range = submesh.first_index()..submesh.first_index() + usize::from(submesh.index_count);
            for &k in &skin.triangle_indices[range] {
                let lookup = usize::from(k);
                assert!(lookup < skin.vertex_lookup.len(), "{name}: triangle index {lookup}");
                assert!(
                    usize::from(skin.vertex_lookup[lookup]) < model.vertices.len(),
                    "{name}: vertex lookup {lookup}"
                );
            }
        }
        let meshes = build(&model, &skin, Geosets::All, false);
        assert_eq!(meshes.units.len(), skin.texture_units.len(), "{name}: one mesh per texture unit");
        assert_eq!(meshes.triangles, parts.triangle_indices.len() / 3);
        assert_eq!(meshes.dropped_triangles, 0);
    }
}

#[test]
fn several_submeshes_two_textures_and_distinct_blend_modes_with_a_two_sided_flag() {
    let (_, barrel) = &sample_doodads()[0];
    assert!(barrel.submeshes.len() >= 3);
    assert!(barrel.textures.iter().filter(|t| t.kind == 0).count() >= 2);
    let modes: std::collections::BTreeSet<u16> = barrel.materials.iter().map(|m| m.blend_mode).collect();
    assert_eq!(modes.len(), barrel.materials.len(), "each material its own blend mode");
    assert!(barrel.materials.iter().any(|m| m.flags & 0x04 != 0), "a two-sided material");
}

#[test]
fn later_and_broken_files_are_refused_naming_the_array_and_offset() {
    let (_, parts) = &sample_doodads()[0];
    let good = write_model(parts);
    let mut later = good.clone();
    later[4..8].copy_from_slice(&275u32.to_le_bytes());
    assert!(parse(&later).unwrap_err().to_string().contains("version 275 is not supported"));
    let mut old = good.clone();
    old[4..8].copy_from_slice(&255u32.to_le_bytes());
    assert!(parse(&old).unwrap_err().to_string().contains("version 255 is not supported"));
    // Vertex count inflated past the file: refused before anything is allocated.
    let mut inflated = good.clone();
    inflated[0x3C..0x40].copy_from_slice(&0x0FFF_FFFFu32.to_le_bytes());
    let error = parse(&inflated).unwrap_err().to_string();
    assert!(error.starts_with("vertices at byte 60 (0x3C)") && error.contains("past the end of the file"), "{error}");
    for cut in [0, 3, 7, 0x100] {
        assert!(parse(&good[..cut]).is_err(), "cut at {cut}");
    }
    // Cut inside the vertices, the geometry: refused, naming them.
    let vertices_at = u32::from_le_bytes(good[0x40..0x44].try_into().unwrap()) as usize;
    let error = parse(&good[..vertices_at + 10]).unwrap_err().to_string();
    assert!(error.starts_with("vertices"), "{error}");
    let skin = write_skin(parts);
    let mut odd = skin.clone();
    odd[0x0C..0x10].copy_from_slice(&7u32.to_le_bytes());
    assert!(parse_skin(&odd).unwrap_err().to_string().contains("not a multiple of 3"));
    assert!(parse_skin(&skin[..20]).is_err());
}

/// Arrays the model draws without (lookups, materials, textures, names) that run past the file are read
/// as empty with one warning naming the array and the header pair, and the model still opens.
#[test]
fn optional_arrays_that_run_past_the_file_read_as_empty_with_a_warning() {
    let (_, parts) = &sample_doodads()[0];
    let good = write_model(parts);
    // The last array the writer lays out is the transparency lookup: one byte short.
    let cut = parse(&good[..good.len() - 1]).unwrap();
    assert!(cut.transparency_lookup.is_empty() && !parts.transparency_lookup.is_empty());
    assert_eq!(cut.vertices, parts.vertices);
    assert_eq!(cut.warnings.len(), 1, "{:?}", cut.warnings);
    let warning = cut.warnings[0].to_string();
    assert!(
        warning.starts_with("transparency lookup at byte 144 (0x90)") && warning.contains("read as empty"),
        "{warning}"
    );
    // Textures pointing past the end: none are read, the rest is whole.
    let mut textures = good.clone();
    let len = textures.len() as u32;
    textures[0x54..0x58].copy_from_slice(&len.to_le_bytes());
    let model = parse(&textures).unwrap();
    assert!(model.textures.is_empty());
    assert_eq!(model.materials, parts.materials);
    assert!(model.warnings.iter().any(|w| w.path == "textures" && w.offset == 0x50), "{:?}", model.warnings);
    // A texture's name pointing past the end: that texture keeps its kind and flags, with no name.
    let named = parts.textures.iter().position(|t| !t.file_name.is_empty()).unwrap();
    let entry = u32::from_le_bytes(good[0x54..0x58].try_into().unwrap()) as usize + 16 * named;
    let mut name = good.clone();
    name[entry + 12..entry + 16].copy_from_slice(&len.to_le_bytes());
    let model = parse(&name).unwrap();
    assert_eq!(model.textures.len(), parts.textures.len());
    assert_eq!(
        (model.textures[named].kind, model.textures[named].file_name.as_str()),
        (parts.textures[named].kind, "")
    );
    assert!(model.textures.iter().zip(&parts.textures).enumerate().all(|(i, (a, b))| i == named || a == b));
    assert!(model.warnings.iter().any(|w| w.path == "texture names" && w.offset == entry + 8), "{:?}", model.warnings);
}

/// A model vertex at local (1, 0, 0), placed by a doodad turned 90° about WMO Z and scaled 2 at
/// (10, 20, 30): in WMO space it lands at (10, 22, 30), which is (10, 30, −22) in Bevy's frame.
#[test]
fn a_doodad_vertex_goes_through_scale_rotation_translation_and_the_axis_change() {
    let half = std::f32::consts::FRAC_PI_4;
    let doodad = Doodad {
        name_offset: 0,
        flags: 0,
        position: [10.0, 20.0, 30.0],
        rotation: [0.0, 0.0, half.sin(), half.cos()],
        scale: 2.0,
        color: Bgra([0, 0, 0, 255]),
    };
    let placement = doodad_placement(&doodad);
    let transform = Transform {
        translation: Vec3::from_array(placement.translation),
        rotation: Quat::from_array(placement.rotation),
        scale: Vec3::splat(placement.scale),
    };
    let local = Vec3::from_array(wmo_to_bevy([1.0, 0.0, 0.0]));
    let placed = transform.transform_point(local);
    let expected = Vec3::new(10.0, 30.0, -22.0);
    assert!((placed - expected).length() < 1e-5, "{placed} vs {expected}");
    assert_eq!(Vec3::from_array(wmo_to_bevy([10.0, 22.0, 30.0])), expected);
}

#[test]
fn info_json_on_an_m2() {
    let path = asset("World/Generic/Barrel.m2");
    let out = Command::new(bin()).arg(&path).args(["--info", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["format"], "M2");
    assert_eq!(json["version"], 264);
    assert_eq!(json["vertices"], 52);
    assert_eq!(json["triangles"], 26);
    assert_eq!(json["submeshes"], 3);
    assert_eq!(json["texture_units"], 3);
    assert_eq!(json["textures"][0], "World\\wmo\\Sample\\Stone.blp");
    assert_eq!(json["textures"][2], "replaceable type 11");
    assert_eq!(json["materials"][1]["render_flags"], 4);
    assert_eq!(json["materials"][1]["blend_mode"], 2);
    assert_eq!(json["materials"][2]["blend_mode_name"], "Add");
    let arrays = json["header_arrays"].as_array().unwrap();
    assert!(arrays.iter().any(|a| a["name"] == "vertices" && a["count"] == 52 && a["entry_size"] == 48));
    assert!(arrays.iter().any(|a| a["name"] == "texture units" && a["count"] == 3));
}

/// The barrel's model and skin written into a fresh folder `World/Generic` under `name`, with the
/// sample's textures beside `World/wmo/Sample` (a data root found by walking up); returns the folder.
pub fn barrel_folder(
    name: &str,
    parts: &lwo_wmo_viewer::fixtures::m2::ModelParts,
    skins: &[&str],
    blps: &[(&str, &str)],
) -> std::path::PathBuf {
    let root = crate::support::scratch(name);
    let generic = root.join("World/Generic");
    std::fs::create_dir_all(&generic).unwrap();
    std::fs::create_dir_all(root.join("World/wmo/Sample")).unwrap();
    for texture in ["Stone.blp", "Glass.blp", "Water.blp"] {
        std::fs::copy(asset(&format!("World/wmo/Sample/{texture}")), root.join("World/wmo/Sample").join(texture))
            .unwrap();
    }
    std::fs::write(generic.join("Barrel.m2"), write_model(parts)).unwrap();
    for skin in skins {
        std::fs::write(generic.join(skin), write_skin(parts)).unwrap();
    }
    for (name, sample) in blps {
        std::fs::copy(asset(&format!("World/wmo/Sample/{sample}")), generic.join(name)).unwrap();
    }
    generic
}

pub fn barrel_parts() -> lwo_wmo_viewer::fixtures::m2::ModelParts {
    sample_doodads().into_iter().find(|(n, _)| n.ends_with("Barrel.m2")).unwrap().1
}

fn load_scene(path: &std::path::Path) -> Result<lwo_wmo_viewer::scene::Scene, lwo_wmo_viewer::scene::FileError> {
    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(path);
    lwo_wmo_viewer::scene::load(&source, &relative, None, &Default::default())
}

/// Real data ships models with only some of their skins: without `Barrel00.skin` the model opens from
/// the lowest-numbered skin present, with a warning; with no skin at all it is refused, saying so.
#[test]
fn a_model_without_its_00_skin_opens_from_the_lowest_skin_present() {
    let parts = barrel_parts();
    let folder = barrel_folder("m2-skin-fallback", &parts, &["barrel03.skin", "Barrel02.skin"], &[]);
    let scene = load_scene(&folder.join("Barrel.m2")).unwrap();
    let lines = lwo_wmo_viewer::scene::diagnostics::grouped_lines(&scene.warnings);
    assert!(lines.iter().any(|l| l == "Barrel.m2: Barrel00.skin is missing; drawn from Barrel02.skin, the lowest-numbered skin beside the model"), "{lines:?}");
    assert_eq!(scene.stats.triangles, 26, "the whole model, from the other skin");
    assert!(scene.files.iter().any(|f| f.path.ends_with("Barrel02.skin")));
    let info = Command::new(bin()).arg(folder.join("Barrel.m2")).args(["--info", "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(json["triangles"], 26);
    assert!(json["warnings"].to_string().contains("drawn from Barrel02.skin"), "{json}");

    let bare = barrel_folder("m2-no-skin", &parts, &[], &[]);
    let error = load_scene(&bare.join("Barrel.m2")).unwrap_err().to_string();
    assert!(error.contains("Barrel00.skin is missing beside the model, and no other skin is there"), "{error}");
}

/// A second texture unit over the crate's submesh (an environment pass, as real models have) adds a
/// draw pass, not triangles: `--info` and the scene count the skin's geometry once.
#[test]
fn triangles_count_the_skin_once_and_draw_passes_count_the_units() {
    let mut parts = barrel_parts();
    let mut second_pass = parts.texture_units[0];
    second_pass.material = 2;
    parts.texture_units.push(second_pass);
    let folder = barrel_folder("m2-two-passes", &parts, &["Barrel00.skin"], &[]);
    let info = Command::new(bin()).arg(folder.join("Barrel.m2")).args(["--info", "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        (json["triangles"].as_u64(), json["draw_passes"].as_u64(), json["texture_units"].as_u64()),
        (Some(26), Some(4), Some(4)),
        "{json}"
    );
    let scene = load_scene(&folder.join("Barrel.m2")).unwrap();
    assert_eq!((scene.stats.triangles, scene.stats.draw_calls), (26, 4));
}

/// The cap's creature skin (replaceable type 11) is drawn with the first BLP beside the model, by
/// name, and the others are offered; with none beside it, the placeholder and a warning that says why.
#[test]
fn replaceable_textures_take_the_blps_beside_the_model() {
    let parts = barrel_parts();
    let folder = barrel_folder(
        "m2-replaceable",
        &parts,
        &["Barrel00.skin"],
        &[("BarrelSkinB.blp", "Water.blp"), ("barrelskinA.blp", "Glass.blp")],
    );
    let scene = load_scene(&folder.join("Barrel.m2")).unwrap();
    assert_eq!(scene.replaceable_textures.len(), 1, "{:?}", scene.replaceable_textures);
    let offered = &scene.replaceable_textures[0];
    assert_eq!((offered.texture, offered.kind), (2, 11));
    let names: Vec<&str> = offered.choices.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["barrelskinA.blp", "BarrelSkinB.blp"]);
    let shown = scene.materials[offered.materials[0]].base_color_texture.expect("the cap has a texture");
    assert_eq!(shown, offered.choices[0].texture, "the first BLP is the default");
    let texture = &scene.textures[shown.texture];
    assert!(texture.found && texture.source.as_deref().is_some_and(|s| s.ends_with("barrelskinA.blp")), "{texture:?}");
    let glass = lwo_wmo_viewer::scene::texture::decode(
        &std::fs::read(asset("World/wmo/Sample/Glass.blp")).unwrap(),
        "Glass.blp",
        lwo_wmo_viewer::scene::texture::ImageFormat::Blp,
    )
    .unwrap();
    assert_eq!(texture.image.levels[0], glass.levels[0], "drawn with the file's pixels");
    assert!(!scene.warnings.iter().any(|w| w.message.contains("replaceable")), "{:?}", scene.warnings);

    let without = barrel_folder("m2-replaceable-none", &parts, &["Barrel00.skin"], &[]);
    let scene = load_scene(&without.join("Barrel.m2")).unwrap();
    assert!(scene.replaceable_textures.is_empty());
    let lines = lwo_wmo_viewer::scene::diagnostics::grouped_lines(&scene.warnings);
    assert!(
        lines.iter().any(|l| l
            .contains("replaceable (type 11): the game picks it from its database, and no BLP lies beside the model")),
        "{lines:?}"
    );
}

/// BLP2 as clients also ship it: uncompressed BGRA (compression 3), and alpha types no spec lists;
/// written here byte by byte, not by the decoder's own encoder.
#[test]
fn blp2_uncompressed_bgra_and_unknown_alpha_types_decode() {
    let blp = |alpha_type: u8| {
        let mut bytes = b"BLP2".to_vec();
        bytes.extend(1u32.to_le_bytes()); // content: direct
        bytes.extend([3, 8, alpha_type, 0]); // compression 3, 8-bit alpha, alpha type, no mips
        bytes.extend(2u32.to_le_bytes());
        bytes.extend(1u32.to_le_bytes()); // 2×1 pixels
        let mut offsets = [0u32; 16];
        let mut sizes = [0u32; 16];
        offsets[0] = 148 + 1024; // after the (unused) palette
        sizes[0] = 8;
        bytes.extend(offsets.iter().flat_map(|o| o.to_le_bytes()));
        bytes.extend(sizes.iter().flat_map(|s| s.to_le_bytes()));
        bytes.resize(148 + 1024, 0);
        bytes.extend([0x10, 0x20, 0x30, 0xFF]); // B G R A: an opaque dark red-brown
        bytes.extend([0xF0, 0x80, 0x00, 0x40]); // a quarter-opaque azure
        bytes
    };
    for alpha_type in [8u8, 0, 2, 200] {
        let decoded = lwo_wmo_viewer::formats::blp::decode(&blp(alpha_type))
            .unwrap_or_else(|e| panic!("alpha type {alpha_type}: {e}"));
        assert_eq!((decoded.width, decoded.height), (2, 1));
        assert_eq!(
            decoded.levels[0],
            [0x30, 0x20, 0x10, 0xFF, 0x00, 0x80, 0xF0, 0x40],
            "RGBA from BGRA, alpha type {alpha_type}"
        );
        let unknown = ![0, 1, 7, 8].contains(&alpha_type);
        assert_eq!(decoded.warnings.len(), usize::from(unknown), "{:?}", decoded.warnings);
        if unknown {
            assert_eq!((decoded.warnings[0].path.as_str(), decoded.warnings[0].offset), ("header", 10));
            assert!(decoded.warnings[0].message.contains(&format!("alpha type {alpha_type}")));
        }
    }
    // DXT picks its format as the client does, from the alpha bits first: DXT1 data with 0 or 1 alpha
    // bits stays DXT1 whatever the type says, and 8-bit alpha is DXT5 only for type 7, DXT3 otherwise.
    let rgba: Vec<u8> = (0..64u32)
        .flat_map(|i| [(i % 8 * 32) as u8, (i / 8 * 32) as u8, 90, if i % 8 < 4 { 255 } else { 0 }])
        .collect();
    for (format, alpha_bits, alpha_type, types) in
        [(texpresso::Format::Bc1, 1u8, 0u8, [1u8, 8, 200]), (texpresso::Format::Bc2, 8, 1, [0, 8, 200])]
    {
        let mut data = vec![0; format.compressed_size(8, 8)];
        format.compress(&rgba, 8, 8, texpresso::Params::default(), &mut data);
        let mut bytes = b"BLP2".to_vec();
        bytes.extend(1u32.to_le_bytes());
        bytes.extend([2, alpha_bits, alpha_type, 0]);
        bytes.extend(8u32.to_le_bytes());
        bytes.extend(8u32.to_le_bytes());
        let mut table = [0u32; 32];
        (table[0], table[16]) = (1172, data.len() as u32);
        bytes.extend(table.iter().flat_map(|v| v.to_le_bytes()));
        bytes.resize(1172, 0);
        bytes.extend(&data);
        let reference = lwo_wmo_viewer::formats::blp::decode(&bytes).unwrap();
        for alpha_type in types {
            let mut changed = bytes.clone();
            changed[10] = alpha_type;
            let decoded = lwo_wmo_viewer::formats::blp::decode(&changed)
                .unwrap_or_else(|e| panic!("alpha type {alpha_type}: {e}"));
            assert_eq!(decoded.levels, reference.levels, "alpha bits {}, alpha type {alpha_type}", bytes[9]);
        }
    }
}

/// An MD20 model in the MD21 container reads as the MD20 alone does, its offsets counted from the MD21
/// chunk's data: the chunks (an unknown one kept) and their FileDataIDs, errors inside it placed in the
/// file, a damaged chunk after it a warning. Versions up to 274 read with the 264 layout.
#[test]
fn md21_containers_and_later_versions_read_as_md20() {
    use lwo_wmo_viewer::fixtures::m2::wrap_md21;
    use lwo_wmo_viewer::formats::{Model, parse_document};
    let (_, parts) = &sample_doodads()[0];
    let good = write_model(parts);
    let alone = parse(&good).unwrap();
    let wrapped = wrap_md21(&good, &[508094], &[466255, 394818], &[(b"WXYZ", vec![1, 2, 3])]);
    let document = parse_document(&wrapped).unwrap();
    let Model::M2(model) = &document.model else { panic!("not an M2") };
    let ids: Vec<String> = document.tree.root_chunks().map(|c| c.node().id.to_string()).collect();
    assert_eq!(ids, ["MD21", "SFID", "TXID", "WXYZ"]);
    assert_eq!(
        (model.data_offset, model.vertices.len(), model.textures.len()),
        (8, alone.vertices.len(), alone.textures.len())
    );
    assert_eq!((model.file_ids.skins.clone(), model.file_ids.textures.clone()), (vec![508094], vec![466255, 394818]));
    assert_eq!(model.arrays, alone.arrays, "offsets count from the MD20 data");
    let tree = &document.tree;
    let txid = tree.root_chunks().nth(2).unwrap();
    let fields = document.chunk_fields(txid.chunk, &wrapped);
    assert!(fields.iter().any(|(k, v)| k == "texture FileDataIDs" && v == "466255, 394818"), "{fields:?}");
    // The chunks nothing draws show what they hold.
    let ldv1 = [0u8, 0, 3, 0, 0, 0, 0x80, 0x3F, 1, 2, 3, 4, 0, 0, 0, 0].to_vec();
    let pabc: Vec<u8> = [4u16, 5, 13].iter().flat_map(|v| v.to_le_bytes()).collect();
    let extra = [(b"LDV1", ldv1), (b"PABC", pabc), (b"WFV1", 2.5f32.to_le_bytes().to_vec())];
    let with_extra = wrap_md21(&good, &[1], &[2], &extra);
    let document = parse_document(&with_extra).unwrap();
    let fields: Vec<(String, String)> =
        document.tree.root_chunks().skip(3).flat_map(|c| document.chunk_fields(c.chunk, &with_extra)).collect();
    let expected = [
        ("level-of-detail count", "3"),
        ("particle bone LOD", "[1, 2, 3, 4]"),
        ("parent sequence ids", "4, 5, 13"),
        ("bump scale", "2.5"),
    ];
    for (name, value) in expected {
        assert!(fields.iter().any(|(k, v)| k == name && v == value), "{name} = {value} in {fields:?}");
    }
    // Version 272 (Cataclysm) inside: the same layout.
    let mut cataclysm = good.clone();
    cataclysm[4..8].copy_from_slice(&272u32.to_le_bytes());
    let model = parse(&wrap_md21(&cataclysm, &[], &[], &[])).unwrap();
    assert_eq!((model.version, model.vertices.len()), (272, alone.vertices.len()));
    // The vertex count inflated inside MD21: refused, naming the array at its place in the file.
    let mut inflated = good.clone();
    inflated[0x3C..0x40].copy_from_slice(&0x0FFF_FFFFu32.to_le_bytes());
    let error = parse(&wrap_md21(&inflated, &[], &[], &[])).unwrap_err().to_string();
    assert!(error.starts_with("MD21/vertices at byte 68 (0x44)"), "{error}");
    // A chunk after MD21 whose length runs past the file: the model is read, with one warning.
    let mut cut = wrap_md21(&good, &[1], &[2], &[]);
    let at = cut.len() - 8;
    cut[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
    let model = parse(&cut).unwrap();
    assert_eq!(model.vertices.len(), alone.vertices.len());
    assert_eq!(model.warnings.len(), 1, "{:?}", model.warnings);
    assert_eq!(model.warnings[0].path, "TXID", "{:?}", model.warnings);
    // MD21 itself cut short: refused, naming the array inside it that cannot be read.
    let error = parse(&wrap_md21(&good, &[], &[], &[])[..good.len() / 2]).unwrap_err().to_string();
    assert!(error.starts_with("MD21/") && error.contains("past the end"), "{error}");
}
