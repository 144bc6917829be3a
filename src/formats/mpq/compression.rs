//! Sector decompression. A compressed sector starts with a mask byte naming the methods applied; they are
//! undone in the fixed order bzip2, PKWARE DCL, zlib (the reverse of how StormLib applies them). A file
//! with the older implode flag has PKWARE DCL data with no mask byte.

use std::borrow::Cow;

const MASK_HUFFMAN: u8 = 0x01;
const MASK_ZLIB: u8 = 0x02;
const MASK_PKWARE: u8 = 0x08;
const MASK_BZIP2: u8 = 0x10;
const MASK_SPARSE: u8 = 0x20;
const MASK_ADPCM_MONO: u8 = 0x40;
const MASK_ADPCM_STEREO: u8 = 0x80;
/// LZMA takes the whole byte rather than a bit.
const MASK_LZMA: u8 = 0x12;

/// A decompression method of a sector's mask byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Bzip2,
    Pkware,
    Zlib,
}

/// Why a sector's data could not be decompressed.
#[derive(Debug, thiserror::Error)]
pub enum DecompressError {
    #[error("empty compressed sector")]
    EmptySector,
    #[error("LZMA compression (mask 0x12) is not supported")]
    Lzma,
    #[error(
        "compression mask 0x{mask:02X} has methods this reader does not support (Huffman, sparse, ADPCM or unknown bits 0x{unsupported:02X})"
    )]
    UnsupportedMethods { mask: u8, unsupported: u8 },
    #[error("{stored} stored bytes, expected {expected}")]
    ShortStored { stored: usize, expected: usize },
    #[error("zlib: {0}")]
    Zlib(&'static str),
    #[error("bzip2: {0}")]
    Bzip2(bzip2::Error),
    #[error("PKWARE DCL: {0:?}")]
    Pkware(explode::Error),
    #[error("{method:?} gave {produced} bytes, expected {expected}")]
    WrongLength { method: Method, produced: usize, expected: usize },
    /// An inner stage of a sector compressed by several methods failed.
    #[error("{error} (stage {stage} of {stages})")]
    Stage { stage: usize, stages: usize, error: Box<DecompressError> },
}

/// Appends exactly `expected` decompressed bytes of a sector that has a mask byte to `out`.
pub fn decompress_masked(data: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    let Some((&mask, payload)) = data.split_first() else { return Err(DecompressError::EmptySector) };
    if mask == MASK_LZMA {
        return Err(DecompressError::Lzma);
    }
    let unsupported = mask & (MASK_HUFFMAN | MASK_SPARSE | MASK_ADPCM_MONO | MASK_ADPCM_STEREO);
    let unknown = mask
        & !(MASK_HUFFMAN | MASK_ZLIB | MASK_PKWARE | MASK_BZIP2 | MASK_SPARSE | MASK_ADPCM_MONO | MASK_ADPCM_STEREO);
    if unsupported != 0 || unknown != 0 {
        return Err(DecompressError::UnsupportedMethods { mask, unsupported: unsupported | unknown });
    }
    let methods: Vec<Method> = [(MASK_BZIP2, Method::Bzip2), (MASK_PKWARE, Method::Pkware), (MASK_ZLIB, Method::Zlib)]
        .into_iter()
        .filter(|&(bit, _)| mask & bit != 0)
        .map(|(_, method)| method)
        .collect();
    if methods.is_empty() {
        // A mask of 0 marks data stored as is behind the byte.
        return append_exact(payload, expected, out);
    }
    let mut input: Cow<[u8]> = Cow::Borrowed(payload);
    for (index, &method) in methods.iter().enumerate() {
        if index + 1 == methods.len() {
            return run(method, &input, expected, true, out);
        }
        // An inner stage's output is the next method's stream: its length is unknown, but StormLib gives
        // every stage the sector's room, so it is bounded by the sector.
        let mut stage = Vec::new();
        run(method, &input, expected, false, &mut stage).map_err(|error| DecompressError::Stage {
            stage: index + 1,
            stages: methods.len(),
            error: Box::new(error),
        })?;
        input = Cow::Owned(stage);
    }
    unreachable!("the last method returns")
}

/// Appends exactly `expected` bytes of PKWARE DCL data (the implode flag's sectors) to `out`.
pub fn decompress_imploded(data: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    run(Method::Pkware, data, expected, true, out)
}

fn append_exact(data: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    if data.len() < expected {
        return Err(DecompressError::ShortStored { stored: data.len(), expected });
    }
    out.extend_from_slice(&data[..expected]);
    Ok(())
}

