//! LWO3 node graphs (`FORM NODS`, lwo-surfaces.md §7a): every node with its type, instance name and
//! inputs, an Image node's own image and mapping, and the connections between nodes. Reading only;
//! `shading.rs` evaluates the graph.

use crate::formats::chunk::ChunkRef;
use crate::formats::error::{Result, Warning};
use crate::formats::fourcc::FourCc;
use crate::formats::reader::{Endian, Reader};

use super::chunks::ANONYMOUS;
use super::read_leniently;

/// Inputs nested deeper than this inside a node's data are not looked for (real files use four levels).
const MAX_ENTRY_DEPTH: usize = 8;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeGraph {
    pub nodes: Vec<Node>,
    pub connections: Vec<Connection>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// The node type as its server names it (`NSRV`, else `NRNM`): `Principled BSDF`, `Image`, `Surface`.
    pub kind: String,
    /// The instance name connections use (`NNME`): `Principled BSDF (1)`.
    pub name: String,
    /// Every `ENTR` input with its stored value, in file order.
    pub inputs: Vec<NodeInput>,
    /// An Image node's image and mapping.
    pub image: Option<ImageNode>,
    /// Offset of the node's `FORM NTAG` in the file.
    pub offset: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeInput {
    pub name: String,
    pub value: NodeValue,
    /// The input's own texture layers (`TXTR` → `BLOK`), as a classic surface channel has them; they
    /// take the place of the stored value where nothing is connected.
    pub layers: Vec<super::model::Block>,
}

impl NodeInput {
    /// The image layer drawn on top: enabled, the last in ordinal order (as a surface's colour map).
    pub fn image_layer(&self) -> Option<&super::model::Block> {
        self.layers
            .iter()
            .filter(|b| b.enabled && b.kind == super::model::BlockKind::Image)
            .max_by(|a, b| a.ordinal.as_bytes().cmp(b.ordinal.as_bytes()))
    }
}

/// A stored input value as `FORM VALU` holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeValue {
    Int(i32),
    Double(f64),
    /// `vparam` (one value) or `vparam3` (three): the values as stored.
    Vector(Vec<f64>),
    /// A type with no value this reader knows (`ClipID` with none set …): its type name.
    Other(String),
}

impl NodeValue {
    /// The value as numbers (an int as one value); empty for `Other`.
    pub fn numbers(&self) -> Vec<f64> {
        match self {
            Self::Int(v) => vec![f64::from(*v)],
            Self::Double(v) => vec![*v],
            Self::Vector(v) => v.clone(),
            Self::Other(_) => Vec::new(),
        }
    }
}

impl std::fmt::Display for NodeValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(v) => write!(f, "{v}"),
            Self::Double(v) => write!(f, "{v}"),
            Self::Vector(v) if v.len() == 1 => write!(f, "{}", v[0]),
            Self::Vector(v) => {
                let parts: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
                write!(f, "({})", parts.join(", "))
            }
            Self::Other(kind) => write!(f, "({kind})"),
        }
    }
}

/// `INME`.`IINM` ← `IINN`.`IONM`: the receiving node and input, and the sending node and output.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Connection {
    pub to_node: String,
    pub to_input: String,
    pub from_node: String,
    pub from_output: String,
}

/// An Image node's data: its image (named inside the node) and how it is mapped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImageNode {
    /// The `FORM IIMG` → `FORM CLIP` → `FORM STIL` file name, relative to the content root.
    pub file: Option<String>,
    /// `IUVI`: the UV map.
    pub uv_map: Option<String>,
    /// U4 settings by id: `IMAP` projection, `IAXS` axis, `IUTL`/`IVTL` wrap, `IPIX`, `IMIP` …
    pub settings: Vec<(FourCc, u32)>,
    /// `FORM VPRM`/`VPVL` parameters by id: `IUTD`/`IVTD` tiling, `ISCL`, `IPOS`, `IROT`, `IFAL`, `IBMP`, `IOPC` …
    pub parameters: Vec<(FourCc, Vec<f32>)>,
}

