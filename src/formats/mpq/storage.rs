//! Where an archive's bytes are: a file on disk read at positions (so many threads can read one archive
//! and a multi-gigabyte client is never loaded whole), bytes in memory, or any seekable reader.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::{Arc, Mutex};

/// Positioned reads over an archive's bytes.
pub trait Storage: Send + Sync {
    fn size(&self) -> u64;
    /// Fills `buffer` from `offset`; the caller has checked that the range lies inside [`Storage::size`].
    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()>;
}

pub struct FileStorage {
    #[cfg(unix)]
    file: std::fs::File,
    #[cfg(not(unix))]
    file: Mutex<std::fs::File>,
    len: u64,
}

impl FileStorage {
    pub fn new(file: std::fs::File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        #[cfg(not(unix))]
        let file = Mutex::new(file);
        Ok(Self { file, len })
    }
}

impl Storage for FileStorage {
    fn size(&self) -> u64 {
        self.len
    }

    #[cfg(unix)]
    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buffer, offset)
    }

    #[cfg(not(unix))]
    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        let mut file = self.file.lock().map_err(|_| io::Error::other("archive file lock poisoned"))?;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buffer)
    }
}

pub struct BytesStorage(pub Arc<[u8]>);

impl Storage for BytesStorage {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| io::ErrorKind::UnexpectedEof)?;
        let end = start.checked_add(buffer.len()).ok_or(io::ErrorKind::UnexpectedEof)?;
        let source = self.0.get(start..end).ok_or(io::ErrorKind::UnexpectedEof)?;
        buffer.copy_from_slice(source);
        Ok(())
    }
}

/// Any `Read + Seek`, behind a lock since a seek and a read must not interleave with another thread's.
pub struct ReaderStorage<R> {
    reader: Mutex<R>,
    len: u64,
}

impl<R: Read + Seek + Send> ReaderStorage<R> {
    pub fn new(mut reader: R) -> io::Result<Self> {
        let len = reader.seek(SeekFrom::End(0))?;
        Ok(Self { reader: Mutex::new(reader), len })
    }
}

impl<R: Read + Seek + Send> Storage for ReaderStorage<R> {
    fn size(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        let mut reader = self.reader.lock().map_err(|_| io::Error::other("archive reader lock poisoned"))?;
        reader.seek(SeekFrom::Start(offset))?;
        reader.read_exact(buffer)
    }
}
