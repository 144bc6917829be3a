//! MPQ archives built by StormLib's own archiver (`smpq`, from `apt-get install smpq`) over the bundled
//! samples, in every combination of format version, compression, encryption, single units and sector
//! checksums; a base + patch pair layered through `GameData`; and damaged archives.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use lwo_wmo_viewer::formats::mpq::{
    Archive, DecompressError, FLAG_COMPRESS, FLAG_DELETE_MARKER, FLAG_ENCRYPTED, FLAG_FIX_KEY, FLAG_SECTOR_CRC,
    FLAG_SINGLE_UNIT, FilePart, FileProblem, FileStatus, MpqError, Table, TableProblem,
};
use lwo_wmo_viewer::source::{FileSource, GameData, MpqArchive, SourceError};

use crate::support::{asset, read, scratch};

/// The samples, by the relative path they keep in the archives.
pub const SAMPLES: &[&str] = &[
    "courtyard.wmo",
    "courtyard_000.wmo",
    "courtyard_001.wmo",
    "courtyard_002.wmo",
    "World/Generic/Barrel.m2",
    "World/Generic/Barrel00.skin",
    "World/Generic/Lamp.m2",
    "World/Generic/Lamp00.skin",
    "World/wmo/Sample/Glass.blp",
    "World/wmo/Sample/Stone.blp",
    "World/wmo/Sample/Water.blp",
];
/// A generated file of many 4 KB sectors, since every sample fits in one or three.
const MULTI_SECTOR: &str = "World/Generated/Sectors.bin";

pub const COMPRESSIONS: &[&str] = &["none", "ZLIB", "BZIP2", "PKWARE", "ZLIB+PKWARE"];
/// smpq options beyond version and compression, by the label the archive's name carries.
pub const VARIANTS: &[(&str, &[&str])] = &[
    ("plain", &[]),
    ("E", &["-E"]),
    ("EF", &["-E", "-F"]),
    ("U", &["-U"]),
    ("S", &["-S"]),
    ("EFS", &["-E", "-F", "-S"]),
];

pub struct Built {
    pub staging: PathBuf,
    /// (label, path): every version × compression × variant.
    pub archives: Vec<(String, PathBuf)>,
}

fn multi_sector_bytes() -> Vec<u8> {
    // Text-like and compressible, with a changing counter so no two sectors are alike.
    let mut bytes = Vec::new();
    let mut state = 0x1234_5678u32;
    while bytes.len() < 70_000 {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        bytes.extend_from_slice(
            format!("row {} {}\n", bytes.len(), ["stone", "glass", "water", "barrel"][(state >> 30) as usize])
                .as_bytes(),
        );
    }
    bytes
}

pub fn smpq(dir: &Path, args: &[&str]) {
    let output = Command::new("smpq").current_dir(dir).args(args).output().unwrap_or_else(|e| {
        panic!("smpq could not run ({e}): these tests build their archives with StormLib's archiver; install it with `apt-get install smpq`")
    });
    assert!(
        output.status.success(),
        "smpq {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn all_names() -> Vec<&'static str> {
    SAMPLES.iter().copied().chain([MULTI_SECTOR]).collect()
}

/// Built once per test run: the staging folder of samples and the matrix of archives over it.
pub fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let staging = scratch("mpq-staging");
        for name in SAMPLES {
            let target = staging.join(name);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(asset(name), &target).unwrap();
        }
        std::fs::create_dir_all(staging.join(MULTI_SECTOR).parent().unwrap()).unwrap();
        std::fs::write(staging.join(MULTI_SECTOR), multi_sector_bytes()).unwrap();
        let out = scratch("mpq-matrix");
        let mut archives = Vec::new();
        for version in ["1", "2"] {
            for compression in COMPRESSIONS {
                for (variant, options) in VARIANTS {
                    let label = format!("m{version}-{}-{variant}", compression.replace('+', "_"));
                    let path = out.join(format!("{label}.mpq"));
                    let path_text = path.to_string_lossy().into_owned();
                    let mut args = vec!["-c", "-q", "-M", version, "-C", compression];
                    args.extend_from_slice(options);
                    args.push(&path_text);
                    args.extend(all_names());
                    smpq(&staging, &args);
                    archives.push((label, path));
                }
            }
        }
        Built { staging, archives }
    })
}

