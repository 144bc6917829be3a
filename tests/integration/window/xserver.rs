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
    /// Presses and releases `key` (an X keysym name) with the pointer over the 3D view, through XTest.
    pub(super) fn press_key(&self, key: &str) {
        // With no window manager nothing gives the window the keyboard: the script focuses it first.
        const SCRIPT: &str = r#"
import sys, time
from Xlib import display, X, XK
from Xlib.ext import xtest
d = display.Display()
def find(w):
    for c in w.query_tree().children:
        if 'lwo-wmo-viewer' in (c.get_wm_name() or ''):
            return c
        r = find(c)
        if r:
            return r
find(d.screen().root).set_input_focus(X.RevertToParent, X.CurrentTime)
xtest.fake_input(d, X.MotionNotify, x=900, y=400)
k = d.keysym_to_keycode(XK.string_to_keysym(sys.argv[1]))
xtest.fake_input(d, X.KeyPress, k)
d.sync()
time.sleep(0.1)
xtest.fake_input(d, X.KeyRelease, k)
d.sync()
"#;
        let out = Command::new("/usr/bin/python3")
            .args(["-c", SCRIPT, key])
            .env("DISPLAY", &self.display)
            .output()
            .expect("python3-xlib");
        assert!(out.status.success(), "pressing {key}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

impl XServer {
    /// Moves the pointer to (`x`, `y`) on the screen and clicks the left button there at once, through
    /// XTest: the move and the press reach the app in the same frame, as a quick hand's do.
    pub(super) fn click(&self, x: u32, y: u32) {
        const SCRIPT: &str = r#"
import sys, time
from Xlib import display, X
from Xlib.ext import xtest
d = display.Display()
xtest.fake_input(d, X.MotionNotify, x=int(sys.argv[1]), y=int(sys.argv[2]))
xtest.fake_input(d, X.ButtonPress, 1)
d.sync()
time.sleep(0.05)
xtest.fake_input(d, X.ButtonRelease, 1)
d.sync()
"#;
        let out = Command::new("/usr/bin/python3")
            .args(["-c", SCRIPT, &x.to_string(), &y.to_string()])
            .env("DISPLAY", &self.display)
            .output()
            .expect("python3-xlib");
        assert!(out.status.success(), "clicking at {x},{y}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

impl Drop for XServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
