//! M2Track: a value keyed in milliseconds, per sequence. Version 264 stores one (times, values) pair
//! of sub-arrays per sequence; 256–263 store one timeline for all sequences with an index range per
//! sequence, which is cut here into the same per-sequence form, so that everything after the reader
//! sees one shape. Version 264 sequences whose keys live in `.anim` files keep the (count, offset)
//! pairs until that file is read ([`Track::resolve_anim_file`]).

use crate::formats::error::Result;
use crate::formats::reader::Reader;

/// How a value is stored in the file: its size and its reader.
pub struct Encoding<T> {
    pub size: usize,
    pub read: fn(&mut Reader<'_>) -> Result<T>,
}

impl<T> Clone for Encoding<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Encoding<T> {}

/// C3Vector: three floats.
pub const VEC3: Encoding<[f32; 3]> = Encoding { size: 12, read: |r| r.vec3() };
/// C4Quaternion, four floats (x, y, z, w): texture-transform rotations, and bone rotations below 260.
pub const QUATERNION: Encoding<[f32; 4]> = Encoding { size: 16, read: |r| r.vec4() };
/// M2CompQuat: four i16 (x, y, z, w), bone rotations from 260.
pub const COMPRESSED_QUATERNION: Encoding<[f32; 4]> =
    Encoding { size: 8, read: |r| Ok(decompress_quaternion([r.i16()?, r.i16()?, r.i16()?, r.i16()?])) };
/// fixed16: an i16 where 0x7FFF is 1.0 (colour alpha, texture weights).
pub const FIXED16: Encoding<f32> = Encoding { size: 2, read: |r| Ok(f32::from(r.i16()?) / 32767.0) };
pub const FLOAT: Encoding<f32> = Encoding { size: 4, read: |r| r.f32() };
pub const BYTE: Encoding<u8> = Encoding { size: 1, read: |r| r.u8() };
/// M2TrackBase: times without values (an event's firing times).
pub const NONE: Encoding<()> = Encoding { size: 0, read: |_| Ok(()) };
/// `M2SplineKey<C3Vector>`: value, in tangent, out tangent (cameras).
pub const SPLINE_VEC3: Encoding<SplineKey<[f32; 3]>> =
    Encoding { size: 36, read: |r| Ok(SplineKey { value: r.vec3()?, in_tangent: r.vec3()?, out_tangent: r.vec3()? }) };
/// `M2SplineKey<float>` (camera roll and field of view).
pub const SPLINE_FLOAT: Encoding<SplineKey<f32>> =
    Encoding { size: 12, read: |r| Ok(SplineKey { value: r.f32()?, in_tangent: r.f32()?, out_tangent: r.f32()? }) };

/// A compressed quaternion component maps 0..=32767 onto −1..0 and −32768..−1 onto 0..1 (the sign
/// bit flips), as every reference reader decodes it; the result is normalised.
pub fn decompress_quaternion(stored: [i16; 4]) -> [f32; 4] {
    let q = stored.map(|s| if s < 0 { f32::from(s) + 32768.0 } else { f32::from(s) - 32767.0 } / 32767.0);
    let length = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if length > 0.0 { q.map(|c| c / length) } else { [0.0, 0.0, 0.0, 1.0] }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplineKey<T> {
    pub value: T,
    pub in_tangent: T,
    pub out_tangent: T,
}

/// Interpolation codes: 0 step, 1 linear (slerp for rotations); 2 and 3 are splines (cameras).
pub const STEP: u16 = 0;
pub const LINEAR: u16 = 1;

/// One sequence's keys: times in milliseconds from the sequence's start, ascending as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Keys<T> {
    pub times: Vec<u32>,
    pub values: Vec<T>,
}

impl<T> Default for Keys<T> {
    fn default() -> Self {
        Self { times: Vec::new(), values: Vec::new() }
    }
}

/// A sequence's keys: read, or (version 264) waiting in the sequence's `.anim` file.
#[derive(Clone, Debug, PartialEq)]
pub enum SequenceKeys<T> {
    Read(Keys<T>),
    /// (count, offset) of the times and of the values inside the `.anim` file.
    InAnimFile {
        times: (u32, u32),
        values: (u32, u32),
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Track<T> {
    pub interpolation: u16,
    /// A track on a global sequence runs on that loop's own clock, whatever sequence plays.
    pub global_sequence: Option<u16>,
    /// One entry per sequence (one in all for a global-sequence track); empty when not animated.
    pub sequences: Vec<SequenceKeys<T>>,
}

impl<T> Default for Track<T> {
    fn default() -> Self {
        Self { interpolation: STEP, global_sequence: None, sequences: Vec::new() }
    }
}

impl<T> Track<T> {
    /// The keys that play during `sequence`: a global-sequence track's one set whatever the sequence
    /// (as WebWowViewerCpp and WoW Model Viewer read it). `None` when the track has none for it, or
    /// they are still in an unread `.anim` file: the value is then the default.
    pub fn keys(&self, sequence: usize) -> Option<&Keys<T>> {
        let index = if self.global_sequence.is_some() { 0 } else { sequence };
        match self.sequences.get(index)? {
            SequenceKeys::Read(keys) if !keys.times.is_empty() => Some(keys),
            _ => None,
        }
    }

    /// Whether any sequence has keys (read or not).
    pub fn is_animated(&self) -> bool {
        self.sequences.iter().any(|s| match s {
            SequenceKeys::Read(keys) => !keys.times.is_empty(),
            SequenceKeys::InAnimFile { times, .. } => times.0 > 0,
        })
    }

    /// Keys already read, over all sequences.
    pub fn key_count(&self) -> usize {
        self.sequences.iter().map(|s| if let SequenceKeys::Read(keys) = s { keys.times.len() } else { 0 }).sum()
    }

    /// Reads `sequence`'s keys from its `.anim` file's bytes, if they wait there. A range past the end of
    /// that file leaves the sequence without keys and returns the reason.
    pub fn resolve_anim_file(&mut self, sequence: usize, anim: &[u8], encoding: Encoding<T>) -> Result<(), String> {
        let Some(slot) = self.sequences.get_mut(sequence) else { return Ok(()) };
        let SequenceKeys::InAnimFile { times, values } = *slot else { return Ok(()) };
        let (keys, result) = match read_keys(anim, times, values, encoding) {
            Ok(keys) => (keys, Ok(())),
            Err(problem) => (Keys::default(), Err(problem)),
        };
        *slot = SequenceKeys::Read(keys);
        result
    }
}

impl<T: Clone> Track<T> {
    /// A track whose every sequence has the same keys (the fixtures and tests build these).
    pub fn constant_keys(interpolation: u16, sequences: usize, keys: Keys<T>) -> Self {
        Self { interpolation, global_sequence: None, sequences: vec![SequenceKeys::Read(keys); sequences] }
    }
}

/// What the track reader needs of each sequence: where 256–263 sequences start on the shared timeline
/// and which 264 sequences keep their keys in `.anim` files.
#[derive(Clone, Copy, Debug)]
pub(super) struct SequenceSpan {
    pub start: u32,
    pub end: u32,
    pub in_anim_file: bool,
}

/// Reads tracks of one model, collecting one warning per damaged track.
pub(super) struct TrackReader<'a> {
    pub file: &'a [u8],
    /// 264 and later: per-sequence sub-arrays (20-byte header); earlier: ranges (28-byte header).
    pub per_sequence: bool,
    pub sequences: &'a [SequenceSpan],
    pub warnings: Vec<(usize, String, String)>,
}

impl TrackReader<'_> {
    /// The size of a track header: 20 bytes in 264, 28 before (one more array, the ranges).
    pub fn header_size(&self) -> usize {
        if self.per_sequence { 20 } else { 28 }
    }

