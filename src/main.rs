#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

/// mimalloc keeps and reuses the memory a load frees, where glibc's malloc faults it in afresh: the
/// library sets no allocator state, so the application chooses (see `Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = lwo_wmo_viewer::viewer::cli::Args::parse();
    lwo_wmo_viewer::viewer::run(args)
}
