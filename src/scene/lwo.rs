//! LightWave object → scene: a layer hierarchy (pivots, parents, parents first whatever order the file
//! lists them in) with one mesh per surface, detail polygons drawn over their base, lines and points;
//! surfaces as PBR materials with their colour images found under the content root.

use crate::formats::Model;
use crate::formats::lwo::shading::{AlphaMode as ShadingAlpha, ShadingSource, SurfaceShading, TextureSlot, shading};
use crate::formats::lwo::{Surface, Wrap};
use crate::mesh::Bounds;
use crate::mesh::coords::lwo_to_bevy;
use crate::mesh::lwo::build_reporting as build_meshes;
use crate::source::FileSource;

use super::diagnostics::{Diagnostic, DiagnosticKind, TextureUser};
use super::material::{AlphaMode, Material, TextureRef};
use super::progress::Report;
use super::texture::{
    DecodedImage, ImageFormat, Located, NotLocated, Sampler, Texture, TextureSet,
    metallic_roughness as metallic_roughness_image, with_transparency,
};
use super::{
    Draw, LoadOptions, MaterialInfo, MeshSource, ModelLabel, Node, NodeTransform, PartInfo, RecordKind, Scene,
    SceneFile, file_name, parent_folder,
};

pub(super) fn build(source: &dyn FileSource, file: SceneFile, options: &LoadOptions, report: Report<'_>) -> Scene {
    let document = file.document.clone().expect("the caller matched the model");
    let Model::Lwo(object) = &document.model else { unreachable!("the caller matched the model") };
    let meshes = build_meshes(object, options.lwo, &|| report.step());
    let mut scene = Scene::default();
    scene.warnings.extend(object.warnings.iter().map(|w| Diagnostic::from_format(&file.display_path, w)));
    let owner = file.display_path.clone();
    let object_path = file.path.clone();
    scene.files.push(file);

    let mut textures = TextureSet::default();
    let mut surface_materials = Vec::with_capacity(object.surfaces.len());
    for (i, surface) in object.surfaces.iter().enumerate() {
        let shaded = shading(surface, object);
        for note in &shaded.notes {
            scene.warnings.push(Diagnostic::new(
                DiagnosticKind::Unsupported,
                &owner,
                format!("surface {}: {note}", surface.name),
            ));
        }
        let mut slot_texture = |slot: TextureSlot, scene: &mut Scene| {
            let texture = shaded.texture(slot)?;
            let name = texture
                .file
                .clone()
                .or_else(|| texture.clip.and_then(|c| object.clip(c)).and_then(|c| c.source.file_name()))?;
            let repeat = texture.wrap.map(|w| matches!(w, Wrap::Repeat | Wrap::Mirror));
            let located = find_lightwave_image(source, &object_path, &name)
                .map(|path| Located { source, path })
                .ok_or(NotLocated::NotBesideObject);
            let label = if slot == TextureSlot::BaseColor {
                ModelLabel::Texture(i).to_string()
            } else {
                format!("{}/{slot:?}", ModelLabel::Texture(i))
            };
            let (texture, found) = textures.get(
                &format!("surface {i} {slot:?}"),
                label,
                &name,
                located,
                ImageFormat::ByExtension,
                Sampler { repeat, nearest: false },
                (&owner, TextureUser::Surface),
                &mut scene.warnings,
            );
            Some((texture, name, found))
        };
        let base_texture = slot_texture(TextureSlot::BaseColor, &mut scene);
        let normal_texture = slot_texture(TextureSlot::Normal, &mut scene);
        let emissive_texture = slot_texture(TextureSlot::Emissive, &mut scene).map(|(t, _, _)| t);
        let roughness = slot_texture(TextureSlot::Roughness, &mut scene);
        let metallic = slot_texture(TextureSlot::Metallic, &mut scene);
        let transparency = slot_texture(TextureSlot::Alpha, &mut scene);
        let mut material = Material {
            normal_map_texture: normal_texture.as_ref().map(|(t, _, _)| *t),
            emissive_texture,
            ..surface_material(&shaded, i, base_texture.as_ref().map(|(t, _, _)| *t))
        };
        if let Some((normal, _, true)) = &normal_texture {
            textures.textures[normal.texture].linear = true;
        }
        combine_scalar_images(
            &mut textures,
            &mut material,
            i,
            [&roughness, &metallic, &transparency],
            base_texture.as_ref(),
        );
        surface_materials.push(scene.add_material(material));
        let mut parameters = surface_parameters(surface);
        parameters.insert(0, ("shading".to_owned(), shading_summary(&shaded)));
        if let Some(graph) = &surface.nodes {
            parameters.extend(graph.describe().into_iter().map(|line| ("node".to_owned(), line)));
        }
        scene.material_infos.push(MaterialInfo {
            name: surface.name.clone(),
            parameters,
            texture: base_texture.map(|(_, name, found)| (name, found)),
        });
    }
    let line_material =
        scene.add_material(Material::flat(ModelLabel::OverlayMaterial("Lines").to_string(), [0.9, 0.9, 0.6]));
    let mut detail_materials: Vec<Option<usize>> = vec![None; surface_materials.len()];

    let root = scene.add_node(Node::group(file_name(&object_path), None, NodeTransform::IDENTITY));
    let mut bounds = Bounds::EMPTY;
    for layer in &meshes.layers {
        let number = object.layers[layer.index].number;
        let name = if layer.name.is_empty() { format!("Layer {number}") } else { layer.name.clone() };
        scene.parts.push(PartInfo {
            name,
            description: format!("layer {number}"),
            parent: layer.parent,
            visible: !layer.hidden,
        });
        bounds.union(&layer.bounds.translated(lwo_to_bevy(object.layers[layer.index].pivot)));
    }
    // Parents before children, whatever order the file lists the layers in.
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = meshes.layers[i].parent {
            i = p;
            d += 1;
        }
        d
    };
    let mut order: Vec<usize> = (0..meshes.layers.len()).collect();
    order.sort_by_key(|&i| depth(i));
    let mut layer_nodes: Vec<Option<usize>> = vec![None; meshes.layers.len()];
    let mut layers: Vec<Option<crate::mesh::lwo::LayerMeshes>> = meshes.layers.into_iter().map(Some).collect();
    for i in order {
        let Some(layer) = layers[i].take() else { continue };
        let parent = layer.parent.and_then(|p| layer_nodes[p]).unwrap_or(root);
        // Every mesh of a layer carries the layer's morph maps in one order: the first says which.
        let morph_targets = layer
            .surfaces
            .iter()
            .map(|s| &s.mesh)
            .chain(&layer.lines)
            .chain(&layer.points)
            .next()
            .map_or(Vec::new(), |m| m.morph_targets.iter().map(|t| t.name.clone()).collect());
        let node = scene.add_node(Node {
            part: Some(i),
            hidden: layer.hidden,
            morph_targets,
            ..Node::group(scene.parts[i].name.clone(), Some(parent), NodeTransform::from_translation(layer.translation))
        });
        layer_nodes[i] = Some(node);
        let mesh_source = Some(MeshSource { file: 0, kind: RecordKind::LwoPolygon { layer: layer.index } });
        for s in layer.surfaces {
            let label = ModelLabel::LayerSurface { layer: i, surface: s.surface as usize, detail: s.detail };
            let mesh = scene.add_mesh(label, s.mesh, mesh_source);
            let surface = s.surface as usize;
            let material = if s.detail {
                *detail_materials[surface].get_or_insert_with(|| {
                    // Detail polygons lie in their base polygon's plane: a depth bias draws them on
                    // top without z-fighting.
                    let base = &scene.materials[surface_materials[surface]];
                    let detail = Material {
                        label: format!("{}/Detail", ModelLabel::Surface(surface)),
                        depth_bias: 100.0,
                        ..base.clone()
                    };
                    scene.materials.push(detail);
                    scene.materials.len() - 1
                })
            } else {
                surface_materials[surface]
            };
            scene.count_draw(mesh, true);
            scene.add_node(Node { part: Some(i), ..Node::drawing(node, Draw { mesh, material }) });
        }
        for (label, data) in [(ModelLabel::LayerLines(i), layer.lines), (ModelLabel::LayerPoints(i), layer.points)] {
            if let Some(data) = data {
                let mesh = scene.add_mesh(label, data, None);
                scene.stats.vertices += scene.meshes[mesh].data.positions.len();
                scene.stats.draw_calls += 1;
                scene.add_node(Node { part: Some(i), ..Node::drawing(node, Draw { mesh, material: line_material }) });
            }
        }
    }
    if meshes.degenerate_polygons > 0 {
        scene.warnings.push(Diagnostic::new(
            DiagnosticKind::DroppedGeometry,
            &owner,
            format!("{} degenerate polygons gave fewer triangles than corners − 2", meshes.degenerate_polygons),
        ));
    }
    scene.textures = textures.textures;
    scene.bounds = bounds;
    scene
}