impl ImageNode {
    pub fn setting(&self, id: &[u8; 4]) -> Option<u32> {
        self.settings.iter().find(|(k, _)| k.0 == *id).map(|(_, v)| *v)
    }

    pub fn parameter(&self, id: &[u8; 4]) -> Option<&[f32]> {
        self.parameters.iter().find(|(k, _)| k.0 == *id).map(|(_, v)| v.as_slice())
    }

    /// A three-value parameter, or `default` where the node has none.
    pub fn vector(&self, id: &[u8; 4], default: [f32; 3]) -> [f32; 3] {
        match self.parameter(id) {
            Some([x, y, z, ..]) => [*x, *y, *z],
            _ => default,
        }
    }
}

impl Node {
    pub fn input(&self, name: &str) -> Option<&NodeInput> {
        self.inputs.iter().find(|i| i.name == name)
    }
}

impl NodeGraph {
    pub fn node(&self, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The connection that feeds `node`'s `input`, if one does.
    pub fn source_of(&self, node: &str, input: &str) -> Option<&Connection> {
        self.connections.iter().find(|c| c.to_node == node && c.to_input == input)
    }

    /// The node connected to the `Surface` node's `Material` input: the surface's material.
    pub fn material_node(&self) -> Option<&Node> {
        let surface = self.nodes.iter().find(|n| n.kind == "Surface")?;
        let connection = self.source_of(&surface.name, "Material")?;
        self.node(&connection.from_node)
    }

    /// For the panel: one line per node with its inputs and values, then one per connection.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        for node in &self.nodes {
            let mut line =
                if node.kind == node.name { node.name.clone() } else { format!("{} [{}]", node.name, node.kind) };
            if let Some(image) = &node.image {
                line.push_str(&format!(": image {}", image.file.as_deref().unwrap_or("(none)")));
                if let Some(uv) = &image.uv_map {
                    line.push_str(&format!(", UV map {uv}"));
                }
            }
            if !node.inputs.is_empty() {
                let inputs: Vec<String> = node
                    .inputs
                    .iter()
                    .map(|i| match i.image_layer() {
                        Some(layer) => format!(
                            "{} = {} [image layer: clip {}, UV map {}]",
                            i.name,
                            i.value,
                            layer.image,
                            layer.uv_map.as_deref().unwrap_or("(none)")
                        ),
                        None => format!("{} = {}", i.name, i.value),
                    })
                    .collect();
                line.push_str(&format!(": {}", inputs.join(", ")));
            }
            out.push(line);
        }
        for c in &self.connections {
            out.push(format!("{}.{} → {}.{}", c.from_node, c.from_output, c.to_node, c.to_input));
        }
        out
    }
}

/// Reads a `FORM NODS`. What cannot be read is warned about once per chunk and left out.
pub(super) fn read_node_graph(file: &[u8], nods: ChunkRef<'_>, warnings: &mut Vec<Warning>) -> NodeGraph {
    let mut graph = NodeGraph::default();
    for child in nods.children() {
        if child.is_form(b"NNDS") {
            read_nodes(file, child, &mut graph, warnings);
        } else if child.is_form(b"NCON") {
            read_connections(file, child, &mut graph, warnings);
        }
    }
    graph
}

/// `FORM NCON`: repeated `INME`, `IINM`, `IINN`, `IONM`; each `INME` starts a connection.
fn read_connections(file: &[u8], ncon: ChunkRef<'_>, graph: &mut NodeGraph, warnings: &mut Vec<Warning>) {
    for child in ncon.children() {
        let text = match child.reader(file, Endian::Big).s0() {
            Ok(text) => text,
            Err(e) => {
                read_leniently(warnings, child, Err(e));
                continue;
            }
        };
        if child.id.0 == *b"INME" {
            graph.connections.push(Connection { to_node: text, ..Connection::default() });
            continue;
        }
        let Some(last) = graph.connections.last_mut() else { continue };
        match &child.id.0 {
            b"IINM" => last.to_input = text,
            b"IINN" => last.from_node = text,
            b"IONM" => last.from_output = text,
            _ => {}
        }
    }
}

