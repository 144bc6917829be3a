//! A folder of loose files on disk.

use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Entry, FileSource, SourceError, path_components};

/// Files under a folder on disk, each path component matched ignoring case when the exact spelling is
/// not there (the exact spelling is tried first, so a case-sensitive file system costs one `stat`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LooseFolder {
    root: PathBuf,
}

impl LooseFolder {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file on disk that `path` names under this folder, following `..` and matching case freely.
    pub fn resolve(&self, path: &str) -> Option<PathBuf> {
        let exact = self.root.join(path.replace('\\', "/"));
        if exact.exists() {
            return Some(exact);
        }
        let mut current = self.root.clone();
        for part in path_components(path) {
            current = if part == ".." { current.parent()?.to_path_buf() } else { find_in_folder(&current, part)? };
        }
        Some(current)
    }

    /// The folder holding everything (the file system's root) and `path`'s place in it, so that a file
    /// opened by an absolute path can reach its siblings, its content root and its data root through
    /// one source.
    pub fn containing(path: &Path) -> (Self, String) {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let root = absolute.ancestors().last().unwrap_or(Path::new("/")).to_path_buf();
        let source = Self::new(root);
        let relative = source.relative_path_of(&absolute).unwrap_or_else(|| absolute.display().to_string());
        (source, relative)
    }

    /// `path` under this folder's root, if it lies inside it, as a source path with `/` separators.
    pub fn relative_path_of(&self, path: &Path) -> Option<String> {
        let rest = path.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
        Some(parts?.join("/"))
    }
}

/// A file's whole contents, read straight into the shared buffer the sources hand out (an `Arc<[u8]>`
/// made from a `Vec` is a second copy). A file whose size is not known (`/proc`'s), or that shrinks
/// while it is read, is read to its end instead. One that grows while it is read is read as far as its
/// size when opened: a writer still at work is followed by `--watch`'s next reload.
pub fn read_file(path: &Path) -> io::Result<Arc<[u8]>> {
    let mut file = File::open(path)?;
    let size =
        file.metadata().ok().filter(|m| m.is_file()).and_then(|m| usize::try_from(m.len()).ok()).filter(|&n| n > 0);
    if let Some(size) = size {
        let mut bytes = zeroed_file_buffer(size)?;
        match file.read_exact(Arc::get_mut(&mut bytes).expect("made here, not shared yet")) {
            Ok(()) => return Ok(bytes),
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => file.rewind()?,
            Err(error) => return Err(error),
        }
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Arc::from(bytes))
}

/// A buffer of `size` zeros for a file's bytes to be read into ([`read_file`], and Bevy's reader in the
/// plugin). A size the system will not give memory for is an error, as `std::fs::read` makes it, not an
/// abort: asked first of a `Vec`, which can fail (an `Arc` cannot).
pub fn zeroed_file_buffer(size: usize) -> io::Result<Arc<[u8]>> {
    Vec::<u8>::new()
        .try_reserve_exact(size)
        .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, format!("no memory for a file of {size} bytes")))?;
    Ok(std::iter::repeat_n(0u8, size).collect())
}

/// Finds `name` directly inside `dir` ignoring ASCII case.
pub fn find_in_folder(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if exact.exists() {
        return Some(exact);
    }
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case(name)))
}

impl FileSource for LooseFolder {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn display_path(&self, path: &str) -> String {
        self.root.join(super::normalise(path)).display().to_string()
    }

    fn find(&self, path: &str) -> Option<String> {
        let found = self.resolve(path).filter(|p| p.is_file())?;
        self.relative_path_of(&found).or_else(|| Some(super::normalise(path)))
    }

