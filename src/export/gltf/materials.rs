//! Materials, textures and images: scene materials as metallic-roughness PBR (with what glTF cannot
//! say in their extras), textures with their samplers, and level 0 of each image encoded as PNG.

use std::collections::BTreeSet;

use gltf::json;
use json::validation::Checked;
use serde_json::{Value, json as value};

use super::document::{Builder, finite_or, raw};
use crate::scene::{AlphaMode, Material, PassBlend, Sampler, Scene, Texture};

/// Every texture a material samples: base colour, metallic-roughness, normal, emissive.
pub(super) fn material_textures(material: &Material) -> impl Iterator<Item = crate::scene::TextureRef> {
    [
        material.base_color_texture,
        material.metallic_roughness_texture,
        material.normal_map_texture,
        material.emissive_texture,
    ]
    .into_iter()
    .flatten()
}

/// A texture as PNG bytes, or why it could not be encoded.
pub(super) type EncodedImage = Result<Vec<u8>, ImageNotEncoded>;

/// Why a texture was left out of the export.
#[derive(Debug, thiserror::Error)]
pub(super) enum ImageNotEncoded {
    #[error("{width}×{height} with {bytes} bytes of pixels")]
    PixelsDoNotFit { width: u32, height: u32, bytes: usize },
    #[error(transparent)]
    Png(#[from] image::ImageError),
}

/// Every used texture's level 0 as PNG, on every core (a WMO has hundreds of textures).
pub(super) fn encode_textures(
    scene: &Scene,
    used: &BTreeSet<usize>,
    step: &(dyn Fn() + Sync),
) -> Vec<(usize, EncodedImage)> {
    let wanted: Vec<usize> = used.iter().copied().collect();
    let encoded = crate::parallel::parallel_map(&wanted, |&t| {
        let png = encode_png(&scene.textures[t]);
        step();
        png
    });
    wanted.into_iter().zip(encoded).collect()
}

fn encode_png(texture: &Texture) -> EncodedImage {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let image = &texture.image;
    let level = image.levels.first().map_or(&[][..], |level| &level[..]);
    let expected = u64::from(image.width) * u64::from(image.height) * 4;
    if image.width == 0 || image.height == 0 || level.len() as u64 != expected {
        return Err(ImageNotEncoded::PixelsDoNotFit { width: image.width, height: image.height, bytes: level.len() });
    }
    let mut png = Vec::new();
    PngEncoder::new_with_quality(&mut png, CompressionType::Fast, FilterType::Adaptive).write_image(
        level,
        image.width,
        image.height,
        image::ExtendedColorType::Rgba8,
    )?;
    Ok(png)
}

impl Builder<'_> {
    pub(super) fn add_image(&mut self, t: usize, png: EncodedImage) {
        let texture = &self.scene.textures[t];
        let png = match png {
            Ok(png) => png,
            Err(reason) => {
                self.notes.push(format!("texture {}: {reason}; written without it", texture.name));
                self.images.insert(t, None);
                return;
            }
        };
        let view = self.add_view(&png, None);
        let image = self.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: Some(texture.name.clone()),
            uri: None,
            extensions: None,
            extras: (!texture.found).then(|| raw(&value!({ "placeholder": true }))),
        });
        self.images.insert(t, Some(image));
    }

    /// Texture `t` as its image (that of `image_source`, which holds the same pixels) and its sampler.
    pub(super) fn add_texture(&mut self, t: usize, image_source: usize) {
        let Some(image) = self.images.get(&image_source).copied().flatten() else {
            self.textures.insert(t, None);
            return;
        };
        let texture = &self.scene.textures[t];
        let sampler = self.sampler(texture.sampler);
        let index = match self.texture_of_image.get(&(image, sampler)) {
            Some(&index) => index,
            None => {
                let index = self.root.push(json::Texture {
                    name: Some(texture.label.clone()),
                    sampler: Some(sampler),
                    source: image,
                    extensions: None,
                    extras: None,
                });
                self.texture_of_image.insert((image, sampler), index);
                index
            }
        };
        self.textures.insert(t, Some(index));
    }

    fn sampler(&mut self, sampler: Sampler) -> json::Index<json::texture::Sampler> {
        use json::texture::{MagFilter, MinFilter, WrappingMode};
        let key = (sampler.repeat[0], sampler.repeat[1], sampler.nearest);
        if let Some(&index) = self.samplers.get(&key) {
            return index;
        }
        let wrap = |repeat: bool| Checked::Valid(if repeat { WrappingMode::Repeat } else { WrappingMode::ClampToEdge });
        let (mag, min) = if sampler.nearest {
            (MagFilter::Nearest, MinFilter::Nearest)
        } else {
            (MagFilter::Linear, MinFilter::LinearMipmapLinear)
        };
        let index = self.root.push(json::texture::Sampler {
            mag_filter: Some(Checked::Valid(mag)),
            min_filter: Some(Checked::Valid(min)),
            name: None,
            wrap_s: wrap(sampler.repeat[0]),
            wrap_t: wrap(sampler.repeat[1]),
            extensions: None,
            extras: None,
        });
        self.samplers.insert(key, index);
        index
    }

    /// The glTF material for a scene material; without UVs its texture is left out (a texture with no
    /// coordinates to sample it by is invalid glTF).
    pub(super) fn material(&mut self, m: usize, with_uv: bool) -> json::Index<json::Material> {
        let material = &self.scene.materials[m];
        // Only a textured material differs with and without UVs.
        let with_uv = with_uv && material_textures(material).next().is_some();
        if let Some(&index) = self.materials.get(&(m, with_uv)) {
            return index;
        }
        let written = |slot: Option<crate::scene::TextureRef>| {
            slot.filter(|_| with_uv).and_then(|t| self.textures.get(&t.texture).copied().flatten())
        };
        let info = |index| json::texture::Info { index, tex_coord: 0, extensions: None, extras: None };
        let texture = written(material.base_color_texture);
        let metallic_roughness = written(material.metallic_roughness_texture);
        let normal = written(material.normal_map_texture);
        let emissive_texture = written(material.emissive_texture);
        let (alpha_mode, cutoff) = match material.alpha_mode {
            AlphaMode::Opaque => (json::material::AlphaMode::Opaque, None),
            AlphaMode::Mask(cutoff) => {
                (json::material::AlphaMode::Mask, Some(if cutoff.is_finite() { cutoff.max(0.0) } else { 0.5 }))
            }
            AlphaMode::Blend | AlphaMode::Add => (json::material::AlphaMode::Blend, None),
        };
        let [r, g, b, a] = finite_or(material.base_color, 1.0);
        // The scene's colour is sRGB, glTF's factor linear.
        let [r, g, b] = crate::formats::lwo::shading::srgb_to_linear([r, g, b].map(|c| c.clamp(0.0, 1.0)));
        let mut base_color = [r, g, b, a.clamp(0.0, 1.0)];
        // A moving M2 unit's look at the export's pose (the still values its animation starts from).
        let still = self.still_look(m, texture.is_some());
        if let Some((factor, _)) = still {
            base_color = factor;
        }
        let emissive = finite_or(material.emissive, 0.0).map(|c| c.max(0.0));
        let brightest = emissive.iter().copied().fold(0.0f32, f32::max);
        let (emissive_factor, emissive_strength) =
            if brightest > 1.0 { (emissive.map(|c| c / brightest), Some(brightest)) } else { (emissive, None) };
        let extras = self.material_extras(material);
        let extensions = json::extensions::material::Material {
            unlit: material.unlit.then_some(json::extensions::material::Unlit {}),
            emissive_strength: emissive_strength.map(|s| json::extensions::material::EmissiveStrength {
                emissive_strength: json::extensions::material::EmissiveStrengthFactor(s),
            }),
        };
        if material.unlit {
            self.uses_extension("KHR_materials_unlit");
        }
        if emissive_strength.is_some() {
            self.uses_extension("KHR_materials_emissive_strength");
        }
        let unit = |v: f32, fallback: f32| if v.is_finite() { v.clamp(0.0, 1.0) } else { fallback };
        let index = self.root.push(json::Material {
            alpha_cutoff: cutoff.map(json::material::AlphaCutoff),
            alpha_mode: Checked::Valid(alpha_mode),
            double_sided: material.double_sided,
            name: Some(material.label.clone()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(base_color),
                base_color_texture: texture.map(info),
                metallic_factor: json::material::StrengthFactor(unit(material.metallic, 0.0)),
                roughness_factor: json::material::StrengthFactor(unit(material.perceptual_roughness, 0.5)),
                metallic_roughness_texture: metallic_roughness.map(info),
                extensions: None,
                extras: None,
            },
            normal_texture: normal.map(|index| json::material::NormalTexture {
                index,
                scale: 1.0,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }),
            emissive_texture: emissive_texture.map(info),
            emissive_factor: json::material::EmissiveFactor(emissive_factor),
            extensions: (material.unlit || emissive_strength.is_some()).then_some(extensions),
            extras,
            ..Default::default()
        });
        if let Some((_, Some(uv))) = still {
            self.add_still_texture_transform(index, uv);
        }
        self.materials.insert((m, with_uv), index);
        index
    }

    pub(super) fn uses_extension(&mut self, name: &str) {
        if !self.root.extensions_used.iter().any(|e| e == name) {
            self.root.extensions_used.push(name.to_owned());
        }
    }

    /// What the material does that glTF's PBR model cannot say.
    fn material_extras(&mut self, material: &Material) -> json::Extras {
        let mut extras = serde_json::Map::new();
        if material.alpha_mode == AlphaMode::Add {
            extras.insert("blend".into(), value!("additive (ONE, ONE): written as BLEND"));
            self.unmapped_blends.insert("LightWave additive transparency");
        }
        if let Some(pass) = material.game_pass {
            if let Some((name, factors)) = unmapped_blend(pass.blend) {
                extras.insert("blend".into(), value!(format!("{name} ({factors}): written as BLEND")));
                self.unmapped_blends.insert(name);
            }
            if pass.vertex_color_scale != 1.0 {
                extras.insert("vertex_color_scale".into(), value!(pass.vertex_color_scale));
            }
            if pass.no_depth_write {
                extras.insert("depth_write".into(), value!(false));
            }
            if pass.no_depth_test {
                extras.insert("depth_test".into(), value!(false));
            }
        }
        if material.depth_bias != 0.0 {
            extras.insert("depth_bias".into(), value!(material.depth_bias));
        }
        if !material.fog {
            extras.insert("fog".into(), value!(false));
        }
        (!extras.is_empty()).then(|| raw(&Value::Object(extras)))
    }
}

/// The game's blend passes that glTF's alpha modes do not cover, with their blend factors.
fn unmapped_blend(blend: PassBlend) -> Option<(&'static str, &'static str)> {
    match blend {
        PassBlend::Opaque | PassBlend::AlphaKey | PassBlend::Alpha => None,
        PassBlend::OneOne => Some(("NoAlphaAdd", "ONE, ONE")),
        PassBlend::Add => Some(("Add", "SRC_ALPHA, ONE")),
        PassBlend::Mod => Some(("Mod", "DST_COLOR, ZERO")),
        PassBlend::Mod2x => Some(("Mod2x", "DST_COLOR, SRC_COLOR")),
        PassBlend::ModAdd => Some(("ModAdd", "DST_COLOR, ONE")),
        PassBlend::InvSrcAlphaAdd => Some(("InvSrcAlphaAdd", "ONE_MINUS_SRC_ALPHA, ONE")),
    }
}