fn read_nodes(file: &[u8], nnds: ChunkRef<'_>, graph: &mut NodeGraph, warnings: &mut Vec<Warning>) {
    let mut server: Option<String> = None;
    for child in nnds.children() {
        if child.id.0 == *b"NSRV" {
            match child.reader(file, Endian::Big).s0() {
                Ok(name) => server = Some(name),
                Err(e) => read_leniently(warnings, child, Err(e)),
            }
        } else if child.is_form(b"NTAG") {
            let mut node = Node { kind: server.take().unwrap_or_default(), offset: child.offset, ..Node::default() };
            for part in child.children() {
                let mut r = part.reader(file, Endian::Big);
                match &part.id.0 {
                    b"NRNM" => match r.s0() {
                        Ok(kind) if node.kind.is_empty() => node.kind = kind,
                        Ok(_) => {}
                        Err(e) => read_leniently(warnings, part, Err(e)),
                    },
                    b"NNME" => match r.s0() {
                        Ok(name) => node.name = name,
                        Err(e) => read_leniently(warnings, part, Err(e)),
                    },
                    _ if part.is_form(b"NDTA") => read_node_data(file, part, &mut node, warnings),
                    _ => {}
                }
            }
            if node.name.is_empty() {
                node.name = node.kind.clone();
            }
            graph.nodes.push(node);
        }
    }
}

fn read_node_data(file: &[u8], ndta: ChunkRef<'_>, node: &mut Node, warnings: &mut Vec<Warning>) {
    collect_entries(file, ndta, node, warnings, 0);
    if node.kind == "Image" || ndta.children().any(|c| c.is_form(b"IIMG")) {
        node.image = Some(read_image_node(file, ndta, warnings));
    }
}

/// Every `FORM ENTR` under the node's data (inside `ATTR`/`SATR` → `META` → `ADAT`).
fn collect_entries(file: &[u8], form: ChunkRef<'_>, node: &mut Node, warnings: &mut Vec<Warning>, depth: usize) {
    if depth > MAX_ENTRY_DEPTH {
        return;
    }
    for child in form.children() {
        if child.is_form(b"ENTR") {
            match read_entry(file, child, warnings) {
                Ok(Some(input)) => node.inputs.push(input),
                Ok(None) => {}
                Err(e) => read_leniently(warnings, child, Err(e)),
            }
        } else if child.form_type.is_some() && !child.is_form(b"IIMG") {
            collect_entries(file, child, node, warnings, depth + 1);
        }
    }
}

/// `FORM ENTR` {`NAME`, `FLAG`, `TAG `…, `FORM VALU`}; the value's `FORM TXTR` holds the input's
/// texture layers (one `FORM BLOK` each).
fn read_entry(file: &[u8], entry: ChunkRef<'_>, warnings: &mut Vec<Warning>) -> Result<Option<NodeInput>> {
    let Some(name_chunk) = entry.children().find(|c| c.id.0 == *b"NAME") else {
        return Ok(None);
    };
    let name = name_chunk.reader(file, Endian::Big).s0()?;
    let valu = entry.children().find(|c| c.is_form(b"VALU"));
    let value = match valu {
        Some(valu) => read_value(file, valu)?,
        None => NodeValue::Other(String::new()),
    };
    let texture_forms = valu.into_iter().flat_map(|v| v.children()).chain(entry.children());
    let blocks = texture_forms.filter(|c| c.is_form(b"TXTR")).flat_map(|t| t.children()).filter(|b| b.is_form(b"BLOK"));
    let layers = blocks.map(|b| super::surface::read_block(file, b, warnings)).collect();
    Ok(Some(NodeInput { name, value, layers }))
}

