//! Deterministic mutation of real and fixture files: bit flips, truncations, rewritten length fields,
//! spliced and duplicated chunks, inflated counts. Every case must parse to a value or an error, build
//! meshes if it parsed, within a second, without a panic.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use lwo_wmo_viewer::fixtures;
use lwo_wmo_viewer::formats::parse_document;
use lwo_wmo_viewer::mesh;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: fixed seed, same cases every run.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

fn corpus() -> Vec<Vec<u8>> {
    let mut files = vec![fixtures::lwo::seed_square_with_detail()];
    files.extend(fixtures::wmo::sample_scene().files("m").into_iter().map(|(_, b)| b));
    files.extend(fixtures::m2::sample_doodad_files().into_iter().map(|(_, b)| b));
    let md20 = fixtures::m2::sample_doodad_files().into_iter().find(|(n, _)| n.ends_with(".m2")).unwrap().1;
    files.push(fixtures::m2::wrap_md21(&md20, &[1], &[2, 3], &[(b"AFID", vec![0; 8])]));
    let pixels: Vec<u8> = (0..24 * 12 * 4).map(|i| (i * 7) as u8).collect();
    for encoding in [fixtures::blp::BlpEncoding::Palette(4), fixtures::blp::BlpEncoding::Dxt(5)] {
        files.push(fixtures::blp::write_blp2(24, 12, &pixels, encoding, true));
    }
    files.push(fixtures::blp::write_blp1(24, 12, &pixels, true, 0, true));
    fn walk(dir: &Path, out: &mut Vec<Vec<u8>>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if std::fs::read(&path).is_ok_and(|b| b.starts_with(b"FORM")) {
                out.push(std::fs::read(&path).unwrap());
            }
        }
    }
    walk(Path::new("/usr/share/assimp/models/LWO"), &mut files);
    files
}

/// Offsets where a chunk header's length field sits, found by walking the file leniently.
fn length_fields(file: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let big = file.starts_with(b"FORM");
    let mut p = if big { 12 } else { 0 };
    while p + 8 <= file.len() && out.len() < 64 {
        let raw = [file[p + 4], file[p + 5], file[p + 6], file[p + 7]];
        let len = if big { u32::from_be_bytes(raw) } else { u32::from_le_bytes(raw) } as usize;
        out.push((p + 4, len));
        let step = 8 + len + if big { len & 1 } else { 0 };
        if step == 8 && len == 0 && p + 8 >= file.len() {
            break;
        }
        p += step;
    }
    out
}

fn mutate(rng: &mut Rng, file: &[u8]) -> Vec<u8> {
    let mut out = file.to_vec();
    let fields = length_fields(file);
    match rng.below(6) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
        }
        1 => out.truncate(rng.below(out.len())),
        2 if !fields.is_empty() => {
            let (at, len) = fields[rng.below(fields.len())];
            let new = match rng.below(4) {
                0 => 0u32,
                1 => u32::MAX,
                2 => (len as u32).wrapping_add(1 + rng.below(16) as u32),
                _ => (len as u32).wrapping_sub(1 + rng.below(16) as u32),
            };
            let bytes = if file.starts_with(b"FORM") { new.to_be_bytes() } else { new.to_le_bytes() };
            out[at..at + 4].copy_from_slice(&bytes);
        }
        3 if fields.len() > 1 => {
            // Duplicate a chunk in place, or splice one chunk's bytes over another's position.
            let (at, len) = fields[rng.below(fields.len())];
            let start = at - 4;
            let end = (at + 4 + len).min(out.len());
            let chunk = out[start..end].to_vec();
            let dest = fields[rng.below(fields.len())].0 - 4;
            if rng.below(2) == 0 {
                out.splice(dest..dest, chunk);
            } else {
                let stop = (dest + chunk.len()).min(out.len());
                out.splice(dest..stop, chunk);
            }
        }
        4 if out.len() > 16 => {
            // Inflate a 16- or 32-bit value somewhere: counts, indices, offsets.
            let i = rng.below(out.len() - 4);
            let v = [0xFF, 0x7F, 0x00, 0x80][rng.below(4)];
            for b in &mut out[i..i + 1 + rng.below(4)] {
                *b = v;
            }
        }
        _ => {
            let i = rng.below(out.len());
            let extra: Vec<u8> = (0..1 + rng.below(32)).map(|_| rng.next() as u8).collect();
            out.splice(i..i, extra);
        }
    }
    out
}

