//! The application around the plugin: command line, window, camera, inspector panel, dialogs, and the
//! windowless `--output` render.

pub mod camera;
pub mod cli;
pub mod control;
pub mod export;
pub mod headless;
pub mod info;
pub mod morphs;
pub mod overlays;
pub mod panel;
pub mod picking;
pub mod scene;
pub mod screenshot;
pub mod watch;
pub mod window;

use std::process::ExitCode;

use cli::Args;

pub fn run(args: Args) -> ExitCode {
    if args.info {
        let Some(first) = args.file.as_deref() else {
            eprintln!("--info needs a FILE");
            return ExitCode::from(2);
        };
        // Each file in turn, as `head` and `file` do with several; any that fails makes the exit 1.
        let files: Vec<&std::path::Path> = std::iter::once(first).chain(args.more_files.iter().map(|p| p.as_path())).collect();
        let mut failed = false;
        for (i, path) in files.iter().enumerate() {
            if files.len() > 1 && !args.json {
                print_to_stdout(&format!("{}==> {} <==\n", if i == 0 { "" } else { "\n" }, path.display()));
            }
            failed |= print_info(path, args.json) != ExitCode::SUCCESS;
        }
        return if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS };
    }
    if let Some(out) = args.export.as_deref() {
        return export::run(&args, out);
    }
    if args.output.is_some() {
        return headless::run(args);
    }
    window::run(args)
}

/// Writes to standard output like a Unix tool: a reader that stops early (`… --info | head`) closes
/// the pipe, and the rest is dropped quietly instead of `print!`'s panic.
fn print_to_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// `--info` for one file: its report on standard output, or its error on standard error.
fn print_info(path: &std::path::Path, json: bool) -> ExitCode {
    match info::gather(path) {
        Ok(gathered) => {
            let text = if json {
                format!("{}\n", serde_json::to_string_pretty(&info::to_json(path, &gathered)).unwrap_or_default())
            } else {
                info::to_text(path, &gathered)
            };
            print_to_stdout(&text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            // The chunks as far as they go, then the error: where a hex editor should look.
            if let Ok(bytes) = crate::formats::read_file(path) {
                let (tree, _) = crate::formats::parse_chunk_tree(&bytes);
                if !tree.roots.is_empty() && !json {
                    print_to_stdout(&format!("chunks up to where reading broke (id, offset, length):\n{}", info::tree_text(&tree)));
                }
            }
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
