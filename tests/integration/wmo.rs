//! WMO fixtures: the writer and the reader agree, a second reader (wow-wmo) counts the same, doodad
//! transforms land where they should, and the vertex-colour fix follows the spec.

use std::io::Cursor;

use bevy::prelude::{Quat, Transform, Vec3};
use lwo_wmo_viewer::fixtures::wmo::{sample_scene, write_group, write_root};
use lwo_wmo_viewer::formats::wmo::{self, Batch, Bgra, Doodad, GroupHeader, RootHeader, WmoGroup};
use lwo_wmo_viewer::mesh::coords::wmo_to_bevy;
use lwo_wmo_viewer::mesh::wmo::{doodad_placement, fixed_vertex_colors};

#[test]
fn fixtures_read_back_to_exactly_what_was_written() {
    let scene = sample_scene();
    let (_, root) = wmo::parse_root(&write_root(&scene.root)).unwrap();
    assert_eq!(root, scene.root);
    for group in &scene.groups {
        let (_, read) = wmo::parse_group(&write_group(group)).unwrap();
        assert_eq!(&read, group);
    }
}

#[test]
fn wow_wmo_reads_the_same_values() {
    let scene = sample_scene();
    let root_bytes = write_root(&scene.root);
    let theirs = match wow_wmo::api::parse_wmo(&mut Cursor::new(&root_bytes)).unwrap() {
        wow_wmo::api::ParsedWmo::Root(r) => r,
        wow_wmo::api::ParsedWmo::Group(_) => panic!("wow-wmo took the root for a group"),
    };
    let ours = &scene.root;
    assert_eq!(theirs.version, ours.version);
    assert_eq!(theirs.n_groups as usize, ours.group_infos.len());
    assert_eq!(theirs.materials.len(), ours.materials.len());
    assert_eq!(theirs.group_info.len(), ours.group_infos.len());
    assert_eq!(theirs.portals.len(), ours.portals.len());
    assert_eq!(theirs.portal_vertices.len(), ours.portal_vertices.len());
    assert_eq!(theirs.portal_refs.len(), ours.portal_refs.len());
    assert_eq!(theirs.lights.len(), ours.lights.len());
    assert_eq!(theirs.doodad_sets.len(), ours.doodad_sets.len());
    assert_eq!(theirs.doodad_defs.len(), ours.doodads.len());
    assert_eq!(theirs.fogs.len(), ours.fogs.len());
    assert_eq!(theirs.textures.len(), ours.textures.entries().len());
    // Values, not only counts: every material field, portal vertex and plane, doodad placement.
    for (i, (t, o)) in theirs.materials.iter().zip(&ours.materials).enumerate() {
        let theirs_fields =
            (t.flags, t.shader, t.blend_mode, t.texture_1, t.texture_2, t.texture_3, t.ground_type, t.flags_2);
        let ours_fields =
            (o.flags, o.shader, o.blend_mode, o.texture1, o.texture2, o.texture3, o.ground_type, o.flags2);
        assert_eq!(theirs_fields, ours_fields, "MOMT entry {i}");
        assert_eq!((t.diff_color, t.emissive_color), (o.diffuse.0, o.emissive.0), "MOMT entry {i} colours");
    }
    for (t, o) in theirs.portal_vertices.iter().zip(&ours.portal_vertices) {
        assert_eq!([t.x, t.y, t.z], *o);
    }
    for (t, o) in theirs.portals.iter().zip(&ours.portals) {
        assert_eq!((t.start_vertex, t.n_vertices), (o.first_vertex, o.vertex_count));
        assert_eq!([t.normal.x, t.normal.y, t.normal.z, t.distance], o.plane);
    }
    for (t, o) in theirs.doodad_defs.iter().zip(&ours.doodads) {
        assert_eq!(t.name_index_and_flags & 0xFF_FFFF, o.name_offset);
        assert_eq!((t.position, t.orientation, t.scale), (o.position, o.rotation, o.scale));
    }
    for group in &scene.groups {
        let bytes = write_group(group);
        let theirs = match wow_wmo::api::parse_wmo(&mut Cursor::new(&bytes)).unwrap() {
            wow_wmo::api::ParsedWmo::Group(g) => g,
            wow_wmo::api::ParsedWmo::Root(_) => panic!("wow-wmo took a group for a root"),
        };
        assert_eq!(theirs.flags, group.header.flags);
        assert_eq!(theirs.vertex_positions.len(), group.positions.len());
        assert_eq!(theirs.vertex_indices.len(), group.indices.len());
        assert_eq!(theirs.material_info.len(), group.triangle_materials.len());
        assert_eq!(theirs.vertex_normals.len(), group.normals.len());
        assert_eq!(theirs.render_batches.len(), group.batches.len());
        assert_eq!(theirs.vertex_colors.len(), group.color_sets.first().map_or(0, Vec::len));
        assert_eq!(theirs.bsp_nodes.len(), group.bsp_nodes.len());
        assert_eq!(theirs.bsp_face_indices.len(), group.bsp_faces.len());
        assert_eq!(theirs.liquid_header.is_some(), group.liquid.is_some());
        // Values: positions, normals, indices, MOPY entries and every batch field.
        assert_eq!(theirs.vertex_indices, group.indices);
        assert!(theirs.vertex_positions.iter().map(|v| [v.x, v.y, v.z]).eq(group.positions.iter().copied()));
        assert!(theirs.vertex_normals.iter().map(|v| [v.x, v.y, v.z]).eq(group.normals.iter().copied()));
        assert!(
            theirs.material_info.iter().map(|m| (m.flags, m.material_id)).eq(group
                .triangle_flags
                .iter()
                .copied()
                .zip(group.triangle_materials.iter().copied()))
        );
        // wow-wmo appends every MOTV chunk to one list: our sets, one after the other.
        assert!(theirs.texture_coords.iter().map(|t| [t.u, t.v]).eq(group.uv_sets.iter().flatten().copied()));
        for (t, o) in theirs.render_batches.iter().zip(&group.batches) {
            let theirs_fields = (t.start_index, t.count, t.min_index, t.max_index, t.flags, t.material_id);
            assert_eq!(
                theirs_fields,
                (o.first_index, o.index_count, o.first_vertex, o.last_vertex, o.flags, o.material)
            );
            assert_eq!([t.bounding_box_min, t.bounding_box_max].concat(), o.bounding_box.to_vec());
        }
        // Not compared: wow-wmo 0.7 does not read MOLR and MODR inside MOGP (its nested-chunk reader has
        // no case for them), so its light and doodad references are always empty.
        assert!(theirs.light_refs.is_empty() && theirs.doodad_refs.is_empty());
    }
}