    fn read(&self, path: &str) -> Result<Arc<[u8]>, SourceError> {
        // An unresolved path is still read as written, so the error is the operating system's own.
        let on_disk = self.resolve(path).unwrap_or_else(|| self.root.join(super::normalise(path)));
        if on_disk.is_dir() {
            return Err(SourceError::Io {
                file: on_disk.display().to_string(),
                error: std::io::Error::other("is a folder, not a file"),
            });
        }
        read_file(&on_disk).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => SourceError::NotFound { file: on_disk.display().to_string() },
            _ => SourceError::Io { file: on_disk.display().to_string(), error },
        })
    }

    fn list(&self, folder: &str) -> Vec<Entry> {
        let Some(dir) = self.resolve(folder).filter(|p| p.is_dir()) else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                Some(Entry {
                    name: e.file_name().to_str()?.to_owned(),
                    is_folder: meta.is_dir(),
                    size: if meta.is_dir() { 0 } else { meta.len() },
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_ignoring_case_and_separators() {
        let root = std::env::temp_dir().join(format!("lwo-wmo-viewer-loose-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("world/WMO/dungeon")).unwrap();
        std::fs::write(root.join("world/WMO/dungeon/Floor.blp"), b"blp").unwrap();
        let source = LooseFolder::new(&root);
        assert_eq!(source.find("World\\wmo\\Dungeon\\FLOOR.BLP").as_deref(), Some("world/WMO/dungeon/Floor.blp"));
        assert_eq!(&*source.read("WORLD/wmo/dungeon/floor.blp").unwrap(), b"blp");
        assert!(matches!(source.read("World/missing.blp"), Err(SourceError::NotFound { .. })));
        let listed = source.list("World\\WMO");
        assert_eq!(listed, vec![Entry { name: "dungeon".into(), is_folder: true, size: 0 }]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_file_is_read_whole_whether_its_size_is_known_or_not() {
        let root = std::env::temp_dir().join(format!("lwo-wmo-viewer-read-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let contents: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(root.join("some.lwo"), &contents).unwrap();
        std::fs::write(root.join("empty.lwo"), b"").unwrap();
        assert_eq!(&*read_file(&root.join("some.lwo")).unwrap(), &contents[..]);
        assert!(read_file(&root.join("empty.lwo")).unwrap().is_empty());
        // A file the system gives a size of 0 but that has contents: read to its end.
        #[cfg(target_os = "linux")]
        assert!(read_file(Path::new("/proc/self/status")).unwrap().starts_with(b"Name:"));
        assert_eq!(read_file(&root.join("missing.lwo")).unwrap_err().kind(), io::ErrorKind::NotFound);
        // A file larger than the memory (sparse: it takes no disk) is an error, not an abort. Where
        // the system promises any amount of memory (overcommit mode 1) the buffer would be made and
        // filled, so the case is left out there.
        #[cfg(target_os = "linux")]
        {
            let always_overcommits =
                std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|mode| mode.trim() == "1");
            if !always_overcommits && File::create(root.join("huge.lwo")).and_then(|f| f.set_len(1 << 42)).is_ok() {
                let read = read_file(&root.join("huge.lwo"));
                std::fs::remove_file(root.join("huge.lwo")).unwrap();
                assert_eq!(read.unwrap_err().kind(), io::ErrorKind::OutOfMemory);
            }
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Large files are read to the byte, each byte at its place, and the buffer the plugin reads into
    /// is zeros.
    #[test]
    fn a_large_file_is_every_byte_in_its_place() {
        let root = std::env::temp_dir().join(format!("lwo-wmo-viewer-large-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        let path = root.join("large.lwo");
        for size in [1 << 20, (5 << 20) + 123, 4 << 20, (4 << 20) + 1] {
            // The top byte of a 64-bit product: every bit of the offset counts, so no shifted run of
            // bytes reads as the same bytes.
            let contents: Vec<u8> =
                (0..size as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8).collect();
            std::fs::write(&path, &contents).unwrap();
            assert!(*read_file(&path).unwrap() == contents[..], "{size} bytes");
        }
        let zeros = zeroed_file_buffer((3 << 20) + 5).unwrap();
        assert!(zeros.len() == (3 << 20) + 5 && zeros.iter().all(|&b| b == 0));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
