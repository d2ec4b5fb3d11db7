//! One index over one docs dir: the store, its embedder, the indexer and the watcher.
//!
//! A [`Scope`] is one endpoint's view of an engine: the whole docs dir (stdio), or one folder
//! (`/mcp/<folder>` under serve). Paths inside a scope are relative to it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use crate::embed::SharedEmbedder;
use crate::error::{ErrorKind, Kinded};
use crate::hook::memory::HookState;
use crate::index::ann::VectorIndex;
use crate::index::graph::LinkGraph;
use crate::index::meta::IndexMeta;
use crate::index::primary;
use crate::index::primary::ForwardError;
use crate::index::scan::Layout;
use crate::index::store::{Store, StoreError};
use crate::index::sync::{Indexer, Span, SyncFailure, SyncReport};
use crate::index::watch::{self, WatchHandle};
use crate::querylog::QueryLog;

/// Failures opening an engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot create the data dir {0}: {1}")]
    DataDir(PathBuf, #[source] std::io::Error),
    #[error("cannot write {0}: {1}")]
    Meta(PathBuf, #[source] std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the index in {0} needs a rebuild; start the primary server first")]
    ReaderNeedsRebuild(PathBuf),
}

/// Why [`Engine::sync`] gave no report.
#[derive(Debug, thiserror::Error)]
pub enum SyncFailed {
    /// The sync ran in this process and failed.
    #[error(transparent)]
    Here(#[from] SyncFailure),
    /// The primary could not be asked, or its sync failed.
    #[error(transparent)]
    Forwarded(#[from] ForwardError),
}

impl Kinded for SyncFailed {
    /// What kind of failure this is: the server's, whatever failed; the caller asked for nothing
    /// it could get wrong.
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Here(_) | Self::Forwarded(_) => ErrorKind::Internal,
        }
    }
}

/// What an engine is built from.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// The docs dir the index covers: one folder, or the folders' parent.
    pub docs_dir: PathBuf,
    /// Where the index (LanceDB tables, lock, query log) lives.
    pub data_dir: PathBuf,
    /// Whether `docs_dir` is one folder or a directory of folders.
    pub layout: Layout,
    /// Follow the docs dir with a file watcher while this process is the primary.
    pub watch: bool,
    /// Start a sync as soon as the index is open (what the servers do; benchmarks time their own).
    pub sync_on_open: bool,
    /// How often a reader tries to take over from a primary that went away, where the file system
    /// has no locks (with locks, a reader takes over the moment the primary exits).
    pub takeover_every: Duration,
    /// Where the history of changes is kept, and how much of it.
    pub history: crate::history::HistoryOptions,
    /// Chunks from which the dense search uses a vector index ([`crate::index::ann`]).
    pub vector_index_rows: usize,
}

/// How often readers without locks try to take over.
pub const TAKEOVER_EVERY: Duration = Duration::from_secs(30);

/// A running index.
#[derive(Debug)]
pub struct Engine {
    /// As in [`EngineOptions::docs_dir`].
    pub docs_dir: PathBuf,
    /// As in [`EngineOptions::data_dir`].
    pub data_dir: PathBuf,
    /// As in [`EngineOptions::layout`].
    pub layout: Layout,
    /// What embeds chunks and queries (in-process, `embedd` workers, or an API).
    pub embedder: SharedEmbedder,
    /// The index: its store and the sync that keeps it in step with the docs dir.
    pub indexer: Indexer,
    /// `ragdown_context`'s per-endpoint session memory.
    pub hook: HookState,
    /// The query log in the data dir; off until the app turns it on.
    pub query_log: QueryLog,
    /// The history of changes made through ragdown, outside the data dir.
    pub history: Arc<crate::history::History>,
    /// What the links of every indexed document can point at, for backlinks.
    pub links: Arc<LinkGraph>,
    watch: Mutex<Option<WatchHandle>>,
    /// Whether this process indexes (primary) or forwards its syncs (reader); a reader waiting to
    /// take over subscribes to it.
    primary: tokio::sync::watch::Sender<bool>,
    /// The socket readers forward their syncs to.
    socket: PathBuf,
    /// The primary's hold on the index (`None` for a reader, or where there are no locks).
    lock: Mutex<Option<primary::PrimaryLock>>,
    /// Whether a reader takes over by the lock (at once) rather than by retrying the socket.
    by_lock: AtomicBool,
    /// Whether the primary watches (the option at start, then Settings → Server).
    watching: AtomicBool,
    /// The primary's socket server, or a reader's takeover task.
    role_task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// A reader's relay of the primary's sync changes to this process's listeners.
    follow_task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    options: EngineOptions,
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(task) = self.role_task.lock().take() {
            task.abort();
        }
        if let Some(task) = self.follow_task.lock().take() {
            task.abort();
        }
        if self.is_primary() {
            let _ = std::fs::remove_file(&self.socket);
        }
    }
}

