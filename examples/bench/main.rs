//! Side-by-side benchmark: this project's parse + mesh build against assimp (C API, loaded at run time)
//! on every assimp-testmodels LWO file and on a generated scan-sized LWO, and against the `wow-wmo`
//! crate on a generated zone-sized WMO; our MPQ reader against StormLib (`libstorm.so.9`, loaded at run
//! time) on a generated client-sized archive; peak memory of each; the viewer's time to its first frame
//! and its frame times with the large files on screen.
//!
//! It builds without Bevy, in a release profile of its own (`perf`); the `--frames`, `--animation` and
//! `--thumbnails` sections run the viewer binary, which `cargo build` makes first:
//!
//!     cargo build && cargo run --profile perf --no-default-features --features fixtures --example bench
//!
//! with `-- --quick` (small generated files, a smoke run), `-- --lwo` (the LightWave rows: corpus, large
//! file, linearity), `-- --wmo` (the generated zone against wow-wmo), `-- --mpq` (the MPQ rows),
//! `-- --frames` (the viewer's frames), `-- --animation` (many moving M2 doodads against still ones, and
//! what reading animation adds to a parse), `-- --thumbnails` (the batch thumbnail row) or `-- --timing`
//! (the timing checks kept out of the default test suite).
//!
//! Section flags combine (`--lwo --wmo`); the target lines come together at the end. The viewer's
//! frames are measured with `--measure-frames`, which runs the render world after the main world
//! (pipelined rendering off) so that the main world's CPU time is its own.
//!
//! Every measurement runs in a child process of its own (this binary with `--child`), so that each peak
//! resident set is its own; times are the median of several runs inside the child.

use std::path::{Path, PathBuf};

mod animation;
mod children;
mod runs;
mod sections;

use crate::{children::*, runs::*, sections::*};

/// Our children run on the viewer's allocator (mimalloc, as `src/main.rs` picks it), so that what is
/// measured is what the viewer runs; a peer's children on the system's, as a program that uses that peer
/// would (assimp's C++ allocates there whatever the process picks): `measure` sets
/// [`PEER_ALLOCATOR`] for them. Chosen at the process's first allocation and never changed, so every
/// block is freed by the allocator that made it.
#[global_allocator]
static ALLOCATOR: BenchAllocator = BenchAllocator;

/// The environment variable that puts a child on the system's allocator.
pub(crate) const PEER_ALLOCATOR: &str = "LWO_WMO_BENCH_SYSTEM_ALLOCATOR";

struct BenchAllocator;

/// 0 not yet chosen, 1 mimalloc, 2 the system's.
static CHOSEN: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

impl BenchAllocator {
    fn system(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        match CHOSEN.load(Relaxed) {
            1 => false,
            2 => true,
            _ => {
                // SAFETY: `getenv` reads the environment, which nothing changes while the process is
                // single-threaded at its start; the name is a NUL-terminated literal.
                let set = unsafe { !libc::getenv(c"LWO_WMO_BENCH_SYSTEM_ALLOCATOR".as_ptr()).is_null() };
                CHOSEN.store(if set { 2 } else { 1 }, Relaxed);
                set
            }
        }
    }
}

// SAFETY: every call is passed on unchanged to one of two allocators, the same one for the whole
// process, so each block is freed and grown by the allocator that made it.
unsafe impl std::alloc::GlobalAlloc for BenchAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        unsafe { if self.system() { std::alloc::System.alloc(layout) } else { mimalloc::MiMalloc.alloc(layout) } }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        unsafe {
            if self.system() {
                std::alloc::System.alloc_zeroed(layout)
            } else {
                mimalloc::MiMalloc.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe {
            if self.system() {
                std::alloc::System.dealloc(ptr, layout)
            } else {
                mimalloc::MiMalloc.dealloc(ptr, layout)
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        unsafe {
            if self.system() {
                std::alloc::System.realloc(ptr, layout, new_size)
            } else {
                mimalloc::MiMalloc.realloc(ptr, layout, new_size)
            }
        }
    }
}

pub(crate) const CORPUS: &str = "/usr/share/assimp/models/LWO";

/// Loads a child makes of a corpus file for the steady-state reference line.
pub(crate) const STEADY_RUNS: usize = 301;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        let (kind, path, runs) = (&args[2], Path::new(&args[3]), args[4].parse().unwrap_or(1));
        println!("{}", child(kind, path, runs));
        return;
    }
    let flag = |name: &str| args.iter().any(|a| a == name);
    let quick = flag("--quick");
    // A section flag runs that section alone; none runs them all.
    let sections = ["--lwo", "--wmo", "--frames", "--animation", "--mpq", "--thumbnails", "--timing"];
    let all = !sections.iter().any(|s| flag(s));
    let data = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("bench-data");
    let generated = || generated_files(&data, quick).expect("write the generated files");
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|c| {
        c.lines().find_map(|l| l.strip_prefix("model name").map(|v| v.trim_start_matches([' ', '\t', ':']).to_string()))
    });
    println!(
        "machine: {} × {}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        cpu.unwrap_or_default()
    );

    // The targets of the second performance round (the README's table), printed together at the end.
    let mut targets = Vec::new();
    if all || flag("--lwo") {
        targets.extend(lightwave_rows(&generated().0));
    }
    if all || flag("--wmo") {
        targets.extend(wmo_rows(&generated().1));
    }
    if all || flag("--mpq") {
        match generated_archive(&data, if quick { 500 } else { 20_000 }) {
            Ok(archive) => compare_mpq(&archive, 3),
            Err(e) => println!("MPQ archive: {e}"),
        }
    }
    if all || flag("--frames") {
        let (large_lwo, large_wmo) = generated();
        targets.extend(viewer_rows(&large_lwo, &large_wmo, !quick));
    }
    if all || flag("--animation") {
        targets.extend(animation::animation_rows(&data, quick));
    }
    if all || flag("--thumbnails") {
        thumbnails(&data);
    }
    if all || flag("--timing") {
        timing_tests();
    }
    if !targets.is_empty() {
        println!("\ntargets:");
        for line in targets {
            println!("{line}");
        }
    }
}
