//! LightWave's nesting grammar for the IFF walker: which chunks hold sub-chunks in LWOB and LWO2, the
//! nested FORMs of LWO3 with their anonymous `"    "` chunks (lwo-surfaces.md §7a), and the names that
//! make LWO3 paths readable (`FORM LWO3/FORM SURF "Right"/FORM NODS/…`).

use std::borrow::Cow;

use crate::formats::chunk::{
    ChunkId, ChunkNode, ChunkRef, ChunkTree, FORM, Field, IffGrammar, LengthWidth, Nesting, read_iff_tree_with,
};
use crate::formats::error::Result;
use crate::formats::fourcc::FourCc;
use crate::formats::reader::{Endian, Reader};

/// The id of LWO3's anonymous chunk: four spaces. It holds the fields LWO2 put before a form's sub-chunks.
pub const ANONYMOUS: FourCc = FourCc::new(b"    ");

/// How the body of an IFF file nests: LWOB/LWLO SURF chunks have one name, LWO2 ones two, and LWO3
/// wraps SURF, CLIP and ENVL in FORMs whose elements all have U4 lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IffDialect {
    Lwob,
    Lwo2,
    Lwo3,
}

impl IffDialect {
    pub fn of(form_type: FourCc) -> Self {
        match &form_type.0 {
            b"LWOB" | b"LWLO" => Self::Lwob,
            b"LWO3" => Self::Lwo3,
            _ => Self::Lwo2,
        }
    }
}

/// Walks a LightWave file (any IFF file: the form type picks the dialect).
pub fn read_iff_tree(bytes: &[u8]) -> Result<ChunkTree> {
    read_iff_tree_with(bytes, &grammar_of(bytes))
}

/// The chunks up to the first that cannot be read, and the error there.
pub fn read_iff_tree_partial(bytes: &[u8]) -> (ChunkTree, Option<crate::formats::ParseError>) {
    crate::formats::chunk::read_iff_tree_partial_with(bytes, &grammar_of(bytes))
}

fn grammar_of(bytes: &[u8]) -> LightWaveGrammar {
    let dialect = bytes.get(8..12).map_or(IffDialect::Lwo2, |t| IffDialect::of(FourCc([t[0], t[1], t[2], t[3]])));
    LightWaveGrammar { dialect }
}

struct LightWaveGrammar {
    dialect: IffDialect,
}

