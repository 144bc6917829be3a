//! How far a load has come, read from another thread (the viewer's menu bar shows "group files
//! 120 / 300"), and a flag that stops it: the builders check it between items and the load ends as
//! [`FileError::Cancelled`](crate::scene::FileError::Cancelled).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

#[derive(Debug, Default)]
pub struct LoadProgress {
    stage: Mutex<&'static str>,
    done: AtomicUsize,
    total: AtomicUsize,
    cancelled: AtomicBool,
}

impl LoadProgress {
    /// A new stage of `total` items (0: a stage that is not counted).
    pub fn begin(&self, stage: &'static str, total: usize) {
        *self.stage.lock().unwrap_or_else(|e| e.into_inner()) = stage;
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    /// One more item of the stage done.
    pub fn step(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// The stage, the items done and the items in it.
    pub fn snapshot(&self) -> (&'static str, usize, usize) {
        (
            *self.stage.lock().unwrap_or_else(|e| e.into_inner()),
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Ready for another load (a reload reports to the same progress).
    pub fn restart(&self) {
        self.cancelled.store(false, Ordering::Relaxed);
        self.begin("", 0);
    }

    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// The optional progress of a build, so builders need not test for one at every step.
#[derive(Clone, Copy, Default)]
pub(crate) struct Report<'a>(pub Option<&'a LoadProgress>);

impl Report<'_> {
    pub fn begin(self, stage: &'static str, total: usize) {
        if let Some(p) = self.0 {
            p.begin(stage, total);
        }
    }

    pub fn step(self) {
        if let Some(p) = self.0 {
            p.step();
        }
    }

    pub fn cancelled(self) -> bool {
        self.0.is_some_and(LoadProgress::is_cancelled)
    }
}
