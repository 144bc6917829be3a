//! Textures as decoded pixels: the one chain every format uses — find the file in a source, read it,
//! decode it (BLP, PNG, JPEG, TGA, BMP), or stand in the placeholder with a warning.

use std::collections::HashMap;

use crate::source::FileSource;

use super::diagnostics::{Diagnostic, DiagnosticKind, TextureUser};
use super::material::TextureRef;

/// Repeat or clamp per axis; `nearest` keeps the placeholder's checker crisp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    pub repeat: [bool; 2],
    pub nearest: bool,
}

impl Sampler {
    pub const REPEAT: Self = Self { repeat: [true, true], nearest: false };
}

/// RGBA8 pixels, level 0 first; each further level halves the one before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedImage {
    pub width: u32,
    pub height: u32,
    pub levels: Vec<Vec<u8>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// The sub-asset label (`Texture3`, `M2Model1/Texture0`, `Placeholder`).
    pub label: String,
    /// The name the file gives (a MOTX entry, an M2 texture name, a LightWave clip's file).
    pub name: String,
    /// Whether the file was found and decoded; `false` means `image` is the placeholder.
    pub found: bool,
    pub image: DecodedImage,
    pub sampler: Sampler,
    /// Data rather than colour (a normal map, metallic-roughness): sampled without the sRGB decode.
    pub linear: bool,
    /// The file the pixels were decoded from, as its source names it (none for the placeholder and
    /// for images made from others), so a watcher knows what to follow.
    pub source: Option<String>,
}

/// How a texture file is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Blp,
    /// PNG, JPEG, TGA or BMP, told apart by the file name's extension.
    ByExtension,
}

/// The scene's textures, each file decoded once (per cache key) and one shared placeholder.
#[derive(Debug, Default)]
pub struct TextureSet {
    pub textures: Vec<Texture>,
    by_key: HashMap<String, (usize, bool)>,
    /// Why each key that gave the placeholder could not be shown, repeated for its later uses.
    failures: HashMap<String, (DiagnosticKind, String)>,
    placeholder: Option<usize>,
}

/// Where to look for a texture: the source and the path the format's lookup rule found there.
pub struct Located<'a> {
    pub source: &'a dyn FileSource,
    pub path: String,
}

/// Why a format's lookup rule found no file for a texture (or a doodad model).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotLocated {
    #[error("no data root (a folder holding World) was found or given")]
    NoDataRoot,
    #[error("not found under the data root")]
    NotUnderDataRoot,
    /// A LightWave image is looked for by its path, beside the object and in the content folder's `Images`.
    #[error("not found")]
    NotBesideObject,
    #[error(
        "texture {texture} is replaceable (type {kind}): the game picks it from its database, and no BLP lies beside the model to stand in"
    )]
    ReplaceableWithoutStandIn { texture: usize, kind: u32 },
    /// A model of Legion and later names its textures by number only; a listfile maps numbers to paths.
    #[error("named only by FileDataID {id}, which no listfile maps to a path")]
    ByFileDataId { id: u32 },
    #[error("texture {texture} is replaceable (type {kind}), resolved by game data this viewer does not read")]
    ReplaceableFromGameData { texture: usize, kind: u32 },
}

impl TextureSet {
    /// The texture for `key`, loaded on first use: `located` is the found file, or why none was found.
    /// A texture that cannot be shown is the placeholder, and each use of it one warning about
    /// `asker` (the file that asked, and what in it), so the warnings group into "used by 12 texture
    /// units of 4 models".
    #[allow(clippy::too_many_arguments)]
    pub fn get(
        &mut self,
        key: &str,
        label: String,
        name: &str,
        located: Result<Located<'_>, NotLocated>,
        format: ImageFormat,
        sampler: Sampler,
        (owner, user): (&str, TextureUser),
        warnings: &mut Vec<Diagnostic>,
    ) -> (TextureRef, bool) {
        if let Some(&(texture, found)) = self.by_key.get(key) {
            if !found && let Some(message) = self.failures.get(key) {
                warnings.push(Diagnostic::new(message.0, owner, message.1.clone()).used_by(user));
            }
            return (TextureRef { texture }, found);
        }
        let source = located.as_ref().ok().map(|at| at.source.display_path(&at.path));
        let decoded = match located {
            Err(reason) => Err((DiagnosticKind::MissingFile, reason.to_string())),
            Ok(at) => match at.source.read(&at.path) {
                Err(e @ crate::source::SourceError::NotFound { .. }) => {
                    Err((DiagnosticKind::MissingFile, e.to_string()))
                }
                Err(e) => Err((DiagnosticKind::UnreadableFile, e.to_string())),
                Ok(bytes) => {
                    let mut notes = Vec::new();
                    let decoded = decode_noting(&bytes, &at.path, format, &mut notes);
                    let file = at.source.display_path(&at.path);
                    warnings.extend(notes.iter().map(|note| Diagnostic::from_format(&file, note)));
                    decoded.map_err(|reason| (DiagnosticKind::UnreadableFile, reason.to_string()))
                }
            },
        };
        let (texture, found) = match decoded {
            Ok(image) => {
                self.textures.push(Texture {
                    label,
                    name: name.to_owned(),
                    found: true,
                    image,
                    sampler,
                    linear: false,
                    source,
                });
                (self.textures.len() - 1, true)
            }
            Err((kind, reason)) => {
                let message = format!("texture {name}: {reason}; a placeholder is shown");
                warnings.push(Diagnostic::new(kind, owner, message.clone()).used_by(user));
                self.failures.insert(key.to_owned(), (kind, message));
                (self.placeholder(), false)
            }
        };
        self.by_key.insert(key.to_owned(), (texture, found));
        (TextureRef { texture }, found)
    }