    /// Reads the track whose header is at `at`. Damage (an array past the end of the file, times and
    /// values that disagree in number) becomes one warning naming `path` and a track with what could be
    /// read, never an error.
    pub fn read<T: Clone>(&mut self, at: usize, path: impl FnOnce() -> String, encoding: Encoding<T>) -> Track<T> {
        let result =
            if self.per_sequence { self.read_per_sequence(at, encoding) } else { self.read_timeline(at, encoding) };
        match result {
            Ok((track, None)) => track,
            Ok((track, Some(problem))) => {
                self.warnings.push((at, path(), problem));
                track
            }
            Err(problem) => {
                self.warnings.push((at, path(), format!("{problem}; read as not animated")));
                Track::default()
            }
        }
    }

    /// 264: `interpolation, global sequence, times: M2Array<M2Array<u32>>, values: M2Array<M2Array<T>>`.
    fn read_per_sequence<T>(&self, at: usize, encoding: Encoding<T>) -> TrackResult<T> {
        let mut r = Reader::little(self.file.get(at..).unwrap_or(&[]), at);
        let (interpolation, global) = (r.u16().map_err(|e| e.to_string())?, r.i16().map_err(|e| e.to_string())?);
        let times = (r.u32().map_err(|e| e.to_string())?, r.u32().map_err(|e| e.to_string())?);
        let values = if encoding.size > 0 {
            (r.u32().map_err(|e| e.to_string())?, r.u32().map_err(|e| e.to_string())?)
        } else {
            times
        };
        let mut problem = None;
        if times.0 != values.0 {
            problem = Some(format!("{} time arrays but {} value arrays; the shorter count is read", times.0, values.0));
        }
        let count = times.0.min(values.0);
        let outer_times = checked_slice(self.file, (count, times.1), 8)?;
        let outer_values = checked_slice(self.file, (count, values.1), 8)?;
        let pair = |bytes: &[u8], i: usize| {
            let word = |k: usize| u32::from_le_bytes([bytes[k], bytes[k + 1], bytes[k + 2], bytes[k + 3]]);
            (word(8 * i), word(8 * i + 4))
        };
        let mut sequences = Vec::with_capacity(count as usize);
        for s in 0..count as usize {
            let (times, values) = (pair(outer_times, s), pair(outer_values, s));
            let values = if encoding.size > 0 { values } else { times };
            let in_anim_file = global < 0 && self.sequences.get(s).is_some_and(|span| span.in_anim_file);
            if in_anim_file {
                sequences.push(SequenceKeys::InAnimFile { times, values });
                continue;
            }
            match read_keys(self.file, times, values, encoding) {
                Ok(keys) => sequences.push(SequenceKeys::Read(keys)),
                Err(message) => {
                    problem.get_or_insert(format!("sequence {s}: {message}; that sequence read as not animated"));
                    sequences.push(SequenceKeys::Read(Keys::default()));
                }
            }
        }
        Ok((Track { interpolation, global_sequence: u16::try_from(global).ok(), sequences }, problem))
    }

