//! The chunk layer shared by both formats: a walk of the file into a tree of `{id, offset, length,
//! children}` nodes. Lengths are checked against their parent here, once, so every parser that builds on
//! the tree can slice chunk data without re-checking, and the inspector can show a file even when a
//! later parse step rejects it.

use std::collections::HashMap;
use std::ops::Range;

use super::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use super::fourcc::FourCc;
use super::reader::Reader;

/// Chunk nesting deeper than this is refused, so a hostile file cannot exhaust the stack.
pub const MAX_DEPTH: usize = 32;

pub const FORM: FourCc = FourCc::new(b"FORM");

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChunkNode {
    pub id: FourCc,
    /// The type of an IFF `FORM` (`LWO2`, or `SURF` for an LWO3 nested form).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub form_type: Option<FourCc>,
    /// Offset of the id in the file.
    pub offset: usize,
    /// Bytes of id plus length field: 8 for chunks, 6 for LightWave sub-chunks.
    #[serde(skip)]
    pub header_len: usize,
    /// The stored data length (an odd IFF length is followed by a pad byte not counted here).
    pub length: usize,
    /// Data bytes before the first child: a form type, SURF names, the MOGP header.
    #[serde(skip)]
    pub prefix_len: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<ChunkNode>,
}

impl ChunkNode {
    fn leaf(id: FourCc, offset: usize, header_len: usize, length: usize) -> Self {
        Self { id, form_type: None, offset, header_len, length, prefix_len: 0, children: Vec::new() }
    }

    pub fn data_offset(&self) -> usize {
        self.offset + self.header_len
    }

    pub fn data_range(&self) -> Range<usize> {
        self.data_offset()..self.data_offset() + self.length
    }

    /// The chunk's data. The tree was checked against the file it came from, so this is only empty
    /// when called with another file.
    pub fn data<'a>(&self, file: &'a [u8]) -> &'a [u8] {
        file.get(self.data_range()).unwrap_or(&[])
    }

    /// The data after the prefix (the part the children live in), as a reader.
    pub fn body<'a>(&self, file: &'a [u8], endian: super::reader::Endian) -> Reader<'a> {
        let data = self.data(file);
        let start = self.prefix_len.min(data.len());
        Reader::new(&data[start..], self.data_offset() + start, endian)
    }

    /// A reader over the whole data, prefix included.
    pub fn reader<'a>(&self, file: &'a [u8], endian: super::reader::Endian) -> Reader<'a> {
        Reader::new(self.data(file), self.data_offset(), endian)
    }

    /// Shown name: `FORM LWO2` for forms, the id otherwise.
    pub fn label(&self) -> String {
        match self.form_type {
            Some(t) => format!("{} {}", self.id, t),
            None => self.id.to_string(),
        }
    }

    /// Depth-first visit with each node's path.
    pub fn visit<'s>(&'s self, path: &str, f: &mut impl FnMut(&str, &'s ChunkNode)) {
        f(path, self);
        let mut counts = HashMap::new();
        for child in &self.children {
            let child_path = child_path(path, child.id, &mut counts);
            child.visit(&child_path, f);
        }
    }

    pub fn count_nodes(&self) -> usize {
        1 + self.children.iter().map(ChunkNode::count_nodes).sum::<usize>()
    }
}

/// A walked file: its top-level chunks and anything odd found on the way.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ChunkTree {
    pub roots: Vec<ChunkNode>,
    #[serde(skip)]
    pub warnings: Vec<Warning>,
}

impl ChunkTree {
    /// Top-level chunks with their paths (`MOHD`, `MOMT`, or `FORM` for IFF).
    pub fn paths(&self) -> Vec<(String, &ChunkNode)> {
        let mut out = Vec::new();
        let mut counts = HashMap::new();
        for root in &self.roots {
            out.push((child_path("", root.id, &mut counts), root));
        }
        out
    }
}