    /// The magenta and grey checker: a missing texture must be obvious, not silently white.
    pub fn placeholder(&mut self) -> usize {
        *self.placeholder.get_or_insert_with(|| {
            self.textures.push(Texture {
                label: super::ModelLabel::Placeholder.to_string(),
                name: "placeholder".into(),
                found: false,
                image: placeholder_image(),
                sampler: Sampler { repeat: [true, true], nearest: true },
                linear: false,
                source: None,
            });
            self.textures.len() - 1
        })
    }
}

/// Each pixel's luminance (Rec. 709 weights) of `image`'s top level, sampled at the nearest pixel on a
/// `width × height` grid: what a scalar input (roughness, metallic, transparency) reads from an image.
fn luminance_on(image: &DecodedImage, width: u32, height: u32) -> Vec<u8> {
    resampled(image, width, height)
        .chunks_exact(4)
        .map(|p| {
            (0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])).round().clamp(0.0, 255.0)
                as u8
        })
        .collect()
}

fn larger(images: &[Option<&DecodedImage>]) -> (u32, u32) {
    images.iter().flatten().fold((1, 1), |(w, h), i| (w.max(i.width), h.max(i.height)))
}

/// Separate roughness and metallic images as one texture in glTF's and Bevy's layout: roughness in
/// green, metallic in blue (white where an image is absent, so its factor alone counts), at the larger
/// image's size.
pub fn metallic_roughness(roughness: Option<&DecodedImage>, metallic: Option<&DecodedImage>) -> DecodedImage {
    let (width, height) = larger(&[roughness, metallic]);
    let channel = |image: Option<&DecodedImage>| image.map(|i| luminance_on(i, width, height));
    let (g, b) = (channel(roughness), channel(metallic));
    let mut data = Vec::with_capacity((width * height * 4) as usize);
    for i in 0..(width * height) as usize {
        let at = |c: &Option<Vec<u8>>| c.as_ref().map_or(255, |c| c[i]);
        data.extend_from_slice(&[255, at(&g), at(&b), 255]);
    }
    DecodedImage { width, height, levels: vec![data] }
}

/// A base colour image (white where there is none) whose alpha is multiplied by one minus the
/// transparency image's luminance: LightWave's Transparency input as glTF's and Bevy's base alpha.
pub fn with_transparency(base: Option<&DecodedImage>, transparency: &DecodedImage) -> DecodedImage {
    let (width, height) = larger(&[base, Some(transparency)]);
    let clear = luminance_on(transparency, width, height);
    let colour = base.map(|b| resampled(b, width, height));
    let mut data = Vec::with_capacity((width * height * 4) as usize);
    for (i, &t) in clear.iter().enumerate() {
        let [r, g, b, a] = colour.as_ref().map_or([255; 4], |c| [c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]]);
        data.extend_from_slice(&[r, g, b, ((u16::from(a) * u16::from(255 - t) + 127) / 255) as u8]);
    }
    DecodedImage { width, height, levels: vec![data] }
}

/// The top level at `width × height`, nearest pixel.
fn resampled(image: &DecodedImage, width: u32, height: u32) -> Vec<u8> {
    let top = image.levels.first().map_or(&[][..], Vec::as_slice);
    if (image.width, image.height) == (width, height) && top.len() == (width * height * 4) as usize {
        return top.to_vec();
    }
    let (w, h) = (image.width.max(1), image.height.max(1));
    let mut out = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let (sx, sy) =
                (u64::from(x) * u64::from(w) / u64::from(width), u64::from(y) * u64::from(h) / u64::from(height));
            let at = ((sy * u64::from(w) + sx) * 4) as usize;
            out.extend_from_slice(top.get(at..at + 4).unwrap_or(&[255; 4]));
        }
    }
    out
}

fn placeholder_image() -> DecodedImage {
    const SIZE: u32 = 8;
    let mut data = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let on = (x + y) % 2 == 0;
            data.extend_from_slice(if on { &[230, 0, 200, 255] } else { &[60, 60, 60, 255] });
        }
    }
    DecodedImage { width: SIZE, height: SIZE, levels: vec![data] }
}

/// Why a texture file could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error(transparent)]
    Blp(#[from] crate::formats::blp::BlpError),
    #[error("{0:?} is not an image type this viewer reads")]
    UnknownExtension(String),
    #[error(transparent)]
    Image(#[from] image::ImageError),
}

/// Decodes a texture file's bytes to RGBA8 levels.
pub fn decode(bytes: &[u8], path: &str, format: ImageFormat) -> Result<DecodedImage, DecodeError> {
    decode_noting(bytes, path, format, &mut Vec::new())
}

/// [`decode`], adding what the decoder read past (a BLP's unknown alpha type) to `warnings`.
pub fn decode_noting(
    bytes: &[u8],
    path: &str,
    format: ImageFormat,
    warnings: &mut Vec<crate::formats::Warning>,
) -> Result<DecodedImage, DecodeError> {
    match format {
        ImageFormat::Blp => {
            let blp = crate::formats::blp::decode(bytes)?;
            warnings.extend(blp.warnings);
            Ok(DecodedImage { width: blp.width, height: blp.height, levels: blp.levels })
        }
        ImageFormat::ByExtension => {
            let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
            let format =
                image::ImageFormat::from_extension(&extension).ok_or(DecodeError::UnknownExtension(extension))?;
            let image = image::load_from_memory_with_format(bytes, format)?.to_rgba8();
            Ok(DecodedImage { width: image.width(), height: image.height(), levels: vec![image.into_raw()] })
        }
    }
}
