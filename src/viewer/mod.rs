//! The application around the plugin: command line, window, camera, inspector panel, dialogs, and the
//! windowless `--output` render.

pub mod animation;
pub mod batch;
pub mod browser;
pub mod camera;
pub mod cli;
pub mod control;
pub mod culling;
pub mod export;
pub mod fly;
pub mod headless;
pub mod info;
pub mod morphs;
pub mod overlays;
pub mod panel;
pub mod picking;
pub mod scene;
pub mod screenshot;
pub mod texture_view;
pub mod watch;
pub mod window;

use std::process::ExitCode;

use cli::Args;

pub fn run(mut args: Args) -> ExitCode {
    args.game_data = args.data.as_deref().map(crate::source::open_data_root);
    if let Some(path) = &args.listfile {
        match crate::source::Listfile::read(path) {
            Ok(listfile) => args.listfile_read = Some(std::sync::Arc::new(listfile)),
            Err(e) => {
                eprintln!("listfile {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(dir) = args.output_dir.clone() {
        return headless::run_batch(args, dir);
    }
    if !args.more_files.is_empty() && !args.info {
        eprintln!("several files need --info or --output-dir; the window opens one (see --help)");
        return ExitCode::from(2);
    }
    // Files not on disk are looked up in the game data: `--data ~/wow/Data 'World\…\X.wmo'`.
    for file in args.file.iter_mut().chain(args.more_files.iter_mut()) {
        match locate(file, args.game_data.as_deref()) {
            Ok(found) => *file = found,
            Err(missing) => {
                eprintln!("{missing}");
                return ExitCode::FAILURE;
            }
        }
    }
    if args.info {
        let Some(first) = args.file.as_deref() else {
            eprintln!("--info needs a FILE");
            return ExitCode::from(2);
        };
        // Each file in turn, as `head` and `file` do with several; any that fails makes the exit 1.
        let files: Vec<&std::path::Path> =
            std::iter::once(first).chain(args.more_files.iter().map(|p| p.as_path())).collect();
        let mut failed = false;
        for (i, path) in files.iter().enumerate() {
            if files.len() > 1 && !args.json {
                print_to_stdout(&format!("{}==> {} <==\n", if i == 0 { "" } else { "\n" }, path.display()));
            }
            let listfile = args.listfile_read.as_deref();
            failed |= print_info(path, args.game_data.as_ref(), listfile, args.json) != ExitCode::SUCCESS;
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

/// A file on disk as named; a path that is not on disk but is in the game data as its `wow://` path
/// (the spelling the data stores).
fn locate(
    path: &std::path::Path,
    game_data: Option<&dyn crate::source::FileSource>,
) -> Result<std::path::PathBuf, NotFoundAnywhere> {
    if path.exists() || scene::game_data_path(path).is_some() {
        return Ok(path.to_path_buf());
    }
    let Some(data) = game_data else { return Ok(path.to_path_buf()) };
    let inside = path.to_string_lossy();
    match data.find(&inside) {
        Some(found) => Ok(scene::in_game_data(&found)),
        None => Err(NotFoundAnywhere { file: inside.into_owned(), game_data: data.describe() }),
    }
}

/// A file named on the command line that is neither on disk nor in the game data.
#[derive(Debug, thiserror::Error)]
#[error("{file}: not found on disk, nor in the game data {game_data}")]
struct NotFoundAnywhere {
    file: String,
    game_data: String,
}

/// The source that holds a file the user named, and its path there: the game data for a `wow://`
/// path, else the file system.
pub fn source_of(
    path: &std::path::Path,
    game_data: Option<&std::sync::Arc<dyn crate::source::FileSource>>,
) -> (std::sync::Arc<dyn crate::source::FileSource>, String) {
    match (scene::game_data_path(path), game_data) {
        (Some(inside), Some(data)) => (data.clone(), inside.to_owned()),
        _ => {
            let (folder, relative) = crate::source::LooseFolder::containing(path);
            (std::sync::Arc::new(folder), relative)
        }
    }
}

/// `--info` for one file: its report on standard output, or its error on standard error.
fn print_info(
    path: &std::path::Path,
    game_data: Option<&std::sync::Arc<dyn crate::source::FileSource>>,
    listfile: Option<&crate::source::Listfile>,
    json: bool,
) -> ExitCode {
    let (source, inside) = source_of(path, game_data);
    let lookup = crate::scene::Lookup { data: game_data.map(|d| d.as_ref()), listfile };
    match info::gather_in(source.as_ref(), &inside, lookup) {
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
            if let Ok(bytes) = source.read(&inside) {
                let (tree, _) = crate::formats::parse_chunk_tree(&bytes);
                if !tree.is_empty() && !json {
                    print_to_stdout(&format!(
                        "chunks up to where reading broke (id, offset, length):\n{}",
                        info::tree_text(&tree)
                    ));
                }
            }
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Bevy's logging with the asset server's load errors left out, and the targets in `off` too: the
/// viewer reports a file that fails to load itself, in one line, where Bevy's would add a backtrace
/// whenever `RUST_BACKTRACE` is set. `RUST_LOG` replaces this filter, so a developer still sees them.
pub(crate) fn log_plugin(off: &[&str]) -> bevy::log::LogPlugin {
    let mut filter = format!("{},bevy_asset::server=off", bevy::log::DEFAULT_FILTER);
    for target in off {
        filter.push_str(&format!(",{target}=off"));
    }
    bevy::log::LogPlugin { filter, ..Default::default() }
}
