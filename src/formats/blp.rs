//! BLP textures (BLP1 and BLP2: palettized with 0/1/4/8-bit alpha, DXT1/3/5, uncompressed BGRA, JPEG)
//! → RGBA8 pixels with their mip chain. DXT blocks decode through `texpresso`, JPEG through `image`;
//! the rest is read here. The header is checked first: a 20-byte file claiming 65535×65535 DXT1 must
//! not size a buffer.

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
    /// The pixel data does not decode.
    #[error("BLP data at byte {at}: {message}")]
    Decoder { at: usize, message: String },
}

/// A BLP refused as any file is: at the byte the error is about.
impl From<BlpError> for crate::formats::ParseError {
    fn from(error: BlpError) -> Self {
        Self::invalid(error.offset(), error.to_string())
    }
}

impl BlpError {
    /// The byte of the file the error is about.
    pub fn offset(&self) -> usize {
        match self {
            Self::NoMagic | Self::NotBlp(_) | Self::ExternalMips => 0,
            Self::HeaderCut { length, .. } => *length,
            Self::SizeOutOfRange { .. } | Self::TooLarge { .. } => 12,
            Self::LevelPastEnd { field, .. } => *field,
            Self::NoJpegHeader(at) | Self::JpegHeaderPastEnd { at, .. } => *at,
            Self::WrongSize { .. } => 0,
            Self::Decoder { at, .. } => *at,
        }
    }
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

/// The alpha type a BLP2 header means, as the client reads it: for DXT, DXT1 (0) for 0 or 1 alpha bits,
/// else DXT5 (7) for type 7 and DXT3 (1) for any other; other encodings keep a known type and read an
/// unknown one as 0.
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

/// Width and height as the header states them, after checking every offset and size the decoder will
/// follow, so that a hostile header never slices past the file or sizes a buffer.
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

/// What a BLP header says about its texture: what `--info` reports and the panel shows.
/// Serialized as `--info --json` and the control hook give it: the values without the warnings (the
/// format, BLP1 or BLP2, is the document's).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BlpInfo {
    /// 1 for BLP1, 2 for BLP2.
    #[serde(skip)]
    pub version: u8,
    pub width: u32,
    pub height: u32,
    /// `JPEG`, `palettized`, `DXT1`, `DXT3`, `DXT5` or `uncompressed BGRA`.
    pub encoding: String,
    pub alpha_bits: u8,
    /// The levels the file holds, level 0 included, as far as each halves the one before.
    pub mip_levels: usize,
    /// What was read past (an alpha type no client defines), each naming its header field.
    #[serde(skip)]
    pub warnings: Vec<crate::formats::Warning>,
}

impl BlpInfo {
    /// `BLP1` or `BLP2`.
    pub fn format_name(&self) -> &'static str {
        if self.version == 1 { "BLP1" } else { "BLP2" }
    }

    /// How the file stores its pixels, for people: `BLP2, DXT5, 8-bit alpha`.
    pub fn describe(&self) -> String {
        format!("{}, {}, {}-bit alpha", self.format_name(), self.encoding, self.alpha_bits)
    }
}

/// Reads and checks a BLP header (every level's offset and size within the file) without decoding.
pub fn read_info(bytes: &[u8]) -> Result<BlpInfo, BlpError> {
    let (width, height) = checked_dimensions(bytes)?;
    let mut warnings = Vec::new();
    let encoding = Encoding::of(bytes, &mut warnings)?;
    let chain = if encoding.has_mips { (width.max(height).ilog2() as usize + 1).min(16) } else { 1 };
    let mip_levels =
        1 + (1..chain).take_while(|&level| header_word(bytes, encoding.offsets_at + 64 + 4 * level) > 0).count();
    let version = if &bytes[..4] == b"BLP1" { 1 } else { 2 };
    Ok(BlpInfo {
        version,
        width,
        height,
        encoding: encoding.kind.name().to_owned(),
        alpha_bits: encoding.alpha_bits,
        mip_levels,
        warnings,
    })
}

/// Decodes level 0 and the file's mip levels for as long as each halves the one before (the chain a GPU
/// texture takes); a level that breaks the chain, or whose data is short, ends it.
pub fn decode(bytes: &[u8]) -> Result<BlpTexture, BlpError> {
    let (width, height) = checked_dimensions(bytes)?;
    let mut warnings = Vec::new();
    let encoding = Encoding::of(bytes, &mut warnings)?;
    let levels_in_file = if encoding.has_mips { 16 } else { 1 };
    let mut levels = Vec::new();
    let (mut w, mut h) = (width, height);
    for level in 0..levels_in_file {
        let (offset, size) = (
            header_word(bytes, encoding.offsets_at + 4 * level),
            header_word(bytes, encoding.offsets_at + 64 + 4 * level),
        );
        // `checked_dimensions` has checked every level a mip chain of this size can have.
        let data = bytes.get(offset as usize..offset as usize + size as usize).unwrap_or(&[]);
        match encoding.decode_level(bytes, data, w, h) {
            Ok(pixels) => levels.push(pixels),
            // The level's data is where its decoding failed.
            Err(BlpError::Decoder { message, .. }) if level == 0 => {
                return Err(BlpError::Decoder { at: offset as usize, message });
            }
            Err(e) if level == 0 => return Err(e),
            Err(_) => break,
        }
        if w == 1 && h == 1 {
            break;
        }
        (w, h) = ((w / 2).max(1), (h / 2).max(1));
    }
    Ok(BlpTexture { width, height, levels, warnings })
}