/// A slot's image as the scene found it: the texture, the file name, whether it was found.
type SlotImage = Option<(TextureRef, String, bool)>;

/// Images on scalar inputs become what Bevy and glTF sample: roughness and metallic one texture
/// (green, blue) with their factors at 1 so the image alone counts, transparency the base colour's
/// alpha (over the colour image, or white). A slot whose image was not found adds nothing; its
/// warning is already given.
fn combine_scalar_images(
    textures: &mut TextureSet,
    material: &mut Material,
    surface: usize,
    [roughness, metallic, transparency]: [&SlotImage; 3],
    base: Option<&(TextureRef, String, bool)>,
) {
    let found =
        |slot: &SlotImage| slot.as_ref().filter(|(_, _, found)| *found).map(|(t, name, _)| (t.texture, name.clone()));
    let add = |textures: &mut TextureSet,
               label: String,
               name: String,
               image: DecodedImage,
               sampler: Sampler,
               linear: bool| {
        textures.textures.push(Texture { label, name, found: true, image, sampler, linear, source: None });
        TextureRef { texture: textures.textures.len() - 1 }
    };
    let (r, m) = (found(roughness), found(metallic));
    if let Some(first) = r.as_ref().or(m.as_ref()) {
        let image = metallic_roughness_image(
            r.as_ref().map(|(t, _)| &textures.textures[*t].image),
            m.as_ref().map(|(t, _)| &textures.textures[*t].image),
        );
        let sampler = textures.textures[first.0].sampler;
        let name = [&r, &m].iter().filter_map(|x| x.as_ref().map(|(_, n)| n.as_str())).collect::<Vec<_>>().join(" + ");
        material.metallic_roughness_texture = Some(add(
            textures,
            format!("{}/MetallicRoughness", ModelLabel::Texture(surface)),
            name,
            image,
            sampler,
            true,
        ));
        if r.is_some() {
            material.perceptual_roughness = 1.0;
        }
        if m.is_some() {
            material.metallic = 1.0;
        }
    }
    let base_found = base.is_none_or(|(_, _, found)| *found);
    if let (Some((t, name)), true) = (found(transparency), base_found) {
        let colour = base.map(|(b, _, _)| &textures.textures[b.texture]);
        let image = with_transparency(colour.map(|c| &c.image), &textures.textures[t].image);
        let sampler = colour.map_or(textures.textures[t].sampler, |c| c.sampler);
        let name = colour.map_or(name.clone(), |c| format!("{} + {name}", c.name));
        material.base_color_texture =
            Some(add(textures, format!("{}/Transparency", ModelLabel::Texture(surface)), name, image, sampler, false));
        material.alpha_mode = AlphaMode::Blend;
    }
}

