//! BLP textures opened on their own: `--info` reports the header, `--output` writes the top level as it
//! decodes, the scene shows it on a quad, and a damaged file is one line naming the byte.

use std::path::{Path, PathBuf};

use lwo_wmo_viewer::fixtures::blp::{BlpEncoding, write_blp1, write_blp2};

use crate::support::{bin, scratch};

/// A 24 × 12 image (neither square nor a power of two): distinct colours, opaque on the left half
/// and clear on the right.
fn source_pixels() -> Vec<u8> {
    (0..24 * 12u32)
        .flat_map(|i| {
            let (x, y) = (i % 24, i / 24);
            [(x * 10) as u8, (y * 20) as u8, 128, if x < 12 { 255 } else { 0 }]
        })
        .collect()
}

/// Every encoding a client writes, with the name and alpha depth `--info` gives it.
fn encodings() -> Vec<(&'static str, Vec<u8>, &'static str, &'static str, u64)> {
    let pixels = source_pixels();
    let blp2 = |encoding| write_blp2(24, 12, &pixels, encoding, true);
    vec![
        ("palette0", blp2(BlpEncoding::Palette(0)), "BLP2", "palettized", 0),
        ("palette1", blp2(BlpEncoding::Palette(1)), "BLP2", "palettized", 1),
        ("palette4", blp2(BlpEncoding::Palette(4)), "BLP2", "palettized", 4),
        ("palette8", blp2(BlpEncoding::Palette(8)), "BLP2", "palettized", 8),
        ("dxt1", blp2(BlpEncoding::Dxt(1)), "BLP2", "DXT1", 1),
        ("dxt3", blp2(BlpEncoding::Dxt(3)), "BLP2", "DXT3", 8),
        ("dxt5", blp2(BlpEncoding::Dxt(5)), "BLP2", "DXT5", 8),
        ("bgra", blp2(BlpEncoding::Bgra), "BLP2", "uncompressed BGRA", 8),
        ("blp1-palette", write_blp1(24, 12, &pixels, false, 8, true), "BLP1", "palettized", 8),
        ("blp1-jpeg", write_blp1(24, 12, &pixels, true, 0, true), "BLP1", "JPEG", 0),
    ]
}

fn write_all(dir: &Path) -> Vec<(PathBuf, &'static str, &'static str, u64)> {
    encodings()
        .into_iter()
        .map(|(name, bytes, format, encoding, alpha)| {
            let path = dir.join(format!("{name}.blp"));
            std::fs::write(&path, bytes).unwrap();
            (path, format, encoding, alpha)
        })
        .collect()
}

#[test]
fn info_json_reports_format_size_encoding_alpha_and_levels() {
    let dir = scratch("blp-info");
    for (path, format, encoding, alpha_bits) in write_all(&dir) {
        let out = std::process::Command::new(bin()).arg(&path).args(["--info", "--json"]).output().unwrap();
        assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
        let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let name = path.display();
        assert_eq!(info["format"], format, "{name}");
        assert_eq!((info["width"].as_u64(), info["height"].as_u64()), (Some(24), Some(12)), "{name}");
        assert_eq!(info["encoding"], encoding, "{name}");
        assert_eq!(info["alpha_bits"].as_u64(), Some(alpha_bits), "{name}");
        // 24×12, 12×6, 6×3, 3×1, 1×1.
        assert_eq!(info["mip_levels"].as_u64(), Some(5), "{name}");
    }
    // The text form lists no chunks (a BLP has none) and gives the same values.
    let path = dir.join("dxt5.blp");
    let out = std::process::Command::new(bin()).arg(&path).arg("--info").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("format: BLP2") && text.contains("encoding: \"DXT5\"") && !text.contains("chunks"), "{text}");
}

#[test]
fn output_writes_the_top_level_at_the_textures_own_size_with_its_alpha() {
    let dir = scratch("blp-output");
    for (path, _, encoding, _) in write_all(&dir).into_iter().filter(|(_, _, e, _)| *e != "JPEG") {
        let png = path.with_extension("png");
        // --resolution is for renders: a texture is written at its own size.
        let out = std::process::Command::new(bin())
            .arg(&path)
            .arg("--output")
            .arg(&png)
            .args(["--resolution", "64x64"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
        let written = image::open(&png).unwrap().to_rgba8();
        let decoded = lwo_wmo_viewer::formats::blp::decode(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(written.dimensions(), (24, 12), "{encoding}");
        assert_eq!(written.as_raw(), &decoded.levels[0], "{encoding}: the PNG holds the decoded pixels");
    }
}

#[test]
fn the_scene_of_a_texture_is_one_quad_of_its_aspect_drawing_it() {
    let dir = scratch("blp-scene");
    let path = dir.join("dxt5.blp");
    std::fs::write(&path, write_blp2(24, 12, &source_pixels(), BlpEncoding::Dxt(5), true)).unwrap();
    let (folder, name) = lwo_wmo_viewer::source::LooseFolder::containing(&path);
    let scene = lwo_wmo_viewer::scene::load(&folder, &name, None, &Default::default()).unwrap();
    assert_eq!((scene.meshes.len(), scene.materials.len(), scene.textures.len()), (1, 1, 1));
    assert_eq!((scene.stats.vertices, scene.stats.triangles, scene.stats.draw_calls), (4, 2, 1));
    let size: Vec<f32> = (0..3).map(|k| scene.bounds.max[k] - scene.bounds.min[k]).collect();
    assert!((size[0] / size[1] - 2.0).abs() < 1e-6 && size[2] == 0.0, "a 2:1 quad: {size:?}");
    let texture = &scene.textures[0];
    assert_eq!((texture.image.width, texture.image.height, texture.image.levels.len()), (24, 12, 5));
    let material = &scene.materials[0];
    assert_eq!(material.base_color_texture.map(|t| t.texture), Some(0));
    assert!(material.unlit && material.alpha_mode == lwo_wmo_viewer::scene::AlphaMode::Blend);
}

#[test]
fn a_damaged_texture_is_one_line_naming_the_file_and_the_byte() {
    let dir = scratch("blp-damaged");
    let good = write_blp2(24, 12, &source_pixels(), BlpEncoding::Dxt(5), true);
    let mut past_end = good.clone();
    past_end[20..24].copy_from_slice(&(good.len() as u32).to_le_bytes());
    let mut huge = good.clone();
    huge[12..16].copy_from_slice(&60000u32.to_le_bytes());
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("cut.blp", good[..100].to_vec(), "at byte 100"),
        ("past-end.blp", past_end, "at byte 20"),
        ("huge.blp", huge, "at byte 12"),
    ];
    for (name, bytes, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        for args in [&["--info"][..], &["--output", dir.join("x.png").to_str().unwrap()][..]] {
            let out = std::process::Command::new(bin()).arg(&path).args(args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{name} {args:?}");
            let lines: Vec<&str> = stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{name} {args:?}: {stderr}");
            assert!(lines[0].contains(name) && lines[0].contains(says), "{name} {args:?}: {stderr}");
        }
    }
}