impl Engine {
    /// Opens (rebuilding when `meta.json` differs) the index and, as asked, starts the first sync
    /// in the background and the watcher.
    pub async fn open(options: EngineOptions, embedder: SharedEmbedder) -> Result<Arc<Self>, EngineError> {
        create_private_dir(&options.data_dir).map_err(|e| EngineError::DataDir(options.data_dir.clone(), e))?;
        let socket = primary::socket_path(&options.data_dir, &std::env::temp_dir());
        let claim = primary::claim(&options.data_dir, &socket)
            .await
            .map_err(|e| EngineError::DataDir(socket.clone(), e))?;
        let is_primary = matches!(claim, primary::Claim::Primary(..));
        let meta_path = options.data_dir.join("meta.json");
        let current = IndexMeta::current(embedder.as_ref());
        let stored = IndexMeta::read(&meta_path);
        let rebuild = match is_primary {
            true => needs_rebuild(&options.data_dir, stored.as_ref(), &current),
            false => {
                reader_waits_for_rebuild(&options.data_dir, &meta_path, &current).await?;
                false
            }
        };
        let (store, rebuild) = open_store(&options.data_dir, embedder.dim(), rebuild, is_primary).await?;
        let store = store.with_vector_index(VectorIndex::new(options.vector_index_rows, &embedder.fingerprint()));
        let retext = is_primary && !rebuild && stored.as_ref().is_some_and(|old| old.text_rule != current.text_rule);
        if retext {
            upgrade_text(&store, &options.data_dir).await?;
        }
        if rebuild || retext {
            // Only now: a process killed before this line leaves the old meta, and the next start
            // rebuilds or upgrades again.
            current
                .write(&meta_path)
                .map_err(|e| EngineError::Meta(meta_path.clone(), e))?;
        }
        let indexer = Indexer::start(
            options.docs_dir.clone(),
            options.layout,
            Arc::new(store),
            embedder.clone(),
        );
        let engine = Arc::new(Self {
            docs_dir: options.docs_dir.clone(),
            data_dir: options.data_dir.clone(),
            layout: options.layout,
            embedder,
            indexer,
            hook: HookState::default(),
            query_log: QueryLog::new(&options.data_dir),
            history: Arc::new(crate::history::History::new(&options.docs_dir, &options.history)),
            links: Arc::new(LinkGraph::new(options.docs_dir.clone())),
            watch: Mutex::new(None),
            primary: tokio::sync::watch::Sender::new(false),
            socket,
            lock: Mutex::new(None),
            by_lock: AtomicBool::new(false),
            watching: AtomicBool::new(options.watch),
            role_task: Mutex::new(None),
            follow_task: Mutex::new(None),
            options,
        });
        engine.take_role(claim);
        Ok(engine)
    }

    /// Starts what the claimed role runs: the primary answers readers, watches and (unless the
    /// caller times its own) syncs; a reader waits to take over when the primary goes.
    fn take_role(self: &Arc<Self>, claim: primary::Claim) {
        match claim {
            primary::Claim::Primary(listener, lock) => {
                *self.lock.lock() = lock;
                drop(self.promote(listener));
                if self.options.sync_on_open {
                    self.indexer.schedule();
                    self.warm_links_after_the_first_sync();
                }
            }
            primary::Claim::Reader(waiting) => {
                tracing::info!(socket = %self.socket.display(), "another process indexes this folder; searching its index");
                self.start_following();
                match waiting {
                    Some(file) => self.start_takeover_on_lock(file),
                    None => self.start_takeover_loop(),
                }
            }
        }
    }

    /// Whether this process indexes; a reader forwards its syncs to the primary.
    pub fn is_primary(&self) -> bool {
        *self.primary.borrow()
    }

