//! One index over one docs dir: the store, its embedder, the indexer and the watcher.
//!
//! A [`Scope`] is one endpoint's view of an engine: the whole docs dir (stdio), or one folder
//! (`/mcp/<folder>` under serve). Paths inside a scope are relative to it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::embed::SharedEmbedder;
use crate::index::meta::IndexMeta;
use crate::index::store::{Store, StoreError};
use crate::index::sync::{Indexer, Layout};
use crate::index::watch::{self, WatchHandle};

/// Failures opening an engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot create the data dir {0}: {1}")]
    DataDir(PathBuf, std::io::Error),
    #[error("cannot write {0}: {1}")]
    Meta(PathBuf, std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an engine is built from.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    pub docs_dir: PathBuf,
    pub data_dir: PathBuf,
    pub layout: Layout,
    pub watch: bool,
    /// Start a sync as soon as the index is open (what the servers do; benchmarks time their own).
    pub sync_on_open: bool,
}

/// A running index.
#[derive(Debug)]
pub struct Engine {
    pub docs_dir: PathBuf,
    pub data_dir: PathBuf,
    pub layout: Layout,
    pub embedder: SharedEmbedder,
    pub indexer: Indexer,
    watch: Mutex<Option<WatchHandle>>,
}

impl Engine {
    /// Opens (rebuilding when `meta.json` differs) the index and, as asked, starts the first sync
    /// in the background and the watcher.
    pub async fn open(options: EngineOptions, embedder: SharedEmbedder) -> Result<Arc<Self>, EngineError> {
        create_private_dir(&options.data_dir).map_err(|e| EngineError::DataDir(options.data_dir.clone(), e))?;
        let meta_path = options.data_dir.join("meta.json");
        let current = IndexMeta::current(embedder.index_name(), &embedder.fingerprint(), embedder.dim());
        let stored = IndexMeta::read(&meta_path);
        let rebuild = stored.as_ref() != Some(&current);
        if rebuild {
            match &stored {
                Some(old) => tracing::warn!(?old, new = ?current, "the index was built differently; rebuilding it"),
                None => tracing::info!(dir = %options.data_dir.display(), "creating a new index"),
            }
        }
        let lance_dir = options.data_dir.join("lance");
        let (store, rebuild) = match Store::open(&lance_dir, embedder.dim(), rebuild).await {
            Ok(store) => (store, rebuild),
            Err(err) => {
                // The index is a cache of the files: when it cannot be read, start it again.
                tracing::warn!(
                    "the index in {} cannot be opened ({err}); rebuilding it",
                    lance_dir.display()
                );
                std::fs::remove_dir_all(&lance_dir).map_err(|e| EngineError::DataDir(lance_dir.clone(), e))?;
                (Store::open(&lance_dir, embedder.dim(), true).await?, true)
            }
        };
        let store = Arc::new(store);
        if rebuild {
            current
                .write(&meta_path)
                .map_err(|e| EngineError::Meta(meta_path.clone(), e))?;
        }
        let indexer = Indexer::start(options.docs_dir.clone(), options.layout, store, embedder.clone());
        if options.sync_on_open {
            indexer.schedule();
        }
        let watch = options
            .watch
            .then(|| watch::watch(options.docs_dir.clone(), indexer.clone()));
        Ok(Arc::new(Self {
            docs_dir: options.docs_dir,
            data_dir: options.data_dir,
            layout: options.layout,
            embedder,
            indexer,
            watch: Mutex::new(watch),
        }))
    }

    pub fn store(&self) -> &Store {
        self.indexer.store()
    }

    /// Stops watching (the index stays usable).
    pub fn stop_watching(&self) {
        self.watch.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// One endpoint's view of an engine.
#[derive(Debug, Clone)]
pub struct Scope {
    pub engine: Arc<Engine>,
    /// Root-relative prefix of the scope's files, ending in `/`; empty for the whole docs dir.
    pub prefix: String,
    /// The folder's name under serve.
    pub folder: Option<String>,
    /// The folder's title under serve.
    pub title: Option<String>,
}

impl Scope {
    /// The whole docs dir (stdio).
    pub fn root(engine: Arc<Engine>) -> Self {
        Self {
            engine,
            prefix: String::new(),
            folder: None,
            title: None,
        }
    }

    /// The scope's directory on disk.
    pub fn dir(&self) -> PathBuf {
        let rel = self.prefix.trim_end_matches('/');
        if rel.is_empty() {
            self.engine.docs_dir.clone()
        } else {
            self.engine.docs_dir.join(rel)
        }
    }

    /// A root-relative path as the scope shows it.
    pub fn to_scope_path<'a>(&self, root_path: &'a str) -> &'a str {
        root_path.strip_prefix(&self.prefix).unwrap_or(root_path)
    }

    /// A scope-relative path as stored (root-relative).
    pub fn to_root_path(&self, scope_path: &str) -> String {
        format!("{}{scope_path}", self.prefix)
    }
}