fn spellings(name: &str) -> [String; 4] {
    [name.replace('/', "\\"), name.to_owned(), name.to_ascii_uppercase(), name.to_ascii_lowercase().replace('/', "\\")]
}

#[test]
fn every_matrix_archive_reads_back_byte_identical() {
    let built = built();
    assert_eq!(built.archives.len(), 2 * COMPRESSIONS.len() * VARIANTS.len());
    for (label, path) in &built.archives {
        let archive = Archive::open(path).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(archive.header().format_version, if label.starts_with("m1") { 0 } else { 1 }, "{label}");
        let listed: Vec<String> = archive.names().map(|n| n.to_owned()).collect();
        let attributes = archive.attributes();
        for name in all_names() {
            let expected = read(&built.staging.join(name));
            for spelling in spellings(name) {
                let bytes = archive.read(&spelling).unwrap_or_else(|e| panic!("{label}: {e}"));
                assert!(bytes == expected, "{label}: {spelling} differs from its source");
            }
            // smpq stores the names with backslashes, and the listfile names each file.
            assert!(
                listed.iter().any(|l| *l == name.replace('/', "\\")),
                "{label}: (listfile) lacks {name}: {listed:?}"
            );
            let FileStatus::Present(block) = archive.status(name) else { panic!("{label}: {name} has no block") };
            let entry = archive.blocks()[block as usize];
            // The matrix really has the features its labels claim.
            let has = |flag: u32| entry.flags & flag != 0;
            assert_eq!(has(FLAG_ENCRYPTED), label.contains("-E"), "{label}: {name} flags {:08X}", entry.flags);
            assert_eq!(has(FLAG_FIX_KEY), label.contains("-EF"), "{label}: {name} flags {:08X}", entry.flags);
            assert_eq!(has(FLAG_SINGLE_UNIT), label.ends_with("-U"), "{label}: {name} flags {:08X}", entry.flags);
            if label.ends_with('S') && has(FLAG_COMPRESS) {
                assert!(has(FLAG_SECTOR_CRC), "{label}: {name} flags {:08X}", entry.flags);
            }
            if let Some(crc) = attributes.as_ref().and_then(|a| a.crc32.get(block as usize)) {
                assert_eq!(*crc, crc32fast::hash(&expected), "{label}: {name}: (attributes) CRC32");
            }
        }
        assert!(attributes.is_some_and(|a| !a.crc32.is_empty()), "{label}: (attributes) with CRC32s");
    }
}

#[test]
fn archive_source_lists_folders_and_finds_stored_spellings() {
    let (_, path) = &built().archives[1];
    let source = MpqArchive::open(path).unwrap();
    let mut blps: Vec<String> = source.list("world\\WMO/sample").into_iter().map(|e| e.name).collect();
    blps.sort();
    assert_eq!(blps, ["Glass.blp", "Stone.blp", "Water.blp"]);
    let mut top: Vec<(String, bool)> = source.list("World").into_iter().map(|e| (e.name, e.is_folder)).collect();
    top.sort();
    assert_eq!(top, [("Generated".to_owned(), true), ("Generic".to_owned(), true), ("wmo".to_owned(), true)]);
    assert_eq!(source.find("WORLD/GENERIC/barrel.M2").as_deref(), Some("World/Generic/Barrel.m2"));
    assert!(source.find("World/Generic/Missing.m2").is_none());
    assert!(matches!(source.read("World/Generic/Missing.m2"), Err(SourceError::NotFound { .. })));
    let entries = source.entries();
    for name in all_names() {
        let entry = entries
            .iter()
            .find(|e| e.name.as_deref() == Some(name.replace('/', "\\").as_str()))
            .unwrap_or_else(|| panic!("{name} in entries"));
        assert_eq!(entry.file_size as usize, read(&built().staging.join(name)).len());
    }
    fn send_sync<T: Send + Sync>() {}
    send_sync::<MpqArchive>();
    send_sync::<GameData>();
}