    /// Makes this process the primary: answer readers, watch. Returns the task it replaces (a
    /// reader's takeover loop), which the caller drops rather than aborts: it may be that task.
    fn promote(&self, listener: primary::Listener) -> Option<tokio::task::JoinHandle<()>> {
        self.primary.send_replace(true);
        let server = primary::serve(listener, self.indexer.clone());
        let old = self.role_task.lock().replace(server);
        if self.watching.load(Ordering::Acquire) {
            *self.watch.lock() = Some(watch::watch(self.docs_dir.clone(), self.indexer.clone()));
        }
        old
    }

    /// A reader hears what each of the primary's syncs changed, for its own listeners (MCP
    /// notifications), until it becomes the primary itself and its own syncs tell them. When the
    /// primary goes, it follows the next one; a primary too old to stream is asked again rarely.
    fn start_following(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        let task = tokio::spawn(async move {
            loop {
                let Some(engine) = weak.upgrade() else { return };
                let (socket, indexer) = (engine.socket.clone(), engine.indexer.clone());
                let mut promoted = engine.primary.subscribe();
                drop(engine);
                let pause = tokio::select! {
                    _ = promoted.wait_for(|is| *is) => return,
                    followed = primary::follow_changes(&socket, &indexer) => match followed {
                        Err(primary::ForwardError::Unsupported) => return,
                        Err(primary::ForwardError::Failed(why)) => {
                            tracing::debug!(%why, "the primary does not stream its changes");
                            Duration::from_secs(60)
                        }
                        _ => Duration::from_secs(1),
                    },
                };
                tokio::time::sleep(pause).await;
            }
        });
        *self.follow_task.lock() = Some(task);
    }

    /// A reader takes over the moment the primary's lock is free: the primary exited.
    fn start_takeover_on_lock(self: &Arc<Self>, file: std::fs::File) {
        self.by_lock.store(true, Ordering::Release);
        let weak = Arc::downgrade(self);
        let waiting = primary::wait_for_lock(file);
        let task = tokio::spawn(async move {
            let Ok(lock) = waiting.await else { return };
            let Some(engine) = weak.upgrade() else { return };
            match primary::bind_fresh(&engine.socket) {
                Ok(listener) => {
                    tracing::warn!("the primary went away; this process indexes the folder now");
                    *engine.lock.lock() = Some(lock);
                    drop(engine.promote(listener));
                    // Whatever changed on disk while nobody watched is indexed now.
                    engine.indexer.schedule();
                }
                Err(err) => tracing::error!(socket = %engine.socket.display(), %err, "cannot take over as the primary"),
            }
        });
        *self.role_task.lock() = Some(task);
    }

