//! `--output-dir`: thumbnails of many models in one process, with `index.csv` and a summary, from
//! folders on disk and from inside game data archives.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{asset, bin, scratch};

fn run_batch(args: &[&std::ffi::OsStr]) -> Output {
    let run = || Command::new(bin()).args(args).env("XDG_RUNTIME_DIR", std::env::temp_dir()).output().unwrap();
    let mut output = run();
    // Lavapipe's occasional crash under load (bevy#13708), as in `render`: a process killed by a
    // signal, and only that, runs once more.
    if std::os::unix::process::ExitStatusExt::signal(&output.status).is_some() {
        output = run();
    }
    output
}

/// One CSV line's fields, with RFC 4180 quotes (the index's fields hold no line breaks).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let (mut quoted, mut chars) = (false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// The index as rows of named fields.
fn read_index(dir: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("index.csv")).unwrap();
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap());
    assert_eq!(header, ["file", "format", "triangles", "warnings", "error", "milliseconds", "image"]);
    lines
        .map(|line| {
            let fields = csv_fields(line);
            assert_eq!(fields.len(), header.len(), "{line}");
            header.iter().cloned().zip(fields).collect()
        })
        .collect()
}

fn png_files(dir: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "png") {
                found.insert(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found
}

fn model_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(model_files(&path));
        } else if lwo_wmo_viewer::formats::is_model_path(&path) {
            found.push(path);
        }
    }
    found
}

/// The assimp corpus, the bundled samples and the LightWave 2018 objects in one run, with a missing
/// path and a file that is no model: one PNG per model, one row per model and per path that gave
/// none, the failure in the summary, a progress line per model; and the thumbnails are the images
/// `--output` draws (the stored baselines, same tolerance).
#[test]
fn batch_thumbnails_of_the_corpus_and_samples_match_single_renders() {
    let out = scratch("batch-corpus");
    let corpus = Path::new("/usr/share/assimp/models/LWO");
    let lw2018 = crate::lwo3::content_root().join("Objects");
    let not_a_model = out.join("notes.txt");
    std::fs::write(&not_a_model, "not a model").unwrap();
    let missing = out.join("no-such-model.lwo");
    let output = run_batch(&[
        "--output-dir".as_ref(),
        out.join("thumbs").as_os_str(),
        "--resolution".as_ref(),
        "640x400".as_ref(),
        corpus.as_os_str(),
        asset("").as_os_str(),
        lw2018.as_os_str(),
        missing.as_os_str(),
        not_a_model.as_os_str(),
    ]);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "one path failed: exit 1\n{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let thumbs = out.join("thumbs");
    let rows = read_index(&thumbs);
    let rendered: Vec<_> = rows.iter().filter(|r| !r["image"].is_empty()).collect();
    // Every model of the three folders, except the WMO group files drawn with their root.
    let mut expected: Vec<PathBuf> =
        [corpus.to_path_buf(), asset(""), lw2018.clone()].iter().flat_map(|d| model_files(d)).collect();
    expected.retain(|p| !p.file_name().unwrap().to_string_lossy().starts_with("courtyard_"));
    let listed: BTreeSet<PathBuf> = rows.iter().map(|r| PathBuf::from(&r["file"])).collect();
    for model in &expected {
        assert!(listed.contains(model), "{} has no row", model.display());
    }
    assert_eq!(rows.len(), expected.len() + 2, "one row per model and per named path that gave none");
    assert_eq!(
        rendered.len(),
        expected.len(),
        "every model renders: {:?}",
        rows.iter().filter(|r| r["image"].is_empty()).collect::<Vec<_>>()
    );
    let pngs = png_files(&thumbs);
    assert_eq!(
        pngs,
        rendered.iter().map(|r| PathBuf::from(&r["image"])).collect::<BTreeSet<_>>(),
        "one PNG per rendered row"
    );
    for row in &rendered {
        let image = image::open(thumbs.join(&row["image"])).unwrap();
        assert_eq!((image.width(), image.height()), (640, 400), "{}", row["image"]);
        // LightWave 2018's line and point objects draw no triangles.
        let lines_or_points = ["Line-Basic.lwo", "Points-Basic.lwo"].iter().any(|n| row["file"].ends_with(n));
        assert_eq!(row["triangles"].parse::<usize>().unwrap() == 0, lines_or_points, "{row:?}");
        assert!(!row["format"].is_empty() && row["error"].is_empty(), "{row:?}");
    }
    let row_of = |file: &Path| {
        rows.iter().find(|r| Path::new(&r["file"]) == file).unwrap_or_else(|| panic!("{}", file.display()))
    };
    assert_eq!(row_of(&missing)["error"], "not found");
    assert!(row_of(&not_a_model)["error"].starts_with("skipped: not a model"), "{:?}", row_of(&not_a_model));
    assert_eq!(row_of(&asset("courtyard.wmo"))["format"], "WMO-root");
    assert_eq!(row_of(&corpus.join("LWO2/boxuv.lwo"))["triangles"], "12");

    let total = expected.len();
    assert!(
        stdout.contains(&format!(
            "rendered {total}, failed 1, skipped 1 (and 3 WMO group files, drawn with their roots)"
        )),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("failed: {}: not found", missing.display())), "{stdout}");
    let progress: Vec<usize> =
        stderr.lines().filter_map(|l| l.strip_prefix('[')?.split_once('/')?.0.parse().ok()).collect();
    assert_eq!(progress, (1..=total).collect::<Vec<_>>(), "one progress line per model, in order");
    assert!(stderr.contains(&format!("[{total}/{total}] ")), "{stderr}");

    // The same pixels as one `--output` per file: the baselines those renders are held to.
    let cases = [
        (asset("courtyard.wmo"), "courtyard-iso.png"),
        (corpus.join("LWO2/boxuv.lwo"), "boxuv.png"),
        (corpus.join("LWO2/MappingModes/earth_spherical_y.lwo"), "earth-spherical-y.png"),
        (lw2018.join("Cube06-UVTextureMapStandard.lwo"), "lw2018-cube06-uv-grid.png"),
    ];
    for (model, baseline) in cases {
        crate::render::compare_with_baseline(baseline, &thumbs.join(&row_of(&model)["image"]));
    }
}

