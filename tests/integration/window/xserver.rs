//! An X server of the test's own (Xvfb) and what a user does on it through X itself: XDND drops from
//! another client, key presses and clicks through XTest.

use std::path::Path;
use std::process::{Command, Stdio};

/// A virtual X server of the test's own, its display number read from `-displayfd`, so that another X
/// client — the XDND dropper — can reach the app's window (xvfb-run hides its display).
pub(super) struct XServer {
    child: std::process::Child,
    pub(super) display: String,
}

impl XServer {
    pub(super) fn start() -> Self {
        use std::io::BufRead;
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb (package xvfb) starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert!(!line.trim().is_empty(), "Xvfb printed no display number");
        Self { child, display: format!(":{}", line.trim()) }
    }

    /// Drops `files` on the viewer's window as a file manager does (`tests/tools/xdnd_drop.py`).
    pub(super) fn drop_files(&self, files: &[&Path]) {
        let tool = crate::support::repo().join("tests/tools/xdnd_drop.py");
        let out = Command::new("/usr/bin/python3")
            .arg(&tool)
            .args(files)
            .env("DISPLAY", &self.display)
            .output()
            .expect("Debian's python3 runs xdnd_drop.py");
        assert!(out.status.success(), "xdnd_drop.py {files:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

impl XServer {
    /// Does what a user does with mouse and keyboard, step by step, through XTest
    /// (`tests/tools/xtest_act.py` lists the steps: `focus`, `move:X:Y`, `click:1`, `key:w`, `type:…`).
    pub(super) fn act(&self, steps: &[&str]) {
        let tool = crate::support::repo().join("tests/tools/xtest_act.py");
        let out = Command::new("/usr/bin/python3")
            .arg(&tool)
            .args(steps)
            .env("DISPLAY", &self.display)
            .output()
            .expect("Debian's python3 with python3-xlib runs xtest_act.py");
        assert!(out.status.success(), "xtest_act.py {steps:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// Presses and releases `key` (an X keysym name) with the pointer over the 3D view.
    pub(super) fn press_key(&self, key: &str) {
        self.act(&["focus", "move:900:400", &format!("key:{key}")]);
    }

    /// Moves the pointer to (`x`, `y`) on the screen and clicks the left button there at once: the move
    /// and the press reach the app in the same frame, as a quick hand's do.
    pub(super) fn click(&self, x: u32, y: u32) {
        self.act(&[&format!("move:{x}:{y}"), "click:1"]);
    }
}

impl Drop for XServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
