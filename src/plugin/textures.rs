//! Finding and decoding texture files: LightWave image clips (PNG, JPEG, TGA, BMP) next to the object or
//! under its content root, and WMO BLP textures under a data root; names matched ignoring case.

use std::path::{Path, PathBuf};

use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, Image, ImageSampler, ImageType};

use crate::formats::find_case_insensitive;

/// Follows a relative path one component at a time, each matched ignoring case.
pub fn resolve_case_insensitive(base: &Path, relative: &str) -> Option<PathBuf> {
    let mut current = base.to_path_buf();
    let parts: Vec<&str> = relative.split(['/', '\\']).filter(|p| !p.is_empty() && *p != ".").collect();
    for part in parts {
        current = if part == ".." { current.parent()?.to_path_buf() } else { find_case_insensitive(&current, part)? };
    }
    current.exists().then_some(current)
}

/// LightWave's neutral file name (`disk:path/file` or `path/file`) → candidate files, in the order the
/// spec suggests: content root (the folder above `Objects/`), the object's folder, the bare name there.
pub fn find_lightwave_image(object_path: &Path, neutral_name: &str) -> Option<PathBuf> {
    let without_device = match neutral_name.split_once(':') {
        Some((device, rest)) if !device.contains(['/', '\\']) => rest,
        _ => neutral_name,
    };
    let as_written = Path::new(without_device);
    if as_written.is_absolute() && as_written.is_file() {
        return Some(as_written.to_path_buf());
    }
    let relative = without_device.trim_start_matches(['/', '\\']);
    let object_dir = object_path.parent()?;
    let content_root = object_dir.ancestors().find_map(|dir| {
        let is_objects = dir.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case("objects"));
        is_objects.then(|| dir.parent()).flatten()
    });
    let bare = Path::new(relative).file_name().and_then(|n| n.to_str()).unwrap_or(relative);
    content_root
        .and_then(|root| resolve_case_insensitive(root, relative))
        .or_else(|| resolve_case_insensitive(object_dir, relative))
        .or_else(|| resolve_case_insensitive(object_dir, bare))
}

/// The data root for WMO textures: the folder holding `World`, walking up from the file.
pub fn find_data_root(file: &Path) -> Option<PathBuf> {
    file.ancestors().skip(1).find(|dir| find_case_insensitive(dir, "World").is_some_and(|p| p.is_dir())).map(Path::to_path_buf)
}

pub fn find_blp(data_root: &Path, name: &str) -> Option<PathBuf> {
    resolve_case_insensitive(data_root, name)
}

/// Decodes a PNG, JPEG, TGA or BMP file by its extension.
pub fn decode_image(path: &Path, bytes: &[u8], sampler: ImageSampler) -> Result<Image, String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    Image::from_buffer(bytes, ImageType::Extension(&ext), CompressedImageFormats::NONE, true, sampler, RenderAssetUsages::default())
        .map_err(|e| e.to_string())
}

/// A BLP file as a GPU texture with its mip chain ([`crate::formats::blp::decode`] does the work).
pub fn decode_blp(bytes: &[u8], sampler: ImageSampler) -> Result<Image, String> {
    let texture = crate::formats::blp::decode(bytes)?;
    let level_count = texture.levels.len() as u32;
    let mut levels = texture.levels.into_iter();
    let top = levels.next().unwrap_or_default();
    let top = image::RgbaImage::from_raw(texture.width, texture.height, top).ok_or("BLP level 0 has the wrong size")?;
    let mut out = Image::from_dynamic(image::DynamicImage::ImageRgba8(top), true, RenderAssetUsages::default());
    let mut data = out.data.take().unwrap_or_default();
    levels.for_each(|level| data.extend_from_slice(&level));
    out.data = Some(data);
    out.texture_descriptor.mip_level_count = level_count;
    out.sampler = sampler;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lightwave_images_are_found_under_the_content_root_ignoring_case() {
        let root = std::env::temp_dir().join(format!("lwo-wmo-viewer-content-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("Objects/Props")).unwrap();
        std::fs::create_dir_all(root.join("images")).unwrap();
        std::fs::write(root.join("images/Wood.PNG"), b"x").unwrap();
        std::fs::write(root.join("Objects/Props/beside.tga"), b"x").unwrap();
        let object = root.join("Objects/Props/crate.lwo");
        let found = find_lightwave_image(&object, "Work:Images/wood.png").unwrap();
        assert_eq!(found, root.join("images/Wood.PNG"));
        // Not under the content root: beside the object, by its bare name.
        assert_eq!(find_lightwave_image(&object, "C:/old/textures/BESIDE.TGA").unwrap(), root.join("Objects/Props/beside.tga"));
        assert!(find_lightwave_image(&object, "missing.png").is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn blp_paths_use_backslashes_and_any_case() {
        let root = std::env::temp_dir().join(format!("lwo-wmo-viewer-data-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("world/WMO/dungeon")).unwrap();
        std::fs::write(root.join("world/WMO/dungeon/Floor.blp"), b"x").unwrap();
        assert_eq!(find_blp(&root, "World\\wmo\\Dungeon\\FLOOR.BLP").unwrap(), root.join("world/WMO/dungeon/Floor.blp"));
        std::fs::create_dir_all(root.join("world/WMO/dungeon/x")).unwrap();
        assert_eq!(find_data_root(&root.join("world/WMO/dungeon/x/a.wmo")).unwrap(), root);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
