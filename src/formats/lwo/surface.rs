//! SURF chunks: LWOB's fixed-point parameters and \*TEX layers, LWO2's float parameters and BLOKs, and
//! LWO3's nested form with the same payloads.

use crate::formats::chunk::ChunkRef;
use crate::formats::error::{Result, Warning};
use crate::formats::fourcc::FourCc;
use crate::formats::reader::{Endian, Reader};

use super::chunks::{ANONYMOUS, IffDialect};
use super::model::*;
use super::{read_leniently, warn};

/// LWOB's "smoothing" flag stands for this angle (89.5°), as every reader of the format agrees.
const LWOB_SMOOTHING_ANGLE: f32 = 1.56207;

pub(super) fn parse_surface(
    file: &[u8],
    node: ChunkRef<'_>,
    dialect: IffDialect,
    warnings: &mut Vec<Warning>,
) -> Surface {
    let mut surface = Surface { chunk: Some(node.chunk), ..Surface::new("") };
    let names = surface_names(file, node, dialect, &mut surface);
    read_leniently(warnings, node, names);
    if dialect == IffDialect::Lwob {
        read_lwob_parameters(file, node, &mut surface, warnings);
        return surface;
    }
    for child in node.children() {
        let mut r = child.reader(file, Endian::Big);
        if child.id == ANONYMOUS {
            continue;
        }
        if child.id.0 == *b"BLOK" {
            surface.blocks.push(read_block(file, child, warnings));
        } else if child.is_form(b"NODS") {
            surface.nodes = Some(super::nodes::read_node_graph(file, child, warnings));
        } else if child.id.0 != *b"FORM" {
            let result = read_lwo2_parameter(child.id, &mut r, &mut surface);
            check_sub_chunk(warnings, child.id, child, &r, result);
        }
    }
    surface
}

/// Name and source: LWOB's one name, LWO2's two strings before the sub-chunks, LWO3's anonymous chunk
/// (or, in files written the older readers' way, the same two strings after eight bytes).
fn surface_names(file: &[u8], node: ChunkRef<'_>, dialect: IffDialect, surface: &mut Surface) -> Result<()> {
    let mut header = node.reader(file, Endian::Big);
    match dialect {
        IffDialect::Lwob => surface.name = header.s0()?,
        IffDialect::Lwo2 => {
            surface.name = header.s0()?;
            surface.source = header.s0()?;
        }
        IffDialect::Lwo3 => {
            let mut fields = match node.first_child() {
                Some(first) if first.id == ANONYMOUS => first.reader(file, Endian::Big),
                _ => {
                    header.skip(4 + 8)?;
                    header
                }
            };
            surface.name = fields.s0()?;
            if !fields.is_empty() {
                surface.source = fields.s0()?;
            }
        }
    }
    Ok(())
}

/// Sub-chunks with a fixed layout whose extra bytes mean the writer and the spec disagree: one warning.
/// (Chunks ending in strings, plug-in data or optional envelopes are not checked.)
const FIXED_LAYOUT: &[&[u8; 4]] = &[
    b"SIDE", b"SMAN", b"RFOP", b"TROP", b"PROJ", b"AXIS", b"WRAP", b"AAST", b"PIXB", b"STCK", b"ENAB", b"NEGA", b"CSYS",
];

/// After reading a sub-chunk with `r`: one warning if it was short (`result` failed), else one if a
/// fixed-layout chunk left bytes over.
/// `id` is what the part is (a LightWave 2018 block part's form type, its values in an anonymous `at`).
fn check_sub_chunk(warnings: &mut Vec<Warning>, id: FourCc, at: ChunkRef<'_>, r: &Reader<'_>, result: Result<()>) {
    if result.is_err() {
        read_leniently(warnings, at, result);
    } else if r.remaining() > 0 && FIXED_LAYOUT.iter().any(|f| **f == id.0) {
        let message = format!("{} bytes more than the spec's layout of {id}; they are ignored", r.remaining());
        warn(warnings, at, r.offset(), message);
    }
}

/// An optional envelope index after a value; 0 (or nothing left) means none.
fn envelope(r: &mut Reader<'_>) -> Result<u32> {
    if r.remaining() >= 2 { r.vx() } else { Ok(0) }
}

