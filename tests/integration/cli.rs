//! `--info` on the bundled samples, as text and as JSON, and its failure on a bad file.

use std::process::Command;

use crate::support::{asset, bin, scratch};

fn info_json(path: &std::path::Path) -> serde_json::Value {
    let out = Command::new(bin()).arg(path).args(["--info", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("--info --json prints one JSON object")
}

#[test]
fn info_json_on_the_lwob_sample() {
    let v = info_json(&asset("square-with-detail.lwo"));
    assert_eq!(v["format"], "LWOB");
    assert_eq!(v["chunks"][0]["id"], "FORM");
    assert_eq!(v["chunks"][0]["type"], "LWOB");
    assert_eq!(v["chunks"][0]["children"][0]["id"], "PNTS");
    assert_eq!(v["chunks"][0]["children"][0]["offset"], 12);
    assert_eq!(v["layers"], 1);
    assert_eq!(v["points"], 7);
    assert_eq!(v["polygons"], 2);
    assert_eq!(v["triangles"], 3);
    assert_eq!(v["surfaces"], 2);
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{}", v["warnings"]);
}

#[test]
fn info_json_on_the_wmo_sample() {
    let v = info_json(&asset("courtyard.wmo"));
    assert_eq!(v["format"], "WMO-root");
    assert_eq!(v["version"], 17);
    assert_eq!(v["groups"], 3);
    assert_eq!(v["groups_loaded"], 3);
    assert_eq!(v["portals"], 2);
    assert_eq!(v["doodad_sets"], 2);
    assert_eq!(v["doodads"], 4);
    assert_eq!(v["liquids"], 1);
    assert_eq!(v["collision_triangles"], 2);
    let materials = v["materials"].as_array().unwrap();
    let modes: Vec<u64> = materials.iter().take(8).map(|m| m["blend_mode"].as_u64().unwrap()).collect();
    assert_eq!(modes, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(materials[8]["two_sided"], true);
    let group = info_json(&asset("courtyard_001.wmo"));
    assert_eq!(group["format"], "WMO-group");
    assert_eq!(group["chunks"][1]["id"], "MOGP");
    assert_eq!(group["chunks"][1]["children"][0]["id"], "MOPY");
}

#[test]
fn info_text_lists_the_tree() {
    let out = Command::new(bin()).arg(asset("square-with-detail.lwo")).arg("--info").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("format: LWOB"));
    assert!(text.contains("PNTS       0x0000000C         84"), "{text}");
}

#[test]
fn info_on_a_bad_file_names_file_chunk_and_offset() {
    let dir = scratch("cli-bad");
    let bad = dir.join("broken.lwo");
    let mut bytes = lwo_wmo_viewer::fixtures::lwo::seed_square_with_detail();
    bytes[134..138].copy_from_slice(&10_000u32.to_be_bytes());
    std::fs::write(&bad, bytes).unwrap();
    let out = Command::new(bin()).arg(&bad).arg("--info").output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("broken.lwo") && lines[0].contains("FORM/POLS") && lines[0].contains("byte 134"),
        "{stderr}"
    );
}

/// `--info | head -1`: the reader closes the pipe after one line; the tool ends without a panic.
#[test]
fn info_into_a_closed_pipe_exits_quietly() {
    // Far more lines than a pipe holds, so the tool is still writing when the reader has gone.
    let dir = crate::support::scratch("cli-pipe");
    let mut body = lwo_wmo_viewer::fixtures::lwo::chunk(b"PNTS", &[0; 12]);
    for _ in 0..30_000 {
        body.extend(lwo_wmo_viewer::fixtures::lwo::chunk(b"TEXT", b"ab"));
    }
    let file = dir.join("many-chunks.lwo");
    std::fs::write(&file, lwo_wmo_viewer::fixtures::lwo::form(b"LWO2", &body)).unwrap();
    let mut child = std::process::Command::new(crate::support::bin())
        .arg(&file)
        .arg("--info")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close our end as `head -1` does.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `--info` with several files prints each under its name; one bad file makes the exit 1 and is named
/// on stderr; `--help` documents the exit codes.
#[test]
fn info_takes_several_files_and_help_lists_the_exit_codes() {
    let dir = crate::support::scratch("cli-several");
    let bad = dir.join("bad.wmo");
    std::fs::write(&bad, b"REVM\x04\x00\x00\x00\x11\x00\x00\x00DHOM\x40\x00\x00\x00\x01\x02").unwrap();
    let (lwo, wmo) = (crate::support::asset("square-with-detail.lwo"), crate::support::asset("courtyard.wmo"));
    let out = std::process::Command::new(crate::support::bin()).arg(&lwo).arg(&wmo).arg("--info").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for file in [&lwo, &wmo] {
        assert!(text.contains(&format!("==> {} <==", file.display())), "{text}");
    }
    assert!(text.contains("format: LWOB") && text.contains("format: WMO-root"), "{text}");
    let out = std::process::Command::new(crate::support::bin()).arg(&lwo).arg(&bad).arg("--info").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.lines().count() == 1 && stderr.contains("bad.wmo"), "{stderr}");
    let help = std::process::Command::new(crate::support::bin()).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Exit codes: 0 ok, 1 a file could not be read") && help.contains("2 bad usage"), "{help}");
    let usage = std::process::Command::new(crate::support::bin()).arg("--no-such-flag").output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

/// A file that is no model is refused in one line that says what it starts with, with no chunk
/// listing; so is one too short to have a magic.
#[test]
fn a_file_that_is_no_model_is_one_line_saying_what_it_starts_with() {
    let dir = scratch("cli-not-a-model");
    let passwd = dir.join("passwd.wmo");
    std::fs::write(&passwd, b"root:x:0:0:root:/root:/bin/bash\n").unwrap();
    let short = dir.join("hostname.lwo");
    std::fs::write(&short, b"ab\n").unwrap();
    for (path, says) in [(&passwd, "it starts with 'root'"), (&short, "it holds only 3 bytes, 61 62 0A")] {
        let out = Command::new(bin()).arg(path).arg("--info").output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty(), "no chunk listing: {}", String::from_utf8_lossy(&out.stdout));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let expected = format!("{}: is not a LightWave, WMO, M2 or BLP file: {says}", path.display());
        assert_eq!(stderr.trim_end(), expected);
    }
}