#[test]
fn doodad_quarter_turn_about_wmo_z_points_local_x_along_wmo_y() {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let doodad = Doodad {
        name_offset: 0,
        flags: 0,
        position: [10.0, 20.0, 3.0],
        rotation: [0.0, 0.0, h, h],
        scale: 2.0,
        color: Bgra::default(),
    };
    let p = doodad_placement(&doodad);
    let transform = Transform {
        translation: Vec3::from_array(p.translation),
        rotation: Quat::from_array(p.rotation),
        scale: Vec3::splat(p.scale),
    };
    // Model-local +X (the same axis in both frames) at distance 1.
    let landed = transform.transform_point(Vec3::X);
    let expected = Vec3::from_array(wmo_to_bevy([10.0, 20.0 + 2.0, 3.0]));
    assert!(landed.abs_diff_eq(expected, 1e-5), "{landed} vs {expected}");
    assert!(Vec3::from_array(p.translation).abs_diff_eq(Vec3::new(10.0, 3.0, -20.0), 1e-6));
}

fn colour_group(flags: u32) -> WmoGroup {
    let mut group = sample_scene().groups.remove(0);
    group.header = GroupHeader { flags, transparent_batch_count: 1, ..Default::default() };
    group.positions = vec![[0.0; 3]; 4];
    group.batches = vec![
        Batch { first_vertex: 0, last_vertex: 1, ..Default::default() },
        Batch { first_vertex: 2, last_vertex: 3, ..Default::default() },
    ];
    // Stored B, G, R, A: red 100, green 150, blue 200, alpha 128.
    group.color_sets = vec![vec![Bgra([200, 150, 100, 128]); 4]];
    group
}