fn read_lwo2_parameter(id: FourCc, r: &mut Reader<'_>, s: &mut Surface) -> Result<()> {
    let value = |r: &mut Reader<'_>, target: &mut f32| -> Result<u32> {
        *target = r.f32()?;
        envelope(r)
    };
    let env = match &id.0 {
        b"COLR" => {
            s.color = r.vec3()?;
            envelope(r)?
        }
        b"DIFF" => value(r, &mut s.diffuse)?,
        b"LUMI" => value(r, &mut s.luminosity)?,
        b"SPEC" => value(r, &mut s.specular)?,
        b"REFL" => value(r, &mut s.reflection)?,
        b"TRAN" => value(r, &mut s.transparency)?,
        b"TRNL" => value(r, &mut s.translucency)?,
        b"GLOS" => value(r, &mut s.glossiness)?,
        b"SHRP" => value(r, &mut s.sharpness)?,
        b"BUMP" => value(r, &mut s.bump)?,
        b"RIND" => value(r, &mut s.refraction_index)?,
        b"CLRH" => value(r, &mut s.color_highlights)?,
        b"CLRF" => value(r, &mut s.color_filter)?,
        b"ADTR" => value(r, &mut s.additive_transparency)?,
        b"RSAN" => value(r, &mut s.reflection_seam_angle)?,
        b"RBLR" => value(r, &mut s.reflection_blur)?,
        b"TBLR" => value(r, &mut s.refraction_blur)?,
        b"SIDE" => {
            s.sidedness = r.u16()?;
            0
        }
        b"SMAN" => {
            s.max_smoothing_angle = r.f32()?;
            0
        }
        b"RFOP" => {
            s.reflection_options = r.u16()?;
            0
        }
        b"TROP" => {
            s.refraction_options = r.u16()?;
            0
        }
        b"RIMG" => {
            s.reflection_image = r.vx()?;
            0
        }
        b"TIMG" => {
            s.refraction_image = r.vx()?;
            0
        }
        b"ALPH" => {
            s.alpha_mode = r.u16()?;
            s.alpha_value = r.f32()?;
            0
        }
        b"AVAL" => {
            s.alpha_value = r.f32()?;
            0
        }
        b"GLOW" => {
            let kind = r.u16()?;
            let intensity = r.f32()?;
            envelope(r)?;
            let size = if r.remaining() >= 4 { r.f32()? } else { 0.0 };
            s.glow = Some(Glow { kind, intensity, size });
            0
        }
        b"GVAL" => {
            let intensity = r.f32()?;
            let glow = s.glow.get_or_insert(Glow { kind: 0, intensity, size: 0.0 });
            glow.intensity = intensity;
            envelope(r)?
        }
        b"LINE" => {
            let flags = r.u16()?;
            let size = if r.remaining() >= 4 { Some(r.f32()?) } else { None };
            envelope(r)?;
            let color = if r.remaining() >= 12 { Some(r.vec3()?) } else { None };
            s.outline = Some(Outline { flags, size, color });
            0
        }
        b"VCOL" => {
            let intensity = r.f32()?;
            r.vx()?;
            let map_kind = r.fourcc()?;
            let map_name = r.s0()?;
            s.vertex_color = Some(VertexColor { intensity, map_kind, map_name });
            0
        }
        _ => 0,
    };
    if env != 0 {
        s.envelopes.push((id, env));
    }
    Ok(())
}

/// A part of a texture block as (what it is, the chunk holding its values). In LWO2 a sub-chunk is both;
/// LightWave 2018 (a node input's `TXTR` layers) wraps the block, its header and every value that can
/// carry an envelope in `FORM <id>` around an anonymous chunk of the same bytes as LWO2's.
fn block_part(chunk: ChunkRef<'_>) -> (FourCc, ChunkRef<'_>) {
    match chunk.form_type {
        Some(kind) => (kind, chunk.children().find(|c| c.id == ANONYMOUS).unwrap_or(chunk)),
        None => (chunk.id, chunk),
    }
}

