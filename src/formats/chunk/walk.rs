//! The walkers: the IFF walk driven by a format's [`IffGrammar`], and the little-endian chunk walk
//! (WMO), each checking every length against its parent once and keeping what it read when it breaks.
//! Their own file, as they are the only code that builds a tree.

use super::tree::{ChunkId, ChunkNode, ChunkTree};
use super::{FORM, MAX_DEPTH};
use crate::formats::error::{ErrorKind, ParseError, Result, Warning, WithinChunk};
use crate::formats::fourcc::FourCc;
use crate::formats::reader::Reader;

/// The width of the length field of the chunks inside a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthWidth {
    /// LightWave's sub-chunks (LWO2 SURF, CLIP, ENVL and the blocks inside them).
    U2,
    /// IFF chunks.
    U4,
}

impl LengthWidth {
    fn header_len(self) -> usize {
        match self {
            Self::U2 => 6,
            Self::U4 => 8,
        }
    }
}

/// How a container's data nests: the bytes before its first child, and its children's headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nesting {
    pub prefix_len: usize,
    pub children: LengthWidth,
}

/// One IFF-based format's nesting rules. The walker here reads headers, checks every length against its
/// parent and skips pad bytes; the grammar says which chunks hold others and names what it can.
pub trait IffGrammar {
    /// Whether `node` holds children, and how. `ancestors` are the kinds ([`ChunkNode::kind`]) from the
    /// file's root down to the parent, `index` the node's place among its siblings, `data` its data (a
    /// FORM's starts with its type: the grammar sets `node.form_type`). The grammar may also name the
    /// node here (`display`), from what the node is alone.
    fn nesting(
        &self,
        ancestors: &[FourCc],
        index: usize,
        node: &mut ChunkNode,
        data: Reader<'_>,
    ) -> Result<Option<Nesting>>;

    /// Called when a container's first child has been read and again when all have: name the node
    /// (`display`), from its children where need be. The default names nothing.
    fn describe(&self, _ancestors: &[FourCc], _tree: &mut ChunkTree, _node: ChunkId, _file: &[u8]) {}

    /// Whether a container that cannot be read to its end may be kept with what was read, and a
    /// warning, instead of refusing the file. The default refuses.
    fn optional(&self, _ancestors: &[FourCc], _node: &ChunkNode) -> bool {
        false
    }
}

/// Walks an IFF file (`FORM` + U4 length + type, then chunks) with a format's grammar.
pub fn read_iff_tree_with(bytes: &[u8], grammar: &dyn IffGrammar) -> Result<ChunkTree> {
    match read_iff_tree_partial_with(bytes, grammar) {
        (tree, None) => Ok(tree),
        (_, Some(error)) => Err(error),
    }
}

/// As [`read_iff_tree_with`], but a walk that breaks keeps every chunk read up to the break (the
/// broken chunk included, with what it held), so the inspector can show a file its parser rejects.
pub fn read_iff_tree_partial_with(bytes: &[u8], grammar: &dyn IffGrammar) -> (ChunkTree, Option<ParseError>) {
    match read_iff_root(bytes, grammar) {
        Ok(walked) => walked,
        Err(error) => (ChunkTree::default(), Some(error)),
    }
}

fn read_iff_root(bytes: &[u8], grammar: &dyn IffGrammar) -> Result<(ChunkTree, Option<ParseError>)> {
    let mut r = Reader::big(bytes, 0);
    let id = r.fourcc()?;
    if id != FORM {
        return Err(ParseError::new(0, ErrorKind::BadMagic { expected: "an IFF FORM", found: id.to_string() }));
    }
    let length = r.u32().within("FORM")? as usize;
    if length < 4 {
        return Err(
            ParseError::invalid(4, format!("FORM length {length} leaves no room for the form type")).within("FORM")
        );
    }
    if length > r.remaining() {
        return Err(ParseError::new(
            4,
            ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() },
        )
        .within("FORM"));
    }
    let form_type = r.fourcc()?;
    let mut body = r.sub(length - 4)?;
    let mut walk =
        IffWalk { grammar, file: bytes, tree: ChunkTree::for_file_of(bytes.len()), ancestors: vec![form_type] };
    let root = walk
        .tree
        .push(None, ChunkNode { form_type: Some(form_type), prefix_len: 4, ..ChunkNode::leaf(id, 0, 8, length) });
    grammar.describe(&[], &mut walk.tree, root, bytes);
    let read = walk.read_children(&mut body, root, LengthWidth::U4, 1);
    let mut tree = walk.tree;
    if let Err(error) = read {
        return Ok((tree, Some(error)));
    }
    let trailing = r.remaining();
    if trailing > 1 {
        tree.warnings.push(Warning::new(
            "",
            8 + length,
            format!("{trailing} bytes after the end of the FORM are ignored"),
        ));
    }
    Ok((tree, None))
}