    /// Where there are no locks, a reader tries now and then to take over from a primary that
    /// went away.
    fn start_takeover_loop(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        let every = self.options.takeover_every;
        let task = tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(engine) = weak.upgrade() else { return };
                if engine.try_take_over().await {
                    return;
                }
            }
        });
        *self.role_task.lock() = Some(task);
    }

    /// Becomes the primary when it can; true when this process is the primary now. By the lock,
    /// that is waiting a moment for the takeover that a freed lock sets off; by the socket alone,
    /// claiming it if nobody answers.
    async fn try_take_over(&self) -> bool {
        if self.is_primary() {
            return true;
        }
        if self.by_lock.load(Ordering::Acquire) {
            let mut promoted = self.primary.subscribe();
            let wait = promoted.wait_for(|is| *is);
            return tokio::time::timeout(Duration::from_secs(2), wait)
                .await
                .is_ok_and(|done| done.is_ok());
        }
        match primary::claim_socket(&self.socket).await {
            Ok(Some(listener)) => {
                tracing::warn!("the primary went away; this process indexes the folder now");
                drop(self.promote(listener));
                self.indexer.schedule();
                true
            }
            _ => false,
        }
    }

    /// Syncs the index: here when primary, through the primary otherwise (taking over when it is
    /// gone).
    pub async fn sync(&self, full: bool) -> Result<SyncReport, SyncFailed> {
        if self.is_primary() {
            return Ok(self.indexer.sync(full).await?);
        }
        match primary::forward_sync(&self.socket, full).await {
            Ok(report) => Ok(report),
            Err(err) if self.try_take_over().await => {
                tracing::debug!("forwarding failed ({err}); synced here instead");
                Ok(self.indexer.sync(full).await?)
            }
            Err(err) => Err(err.into()),
        }
    }

    /// Fills the link graph once the sync just scheduled is done, off every request's path, so
    /// the first backlink search reads only the files that link to what it asks about.
    fn warm_links_after_the_first_sync(&self) {
        let indexer = self.indexer.clone();
        let links = self.links.clone();
        tokio::spawn(async move {
            indexer.ran_once().await;
            match indexer.store().files().await {
                Ok(files) => links.warm(&files).await,
                Err(err) => tracing::warn!("cannot read the indexed files for the link graph: {err}"),
            }
        });
    }

    /// Syncs only `paths` (root-relative files or folders, [`Span`]) here when primary; a reader
    /// asks the primary for a sync of everything, the one kind of sync it can forward.
    pub async fn sync_paths<I, S>(&self, paths: I) -> Result<SyncReport, SyncFailed>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let span = Span::of(paths);
        if self.is_primary() {
            return Ok(self.indexer.sync_span(false, span).await?);
        }
        self.sync(false).await
    }

    /// Turns the watcher on or off (Settings → Server). Only the primary watches; a reader that
    /// takes over starts watching if it is on.
    pub fn set_watch(&self, on: bool) {
        self.watching.store(on, Ordering::Release);
        let mut watch = self.watch.lock();
        match (on && self.is_primary(), watch.is_some()) {
            (true, false) => {
                *watch = Some(watch::watch(self.docs_dir.clone(), self.indexer.clone()));
                drop(watch);
                // What changed while nobody watched is indexed now.
                self.indexer.schedule();
            }
            (false, true) => *watch = None,
            _ => {}
        }
    }

    /// Whether the watcher runs.
    pub fn is_watching(&self) -> bool {
        self.watch.lock().is_some()
    }

    /// Hands the index over to an engine about to open on the same data dir (an embedder switch):
    /// the sync in flight finishes, then the watcher, the readers' socket and the primary's lock
    /// go, so the new engine becomes the primary at once. Searches through this engine keep
    /// answering from what is indexed until it is dropped.
    pub async fn retire(&self) {
        self.indexer.close().await;
        *self.watch.lock() = None;
        if let Some(task) = self.role_task.lock().take() {
            task.abort();
        }
        if let Some(task) = self.follow_task.lock().take() {
            task.abort();
        }
        if self.primary.send_replace(false) {
            let _ = std::fs::remove_file(&self.socket);
        }
        *self.lock.lock() = None;
    }

    pub fn store(&self) -> &Store {
        self.indexer.store()
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
    /// Set for the root `/mcp` endpoint when a call names no folder: the names of the folders with
    /// MCP on, which the scope spans. Paths are then shown as `[folder] path`.
    pub span: Option<Vec<String>>,
    /// Who the scope's writes are recorded as: the web UI unless an MCP call says otherwise.
    pub who: crate::history::Who,
}

impl Scope {
    /// The whole docs dir (stdio).
    pub fn root(engine: Arc<Engine>) -> Self {
        Self {
            engine,
            prefix: String::new(),
            folder: None,
            title: None,
            span: None,
            who: crate::history::Who::web(),
        }
    }

    /// One folder, or a subfolder of it (`sub` relative to the folder, empty for all of it).
    pub fn folder(engine: Arc<Engine>, folder: &crate::folders::Folder, sub: &str) -> Self {
        let sub = sub.trim_matches('/');
        let prefix = if sub.is_empty() {
            format!("{}/", folder.name)
        } else {
            format!("{}/{sub}/", folder.name)
        };
        Self {
            engine,
            prefix,
            folder: Some(folder.name.clone()),
            title: Some(folder.title.clone()),
            span: None,
            who: crate::history::Who::web(),
        }
    }

    /// Every folder named in `folders` at once (the root endpoint without a `folder` argument).
    pub fn spanning(engine: Arc<Engine>, folders: Vec<String>) -> Self {
        Self {
            engine,
            prefix: String::new(),
            folder: None,
            title: None,
            span: Some(folders),
            who: crate::history::Who::web(),
        }
    }

    /// The root-relative prefixes a spanning scope limits searches to; `None` for other scopes.
    pub fn span_prefixes(&self) -> Option<Vec<String>> {
        self.span
            .as_ref()
            .map(|names| names.iter().map(|name| format!("{name}/")).collect())
    }