/// `parent/ID`, with `[n]` from the second sibling of the same id on, so paths stay short for the
/// common single chunk and stay unique for repeated ones.
pub fn child_path(parent: &str, id: FourCc, counts: &mut HashMap<FourCc, usize>) -> String {
    let n = counts.entry(id).or_insert(0);
    let index = *n;
    *n += 1;
    let sep = if parent.is_empty() { "" } else { "/" };
    if index == 0 { format!("{parent}{sep}{id}") } else { format!("{parent}{sep}{id}[{index}]") }
}

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

/// Walks an IFF file (`FORM` + U4 length + type, then chunks).
pub fn read_iff_tree(bytes: &[u8]) -> Result<ChunkTree> {
    let mut r = Reader::big(bytes, 0);
    let id = r.fourcc()?;
    if id != FORM {
        return Err(ParseError::new(0, ErrorKind::BadMagic { expected: "an IFF FORM", found: id.to_string() }));
    }
    let length = r.u32().within("FORM")? as usize;
    if length < 4 {
        return Err(ParseError::invalid(4, format!("FORM length {length} leaves no room for the form type")).within("FORM"));
    }
    if length > r.remaining() {
        return Err(ParseError::new(4, ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() })
            .within("FORM"));
    }
    let form_type = r.fourcc()?;
    let mut body = r.sub(length - 4)?;
    let mut warnings = Vec::new();
    let children = read_iff_chunks(&mut body, IffDialect::of(form_type), "FORM", 1, &mut warnings)?;
    let trailing = r.remaining();
    if trailing > 1 {
        warnings.push(Warning::new("", 8 + length, format!("{trailing} bytes after the end of the FORM are ignored")));
    }
    let root = ChunkNode { id, form_type: Some(form_type), offset: 0, header_len: 8, length, prefix_len: 4, children };
    Ok(ChunkTree { roots: vec![root], warnings })
}

fn check_depth(depth: usize, offset: usize, path: &str) -> Result<()> {
    if depth > MAX_DEPTH { Err(ParseError::new(offset, ErrorKind::TooDeep(MAX_DEPTH)).within(path)) } else { Ok(()) }
}

/// Reads one chunk header and returns its data reader, skipping the pad byte of odd lengths.
fn read_header<'a>(r: &mut Reader<'a>, long_length: bool, parent_path: &str) -> Result<(FourCc, usize, Reader<'a>)> {
    let header_len = if long_length { 8 } else { 6 };
    if r.remaining() < header_len {
        return Err(r.truncated(header_len).within(parent_path));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = if long_length { r.u32()? as usize } else { usize::from(r.u16()?) };
    if length > r.remaining() {
        let err = ParseError::new(length_offset, ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() });
        return Err(err.within(&format!("{parent_path}/{id}")));
    }
    let data = r.sub(length)?;
    if length % 2 == 1 && !r.is_empty() {
        r.skip(1)?;
    }
    Ok((id, length, data))
}