/// A chunk whose header was read but whose length runs past its parent, cut to the bytes there are:
/// kept in a broken walk so the inspector shows the chunk where reading stopped.
fn clipped_node(at: &Reader<'_>, header_len: usize) -> Option<ChunkNode> {
    let mut r = at.clone();
    if r.remaining() < header_len {
        return None;
    }
    let offset = r.offset();
    let id = r.fourcc().ok()?;
    r.skip(header_len - 4).ok()?;
    Some(ChunkNode::leaf(id, offset, header_len, r.remaining()))
}

fn check_depth(depth: usize, offset: usize) -> Result<()> {
    if depth > MAX_DEPTH { Err(ParseError::new(offset, ErrorKind::TooDeep(MAX_DEPTH))) } else { Ok(()) }
}

/// Reads one chunk header: its id and its length, checked against the bytes left after it; `r` is
/// left at the data (the caller takes it and an odd length's pad byte: [`skip_data`]). An error has
/// no path yet: the walker names the chunk (or its parent, for a header cut short). The data's reader
/// is not returned in the `Result`: moved through it, on the stack, the reader was read back in wider
/// pieces than its fields had been written, and each such read waited for the writes to reach the
/// cache (no store forwards to a load that spans several stores), a third of the walker's own time on
/// an LWO3 file of two thousand chunks.
#[inline(always)]
fn read_header(r: &mut Reader<'_>, width: LengthWidth) -> Result<(FourCc, usize)> {
    let header_len = width.header_len();
    if r.remaining() < header_len {
        return Err(r.truncated(header_len));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = match width {
        LengthWidth::U4 => r.u32()? as usize,
        LengthWidth::U2 => usize::from(r.u16()?),
    };
    if length > r.remaining() {
        return Err(ParseError::new(
            length_offset,
            ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() },
        ));
    }
    Ok((id, length))
}

/// The data of the chunk whose header [`read_header`] just read (`length` bytes, checked there), with
/// `r` moved past it and past the pad byte of an odd length.
#[inline(always)]
fn skip_data<'a>(r: &mut Reader<'a>, length: usize) -> Reader<'a> {
    let data = r.split_front(length);
    if length % 2 == 1 && !r.is_empty() {
        r.split_front(1);
    }
    data
}

struct IffWalk<'g, 'f> {
    grammar: &'g dyn IffGrammar,
    file: &'f [u8],
    /// The tree being read, its warnings included.
    tree: ChunkTree,
    /// Kinds of the containers above the chunks being read, the root's form type first.
    ancestors: Vec<FourCc>,
}

impl IffWalk<'_, '_> {
    /// Reads `r` to its end as `parent`'s children. Every chunk whose header was read is in the tree
    /// before its data is, so a break keeps it with what it held up to there. Paths are made from the
    /// tree only for an error or a warning (a file's thousands of chunks would otherwise each format
    /// one), so they name a container as the grammar has named it by then.
    fn read_children(&mut self, r: &mut Reader<'_>, parent: ChunkId, width: LengthWidth, depth: usize) -> Result<()> {
        let header_len = width.header_len();
        while !r.is_empty() {
            if r.remaining() < header_len && r.clone().rest().iter().all(|&b| b == 0) {
                if width == LengthWidth::U4 {
                    self.tree.warnings.push(Warning::new(
                        self.tree.path(parent),
                        r.offset(),
                        format!("{} zero bytes of padding at the end", r.remaining()),
                    ));
                }
                r.rest();
                break;
            }
            let offset = r.offset();
            let before = r.clone();
            let (id, length) = match read_header(r, width) {
                Ok(header) => header,
                Err(error) => {
                    // A header that was read names its chunk, kept as far as it goes; one cut short
                    // names the parent.
                    let at = match clipped_node(&before, header_len) {
                        Some(clipped) => self.tree.push(Some(parent), clipped),
                        None => parent,
                    };
                    return Err(error.within(&self.tree.path(at)));
                }
            };
            let mut data = skip_data(r, length);
            let place = self.tree.node(parent).child_count as usize;
            let node = self.tree.push(Some(parent), ChunkNode::leaf(id, offset, header_len, length));
            // Too deep is never kept as a warning: the walk must end.
            check_depth(depth, offset).map_err(|error| error.within(&self.tree.path(node)))?;
            // Plain matches, not a chain of closures over `Result`s: the chain moved the body's reader
            // through temporaries in pieces narrower than it was read back, and each such read waited
            // for the writes to reach the cache (no store forwards to a load it only partly covers).
            let nesting = self.grammar.nesting(&self.ancestors, place, self.tree.node_mut(node), data.clone());
            let body = nesting.and_then(|nesting| match nesting {
                Some(Nesting { prefix_len, children }) => data.skip(prefix_len).map(|()| Some((prefix_len, children))),
                None => Ok(None),
            });
            let read = match body {
                Err(error) => Err(error.within(&self.tree.path(node))),
                Ok(None) => Ok(()),
                Ok(Some((prefix_len, width))) => {
                    let container = self.tree.node_mut(node);
                    container.prefix_len = prefix_len;
                    self.ancestors.push(container.kind());
                    let read = self.read_children(&mut data, node, width, depth + 1);
                    self.ancestors.pop();
                    read
                }
            };
            if let Err(error) = read {
                if !self.grammar.optional(&self.ancestors, self.tree.node(node)) {
                    return Err(error);
                }
                let message = format!("{}; the chunk is kept as far as it could be read", error.kind);
                self.tree.warnings.push(Warning::new(error.path, error.offset, message));
            }
            if place == 0 {
                self.describe(parent);
            }
        }
        self.describe(parent);
        Ok(())
    }