/// Without a readable listfile the files are entries known by their hash pair; their data still reads,
/// an encrypted file's key recovered from its sector offset table. (smpq writes a listfile even with
/// `-N`, so the test damages it.)
#[test]
fn unnamed_entries_are_listed_by_hash_and_read_by_block() {
    let built = built();
    let dir = scratch("mpq-unnamed");
    let path = dir.join("unnamed.mpq");
    let path_text = path.to_string_lossy().into_owned();
    let mut args = vec!["-c", "-q", "-N", "-A", "-M", "2", "-E", "-C", "ZLIB", &path_text];
    args.extend(all_names());
    smpq(&built.staging, &args);
    let mut bytes = read(&path);
    let named = Archive::from_bytes("named", bytes.clone()).unwrap();
    let FileStatus::Present(listfile) = named.status("(listfile)") else { panic!("smpq wrote no listfile") };
    let listfile_at = named.blocks()[listfile as usize].position as usize;
    bytes[listfile_at..listfile_at + 8].fill(0xEE);
    let source = MpqArchive::from_bytes("unnamed.mpq", bytes).unwrap();
    assert_eq!(source.archive().names().count(), 1, "only (listfile) itself is named");
    let entries = source.entries();
    let mut sources: Vec<Vec<u8>> = all_names().iter().map(|n| read(&built.staging.join(n))).collect();
    // StormLib's own files, such as (attributes), are named by the reader itself.
    for entry in entries.iter().filter(|e| !e.name.as_deref().is_some_and(|n| n.starts_with('('))) {
        assert!(entry.name.is_none(), "{:?}", entry.name);
        assert!(entry.label().starts_with('#'), "{}", entry.label());
        let bytes = source.read_entry(entry).unwrap_or_else(|e| panic!("{}: {e}", entry.label()));
        // Besides the samples, StormLib may store a file of its own (it has no name here either).
        if let Some(at) = sources.iter().position(|s| **s == *bytes) {
            sources.remove(at);
        }
    }
    assert!(sources.is_empty(), "{} samples not found among the unnamed entries", sources.len());
    // By name they read as well: the name gives the key.
    assert_eq!(&*source.read("World/Generic/Barrel.m2").unwrap(), &read(&asset("World/Generic/Barrel.m2"))[..]);
    // A community listfile (`--listfile`) names them in the browser's listing, where its paths hash to
    // their name hashes; its FileDataIDs do not matter here, and paths the archive lacks name nothing.
    use lwo_wmo_viewer::source::{FileSource, Listfile, name_from_listfile};
    let lines: String =
        all_names().iter().enumerate().map(|(i, n)| format!("{};{}\n", 1000 + i, n.to_ascii_lowercase())).collect();
    let listfile = Listfile::parse(&format!("{lines}7;world/not/in/this/archive.blp\n"), "list.csv").unwrap();
    let mut listing = source.browse();
    let unnamed = listing.iter().filter(|e| e.path.is_none()).count();
    assert_eq!(name_from_listfile(&mut listing, &listfile), all_names().len());
    assert_eq!(listing.iter().filter(|e| e.path.is_none()).count(), unnamed - all_names().len());
    let barrel = listing.iter().find(|e| e.label == "world/generic/barrel.m2").expect("the barrel named");
    assert_eq!(&*source.read(barrel.path.as_deref().unwrap()).unwrap(), &read(&asset("World/Generic/Barrel.m2"))[..]);
}

