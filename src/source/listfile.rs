//! The community listfile: one `FileDataID;path` line per file of a modern client, which maps the
//! numbers an MD21 model names its skins, textures and animations by to paths in the game data.
//!
//! Two million lines are kept as one buffer of paths and a sorted table of (id, where its path starts):
//! twelve bytes a file plus the paths, with no allocation per line.

use std::path::Path;

#[derive(Debug, Default)]
pub struct Listfile {
    /// Every path, back to back.
    paths: String,
    /// (FileDataID, start of its path in `paths`, its length), sorted by id.
    entries: Vec<(u32, u32, u32)>,
}

/// Why a listfile could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ListfileError {
    #[error("{file}: {error}")]
    Io { file: String, error: std::io::Error },
    #[error("{file}: line {line} is not `FileDataID;path`: {text:?}")]
    BadLine { file: String, line: usize, text: String },
    #[error("{file}: more than 4 GB of paths")]
    TooLarge { file: String },
}

impl Listfile {
    pub fn read(path: &Path) -> Result<Self, ListfileError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|error| ListfileError::Io { file: file.clone(), error })?;
        Self::parse(&String::from_utf8_lossy(&bytes), &file)
    }

    /// Parses `text`; `file` names it in errors. Blank lines are passed over; a later line for an id
    /// already listed wins, as later editions of the list correct earlier ones.
    pub fn parse(text: &str, file: &str) -> Result<Self, ListfileError> {
        let mut out = Listfile { paths: String::with_capacity(text.len()), entries: Vec::new() };
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let bad =
                || ListfileError::BadLine { file: file.to_owned(), line: n + 1, text: line.chars().take(80).collect() };
            let (id, name) = line.split_once([';', ',']).ok_or_else(bad)?;
            let id: u32 = id.trim().parse().map_err(|_| bad())?;
            let name = name.trim();
            let too_large = || ListfileError::TooLarge { file: file.to_owned() };
            let start = u32::try_from(out.paths.len()).map_err(|_| too_large())?;
            let length = u32::try_from(name.len()).map_err(|_| too_large())?;
            start.checked_add(length).ok_or_else(too_large)?;
            out.paths.push_str(name);
            out.entries.push((id, start, length));
        }
        // Stable: of equal ids the later line stays last; only that one is kept.
        out.entries.sort_by_key(|e| e.0);
        let mut kept: Vec<(u32, u32, u32)> = Vec::with_capacity(out.entries.len());
        for entry in out.entries.drain(..) {
            match kept.last_mut() {
                Some(last) if last.0 == entry.0 => *last = entry,
                _ => kept.push(entry),
            }
        }
        out.entries = kept;
        out.paths.shrink_to_fit();
        out.entries.shrink_to_fit();
        Ok(out)
    }

    /// The path of FileDataID `id`, as the list spells it.
    pub fn path(&self, id: u32) -> Option<&str> {
        let at = self.entries.binary_search_by_key(&id, |e| e.0).ok()?;
        let (_, start, length) = self.entries[at];
        Some(&self.paths[start as usize..(start + length) as usize])
    }

    /// How many files it names (an id listed twice counts once).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every path, for naming the unnamed files of an archive.
    pub fn paths(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|&(_, start, length)| &self.paths[start as usize..(start + length) as usize])
    }

    /// Bytes held: the paths and the table.
    pub fn memory(&self) -> usize {
        self.paths.capacity() + self.entries.capacity() * std::mem::size_of::<(u32, u32, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_map_to_paths_and_bad_lines_name_their_number() {
        let list = Listfile::parse(
            "466255;world/khazmodan/badlands/passivedoodads/trees/badlandspalmtree01.blp\r\n\n12;a.m2\n7;b.skin\n12;A2.m2\n",
            "list.csv",
        )
        .unwrap();
        assert_eq!(list.len(), 3, "ids listed twice count once");
        assert_eq!(list.path(466255), Some("world/khazmodan/badlands/passivedoodads/trees/badlandspalmtree01.blp"));
        assert_eq!(list.path(12), Some("A2.m2"), "a later line wins");
        assert_eq!((list.path(7), list.path(8), list.path(0)), (Some("b.skin"), None, None));
        let error = Listfile::parse("1;a\nnot a line\n", "list.csv").unwrap_err().to_string();
        assert_eq!(error, "list.csv: line 2 is not `FileDataID;path`: \"not a line\"");
    }

    /// A modern client's listfile has some two million lines: read in under a second, held in about
    /// twelve bytes a file besides its paths. A timing check, so not in the default suite: the bench's
    /// `--timing` section runs it.
    #[test]
    #[ignore = "a timing check: run by the bench (--timing) or with `cargo test -- --ignored timing_`"]
    fn timing_two_million_lines_load_in_under_a_second() {
        use std::fmt::Write;
        let mut text = String::new();
        for id in 0..2_000_000u32 {
            let _ = writeln!(
                text,
                "{},world/expansion{:02}/doodads/zone{}/model{id}_{:03}.m2",
                id * 3 + 1,
                id % 11,
                id % 97,
                id % 400
            );
        }
        let started = std::time::Instant::now();
        let list = Listfile::parse(&text, "generated").unwrap();
        let elapsed = started.elapsed();
        assert_eq!(list.len(), 2_000_000);
        assert_eq!(list.path(3 * 1_234_567 + 1), Some("world/expansion04/doodads/zone48/model1234567_167.m2"));
        let paths: usize = list.paths().map(str::len).sum();
        println!(
            "2,000,000 lines ({} MB) read in {elapsed:?}, held in {} MB ({} MB of paths)",
            text.len() >> 20,
            list.memory() >> 20,
            paths >> 20
        );
        assert!(list.memory() <= paths + 2_000_000 * 12 + 64, "{} bytes", list.memory());
        assert!(elapsed.as_secs_f64() < 1.0, "{elapsed:?}");
    }
}