/// A texture block: LWO2's `BLOK` chunk, or LightWave 2018's `FORM BLOK` in a node input's layers.
pub(super) fn read_block(file: &[u8], node: ChunkRef<'_>, warnings: &mut Vec<Warning>) -> Block {
    let Some(header) = node.first_child() else {
        return Block::new(BlockKind::Procedural);
    };
    let (header_kind, ordinal) = block_part(header);
    let kind = match &header_kind.0 {
        b"IMAP" => BlockKind::Image,
        b"GRAD" => BlockKind::Gradient,
        b"SHDR" => BlockKind::Shader,
        _ => BlockKind::Procedural,
    };
    let mut block = Block::new(kind);
    match ordinal.reader(file, Endian::Big).s0() {
        Ok(ordinal) => block.ordinal = ordinal,
        Err(e) => read_leniently(warnings, header, Err(e)),
    }
    for sub in header.children().filter(|c| c.id != ANONYMOUS) {
        let (id, sub) = block_part(sub);
        let mut r = sub.reader(file, Endian::Big);
        let result = match &id.0 {
            b"CHAN" => r.fourcc().map(|c| block.channel = c),
            b"ENAB" => r.u16().map(|v| block.enabled = v != 0),
            b"OPAC" => r.u16().and_then(|t| {
                block.opacity_type = t;
                block.opacity = r.f32()?;
                Ok(())
            }),
            b"NEGA" => r.u16().map(|v| block.negative = v != 0),
            _ => Ok(()),
        };
        check_sub_chunk(warnings, id, sub, &r, result);
    }
    for whole in node.children().skip(1) {
        let (id, attr) = block_part(whole);
        let mut r = attr.reader(file, Endian::Big);
        let result = match &id.0 {
            b"TMAP" => {
                for t in whole.children() {
                    let (id, t) = block_part(t);
                    let mut r = t.reader(file, Endian::Big);
                    let result = read_texture_mapping(id, &mut r, &mut block);
                    check_sub_chunk(warnings, id, t, &r, result);
                }
                Ok(())
            }
            b"PROJ" => r.u16().map(|p| block.projection = Projection::from_code(p).unwrap_or(Projection::Planar)),
            b"AXIS" => r.u16().map(|a| block.axis = a.min(2)),
            b"IMAG" => r.vx().map(|i| block.image = i),
            b"WRAP" => r.u16().and_then(|w| {
                block.wrap = [Wrap::from_lwo2(w), Wrap::from_lwo2(r.u16()?)];
                Ok(())
            }),
            b"WRPW" => r.f32().map(|v| block.wrap_cycles[0] = v),
            b"WRPH" => r.f32().map(|v| block.wrap_cycles[1] = v),
            b"VMAP" => r.s0().map(|name| block.uv_map = Some(name)),
            b"FUNC" => r.s0().map(|name| block.function = Some(name)),
            b"VALU" => {
                while let Some(v) = (r.remaining() >= 4).then(|| r.f32().ok()).flatten() {
                    block.procedural_value.push(v);
                }
                Ok(())
            }
            b"AAST" => r.u16().and_then(|flags| {
                // Older exporters write the flags alone: the strength then keeps its default, 100%.
                block.antialiasing = (flags & 1 != 0).then_some(1.0);
                let strength = r.f32()?;
                block.antialiasing = (flags & 1 != 0).then_some(strength);
                Ok(())
            }),
            b"PIXB" => r.u16().map(|f| block.pixel_blending = f & 1 != 0),
            b"STCK" => r.u16().and_then(|on| {
                let time = r.f32()?;
                block.sticky_time = (on != 0).then_some(time);
                Ok(())
            }),
            b"TAMP" => r.f32().map(|a| block.amplitude = a),
            b"PNAM" => r.s0().map(|n| block.gradient.get_or_insert_with(Gradient::default).parameter = n),
            b"INAM" => r.s0().map(|n| block.gradient.get_or_insert_with(Gradient::default).item = n),
            b"GRST" => r.f32().map(|v| block.gradient.get_or_insert_with(Gradient::default).range[0] = v),
            b"GREN" => r.f32().map(|v| block.gradient.get_or_insert_with(Gradient::default).range[1] = v),
            b"FKEY" => {
                let gradient = block.gradient.get_or_insert_with(Gradient::default);
                // 20 bytes per key: the input and RGBA.
                while let Some(key) = (r.remaining() >= 20).then(|| Some((r.f32().ok()?, r.vec4().ok()?))).flatten() {
                    gradient.keys.push(key);
                }
                Ok(())
            }
            b"IKEY" => {
                let gradient = block.gradient.get_or_insert_with(Gradient::default);
                while let Some(span) = (r.remaining() >= 2).then(|| r.u16().ok()).flatten() {
                    gradient.spans.push(span);
                }
                Ok(())
            }
            _ => Ok(()),
        };
        check_sub_chunk(warnings, id, attr, &r, result);
    }
    block
}

fn read_texture_mapping(id: FourCc, r: &mut Reader<'_>, block: &mut Block) -> Result<()> {
    match &id.0 {
        b"CNTR" => block.center = r.vec3()?,
        b"SIZE" => block.size = r.vec3()?,
        b"ROTA" => block.rotation = r.vec3()?,
        b"CSYS" => block.world_coordinates = r.u16()? != 0,
        b"OREF" => {
            let name = r.s0()?;
            block.reference_object = (!name.is_empty() && name != "(none)").then_some(name);
        }
        b"FALL" => block.falloff = Some((r.u16()?, r.vec3()?)),
        _ => {}
    }
    Ok(())
}