/// `FORM VALU` → `"    "` {S0 type, then an `int`'s U4 or a `double`'s F8}; a `vparam`'s values sit in a
/// nested `FORM VALU` → `"    "` {U4 count, count × F8}.
fn read_value(file: &[u8], valu: ChunkRef<'_>) -> Result<NodeValue> {
    let Some(fields) = valu.children().find(|c| c.id == ANONYMOUS) else {
        return Ok(NodeValue::Other(String::new()));
    };
    let mut r = fields.reader(file, Endian::Big);
    // Owned only when kept as `Other` (a type read as neither a number nor a vector).
    let kind = r.s0_text()?;
    Ok(match &*kind {
        "int" => NodeValue::Int(r.u32()? as i32),
        "double" => NodeValue::Double(r.f64()?),
        "vparam" | "vparam3" => match valu.children().find(|c| c.is_form(b"VALU")) {
            Some(inner) => NodeValue::Vector(read_doubles(file, inner)?),
            None => NodeValue::Other(kind.into_owned()),
        },
        _ => NodeValue::Other(kind.into_owned()),
    })
}

fn read_doubles(file: &[u8], inner: ChunkRef<'_>) -> Result<Vec<f64>> {
    let Some(fields) = inner.children().find(|c| c.id == ANONYMOUS) else {
        return Ok(Vec::new());
    };
    let mut r = fields.reader(file, Endian::Big);
    let count = r.u32()? as usize;
    // Sized by what the chunk holds, never by the stored count alone.
    let mut values = Vec::with_capacity(count.min(r.remaining() / 8));
    for _ in 0..count {
        values.push(r.f64()?);
    }
    Ok(values)
}

fn read_image_node(file: &[u8], ndta: ChunkRef<'_>, warnings: &mut Vec<Warning>) -> ImageNode {
    let mut image = ImageNode::default();
    for child in ndta.children() {
        let mut r = child.reader(file, Endian::Big);
        let result: Result<()> = match child.form_type {
            Some(t) if t.0 == *b"IIMG" => {
                image.file = find_still(file, child, 0);
                Ok(())
            }
            Some(t) => {
                if let Some(values) = vparam_values(file, child) {
                    image.parameters.push((t, values));
                }
                Ok(())
            }
            None if child.id.0 == *b"IUVI" => r.s0().map(|uv| image.uv_map = Some(uv).filter(|s| !s.is_empty())),
            None if child.length == 4 => r.u32().map(|v| image.settings.push((child.id, v))),
            None => Ok(()),
        };
        read_leniently(warnings, child, result);
    }
    image
}

/// The file name of the first `FORM STIL` below `form`.
fn find_still(file: &[u8], form: ChunkRef<'_>, depth: usize) -> Option<String> {
    if depth > MAX_ENTRY_DEPTH {
        return None;
    }
    for child in form.children() {
        let found = if child.is_form(b"STIL") {
            super::clip::still_file_name(file, child).ok().flatten()
        } else if child.form_type.is_some() {
            find_still(file, child, depth + 1)
        } else {
            None
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `FORM xxxx` → `FORM VPRM` {`"    "` {U4, U4 envelope}, `FORM VPVL` → `"    "` {F4 values, U2}}. The
/// first U4 is 3 even where one value follows (IOPC, IBMP), so the values are counted by the bytes.
fn vparam_values(file: &[u8], form: ChunkRef<'_>) -> Option<Vec<f32>> {
    let vprm = form.children().find(|c| c.is_form(b"VPRM"))?;
    let vpvl = vprm.children().find(|c| c.is_form(b"VPVL"))?;
    let fields = vpvl.children().find(|c| c.id == ANONYMOUS)?;
    let mut r: Reader<'_> = fields.reader(file, Endian::Big);
    let count = r.remaining() / 4;
    (0..count).map(|_| r.f32().ok()).collect()
}
