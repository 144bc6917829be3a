//! `--output-dir DIR PATH…`: thumbnails of many models in one process. Each PATH is a model file, a
//! folder (searched recursively for models) or, with `--data`, a path or `*` wildcard inside the game
//! data. The windowless renderer (`headless`) draws one model while the next ones load; this module
//! finds the models, names their images, and writes `DIR/index.csv` and the summary.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::formats::wmo::root_of_group_file;
use crate::formats::{is_model_path, is_supported_path};
use crate::source::{FileSource, files_matching};

use super::scene::in_game_data;

/// One model to render.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchJob {
    /// The model as the index names it: the path on disk, or the path inside the game data.
    pub label: String,
    /// What the viewer opens: a path on disk or a `wow://` path.
    pub model: PathBuf,
    /// The PNG's path under the output folder.
    pub image: PathBuf,
    /// Its place in the index: the order the paths were named in, then the order found.
    pub order: usize,
}

/// A named PATH that gave nothing to render, and why; it is a row of the index too.
#[derive(Clone, Debug, PartialEq)]
pub struct NotRendered {
    pub label: String,
    pub reason: String,
    /// A path that should have been a model (missing, unreadable) rather than one that is not a model.
    pub failed: bool,
    pub order: usize,
}

#[derive(Debug, Default)]
pub struct Collected {
    pub jobs: Vec<BatchJob>,
    pub not_rendered: Vec<NotRendered>,
    /// WMO group files met in folders: drawn through their root, not alone.
    pub group_files_skipped: usize,
}

/// The models that `paths` name, in order: files as given, each folder's models sorted by path, each
/// wildcard's matches sorted.
pub fn collect(paths: &[PathBuf], game_data: Option<&dyn FileSource>) -> Collected {
    let mut collected = Collected::default();
    let mut images = ImageNames::default();
    for path in paths {
        let label = path.display().to_string();
        if path.is_file() {
            // A file named on its own is tried by its content, as `--output` does: only one that
            // starts like no model is passed over.
            if is_supported_path(path) || starts_like_a_model(path) {
                let name = path.file_name().map(PathBuf::from).unwrap_or_default();
                collected.jobs.push(BatchJob {
                    label,
                    model: path.clone(),
                    image: images.claim(&name),
                    order: next_order(&collected),
                });
            } else {
                collected.not_rendered.push(NotRendered {
                    label,
                    reason: format!("skipped: not a model (a {} file)", extension_list()),
                    failed: false,
                    order: next_order(&collected),
                });
            }
        } else if path.is_dir() {
            let top = path.file_name().map(PathBuf::from).unwrap_or_default();
            let before = collected.jobs.len();
            for file in models_in_folder(path) {
                if is_group_file_beside_root(&file) {
                    collected.group_files_skipped += 1;
                    continue;
                }
                let relative = file.strip_prefix(path).map(Path::to_path_buf).unwrap_or_else(|_| file.clone());
                collected.jobs.push(BatchJob {
                    label: file.display().to_string(),
                    model: file,
                    image: images.claim(&top.join(relative)),
                    order: next_order(&collected),
                });
            }
            if collected.jobs.len() == before {
                collected.not_rendered.push(NotRendered {
                    label,
                    reason: "skipped: the folder holds no model".into(),
                    failed: false,
                    order: next_order(&collected),
                });
            }
        } else if let Some(data) = game_data {
            let pattern = path.to_string_lossy();
            let matches: Vec<String> =
                files_matching(data, &pattern).into_iter().filter(|p| wanted_match(&pattern, p)).collect();
            let before = collected.jobs.len();
            let wildcard = pattern.contains('*');
            for found in matches {
                // A group file named on its own is drawn alone, as on disk; one a wildcard meets is
                // drawn with its root.
                let is_group = wildcard
                    && root_of_group_file(&found).is_some_and(|(root, _)| {
                        let folder = found.rsplit_once('/').map_or("", |(folder, _)| folder);
                        data.find(&if folder.is_empty() { root.clone() } else { format!("{folder}/{root}") }).is_some()
                    });
                if is_group {
                    collected.group_files_skipped += 1;
                    continue;
                }
                collected.jobs.push(BatchJob {
                    label: found.clone(),
                    model: in_game_data(&found),
                    image: images.claim(Path::new(&found)),
                    order: next_order(&collected),
                });
            }
            if collected.jobs.len() == before {
                collected.not_rendered.push(NotRendered {
                    label,
                    reason: format!("no model in the game data {} matches", data.describe()),
                    failed: true,
                    order: next_order(&collected),
                });
            }
        } else {
            collected.not_rendered.push(NotRendered {
                label,
                reason: "not found".into(),
                failed: true,
                order: next_order(&collected),
            });
        }
    }
    // A model named twice (a folder and a file in it, overlapping wildcards) is drawn once.
    let mut seen = HashSet::new();
    collected.jobs.retain(|job| seen.insert(job.model.clone()));
    collected
}

fn next_order(collected: &Collected) -> usize {
    collected.jobs.len() + collected.not_rendered.len()
}

fn starts_like_a_model(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic));
    read.is_ok() && crate::formats::FORMATS.iter().any(|f| f.magics.contains(&&magic))
}