fn exercise(bytes: &[u8]) {
    if bytes.starts_with(b"SKIN") {
        let _ = lwo_wmo_viewer::formats::m2::parse_skin(bytes);
    }
    if let Ok(doc) = parse_document(bytes) {
        if let lwo_wmo_viewer::formats::Model::Blp(_) = doc.model {
            let _ = lwo_wmo_viewer::formats::blp::decode(bytes);
        }
        let _ = mesh::StandaloneMeshes::build(
            &doc.model,
            mesh::lwo::BuildOptions { smoothing: true, subdivision_level: 1 },
        );
    }
}

/// Runs `cases` mutated inputs through `exercise`: none may panic or take over a second, and the
/// process's peak memory stays under 512 MB.
fn run_mutation_cases(
    label: &str,
    seed: u64,
    cases: usize,
    mut mutated: impl FnMut(&mut Rng) -> Vec<u8>,
    exercise: impl Fn(&[u8]),
) {
    let mut rng = Rng(seed);
    let mut slowest = Duration::ZERO;
    let mut failures = Vec::new();
    for case in 0..cases {
        let input = mutated(&mut rng);
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| exercise(&input)));
        let took = start.elapsed();
        slowest = slowest.max(took);
        if result.is_err() || took > Duration::from_secs(1) {
            failures.push((case, took, input.len()));
            if failures.len() > 20 {
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{} failing cases (case, time, size): {failures:?}", failures.len());
    let peak = peak_resident_bytes();
    println!("{cases} {label} cases, slowest {slowest:?}, peak resident {} MB", peak / (1 << 20));
    assert!(peak < 512 << 20, "peak resident memory {} MB", peak / (1 << 20));
}

#[test]
fn mutated_files_never_panic_or_stall() {
    let files = corpus();
    assert!(files.len() >= 49, "the assimp corpus and the fixtures");
    let pick = |rng: &mut Rng| {
        let file = &files[rng.below(files.len())];
        mutate(rng, file)
    };
    run_mutation_cases("file", 0x5EED_1234_ABCD_0001, 100_000, pick, exercise);
}

/// The smpq-built archives of `mpq.rs` under the same mutations and limits, with a second kind aimed at
/// the header and the two tables, where a generic flip rarely lands.
#[test]
fn mutated_archives_never_panic_or_stall() {
    let archives = crate::mpq::archive_corpus();
    let pick = |rng: &mut Rng| {
        let file = &archives[rng.below(archives.len())];
        if rng.below(2) == 0 { mutate(rng, file) } else { mutate_archive_tables(rng, file) }
    };
    run_mutation_cases("archive", 0x5EED_1234_ABCD_0002, 20_000, pick, crate::mpq::exercise_archive);
}

/// Rewrites a word of the header or of the hash or block table (read from the header's own fields).
fn mutate_archive_tables(rng: &mut Rng, file: &[u8]) -> Vec<u8> {
    let mut out = file.to_vec();
    let word = |at: usize| u32::from_le_bytes([file[at], file[at + 1], file[at + 2], file[at + 3]]) as usize;
    let regions = [(0, 44), (word(16), word(24) * 16), (word(20), word(28) * 16)];
    let (start, length) = regions[rng.below(regions.len())];
    let at = start + rng.below(length.max(1)) / 4 * 4;
    if at + 4 <= out.len() {
        let value = match rng.below(4) {
            0 => u32::MAX,
            1 => 0,
            2 => rng.next() as u32,
            _ => (word(at) as u32) ^ (1 << rng.below(32)),
        };
        out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
    out
}

/// The process's peak resident set (VmHWM), which covers this test binary's other tests too.
fn peak_resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// `--info` on every corpus file cut at ten points: a non-zero exit and one line naming the file, the
/// chunk and the byte offset.
#[test]
fn info_on_truncated_corpus_files_fails_with_file_chunk_and_offset() {
    let dir = crate::support::scratch("truncated");
    let mut checked = 0;
    for (n, file) in corpus().iter().enumerate().filter(|(_, f)| f.starts_with(b"FORM")) {
        for k in 1..=10 {
            let cut = file.len() * k / 11;
            let path = dir.join(format!("file{n}-cut{k}.lwo"));
            std::fs::write(&path, &file[..cut]).unwrap();
            let out = std::process::Command::new(crate::support::bin()).arg(&path).arg("--info").output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{} parsed", path.display());
            let lines: Vec<&str> = stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{stderr}");
            assert!(
                lines[0].contains(&format!("file{n}-cut{k}.lwo"))
                    && lines[0].contains("FORM")
                    && lines[0].contains(" at byte "),
                "{stderr}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 430, "{checked}");
}