    /// 256–263: `interpolation, global sequence, ranges: M2Array<(u32, u32)>, times: M2Array<u32>,
    /// values: M2Array<T>`, one timeline for all sequences.
    fn read_timeline<T: Clone>(&self, at: usize, encoding: Encoding<T>) -> TrackResult<T> {
        let mut r = Reader::little(self.file.get(at..).unwrap_or(&[]), at);
        let mut next = || r.u32().map_err(|e| e.to_string());
        let word = next()?;
        let (interpolation, global) = (word as u16, (word >> 16) as u16 as i16);
        let ranges = (next()?, next()?);
        let times = (next()?, next()?);
        let values = if encoding.size > 0 { (next()?, next()?) } else { times };
        let mut problem = None;
        if times.0 != values.0 {
            problem = Some(format!("{} times but {} values; the shorter count is read", times.0, values.0));
        }
        let count = times.0.min(values.0);
        let all = read_keys(self.file, (count, times.1), (count, values.1), encoding)?;
        let global_sequence = u16::try_from(global).ok();
        if all.times.is_empty() {
            return Ok((Track { interpolation, global_sequence, sequences: Vec::new() }, problem));
        }
        if global_sequence.is_some() {
            return Ok((Track { interpolation, global_sequence, sequences: vec![SequenceKeys::Read(all)] }, problem));
        }
        let range_bytes = match checked_slice(self.file, ranges, 8) {
            Ok(bytes) => bytes,
            Err(message) => {
                problem.get_or_insert(format!("{message}; the keys are cut by the sequences' times instead"));
                &[]
            }
        };
        let range = |s: usize| {
            let word =
                |k: usize| range_bytes.get(k..k + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
            Some((word(8 * s)?, word(8 * s + 4)?))
        };
        let sequences = self
            .sequences
            .iter()
            .enumerate()
            .map(|(s, span)| {
                let keys = match range(s) {
                    Some((first, last)) => slice_keys(&all, first, last, span.start),
                    // Without ranges, the keys inside the sequence's span of the timeline.
                    None if range_bytes.is_empty() => keys_in_span(&all, span),
                    None => Keys::default(),
                };
                SequenceKeys::Read(keys)
            })
            .collect();
        Ok((Track { interpolation, global_sequence, sequences }, problem))
    }
}

type TrackResult<T> = std::result::Result<(Track<T>, Option<String>), String>;

/// Keys `first..=last` of the shared timeline, timed from the sequence's start.
fn slice_keys<T: Clone>(all: &Keys<T>, first: usize, last: usize, start: u32) -> Keys<T> {
    if first > last || first >= all.times.len() {
        return Keys::default();
    }
    let last = last.min(all.times.len() - 1);
    Keys {
        times: all.times[first..=last].iter().map(|t| t.saturating_sub(start)).collect(),
        values: all.values[first..=last].to_vec(),
    }
}

/// The keys inside a sequence's span of the timeline; where none fall inside it, the value in force
/// there (the last key before it, else the first), as a reader that samples the whole timeline at the
/// sequence's absolute time would find.
fn keys_in_span<T: Clone>(all: &Keys<T>, span: &SequenceSpan) -> Keys<T> {
    let first = all.times.partition_point(|&t| t < span.start);
    let end = all.times.partition_point(|&t| t <= span.end);
    if first < end {
        return slice_keys(all, first, end - 1, span.start);
    }
    let held = first.saturating_sub(1);
    Keys { times: vec![0], values: vec![all.values[held].clone()] }
}

/// The bytes of `count` entries of `size` at `offset`, or why they do not fit in `file`.
fn checked_slice(file: &[u8], (count, offset): (u32, u32), size: usize) -> std::result::Result<&[u8], String> {
    let length = count as u64 * size as u64;
    let end = u64::from(offset) + length;
    if end > file.len() as u64 {
        return Err(format!(
            "{count} entries of {size} bytes at offset {offset} end at byte {end}, past the end of the file ({} bytes)",
            file.len()
        ));
    }
    Ok(&file[offset as usize..end as usize])
}

/// Reads `times.0` times and `values.0` values (the shorter count of both) from `file`.
fn read_keys<T>(
    file: &[u8],
    times: (u32, u32),
    values: (u32, u32),
    encoding: Encoding<T>,
) -> std::result::Result<Keys<T>, String> {
    let count = times.0.min(values.0);
    let time_bytes = checked_slice(file, (count, times.1), 4)?;
    let value_bytes = checked_slice(file, (count, values.1), encoding.size)?;
    let times = time_bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let mut out = Vec::with_capacity(count as usize);
    let mut r = Reader::little(value_bytes, values.1 as usize);
    for _ in 0..count {
        out.push((encoding.read)(&mut r).map_err(|e| e.to_string())?);
    }
    Ok(Keys { times, values: out })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(values: &[u32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn span(start: u32, end: u32, in_anim_file: bool) -> SequenceSpan {
        SequenceSpan { start, end, in_anim_file }
    }

    /// A 264 track of two sequences: keys (0 → 1.0, 100 → 2.0) for the first, none for the second.
    fn per_sequence_file() -> Vec<u8> {
        let mut file = vec![1, 0, 0xFF, 0xFF]; // linear, no global sequence
        file.extend(words(&[2, 20, 2, 36])); // 2 time arrays at 20, 2 value arrays at 36
        file.extend(words(&[2, 52, 0, 0])); // at 20: sequence 0's times at 52, sequence 1 none
        file.extend(words(&[2, 60, 0, 0])); // at 36: sequence 0's values at 60
        file.extend(words(&[0, 100])); // at 52
        file.extend(floats(&[1.0, 2.0])); // at 60
        file
    }

    #[test]
    fn a_264_track_has_keys_per_sequence() {
        let file = per_sequence_file();
        let spans = [span(0, 100, false), span(0, 50, false)];
        let mut reader = TrackReader { file: &file, per_sequence: true, sequences: &spans, warnings: Vec::new() };
        let track = reader.read(0, || "t".into(), FLOAT);
        assert!(reader.warnings.is_empty(), "{:?}", reader.warnings);
        assert_eq!(track.interpolation, LINEAR);
        assert_eq!(track.global_sequence, None);
        assert_eq!(track.keys(0), Some(&Keys { times: vec![0, 100], values: vec![1.0, 2.0] }));
        assert_eq!(track.keys(1), None);
    }

    #[test]
    fn keys_in_an_anim_file_wait_until_it_is_read() {
        let file = per_sequence_file();
        let spans = [span(0, 100, true), span(0, 50, false)];
        let mut reader = TrackReader { file: &file, per_sequence: true, sequences: &spans, warnings: Vec::new() };
        let mut track = reader.read(0, || "t".into(), FLOAT);
        assert_eq!(track.sequences[0], SequenceKeys::InAnimFile { times: (2, 52), values: (2, 60) });
        assert_eq!(track.keys(0), None);
        assert!(track.is_animated());
        // In the .anim, the same offsets hold other keys.
        let mut anim = vec![0; 52];
        anim.extend(words(&[0, 40]));
        anim.extend(floats(&[5.0, 6.0]));
        track.resolve_anim_file(0, &anim, FLOAT).unwrap();
        assert_eq!(track.keys(0), Some(&Keys { times: vec![0, 40], values: vec![5.0, 6.0] }));
        // An .anim too short for its range leaves the sequence without keys, with the reason.
        let mut short = reader.read(0, || "t".into(), FLOAT);
        assert!(short.resolve_anim_file(0, &anim[..56], FLOAT).unwrap_err().contains("past the end"));
        assert_eq!(short.keys(0), None);
    }

    #[test]
    fn a_track_past_the_end_is_a_warning_and_not_animated() {
        let mut file = per_sequence_file();
        file[8..12].copy_from_slice(&9999u32.to_le_bytes()); // the time arrays' offset
        let spans = [span(0, 100, false)];
        let mut reader = TrackReader { file: &file, per_sequence: true, sequences: &spans, warnings: Vec::new() };
        let track = reader.read(0, || "bones[0].scale".into(), FLOAT);
        assert!(!track.is_animated());
        assert_eq!(reader.warnings.len(), 1);
        assert_eq!(reader.warnings[0].1, "bones[0].scale");
        assert!(reader.warnings[0].2.contains("past the end of the file"), "{}", reader.warnings[0].2);
    }

    #[test]
    fn a_timeline_track_is_cut_into_sequences_by_its_ranges() {
        // Sequences at 0–1000 and 1000–1500 on the shared timeline; keys at 0, 1000 | 1000, 1500.
        let mut file = vec![1, 0, 0xFF, 0xFF];
        file.extend(words(&[2, 28, 4, 44, 4, 60])); // ranges at 28, times at 44, values at 60
        file.extend(words(&[0, 1, 2, 3])); // at 28
        file.extend(words(&[0, 1000, 1000, 1500])); // at 44
        file.extend(floats(&[1.0, 2.0, 3.0, 4.0])); // at 60
        let spans = [span(0, 1000, false), span(1000, 1500, false)];
        let mut reader = TrackReader { file: &file, per_sequence: false, sequences: &spans, warnings: Vec::new() };
        let track = reader.read(0, || "t".into(), FLOAT);
        assert!(reader.warnings.is_empty(), "{:?}", reader.warnings);
        assert_eq!(track.keys(0), Some(&Keys { times: vec![0, 1000], values: vec![1.0, 2.0] }));
        assert_eq!(track.keys(1), Some(&Keys { times: vec![0, 500], values: vec![3.0, 4.0] }));
    }

    #[test]
    fn a_timeline_track_without_ranges_is_cut_by_the_sequences_spans() {
        let mut file = vec![0, 0, 0xFF, 0xFF];
        file.extend(words(&[0, 0, 2, 28, 2, 36]));
        file.extend(words(&[0, 1200])); // at 28
        file.extend(floats(&[1.0, 2.0])); // at 36
        let spans = [span(0, 1000, false), span(1000, 1500, false), span(1500, 2000, false)];
        let mut reader = TrackReader { file: &file, per_sequence: false, sequences: &spans, warnings: Vec::new() };
        let track = reader.read(0, || "t".into(), FLOAT);
        assert_eq!(track.keys(0), Some(&Keys { times: vec![0], values: vec![1.0] }));
        assert_eq!(track.keys(1), Some(&Keys { times: vec![200], values: vec![2.0] }));
        // No key inside the third: the value in force there, held.
        assert_eq!(track.keys(2), Some(&Keys { times: vec![0], values: vec![2.0] }));
    }

    #[test]
    fn compressed_quaternions_decode_as_the_reference_readers_do() {
        assert_eq!(decompress_quaternion([32767, 32767, 32767, -1]), [0.0, 0.0, 0.0, 1.0]);
        let q = decompress_quaternion([32767, 32767, -9598, -9598]);
        let half = std::f32::consts::FRAC_1_SQRT_2;
        assert!((q[2] - half).abs() < 1e-3 && (q[3] - half).abs() < 1e-3, "{q:?}");
    }
}
