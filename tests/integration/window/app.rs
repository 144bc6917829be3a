//! Driving the viewer in a window under Xvfb: starting it with the control hook, sending it commands,
//! waiting for its status, and quitting it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::bin;

pub(super) fn status(dir: &Path) -> serde_json::Value {
    std::fs::read_to_string(dir.join("status.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(serde_json::Value::Null)
}

pub(super) fn wait_for(
    dir: &Path,
    what: &str,
    timeout: Duration,
    mut done: impl FnMut(&serde_json::Value) -> bool,
) -> serde_json::Value {
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

pub(super) fn send(dir: &Path, command: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("commands")).unwrap();
    writeln!(f, "{command}").unwrap();
}

/// Starts the app on `file` under Xvfb with the control hook in `dir`.
/// The app under test, in a process group of its own. Dropping it — a test that fails half-way —
/// ends the whole group (xvfb-run, its Xvfb, the app), so no leftover keeps writing the status of a
/// later run into the same control folder.
pub(super) struct RunningApp(std::process::Child);

impl RunningApp {
    pub(super) fn spawn(command: &mut Command) -> Self {
        use std::os::unix::process::CommandExt;
        Self(command.process_group(0).spawn().expect("the app starts"))
    }

    pub(super) fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.0.try_wait().unwrap()
    }
}

impl Drop for RunningApp {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", self.0.id())]).status();
            let _ = self.0.wait();
        }
    }
}

pub(super) fn start(dir: &Path, file: &Path) -> RunningApp {
    start_with(dir, file, &[])
}

pub(super) fn start_with(dir: &Path, file: &Path, args: &[&str]) -> RunningApp {
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    RunningApp::spawn(
        Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1280x800x24"])
            .arg(bin())
            .arg(file)
            .args(args)
            .env("LWO_WMO_VIEWER_CONTROL", dir)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("RUST_LOG", "info,lwo_wmo_viewer=debug")
            .stdout(Stdio::null())
            // Kept beside the control files, for a failure to be looked into.
            .stderr(std::fs::File::create(dir.join("app.log")).unwrap()),
    )
}

/// Starts the app on `file` on the test's own X server `x` (not under xvfb-run), for tests that act on
/// its window through X: drops, clicks, keys.
pub(super) fn start_on(x: &super::XServer, dir: &Path, file: &Path) -> RunningApp {
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    RunningApp::spawn(
        Command::new(bin())
            .arg(file)
            .env("DISPLAY", &x.display)
            .env("LWO_WMO_VIEWER_CONTROL", dir)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("app.log")).unwrap()),
    )
}

/// Asks the app to quit and waits for it; one still running after 20 s is ended with its group.
pub(super) fn quit(dir: &Path, mut app: RunningApp) {
    send(dir, "quit");
    let start = Instant::now();
    while app.try_wait().is_none() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Picks a grid of window pixels over the 3D view and returns every pick that hit something.
pub(super) fn pick_grid(dir: &Path, columns: u32, rows: u32) -> Vec<serde_json::Value> {
    let mut hits = Vec::new();
    for row in 0..rows {
        for column in 0..columns {
            // The 3D view lies right of the panel (300 to 400 pixels) and below the menu bar.
            let x = 420 + column * (1280 - 440) / columns.max(1);
            let y = 60 + row * (800 - 80) / rows.max(1);
            let before = status(dir)["picks"].as_u64().unwrap_or(0);
            send(dir, &format!("pick {x} {y}"));
            let s =
                wait_for(dir, "the pick", Duration::from_secs(30), |s| s["picks"].as_u64().is_some_and(|n| n > before));
            if !s["pick"].is_null() {
                hits.push(s["pick"].clone());
            }
        }
    }
    hits
}

/// Where the 3D camera draws `point` (scene space), in window pixels, from the status the app writes.
pub(super) fn window_pixel(status: &serde_json::Value, point: [f32; 3]) -> Option<(u32, u32)> {
    let m: Vec<f32> =
        status["camera"]["clip_from_world"].as_array()?.iter().filter_map(|v| v.as_f64()).map(|v| v as f32).collect();
    let viewport: Vec<f32> =
        status["camera"]["viewport"].as_array()?.iter().filter_map(|v| v.as_f64()).map(|v| v as f32).collect();
    let [x, y, z] = point;
    let clip: [f32; 4] = std::array::from_fn(|row| m[row] * x + m[4 + row] * y + m[8 + row] * z + m[12 + row]);
    if clip[3] <= 0.0 {
        return None;
    }
    let (nx, ny) = (clip[0] / clip[3], clip[1] / clip[3]);
    let px = viewport[0] + (nx + 1.0) / 2.0 * viewport[2];
    let py = viewport[1] + (1.0 - ny) / 2.0 * viewport[3];
    Some((px.round() as u32, py.round() as u32))
}
