//! A bounds-checked cursor over a byte slice. It never indexes and never panics: every read returns a
//! `Result` whose error carries the absolute file offset.

use std::borrow::Cow;

use super::error::{ErrorKind, ParseError, Result};
use super::fourcc::FourCc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    /// IFF / LightWave.
    Big,
    /// WMO.
    Little,
}

#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`, so errors point into the file, not into a sub-slice.
    base: usize,
    endian: Endian,
}

/// The big-endian VX index at `at` in `bytes` and the bytes it takes, read as one word: the index in
/// either form with one bounds check and no branch on its width. `None` when fewer than four bytes are
/// left from `at` (a VX of two bytes there is left to [`Reader::vx`]'s byte-at-a-time reading).
#[inline(always)]
pub(crate) fn vx_at(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let Some(&[a, b, c, d]) = bytes.get(at..at.checked_add(4)?) else { return None };
    let word = u32::from_be_bytes([a, b, c, d]);
    Some(if a == 0xFF { (word & 0x00FF_FFFF, 4) } else { (word >> 16, 2) })
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], base: usize, endian: Endian) -> Self {
        Self { data, pos: 0, base, endian }
    }

    pub fn big(data: &'a [u8], base: usize) -> Self {
        Self::new(data, base, Endian::Big)
    }

    pub fn little(data: &'a [u8], base: usize) -> Self {
        Self::new(data, base, Endian::Little)
    }

    /// Absolute file offset of the next byte.
    #[inline]
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    // Building an error is the rare path: kept out of the inlined readers.
    #[cold]
    pub fn truncated(&self, needed: usize) -> ParseError {
        ParseError::new(self.offset(), ErrorKind::Truncated { needed, available: self.remaining() })
    }

    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.pos.checked_add(n).and_then(|end| self.data.get(self.pos..end)) {
            Some(slice) => {
                self.pos += n;
                Ok(slice)
            }
            None => Err(self.truncated(n)),
        }
    }

    /// The next N bytes as an array: one length test, where slicing and copying tested it three times
    /// (every number read goes through here).
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.data.get(self.pos..).and_then(|rest| rest.first_chunk::<N>()) {
            Some(&out) => {
                self.pos += N;
                Ok(out)
            }
            None => Err(self.truncated(N)),
        }
    }

    #[inline]
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// Everything not yet read, without reading it (see [`Self::skip`]).
    pub fn peek_rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// Everything not yet read.
    pub fn rest(&mut self) -> &'a [u8] {
        let slice = &self.data[self.pos..];
        self.pos = self.data.len();
        slice
    }

    /// A reader over the next `n` bytes, advancing past them.
    pub fn sub(&mut self, n: usize) -> Result<Reader<'a>> {
        let base = self.offset();
        let data = self.bytes(n)?;
        Ok(Reader::new(data, base, self.endian))
    }

    /// A reader over the next `n` bytes (all that are left, if fewer), advancing past them: for a length
    /// already checked. No `Result` to pass the reader through, which the chunk walker's headers, one a
    /// chunk, paid for (see `read_header` there).
    #[inline(always)]
    pub fn split_front(&mut self, n: usize) -> Reader<'a> {
        let n = n.min(self.remaining());
        let base = self.offset();
        let data = self.data.get(self.pos..self.pos + n).unwrap_or(&[]);
        self.pos += n;
        Reader::new(data, base, self.endian)
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    #[inline]
    pub fn i8(&mut self) -> Result<i8> {
        Ok(self.u8()? as i8)
    }

    #[inline]
    pub fn u16(&mut self) -> Result<u16> {
        let b = self.array::<2>()?;
        Ok(match self.endian {
            Endian::Big => u16::from_be_bytes(b),
            Endian::Little => u16::from_le_bytes(b),
        })
    }

    #[inline]
    pub fn i16(&mut self) -> Result<i16> {
        Ok(self.u16()? as i16)
    }

    #[inline]
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.array::<4>()?;
        Ok(match self.endian {
            Endian::Big => u32::from_be_bytes(b),
            Endian::Little => u32::from_le_bytes(b),
        })
    }

    #[inline]
    pub fn i32(&mut self) -> Result<i32> {
        Ok(self.u32()? as i32)
    }

    #[inline]
    pub fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_bits(self.u32()?))
    }

    pub fn f64(&mut self) -> Result<f64> {
        let b = self.array::<8>()?;
        Ok(match self.endian {
            Endian::Big => f64::from_be_bytes(b),
            Endian::Little => f64::from_le_bytes(b),
        })
    }

    #[inline]
    pub fn vec2(&mut self) -> Result<[f32; 2]> {
        Ok([self.f32()?, self.f32()?])
    }

    #[inline]
    pub fn vec3(&mut self) -> Result<[f32; 3]> {
        Ok([self.f32()?, self.f32()?, self.f32()?])
    }

    #[inline]
    pub fn vec4(&mut self) -> Result<[f32; 4]> {
        Ok([self.f32()?, self.f32()?, self.f32()?, self.f32()?])
    }

    /// A chunk id in reading order: as stored for IFF, reversed for little-endian WMO.
    #[inline]
    pub fn fourcc(&mut self) -> Result<FourCc> {
        let b = self.array::<4>()?;
        Ok(match self.endian {
            Endian::Big => FourCc(b),
            Endian::Little => FourCc::from_reversed(b),
        })
    }

    /// LightWave's variable-length index: a U2 below 0xFF00, else a U4 whose top byte is 0xFF.
    /// Read straight from the bytes and always inlined: it is read once per polygon corner, and as a
    /// call it cost more than the read (a tenth of building a vertex-coloured object).
    #[inline(always)]
    pub fn vx(&mut self) -> Result<u32> {
        // With four bytes left (all but a chunk's last index), one big-endian word holds the index in
        // either form: one bounds check and no branch on the width.
        if let (Endian::Big, Some((value, width))) = (self.endian, vx_at(self.data, self.pos)) {
            self.pos += width;
            return Ok(value);
        }
        self.vx_byte_by_byte()
    }

    /// [`Self::vx`] a byte at a time: for the last three bytes of the data, and for little-endian readers.
    #[inline]
    fn vx_byte_by_byte(&mut self) -> Result<u32> {
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        let (value, width) = match *rest {
            [0xFF, a, b, c, ..] => (u32::from_be_bytes([0, a, b, c]), 4),
            [0xFF, ..] => return Err(self.truncated(4)),
            [a, b, ..] => (u32::from(u16::from_be_bytes([a, b])), 2),
            _ => return Err(self.truncated(2)),
        };
        self.pos += width;
        // LightWave is big-endian; a little-endian reader swaps as its u16 and u32 would.
        Ok(match (self.endian, width) {
            (Endian::Big, _) => value,
            (Endian::Little, 2) => u32::from((value as u16).swap_bytes()),
            (Endian::Little, _) => (0xFF00_0000 | value).swap_bytes() & 0x00FF_FFFF,
        })
    }

    /// LightWave's S0: zero-terminated, padded to an even length. A string that runs to the end of its
    /// chunk without a terminator is accepted, since several exporters write one.
    pub fn s0(&mut self) -> Result<String> {
        self.s0_text().map(Cow::into_owned)
    }

    /// [`Self::s0`], borrowed from the file where it is UTF-8 (as LightWave's own strings are): for a
    /// string only compared or copied (an LWO3 node graph's value types and names, hundreds a file).
    pub fn s0_text(&mut self) -> Result<Cow<'a, str>> {
        let start = self.pos;
        let rest = &self.data[start..];
        let (text, consumed) = match rest.iter().position(|&b| b == 0) {
            Some(end) => (&rest[..end], end + 1),
            None if rest.is_empty() => return Err(self.truncated(1)),
            None => (rest, rest.len()),
        };
        let padded = (consumed + 1) & !1;
        self.pos += padded.min(rest.len());
        Ok(text_of(text))
    }
}