/// With `--data`, paths and wildcards reach inside a client's archives: the WMO root found by `*.wmo`
/// (its groups skipped as models of their own) renders with its textures and doodads from the
/// archive, as from loose files; a wildcard that matches nothing is a failed row.
#[test]
fn batch_thumbnails_from_game_data_wildcards() {
    let data = sample_game_data();

    let out = scratch("batch-game-data-out");
    let output = run_batch(&[
        "--data".as_ref(),
        data.as_os_str(),
        "--output-dir".as_ref(),
        out.as_os_str(),
        "--resolution".as_ref(),
        "640x400".as_ref(),
        "*.WMO".as_ref(),
        r"world\generic\*.m2".as_ref(),
        r"World\nothing\*.m2".as_ref(),
    ]);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!stderr.contains("panicked"), "{stderr}");
    let rows = read_index(&out);
    let files: Vec<&str> = rows.iter().map(|r| r["file"].as_str()).collect();
    assert_eq!(
        files,
        ["courtyard.wmo", "World/Generic/Barrel.m2", "World/Generic/Lamp.m2", r"World\nothing\*.m2"],
        "{stdout}\n{stderr}"
    );
    assert!(rows[3]["error"].contains("no model in the game data"), "{:?}", rows[3]);
    assert!(
        stdout.contains("rendered 3, failed 1, skipped 0 (and 3 WMO group files, drawn with their roots)"),
        "{stdout}"
    );
    let courtyard = &rows[0];
    assert_eq!(
        (courtyard["format"].as_str(), courtyard["triangles"].as_str(), courtyard["warnings"].as_str()),
        ("WMO-root", "36", "1"),
        "{courtyard:?}"
    );
    // Textures and doodad models came out of the archive: the loose files' baseline.
    crate::render::compare_with_baseline("courtyard-iso.png", &out.join(&courtyard["image"]));
}

/// A client-style `Data/` folder whose `common.MPQ` (built by smpq) holds every bundled sample.
pub fn sample_game_data() -> &'static Path {
    static DATA: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DATA.get_or_init(|| {
        let built = crate::mpq::built();
        let data = scratch("batch-game-data").join("Data");
        std::fs::create_dir_all(&data).unwrap();
        let common = data.join("common.MPQ").to_string_lossy().into_owned();
        let mut args = vec!["-c", "-q", "-M", "2", "-C", "ZLIB", &common];
        args.extend(crate::mpq::SAMPLES);
        crate::mpq::smpq(&built.staging, &args);
        data
    })
}