fn root_header(flags: u16) -> RootHeader {
    RootHeader { ambient: Bgra([40, 30, 20, 255]), flags, ..Default::default() }
}

#[test]
fn vertex_colour_fix_for_transparent_batch_and_other_vertices() {
    let interior = fixed_vertex_colors(&colour_group(GroupHeader::INTERIOR), Some(&root_header(0))).unwrap();
    // Below the end of the last transparent batch: (c − ambient) · (1 − a/255) / 2.
    assert_eq!(interior[0], [19, 29, 39, 128]);
    assert_eq!(interior[1], interior[0]);
    // The others: clamp((c · a/64 + c − ambient) / 2), alpha 0 inside.
    assert_eq!(interior[2], [140, 210, 255, 0]);
    let exterior = fixed_vertex_colors(&colour_group(GroupHeader::EXTERIOR), Some(&root_header(0))).unwrap();
    assert_eq!(exterior[2], [140, 210, 255, 255]);
}

#[test]
fn vertex_colour_fix_respects_mohd_flags() {
    // 0x2: the unified render path does not subtract the ambient colour.
    let unified =
        fixed_vertex_colors(&colour_group(GroupHeader::INTERIOR), Some(&root_header(RootHeader::UNIFIED_RENDER_PATH)))
            .unwrap();
    assert_eq!(unified[0], [24, 37, 49, 128]);
    assert_eq!(unified[2], [150, 225, 255, 0]);
    // 0x8: colours stay, alpha says exterior or interior.
    let untouched = fixed_vertex_colors(
        &colour_group(GroupHeader::EXTERIOR),
        Some(&root_header(RootHeader::DO_NOT_FIX_VERTEX_COLOR_ALPHA)),
    )
    .unwrap();
    assert_eq!(untouched[0], [100, 150, 200, 255]);
    let untouched_inside = fixed_vertex_colors(
        &colour_group(GroupHeader::INTERIOR),
        Some(&root_header(RootHeader::DO_NOT_FIX_VERTEX_COLOR_ALPHA)),
    )
    .unwrap();
    assert_eq!(untouched_inside[3], [100, 150, 200, 0]);
}

fn copy_sample(dir: &std::path::Path, rename: impl Fn(&str) -> Option<String>) {
    for (name, bytes) in sample_scene().files("courtyard") {
        if let Some(new_name) = rename(&name) {
            std::fs::write(dir.join(new_name), bytes).unwrap();
        }
    }
}