/// How a file's levels are stored, read from its header.
struct Encoding {
    kind: Kind,
    alpha_bits: u8,
    has_mips: bool,
    /// Where the 16 level offsets start (the 16 sizes follow).
    offsets_at: usize,
    /// The palette or the shared JPEG header: where it starts.
    shared_at: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Jpeg,
    Palette,
    Dxt(texpresso::Format),
    Bgra,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Self::Jpeg => "JPEG",
            Self::Palette => "palettized",
            Self::Dxt(texpresso::Format::Bc1) => "DXT1",
            Self::Dxt(texpresso::Format::Bc2) => "DXT3",
            Self::Dxt(_) => "DXT5",
            Self::Bgra => "uncompressed BGRA",
        }
    }
}

impl Encoding {
    fn of(bytes: &[u8], warnings: &mut Vec<crate::formats::Warning>) -> Result<Self, BlpError> {
        let jpeg = header_word(bytes, 4) != 1;
        if &bytes[..4] == b"BLP1" {
            let kind = if jpeg { Kind::Jpeg } else { Kind::Palette };
            let alpha_bits = header_word(bytes, 8).min(8) as u8;
            return Ok(Self {
                kind,
                alpha_bits,
                has_mips: header_word(bytes, 24) != 0,
                offsets_at: 28,
                shared_at: 156,
            });
        }
        let (compression, alpha_bits, alpha_type) = (bytes[8], bytes[9], bytes[ALPHA_TYPE_AT]);
        let known = alpha_type_for_decoder(compression, alpha_bits, alpha_type);
        if !KNOWN_ALPHA_TYPES.contains(&alpha_type) {
            warnings.push(crate::formats::Warning::new(
                "header",
                ALPHA_TYPE_AT,
                format!("alpha type {alpha_type} is none a client writes (0, 1, 7, 8); read as {known}"),
            ));
        }
        let kind = match (jpeg, compression, known) {
            (true, _, _) => Kind::Jpeg,
            (false, 1, _) => Kind::Palette,
            (false, 2, 0) => Kind::Dxt(texpresso::Format::Bc1),
            (false, 2, 7) => Kind::Dxt(texpresso::Format::Bc3),
            (false, 2, _) => Kind::Dxt(texpresso::Format::Bc2),
            (false, 3, _) => Kind::Bgra,
            (false, other, _) => {
                return Err(BlpError::Decoder { at: 8, message: format!("compression {other} is not 1, 2 or 3") });
            }
        };
        Ok(Self { kind, alpha_bits, has_mips: bytes[11] != 0, offsets_at: 20, shared_at: 148 })
    }

    /// One level's RGBA8 pixels, `w` × `h`, from its bytes `data` in the file `bytes`.
    fn decode_level(&self, bytes: &[u8], data: &[u8], w: u32, h: u32) -> Result<Vec<u8>, BlpError> {
        let (w, h) = (w as usize, h as usize);
        let pixels = w * h;
        let short = |needed: usize| BlpError::Decoder {
            at: 0,
            message: format!("a {w}×{h} level needs {needed} bytes, it has {}", data.len()),
        };
        match self.kind {
            Kind::Bgra => {
                let data = data.get(..4 * pixels).ok_or_else(|| short(4 * pixels))?;
                Ok(data.chunks_exact(4).flat_map(|p| [p[2], p[1], p[0], p[3]]).collect())
            }
            Kind::Dxt(format) => {
                let needed = format.compressed_size(w, h);
                let data = data.get(..needed).ok_or_else(|| short(needed))?;
                let mut out = vec![0; 4 * pixels];
                format.decompress(data, w, h, &mut out);
                if self.alpha_bits == 0 {
                    out.iter_mut().skip(3).step_by(4).for_each(|a| *a = 255);
                }
                Ok(out)
            }
            Kind::Palette => {
                let palette = bytes
                    .get(self.shared_at..self.shared_at + 1024)
                    .ok_or(BlpError::HeaderCut { length: bytes.len(), header: self.shared_at + 1024 })?;
                let alpha_bytes = (pixels * usize::from(self.alpha_bits)).div_ceil(8);
                let data = data.get(..pixels + alpha_bytes).ok_or_else(|| short(pixels + alpha_bytes))?;
                let (indices, alpha) = data.split_at(pixels);
                let mut out = Vec::with_capacity(4 * pixels);
                for (i, &index) in indices.iter().enumerate() {
                    let c = &palette[4 * usize::from(index)..4 * usize::from(index) + 4];
                    let a = match self.alpha_bits {
                        1 => 255 * ((alpha[i / 8] >> (i % 8)) & 1),
                        4 => 17 * ((alpha[i / 2] >> (4 * (i % 2))) & 0xF),
                        8 => alpha[i],
                        _ => 255,
                    };
                    out.extend([c[2], c[1], c[0], a]);
                }
                Ok(out)
            }
            Kind::Jpeg => {
                // The shared header (its size checked by `checked_dimensions`) followed by the level's data.
                let header_size = header_word(bytes, self.shared_at) as usize;
                let header = &bytes[self.shared_at + 4..self.shared_at + 4 + header_size];
                let whole = [header, data].concat();
                let image = image::load_from_memory_with_format(&whole, image::ImageFormat::Jpeg)
                    .map_err(|e| BlpError::Decoder { at: 0, message: format!("JPEG: {e}") })?
                    .into_rgba8();
                if image.dimensions() != (w as u32, h as u32) {
                    return Err(BlpError::WrongSize { decoded: image.dimensions(), width: w as u32, height: h as u32 });
                }
                // BLP's JPEGs hold blue where JPEG puts red.
                let mut out = image.into_raw();
                out.chunks_exact_mut(4).for_each(|p| p.swap(0, 2));
                if self.alpha_bits == 0 {
                    out.iter_mut().skip(3).step_by(4).for_each(|a| *a = 255);
                }
                Ok(out)
            }
        }
    }
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
