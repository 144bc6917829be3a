//! Warnings as values, from the parsers to the viewer: each names its file, the chunk and the byte
//! offset where the format layer knows them, and a kind, so repeated problems can be counted as one.

use std::fmt;

use crate::formats::Warning;

/// What sort of problem a warning is, for grouping and for filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticKind {
    /// The parser read past something odd (a count that disagrees with the data, an unknown value).
    Format,
    /// A file the scene needs (a group, a skin, a texture, a doodad model, the root) is not there.
    MissingFile,
    /// A file the scene needs is there but could not be read or decoded.
    UnreadableFile,
    /// Geometry that could not be drawn and was left out (degenerate polygons, bad indices).
    DroppedGeometry,
    /// Something the file asks for that this viewer does not do (replaceable textures, node graphs).
    Unsupported,
}

/// One problem found while loading.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    /// The file it concerns, as its source names it.
    pub file: String,
    /// Chunk path inside the file, when the problem is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    pub message: String,
}

impl Diagnostic {
    pub fn new(kind: DiagnosticKind, file: impl Into<String>, message: impl Into<String>) -> Self {
        Self { kind, file: file.into(), chunk: None, offset: None, message: message.into() }
    }

    /// A parser's warning about `file`. A warning that names no chunk is about the file as a whole and
    /// carries no offset.
    pub fn from_format(file: &str, warning: &Warning) -> Self {
        let located = !warning.path.is_empty();
        Self {
            kind: DiagnosticKind::Format,
            file: file.to_owned(),
            chunk: located.then(|| warning.path.clone()),
            offset: located.then_some(warning.offset),
            message: warning.message.clone(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file);
        match (&self.chunk, self.offset) {
            (Some(chunk), Some(offset)) => write!(f, "{name}: {chunk} at byte {offset} (0x{offset:X}): {}", self.message),
            (Some(chunk), None) => write!(f, "{name}: {chunk}: {}", self.message),
            _ => write!(f, "{name}: {}", self.message),
        }
    }
}

/// Identical problems (same kind and message, whatever file or offset) as one line with a count, in
/// the order they first appeared: a texture missing from forty batches is one line, not forty.
pub fn grouped(diagnostics: &[Diagnostic]) -> Vec<(usize, &Diagnostic)> {
    let mut out: Vec<(usize, &Diagnostic)> = Vec::new();
    let mut seen: std::collections::HashMap<(DiagnosticKind, &str), usize> = std::collections::HashMap::new();
    for d in diagnostics {
        match seen.get(&(d.kind, d.message.as_str())) {
            Some(&i) => out[i].0 += 1,
            None => {
                seen.insert((d.kind, d.message.as_str()), out.len());
                out.push((1, d));
            }
        }
    }
    out
}

/// The grouped lines as text: `message (×N)` where a problem repeats.
pub fn grouped_lines(diagnostics: &[Diagnostic]) -> Vec<String> {
    grouped(diagnostics)
        .into_iter()
        .map(|(count, d)| if count > 1 { format!("{d} ({count} times)") } else { d.to_string() })
        .collect()
}
