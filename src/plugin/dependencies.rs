//! The loader's reads of a model's other files (WMO groups, M2 skins, textures, doodad models) go
//! through the asset server. The library's scene builder is synchronous and decides what to read as
//! it goes, so it runs on a thread of its own; each file it reads is asked of the load context, which
//! reads it from the asset source and records it as a dependency of the model (Bevy reloads the model
//! when a watched dependency changes). Finding files ignoring case and listing folders stay with the
//! file source, which knows its own names.

use std::path::PathBuf;
use std::sync::Arc;

use bevy::asset::io::AssetSourceId;
use bevy::asset::{AssetPath, LoadContext, ReadAssetBytesError};

use crate::source::{BrowseEntry, Entry, FileSource, SourceError};

/// Where a file source's files are in the asset server's terms.
#[derive(Clone, Debug)]
pub(super) enum AssetPlace {
    /// A file source registered as the asset source of this name: its paths are that source's paths.
    Named(String),
    /// Loose files under `folder` on disk, read through Bevy's file source: by their path under
    /// `assets_root` where they lie below it (the paths Bevy's file watcher reports), else by their
    /// absolute path.
    OnDisk { folder: PathBuf, assets_root: PathBuf },
}

impl AssetPlace {
    fn asset_path(&self, path: &str) -> AssetPath<'static> {
        // From a `PathBuf`, not text: a `#` in a file name is part of the name, not a label.
        match self {
            Self::Named(name) => {
                AssetPath::from(PathBuf::from(path)).with_source(AssetSourceId::Name(name.clone().into()))
            }
            Self::OnDisk { folder, assets_root } => {
                let full = folder.join(path);
                match full.strip_prefix(assets_root) {
                    Ok(inside) => AssetPath::from(inside.to_path_buf()),
                    Err(_) => AssetPath::from(full),
                }
            }
        }
    }
}

struct ReadRequest {
    asset_path: AssetPath<'static>,
    reply: async_channel::Sender<Result<Vec<u8>, ReadAssetBytesError>>,
}

/// A file source whose reads are made by the load context.
#[derive(Debug)]
struct ThroughAssetServer {
    files: Arc<dyn FileSource>,
    place: AssetPlace,
    requests: async_channel::Sender<ReadRequest>,
}

impl std::fmt::Debug for ReadRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "read {}", self.asset_path)
    }
}

impl FileSource for ThroughAssetServer {
    fn describe(&self) -> String {
        self.files.describe()
    }

    fn find(&self, path: &str) -> Option<String> {
        self.files.find(path)
    }

    fn read(&self, path: &str) -> Result<Arc<[u8]>, SourceError> {
        let (reply, answer) = async_channel::bounded(1);
        let asked = self.requests.send_blocking(ReadRequest { asset_path: self.place.asset_path(path), reply });
        match asked.ok().and_then(|()| answer.recv_blocking().ok()) {
            Some(Ok(bytes)) => Ok(Arc::from(bytes)),
            // The asset server's errors are text; the source says what is wrong as a value (a file
            // that is not there, a damaged archive sector). A file the source reads where the asset
            // server did not is not a dependency: that is worth a line for whoever wonders why.
            failed => {
                let direct = self.files.read(path);
                if let (Some(Err(error)), Ok(_)) = (&failed, &direct) {
                    bevy::log::debug!("{}: read directly, not as a dependency: {error}", self.files.display_path(path));
                }
                direct
            }
        }
    }

    fn list(&self, folder: &str) -> Vec<Entry> {
        self.files.list(folder)
    }

    fn display_path(&self, path: &str) -> String {
        self.files.display_path(path)
    }

    fn browse(&self) -> Vec<BrowseEntry> {
        self.files.browse()
    }
}

/// The reads of one load: file sources are wrapped with [`Self::through`], and
/// [`Self::serve_while`] runs the build while the load context answers their reads.
pub(super) struct DependencyReads {
    requests: async_channel::Sender<ReadRequest>,
    incoming: async_channel::Receiver<ReadRequest>,
}

impl DependencyReads {
    pub fn new() -> Self {
        let (requests, incoming) = async_channel::unbounded();
        Self { requests, incoming }
    }

    /// `files`, with its reads made by the load context at `place`.
    pub fn through(&self, files: Arc<dyn FileSource>, place: AssetPlace) -> Arc<dyn FileSource> {
        Arc::new(ThroughAssetServer { files, place, requests: self.requests.clone() })
    }

    /// Runs `build` on its own thread and answers the reads of the sources it uses until it returns;
    /// an error only if the thread could not be started.
    pub async fn serve_while<R: Send + 'static>(
        self,
        ctx: &mut LoadContext<'_>,
        build: impl FnOnce() -> R + Send + 'static,
    ) -> std::io::Result<R> {
        use bevy::tasks::futures_lite::future;
        // Dropped when the build returns or panics, which closes the channel and ends the serving.
        let (finished, finishing) = async_channel::bounded::<()>(1);
        let builder = std::thread::Builder::new().name("model build".into()).spawn(move || {
            let _finished = finished;
            build()
        })?;
        loop {
            let next = future::or(async { self.incoming.recv().await.ok() }, async {
                let _ = finishing.recv().await;
                None
            });
            let Some(request) = next.await else { break };
            let read = ctx.read_asset_bytes(request.asset_path).await;
            // The builder waits for the answer; it is gone only if it panicked.
            let _ = request.reply.send(read).await;
        }
        match builder.join() {
            Ok(built) => Ok(built),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}
