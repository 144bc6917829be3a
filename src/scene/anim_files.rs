//! Version-264 sequences whose keys live in `.anim` files beside the model (`Name0004-01.anim` for
//! Walk, variation 1): read when the sequence first plays, not with the model, as the client does. The
//! scene reads the sequence a model plays at rest (doodads play nothing else); the plugin reads the
//! others when they are chosen; the glTF export reads them all.

use std::sync::Arc;

use crate::formats::m2::{anim_file_name, animation_name};
use crate::formats::{Document, Model};
use crate::source::FileSource;

use super::diagnostics::{Diagnostic, DiagnosticKind};
use super::{file_name, find_sibling};

/// Which sequences' `.anim` files a scene build reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnimFiles {
    /// The sequence each model plays when nothing is chosen (Stand).
    #[default]
    Played,
    /// Every sequence (an export writes them all).
    All,
}

/// Reads into `document` (an M2 at `model_path` in `source`) the keys of `sequence` (an alias already
/// followed) that wait in its `.anim` file. `None` when nothing waited or the file was read whole;
/// otherwise the warning: the file is missing or unreadable (the sequence then plays only the keys kept
/// in the .m2), or some tracks run past its end (those play without keys).
pub fn read_anim_file(
    source: &dyn FileSource,
    model_path: &str,
    document: &mut Arc<Document>,
    sequence: usize,
) -> Option<Diagnostic> {
    let Model::M2(model) = &document.model else { return None };
    if !model.animation.waits_for_anim_file(sequence) {
        return None;
    }
    let record = &model.animation.sequences[sequence];
    let name = anim_file_name(file_name(model_path), record);
    let what = match animation_name(record.id) {
        Some(id_name) => format!("{id_name} ({}.{})", record.id, record.variation),
        None => format!("sequence {}.{}", record.id, record.variation),
    };
    let model_file = source.display_path(model_path);
    let found = find_sibling(source, model_path, &name);
    let read = found.as_deref().map(|path| source.read(path));
    let Model::M2(model) = &mut Arc::make_mut(document).model else { return None };
    let (found, bytes) = match (found, read) {
        (Some(found), Some(Ok(bytes))) => (found, bytes),
        // Looked for once: the warning is given here, not again each time the sequence plays.
        (None, _) | (_, None) => {
            model.animation.anim_file_missing(sequence);
            let message = format!("{name} is missing beside the model; {what} plays only the keys kept in the .m2");
            return Some(Diagnostic::new(DiagnosticKind::MissingFile, model_file, message));
        }
        (Some(found), Some(Err(e))) => {
            model.animation.anim_file_missing(sequence);
            let message = format!("{e}; {what} plays only the keys kept in the .m2");
            return Some(Diagnostic::new(DiagnosticKind::UnreadableFile, source.display_path(&found), message));
        }
    };
    // Legion's `.anim` files are chunked (AFM2 …), their offsets counting from a chunk: not read.
    if bytes.starts_with(b"AFM2") || bytes.starts_with(b"AFSA") || bytes.starts_with(b"AFSB") {
        model.animation.anim_file_missing(sequence);
        let message = format!(
            "a chunked (Legion) .anim file, which this viewer does not read; {what} plays only the keys kept in the .m2"
        );
        return Some(Diagnostic::new(DiagnosticKind::UnreadableFile, source.display_path(&found), message));
    }
    let problems = model.animation.resolve_anim_file(sequence, &bytes);
    let first = problems.first()?;
    let message = format!(
        "{} of {what}'s tracks run past the end of the file ({} bytes) and play without keys; the first: {first}",
        problems.len(),
        bytes.len()
    );
    Some(Diagnostic::new(DiagnosticKind::Format, source.display_path(&found), message))
}

/// The sequences of `document` whose `.anim` files a build that reads `which` reads.
pub fn sequences_to_read(document: &Document, which: AnimFiles) -> Vec<usize> {
    let Model::M2(model) = &document.model else { return Vec::new() };
    let animation = &model.animation;
    match which {
        AnimFiles::Played => animation.default_sequence().map(|s| animation.resolve_alias(s)).into_iter().collect(),
        AnimFiles::All => (0..animation.sequences.len()).collect(),
    }
}

/// Reads the `.anim` files `which` asks for of every moving M2 in `scene`, with a warning for each
/// missing or damaged one. The opened file's are beside it in `source`; a doodad model's beside it in
/// `data`, where it was found.
pub(super) fn read_for_scene(
    scene: &mut super::Scene,
    source: &dyn FileSource,
    data: Option<&dyn FileSource>,
    which: AnimFiles,
) {
    let mut files: Vec<usize> = scene.skeletons.iter().map(|s| s.model_file).collect();
    files.extend(scene.animated_materials.iter().map(|m| m.model_file));
    files.sort_unstable();
    files.dedup();
    for file in files {
        let Some(from) = (if file == 0 { Some(source) } else { data }) else { continue };
        let scene_file = &mut scene.files[file];
        let Some(document) = scene_file.document.as_mut() else { continue };
        for sequence in sequences_to_read(document, which) {
            if let Some(warning) = read_anim_file(from, &scene_file.path, document, sequence) {
                scene.warnings.push(warning);
            }
        }
    }
}