/// LightWave's neutral file name (`disk:path/file` or `path/file`) → the file in `source`, in the order
/// the spec suggests: as written when absolute, under the content root (the folder above `Objects/`),
/// in the object's folder, the bare name there.
pub fn find_lightwave_image(source: &dyn FileSource, object_path: &str, neutral_name: &str) -> Option<String> {
    let without_device = match neutral_name.split_once(':') {
        Some((device, rest)) if !device.contains(['/', '\\']) => rest,
        _ => neutral_name,
    };
    let relative = without_device.trim_start_matches(['/', '\\']);
    let object_dir = parent_folder(object_path);
    let join = |folder: &str, rest: &str| if folder.is_empty() { rest.to_owned() } else { format!("{folder}/{rest}") };
    let mut content_root = None;
    let mut folder = object_dir;
    while !folder.is_empty() {
        if file_name(folder).eq_ignore_ascii_case("objects") {
            content_root = Some(parent_folder(folder));
            break;
        }
        folder = parent_folder(folder);
    }
    let bare = file_name(relative);
    let absolute =
        (without_device.starts_with(['/', '\\']) || neutral_name.contains(":/") || neutral_name.contains(":\\"))
            .then(|| source.find(relative))
            .flatten();
    absolute
        .or_else(|| content_root.and_then(|root| source.find(&join(root, relative))))
        .or_else(|| source.find(&join(object_dir, relative)))
        .or_else(|| source.find(&join(object_dir, bare)))
}

