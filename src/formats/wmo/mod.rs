//! World of Warcraft world map objects, version 17: a root file and one file per group.
//! Bytes → [`WmoRoot`] / [`WmoGroup`]; no engine types.

pub mod chunks;
pub(crate) mod fields;
pub mod group;
pub mod model;
mod root;

pub use model::*;

use crate::formats::chunk::{ChunkNode, ChunkTree};
use crate::formats::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use crate::formats::fourcc::FourCc;
use crate::formats::reader::{Endian, Reader};
use chunks::read_wmo_tree;

#[derive(Clone, Debug, PartialEq)]
pub enum WmoFile {
    Root(WmoRoot),
    Group(WmoGroup),
}

/// Whether a file is a root or a group, from its chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WmoFileKind {
    Root,
    Group,
}

pub fn file_kind(tree: &ChunkTree) -> Option<WmoFileKind> {
    tree.root_chunks().find_map(|n| match &n.id.0 {
        b"MOGP" => Some(WmoFileKind::Group),
        b"MOHD" => Some(WmoFileKind::Root),
        _ => None,
    })
}

pub fn parse(bytes: &[u8]) -> Result<(ChunkTree, WmoFile)> {
    let tree = read_wmo_tree(bytes)?;
    let file = match file_kind(&tree) {
        Some(WmoFileKind::Group) => WmoFile::Group(group::parse_group(bytes, &tree)?),
        Some(WmoFileKind::Root) => WmoFile::Root(root::parse_root(bytes, &tree)?),
        None => {
            check_version(bytes, &tree)?;
            return Err(ParseError::invalid(0, "neither MOHD (root file) nor MOGP (group file) is present"));
        }
    };
    Ok((tree, file))
}

pub fn parse_root(bytes: &[u8]) -> Result<(ChunkTree, WmoRoot)> {
    let tree = read_wmo_tree(bytes)?;
    let root = root::parse_root(bytes, &tree)?;
    Ok((tree, root))
}

pub fn parse_group(bytes: &[u8]) -> Result<(ChunkTree, WmoGroup)> {
    let tree = read_wmo_tree(bytes)?;
    let group = group::parse_group(bytes, &tree)?;
    Ok((tree, group))
}

/// Reads MVER, which must come first, and refuses every version but 17.
pub(crate) fn check_version(bytes: &[u8], tree: &ChunkTree) -> Result<u32> {
    let first =
        tree.root_chunks().next().ok_or_else(|| ParseError::new(0, ErrorKind::MissingChunk(FourCc::new(b"MVER"))))?;
    if first.id.0 != *b"MVER" {
        return Err(ParseError::new(
            first.offset,
            ErrorKind::BadMagic { expected: "MVER as the first chunk", found: first.id.to_string() },
        ));
    }
    let version = first.reader(bytes, Endian::Little).u32().within("MVER")?;
    if version != SUPPORTED_VERSION {
        return Err(ParseError::new(
            first.data_offset(),
            ErrorKind::UnsupportedVersion { what: "WMO", version, supported: "17" },
        )
        .within("MVER"));
    }
    Ok(version)
}

/// The reader over a chunk of `entry`-byte entries and how many whole entries it holds. Real files
/// carry chunks that end in padding or in part of an entry: the whole entries are read and the rest is
/// skipped with one warning naming the chunk and the offset of the skipped bytes. The count comes from
/// the chunk's checked size, so allocations stay bounded by the file.
fn whole_entries<'a>(
    bytes: &'a [u8],
    node: &ChunkNode,
    path: &str,
    entry: usize,
    warnings: &mut Vec<Warning>,
) -> (Reader<'a>, usize) {
    let r = node.body(bytes, Endian::Little);
    let size = r.remaining();
    let count = size / entry.max(1);
    let rest = size - count * entry;
    if rest > 0 {
        warnings.push(Warning::new(
            path,
            r.offset() + count * entry,
            format!("{size} bytes are not a whole number of {entry}-byte entries: {count} read, the last {rest} bytes skipped"),
        ));
    }
    (r, count)
}

