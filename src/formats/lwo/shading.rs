//! What a surface looks like, as plain data for a glTF-style PBR renderer: the node graph's material
//! (what reaches the `Surface` node's `Material` input) for LWO3 node surfaces, else the basic LWO2
//! parameters. One entry point, [`shading`]; no engine types.

use std::collections::BTreeSet;

use super::model::{Block, LwoObject, Projection, Surface, Wrap};
use super::nodes::{Node, NodeGraph};

/// Nodes between a material and a constant are followed at most this deep (a graph may loop) …
const MAX_CHAIN: usize = 16;
/// … and at most this many node outputs are evaluated per surface, so a graph built to branch at every
/// step costs no more than a real one.
const MAX_STEPS: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ShadingSource {
    /// Evaluated from the surface's node graph.
    Nodes,
    /// From the basic (LWO2-style) surface parameters.
    Basic,
}

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum AlphaMode {
    Opaque,
    Blend,
    Add,
    /// Drawn where alpha is at least the cutoff.
    Mask(f32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum TextureSlot {
    BaseColor,
    Normal,
    Roughness,
    Metallic,
    Alpha,
    Emissive,
}

/// One image that drives a slot, with its mapping as the file gives it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ShadingTexture {
    pub slot: TextureSlot,
    /// The CLIP index, where a clip names the image (LWO2 blocks; an Image node's file matched to a clip).
    pub clip: Option<u32>,
    /// The image file name as the file gives it (relative to the content root, or as LWOB wrote it).
    pub file: Option<String>,
    pub uv_map: Option<String>,
    pub projection: Projection,
    /// 0, 1, 2 = X, Y, Z.
    pub axis: u16,
    pub wrap: [Wrap; 2],
    /// Repeats across U and V (LWO2 wrap cycles, Image node tiling).
    pub tiling: [f32; 2],
    pub center: [f32; 3],
    pub size: [f32; 3],
    pub rotation: [f32; 3],
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SurfaceShading {
    pub source: ShadingSource,
    /// As stored in the file, 0–1 (white where an image drives the colour through nodes).
    pub base_color: [f32; 3],
    /// The drawn base is `base_color × diffuse`; 1.0 where nodes give none.
    pub diffuse: f32,
    pub metallic: f32,
    /// Perceptual roughness.
    pub roughness: f32,
    /// Specular reflectance, 0–1 (0.5 is a 4% dielectric).
    pub reflectance: f32,
    pub specular_tint: f32,
    /// Linear RGB: luminous intensity × luminous colour.
    pub emissive: [f32; 3],
    pub alpha: f32,
    pub alpha_mode: AlphaMode,
    pub clearcoat: f32,
    pub clearcoat_roughness: f32,
    /// Specular transmission (refraction), 0–1.
    pub transmission: f32,
    /// Diffuse transmission (translucency, subsurface), 0–1.
    pub diffuse_transmission: f32,
    pub thickness: f32,
    pub ior: f32,
    pub double_sided: bool,
    pub textures: Vec<ShadingTexture>,
    /// Fallbacks taken, each said once: an unknown node type, a node that could not be evaluated.
    pub notes: Vec<String>,
}

impl SurfaceShading {
    fn new(source: ShadingSource, surface: &Surface) -> Self {
        Self {
            source,
            base_color: surface.color,
            diffuse: 1.0,
            metallic: 0.0,
            roughness: 0.5,
            reflectance: 0.5,
            specular_tint: 0.0,
            emissive: [0.0; 3],
            alpha: 1.0,
            alpha_mode: AlphaMode::Opaque,
            clearcoat: 0.0,
            clearcoat_roughness: 0.0,
            transmission: 0.0,
            diffuse_transmission: 0.0,
            thickness: 0.0,
            ior: 1.5,
            double_sided: surface.double_sided(),
            textures: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn texture(&self, slot: TextureSlot) -> Option<&ShadingTexture> {
        self.textures.iter().find(|t| t.slot == slot)
    }
}

/// The surface's shading: its node graph's material where the `Surface` node has one connected, else
/// the basic parameters.
pub fn shading(surface: &Surface, object: &LwoObject) -> SurfaceShading {
    match &surface.nodes {
        Some(graph) => match graph.material_node() {
            Some(material) => node_shading(surface, object, graph, material),
            None => {
                let mut out = basic_shading(surface, object);
                out.notes.push(
                    "the node graph has nothing connected to Surface.Material; the basic parameters are used".into(),
                );
                out
            }
        },
        None => basic_shading(surface, object),
    }
}

/// The LWO2 mapping: colour × diffuse as base, luminosity as emission, glossiness as roughness,
/// specular as reflectance, transparency as alpha (additive with ADTR), SIDE 3 double-sided, and the
/// colour image block as the base-colour texture.
pub fn basic_shading(surface: &Surface, object: &LwoObject) -> SurfaceShading {
    let mut out = SurfaceShading::new(ShadingSource::Basic, surface);
    out.diffuse = surface.diffuse.clamp(0.0, 1.0);
    out.alpha = (1.0 - surface.transparency).clamp(0.0, 1.0);
    out.alpha_mode = if surface.additive_transparency > 0.0 && surface.transparency > 0.0 {
        AlphaMode::Add
    } else if surface.transparency > 0.0 {
        AlphaMode::Blend
    } else {
        AlphaMode::Opaque
    };
    let luminosity = surface.luminosity.max(0.0);
    out.emissive = srgb_to_linear(surface.color).map(|c| c * luminosity);
    out.roughness = (1.0 - surface.glossiness).clamp(0.08, 1.0);
    out.reflectance = surface.specular.clamp(0.0, 1.0);
    out.ior = surface.refraction_index;
    out.diffuse_transmission = surface.translucency.clamp(0.0, 1.0);
    if let Some(block) = surface.color_map() {
        out.textures.push(block_texture(block, TextureSlot::BaseColor, object));
    }
    out
}

/// The texture an image block (a surface's, or a node input's layer) gives `slot`.
fn block_texture(block: &Block, slot: TextureSlot, object: &LwoObject) -> ShadingTexture {
    let clip = (block.image != 0).then_some(block.image);
    let file =
        clip.and_then(|i| object.clip(i)).and_then(|c| c.source.file_name()).or_else(|| block.image_file.clone());
    ShadingTexture {
        slot,
        clip,
        file,
        uv_map: block.uv_map.clone(),
        projection: block.projection,
        axis: block.axis,
        wrap: block.wrap,
        tiling: block.wrap_cycles,
        center: block.center,
        size: block.size,
        rotation: block.rotation,
    }
}

/// What an input evaluates to.
enum Input<'g> {
    Constant(Vec<f64>),
    /// An Image node's output.
    Image(&'g Node),
    /// The input's own image layer (LightWave 2018's `TXTR` on a node input).
    Layer(&'g Block),
    /// Nothing known: the caller keeps its default.
    Missing,
}

struct Evaluator<'g> {
    graph: &'g NodeGraph,
    notes: BTreeSet<String>,
    steps: usize,
}

impl<'g> Evaluator<'g> {
    /// `node`'s `input`: what a connection brings, else the value stored in the node.
    fn input(&mut self, node: &'g Node, input: &str, depth: usize) -> Input<'g> {
        if let Some(connection) = self.graph.source_of(&node.name, input)
            && let Some(source) = self.graph.node(&connection.from_node)
        {
            match self.output(source, &connection.from_output, depth + 1) {
                Input::Missing => {
                    self.notes.insert(format!(
                        "node {} ({}) feeding {}.{input} is not evaluated; the input's own value is used",
                        source.name, source.kind, node.name
                    ));
                }
                found => return found,
            }
        }
        match node.input(input) {
            Some(stored) if let Some(layer) = stored.image_layer() => Input::Layer(layer),
            Some(stored) if !stored.value.numbers().is_empty() => Input::Constant(stored.value.numbers()),
            _ => Input::Missing,
        }
    }

    fn scalar(&mut self, node: &'g Node, input: &str, depth: usize) -> Option<f64> {
        match self.input(node, input, depth) {
            Input::Constant(v) => v.first().copied(),
            _ => None,
        }
    }

    /// The value of `node`'s `output`: an Image node, a constant node, or a scalar node whose inputs
    /// are constants.
    fn output(&mut self, node: &'g Node, _output: &str, depth: usize) -> Input<'g> {
        self.steps += 1;
        if depth > MAX_CHAIN || self.steps > MAX_STEPS {
            return Input::Missing;
        }
        let constant = |v: f64| Input::Constant(vec![v]);
        match node.kind.as_str() {
            "Image" => Input::Image(node),
            // Between an Image and a Normal input: the image is the normal map.
            "NormalMap" | "Normal Map" => match node
                .inputs
                .iter()
                .map(|i| i.name.clone())
                .chain(["Color".to_owned(), "Normal".to_owned()])
                .find_map(|name| {
                    let c = self.graph.source_of(&node.name, &name)?;
                    self.graph.node(&c.from_node).filter(|n| n.kind == "Image")
                }) {
                Some(image) => Input::Image(image),
                None => Input::Missing,
            },
            "Color" | "Scalar" | "Vector" | "Integer" => {
                let stored = node.inputs.iter().find(|i| !i.value.numbers().is_empty()).map(|i| i.value.numbers());
                stored.map_or(Input::Missing, Input::Constant)
            }
            "Mixer" => {
                let (bg, fg) = (self.input(node, "Bg Color", depth), self.input(node, "Fg Color", depth));
                let opacity = self.scalar(node, "Opacity", depth).unwrap_or(1.0);
                match (bg, fg) {
                    (Input::Constant(b), Input::Constant(f)) if b.len() == f.len() => {
                        Input::Constant(b.iter().zip(&f).map(|(b, f)| b * (1.0 - opacity) + f * opacity).collect())
                    }
                    _ => Input::Missing,
                }
            }
            "Add" | "Subtract" | "Multiply" | "Divide" | "Min" | "Max" => {
                let (Some(a), Some(b)) = (self.scalar(node, "A", depth), self.scalar(node, "B", depth)) else {
                    return Input::Missing;
                };
                constant(match node.kind.as_str() {
                    "Add" => a + b,
                    "Subtract" => a - b,
                    "Multiply" => a * b,
                    "Divide" if b != 0.0 => a / b,
                    "Divide" => 0.0,
                    "Min" => a.min(b),
                    _ => a.max(b),
                })
            }
            "Invert" => match self.input(node, "In", depth) {
                Input::Constant(v) => Input::Constant(v.iter().map(|x| 1.0 - x).collect()),
                _ => Input::Missing,
            },
            _ => Input::Missing,
        }
    }
}

/// The material node's inputs mapped onto the PBR model.
fn node_shading<'g>(surface: &Surface, object: &LwoObject, graph: &'g NodeGraph, material: &'g Node) -> SurfaceShading {
    let mut out = SurfaceShading::new(ShadingSource::Nodes, surface);
    out.base_color = [0.8; 3];
    let mut eval = Evaluator { graph, notes: BTreeSet::new(), steps: 0 };
    let mut inputs = MaterialInputs { eval: &mut eval, material, object };
    let colour = |inputs: &mut MaterialInputs<'_, 'g>, out: &mut SurfaceShading, input: &str, slot: TextureSlot| {
        inputs.colour(out, input, slot)
    };
    let scalar = |inputs: &mut MaterialInputs<'_, 'g>,
                  out: &mut SurfaceShading,
                  input: &str,
                  slot: Option<TextureSlot>| inputs.scalar(out, input, slot);
    let kind = material.kind.as_str();
    let base_input = match kind {
        "Unreal" => "Base Color",
        _ => "Color",
    };
    match colour(&mut inputs, &mut out, base_input, TextureSlot::BaseColor) {
        Some(c) => out.base_color = c,
        None if out.texture(TextureSlot::BaseColor).is_some() => out.base_color = [1.0; 3],
        None => {}
    }
    match kind {
        "Principled BSDF" | "Delta" | "Unreal" | "Conductor" | "Dielectric" | "Standard" | "Sigma" | "Sigma2"
        | "Kappa" | "Kappa2" | "Skin" => {}
        other => {
            inputs.eval.notes.insert(format!("unknown material node type {other}: its Color input is used"));
        }
    }
    if let Some(v) = scalar(&mut inputs, &mut out, "Roughness", Some(TextureSlot::Roughness)) {
        out.roughness = v.clamp(0.0, 1.0);
    }
    if let Some(v) = scalar(&mut inputs, &mut out, "Metallic", Some(TextureSlot::Metallic)) {
        out.metallic = v.clamp(0.0, 1.0);
    }
    if let Some(v) = scalar(&mut inputs, &mut out, "Specular", None) {
        out.reflectance = v.clamp(0.0, 1.0);
    }
    if let Some(v) = scalar(&mut inputs, &mut out, "Specular Tint", None) {
        out.specular_tint = v.clamp(0.0, 1.0);
    }
    let transparency = scalar(&mut inputs, &mut out, "Transparency", Some(TextureSlot::Alpha)).or_else(|| match kind {
        "Unreal" => scalar(&mut inputs, &mut out, "Opacity", Some(TextureSlot::Alpha)).map(|o| 1.0 - o),
        _ => None,
    });
    if let Some(t) = transparency {
        out.alpha = (1.0 - t).clamp(0.0, 1.0);
    }
    if out.alpha < 1.0 || out.texture(TextureSlot::Alpha).is_some() {
        out.alpha_mode = AlphaMode::Blend;
    }
    if let Some(ior) = scalar(&mut inputs, &mut out, "Refraction Index", None) {
        out.ior = ior;
    }
    if let Some(v) = scalar(&mut inputs, &mut out, "Clearcoat", None) {
        out.clearcoat = v.clamp(0.0, 1.0);
    }
    if let Some(gloss) = scalar(&mut inputs, &mut out, "Clearcoat Gloss", None) {
        out.clearcoat_roughness = (1.0 - gloss).clamp(0.0, 1.0);
    }
    let translucency = scalar(&mut inputs, &mut out, "Translucency", None).unwrap_or(0.0);
    let subsurface = scalar(&mut inputs, &mut out, "Subsurface", None).unwrap_or(0.0);
    out.diffuse_transmission = translucency.max(subsurface).clamp(0.0, 1.0);
    if subsurface > 0.0 {
        out.thickness = scalar(&mut inputs, &mut out, "Distance", None).unwrap_or(0.0).max(0.0);
    }
    // Emission: Principled's Luminous × Luminous Color; Standard's Luminosity × its colour.
    let (luminous, luminous_colour) = match kind {
        "Standard" => (scalar(&mut inputs, &mut out, "Luminosity", Some(TextureSlot::Emissive)), Some(out.base_color)),
        "Unreal" => (Some(1.0), colour(&mut inputs, &mut out, "Emissive Color", TextureSlot::Emissive)),
        _ => (
            scalar(&mut inputs, &mut out, "Luminous", Some(TextureSlot::Emissive)),
            colour(&mut inputs, &mut out, "Luminous Color", TextureSlot::Emissive),
        ),
    };
    if let (Some(l), Some(c)) = (luminous, luminous_colour) {
        out.emissive = srgb_to_linear(c).map(|x| x * l.max(0.0));
    }
    // A normal map reaches Normal directly or through a NormalMap node; the connection is followed
    // whether or not the node stores a Normal value of its own.
    match inputs.eval.input(material, "Normal", 0) {
        Input::Image(image) => out.textures.push(image_texture(image, TextureSlot::Normal, object)),
        Input::Layer(layer) => out.textures.push(block_texture(layer, TextureSlot::Normal, object)),
        _ => {}
    }
    if material.input("Bump").and_then(|b| b.image_layer()).is_some() {
        inputs
            .eval
            .notes
            .insert("the Bump input's image layer (a height map) is not drawn: there is no bump slot".into());
    }
    match kind {
        "Standard" => {
            if let Some(d) = scalar(&mut inputs, &mut out, "Diffuse", None) {
                out.diffuse = d.clamp(0.0, 1.0);
            }
            if let Some(g) = scalar(&mut inputs, &mut out, "Glossiness", None) {
                out.roughness = (1.0 - g).clamp(0.08, 1.0);
            }
            // A mirror-like Standard surface is the closest PBR has to LightWave's reflection.
            if let Some(r) = scalar(&mut inputs, &mut out, "Reflection", None) {
                out.metallic = r.clamp(0.0, 1.0);
            }
        }
        "Conductor" => out.metallic = 1.0,
        "Dielectric" => {
            out.transmission = 1.0;
            out.metallic = 0.0;
        }
        "Sigma" | "Sigma2" | "Kappa" | "Kappa2" | "Skin" => {
            out.diffuse_transmission = out.diffuse_transmission.max(0.5)
        }
        _ => {}
    }
    out.notes.extend(std::mem::take(&mut inputs.eval.notes));
    out
}

/// The material node's inputs, read through the evaluator; an Image reaching one adds its texture.
struct MaterialInputs<'e, 'g> {
    eval: &'e mut Evaluator<'g>,
    material: &'g Node,
    object: &'e LwoObject,
}

impl<'g> MaterialInputs<'_, 'g> {
    fn colour(&mut self, out: &mut SurfaceShading, input: &str, slot: TextureSlot) -> Option<[f32; 3]> {
        match self.eval.input(self.material, input, 0) {
            Input::Constant(v) if v.len() >= 3 => Some([v[0] as f32, v[1] as f32, v[2] as f32]),
            Input::Constant(v) => v.first().map(|&x| [x as f32; 3]),
            Input::Image(image) => {
                out.textures.push(image_texture(image, slot, self.object));
                None
            }
            Input::Layer(layer) => {
                out.textures.push(block_texture(layer, slot, self.object));
                None
            }
            Input::Missing => None,
        }
    }

    fn scalar(&mut self, out: &mut SurfaceShading, input: &str, slot: Option<TextureSlot>) -> Option<f32> {
        match self.eval.input(self.material, input, 0) {
            Input::Constant(v) => v.first().map(|&x| x as f32),
            Input::Image(image) => {
                if let Some(slot) = slot {
                    out.textures.push(image_texture(image, slot, self.object));
                }
                None
            }
            Input::Layer(layer) => {
                if let Some(slot) = slot {
                    out.textures.push(block_texture(layer, slot, self.object));
                }
                None
            }
            Input::Missing => None,
        }
    }
}

fn image_texture(image: &Node, slot: TextureSlot, object: &LwoObject) -> ShadingTexture {
    let data = image.image.clone().unwrap_or_default();
    let clip = data
        .file
        .as_ref()
        .and_then(|f| object.clips.iter().find(|c| c.source.file_name().as_deref() == Some(f.as_str())))
        .map(|c| c.index);
    let wrap =
        |id: &[u8; 4]| data.setting(id).map_or(Wrap::Repeat, |w| Wrap::from_lwo2(w.min(u32::from(u16::MAX)) as u16));
    let tiling = |id: &[u8; 4]| data.parameter(id).and_then(|v| v.first().copied()).unwrap_or(1.0);
    ShadingTexture {
        slot,
        clip,
        file: data.file.clone(),
        uv_map: data.uv_map.clone(),
        projection: data
            .setting(b"IMAP")
            .and_then(|p| u16::try_from(p).ok())
            .and_then(Projection::from_code)
            .unwrap_or(Projection::Uv),
        axis: data.setting(b"IAXS").map_or(0, |a| a.min(2) as u16),
        wrap: [wrap(b"IUTL"), wrap(b"IVTL")],
        tiling: [tiling(b"IUTD"), tiling(b"IVTD")],
        center: data.vector(b"IPOS", [0.0; 3]),
        size: data.vector(b"ISCL", [1.0; 3]),
        rotation: data.vector(b"IROT", [0.0; 3]),
    }
}

/// The sRGB transfer function undone: LightWave's colours are stored as seen, emission is linear.
pub fn srgb_to_linear(c: [f32; 3]) -> [f32; 3] {
    c.map(|v| if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lwo::LwoKind;
    use crate::formats::lwo::nodes::{Connection, NodeInput, NodeValue};

    fn node(kind: &str, name: &str, inputs: &[(&str, NodeValue)]) -> Node {
        let inputs = inputs
            .iter()
            .map(|(n, v)| NodeInput { name: (*n).to_owned(), value: v.clone(), layers: Vec::new() })
            .collect();
        Node { kind: kind.to_owned(), name: name.to_owned(), inputs, image: None, offset: 0 }
    }

    fn connect(to: (&str, &str), from: (&str, &str)) -> Connection {
        Connection { to_node: to.0.into(), to_input: to.1.into(), from_node: from.0.into(), from_output: from.1.into() }
    }

    fn object() -> LwoObject {
        LwoObject {
            kind: LwoKind::Lwo3,
            layers: Vec::new(),
            tags: Vec::new(),
            surfaces: Vec::new(),
            clips: Vec::new(),
            envelopes: Vec::new(),
            description: None,
            comments: Vec::new(),
            icon: None,
            warnings: Vec::new(),
        }
    }

    fn surface_with(graph: NodeGraph) -> Surface {
        let mut surface = Surface::new("S");
        surface.nodes = Some(graph);
        surface
    }

    #[test]
    fn scalar_nodes_with_constant_inputs_are_evaluated() {
        let v = |x: f64| NodeValue::Vector(vec![x]);
        let graph = NodeGraph {
            nodes: vec![
                node("Surface", "Surface", &[]),
                node(
                    "Principled BSDF",
                    "P",
                    &[("Roughness", v(0.9)), ("Color", NodeValue::Vector(vec![0.5, 0.5, 0.5]))],
                ),
                node("Multiply", "M", &[("A", v(0.5)), ("B", v(0.5))]),
                node(
                    "Mixer",
                    "X",
                    &[
                        ("Bg Color", NodeValue::Vector(vec![0.0, 0.0, 0.0])),
                        ("Fg Color", NodeValue::Vector(vec![1.0, 0.5, 0.0])),
                        ("Opacity", v(0.5)),
                    ],
                ),
            ],
            connections: vec![
                connect(("Surface", "Material"), ("P", "Material")),
                connect(("P", "Roughness"), ("M", "Result")),
                connect(("P", "Color"), ("X", "Color")),
            ],
        };
        let shading = shading(&surface_with(graph), &object());
        assert_eq!(shading.roughness, 0.25);
        assert_eq!(shading.base_color, [0.5, 0.25, 0.0]);
        assert!(shading.notes.is_empty(), "{:?}", shading.notes);
    }

    #[test]
    fn a_node_that_cannot_be_evaluated_falls_back_to_the_inputs_own_value_with_one_note() {
        let graph = NodeGraph {
            nodes: vec![
                node("Surface", "Surface", &[]),
                node(
                    "Principled BSDF",
                    "P",
                    &[("Metallic", NodeValue::Vector(vec![0.3])), ("Roughness", NodeValue::Vector(vec![0.6]))],
                ),
                node("Gradient", "G", &[]),
            ],
            connections: vec![
                connect(("Surface", "Material"), ("P", "Material")),
                connect(("P", "Metallic"), ("G", "Alpha")),
                connect(("P", "Roughness"), ("G", "Alpha")),
            ],
        };
        let shading = shading(&surface_with(graph), &object());
        assert_eq!((shading.metallic, shading.roughness), (0.3, 0.6));
        assert_eq!(shading.notes.len(), 2, "one per input it feeds: {:?}", shading.notes);
        assert!(shading.notes[0].contains("node G (Gradient)"));
    }

    #[test]
    fn a_graph_that_branches_at_every_step_stays_cheap() {
        // Forty mixers, each feeding both colours of the next: 2^40 paths without the step budget.
        let mut nodes = vec![node("Surface", "Surface", &[]), node("Principled BSDF", "P", &[])];
        let mut connections =
            vec![connect(("Surface", "Material"), ("P", "Material")), connect(("P", "Color"), ("X0", "Color"))];
        for i in 0..40 {
            nodes.push(node("Mixer", &format!("X{i}"), &[]));
            for input in ["Bg Color", "Fg Color"] {
                connections.push(connect((&format!("X{i}"), input), (&format!("X{}", i + 1), "Color")));
            }
        }
        let started = std::time::Instant::now();
        let shading = shading(&surface_with(NodeGraph { nodes, connections }), &object());
        assert!(started.elapsed().as_secs_f32() < 1.0);
        assert_eq!(shading.base_color, [0.8; 3], "nothing constant reaches the colour");
    }

    #[test]
    fn an_image_through_a_normal_map_node_is_the_normal_texture() {
        let mut image = node("Image", "Image (2)", &[]);
        image.image = Some(crate::formats::lwo::nodes::ImageNode {
            file: Some("Images/bumps.png".into()),
            uv_map: Some("UV".into()),
            ..Default::default()
        });
        let graph = NodeGraph {
            nodes: vec![
                node("Surface", "Surface", &[]),
                node("Principled BSDF", "P", &[]),
                node("NormalMap", "NormalMap (1)", &[]),
                image,
            ],
            connections: vec![
                connect(("Surface", "Material"), ("P", "Material")),
                connect(("P", "Normal"), ("NormalMap (1)", "Normal")),
                connect(("NormalMap (1)", "Color"), ("Image (2)", "Color")),
            ],
        };
        let shading = shading(&surface_with(graph), &object());
        let normal = shading.texture(TextureSlot::Normal).expect("a normal map");
        assert_eq!(
            (normal.file.as_deref(), normal.uv_map.as_deref(), normal.clip),
            (Some("Images/bumps.png"), Some("UV"), None)
        );
        assert!(shading.texture(TextureSlot::BaseColor).is_none() && shading.notes.is_empty(), "{:?}", shading.notes);
    }

    #[test]
    fn basic_shading_is_the_lwo2_mapping() {
        let mut s = Surface::new("Glass");
        s.color = [0.5, 0.25, 1.0];
        s.diffuse = 0.8;
        s.glossiness = 0.95;
        s.specular = 0.3;
        s.transparency = 0.4;
        s.additive_transparency = 1.0;
        s.luminosity = 0.5;
        s.sidedness = 3;
        let shading = shading(&s, &object());
        assert_eq!(
            (shading.source, shading.base_color, shading.diffuse),
            (ShadingSource::Basic, [0.5, 0.25, 1.0], 0.8)
        );
        assert_eq!(
            (shading.roughness, shading.reflectance, shading.alpha_mode, shading.double_sided),
            (0.08, 0.3, AlphaMode::Add, true)
        );
        assert!((shading.alpha - 0.6).abs() < 1e-6);
        assert!((shading.emissive[0] - 0.5 * srgb_to_linear([0.5; 3])[0]).abs() < 1e-6);
    }
}