fn read_lwob_parameters(file: &[u8], node: ChunkRef<'_>, s: &mut Surface, warnings: &mut Vec<Warning>) {
    // The float forms (VDIF…) win over the fixed-point ones whatever their order.
    let mut float_values: Vec<(FourCc, f32)> = Vec::new();
    for child in node.children() {
        let mut r = child.reader(file, Endian::Big);
        let fixed = |r: &mut Reader<'_>| -> Result<f32> { Ok(f32::from(r.i16()?) / 256.0) };
        let mut read = || -> Result<()> {
            match &child.id.0 {
                b"COLR" => {
                    let [red, green, blue] = [r.u8()?, r.u8()?, r.u8()?].map(|c| f32::from(c) / 255.0);
                    s.color = [red, green, blue];
                }
                b"FLAG" => {
                    let flags = r.u16()?;
                    if flags & 4 != 0 {
                        s.max_smoothing_angle = LWOB_SMOOTHING_ANGLE;
                    }
                    if flags & 8 != 0 {
                        s.color_highlights = 1.0;
                    }
                    if flags & 16 != 0 {
                        s.color_filter = 1.0;
                    }
                    if flags & 128 != 0 {
                        s.sharpness = 0.5;
                    }
                    if flags & 256 != 0 {
                        s.sidedness = 3;
                    }
                    if flags & 512 != 0 {
                        s.additive_transparency = 1.0;
                    }
                }
                b"LUMI" => s.luminosity = fixed(&mut r)?,
                b"DIFF" => s.diffuse = fixed(&mut r)?,
                b"SPEC" => s.specular = fixed(&mut r)?,
                b"REFL" => s.reflection = fixed(&mut r)?,
                b"TRAN" => s.transparency = fixed(&mut r)?,
                b"VLUM" | b"VDIF" | b"VSPC" | b"VRFL" | b"VTRN" => float_values.push((child.id, r.f32()?)),
                b"GLOS" => {
                    let exponent = f32::from(r.u16()?.max(1));
                    s.glossiness = ((exponent.log2() - 2.0) / 10.0).clamp(0.0, 1.0);
                }
                b"SMAN" => s.max_smoothing_angle = r.f32()?,
                b"RIND" => s.refraction_index = r.f32()?,
                b"CTEX" | b"DTEX" | b"STEX" | b"RTEX" | b"TTEX" | b"LTEX" | b"BTEX" => {
                    let name = r.s0()?;
                    s.blocks.push(lwob_texture_block(child.id, &name));
                }
                _ => {
                    if let Some(block) = s.blocks.last_mut() {
                        read_lwob_texture_parameter(child.id, &mut r, block)?;
                    }
                }
            }
            Ok(())
        };
        let result = read();
        read_leniently(warnings, child, result);
    }
    for (id, value) in float_values {
        match &id.0 {
            b"VLUM" => s.luminosity = value,
            b"VDIF" => s.diffuse = value,
            b"VSPC" => s.specular = value,
            b"VRFL" => s.reflection = value,
            _ => s.transparency = value,
        }
    }
}

fn lwob_texture_block(id: FourCc, name: &str) -> Block {
    let projection = ["Planar", "Cylindrical", "Spherical", "Cubic", "Front"]
        .iter()
        .position(|p| name.contains(p))
        .filter(|_| name.contains("Image Map"));
    let mut block = Block::new(if projection.is_some() { BlockKind::Image } else { BlockKind::Procedural });
    block.projection = projection.and_then(|p| Projection::from_code(p as u16)).unwrap_or(Projection::Planar);
    if projection.is_none() {
        block.function = Some(name.to_owned());
    }
    block.channel = FourCc(match &id.0 {
        b"CTEX" => *b"COLR",
        b"DTEX" => *b"DIFF",
        b"STEX" => *b"SPEC",
        b"RTEX" => *b"REFL",
        b"TTEX" => *b"TRAN",
        b"LTEX" => *b"LUMI",
        _ => *b"BUMP",
    });
    block.ordinal = format!("\u{80}{:04}", 0);
    block
}

fn read_lwob_texture_parameter(id: FourCc, r: &mut Reader<'_>, block: &mut Block) -> Result<()> {
    match &id.0 {
        b"TFLG" => {
            let flags = r.u16()?;
            // Several axis bits: the last test wins, Z over Y over X, as LightWave's own sample reader does.
            block.axis = if flags & 4 != 0 {
                2
            } else if flags & 2 != 0 {
                1
            } else {
                0
            };
            block.world_coordinates = flags & 8 != 0;
            block.negative = flags & 16 != 0;
        }
        b"TSIZ" => block.size = r.vec3()?,
        b"TCTR" => block.center = r.vec3()?,
        b"TIMG" => {
            let name = r.s0()?;
            block.image_file = (name != "(none)").then_some(name);
        }
        b"TWRP" => block.wrap = [Wrap::from_lwob(r.u16()?), Wrap::from_lwob(r.u16()?)],
        b"TOPC" => block.opacity = r.f32()?,
        b"TFP0" if matches!(block.projection, Projection::Cylindrical | Projection::Spherical) => {
            block.wrap_cycles[0] = r.f32()?
        }
        b"TFP1" if block.projection == Projection::Spherical => block.wrap_cycles[1] = r.f32()?,
        _ => {}
    }
    Ok(())
}
