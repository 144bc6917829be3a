//! CLIP (image sources) and ENVL (animation envelopes).

use crate::formats::chunk::ChunkRef;
use crate::formats::error::{Result, Warning};
use crate::formats::reader::{Endian, Reader};

use super::chunks::{ANONYMOUS, IffDialect};
use super::model::*;
use super::read_leniently;

/// The reader of a clip's or envelope's index: LWO3's anonymous chunk, an older LWO3 writer's four
/// bytes after the form type, or LWO2's leading field.
fn index_reader<'a>(file: &'a [u8], node: ChunkRef<'_>, dialect: IffDialect) -> Result<Reader<'a>> {
    if let Some(first) = node.first_child().filter(|c| c.id == ANONYMOUS) {
        return Ok(first.reader(file, Endian::Big));
    }
    let mut r = node.reader(file, Endian::Big);
    if dialect == IffDialect::Lwo3 {
        r.skip(4)?;
    }
    Ok(r)
}

/// A still's file name from LWO3's `FORM STIL`: its anonymous chunk, or the first chunk holding a string.
pub(super) fn still_file_name(file: &[u8], stil: ChunkRef<'_>) -> Result<Option<String>> {
    match stil.first_child() {
        Some(inner) => inner.reader(file, Endian::Big).s0().map(Some),
        None => Ok(None),
    }
}

pub(super) fn parse_clip(file: &[u8], node: ChunkRef<'_>, dialect: IffDialect, warnings: &mut Vec<Warning>) -> Clip {
    let mut clip = Clip::new(0, ClipSource::Unknown(node.id));
    match index_reader(file, node, dialect).and_then(|mut r| r.u32()) {
        Ok(index) => clip.index = index,
        Err(e) => read_leniently(warnings, node, Err(e)),
    }
    let mut source = None;
    for child in node.children() {
        let mut r = child.reader(file, Endian::Big);
        if child.id == ANONYMOUS {
            continue;
        }
        let parsed = if child.is_form(b"STIL") {
            still_file_name(file, child).map(|name| name.map(ClipSource::Still))
        } else {
            match &child.id.0 {
                b"STIL" => r.s0().map(|name| Some(ClipSource::Still(name))),
                b"ISEQ" => read_sequence(&mut r).map(Some),
                b"XREF" => r.u32().and_then(|index| Ok(Some(ClipSource::Reference { index, name: r.s0()? }))),
                b"STCC" => {
                    r.i16().and_then(|low| Ok(Some(ClipSource::ColorCycle { low, high: r.i16()?, name: r.s0()? })))
                }
                b"ANIM" => r.s0().and_then(|name| Ok(Some(ClipSource::Animation { name, server: r.s0()? }))),
                _ => read_clip_attribute(child.id, &mut r, &mut clip).map(|()| None),
            }
        };
        match parsed {
            Ok(Some(parsed)) => {
                source.get_or_insert(parsed);
            }
            Ok(None) => {}
            Err(e) => read_leniently(warnings, child, Err(e)),
        }
    }
    let first_id = node.children().find(|c| c.id != ANONYMOUS).map_or(node.id, |c| c.form_type.unwrap_or(c.id));
    clip.source = source.unwrap_or(ClipSource::Unknown(first_id));
    clip
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

pub(super) fn parse_envelope(
    file: &[u8],
    node: ChunkRef<'_>,
    dialect: IffDialect,
    warnings: &mut Vec<Warning>,
) -> Envelope {
    let mut envelope = Envelope {
        index: 0,
        kind: 0,
        pre_behavior: 1,
        post_behavior: 1,
        keys: Vec::new(),
        name: None,
        modifiers: Vec::new(),
    };
    let index = index_reader(file, node, dialect)
        .and_then(|mut r| if r.remaining() == 4 && dialect == IffDialect::Lwo3 { r.u32() } else { r.vx() });
    match index {
        Ok(index) => envelope.index = index,
        Err(e) => read_leniently(warnings, node, Err(e)),
    }
    for child in node.children() {
        let mut r = child.reader(file, Endian::Big);
        let result = match &child.id.0 {
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
        };
        read_leniently(warnings, child, result);
    }
    envelope
}