fn run(method: Method, input: &[u8], expected: usize, exact: bool, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    let start = out.len();
    match method {
        Method::Zlib => inflate(input, expected, out),
        Method::Bzip2 => bunzip(input, expected, out),
        Method::Pkware => explode_into(input, expected, out),
    }?;
    let produced = out.len() - start;
    if produced > expected || (exact && produced != expected) {
        out.truncate(start);
        return Err(DecompressError::WrongLength { method, produced, expected });
    }
    Ok(())
}

/// How a streaming decoder is driven: one call decodes from `input` into `output` and says whether
/// the stream has ended; the totals say how far it got.
trait StreamDecoder {
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<bool, DecompressError>;
    fn totals(&self) -> (usize, usize);
}

impl StreamDecoder for zlib_rs::Inflate {
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<bool, DecompressError> {
        let status = self
            .decompress(input, output, zlib_rs::InflateFlush::NoFlush)
            .map_err(|e| DecompressError::Zlib(e.as_str()))?;
        Ok(status == zlib_rs::Status::StreamEnd)
    }
    fn totals(&self) -> (usize, usize) {
        (self.total_in() as usize, self.total_out() as usize)
    }
}

impl StreamDecoder for bzip2::Decompress {
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<bool, DecompressError> {
        let status = self.decompress(input, output).map_err(DecompressError::Bzip2)?;
        Ok(status == bzip2::Status::StreamEnd)
    }
    fn totals(&self) -> (usize, usize) {
        (self.total_in() as usize, self.total_out() as usize)
    }
}

/// Decodes at most `expected` bytes onto `out`. The room given grows as the stream fills it, from a
/// multiple of the input, so that a damaged size field (a single unit claiming gigabytes) costs memory
/// only for what the stream really holds.
fn decode_stream(
    decoder: &mut impl StreamDecoder,
    input: &[u8],
    expected: usize,
    out: &mut Vec<u8>,
) -> Result<(), DecompressError> {
    let start = out.len();
    let mut room = expected.min(input.len().saturating_mul(8).max(1 << 16));
    out.resize(start + room, 0);
    loop {
        let (read, written) = decoder.totals();
        let ended = match decoder.step(&input[read.min(input.len())..], &mut out[start + written..start + room]) {
            Ok(ended) => ended,
            Err(e) => {
                out.truncate(start);
                return Err(e);
            }
        };
        let (now_read, now_written) = decoder.totals();
        if ended || now_written == expected {
            break;
        }
        if now_written == room {
            room = expected.min(room.saturating_mul(2));
            out.resize(start + room, 0);
        } else if (now_read, now_written) == (read, written) {
            break;
        }
    }
    out.truncate(start + decoder.totals().1);
    Ok(())
}

/// Appends at most `expected` bytes inflated from the zlib stream `input` to `out`.
pub(super) fn inflate(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    // One inflater per thread, reset for each sector: a new one per sector costs its state, zeroed,
    // a sixth of the time of a small sector. (zlib-rs inflates a third faster than miniz_oxide here.)
    thread_local! {
        static INFLATER: std::cell::RefCell<zlib_rs::Inflate> = std::cell::RefCell::new(zlib_rs::Inflate::new(true, 15));
    }
    INFLATER.with(|inflater| {
        let mut inflater = inflater.borrow_mut();
        inflater.reset(true);
        decode_stream(&mut *inflater, input, expected, out)
    })
}

fn bunzip(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    decode_stream(&mut bzip2::Decompress::new(false), input, expected, out)
}

fn explode_into(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    let mut decoder = explode::Explode::new();
    let mut window = [0u8; 16384];
    let mut buffer = decoder.with_buffer(&mut window);
    let start = out.len();
    let mut at = 0;
    // `feed` answers Ok when the output window is full (or the stream ended) without taking the byte,
    // which is fed again after the window is emptied.
    while let Some(&byte) = input.get(at) {
        match buffer.feed(byte) {
            Ok(()) => {
                out.extend_from_slice(buffer.get());
                if buffer.done() {
                    return Ok(());
                }
                buffer.reset();
            }
            Err(explode::Error::IncompleteInput) => at += 1,
            Err(error) => return Err(DecompressError::Pkware(error)),
        }
        if out.len() - start > expected {
            return Ok(());
        }
    }
    // A stream without its end code is accepted when it gave the whole sector; what the window holds
    // unflushed is its tail.
    out.extend_from_slice(buffer.get());
    Ok(())
}
