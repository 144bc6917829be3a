//! `--export OUT.glb|OUT.gltf`: the scene loaded by the library, written by `export::gltf`, with one
//! summary line; no window and no Bevy.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use crate::export::{ExportOptions, write_file};
use crate::scene::{LoadOptions, load};

use super::cli::Args;

/// An export writes every sequence, so it reads every `.anim` file.
fn export_load_options(listfile: Option<std::sync::Arc<crate::source::Listfile>>) -> LoadOptions {
    LoadOptions { anim_files: crate::scene::anim_files::AnimFiles::All, listfile, ..LoadOptions::default() }
}

/// `--animation SPEC` for the opened model, or `None` with a warning (not a moving M2, no such sequence).
fn chosen_sequence(scene: &crate::scene::Scene, spec: &str) -> Option<usize> {
    let opened = scene.files.first().and_then(|f| f.document.as_deref()).map(|d| &d.model);
    let Some(crate::formats::Model::M2(model)) = opened else {
        eprintln!("warning: --animation {spec}: the file is not an M2 model");
        return None;
    };
    crate::animation::find_sequence(&model.animation, spec)
        .map_err(|message| eprintln!("warning: --animation: {message}"))
        .ok()
}

pub fn run(args: &Args, out: &Path) -> ExitCode {
    let Some(path) = args.file.as_deref() else {
        eprintln!("--export needs a FILE");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let (source, relative) = super::source_of(path, args.game_data.as_ref());
    let options = export_load_options(args.listfile_read.clone());
    let scene = match load(source.as_ref(), &relative, args.game_data.as_deref(), &options) {
        Ok(scene) => scene,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    for warning in &scene.warnings {
        eprintln!("warning: {warning}");
    }
    let options = ExportOptions {
        doodad_set: args.doodad_set,
        portals: args.export_portals,
        liquids: args.export_liquids,
        morph_weights: &args.morph,
        progress: None,
        material_animation: args.export_material_animation,
        // A sequence named without a time is posed at its start.
        pose_at: args.time.or(args.animation.as_ref().map(|_| 0.0)),
        sequence: args.animation.as_deref().and_then(|spec| chosen_sequence(&scene, spec)),
    };
    match write_file(&scene, &options, out) {
        Ok(report) => {
            for note in &report.notes {
                eprintln!("note: {note}");
            }
            println!(
                "{}: {} nodes, {} meshes, {} materials, {} textures, {} triangles, {} bytes in {:.2} s",
                out.display(),
                report.nodes,
                report.meshes,
                report.materials,
                report.textures,
                report.triangles,
                report.bytes,
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        // An I/O error names its file already; the others are about the one being written.
        Err(e @ crate::export::ExportError::Io { .. }) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}

/// What the window shows, as the writer needs it: the file, its data root, the doodad set and the
/// morph weights.
pub struct ExportRequest {
    pub file: std::path::PathBuf,
    pub data: Option<std::sync::Arc<dyn crate::source::FileSource>>,
    pub doodad_set: u32,
    pub morph_weights: Vec<(String, f32)>,
    pub listfile: Option<std::sync::Arc<crate::source::Listfile>>,
}

/// File ▸ Export in the window (and the control hook's `export PATH`): the shown file loaded again by
/// the library with its vertex data (the window's copy lives on the GPU side) and written on a task,
/// with its progress in the menu bar.
#[derive(bevy::prelude::Resource, Default)]
pub struct WindowExport {
    dialog: Option<bevy::tasks::Task<Option<std::path::PathBuf>>>,
    running: Option<Running>,
    /// What the last export did, for the menu bar and the control hook.
    pub status: Option<String>,
}

struct Running {
    task: bevy::tasks::Task<Result<String, String>>,
    progress: std::sync::Arc<[std::sync::atomic::AtomicUsize; 2]>,
}

impl WindowExport {
    /// Asks for the output file with the save dialog.
    pub fn ask(&mut self, start_dir: Option<std::path::PathBuf>) {
        if self.dialog.is_some() || self.running.is_some() {
            return;
        }
        self.dialog = Some(bevy::tasks::AsyncComputeTaskPool::get().spawn(async move {
            let mut dialog = rfd::AsyncFileDialog::new()
                .set_title("Export glTF")
                .add_filter("glTF binary", &["glb"])
                .add_filter("glTF", &["gltf"]);
            if let Some(dir) = start_dir {
                dialog = dialog.set_directory(dir);
            }
            dialog.set_file_name("export.glb").save_file().await.map(|f| f.path().to_path_buf())
        }));
    }

    /// Writes the shown file, as the window shows it, to `out` on a task.
    pub fn start(&mut self, shown: ExportRequest, out: std::path::PathBuf) {
        let ExportRequest { file, data, doodad_set, morph_weights, listfile } = shown;
        if self.running.is_some() {
            return;
        }
        let progress: std::sync::Arc<[std::sync::atomic::AtomicUsize; 2]> = std::sync::Arc::new(Default::default());
        let shared = progress.clone();
        let task = bevy::tasks::AsyncComputeTaskPool::get().spawn(async move {
            let started = Instant::now();
            let (source, relative) = super::source_of(&file, data.as_ref());
            let options = export_load_options(listfile);
            let scene = load(source.as_ref(), &relative, data.as_deref(), &options).map_err(|e| e.to_string())?;
            let report_progress = |done: usize, total: usize| {
                shared[0].store(done, std::sync::atomic::Ordering::Relaxed);
                shared[1].store(total, std::sync::atomic::Ordering::Relaxed);
            };
            let options = ExportOptions {
                doodad_set,
                portals: false,
                liquids: false,
                morph_weights: &morph_weights,
                progress: Some(&report_progress),
                ..ExportOptions::default()
            };
            let report = write_file(&scene, &options, &out).map_err(|e| format!("{}: {e}", out.display()))?;
            Ok(format!(
                "exported {} ({} nodes, {} triangles, {} bytes) in {:.1} s",
                out.display(),
                report.nodes,
                report.triangles,
                report.bytes,
                started.elapsed().as_secs_f64()
            ))
        });
        self.status = Some("exporting…".into());
        self.running = Some(Running { task, progress });
    }

    /// Advances the dialog and the running export; `open` says what to export when a path was chosen.
    pub fn poll(&mut self, open: Option<ExportRequest>) {
        if let Some(task) = self.dialog.as_mut()
            && let Some(chosen) = bevy::tasks::block_on(bevy::tasks::poll_once(task))
        {
            self.dialog = None;
            if let (Some(out), Some(shown)) = (chosen, open) {
                self.start(shown, out);
            }
        }
        if let Some(running) = self.running.as_mut() {
            let [done, total] = [0, 1].map(|k| running.progress[k].load(std::sync::atomic::Ordering::Relaxed));
            match bevy::tasks::block_on(bevy::tasks::poll_once(&mut running.task)) {
                Some(result) => {
                    self.status = Some(result.unwrap_or_else(|e| format!("export failed: {e}")));
                    self.running = None;
                }
                None if total > 0 => self.status = Some(format!("exporting… {} %", done * 100 / total)),
                None => {}
            }
        }
    }
}
