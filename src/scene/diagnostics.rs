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

/// What asked for a texture, so that a missing one is one line for all that use it: "used by 12
/// texture units of 4 models".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextureUser {
    /// An M2 texture unit; the file is the model.
    TextureUnit,
    /// A WMO material (MOMT entry); the file is the root.
    WmoMaterial,
    /// A LightWave surface; the file is the object.
    Surface,
}

impl TextureUser {
    /// The user and the file that holds it, each singular or plural by the count.
    fn words(self, users: usize, files: usize) -> (&'static str, &'static str) {
        let (one, many, file, file_many) = match self {
            Self::TextureUnit => ("texture unit", "texture units", "model", "models"),
            Self::WmoMaterial => ("material", "materials", "WMO", "WMOs"),
            Self::Surface => ("surface", "surfaces", "object", "objects"),
        };
        (if users == 1 { one } else { many }, if files == 1 { file } else { file_many })
    }
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
    /// For a texture that could not be shown: what asked for it (one diagnostic per use).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_by: Option<TextureUser>,
}

impl Diagnostic {
    pub fn new(kind: DiagnosticKind, file: impl Into<String>, message: impl Into<String>) -> Self {
        Self { kind, file: file.into(), chunk: None, offset: None, message: message.into(), used_by: None }
    }

    pub fn used_by(self, user: TextureUser) -> Self {
        Self { used_by: Some(user), ..self }
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
            used_by: None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file);
        match (&self.chunk, self.offset) {
            (Some(chunk), Some(offset)) => {
                write!(f, "{name}: {chunk} at byte {offset} (0x{offset:X}): {}", self.message)
            }
            (Some(chunk), None) => write!(f, "{name}: {chunk}: {}", self.message),
            _ => write!(f, "{name}: {}", self.message),
        }
    }
}

/// One distinct problem: the first diagnostic of it, how many there were and in how many files.
#[derive(Clone, Copy, Debug)]
pub struct Group<'a> {
    pub first: &'a Diagnostic,
    pub count: usize,
    pub files: usize,
}

/// Identical problems (same kind and message, whatever file or offset) as one group, in the order
/// they first appeared: a texture missing from forty batches is one line, not forty.
pub fn grouped(diagnostics: &[Diagnostic]) -> Vec<Group<'_>> {
    let mut out: Vec<(Group<'_>, std::collections::HashSet<&str>)> = Vec::new();
    let mut seen: std::collections::HashMap<(DiagnosticKind, &str, Option<TextureUser>), usize> =
        std::collections::HashMap::new();
    for d in diagnostics {
        let i = *seen.entry((d.kind, d.message.as_str(), d.used_by)).or_insert_with(|| {
            out.push((Group { first: d, count: 0, files: 0 }, Default::default()));
            out.len() - 1
        });
        let (group, files) = &mut out[i];
        group.count += 1;
        files.insert(d.file.as_str());
        group.files = files.len();
    }
    out.into_iter().map(|(group, _)| group).collect()
}

/// The grouped lines as text. A texture's line says what uses it ("texture X: not found; a
/// placeholder is shown, for 12 texture units of 4 models"), naming the file only when it is one;
/// another problem that repeats ends with "(N times)".
pub fn grouped_lines(diagnostics: &[Diagnostic]) -> Vec<String> {
    grouped(diagnostics)
        .into_iter()
        .map(|Group { first, count, files }| match first.used_by {
            Some(user) if count > 1 => {
                let (users, holders) = user.words(count, files);
                let text = if files == 1 { first.to_string() } else { first.message.clone() };
                format!("{text}, for {count} {users} of {files} {holders}")
            }
            _ if count > 1 && files > 1 => format!("{} ({count} times, in {files} files)", first.message),
            _ if count > 1 => format!("{first} ({count} times)"),
            _ => first.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_texture_is_one_line_saying_what_uses_it() {
        let message = "texture World\\Creature\\Skin.blp: not found under the data root; a placeholder is shown";
        let mut all = Vec::new();
        for (model, units) in [("A.m2", 5), ("B.m2", 4), ("C.m2", 2), ("D.m2", 1)] {
            for _ in 0..units {
                all.push(
                    Diagnostic::new(DiagnosticKind::MissingFile, model, message).used_by(TextureUser::TextureUnit),
                );
            }
        }
        // The same texture missing for the WMO's own materials is a line of its own.
        all.push(Diagnostic::new(DiagnosticKind::MissingFile, "Inn.wmo", message).used_by(TextureUser::WmoMaterial));
        all.push(Diagnostic::new(DiagnosticKind::MissingFile, "Inn.wmo", message).used_by(TextureUser::WmoMaterial));
        all.push(Diagnostic::new(DiagnosticKind::MissingFile, "Lamp.m2", "Lamp00.skin is missing"));
        let lines = grouped_lines(&all);
        assert_eq!(
            lines,
            [
                format!("{message}, for 12 texture units of 4 models"),
                format!("Inn.wmo: {message}, for 2 materials of 1 WMO"),
                "Lamp.m2: Lamp00.skin is missing".to_owned(),
            ]
        );
    }
}