    /// Whether a root-relative path belongs to this scope.
    pub fn contains(&self, root_path: &str) -> bool {
        root_path.starts_with(&self.prefix)
            && self
                .span
                .as_ref()
                .is_none_or(|names| names.iter().any(|name| in_folder(root_path, name)))
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

    /// The scope's folder for resolving client paths: every path a tool takes goes through it, so
    /// it is checked from the docs dir down (see [`crate::documents::Root`]).
    pub fn paths(&self) -> crate::documents::Root {
        crate::documents::Root::new(&self.engine.docs_dir, &self.prefix)
    }

    /// Begins recording a change made in this scope (`action`: what was asked, e.g. `write`).
    pub fn begin(&self, action: &str) -> crate::history::Change {
        self.engine.history.begin(self.who.clone(), action)
    }

    /// A root-relative path as the scope shows it.
    pub fn to_scope_path<'a>(&self, root_path: &'a str) -> &'a str {
        root_path.strip_prefix(&self.prefix).unwrap_or(root_path)
    }

    /// A root-relative path as a hit line shows it: scope-relative, or `[folder] path` in a
    /// spanning scope.
    pub fn label(&self, root_path: &str) -> String {
        match self.split_folder(root_path) {
            Some((folder, rest)) => format!("[{folder}] {rest}"),
            None => self.to_scope_path(root_path).to_string(),
        }
    }

    /// In a spanning scope, a root-relative path as its folder and the path inside it.
    pub fn split_folder<'a>(&self, root_path: &'a str) -> Option<(&'a str, &'a str)> {
        self.span.as_ref()?;
        root_path.split_once('/')
    }

    /// A scope-relative path as stored (root-relative).
    pub fn to_root_path(&self, scope_path: &str) -> String {
        format!("{}{scope_path}", self.prefix)
    }
}

fn in_folder(root_path: &str, folder: &str) -> bool {
    root_path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/'))
}

/// How long a reader waits for the primary to finish rebuilding an index built differently.
const READER_REBUILD_WAIT: Duration = Duration::from_secs(10);

/// Whether the primary must rebuild the index: its `meta.json` is missing or was written for
/// another embedder, chunker or index version. Another text rule alone is no reason: the engine
/// upgrades `search_text` in place ([`upgrade_text`]).
fn needs_rebuild(data_dir: &Path, stored: Option<&IndexMeta>, current: &IndexMeta) -> bool {
    match stored {
        Some(old) if old.same_vectors(current) => return false,
        Some(old) => tracing::warn!(?old, new = ?current, "the index was built differently; rebuilding it"),
        None => tracing::info!(dir = %data_dir.display(), "creating a new index"),
    }
    true
}

/// Rewrites `search_text` under today's text rule and rebuilds the full-text index, keeping the
/// vectors ([`crate::index::retext`]).
async fn upgrade_text(store: &Store, data_dir: &Path) -> Result<(), EngineError> {
    tracing::warn!(
        dir = %data_dir.display(),
        rule = crate::index::terms::TEXT_RULE,
        "the index's full-text terms were built by another rule; rewriting them (no re-embedding)"
    );
    let started = std::time::Instant::now();
    let rows = store.retext(crate::index::retext::current_rule).await?;
    tracing::info!(
        rows,
        ms = started.elapsed().as_millis() as u64,
        "full-text terms rewritten"
    );
    Ok(())
}

/// A reader never rebuilds: it gives a primary that is rebuilding up to
/// [`READER_REBUILD_WAIT`] to finish (looking at `meta.json` every half second), then refuses.
async fn reader_waits_for_rebuild(data_dir: &Path, meta_path: &Path, current: &IndexMeta) -> Result<(), EngineError> {
    let deadline = tokio::time::Instant::now() + READER_REBUILD_WAIT;
    loop {
        if IndexMeta::read(meta_path).as_ref() == Some(current) {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(EngineError::ReaderNeedsRebuild(data_dir.to_path_buf()));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Opens the LanceDB store, and says whether it was made anew. The index is a cache of the
/// files: when the primary cannot read it, it starts it again; a reader reports the error.
async fn open_store(
    data_dir: &Path,
    dim: usize,
    rebuild: bool,
    is_primary: bool,
) -> Result<(Store, bool), EngineError> {
    let lance_dir = data_dir.join("lance");
    match Store::open(&lance_dir, dim, rebuild).await {
        Ok(store) => Ok((store, rebuild)),
        Err(err) if is_primary => {
            tracing::warn!(
                "the index in {} cannot be opened ({err}); rebuilding it",
                lance_dir.display()
            );
            std::fs::remove_dir_all(&lance_dir).map_err(|e| EngineError::DataDir(lance_dir.clone(), e))?;
            Ok((Store::open(&lance_dir, dim, true).await?, true))
        }
        Err(err) => Err(err.into()),
    }
}