/// Reads a chunk of fixed-size entries (see [`whole_entries`] for a chunk that does not divide).
pub(crate) fn read_entries<'a, T>(
    bytes: &'a [u8],
    node: &ChunkNode,
    path: &str,
    entry: usize,
    warnings: &mut Vec<Warning>,
    mut read: impl FnMut(&mut Reader<'a>) -> Result<T>,
) -> Result<Vec<T>> {
    let (mut r, count) = whole_entries(bytes, node, path, entry, warnings);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let mut entry_reader = r.sub(entry).within(path)?;
        out.push(read(&mut entry_reader).within(path)?);
    }
    Ok(out)
}

/// Entries of `N` bytes whose decoding cannot fail (the bulk of a group: positions, normals, UVs,
/// indices, colours), decoded straight from the chunk's bytes after one size check.
pub(crate) fn decode_entries<T, const N: usize>(
    bytes: &[u8],
    node: &ChunkNode,
    path: &str,
    warnings: &mut Vec<Warning>,
    decode: impl Fn([u8; N]) -> T,
) -> Result<Vec<T>> {
    let (mut r, count) = whole_entries(bytes, node, path, N, warnings);
    let body = r.bytes(count * N).within(path)?;
    Ok(body
        .chunks_exact(N)
        .map(|chunk| {
            let mut entry = [0u8; N];
            entry.copy_from_slice(chunk);
            decode(entry)
        })
        .collect())
}

fn le_f32(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(crate) fn read_vec3s(
    bytes: &[u8],
    node: &ChunkNode,
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<[f32; 3]>> {
    decode_entries(bytes, node, path, warnings, |e: [u8; 12]| [le_f32(&e, 0), le_f32(&e, 4), le_f32(&e, 8)])
}

pub(crate) fn read_vec2s(
    bytes: &[u8],
    node: &ChunkNode,
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<[f32; 2]>> {
    decode_entries(bytes, node, path, warnings, |e: [u8; 8]| [le_f32(&e, 0), le_f32(&e, 4)])
}

pub(crate) fn read_u16s(bytes: &[u8], node: &ChunkNode, path: &str, warnings: &mut Vec<Warning>) -> Result<Vec<u16>> {
    decode_entries(bytes, node, path, warnings, u16::from_le_bytes)
}

pub(crate) fn read_bgras(bytes: &[u8], node: &ChunkNode, path: &str, warnings: &mut Vec<Warning>) -> Result<Vec<Bgra>> {
    decode_entries(bytes, node, path, warnings, Bgra)
}

/// A fixed-size header chunk as far as it goes: a short one is read with the missing fields at 0 and a
/// long one without its extra bytes, each with one warning.
pub(crate) fn fixed_header(
    bytes: &[u8],
    node: &ChunkNode,
    path: &str,
    size: usize,
    warnings: &mut Vec<Warning>,
) -> Vec<u8> {
    let data = node.data(bytes);
    if data.len() != size {
        let (what, rest) = if data.len() < size {
            ("short", "the missing fields read as 0")
        } else {
            ("long", "the extra bytes are skipped")
        };
        warnings.push(Warning::new(
            path,
            node.data_offset() + data.len().min(size),
            format!("{} bytes where {size} are expected ({what}): {rest}", data.len()),
        ));
    }
    let mut header = data[..data.len().min(size)].to_vec();
    header.resize(size, 0);
    header
}

pub(crate) fn read_bgra(r: &mut Reader<'_>) -> Result<Bgra> {
    Ok(Bgra(r.array::<4>()?))
}

pub(crate) fn read_box(r: &mut Reader<'_>) -> Result<[[f32; 3]; 2]> {
    Ok([r.vec3()?, r.vec3()?])
}

/// The file name of a root's group `index`: `Name_000.wmo` for `Name.wmo` (the case as the root's).
pub fn group_file_name(root_file_name: &str, index: usize) -> String {
    let stem = root_file_name.rsplit_once('.').map_or(root_file_name, |(stem, _)| stem);
    format!("{stem}_{index:03}.wmo")
}

/// For a group file `Name_NNN.wmo`: the root's file name and the group index.
pub fn root_of_group_file(group_file_name: &str) -> Option<(String, usize)> {
    let name = group_file_name.rsplit(['/', '\\']).next()?;
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let (base, digits) = stem.rsplit_once('_')?;
    if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((format!("{base}.wmo"), digits.parse().ok()?))
}
