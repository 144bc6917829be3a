//! CLIP (image sources) and ENVL (animation envelopes).

use crate::formats::chunk::{ChunkNode, IffDialect};
use crate::formats::error::{Result, WithinChunk};
use crate::formats::reader::{Endian, Reader};

use super::model::*;

fn index_reader<'a>(file: &'a [u8], node: &ChunkNode, dialect: IffDialect) -> Result<Reader<'a>> {
    let mut r = node.reader(file, Endian::Big);
    if dialect == IffDialect::Lwo3 {
        r.skip(4)?;
    }
    Ok(r)
}

pub(super) fn parse_clip(file: &[u8], node: &ChunkNode, dialect: IffDialect, path: &str) -> Result<Clip> {
    let index = index_reader(file, node, dialect).and_then(|mut r| r.u32()).within(path)?;
    let mut source = None;
    let mut clip = Clip::new(index, ClipSource::Unknown(node.id));
    for child in &node.children {
        let child_path = format!("{path}/{}", child.id);
        let mut r = child.reader(file, Endian::Big);
        // LWO3 may wrap the source in a FORM STIL whose first element holds the name.
        if child.id.0 == *b"FORM" && child.form_type.is_some_and(|t| t.0 == *b"STIL") {
            if let Some(inner) = child.children.first() {
                let name = inner.reader(file, Endian::Big).s0().within(&child_path)?;
                source.get_or_insert(ClipSource::Still(name));
            }
            continue;
        }
        let parsed = match &child.id.0 {
            b"STIL" => Some(ClipSource::Still(r.s0().within(&child_path)?)),
            b"ISEQ" => Some(read_sequence(&mut r).within(&child_path)?),
            b"XREF" => Some(ClipSource::Reference { index: r.u32().within(&child_path)?, name: r.s0().within(&child_path)? }),
            b"STCC" => Some(ClipSource::ColorCycle {
                low: r.i16().within(&child_path)?,
                high: r.i16().within(&child_path)?,
                name: r.s0().within(&child_path)?,
            }),
            b"ANIM" => Some(ClipSource::Animation { name: r.s0().within(&child_path)?, server: r.s0().within(&child_path)? }),
            _ => {
                read_clip_attribute(child.id, &mut r, &mut clip).within(&child_path)?;
                None
            }
        };
        if let Some(parsed) = parsed {
            source.get_or_insert(parsed);
        }
    }
    clip.source = source.unwrap_or_else(|| ClipSource::Unknown(node.children.first().map_or(node.id, |c| c.id)));
    Ok(clip)
}

fn read_clip_attribute(id: crate::formats::fourcc::FourCc, r: &mut Reader<'_>, clip: &mut Clip) -> Result<()> {
    match &id.0 {
        b"TIME" => clip.time = Some([r.f32()?, r.f32()?, r.f32()?]),
        b"CONT" => clip.contrast = r.f32()?,
        b"BRIT" => clip.brightness = r.f32()?,
        b"SATR" => clip.saturation = r.f32()?,
        b"HUE " => clip.hue = r.f32()?,
        b"GAMM" => clip.gamma = r.f32()?,
        b"NEGA" => clip.negative = r.u16()? != 0,
        b"IFLT" | b"PFLT" => clip.filters.push(r.s0()?),
        b"CLRS" | b"CLRA" => {
            r.u16()?;
            let space = r.u16()?;
            let file = if r.is_empty() { String::new() } else { r.s0()? };
            if id.0 == *b"CLRS" {
                clip.color_space = Some((space, file));
            } else {
                clip.alpha_color_space = Some((space, file));
            }
        }
        b"FILT" => clip.filtering = Some(r.u16()?),
        b"DITH" => clip.dithering = Some(r.u16()?),
        _ => {}
    }
    Ok(())
}

fn read_sequence(r: &mut Reader<'_>) -> Result<ClipSource> {
    let digits = r.u8()?;
    let flags = r.u8()?;
    let offset = r.i16()?;
    r.skip(2)?;
    let start = r.i16()?;
    let end = r.i16()?;
    let prefix = r.s0()?;
    let suffix = if r.is_empty() { String::new() } else { r.s0()? };
    Ok(ClipSource::Sequence { prefix, suffix, digits, flags, offset, start, end })
}

pub(super) fn parse_envelope(file: &[u8], node: &ChunkNode, dialect: IffDialect, path: &str) -> Result<Envelope> {
    let index = index_reader(file, node, dialect).and_then(|mut r| r.vx()).within(path)?;
    let mut envelope = Envelope { index, kind: 0, pre_behavior: 1, post_behavior: 1, keys: Vec::new(), name: None, modifiers: Vec::new() };
    for child in &node.children {
        let child_path = format!("{path}/{}", child.id);
        let mut r = child.reader(file, Endian::Big);
        match &child.id.0 {
            b"TYPE" => r.u16().map(|t| envelope.kind = t),
            b"PRE " => r.u16().map(|b| envelope.pre_behavior = b),
            b"POST" => r.u16().map(|b| envelope.post_behavior = b),
            b"KEY " => r.f32().and_then(|time| {
                envelope.keys.push(EnvelopeKey { time, value: r.f32()?, span: None });
                Ok(())
            }),
            b"SPAN" => r.fourcc().and_then(|shape| {
                let mut params = Vec::new();
                while r.remaining() >= 4 {
                    params.push(r.f32()?);
                }
                if let Some(key) = envelope.keys.last_mut() {
                    key.span = Some((shape, params));
                }
                Ok(())
            }),
            b"NAME" => r.s0().map(|n| envelope.name = Some(n)),
            b"CHAN" => r.s0().and_then(|server| {
                let flags = if r.remaining() >= 2 { r.u16()? } else { 0 };
                envelope.modifiers.push((server, flags));
                Ok(())
            }),
            _ => Ok(()),
        }
        .within(&child_path)?;
    }
    Ok(envelope)
}