impl IffGrammar for LightWaveGrammar {
    fn nesting(
        &self,
        ancestors: &[FourCc],
        index: usize,
        node: &mut ChunkNode,
        mut data: Reader<'_>,
    ) -> Result<Option<Nesting>> {
        let start = data.offset();
        match self.dialect {
            IffDialect::Lwo3 => {
                if node.id != FORM {
                    // Named here, as it is read, rather than by a walk over its form's children when
                    // the form is described (twice a form: the walk was most of describing one).
                    // Below a nested form (the root's own anonymous chunk keeps its id).
                    if node.id == ANONYMOUS && ancestors.len() > 1 {
                        node.display = Some(Cow::Borrowed("(fields)"));
                    }
                    return Ok(None);
                }
                let form_type = data.fourcc()?;
                node.form_type = Some(form_type);
                legacy_lwo3_prefix(form_type, &mut data)?;
                Ok(Some(Nesting { prefix_len: data.offset() - start, children: LengthWidth::U4 }))
            }
            IffDialect::Lwob | IffDialect::Lwo2 if ancestors.len() == 1 => {
                match &node.id.0 {
                    b"SURF" => {
                        data.s0()?;
                        if self.dialect == IffDialect::Lwo2 {
                            data.s0()?;
                        }
                    }
                    b"CLIP" => data.skip(4)?,
                    b"ENVL" => {
                        data.vx()?;
                    }
                    _ => return Ok(None),
                }
                Ok(Some(Nesting { prefix_len: data.offset() - start, children: LengthWidth::U2 }))
            }
            IffDialect::Lwob | IffDialect::Lwo2 => {
                let parent_is_block = ancestors.last().is_some_and(|p| p.0 == *b"BLOK");
                let is_block_header =
                    parent_is_block && index == 0 && matches!(&node.id.0, b"IMAP" | b"PROC" | b"GRAD" | b"SHDR");
                if is_block_header {
                    data.s0()?;
                    Ok(Some(Nesting { prefix_len: data.offset() - start, children: LengthWidth::U2 }))
                } else if matches!(&node.id.0, b"BLOK" | b"TMAP") {
                    Ok(Some(Nesting { prefix_len: 0, children: LengthWidth::U2 }))
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// Every container below the root is a surface, clip, envelope or their parts: never geometry.
    fn optional(&self, ancestors: &[FourCc], _node: &ChunkNode) -> bool {
        !ancestors.is_empty()
    }

    fn describe(&self, ancestors: &[FourCc], tree: &mut ChunkTree, node: ChunkId, file: &[u8]) {
        if self.dialect != IffDialect::Lwo3 {
            return;
        }
        if ancestors.is_empty() {
            let root = tree.node_mut(node);
            root.display = Some(Cow::Owned(root.label()));
            return;
        }
        let Some(form_type) = tree.node(node).form_type.filter(|_| tree.node(node).id == FORM) else {
            return;
        };
        // A form is described after its first child and again after its last. A name, once found, is
        // the first child of its kind (`NAME`, `NNME`, the anonymous chunk) and stays; read again and
        // compared, the names of a node graph's inputs were a tenth of reading a LightWave 2018 object.
        if tree.node(node).display.as_deref().is_some_and(|shown| shown.ends_with('"')) {
            return;
        }
        let name = form_name(form_type, tree.chunk(node), file);
        let name = name.as_deref();
        let unchanged = |shown: &str| {
            shown.strip_prefix("FORM ").is_some_and(|rest| rest.len() == 4 && rest.as_bytes() == form_type.0)
        };
        if name.is_none() && tree.node(node).display.as_deref().is_some_and(unchanged) {
            return;
        }
        if let (None, Some(shown)) = (name, common_form_display(form_type)) {
            tree.node_mut(node).display = Some(Cow::Borrowed(shown));
            return;
        }
        // Made in one string: through `format!` (or the type's `to_string`) it was a formatted write
        // per piece into a string grown as it went.
        let mut display = String::with_capacity(9 + name.map_or(0, |n| n.len() + 3));
        display.push_str("FORM ");
        form_type.push_to(&mut display);
        if let Some(name) = name {
            display.push_str(" \"");
            display.push_str(name);
            display.push('"');
        }
        tree.node_mut(node).display = Some(Cow::Owned(display));
    }
}

/// Files written by readers' idea of LWO3 (the table in lwo-surfaces.md §7) put LWO2's leading fields
/// straight after the form type, where LightWave writes an anonymous chunk. A form that starts with no
/// plausible chunk id is read that way, so such files keep loading.
fn legacy_lwo3_prefix(form_type: FourCc, data: &mut Reader<'_>) -> Result<()> {
    let next = data.clone().array::<4>().ok().map(FourCc);
    if next.is_none_or(|id| id.is_printable()) {
        return Ok(());
    }
    match &form_type.0 {
        b"SURF" => {
            data.skip(8)?;
            data.s0()?;
            data.s0()?;
        }
        b"CLIP" => data.skip(4)?,
        b"ENVL" => {
            data.vx()?;
        }
        _ => {}
    }
    Ok(())
}

/// The display of an unnamed form of the types a node graph is made of, without a string of its own:
/// in LightWave 2018's objects, half of all forms are `FORM VALU`.
fn common_form_display(form_type: FourCc) -> Option<&'static str> {
    Some(match &form_type.0 {
        b"VALU" => "FORM VALU",
        b"NDTA" => "FORM NDTA",
        b"META" => "FORM META",
        b"ADAT" => "FORM ADAT",
        b"ATTR" => "FORM ATTR",
        b"SATR" => "FORM SATR",
        b"SSHD" => "FORM SSHD",
        b"SSHA" => "FORM SSHA",
        b"NROT" => "FORM NROT",
        b"NODS" => "FORM NODS",
        b"NNDS" => "FORM NNDS",
        b"NCON" => "FORM NCON",
        b"VPRM" => "FORM VPRM",
        b"VPVL" => "FORM VPVL",
        b"IIMG" => "FORM IIMG",
        b"IMST" => "FORM IMST",
        _ => return None,
    })
}

/// The values of an LWO3 anonymous chunk, decoded by the form it leads ([`anonymous_fields`]); empty
/// for any other chunk, and in files of other dialects.
pub fn decoded_fields(tree: &ChunkTree, id: ChunkId, file: &[u8]) -> Vec<Field> {
    let node = tree.node(id);
    let lwo3 = tree.roots().first().is_some_and(|&root| tree.node(root).form_type == Some(FourCc::new(b"LWO3")));
    let parent = tree.parent(id).map(|p| tree.node(p));
    match parent.and_then(|p| p.form_type.filter(|_| p.id == FORM)) {
        Some(form_type) if lwo3 && node.id == ANONYMOUS => anonymous_fields(form_type, node.data(file)),
        _ => Vec::new(),
    }
}

/// The name a form goes by in paths: a surface's name, a clip's index, a still's file, a node's
/// instance name, an input's name.
fn form_name<'f>(form_type: FourCc, node: ChunkRef<'_>, file: &'f [u8]) -> Option<Cow<'f, str>> {
    let field = |key: &str| {
        let fields = node.children().find(|c| c.id == ANONYMOUS)?;
        anonymous_fields(form_type, fields.data(file)).into_iter().find(|(k, _)| *k == key).map(|(_, v)| Cow::Owned(v))
    };
    // Borrowed from the file: the name is copied once, into the form's display.
    let string_child = |id: &[u8; 4]| {
        let child = node.children().find(|c| c.id.0 == *id)?;
        child.reader(file, Endian::Big).s0_text().ok()
    };
    match &form_type.0 {
        b"SURF" => field("name"),
        b"CLIP" | b"ENVL" => field("index"),
        b"STIL" => field("file"),
        b"NTAG" => string_child(b"NNME"),
        b"ENTR" => string_child(b"NAME"),
        _ => None,
    }
}

/// Decodes an anonymous chunk by the form it leads (lwo-surfaces.md §7a); bytes it cannot place are
/// shown in hex. Each value is made in one string (a list of numbers too): an LWO3 file has hundreds
/// of these chunks, and a string per number, joined, was most of the allocations of reading one.
pub fn anonymous_fields(form_type: FourCc, data: &[u8]) -> Vec<Field> {
    let mut r = Reader::big(data, 0);
    let mut out: Vec<Field> = Vec::new();
    let mut push = |k: &'static str, v: String| out.push((k, v));
    match &form_type.0 {
        b"SURF" => {
            if let Ok(name) = r.s0() {
                push("name", name);
            }
            if let Ok(source) = r.s0() {
                push("source", source);
            }
        }
        b"CLIP" | b"ENVL" => {
            let index = if r.remaining() >= 4 { r.u32().ok() } else { r.vx().ok() };
            if let Some(index) = index {
                push("index", index.to_string());
            }
        }
        b"STIL" => {
            if let Ok(file) = r.s0() {
                push("file", file);
            }
        }
        b"VALU" => match data.first() {
            // The inner VALU of a vparam: a count, then that many doubles.
            Some(0) => {
                if let Ok(count) = r.u32() {
                    push("count", count.to_string());
                    push("values", listed((0..count.min(16)).map_while(|_| r.f64().ok())));
                }
            }
            Some(_) => {
                if let Ok(kind) = r.s0() {
                    push("type", kind.clone());
                    match kind.as_str() {
                        "int" => {
                            if let Ok(v) = r.u32() {
                                push("value", (v as i32).to_string());
                            }
                        }
                        "double" => {
                            if let Ok(v) = r.f64() {
                                push("value", format!("{v}"));
                            }
                        }
                        _ => {}
                    }
                }
            }
            None => {}
        },
        b"VPRM" => {
            if let (Ok(count), Ok(envelope)) = (r.u32(), r.u32()) {
                push("count", count.to_string());
                push("envelope", envelope.to_string());
            }
        }
        b"VPVL" | b"IMST" => {
            push("values", listed(std::iter::from_fn(|| (r.remaining() >= 4).then(|| r.f32().unwrap_or_default()))));
        }
        _ => {}
    }
    if out.is_empty() && !data.is_empty() {
        let mut hex = String::with_capacity(3 * data.len().min(32));
        for (k, b) in data.iter().take(32).enumerate() {
            if k > 0 {
                hex.push(' ');
            }
            hex.push(char::from(HEX_DIGITS[usize::from(b >> 4)]));
            hex.push(char::from(HEX_DIGITS[usize::from(b & 0xF)]));
        }
        out.push(("bytes", hex));
    }
    out
}

const HEX_DIGITS: &[u8; 16] = b"0123456789ABCDEF";

/// Numbers as `Display` writes each, joined by ", ", in one string.
fn listed<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    for (k, value) in values.enumerate() {
        if k > 0 {
            text.push_str(", ");
        }
        let _ = write!(text, "{value}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(form_type: &[u8; 4], data: &[u8]) -> Vec<Field> {
        anonymous_fields(FourCc::new(form_type), data)
    }

    fn pairs(items: &[(&'static str, &str)]) -> Vec<Field> {
        items.iter().map(|&(k, v)| (k, v.to_owned())).collect()
    }

    #[test]
    fn anonymous_chunks_decode_by_the_form_they_lead() {
        assert_eq!(fields(b"SURF", b"Right\0Src\0"), pairs(&[("name", "Right"), ("source", "Src")]));
        assert_eq!(fields(b"CLIP", &[0, 0, 0, 7]), pairs(&[("index", "7")]));
        assert_eq!(fields(b"ENVL", &[0, 3]), pairs(&[("index", "3")]));
        assert_eq!(fields(b"STIL", b"Images/a.png\0\0"), pairs(&[("file", "Images/a.png")]));
        assert_eq!(fields(b"VALU", b"int\0\xFF\xFF\xFF\xFE"), pairs(&[("type", "int"), ("value", "-2")]));
        let mut double = b"double\0\0".to_vec();
        double.extend(0.25f64.to_be_bytes());
        assert_eq!(fields(b"VALU", &double), pairs(&[("type", "double"), ("value", "0.25")]));
        let mut inner = 2u32.to_be_bytes().to_vec();
        inner.extend(0.5f64.to_be_bytes());
        inner.extend(1.0f64.to_be_bytes());
        assert_eq!(fields(b"VALU", &inner), pairs(&[("count", "2"), ("values", "0.5, 1")]));
        let mut vpvl = [1.0f32, 2.0].iter().flat_map(|v| v.to_be_bytes()).collect::<Vec<u8>>();
        vpvl.extend([0, 0]);
        assert_eq!(fields(b"VPVL", &vpvl), pairs(&[("values", "1, 2")]));
        assert_eq!(fields(b"XYZW", &[1, 2]), pairs(&[("bytes", "01 02")]));
        // A VALU count far beyond the chunk shows what is there, never allocates by the count.
        assert_eq!(fields(b"VALU", &[0, 0xFF, 0xFF, 0xFF]), pairs(&[("count", "16777215"), ("values", "")]));
    }
}
