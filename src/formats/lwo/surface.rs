//! SURF chunks: LWOB's fixed-point parameters and \*TEX layers, LWO2's float parameters and BLOKs, and
//! LWO3's nested form with the same payloads.

use crate::formats::chunk::{ChunkNode, IffDialect};
use crate::formats::error::{Result, Warning, WithinChunk};
use crate::formats::fourcc::FourCc;
use crate::formats::reader::{Endian, Reader};

use super::model::*;
use super::warn;

/// LWOB's "smoothing" flag stands for this angle (89.5°), as every reader of the format agrees.
const LWOB_SMOOTHING_ANGLE: f32 = 1.56207;

pub(super) fn parse_surface(
    file: &[u8],
    node: &ChunkNode,
    dialect: IffDialect,
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Surface> {
    let mut header = node.reader(file, Endian::Big);
    let mut surface = match dialect {
        IffDialect::Lwob => Surface::new(header.s0().within(path)?),
        IffDialect::Lwo2 => {
            let mut s = Surface::new(header.s0().within(path)?);
            s.source = header.s0().within(path)?;
            s
        }
        IffDialect::Lwo3 => {
            header.skip(4 + 8).within(path)?;
            let mut s = Surface::new(header.s0().within(path)?);
            s.source = header.s0().within(path)?;
            s
        }
    };
    if dialect == IffDialect::Lwob {
        read_lwob_parameters(file, node, path, &mut surface)?;
    } else {
        for child in &node.children {
            let child_path = format!("{path}/{}", child.id);
            let mut r = child.reader(file, Endian::Big);
            if child.id.0 == *b"BLOK" {
                surface.blocks.push(read_block(file, child, &child_path)?);
            } else if child.id.0 != *b"FORM" {
                read_lwo2_parameter(child.id, &mut r, &mut surface).within(&child_path)?;
            } else if child.form_type.is_some_and(|t| t.0 == *b"NODS") {
                warn(warnings, &child_path, child.offset, "node-based surface (NODS) is not evaluated; basic parameters are used");
            }
        }
    }
    Ok(surface)
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

fn read_block(file: &[u8], node: &ChunkNode, path: &str) -> Result<Block> {
    let Some(header) = node.children.first() else {
        return Ok(Block::new(BlockKind::Procedural));
    };
    let kind = match &header.id.0 {
        b"IMAP" => BlockKind::Image,
        b"GRAD" => BlockKind::Gradient,
        b"SHDR" => BlockKind::Shader,
        _ => BlockKind::Procedural,
    };
    let mut block = Block::new(kind);
    let header_path = format!("{path}/{}", header.id);
    block.ordinal = header.reader(file, Endian::Big).s0().within(&header_path)?;
    for sub in &header.children {
        let mut r = sub.reader(file, Endian::Big);
        match &sub.id.0 {
            b"CHAN" => r.fourcc().map(|c| block.channel = c),
            b"ENAB" => r.u16().map(|v| block.enabled = v != 0),
            b"OPAC" => r.u16().and_then(|t| {
                block.opacity_type = t;
                block.opacity = r.f32()?;
                Ok(())
            }),
            b"NEGA" => r.u16().map(|v| block.negative = v != 0),
            _ => Ok(()),
        }
        .within(&format!("{header_path}/{}", sub.id))?;
    }
    for attr in node.children.iter().skip(1) {
        let attr_path = format!("{path}/{}", attr.id);
        let mut r = attr.reader(file, Endian::Big);
        match &attr.id.0 {
            b"TMAP" => {
                for t in &attr.children {
                    let mut r = t.reader(file, Endian::Big);
                    match &t.id.0 {
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
                while r.remaining() >= 4 {
                    block.procedural_value.push(r.f32()?);
                }
                Ok(())
            }
            b"AAST" => r.u16().and_then(|flags| {
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
                while r.remaining() >= 20 {
                    gradient.keys.push((r.f32()?, r.vec4()?));
                }
                Ok(())
            }
            b"IKEY" => {
                let gradient = block.gradient.get_or_insert_with(Gradient::default);
                while r.remaining() >= 2 {
                    gradient.spans.push(r.u16()?);
                }
                Ok(())
            }
            _ => Ok(()),
        }
        .within(&attr_path)?;
    }
    Ok(block)
}

fn read_lwob_parameters(file: &[u8], node: &ChunkNode, path: &str, s: &mut Surface) -> Result<()> {
    // The float forms (VDIF…) win over the fixed-point ones whatever their order.
    let mut float_values: Vec<(FourCc, f32)> = Vec::new();
    for child in &node.children {
        let child_path = format!("{path}/{}", child.id);
        let mut r = child.reader(file, Endian::Big);
        let fixed = |r: &mut Reader<'_>| -> Result<f32> { Ok(f32::from(r.i16()?) / 256.0) };
        match &child.id.0 {
            b"COLR" => {
                let [red, green, blue] = [r.u8()?, r.u8()?, r.u8()?].map(|c| f32::from(c) / 255.0);
                s.color = [red, green, blue];
            }
            b"FLAG" => {
                let flags = r.u16().within(&child_path)?;
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
            b"LUMI" => s.luminosity = fixed(&mut r).within(&child_path)?,
            b"DIFF" => s.diffuse = fixed(&mut r).within(&child_path)?,
            b"SPEC" => s.specular = fixed(&mut r).within(&child_path)?,
            b"REFL" => s.reflection = fixed(&mut r).within(&child_path)?,
            b"TRAN" => s.transparency = fixed(&mut r).within(&child_path)?,
            b"VLUM" | b"VDIF" | b"VSPC" | b"VRFL" | b"VTRN" => float_values.push((child.id, r.f32().within(&child_path)?)),
            b"GLOS" => {
                let exponent = f32::from(r.u16().within(&child_path)?.max(1));
                s.glossiness = ((exponent.log2() - 2.0) / 10.0).clamp(0.0, 1.0);
            }
            b"SMAN" => s.max_smoothing_angle = r.f32().within(&child_path)?,
            b"RIND" => s.refraction_index = r.f32().within(&child_path)?,
            b"CTEX" | b"DTEX" | b"STEX" | b"RTEX" | b"TTEX" | b"LTEX" | b"BTEX" => {
                let name = r.s0().within(&child_path)?;
                s.blocks.push(lwob_texture_block(child.id, &name));
            }
            _ => {
                if let Some(block) = s.blocks.last_mut() {
                    read_lwob_texture_parameter(child.id, &mut r, block).within(&child_path)?;
                }
            }
        }
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
    Ok(())
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
            block.axis = if flags & 4 != 0 { 2 } else if flags & 2 != 0 { 1 } else { 0 };
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
        b"TFP0" if matches!(block.projection, Projection::Cylindrical | Projection::Spherical) => block.wrap_cycles[0] = r.f32()?,
        b"TFP1" if block.projection == Projection::Spherical => block.wrap_cycles[1] = r.f32()?,
        _ => {}
    }
    Ok(())
}