/// `--data DIR PATH` opens a file inside the archives when PATH is not on disk: `--info` reads the
/// WMO's groups from there, `--export` its textures and doodads; a path in neither is an error (1).
#[test]
fn info_and_export_open_files_inside_the_game_data() {
    let data = sample_game_data();
    // Files are named by the archive that serves them (messages, and `--watch` follows the archive).
    let game = lwo_wmo_viewer::source::GameData::open(data).unwrap();
    assert_eq!(
        lwo_wmo_viewer::source::FileSource::display_path(&game, "World/Generic/Barrel.m2"),
        format!("{}/World/Generic/Barrel.m2", data.join("common.MPQ").display())
    );
    let info =
        Command::new(bin()).arg("--data").arg(data).args([r"COURTYARD.WMO", "--info", "--json"]).output().unwrap();
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(
        (json["format"].as_str(), json["groups_loaded"].as_u64(), json["textures"].as_u64()),
        (Some("WMO-root"), Some(3), Some(3)),
        "{json}"
    );
    assert_eq!(json["file"], "wow://courtyard.wmo", "the path as the archive stores it");

    let m2 = Command::new(bin())
        .arg("--data")
        .arg(data)
        .args([r"world\generic\barrel.m2", "--info", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&m2.stdout).unwrap();
    assert_eq!(
        (json["format"].as_str(), json["triangles"].as_u64()),
        (Some("M2"), Some(26)),
        "the skin came from the archive: {json}"
    );

    let out = scratch("game-data-export").join("courtyard.glb");
    let export =
        Command::new(bin()).arg("--data").arg(data).arg("courtyard.wmo").arg("--export").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&export.stderr);
    assert!(export.status.success(), "{stderr}");
    assert!(!stderr.contains("not found"), "every texture and doodad model came from the archive: {stderr}");

    let missing = Command::new(bin()).arg("--data").arg(data).args([r"World\nothing.wmo", "--info"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr)
            .contains(r"World\nothing.wmo: not found on disk, nor in the game data"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
}

/// A model named twice — as a file and inside a folder also named — is drawn once, promptly.
#[test]
fn a_model_named_twice_is_drawn_once() {
    let out = scratch("batch-twice");
    let model = asset("square-with-detail.lwo");
    let started = std::time::Instant::now();
    let output = run_batch(&[
        "--output-dir".as_ref(),
        out.as_os_str(),
        "--resolution".as_ref(),
        "160x120".as_ref(),
        model.as_os_str(),
        model.as_os_str(),
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = read_index(&out);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "took {:?}", started.elapsed());
}

/// `--view` reaches every thumbnail of a batch: front views of the LightWave and M2 samples are the
/// pixels of `--output --view front`, the baselines those renders are held to.
#[test]
fn batch_thumbnails_are_drawn_from_the_chosen_view() {
    let out = scratch("batch-view");
    let (lwo, m2) = (asset("square-with-detail.lwo"), asset("World/Generic/Barrel.m2"));
    let output = run_batch(&[
        "--output-dir".as_ref(),
        out.as_os_str(),
        "--resolution".as_ref(),
        "640x400".as_ref(),
        "--view".as_ref(),
        "front".as_ref(),
        lwo.as_os_str(),
        m2.as_os_str(),
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = read_index(&out);
    let image_of = |file: &Path| {
        out.join(&rows.iter().find(|r| Path::new(&r["file"]) == file).unwrap_or_else(|| panic!("{}", file.display()))["image"])
    };
    crate::render::compare_with_baseline("square-with-detail-front.png", &image_of(&lwo));
    crate::render::compare_with_baseline("barrel-m2.png", &image_of(&m2));
}

/// Files that fail in a batch are its lines and its index, once each: no Bevy error with a backtrace
/// beside them, even with `RUST_BACKTRACE` set (`RUST_LOG` would show them to a developer).
#[test]
fn failed_files_in_a_batch_print_no_backtraces() {
    let dir = scratch("batch-failures-quiet");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join("passwd.wmo"), b"root:x:0:0:root:/root:/bin/bash\n").unwrap();
    std::fs::write(input.join("short.lwo"), b"ab\n").unwrap();
    let out = Command::new(bin())
        .arg("--output-dir")
        .arg(dir.join("out"))
        .arg(&input)
        .env("RUST_BACKTRACE", "1")
        .env_remove("RUST_LOG")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Bevy's line for a failed asset, and the frames of a backtrace ("   0: from<…>").
    assert!(!stderr.contains("Failed to load asset") && !stderr.contains("   0: "), "{stderr}");
    assert_eq!(stderr.matches("is not a LightWave, WMO, M2 or BLP file").count(), 2, "{stderr}");
}
