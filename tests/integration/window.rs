//! The real app in a window under Xvfb: open an LWO, drop a WMO on the window, then a corrupt file;
//! the WMO replaces the LWO, the corrupt file raises the error panel, the WMO stays, the app stays up.
//! Drops go through the app's control hook (`LWO_WMO_VIEWER_CONTROL`), which emits the very
//! `FileDragAndDrop` message winit sends for a real drop.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{asset, bin, scratch};

fn status(dir: &Path) -> serde_json::Value {
    std::fs::read_to_string(dir.join("status.json")).ok().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or(serde_json::Value::Null)
}

fn wait_for(dir: &Path, what: &str, timeout: Duration, mut done: impl FnMut(&serde_json::Value) -> bool) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let s = status(dir);
        if done(&s) {
            return s;
        }
        assert!(start.elapsed() < timeout, "timed out waiting for {what}; last status {s}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn send(dir: &Path, command: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("commands")).unwrap();
    writeln!(f, "{command}").unwrap();
}

#[test]
fn drops_replace_the_model_and_a_corrupt_drop_keeps_it_with_an_error() {
    let dir = scratch("window");
    let corrupt = dir.join("corrupt.wmo");
    std::fs::write(&corrupt, b"REVM\x04\x00\x00\x00\x11\x00\x00\x00DHOM\x40\x00\x00\x00\x01\x02").unwrap();
    let lwo = asset("square-with-detail.lwo");
    let wmo = asset("courtyard.wmo");
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    let mut child = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(bin())
        .arg(&lwo)
        .env("LWO_WMO_VIEWER_CONTROL", &dir)
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xvfb-run (package xvfb) starts the app");
    let minute = Duration::from_secs(90);
    let shown = |path: &Path| {
        let path = path.display().to_string();
        move |s: &serde_json::Value| s["shown"].as_str() == Some(path.as_str()) && s["loading"] == false
    };
    wait_for(&dir, "the LWO to show", minute, shown(&lwo));
    let m2 = asset("World/Generic/Barrel.m2");
    send(&dir, &format!("drop {}", m2.display()));
    wait_for(&dir, "the dropped M2 to replace the LWO", minute, shown(&m2));
    send(&dir, &format!("drop {}", wmo.display()));
    wait_for(&dir, "the dropped WMO to replace the M2", minute, shown(&wmo));
    send(&dir, &format!("drop {}", corrupt.display()));
    let s = wait_for(&dir, "the error panel", minute, |s| s["error"].is_string());
    let error = s["error"].as_str().unwrap();
    assert!(error.contains("corrupt.wmo") && error.contains("MOHD") && error.contains("byte 16"), "{error}");
    assert_eq!(s["shown"].as_str(), Some(wmo.display().to_string().as_str()), "the WMO is still shown");
    // Pipelines compile in the background in the window; give the last materials a few frames.
    let frame = status(&dir)["frame"].as_u64().unwrap_or(0);
    wait_for(&dir, "a few more frames", minute, |s| s["frame"].as_u64().is_some_and(|f| f >= frame + 30));
    let shot = dir.join("window-after-corrupt-drop.png");
    send(&dir, &format!("screenshot {}", shot.display()));
    wait_for(&dir, "the screenshot", minute, |s| s["screenshots"].as_array().is_some_and(|a| !a.is_empty()));
    assert!(shot.exists());
    // Still running a moment later: the bad file did not take the app down.
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().unwrap().is_none(), "the app exited");
    let frame = status(&dir)["frame"].as_u64().unwrap();
    wait_for(&dir, "frames to keep coming", minute, |s| s["frame"].as_u64().is_some_and(|f| f > frame));
    send(&dir, "quit");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
