#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOCATOR: lwo_wmo_viewer::memory::HugePageHints = lwo_wmo_viewer::memory::HugePageHints;

fn main() -> ExitCode {
    let args = lwo_wmo_viewer::viewer::cli::Args::parse();
    lwo_wmo_viewer::viewer::run(args)
}
