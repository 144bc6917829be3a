//! `--export OUT.glb|OUT.gltf`: the scene loaded by the library, written by `export::gltf`, with one
//! summary line; no window and no Bevy.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use crate::export::{write_file, ExportOptions};
use crate::scene::{load, LoadOptions};
use crate::source::LooseFolder;

use super::cli::Args;

pub fn run(args: &Args, out: &Path) -> ExitCode {
    let Some(path) = args.file.as_deref() else {
        eprintln!("--export needs a FILE");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let (source, relative) = LooseFolder::containing(path);
    let data = args.data.as_ref().map(LooseFolder::new);
    let scene = match load(&source, &relative, data.as_ref().map(|d| d as _), &LoadOptions::default()) {
        Ok(scene) => scene,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    for warning in &scene.warnings {
        eprintln!("warning: {warning}");
    }
    let options = ExportOptions { doodad_set: args.doodad_set, portals: args.export_portals, liquids: args.export_liquids, progress: None };
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
