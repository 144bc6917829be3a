#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = lwo_wmo_viewer::viewer::cli::Args::parse();
    lwo_wmo_viewer::viewer::run(args)
}
