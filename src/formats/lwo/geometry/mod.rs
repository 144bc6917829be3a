//! Layers, points, polygons, tags and vertex maps: the chunks that follow one another in layer order.
//! This file holds the [`ObjectBuilder`]'s state, its dispatch of chunks, layers and points, and the
//! finish that resolves surfaces; the readers of the large chunks, each tuned on its own, are in the
//! files below.

mod entries;
mod polygons;
mod read_ahead;

pub(super) use read_ahead::PolygonsReadAhead;
#[cfg(test)]
pub(super) use read_ahead::READ_AHEADS_TAKEN;

use crate::formats::chunk::{ChunkId, ChunkRef};
use crate::formats::error::{Result, Warning};
use crate::formats::reader::{Reader, entry_count};

use super::model::*;
use super::warn;

pub(super) struct ObjectBuilder {
    kind: LwoKind,
    layers: Vec<Layer>,
    tags: Vec<String>,
    /// Raw surface reference per polygon, per layer: a TAGS index (LWO2) or a 0-based SRFS index (LWOB).
    /// Narrow, as the POLS reader writes one for every polygon on the parse's longest path.
    surface_refs: Vec<NarrowColumn>,
    /// First polygon of the most recent POLS in the current layer: PTAG and VMAD count from it.
    pols_start: usize,
    description: Option<String>,
    comments: Vec<String>,
    icon: Option<Icon>,
    /// A VMPA waiting for the vertex map it describes.
    pending_map_parameters: Option<[i32; 2]>,
    /// A POLS chunk read ahead on a helper thread, handed over just before the chunk is reached.
    pub read_ahead: Option<PolygonsReadAhead>,
    /// The root's path segment: `FORM`, or `FORM LWO3`.
    pub warnings: Vec<Warning>,
}

impl ObjectBuilder {
    pub fn new(kind: LwoKind) -> Self {
        Self {
            kind,
            layers: Vec::new(),
            tags: Vec::new(),
            surface_refs: Vec::new(),
            pols_start: 0,
            description: None,
            comments: Vec::new(),
            icon: None,
            pending_map_parameters: None,
            read_ahead: None,
            warnings: Vec::new(),
        }
    }

    /// The layer chunks go to, made on first use: data before any LAYR goes into layer 0.
    fn layer(&mut self) -> usize {
        if self.layers.is_empty() {
            self.layers.push(Layer::new(0));
            self.surface_refs.push(NarrowColumn::default());
        }
        self.layers.len() - 1
    }

    /// Reads one chunk of the FORM; errors and warnings name it by its path in the chunk tree.
    pub fn read_chunk(&mut self, file: &[u8], node: ChunkRef<'_>) -> Result<()> {
        let mut r = node.reader(file, crate::formats::reader::Endian::Big);
        let result = self.read_chunk_data(node, &mut r);
        if matches!(&node.id.0, b"DESC" | b"TEXT" | b"ICON" | b"BBOX" | b"VMPA") {
            // Not geometry: a short one is read as far as it goes.
            super::read_leniently(&mut self.warnings, node, result);
            return Ok(());
        }
        result.map_err(|error| error.within(&node.path()))
    }

