//! The application around the plugin: command line, window, camera, inspector panel, dialogs, and the
//! windowless `--output` render.

pub mod camera;
pub mod cli;
pub mod control;
pub mod export;
pub mod headless;
pub mod info;
pub mod overlays;
pub mod panel;
pub mod picking;
pub mod scene;
pub mod window;

use std::process::ExitCode;

use cli::Args;

pub fn run(args: Args) -> ExitCode {
    if args.info {
        let Some(path) = args.file.as_deref() else {
            eprintln!("--info needs a FILE");
            return ExitCode::from(2);
        };
        return match info::gather(path) {
            Ok(gathered) => {
                let text = if args.json {
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
                    if !tree.roots.is_empty() && !args.json {
                        print_to_stdout(&format!("chunks up to where reading broke (id, offset, length):\n{}", info::tree_text(&tree)));
                    }
                }
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
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
