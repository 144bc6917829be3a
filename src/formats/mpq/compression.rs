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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Bzip2,
    Pkware,
    Zlib,
}

/// Appends exactly `expected` decompressed bytes of a sector that has a mask byte to `out`.
pub fn decompress_masked(data: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), String> {
    let Some((&mask, payload)) = data.split_first() else { return Err("empty compressed sector".into()) };
    if mask == MASK_LZMA {
        return Err("LZMA compression (mask 0x12) is not supported".into());
    }
    let unsupported = mask & (MASK_HUFFMAN | MASK_SPARSE | MASK_ADPCM_MONO | MASK_ADPCM_STEREO);
    let unknown = mask & !(MASK_HUFFMAN | MASK_ZLIB | MASK_PKWARE | MASK_BZIP2 | MASK_SPARSE | MASK_ADPCM_MONO | MASK_ADPCM_STEREO);
    if unsupported != 0 || unknown != 0 {
        return Err(format!("compression mask 0x{mask:02X} has methods this reader does not support (Huffman, sparse, ADPCM or unknown bits 0x{:02X})", unsupported | unknown));
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
        run(method, &input, expected, false, &mut stage).map_err(|e| format!("{e} (stage {} of {})", index + 1, methods.len()))?;
        input = Cow::Owned(stage);
    }
    unreachable!("the last method returns")
}

/// Appends exactly `expected` bytes of PKWARE DCL data (the implode flag's sectors) to `out`.
pub fn decompress_imploded(data: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), String> {
    run(Method::Pkware, data, expected, true, out)
}

fn append_exact(data: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), String> {
    if data.len() < expected {
        return Err(format!("{} stored bytes, expected {expected}", data.len()));
    }
    out.extend_from_slice(&data[..expected]);
    Ok(())
}

fn run(method: Method, input: &[u8], expected: usize, exact: bool, out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    match method {
        Method::Zlib => inflate(input, expected, out),
        Method::Bzip2 => bunzip(input, expected, out),
        Method::Pkware => explode_into(input, expected, out),
    }?;
    let produced = out.len() - start;
    if produced > expected || (exact && produced != expected) {
        out.truncate(start);
        return Err(format!("{method:?} gave {produced} bytes, expected {expected}"));
    }
    Ok(())
}

/// Decodes into the sector's own span of `out`, so a stream can never write past what the sector holds.
fn inflate(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    out.resize(start + expected, 0);
    let mut inflater = flate2::Decompress::new(true);
    loop {
        let (read, written) = (inflater.total_in() as usize, inflater.total_out() as usize);
        let status = inflater
            .decompress(&input[read..], &mut out[start + written..], flate2::FlushDecompress::Finish)
            .map_err(|e| format!("zlib: {e}"));
        let status = match status {
            Ok(status) => status,
            Err(e) => {
                out.truncate(start);
                return Err(e);
            }
        };
        let progressed = (inflater.total_in() as usize, inflater.total_out() as usize) != (read, written);
        if status == flate2::Status::StreamEnd || inflater.total_out() as usize == expected || !progressed {
            break;
        }
    }
    out.truncate(start + inflater.total_out() as usize);
    Ok(())
}

fn bunzip(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), String> {
    let start = out.len();
    out.resize(start + expected, 0);
    let mut decoder = bzip2::Decompress::new(false);
    loop {
        let (read, written) = (decoder.total_in() as usize, decoder.total_out() as usize);
        let status = match decoder.decompress(&input[read..], &mut out[start + written..]) {
            Ok(status) => status,
            Err(e) => {
                out.truncate(start);
                return Err(format!("bzip2: {e}"));
            }
        };
        let progressed = (decoder.total_in() as usize, decoder.total_out() as usize) != (read, written);
        if status == bzip2::Status::StreamEnd || decoder.total_out() as usize == expected || !progressed {
            break;
        }
    }
    out.truncate(start + decoder.total_out() as usize);
    Ok(())
}

fn explode_into(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), String> {
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
            Err(error) => return Err(format!("PKWARE DCL: {error:?}")),
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