fn info(path: &std::path::Path) -> serde_json::Value {
    let out = std::process::Command::new(crate::support::bin()).arg(path).args(["--info", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn groups_are_found_ignoring_case_and_a_missing_one_is_a_warning() {
    let dir = crate::support::scratch("wmo-groups");
    // Group 1 in upper case, group 2 missing.
    copy_sample(&dir, |name| match name {
        "courtyard_001.wmo" => Some("COURTYARD_001.WMO".into()),
        "courtyard_002.wmo" => None,
        other => Some(other.into()),
    });
    let v = info(&dir.join("courtyard.wmo"));
    assert_eq!((v["groups"].as_u64(), v["groups_loaded"].as_u64()), (Some(3), Some(2)));
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("courtyard_002.wmo is missing"), "{warnings}");
}

#[test]
fn a_group_opened_alone_shows_and_says_the_root_is_missing() {
    let dir = crate::support::scratch("wmo-alone");
    copy_sample(&dir, |name| (name == "courtyard_001.wmo").then(|| name.to_owned()));
    let v = info(&dir.join("courtyard_001.wmo"));
    assert_eq!(v["format"], "WMO-group");
    assert!(v["triangles"].as_u64().unwrap() > 0);
    assert!(v["warnings"].to_string().contains("materials, portals and doodads live in the root"));
}

#[test]
fn liquid_mesh_leaves_out_dry_tiles() {
    let yard = &sample_scene().groups[1];
    let liquid = yard.liquid.as_ref().unwrap();
    let dry = liquid.tiles.iter().filter(|&&t| wmo::Liquid::tile_is_empty(t)).count();
    assert_eq!(dry, 1);
    let mesh = lwo_wmo_viewer::mesh::wmo::liquid_mesh(liquid).unwrap();
    assert_eq!(mesh.triangle_count(), (liquid.tiles.len() - dry) * 2);
    assert_eq!(mesh.positions.len(), (liquid.vertex_counts[0] * liquid.vertex_counts[1]) as usize);
}

#[test]
fn blp_textures_decode_in_every_encoding_the_spec_lists() {
    use lwo_wmo_viewer::fixtures::blp::{BlpEncoding, write_blp1, write_blp2};
    use lwo_wmo_viewer::scene::texture::{ImageFormat, decode};
    let decode_blp = |bytes: &[u8]| decode(bytes, "test.blp", ImageFormat::Blp);
    // 256 distinct colours, opaque on the left half and clear on the right.
    let source: Vec<u8> = (0..256u32)
        .flat_map(|i| [(i % 16 * 16) as u8, (i / 16 * 16) as u8, 128, if i % 16 < 8 { 255 } else { 0 }])
        .collect();
    // Worst channel difference from the source at level 0: alpha too where the encoding keeps it, and
    // colour only where the source is opaque (DXT1 stores a clear pixel as clear black).
    let worst = |pixels: &[u8], alpha: bool| {
        pixels
            .chunks_exact(4)
            .zip(source.chunks_exact(4))
            .filter(|(_, s)| !alpha || s[3] == 255)
            .flat_map(|(p, s)| (0..if alpha { 4 } else { 3 }).map(move |k| p[k].abs_diff(s[k])))
            .max()
            .unwrap_or(0)
    };
    let encodings = [
        ("palettized, no alpha", BlpEncoding::Palette(0), 0, false),
        ("palettized, 1-bit alpha", BlpEncoding::Palette(1), 0, true),
        ("palettized, 4-bit alpha", BlpEncoding::Palette(4), 0, true),
        ("palettized, 8-bit alpha", BlpEncoding::Palette(8), 0, true),
        ("DXT1", BlpEncoding::Dxt(1), 40, true),
        ("DXT3", BlpEncoding::Dxt(3), 40, true),
        ("DXT5", BlpEncoding::Dxt(5), 40, true),
        ("uncompressed BGRA", BlpEncoding::Bgra, 0, true),
    ];
    for (name, encoding, tolerance, alpha) in encodings {
        let image = decode_blp(&write_blp2(16, 16, &source, encoding, true)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((image.width, image.height), (16, 16), "{name}");
        // 16, 8, 4, 2 and 1 pixels square, RGBA.
        assert_eq!(image.levels.len(), 5, "{name}");
        assert_eq!(image.levels.iter().map(Vec::len).sum::<usize>(), (256 + 64 + 16 + 4 + 1) * 4, "{name}");
        assert!(worst(&image.levels[0], alpha) <= tolerance, "{name}: {}", worst(&image.levels[0], alpha));
        if !alpha {
            assert!(image.levels[0].iter().skip(3).step_by(4).all(|&a| a == 255), "{name}: opaque");
        }
    }
    // BLP1 (Warcraft III and the oldest WoW builds): palettized with alpha, and JPEG.
    let image = decode_blp(&write_blp1(16, 16, &source, false, 8, true)).unwrap();
    assert_eq!((image.width, image.height, image.levels.len()), (16, 16, 5));
    assert_eq!(worst(&image.levels[0], true), 0);
    let image = decode_blp(&write_blp1(16, 16, &source, true, 0, false)).unwrap();
    assert_eq!((image.width, image.height, image.levels.len()), (16, 16, 1));
    assert!(
        worst(&image.levels[0], false) <= 24,
        "JPEG, red and blue in their places: {}",
        worst(&image.levels[0], false)
    );
    assert!(decode_blp(b"BLP2 but not really").is_err());
}

/// `file` with chunk `id` (as the spec names it; stored reversed) rewritten by `change`, at the top
/// level or inside MOGP (after its 68-byte header); its size and MOGP's follow the change.
fn rewrite_chunk(file: &[u8], id: &[u8; 4], change: impl Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
    fn walk(data: &[u8], id: &[u8; 4], change: &dyn Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut p = 0;
        while p + 8 <= data.len() {
            let stored: [u8; 4] = data[p..p + 4].try_into().unwrap();
            let mut name = stored;
            name.reverse();
            let len = u32::from_le_bytes(data[p + 4..p + 8].try_into().unwrap()) as usize;
            let body = &data[p + 8..p + 8 + len];
            let new = if &name == id {
                change(body)
            } else if &name == b"MOGP" {
                [&body[..68], &walk(&body[68..], id, change)[..]].concat()
            } else {
                body.to_vec()
            };
            out.extend(stored);
            out.extend((new.len() as u32).to_le_bytes());
            out.extend(new);
            p += 8 + len;
        }
        out
    }
    walk(file, id, &change)
}

/// Where chunk `id`'s data starts, at the top level or inside MOGP.
fn data_offset(file: &[u8], id: &[u8; 4]) -> usize {
    let tree = wmo::chunks::read_wmo_tree(file).unwrap();
    let top = tree.root_chunks().find(|n| &n.id.0 == id);
    let nested = || tree.root_chunks().flat_map(|n| n.children()).find(|n| &n.id.0 == id);
    top.or_else(nested).unwrap_or_else(|| panic!("no {}", String::from_utf8_lossy(id))).data_offset()
}

/// Optional chunks as real files have them — a MOHD 4 bytes short, an MFOG with 2 bytes of padding, a
/// MOLT cut inside its only light, a group's MOCV 3 bytes long and its MLIQ cut inside its header — load
/// with one warning each naming the file, the chunk and the offset; the geometry is all there.
#[test]
fn short_and_long_optional_chunks_load_with_one_warning_each_naming_file_chunk_and_offset() {
    use lwo_wmo_viewer::scene::{LoadOptions, load};
    let scene = sample_scene();
    let dir = crate::support::scratch("wmo-lenient");
    let root_path = scene.write_to(&dir, "lenient").unwrap();
    let mut root = std::fs::read(&root_path).unwrap();
    root = rewrite_chunk(&root, b"MOHD", |d| d[..60].to_vec());
    root = rewrite_chunk(&root, b"MFOG", |d| [d, &[0, 0][..]].concat());
    root = rewrite_chunk(&root, b"MOLT", |d| d[..d.len() - 1].to_vec());
    std::fs::write(&root_path, &root).unwrap();
    let g = scene
        .groups
        .iter()
        .position(|g| g.liquid.is_some() && !g.color_sets.is_empty())
        .expect("a group with a liquid and colours");
    let group_path = dir.join(format!("lenient_{g:03}.wmo"));
    let mut group = std::fs::read(&group_path).unwrap();
    group = rewrite_chunk(&group, b"MOCV", |d| [d, &[1, 2, 3][..]].concat());
    group = rewrite_chunk(&group, b"MLIQ", |d| d[..20].to_vec());
    std::fs::write(&group_path, &group).unwrap();

    let (_, parsed) = wmo::parse_root(&root).unwrap();
    assert_eq!((parsed.header.flags, parsed.header.lod_count), (0, 0), "the missing MOHD fields read as 0");
    assert_eq!(parsed.header.group_count as usize, scene.groups.len());
    assert_eq!((parsed.fogs.len(), parsed.lights.len()), (1, 0));
    let (_, parsed_group) = wmo::parse_group(&group).unwrap();
    assert!(parsed_group.liquid.is_none());
    assert_eq!(parsed_group.color_sets[0], scene.groups[g].color_sets[0]);
    assert_eq!(parsed_group.positions, scene.groups[g].positions);

    let (source, relative) = lwo_wmo_viewer::source::LooseFolder::containing(&root_path);
    let loaded = load(&source, &relative, None, &LoadOptions::default()).unwrap();
    // Against the same scene unmodified: every mesh is there with its triangles, but that group's liquid.
    let intact_path = scene.write_to(&dir.join("intact"), "lenient").unwrap();
    let (src, rel) = lwo_wmo_viewer::source::LooseFolder::containing(&intact_path);
    let intact = load(&src, &rel, None, &LoadOptions::default()).unwrap();
    let liquid = format!("Group{g}/Liquid");
    assert!(intact.meshes.iter().any(|m| m.label == liquid), "{liquid} in the intact scene");
    assert!(!loaded.meshes.iter().any(|m| m.label == liquid));
    for mesh in intact.meshes.iter().filter(|m| m.label != liquid) {
        let ours =
            loaded.meshes.iter().find(|m| m.label == mesh.label).unwrap_or_else(|| panic!("{} is missing", mesh.label));
        assert_eq!(ours.data.triangle_count(), mesh.data.triangle_count(), "{}", mesh.label);
    }
    let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
    let expect = [
        ("lenient.wmo", format!("MOHD at byte {}", data_offset(&root, b"MOHD") + 60), "60 bytes where 64 are expected"),
        (
            "lenient.wmo",
            format!("MFOG at byte {}", data_offset(&root, b"MFOG") + 48),
            "50 bytes are not a whole number of 48-byte entries",
        ),
        (
            "lenient.wmo",
            format!("MOLT at byte {}", data_offset(&root, b"MOLT")),
            "47 bytes are not a whole number of 48-byte entries",
        ),
        (
            group_path.file_name().unwrap().to_str().unwrap(),
            format!("MOGP/MOCV at byte {}", data_offset(&group, b"MOCV") + 4 * scene.groups[g].color_sets[0].len()),
            "the last 3 bytes skipped",
        ),
        (group_path.file_name().unwrap().to_str().unwrap(), "MOGP/MLIQ at byte".to_owned(), "the liquid is not shown"),
    ];
    for (file, at, message) in &expect {
        let found: Vec<&String> =
            warnings.iter().filter(|w| w.contains(file) && w.contains(at.as_str()) && w.contains(message)).collect();
        assert_eq!(found.len(), 1, "{file} {at} {message}: {warnings:#?}");
    }
}

/// The panel lists WMO materials by number and by the texture a person knows them by.
#[test]
fn wmo_materials_are_named_by_their_texture() {
    use lwo_wmo_viewer::scene::{self, LoadOptions};
    use lwo_wmo_viewer::source::LooseFolder;
    let assets = crate::support::repo().join("assets");
    let scene = scene::load(&LooseFolder::new(&assets), "courtyard.wmo", None, &LoadOptions::default()).unwrap();
    // The root's MOMT entries come first; the doodads' M2 materials after them.
    let Some(lwo_wmo_viewer::formats::Model::WmoRoot(root)) = scene.files[0].document.as_deref().map(|d| &d.model)
    else {
        panic!("not a WMO root")
    };
    let momt = &scene.material_infos[..root.materials.len()];
    assert!(momt.iter().any(|m| m.texture.is_some()));
    for (i, m) in momt.iter().enumerate() {
        let expected = match &m.texture {
            Some((texture, _)) => format!("Material {i} · {}", texture.rsplit(['/', '\\']).next().unwrap()),
            None => format!("Material {i}"),
        };
        assert_eq!(m.name, expected);
    }
}

/// Two materials of the sample use one MOTX image, one of them clamped (MOMT 0x40 | 0x80): each draws it
/// with its own sampler, where a cache keyed by the image alone gave the first one's to both.
#[test]
fn a_texture_shared_by_a_clamped_and_a_repeating_material_keeps_each_sampler() {
    use lwo_wmo_viewer::scene::{self, LoadOptions};
    use lwo_wmo_viewer::source::LooseFolder;
    let assets = crate::support::repo().join("assets");
    let scene = scene::load(&LooseFolder::new(&assets), "courtyard.wmo", None, &LoadOptions::default()).unwrap();
    let Some(lwo_wmo_viewer::formats::Model::WmoRoot(root)) = scene.files[0].document.as_deref().map(|d| &d.model)
    else {
        panic!("not a WMO root")
    };
    let clamped = root.materials.iter().position(|m| m.flags & 0xC0 == 0xC0).expect("a clamped material");
    let repeating = root
        .materials
        .iter()
        .position(|m| m.flags & 0xC0 == 0 && m.texture1 == root.materials[clamped].texture1)
        .expect("a repeating material on the same image");
    let sampler_of = |m: usize| {
        let texture = scene.materials[m].base_color_texture.expect("textured").texture;
        (scene.textures[texture].sampler.repeat, scene.textures[texture].name.clone())
    };
    let (clamped_repeat, clamped_name) = sampler_of(clamped);
    let (repeating_repeat, repeating_name) = sampler_of(repeating);
    assert_eq!((clamped_repeat, repeating_repeat), ([false, false], [true, true]));
    assert_eq!(clamped_name, repeating_name, "one image");
}