/// A wildcard's matches are models, or textures where the pattern names their extension (`*.blp`).
fn wanted_match(pattern: &str, found: &str) -> bool {
    let extension = |path: &str| Path::new(path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let asks_for_this_type = extension(pattern).is_some_and(|e| extension(found) == Some(e));
    is_model_path(Path::new(found)) || (asks_for_this_type && is_supported_path(Path::new(found)))
}

fn extension_list() -> String {
    let all: Vec<String> = crate::formats::FORMATS.iter().flat_map(|f| f.extensions).map(|e| format!(".{e}")).collect();
    all.join(", ")
}

/// Model files under `dir`, recursively, sorted by path; unreadable folders are passed over.
fn models_in_folder(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(path),
                Ok(_) if path.is_file() && is_model_path(&path) => found.push(path),
                _ => {}
            }
        }
    }
    found.sort();
    found
}

/// `Name_NNN.wmo` with `Name.wmo` in the same folder.
fn is_group_file_beside_root(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    root_of_group_file(name).is_some_and(|(root, _)| {
        path.parent().and_then(|dir| crate::source::LooseFolder::new(dir).resolve(&root)).is_some()
    })
}

/// Image names, each used once: `model.lwo` → `model.lwo.png` (the model's extension stays, so that
/// `x.wmo` and `x.m2` do not meet), and a second `model.lwo.png` becomes `model.lwo-2.png`.
#[derive(Default)]
struct ImageNames(HashSet<String>);

impl ImageNames {
    fn claim(&mut self, model: &Path) -> PathBuf {
        // Only the path's plain names: a listfile entry like `..\..\x.m2` or an absolute one stays
        // under the output folder.
        let text = model.to_string_lossy().replace('\\', "/");
        let base = text
            .split('/')
            .filter(|part| !part.is_empty() && *part != "." && *part != ".." && !part.ends_with(':'))
            .collect::<Vec<_>>()
            .join("/");
        for n in 1.. {
            let candidate = if n == 1 { format!("{base}.png") } else { format!("{base}-{n}.png") };
            if self.0.insert(candidate.to_ascii_lowercase()) {
                return PathBuf::from(candidate);
            }
        }
        unreachable!("the counter runs until a name is free")
    }
}

/// What became of one row of the index.
#[derive(Clone, Debug)]
pub struct BatchRow {
    pub label: String,
    pub format: String,
    pub triangles: Option<usize>,
    pub warnings: usize,
    /// Empty when the image was written.
    pub error: String,
    pub milliseconds: u128,
    /// Under the output folder; empty when none was written.
    pub image: String,
    pub outcome: Outcome,
    pub order: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Rendered,
    Failed,
    Skipped,
}

impl BatchRow {
    pub fn not_rendered(item: &NotRendered) -> Self {
        Self {
            label: item.label.clone(),
            format: String::new(),
            triangles: None,
            warnings: 0,
            error: item.reason.clone(),
            milliseconds: 0,
            image: String::new(),
            outcome: if item.failed { Outcome::Failed } else { Outcome::Skipped },
            order: item.order,
        }
    }
}

/// The index's header; each row follows it in this order.
pub const INDEX_COLUMNS: &str = "file,format,triangles,warnings,error,milliseconds,image";

/// `DIR/index.csv`, one row per model and per named PATH that gave none, in the order they were
/// named (RFC 4180 quoting).
pub fn write_index(dir: &Path, rows: &[BatchRow]) -> std::io::Result<PathBuf> {
    let mut text = format!("{INDEX_COLUMNS}\n");
    let mut ordered: Vec<&BatchRow> = rows.iter().collect();
    ordered.sort_by_key(|r| r.order);
    for row in ordered {
        let fields = [
            csv_field(&row.label),
            csv_field(&row.format),
            row.triangles.map(|t| t.to_string()).unwrap_or_default(),
            row.warnings.to_string(),
            csv_field(&row.error),
            row.milliseconds.to_string(),
            csv_field(&row.image),
        ];
        text.push_str(&fields.join(","));
        text.push('\n');
    }
    let path = dir.join("index.csv");
    std::fs::write(&path, text)?;
    Ok(path)
}

fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}

/// The closing lines: counts, the time and the rate, then each failure with its error.
pub fn summary(rows: &[BatchRow], group_files_skipped: usize, seconds: f64, index: &Path) -> String {
    let count = |outcome| rows.iter().filter(|r| r.outcome == outcome).count();
    let (rendered, failed, skipped) = (count(Outcome::Rendered), count(Outcome::Failed), count(Outcome::Skipped));
    let per_minute = if seconds > 0.0 { rendered as f64 * 60.0 / seconds } else { 0.0 };
    let mut out = format!("rendered {rendered}, failed {failed}, skipped {skipped}");
    if group_files_skipped > 0 {
        out.push_str(&format!(" (and {group_files_skipped} WMO group files, drawn with their roots)"));
    }
    out.push_str(&format!(" in {seconds:.1} s, {per_minute:.0} models per minute; index: {}\n", index.display()));
    for row in rows.iter().filter(|r| r.outcome == Outcome::Failed) {
        out.push_str(&format!("failed: {}: {}\n", row.label, row.error));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_names_keep_the_extension_and_never_repeat() {
        let mut names = ImageNames::default();
        assert_eq!(names.claim(Path::new("a/box.lwo")), PathBuf::from("a/box.lwo.png"));
        assert_eq!(names.claim(Path::new("a/box.m2")), PathBuf::from("a/box.m2.png"));
        assert_eq!(names.claim(Path::new("a/BOX.lwo")), PathBuf::from("a/BOX.lwo-2.png"));
        assert_eq!(
            names.claim(Path::new(r"..\..\C:\x.m2")),
            PathBuf::from("x.m2.png"),
            "never outside the output folder"
        );
        assert_eq!(names.claim(Path::new("/abs/y.m2")), PathBuf::from("abs/y.m2.png"));
    }

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a, b"), "\"a, b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