/// A base archive, a patch that replaces one file and deletes another, a locale patch, and loose files.
#[test]
fn game_data_layers_patches_deletion_markers_and_loose_files() {
    let built = built();
    let data = scratch("mpq-game-data").join("Data");
    std::fs::create_dir_all(data.join("enUS")).unwrap();
    let common = data.join("common.MPQ").to_string_lossy().into_owned();
    let mut args = vec!["-c", "-q", "-M", "2", "-C", "ZLIB", &common];
    args.extend(all_names());
    smpq(&built.staging, &args);

    let patch_files = scratch("mpq-patch-files");
    std::fs::write(patch_files.join("courtyard_000.wmo"), b"patched group").unwrap();
    std::fs::create_dir_all(patch_files.join("World/Generic")).unwrap();
    std::fs::write(patch_files.join("World/Generic/Lamp.m2"), b"name only").unwrap();
    std::fs::write(patch_files.join("courtyard_001.wmo"), b"locale group").unwrap();
    let patch = data.join("patch.MPQ").to_string_lossy().into_owned();
    smpq(&patch_files, &["-c", "-q", "-M", "2", "-C", "ZLIB", &patch, "courtyard_000.wmo"]);
    smpq(&patch_files, &["-a", "-q", "-D", &patch, "World/Generic/Lamp.m2"]);
    let locale_patch = data.join("enUS/patch-enUS.MPQ").to_string_lossy().into_owned();
    smpq(&patch_files, &["-c", "-q", "-M", "2", "-C", "BZIP2", &locale_patch, "courtyard_001.wmo"]);

    let patch_archive = MpqArchive::open(Path::new(&patch)).unwrap();
    assert_eq!(patch_archive.status("World\\Generic\\Lamp.m2"), FileStatus::Deleted);
    let marker =
        patch_archive.entries().into_iter().find(|e| e.flags & FLAG_DELETE_MARKER != 0).expect("a deletion marker");
    assert!(marker.is_deletion_marker());

    let game = GameData::open(&data).unwrap();
    assert!(game.warnings().is_empty(), "{:?}", game.warnings());
    assert_eq!(game.locale(), Some("enUS"));
    let order: Vec<String> = game
        .archives()
        .iter()
        .map(|a| Path::new(&a.describe()).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(order, ["common.MPQ", "patch.MPQ", "patch-enUS.MPQ"]);
    assert_eq!(&*game.read("courtyard_000.wmo").unwrap(), b"patched group");
    assert_eq!(&*game.read("COURTYARD_001.WMO").unwrap(), b"locale group");
    assert_eq!(&*game.read("courtyard_002.wmo").unwrap(), &read(&asset("courtyard_002.wmo"))[..]);
    assert!(
        matches!(game.read("World/Generic/Lamp.m2"), Err(SourceError::NotFound { .. })),
        "the deletion marker hides the base's Lamp.m2"
    );
    assert!(game.find("World\\Generic\\Lamp.m2").is_none());
    let generic: Vec<String> = game.list("World/Generic").into_iter().map(|e| e.name).collect();
    assert!(generic.iter().any(|n| n == "Barrel.m2") && !generic.iter().any(|n| n == "Lamp.m2"), "{generic:?}");
    let browsed = game.entries();
    assert!(browsed.iter().all(|e| e.entry.name.as_deref() != Some("World\\Generic\\Lamp.m2")));
    let patched = browsed.iter().find(|e| e.entry.name.as_deref() == Some("courtyard_000.wmo")).unwrap();
    assert_eq!(&*game.read_entry(patched).unwrap(), b"patched group");

    // A loose file under the Data folder wins over every archive, the patch included.
    std::fs::write(data.join("courtyard_000.wmo"), b"loose group").unwrap();
    std::fs::create_dir_all(data.join("World/Generic")).unwrap();
    std::fs::write(data.join("World/Generic/lamp.M2"), b"loose lamp").unwrap();
    let game = GameData::open(&data).unwrap();
    assert_eq!(&*game.read("Courtyard_000.wmo").unwrap(), b"loose group");
    assert_eq!(&*game.read("World/Generic/Lamp.m2").unwrap(), b"loose lamp");

    // The base alone, as a dropped archive, still has everything.
    let base = GameData::single_archive(&data.join("common.MPQ")).unwrap();
    assert_eq!(&*base.read("World/Generic/Lamp.m2").unwrap(), &read(&asset("World/Generic/Lamp.m2"))[..]);
    assert!(GameData::open(&data.join("common.MPQ")).unwrap().read("courtyard.wmo").is_ok());

    // A folder without archives is a loose folder.
    let loose = GameData::open(&asset("")).unwrap();
    assert!(loose.archives().is_empty());
    assert_eq!(&*loose.read("world\\generic\\BARREL.m2").unwrap(), &read(&asset("World/Generic/Barrel.m2"))[..]);
}

fn archive_named(label: &str) -> &'static Path {
    &built().archives.iter().find(|(l, _)| l == label).unwrap_or_else(|| panic!("{label}")).1
}