/// File names and surface names are ASCII in practice, Latin-1 in old European files.
pub fn decode_text(bytes: &[u8]) -> String {
    text_of(bytes).into_owned()
}

/// [`decode_text`], borrowing the bytes where they are UTF-8.
pub fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    }
}

/// How many `entry`-byte records a chunk of `size` bytes holds, refusing a remainder.
pub fn entry_count(size: usize, entry: usize, offset: usize) -> Result<usize> {
    if entry == 0 || !size.is_multiple_of(entry) {
        return Err(ParseError::new(offset, ErrorKind::BadEntrySize { size, entry }));
    }
    Ok(size / entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vx_reads_short_and_long_forms() {
        let data = [0x12, 0x34, 0xFF, 0x01, 0x02, 0x03];
        let mut r = Reader::big(&data, 0);
        assert_eq!(r.vx().unwrap(), 0x1234);
        assert_eq!(r.vx().unwrap(), 0x010203);
        assert!(r.is_empty());
    }

    #[test]
    fn vx_by_word_agrees_with_vx_a_byte_at_a_time_everywhere() {
        // Every start in a run of short, long and cut-off indices: same value, same next offset, same error.
        let data = [0x00, 0x05, 0xFF, 0x00, 0x00, 0x07, 0xFE, 0xFF, 0xFF, 0x12, 0x34, 0x56, 0xFF, 0x01];
        for start in 0..=data.len() {
            for end in start..=data.len() {
                let (mut by_word, mut by_byte) = (Reader::big(&data[..end], 40), Reader::big(&data[..end], 40));
                by_word.skip(start).unwrap();
                by_byte.skip(start).unwrap();
                loop {
                    let (a, b) = (by_word.vx(), by_byte.vx_byte_by_byte());
                    assert_eq!(a, b, "from {start} to {end}");
                    assert_eq!(by_word.offset(), by_byte.offset());
                    if a.is_err() || by_word.is_empty() {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn split_front_gives_the_next_bytes_at_their_offset_and_no_more_than_there_are() {
        let data = [1, 2, 3, 4, 5];
        let mut r = Reader::little(&data, 100);
        r.skip(1).unwrap();
        let mut front = r.split_front(2);
        assert_eq!((front.offset(), front.remaining(), front.endian()), (101, 2, Endian::Little));
        assert_eq!(front.rest(), &[2, 3]);
        assert_eq!(r.offset(), 103);
        // A length past the end is cut to what is left, never a panic.
        let mut rest = r.split_front(usize::MAX);
        assert_eq!((rest.offset(), rest.rest()), (103, &[4u8, 5][..]));
        assert!(r.is_empty() && r.split_front(1).is_empty());
    }

    #[test]
    fn s0_text_borrows_utf8_and_decodes_latin1_as_s0_does() {
        let data = b"ab\0\0caf\xe9\0";
        let mut r = Reader::big(data, 0);
        assert!(matches!(r.s0_text().unwrap(), Cow::Borrowed("ab")));
        assert_eq!(r.offset(), 4);
        assert_eq!(r.clone().s0().unwrap(), "café");
        assert!(matches!(r.s0_text().unwrap(), Cow::Owned(text) if text == "café"));
        assert!(r.s0_text().is_err(), "nothing left");
    }

    #[test]
    fn s0_consumes_the_pad_byte() {
        let data = b"Square\0\0Tri\0X";
        let mut r = Reader::big(data, 0);
        assert_eq!(r.s0().unwrap(), "Square");
        assert_eq!(r.offset(), 8);
        assert_eq!(r.s0().unwrap(), "Tri");
        assert_eq!(r.offset(), 12);
    }

    #[test]
    fn truncation_reports_absolute_offset() {
        let data = [1, 2, 3];
        let mut r = Reader::little(&data, 100);
        r.u16().unwrap();
        let err = r.u32().unwrap_err();
        assert_eq!(err.offset, 102);
        assert_eq!(err.kind, ErrorKind::Truncated { needed: 4, available: 1 });
    }

    #[test]
    fn wmo_ids_read_in_order() {
        let mut r = Reader::little(b"REVM", 0);
        assert_eq!(r.fourcc().unwrap(), FourCc::new(b"MVER"));
    }
}