/// A LightWave surface's evaluated shading (its node material, or the basic parameters: colour ×
/// diffuse as base, luminosity as emission, glossiness as roughness, specular as reflectance,
/// transparency as alpha, additive when ADTR is set, SIDE 3 without culling) → the neutral material.
fn surface_material(shaded: &SurfaceShading, index: usize, texture: Option<TextureRef>) -> Material {
    let [r, g, b] = shaded.base_color;
    let d = shaded.diffuse;
    Material {
        base_color: [r * d, g * d, b * d, shaded.alpha],
        base_color_texture: texture,
        emissive: shaded.emissive,
        perceptual_roughness: shaded.roughness,
        reflectance: shaded.reflectance,
        metallic: shaded.metallic,
        alpha_mode: match shaded.alpha_mode {
            ShadingAlpha::Opaque => AlphaMode::Opaque,
            ShadingAlpha::Blend => AlphaMode::Blend,
            ShadingAlpha::Add => AlphaMode::Add,
            ShadingAlpha::Mask(cutoff) => AlphaMode::Mask(cutoff),
        },
        double_sided: shaded.double_sided,
        clearcoat: shaded.clearcoat,
        clearcoat_roughness: shaded.clearcoat_roughness,
        specular_transmission: shaded.transmission,
        diffuse_transmission: shaded.diffuse_transmission,
        thickness: shaded.thickness,
        ior: shaded.ior,
        ..Material::new(ModelLabel::Surface(index).to_string())
    }
}

fn shading_summary(s: &SurfaceShading) -> String {
    let source = match s.source {
        ShadingSource::Nodes => "node material",
        ShadingSource::Basic => "basic parameters",
    };
    format!(
        "{source}: base {:.3} {:.3} {:.3}, metallic {:.2}, roughness {:.2}, alpha {:.2}",
        s.base_color[0], s.base_color[1], s.base_color[2], s.metallic, s.roughness, s.alpha
    )
}

fn surface_parameters(s: &Surface) -> Vec<(String, String)> {
    let pct = |v: f32| format!("{:.0}%", v * 100.0);
    let mut out = vec![
        ("colour".to_owned(), format!("{:.3} {:.3} {:.3}", s.color[0], s.color[1], s.color[2])),
        ("diffuse".to_owned(), pct(s.diffuse)),
        ("specular".to_owned(), pct(s.specular)),
        ("glossiness".to_owned(), pct(s.glossiness)),
        ("luminosity".to_owned(), pct(s.luminosity)),
        ("transparency".to_owned(), pct(s.transparency)),
        ("sides".to_owned(), if s.double_sided() { "double".to_owned() } else { "front".to_owned() }),
        ("smoothing angle".to_owned(), format!("{:.1}°", s.max_smoothing_angle.to_degrees())),
    ];
    if s.additive_transparency > 0.0 {
        out.push(("additive".to_owned(), pct(s.additive_transparency)));
    }
    if let Some(vc) = &s.vertex_color {
        out.push(("vertex colours".to_owned(), format!("{} ({})", vc.map_name, pct(vc.intensity))));
    }
    if s.is_default {
        out.push(("defined".to_owned(), "no SURF chunk: defaults".to_owned()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::LooseFolder;

    #[test]
    fn lightwave_images_are_found_under_the_content_root_ignoring_case() {
        let root = std::env::temp_dir().join(format!("lwo-wmo-viewer-content-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("Objects/Props")).unwrap();
        std::fs::create_dir_all(root.join("images")).unwrap();
        std::fs::write(root.join("images/Wood.PNG"), b"x").unwrap();
        std::fs::write(root.join("Objects/Props/beside.tga"), b"x").unwrap();
        let source = LooseFolder::new(&root);
        let object = "Objects/Props/crate.lwo";
        assert_eq!(find_lightwave_image(&source, object, "Work:Images/wood.png").as_deref(), Some("images/Wood.PNG"));
        // Not under the content root: beside the object, by its bare name.
        assert_eq!(
            find_lightwave_image(&source, object, "C:/old/textures/BESIDE.TGA").as_deref(),
            Some("Objects/Props/beside.tga")
        );
        assert!(find_lightwave_image(&source, object, "missing.png").is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