    fn describe(&mut self, node: ChunkId) {
        let ancestors = &self.ancestors[..self.ancestors.len().saturating_sub(1)];
        self.grammar.describe(ancestors, &mut self.tree, node, self.file);
    }
}

/// Walks a file of little-endian chunks (id, u32 length, data), as WMO is, to its end or to the first
/// chunk that cannot be read: the chunks read so far are kept either way. `container` tells, for a
/// chunk id, how many header bytes precede its sub-chunks when it holds any (the format's grammar).
pub fn read_le_chunks_partial(
    bytes: &[u8],
    container: &dyn Fn(FourCc) -> Option<usize>,
) -> (ChunkTree, Option<ParseError>) {
    let mut r = Reader::little(bytes, 0);
    let mut tree = ChunkTree::default();
    let error = read_le_chunks(&mut r, None, 1, container, &mut tree).err();
    (tree, error)
}

/// Walks a file of flat little-endian chunks whose ids are stored in reading order (M2's `MD21`,
/// `SFID`, …), not reversed as WMO stores its own.
pub fn read_in_order_chunks_partial(bytes: &[u8]) -> (ChunkTree, Option<ParseError>) {
    let (mut tree, error) = read_le_chunks_partial(bytes, &|_| None);
    let ids: Vec<ChunkId> = tree.ids().collect();
    for &id in &ids {
        let node = tree.node_mut(id);
        node.id = FourCc::from_reversed(node.id.0);
    }
    // The error named the chunk it stopped in (the last one kept, cut to the file) by its reversed id.
    let error = error.map(|mut error| {
        if let Some(&last) = ids.last().filter(|_| !error.path.starts_with('(')) {
            error.path = tree.path(last);
        }
        error
    });
    (tree, error)
}

/// As [`IffWalk::read_children`], paths are made from the tree only for an error.
fn read_le_chunks(
    r: &mut Reader<'_>,
    parent: Option<ChunkId>,
    depth: usize,
    container: &dyn Fn(FourCc) -> Option<usize>,
    tree: &mut ChunkTree,
) -> Result<()> {
    while !r.is_empty() {
        let offset = r.offset();
        let before = r.clone();
        let (id, length, mut data) = match read_le_header(r) {
            Ok(header) => header,
            Err(error) => {
                let at = match clipped_node(&before, 8) {
                    Some(clipped) => Some(tree.push(parent, clipped)),
                    None => parent,
                };
                let path = at.map_or_else(|| "(chunk header)".to_owned(), |at| tree.path(at));
                return Err(error.within(&path));
            }
        };
        let node = tree.push(parent, ChunkNode::leaf(id, offset, 8, length));
        let nested = check_depth(depth, offset).and_then(|()| match container(id) {
            Some(prefix) => data.skip(prefix).map(|()| Some(prefix)),
            None => Ok(None),
        });
        let Some(prefix) = nested.map_err(|error| error.within(&tree.path(node)))? else { continue };
        tree.node_mut(node).prefix_len = prefix;
        read_le_chunks(&mut data, Some(node), depth + 1, container, tree)?;
    }
    Ok(())
}

fn read_le_header<'a>(r: &mut Reader<'a>) -> Result<(FourCc, usize, Reader<'a>)> {
    if r.remaining() < 8 {
        return Err(r.truncated(8));
    }
    let id = r.fourcc()?;
    let length_offset = r.offset();
    let length = r.u32()? as usize;
    if length > r.remaining() {
        return Err(ParseError::new(
            length_offset,
            ErrorKind::LengthPastParent { length: length as u64, available: r.remaining() },
        ));
    }
    let data = r.sub(length)?;
    Ok((id, length, data))
}
