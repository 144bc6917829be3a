//! Measuring in child processes: each measurement runs in a process of its own, so that each peak
//! resident set is its own; the two sides take turns and each side's fastest child is kept.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::runs::*;
use lwo_wmo_viewer::formats;
use serde_json::{Value, json};

pub(crate) fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()))
        .unwrap_or(0)
}

/// Minor page faults the process has taken, by one system call: reading `/proc/self/stat` between
/// loads took more time than a small file's load and stood in the caches the next load found.
pub(crate) fn minor_faults() -> u64 {
    // SAFETY: `getrusage` writes the struct it is given and nothing else; a zeroed one is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 { usage.ru_minflt as u64 } else { 0 }
}

/// `--child KIND PATH RUNS`: the median of RUNS runs, each run's time and minor page faults in order, and the
/// peak resident set, as one JSON line.
pub(crate) fn child(kind: &str, path: &Path, runs: usize) -> Value {
    let run: Run = match kind {
        "ours-lwo" => ours_lwo,
        "assimp" => assimp,
        "assimp-uv" => assimp_with_uvs,
        "ours-wmo" => |p| ours_wmo(p, true),
        "ours-wmo-parse" => |p| ours_wmo(p, false),
        "wow-wmo" => wow_wmo,
        "ours-mpq" => |p| ours_mpq(p, 1),
        "ours-mpq-threads" => |p| ours_mpq(p, std::thread::available_parallelism().map_or(1, |n| n.get())),
        "stormlib" => stormlib,
        other => return json!({ "error": format!("unknown kind {other}") }),
    };
    // The peer's library is loaded before the baseline and the timed runs, as ours is linked in.
    if kind.starts_with("assimp") {
        let _ = assimp_api();
    }
    let baseline_kb = status_kb("VmRSS:");
    // Room for every run's values first: a column grown between runs would move the heap they use.
    let mut times = Vec::with_capacity(runs.max(1));
    let mut faults = Vec::with_capacity(runs.max(1));
    let mut triangles = 0;
    for _ in 0..runs.max(1) {
        let faults_before = minor_faults();
        let started = Instant::now();
        match run(path) {
            Ok(t) => triangles = t,
            Err(e) => return json!({ "error": e }),
        }
        times.push(started.elapsed().as_secs_f64());
        faults.push(minor_faults().saturating_sub(faults_before));
    }
    // Each run's time in the order run, beside the median: a child's first runs are slower than the
    // rest (code not yet in the caches), which the median of five leaves out.
    let in_order = times.clone();
    times.sort_by(f64::total_cmp);
    json!({ "seconds": times[times.len() / 2], "runs": in_order, "faults": faults, "triangles": triangles, "peak_kb": status_kb("VmHWM:"), "baseline_kb": baseline_kb })
}

pub(crate) fn measure(kind: &str, path: &Path, runs: usize) -> Value {
    let mut command = Command::new(std::env::current_exe().expect("own path"));
    command.args(["--child", kind, &path.to_string_lossy(), &runs.to_string()]);
    // Ours on the viewer's allocator, a peer on the system's (see `BenchAllocator`).
    if !kind.starts_with("ours") {
        command.env(crate::PEER_ALLOCATOR, "1");
    }
    let output = command.output();
    match output {
        Ok(out) => serde_json::from_slice(&out.stdout).unwrap_or_else(|_| json!({ "error": format!("child failed: {}", String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")) })),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

pub(crate) fn input_bytes(path: &Path) -> u64 {
    let mut total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if path.extension().is_some_and(|e| e == "wmo")
        && let Ok((_, root)) = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| formats::wmo::parse_root(&b).map_err(|e| e.to_string()))
    {
        for group in group_files(path, root.group_infos.len()).into_iter().flatten() {
            total += std::fs::metadata(group).map(|m| m.len()).unwrap_or(0);
        }
    }
    total
}

pub(crate) fn seconds(v: &Value) -> Option<f64> {
    v["seconds"].as_f64()
}

/// Extra resident memory the work took, in MB (the peak less the process before it started).
pub(crate) fn working_mb(v: &Value) -> f64 {
    (v["peak_kb"].as_f64().unwrap_or(0.0) - v["baseline_kb"].as_f64().unwrap_or(0.0)) / 1024.0
}

pub(crate) fn describe(v: &Value) -> String {
    match seconds(v) {
        Some(s) => format!("{:.1} ms", s * 1e3),
        None => format!("failed: {}", v["error"].as_str().unwrap_or("?")),
    }
}

pub(crate) fn verdict(ok: bool) -> &'static str {
    if ok { "meets" } else { "misses" }
}

/// Side by side on one file: time, MB/s, triangles and working memory of both, and our speed-up. Each
/// side's child (the median of its `runs`) is run `rounds` times, the sides taking turns, and each side
/// keeps its fastest child: this shared machine has stretches of seconds in which whole processes run
/// 1.5–1.9 times slower, and one child of either side caught in one moved a file's ratio that much.
/// Of two measurements, the faster one that has a time.
pub(crate) fn faster(kept: Value, new: Value) -> Value {
    match (seconds(&kept), seconds(&new)) {
        (Some(k), Some(n)) if n >= k => kept,
        (Some(_), None) => kept,
        _ => new,
    }
}

pub(crate) fn compare(
    label: &str,
    path: &Path,
    ours: &str,
    theirs: &str,
    runs: usize,
    rounds: usize,
) -> (Value, Value) {
    let bytes = input_bytes(path);
    let (mut a, mut b) = (Value::Null, Value::Null);
    for _ in 0..rounds.max(1) {
        a = faster(a, measure(ours, path, runs));
        b = faster(b, measure(theirs, path, runs));
    }
    let mb = bytes as f64 / (1 << 20) as f64;
    let rate = |v: &Value| seconds(v).map(|s| format!("{:.0}", mb / s)).unwrap_or_else(|| "–".into());
    let ratio = match (seconds(&a), seconds(&b)) {
        (Some(x), Some(y)) => format!("{:.1}×", y / x),
        _ => "–".into(),
    };
    println!(
        "| {label} | {:.2} | {} | {} | {} | {} | {ratio} | {} / {} | {:.0} / {:.0} |",
        mb,
        describe(&a),
        rate(&a),
        describe(&b),
        rate(&b),
        a["triangles"],
        b["triangles"],
        working_mb(&a),
        working_mb(&b),
    );
    (a, b)
}