fn read_iff_chunks(
    r: &mut Reader<'_>,
    dialect: IffDialect,
    parent_path: &str,
    depth: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<ChunkNode>> {
    let mut out = Vec::new();
    let mut counts = HashMap::new();
    while !r.is_empty() {
        if r.remaining() < 8 && r.clone().rest().iter().all(|&b| b == 0) {
            warnings.push(Warning::new(parent_path, r.offset(), format!("{} zero bytes of padding at the end", r.remaining())));
            r.rest();
            break;
        }
        let offset = r.offset();
        let (id, length, mut data) = read_header(r, true, parent_path)?;
        let path = child_path(parent_path, id, &mut counts);
        check_depth(depth, offset, &path)?;
        let mut node = ChunkNode::leaf(id, offset, 8, length);
        match (dialect, &id.0) {
            (IffDialect::Lwo3, b"FORM") => {
                let form_type = data.fourcc().within(&path)?;
                node.form_type = Some(form_type);
                let prefix = lwo3_form_prefix(form_type, &mut data).within(&path)?;
                node.prefix_len = 4 + prefix;
                node.children = read_iff_chunks(&mut data, dialect, &path, depth + 1, warnings)?;
            }
            (IffDialect::Lwob | IffDialect::Lwo2, b"SURF" | b"CLIP" | b"ENVL") => {
                let start = data.offset();
                match &id.0 {
                    b"SURF" => {
                        data.s0().within(&path)?;
                        if dialect == IffDialect::Lwo2 {
                            data.s0().within(&path)?;
                        }
                    }
                    b"CLIP" => data.skip(4).within(&path)?,
                    _ => {
                        data.vx().within(&path)?;
                    }
                }
                node.prefix_len = data.offset() - start;
                node.children = read_sub_chunks(&mut data, &path, depth + 1)?;
            }
            _ => {}
        }
        out.push(node);
    }
    Ok(out)
}

/// Bytes between an LWO3 nested form's type and its first element.
fn lwo3_form_prefix(form_type: FourCc, data: &mut Reader<'_>) -> Result<usize> {
    let start = data.offset();
    match &form_type.0 {
        // Eight undocumented bytes, then name and source (the readers that handle LWO3 agree on this).
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
    Ok(data.offset() - start)
}

/// LightWave sub-chunks (U2 lengths) inside SURF, CLIP and ENVL; BLOK, its header and TMAP nest further.
fn read_sub_chunks(r: &mut Reader<'_>, parent_path: &str, depth: usize) -> Result<Vec<ChunkNode>> {
    let mut out = Vec::new();
    let mut counts = HashMap::new();
    let parent_is_blok = parent_path.rsplit('/').next().is_some_and(|last| last.starts_with("BLOK"));
    while !r.is_empty() {
        if r.remaining() < 6 && r.clone().rest().iter().all(|&b| b == 0) {
            r.rest();
            break;
        }
        let offset = r.offset();
        let (id, length, mut data) = read_header(r, false, parent_path)?;
        let path = child_path(parent_path, id, &mut counts);
        check_depth(depth, offset, &path)?;
        let mut node = ChunkNode::leaf(id, offset, 6, length);
        let is_block_header = parent_is_blok && out.is_empty() && matches!(&id.0, b"IMAP" | b"PROC" | b"GRAD" | b"SHDR");
        if is_block_header {
            let start = data.offset();
            data.s0().within(&path)?;
            node.prefix_len = data.offset() - start;
            node.children = read_sub_chunks(&mut data, &path, depth + 1)?;
        } else if matches!(&id.0, b"BLOK" | b"TMAP") {
            node.children = read_sub_chunks(&mut data, &path, depth + 1)?;
        }
        out.push(node);
    }
    Ok(out)
}

/// WMO ids whose data is a fixed header followed by sub-chunks.
fn wmo_container_prefix(id: FourCc) -> Option<usize> {
    (id == FourCc::new(b"MOGP")).then_some(crate::formats::wmo::group::MOGP_HEADER_SIZE)
}

/// Walks a WMO file: little-endian chunks with reversed ids, MOGP holding the group's sub-chunks.
pub fn read_wmo_tree(bytes: &[u8]) -> Result<ChunkTree> {
    let mut r = Reader::little(bytes, 0);
    let roots = read_wmo_chunks(&mut r, "", 1)?;
    Ok(ChunkTree { roots, warnings: Vec::new() })
}

fn read_wmo_chunks(r: &mut Reader<'_>, parent_path: &str, depth: usize) -> Result<Vec<ChunkNode>> {
    let mut out = Vec::new();
    let mut counts = HashMap::new();
    while !r.is_empty() {
        let offset = r.offset();
        let (id, length, mut data) = read_wmo_header(r, parent_path)?;
        let path = child_path(parent_path, id, &mut counts);
        check_depth(depth, offset, &path)?;
        let mut node = ChunkNode::leaf(id, offset, 8, length);
        if let Some(prefix) = wmo_container_prefix(id) {
            data.skip(prefix).within(&path)?;
            node.prefix_len = prefix;
            node.children = read_wmo_chunks(&mut data, &path, depth + 1)?;
        }
        out.push(node);
    }
    Ok(out)
}

fn read_wmo_header<'a>(r: &mut Reader<'a>, parent_path: &str) -> Result<(FourCc, usize, Reader<'a>)> {
    if r.remaining() < 8 {
        return Err(r.truncated(8).within(if parent_path.is_empty() { "(chunk header)" } else { parent_path }));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = r.u32()? as usize;
    if length > r.remaining() {
        let sep = if parent_path.is_empty() { "" } else { "/" };
        let err = ParseError::new(length_offset, ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() });
        return Err(err.within(&format!("{parent_path}{sep}{id}")));
    }
    let data = r.sub(length)?;
    Ok((id, length, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::lwo::{chunk, form};

    #[test]
    fn odd_lengths_skip_the_pad_byte() {
        let mut body = chunk(b"DESC", b"abc");
        body.extend(chunk(b"TEXT", b"xy"));
        let tree = read_iff_tree(&form(b"LWO2", &body)).unwrap();
        let kids = &tree.roots[0].children;
        assert_eq!(kids.len(), 2);
        assert_eq!((kids[0].offset, kids[0].length), (12, 3));
        assert_eq!((kids[1].id, kids[1].offset), (FourCc::new(b"TEXT"), 24));
    }

    #[test]
    fn oversized_chunk_names_path_and_offset() {
        let mut body = chunk(b"PNTS", &[0; 12]);
        body.extend_from_slice(b"POLS\x00\x00\x10\x00");
        let err = read_iff_tree(&form(b"LWO2", &body)).unwrap_err();
        assert_eq!(err.path, "FORM/POLS");
        assert_eq!(err.offset, 12 + 20 + 4);
        assert!(matches!(err.kind, ErrorKind::LengthPastParent { length: 0x1000, .. }));
    }

    #[test]
    fn lwo2_surf_sub_chunks_nest() {
        let mut surf = b"Skin\0\0\0\0".to_vec();
        surf.extend_from_slice(b"COLR\x00\x0E");
        surf.extend_from_slice(&[0; 14]);
        let mut imap = b"\x80\0".to_vec();
        imap.extend_from_slice(b"CHAN\x00\x04COLR");
        let mut blok = b"IMAP".to_vec();
        blok.extend_from_slice(&(imap.len() as u16).to_be_bytes());
        blok.extend_from_slice(&imap);
        blok.extend_from_slice(b"TMAP\x00\x06SIZE\x00\x00");
        surf.extend_from_slice(b"BLOK");
        surf.extend_from_slice(&(blok.len() as u16).to_be_bytes());
        surf.extend_from_slice(&blok);
        let tree = read_iff_tree(&form(b"LWO2", &chunk(b"SURF", &surf))).unwrap();
        let surf = &tree.roots[0].children[0];
        assert_eq!(surf.prefix_len, 8);
        let ids: Vec<String> = surf.children.iter().map(|c| c.id.to_string()).collect();
        assert_eq!(ids, ["COLR", "BLOK"]);
        let blok = &surf.children[1];
        assert_eq!(blok.children[0].id, FourCc::new(b"IMAP"));
        assert_eq!(blok.children[0].children[0].id, FourCc::new(b"CHAN"));
        assert_eq!(blok.children[1].children[0].id, FourCc::new(b"SIZE"));
    }

    #[test]
    fn not_an_iff_file() {
        let err = read_iff_tree(b"RIFF\0\0\0\0WAVE").unwrap_err();
        assert!(matches!(err.kind, ErrorKind::BadMagic { .. }));
    }

    #[test]
    fn every_prefix_of_a_file_is_an_error_not_a_panic() {
        let mut body = chunk(b"PNTS", &[0; 24]);
        body.extend(chunk(b"SURF", b"A\0\0\0COLR\x00\x02ab"));
        let file = form(b"LWO2", &body);
        for n in 0..file.len() {
            assert!(read_iff_tree(&file[..n]).is_err(), "prefix {n}");
        }
        assert!(read_iff_tree(&file).is_ok());
    }
}