fn open_bytes(name: &str, bytes: Vec<u8>) -> Result<Archive, MpqError> {
    Archive::from_bytes(name, bytes)
}

#[test]
fn damaged_archives_give_errors_naming_archive_file_and_table_or_sector() {
    let path = archive_named("m2-ZLIB-plain");
    let bytes = read(path);
    let archive = Archive::open(path).unwrap();
    let header = archive.header().clone();
    let FileStatus::Present(big) = archive.status(MULTI_SECTOR) else { panic!() };
    let big_block = archive.blocks()[big as usize];

    // Cut before the tables (smpq writes them last): the table that runs past the end is named.
    let cut = bytes[..header.hash_table_position as usize + 8].to_vec();
    let typed = open_bytes("cut.mpq", cut).unwrap_err();
    // The problem is a value a caller can match on, not only text: the block table, written after
    // the hash table, now starts past the end.
    assert!(
        matches!(
            typed,
            MpqError::Table { table: Table::BlockTable, problem: TableProblem::PositionPastEnd { .. }, .. }
        ),
        "{typed:?}"
    );
    let error = typed.to_string();
    assert!(error.contains("cut.mpq") && error.contains(" table") && error.contains("past the end"), "{error}");
    let cut = bytes[..header.block_table_position as usize + 20].to_vec();
    let error = open_bytes("cut.mpq", cut).unwrap_err().to_string();
    assert!(error.contains("cut.mpq") && error.contains("block table"), "{error}");

    // A sector offset pointing past the file's data.
    let mut bad_offsets = bytes.clone();
    let second_offset = big_block.position as usize + 4;
    bad_offsets[second_offset..second_offset + 4].copy_from_slice(&0x00FF_FF00u32.to_le_bytes());
    let typed = open_bytes("offsets.mpq", bad_offsets).unwrap().read(MULTI_SECTOR).unwrap_err();
    assert!(
        matches!(
            typed,
            MpqError::File {
                part: FilePart::SectorOffsetTable,
                problem: FileProblem::SectorOutOfExtent { index: 0, .. },
                ..
            }
        ),
        "{typed:?}"
    );
    let error = typed.to_string();
    assert!(
        error.contains("offsets.mpq") && error.contains("Sectors.bin") && error.contains("sector offset table"),
        "{error}"
    );

    // Damaged compressed data: the sector is named.
    let mut bad_sector = bytes.clone();
    let first_sector = big_block.position as usize
        + u32::from_le_bytes(bytes[big_block.position as usize..][..4].try_into().unwrap()) as usize;
    for byte in &mut bad_sector[first_sector + 2..first_sector + 40] {
        *byte ^= 0x5A;
    }
    let typed = open_bytes("sector.mpq", bad_sector).unwrap().read(MULTI_SECTOR).unwrap_err();
    assert!(
        matches!(
            typed,
            MpqError::File {
                part: FilePart::Sector(0),
                problem: FileProblem::Decompress(DecompressError::Zlib(_)),
                ..
            }
        ),
        "{typed:?}"
    );
    let error = typed.to_string();
    assert!(error.contains("sector.mpq") && error.contains("Sectors.bin") && error.contains("sector 0"), "{error}");

    // With sector checksums, a damaged sector fails its ADLER32 before decompression.
    let checked_path = archive_named("m2-ZLIB-S");
    let checked = read(checked_path);
    let checked_archive = Archive::open(checked_path).unwrap();
    let FileStatus::Present(big) = checked_archive.status(MULTI_SECTOR) else { panic!() };
    let block = checked_archive.blocks()[big as usize];
    let table = block.position as usize;
    let sector_1 = table + u32::from_le_bytes(checked[table + 4..table + 8].try_into().unwrap()) as usize;
    let mut flipped = checked.clone();
    flipped[sector_1 + 10] ^= 0x01;
    let typed = open_bytes("crc.mpq", flipped).unwrap().read(MULTI_SECTOR).unwrap_err();
    assert!(
        matches!(
            typed,
            MpqError::File { part: FilePart::Sector(1), problem: FileProblem::ChecksumMismatch { .. }, .. }
        ),
        "{typed:?}"
    );
    let error = typed.to_string();
    assert!(error.contains("crc.mpq") && error.contains("sector 1") && error.contains("ADLER32"), "{error}");

    // Flipped block table bytes (encrypted: every entry after the flip decrypts to garbage): reads fail
    // with errors or give other bytes, never a panic; a failure names the file.
    let encrypted = read(archive_named("m1-ZLIB-EF"));
    let encrypted_header = Archive::open(archive_named("m1-ZLIB-EF")).unwrap().header().clone();
    let mut named_errors = 0;
    for flip in 0..32usize {
        let mut damaged = encrypted.clone();
        damaged[encrypted_header.block_table_position as usize + flip * 5] ^= 0x80;
        let Ok(archive) = open_bytes("flipped.mpq", damaged) else { continue };
        for name in all_names() {
            if let Err(error) = archive.read(name) {
                let text = error.to_string();
                assert!(text.contains("flipped.mpq"), "{text}");
                if text.contains(name) {
                    named_errors += 1;
                }
            }
        }
    }
    assert!(named_errors > 0);

    // A header with an impossible sector size, and bytes with no header at all.
    let mut bad_header = bytes.clone();
    bad_header[14] = 200;
    let error = open_bytes("header.mpq", bad_header).unwrap_err().to_string();
    assert!(error.contains("header.mpq") && error.contains("header") && error.contains("sector size"), "{error}");
    assert!(matches!(open_bytes("junk.bin", vec![7; 5000]), Err(MpqError::NoHeader { .. })));
}

/// Every prefix of a small archive, at 61-byte steps, opens or fails without a panic, and so does every
/// read from it.
#[test]
fn every_prefix_of_an_archive_fails_cleanly() {
    let bytes = read(archive_named("m2-BZIP2-EFS"));
    for length in (0..bytes.len()).step_by(61) {
        if let Ok(archive) = Archive::from_bytes("prefix.mpq", bytes[..length].to_vec()) {
            for entry in archive.entries() {
                let _ = archive.read_block(entry.block_index);
            }
        }
    }
}

/// For the mutation test: every matrix archive's bytes.
pub fn archive_corpus() -> Vec<Vec<u8>> {
    built().archives.iter().map(|(_, path)| read(path)).collect()
}

/// Opens an archive from bytes and reads every entry, as the fuzz target does.
pub fn exercise_archive(bytes: &[u8]) {
    if let Ok(archive) = Archive::from_bytes("mutated.mpq", Arc::<[u8]>::from(bytes)) {
        let _ = archive.attributes();
        for entry in archive.entries() {
            let _ = archive.read_block(entry.block_index);
        }
    }
}