    fn read_chunk_data(&mut self, node: ChunkRef<'_>, r: &mut Reader<'_>) -> Result<()> {
        let at = node;
        match &node.id.0 {
            b"LAYR" => self.read_layer(r, node.chunk),
            b"PNTS" => self.read_points(r, at),
            b"POLS" => self.read_polygons(r, at, node.chunk),
            b"CRVS" => self.read_lwob_curves(r, at, node.chunk),
            b"PTAG" => self.read_polygon_tags(r, at),
            b"TAGS" | b"SRFS" => {
                while !r.is_empty() {
                    self.tags.push(r.s0()?);
                }
                Ok(())
            }
            b"VMAP" => self.read_vertex_map(r, at, false),
            b"VMAD" => self.read_vertex_map(r, at, true),
            b"BBOX" => {
                let layer = self.layer();
                self.layers[layer].bounding_box = Some([r.vec3()?, r.vec3()?]);
                Ok(())
            }
            b"DESC" => {
                self.description = Some(r.s0()?);
                Ok(())
            }
            b"TEXT" => {
                let text = r.s0()?;
                self.comments.push(text);
                Ok(())
            }
            b"VMPA" => {
                self.pending_map_parameters = Some([r.i32()?, r.i32()?]);
                Ok(())
            }
            b"ICON" => {
                let encoding = r.u16()?;
                let width = r.u16()?;
                let rgb = r.rest().to_vec();
                let height = if width == 0 {
                    0
                } else {
                    (rgb.len() / (usize::from(width) * 3)).min(usize::from(u16::MAX)) as u16
                };
                self.icon = Some(Icon { encoding, width, height, rgb });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn read_layer(&mut self, r: &mut Reader<'_>, chunk: ChunkId) -> Result<()> {
        let number = r.u16()?;
        let flags = r.u16()?;
        let mut layer = Layer::new(number);
        layer.flags = flags;
        layer.chunk = Some(chunk);
        // Bit 0 is "hidden" only in LWO2/LWO3. LWLO uses it for Modeler's foreground layer, and modo
        // writes 5 for the mesh layers it shows (both real .lxo files we have); assimp ignores the field.
        layer.flags_mean_hidden = matches!(self.kind, LwoKind::Lwo2 | LwoKind::Lwo3);
        if self.kind == LwoKind::Lwlo {
            layer.name = r.s0()?;
        } else {
            layer.pivot = r.vec3()?;
            layer.name = r.s0()?;
            if r.remaining() >= 2 {
                let parent = r.i16()?;
                layer.parent = u16::try_from(parent).ok();
            }
        }
        self.layers.push(layer);
        self.surface_refs.push(NarrowColumn::default());
        self.pols_start = 0;
        Ok(())
    }

    fn read_points(&mut self, r: &mut Reader<'_>, at: ChunkRef<'_>) -> Result<()> {
        let count = entry_count(r.remaining(), 12, r.offset())?;
        let layer = self.layer();
        let points = &mut self.layers[layer].points;
        if !points.is_empty() {
            let offset = r.offset();
            warn(&mut self.warnings, at, offset, "a second PNTS in one layer replaces the first");
            points.clear();
        }
        let be_f32 = |b: &[u8], at: usize| f32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        points.reserve_exact(count);
        points.extend(r.bytes(count * 12)?.chunks_exact(12).map(|p| [be_f32(p, 0), be_f32(p, 4), be_f32(p, 8)]));
        Ok(())
    }

    fn report_dropped(&mut self, at: ChunkRef<'_>, offset: usize, count: usize, what: &str) {
        if count > 0 {
            warn(&mut self.warnings, at, offset, format!("{count} {what}"));
        }
    }

    /// Resolves polygon surface references to surfaces, adding a default surface for tags that name
    /// none, and for untagged polygons.
    pub fn finish(mut self, mut surfaces: Vec<Surface>, clips: Vec<Clip>, envelopes: Vec<Envelope>) -> LwoObject {
        let mut by_tag: Vec<Option<u32>> = vec![None; self.tags.len()];
        let mut default_surface: Option<u32> = None;
        let mut warned_tags = std::collections::HashSet::new();
        for (layer, refs) in self.layers.iter_mut().zip(&self.surface_refs) {
            // Tags come in runs of many polygons: each run resolved and set at once.
            refs.for_each_run(0..refs.len(), |tag, run| {
                let tag_index = tag as usize;
                let resolved = match self.tags.get(tag_index) {
                    Some(name) => {
                        *by_tag[tag_index].get_or_insert_with(|| match surfaces.iter().position(|s| s.name == *name) {
                            Some(i) => i as u32,
                            None => {
                                let mut s = Surface::new(name.clone());
                                s.is_default = true;
                                surfaces.push(s);
                                (surfaces.len() - 1) as u32
                            }
                        })
                    }
                    None => {
                        if warned_tags.insert(tag) && !(self.tags.is_empty() && tag == 0) {
                            self.warnings.push(Warning::new(
                                "FORM/PTAG",
                                0,
                                format!(
                                    "surface tag {tag} is out of range ({} tags); the default surface is used",
                                    self.tags.len()
                                ),
                            ));
                        }
                        *default_surface.get_or_insert_with(|| {
                            let mut s = Surface::new("Default");
                            s.is_default = true;
                            surfaces.push(s);
                            (surfaces.len() - 1) as u32
                        })
                    }
                };
                layer.polygons.surface.set_many(run, resolved);
            });
        }
        LwoObject {
            kind: self.kind,
            layers: self.layers,
            tags: self.tags,
            surfaces,
            clips,
            envelopes,
            description: self.description,
            comments: self.comments,
            icon: self.icon,
            warnings: self.warnings,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fixtures::lwo::vx;

    /// Surface references are kept a byte a polygon while they fit one: a PTAG naming tag 256 widens
    /// the column, and every polygon still gets its own tag's surface (a later entry for a polygon
    /// wins). An LWOB polygon of surface 0, which names none, wraps to the largest four-byte value and
    /// takes the default surface, with a warning, beside polygons that keep theirs.
    #[test]
    fn surface_references_past_a_byte_resolve_to_their_own_surfaces() {
        use crate::fixtures::lwo::{chunk, f32s, form, s0};
        let tags: Vec<u8> = (0..300).flat_map(|k| s0(&format!("S{k}"))).collect();
        let triangle = |a: u32| [&3u16.to_be_bytes()[..], &vx(a), &vx(a + 1), &vx(a + 2)].concat();
        let polygons: Vec<u8> = [&b"FACE"[..], &(0..4).flat_map(triangle).collect::<Vec<_>>()].concat();
        let entry = |polygon: u32, tag: u16| [vx(polygon), tag.to_be_bytes().to_vec()].concat();
        // Polygon 3 keeps tag 0 from POLS; polygon 1's first tag is overwritten by a later entry.
        let ptag = [&b"SURF"[..], &entry(0, 5), &entry(1, 7), &entry(1, 256), &entry(2, 299)].concat();
        let body = [
            chunk(b"TAGS", &tags),
            chunk(b"PNTS", &f32s(&[0.0; 18])),
            chunk(b"POLS", &polygons),
            chunk(b"PTAG", &ptag),
        ]
        .concat();
        let (_, object) = crate::formats::lwo::parse(&form(b"LWO2", &body)).expect("a small object");
        let surface_of = |p: usize| object.surfaces[object.layers[0].polygons.surface.get(p) as usize].name.as_str();
        assert_eq!([0, 1, 2, 3].map(surface_of), ["S5", "S256", "S299", "S0"]);

        let lwob_face =
            |surface: i16| [&3u16.to_be_bytes()[..], &vx(0), &vx(1), &vx(2), &surface.to_be_bytes()].concat();
        let faces: Vec<u8> = [1, 0, 2].into_iter().flat_map(lwob_face).collect();
        let body =
            [chunk(b"PNTS", &f32s(&[0.0; 9])), chunk(b"SRFS", &[s0("A"), s0("B")].concat()), chunk(b"POLS", &faces)]
                .concat();
        let (_, object) = crate::formats::lwo::parse(&form(b"LWOB", &body)).expect("a small LWOB object");
        let surface_of = |p: usize| object.surfaces[object.layers[0].polygons.surface.get(p) as usize].name.as_str();
        assert_eq!([0, 1, 2].map(surface_of), ["A", "Default", "B"]);
        assert!(object.warnings.iter().any(|w| w.message.contains("4294967295")), "{:?}", object.warnings);
    }
}
