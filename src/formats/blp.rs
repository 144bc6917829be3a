//! BLP textures (BLP1 and BLP2: palettized, DXT1/3/5, JPEG) → RGBA8 pixels with their mip chain, through
//! `wow-blp`. The header is checked here first because `wow-blp` sizes its buffers by the header's width
//! and height: a 20-byte file claiming 65535×65535 DXT1 would otherwise ask for gigabytes.

/// Largest side accepted; WoW's own textures stop at 4096.
pub const MAX_SIDE: u32 = 8192;

/// Decoded pixels may outgrow the file by at most this factor (DXT1 is 8:1 before mips), plus
/// [`SMALL_IMAGE_BYTES`] so that tiny files with padded mips still decode.
const MAX_EXPANSION: u64 = 16;
const SMALL_IMAGE_BYTES: u64 = 1 << 20;

/// Why a BLP file was refused; each names the byte it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlpError {
    #[error("BLP file shorter than its 4-byte magic")]
    NoMagic,
    #[error("not a BLP file (magic {0:?})")]
    NotBlp(String),
    #[error("BLP0 keeps its mip levels in separate files, which this viewer does not read")]
    ExternalMips,
    #[error("BLP header cut short at byte {length} (it takes {header})")]
    HeaderCut { length: usize, header: usize },
    #[error("BLP size {width}×{height} at byte 12 is outside 1..={MAX_SIDE}")]
    SizeOutOfRange { width: u32, height: u32 },
    #[error("BLP size {width}×{height} at byte 12 needs {needed} bytes of pixels; a {file}-byte file cannot hold them")]
    TooLarge { width: u32, height: u32, needed: u64, file: usize },
    #[error(
        "BLP mip level {level} (offset at byte {field}) runs from byte {offset} for {size} bytes, past the end at {file}"
    )]
    LevelPastEnd { level: usize, field: usize, offset: u32, size: u32, file: usize },
    #[error("BLP JPEG header size missing at byte {0}")]
    NoJpegHeader(usize),
    #[error("BLP JPEG header of {size} bytes at byte {at} runs past the end at {file}")]
    JpegHeaderPastEnd { size: u32, at: usize, file: usize },
    #[error("BLP level 0 decoded as {decoded:?}, the header says {width}×{height}")]
    WrongSize { decoded: (u32, u32), width: u32, height: u32 },
    /// The decoder (`wow-blp`) refused the pixel data.
    #[error("BLP data: {0}")]
    Decoder(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlpTexture {
    pub width: u32,
    pub height: u32,
    /// RGBA8 rows, level 0 first; each following level halves the one before (down to 1×1).
    pub levels: Vec<Vec<u8>>,
    /// What was read past (an alpha type no client defines), each naming its header field.
    pub warnings: Vec<crate::formats::Warning>,
}

/// BLP2's alpha type field (header byte 10): 0, 1, 7 and 8 are the values clients write.
const ALPHA_TYPE_AT: usize = 10;
const KNOWN_ALPHA_TYPES: [u8; 4] = [0, 1, 7, 8];

/// The alpha type `wow-blp` must see to decode a BLP2 header as the client does. For DXT it picks the
/// format from the alpha type alone (0 DXT1, 1 DXT3, 7 DXT5, anything else an error), where the client
/// takes DXT1 for 0 or 1 alpha bits, else DXT5 for type 7 and DXT3 for any other; other encodings keep
/// a known type and read an unknown one as 0.
fn alpha_type_for_decoder(compression: u8, alpha_bits: u8, alpha_type: u8) -> u8 {
    match (compression, alpha_bits, alpha_type) {
        (2, 0 | 1, _) => 0,
        (2, _, 7) => 7,
        (2, _, _) => 1,
        (_, _, known) if KNOWN_ALPHA_TYPES.contains(&known) => known,
        _ => 0,
    }
}

/// The little-endian word at `at` of a header already known to be that long.
fn header_word(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Width and height as the header states them, after checking every offset and size `wow-blp` will
/// follow: it adds them in 32 bits and slices by them, so a hostile header must not reach it.
pub fn checked_dimensions(bytes: &[u8]) -> Result<(u32, u32), BlpError> {
    let magic = bytes.get(..4).ok_or(BlpError::NoMagic)?;
    let header_end = match magic {
        b"BLP1" => 156,
        b"BLP2" => 148,
        b"BLP0" => return Err(BlpError::ExternalMips),
        _ => return Err(BlpError::NotBlp(String::from_utf8_lossy(magic).into_owned())),
    };
    if bytes.len() < header_end {
        return Err(BlpError::HeaderCut { length: bytes.len(), header: header_end });
    }
    let word = |at: usize| header_word(bytes, at);
    let (width, height) = (word(12), word(16));
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(BlpError::SizeOutOfRange { width, height });
    }
    let decoded = u64::from(width) * u64::from(height) * 4;
    let allowed = (bytes.len() as u64 * MAX_EXPANSION).max(SMALL_IMAGE_BYTES);
    if decoded > allowed {
        return Err(BlpError::TooLarge { width, height, needed: decoded, file: bytes.len() });
    }
    let (has_mips, offsets_at) = if magic == b"BLP2" { (bytes[11] != 0, 20) } else { (word(24) != 0, 28) };
    let levels = if has_mips { width.max(height).ilog2() as usize + 1 } else { 1 };
    for level in 0..levels.min(16) {
        let (offset, size) = (word(offsets_at + 4 * level), word(offsets_at + 64 + 4 * level));
        if u64::from(offset) + u64::from(size) > bytes.len() as u64 {
            return Err(BlpError::LevelPastEnd {
                level,
                field: offsets_at + 4 * level,
                offset,
                size,
                file: bytes.len(),
            });
        }
    }
    // Any content tag but 1 (direct) is read as JPEG.
    let is_jpeg = word(4) != 1;
    if is_jpeg {
        let jpeg_header = bytes
            .get(header_end..header_end + 4)
            .map(|_| word(header_end))
            .ok_or(BlpError::NoJpegHeader(header_end))?;
        if u64::from(jpeg_header) + 6 > (bytes.len() - header_end) as u64 {
            return Err(BlpError::JpegHeaderPastEnd { size: jpeg_header, at: header_end, file: bytes.len() });
        }
    }
    Ok((width, height))
}

/// How a BLP file stores its pixels, as a browser shows it: `BLP2, DXT5, 8-bit alpha`.
pub fn describe_encoding(bytes: &[u8]) -> Result<String, BlpError> {
    checked_dimensions(bytes)?;
    let byte = |at: usize| bytes[at];
    let word = |at: usize| header_word(bytes, at);
    let jpeg = word(4) != 1;
    let text = if &bytes[..4] == b"BLP2" {
        let (compression, alpha_bits) = (byte(8), byte(9));
        let encoding = match (jpeg, compression, alpha_type_for_decoder(compression, alpha_bits, byte(10))) {
            (true, _, _) => "JPEG".to_owned(),
            (false, 1, _) => "palettized".to_owned(),
            (false, 2, 0) => "DXT1".to_owned(),
            (false, 2, 7) => "DXT5".to_owned(),
            (false, 2, _) => "DXT3".to_owned(),
            (false, 3, _) => "uncompressed BGRA".to_owned(),
            (false, other, _) => format!("compression {other}"),
        };
        format!("BLP2, {encoding}, {alpha_bits}-bit alpha")
    } else {
        format!("BLP1, {}, {}-bit alpha", if jpeg { "JPEG" } else { "palettized" }, word(8))
    };
    Ok(text)
}

/// Decodes level 0 and the file's mip levels for as long as each halves the one before (the chain a GPU
/// texture takes); a level that breaks the chain ends it.
pub fn decode(bytes: &[u8]) -> Result<BlpTexture, BlpError> {
    let (width, height) = checked_dimensions(bytes)?;
    // `wow-blp` reads the alpha type differently from the client (see `alpha_type_for_decoder`): it
    // gets a copy of the header with the type that decodes as the client would.
    let mut warnings = Vec::new();
    let patched;
    let alpha_type = bytes[ALPHA_TYPE_AT];
    let wanted = alpha_type_for_decoder(bytes[8], bytes[9], alpha_type);
    let bytes = if &bytes[..4] == b"BLP2" && wanted != alpha_type {
        if !KNOWN_ALPHA_TYPES.contains(&alpha_type) {
            warnings.push(crate::formats::Warning::new(
                "header",
                ALPHA_TYPE_AT,
                format!("alpha type {alpha_type} is none a client writes (0, 1, 7, 8); read as {wanted}"),
            ));
        }
        let mut copy = bytes.to_vec();
        copy[ALPHA_TYPE_AT] = wanted;
        patched = copy;
        &patched[..]
    } else {
        bytes
    };
    let blp = wow_blp::parser::load_blp_from_buf(bytes).map_err(|e| BlpError::Decoder(e.to_string()))?;
    let top = wow_blp::convert::blp_to_image(&blp, 0).map_err(|e| BlpError::Decoder(e.to_string()))?.to_rgba8();
    if top.dimensions() != (width, height) {
        return Err(BlpError::WrongSize { decoded: top.dimensions(), width, height });
    }
    let mut levels = vec![top.into_raw()];
    let (mut w, mut h) = (width, height);
    for level in 1..blp.image_count() {
        if w == 1 && h == 1 {
            break;
        }
        let (next_w, next_h) = ((w / 2).max(1), (h / 2).max(1));
        let Ok(mip) = wow_blp::convert::blp_to_image(&blp, level) else { break };
        let mip = mip.to_rgba8();
        if mip.dimensions() != (next_w, next_h) {
            break;
        }
        levels.push(mip.into_raw());
        (w, h) = (next_w, next_h);
    }
    Ok(BlpTexture { width, height, levels, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_claiming_more_pixels_than_the_file_can_hold_is_refused_before_decoding() {
        let mut bytes = b"BLP2".to_vec();
        bytes.extend_from_slice(&[1, 0, 0, 0, 2, 0, 7, 0]);
        bytes.extend_from_slice(&8192u32.to_le_bytes());
        bytes.extend_from_slice(&8192u32.to_le_bytes());
        bytes.resize(1172, 0);
        let error = decode(&bytes).unwrap_err().to_string();
        assert!(error.contains("8192×8192") && error.contains("1172-byte"), "{error}");
        assert!(decode(b"BLP2").unwrap_err().to_string().contains("cut short"));
        let mut past_end = bytes.clone();
        past_end[12..16].copy_from_slice(&4u32.to_le_bytes());
        past_end[16..20].copy_from_slice(&4u32.to_le_bytes());
        past_end[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        past_end[84..88].copy_from_slice(&2u32.to_le_bytes());
        assert!(
            decode(&past_end).unwrap_err().to_string().contains("mip level 0"),
            "{}",
            decode(&past_end).unwrap_err()
        );
        assert!(decode(b"PNG?....").unwrap_err().to_string().contains("not a BLP"));
        let mut huge = bytes.clone();
        huge[12..16].copy_from_slice(&65535u32.to_le_bytes());
        assert!(decode(&huge).unwrap_err().to_string().contains("outside"));
    }
}
