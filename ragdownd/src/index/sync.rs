//! Diff sync: make the index match the files on disk, touching only what changed.
//!
//! Files whose size and mtime match the index are skipped without reading; the others are read
//! and hashed, and only a changed hash re-chunks and re-embeds. Files that are gone are dropped.
//! Each group of changed files is replaced by one delete and one add, so searches keep answering
//! from everything already indexed while a long first index runs, and a crash mid-sync leaves
//! whole files, never half of one.
//!
//! Syncs never overlap: requests go to one task, and every request that arrives while a sync runs
//! is answered by the one follow-up sync that starts after it. The same task folds small writes
//! into the indices a little after they land ([`super::fold`]), so an edit does not wait for it.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use super::changes::{Changes, SyncChanges};
use super::fold::Unfolded;
use super::rows::{ChunkRow, FileState};
use super::scan::{Changed, Layout, ListError, Listed, list_markdown, list_markdown_under, read_changed};
pub use super::span::Span;
use super::store::Store;
use crate::embed::SharedEmbedder;
use crate::markdown::chunker;

/// Chunks embedded per step of a sync.
const EMBED_BATCH: usize = 256;

/// Chunks gathered into one write. Each write is a LanceDB commit with its own data files, and the
/// commit costs about as much for 256 rows as for thousands: a first index of 105,000 chunks spent
/// 9.7 s writing in 256-row writes and 2.5 s in 4,096-row ones (hash embedder, 2026-12-02). The
/// rows of one write are held in memory (about 12 MB of text and vectors at 4,096).
pub const WRITE_ROWS: usize = 4096;

/// Chunks a sync embeds before it lets the model's bulk sessions rest ([`Embedder::rest`]) when
/// its embedding is done. After a thousand chunks (about 7 s of minilm on 2 cores) making a
/// session again costs under a tenth of what the sync spent embedding, and the bulk sessions'
/// arenas have grown to their biggest batch; smaller syncs (an edit) keep them, so a sync every few
/// seconds while someone types does not remake a session each time.
///
/// [`Embedder::rest`]: crate::embed::Embedder::rest
pub const REST_AFTER_CHUNKS: usize = 1024;

/// What one sync did, as `ragdown_reindex` and `ragdown_stats` report it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct SyncReport {
    pub added: usize,
    pub updated: usize,
    pub removed: usize,
    pub unchanged: usize,
    /// Chunks written.
    pub chunks: usize,
    pub ms: u64,
    /// Where the time went; in logs and benchmarks, not in the tools' output.
    #[serde(skip)]
    pub stages: Stages,
}

/// Wall milliseconds of a sync's stages. Embedding and writing overlap (a group is written while
/// the next is embedded), so `write_wait` is the part of writing the embedding did not hide.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Stages {
    /// Reading the index's list of files (after clearing the index, in a full sync).
    pub indexed: u64,
    /// Walking the folder.
    pub list: u64,
    /// Reading, hashing and chunking the changed files.
    pub read: u64,
    /// Embedding every group, summed.
    pub embed: u64,
    /// Waiting for a group's write before the next could start, summed.
    pub write_wait: u64,
    /// Writing every group (delete + add), summed; overlaps `embed`.
    pub write: u64,
    /// [`Store::optimize`]: compaction, folding rows into the full-text index, pruning.
    pub optimize: super::store::Optimized,
}

/// The last sync with when it ended.
#[derive(Debug, Clone, Serialize)]
pub struct LastSync {
    #[serde(flatten)]
    pub report: SyncReport,
    /// ISO-8601 UTC.
    pub at: String,
}

/// Progress of the sync in flight (or of the last one).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Progress {
    pub running: bool,
    /// Files that need (re)indexing in this sync.
    pub files_total: usize,
    pub files_done: usize,
    pub chunks_done: usize,
}

/// Sync failures.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Store(#[from] super::store::StoreError),
    #[error(transparent)]
    Embed(#[from] embedd::EmbedError),
    #[error("cannot list {0}: {1}")]
    List(PathBuf, #[source] ListError),
    #[error("the sync task stopped")]
    Stopped,
    #[error("an index write failed: {0}")]
    Write(#[source] tokio::task::JoinError),
}

/// A sync's failure as every caller that waited for that sync gets it.
pub type SyncFailure = Arc<SyncError>;

struct Request {
    full: bool,
    span: Span,
    reply: oneshot::Sender<Result<SyncReport, SyncFailure>>,
}

/// Runs syncs one at a time for one index.
#[derive(Clone)]
pub struct Indexer {
    requests: mpsc::UnboundedSender<Request>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Indexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexer")
            .field("docs_dir", &self.shared.docs_dir)
            .finish()
    }
}

struct Shared {
    docs_dir: PathBuf,
    layout: Layout,
    store: Arc<Store>,
    embedder: SharedEmbedder,
    progress: Mutex<Progress>,
    last: Mutex<Option<LastSync>>,
    /// Syncs finished since the start, failed ones included.
    runs: tokio::sync::watch::Sender<u64>,
    /// Set by [`Indexer::close`]: no sync runs any more.
    closed: std::sync::atomic::AtomicBool,
    /// Writes not folded into the indices yet.
    unfolded: Mutex<Unfolded>,
    /// Whether the first sync has looked for rows an earlier process left unfolded.
    tail_checked: std::sync::atomic::AtomicBool,
    /// Sync requests sent and not answered yet: a sync asked for counts as one under way before
    /// the task has picked it up (a server that has just opened its index is not idle).
    queued: std::sync::atomic::AtomicUsize,
    /// What each sync changed, for whoever listens (MCP resource notifications).
    changes: Changes,
}

impl Indexer {
    /// Starts the sync task. It runs until every `Indexer` clone is dropped.
    pub fn start(docs_dir: PathBuf, layout: Layout, store: Arc<Store>, embedder: SharedEmbedder) -> Self {
        let shared = Arc::new(Shared {
            docs_dir,
            layout,
            store,
            embedder,
            progress: Mutex::new(Progress::default()),
            last: Mutex::new(None),
            runs: tokio::sync::watch::Sender::new(0),
            closed: Default::default(),
            unfolded: Default::default(),
            tail_checked: Default::default(),
            queued: Default::default(),
            changes: Changes::default(),
        });
        let (requests, mut queue) = mpsc::unbounded_channel::<Request>();
        let task_shared = shared.clone();
        tokio::spawn(async move {
            loop {
                let deadline = task_shared.unfolded().deadline();
                let next = match deadline {
                    Some(at) => tokio::time::timeout_at(at.into(), queue.recv()).await,
                    None => Ok(queue.recv().await),
                };
                let first = match next {
                    Ok(Some(first)) => first,
                    Ok(None) => break,
                    Err(_elapsed) => {
                        task_shared.fold().await;
                        continue;
                    }
                };
                let mut waiting = vec![first];
                while let Ok(more) = queue.try_recv() {
                    waiting.push(more);
                }
                let full = waiting.iter().any(|r| r.full);
                let span = waiting
                    .iter()
                    .map(|r| r.span.clone())
                    .reduce(Span::merge)
                    .unwrap_or(Span::Whole);
                let span = if full { Span::Whole } else { span };
                let result = if task_shared.closed.load(std::sync::atomic::Ordering::Acquire) {
                    Err(Arc::new(SyncError::Stopped))
                } else {
                    task_shared.run(full, &span).await.map_err(Arc::new)
                };
                task_shared.runs.send_modify(|runs| *runs += 1);
                if let Err(err) = &result {
                    tracing::error!("sync failed: {err}");
                }
                let answered = waiting.len();
                for request in waiting {
                    let _ = request.reply.send(result.clone());
                }
                task_shared
                    .queued
                    .fetch_sub(answered, std::sync::atomic::Ordering::AcqRel);
            }
        });
        Self { requests, shared }
    }

    /// Syncs now, or joins the follow-up of the sync in flight. `full` drops every row first.
    pub async fn sync(&self, full: bool) -> Result<SyncReport, SyncFailure> {
        self.sync_span(full, Span::Whole).await
    }

    /// Syncs only `span` now ([`Span`]), or joins the follow-up of the sync in flight; the report
    /// counts the files of the span alone.
    pub async fn sync_span(&self, full: bool, span: Span) -> Result<SyncReport, SyncFailure> {
        let (reply, answer) = oneshot::channel();
        self.request(Request { full, span, reply })
            .map_err(|_| Arc::new(SyncError::Stopped))?;
        answer.await.map_err(|_| Arc::new(SyncError::Stopped))?
    }

    /// Queues `request`, counted in [`Indexer::syncing`] until it is answered.
    fn request(&self, request: Request) -> Result<(), mpsc::error::SendError<Request>> {
        let queued = &self.shared.queued;
        queued.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        self.requests.send(request).inspect_err(|_| {
            queued.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        })
    }

    /// Whether a sync runs or is asked for and not done: what `/api/status` calls `syncing`.
    /// [`Progress::running`] only turns on once a sync has listed the files, so it misses the
    /// moment between asking and starting (the first sync of a server that has just started).
    pub fn syncing(&self) -> bool {
        self.shared.queued.load(std::sync::atomic::Ordering::Acquire) > 0
    }

    /// Stops syncing: the sync in flight, if any, finishes first; every later one is refused. For
    /// handing the index to another indexer (an embedder switch) without two writing at once.
    pub async fn close(&self) {
        self.shared.closed.store(true, std::sync::atomic::Ordering::Release);
        let _ = self.sync(false).await;
        // Whoever follows this index's changes (MCP notification streams) hears no more will come.
        self.shared.changes.close();
    }

    /// Asks for a sync without waiting for it (the watcher's way).
    pub fn schedule(&self) {
        self.schedule_span(Span::Whole);
    }

    /// Asks for a sync of `span` without waiting for it.
    pub fn schedule_span(&self, span: Span) {
        let (reply, _answer) = oneshot::channel();
        let _ = self.request(Request {
            full: false,
            span,
            reply,
        });
    }

    pub fn progress(&self) -> Progress {
        self.shared.progress.lock().clone()
    }

    pub fn last_sync(&self) -> Option<LastSync> {
        self.shared.last.lock().clone()
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.shared.store
    }

    /// The documents each sync from now on adds, updates and removes ([`super::changes`]).
    pub fn changes(&self) -> tokio::sync::broadcast::Receiver<Arc<SyncChanges>> {
        self.shared.changes.subscribe()
    }

    /// Tells this process's listeners what a sync in the primary process changed (a reader syncs
    /// nothing itself).
    pub fn relay(&self, changes: SyncChanges) {
        self.shared.changes.publish(changes);
    }

    /// How many syncs this process has run since it started (a watcher that never rests shows here).
    pub fn syncs_run(&self) -> u64 {
        *self.shared.runs.borrow()
    }

    /// Waits until this process has run a sync (the first one, after a start), failed or not.
    pub async fn ran_once(&self) {
        let mut runs = self.shared.runs.subscribe();
        let _ = runs.wait_for(|runs| *runs > 0).await;
    }
}

/// Embedded files waiting for their write.
#[derive(Default)]
struct Pending {
    files: usize,
    /// The files whose old rows the write deletes.
    paths: Vec<String>,
    rows: Vec<ChunkRow>,
}

/// What one write did.
struct Written {
    files: usize,
    chunks: usize,
    ms: u64,
}

fn ms_since(started: Instant) -> u64 {
    started.elapsed().as_millis() as u64
}

/// The Markdown files of `span`, sorted by path, each once.
fn list_span(docs_dir: &std::path::Path, layout: Layout, span: &Span) -> Result<Vec<Listed>, ListError> {
    let Span::Paths(paths) = span else {
        return list_markdown(docs_dir, layout);
    };
    let mut listed = Vec::new();
    for path in paths {
        listed.extend(list_markdown_under(docs_dir, layout, path)?);
    }
    listed.sort_by(|a, b| a.path.cmp(&b.path));
    listed.dedup_by(|a, b| a.path == b.path);
    Ok(listed)
}

impl Shared {
    fn unfolded(&self) -> parking_lot::MutexGuard<'_, Unfolded> {
        self.unfolded.lock()
    }

    /// Folds every write into the indices ([`Store::optimize`]); nothing waits after it.
    async fn fold_now(&self) -> Result<super::store::Optimized, super::store::StoreError> {
        let times = self.store.optimize().await?;
        self.unfolded().folded();
        super::ann::spawn_upkeep(self.store.clone());
        Ok(times)
    }

    /// Folds what waits into the indices, between syncs. A failure is logged and tried again at
    /// the next deadline; nothing is lost meanwhile (unfolded rows are scanned).
    async fn fold(&self) {
        if self.closed.load(std::sync::atomic::Ordering::Acquire) {
            // The index is another indexer's now: nothing to wait for.
            self.unfolded().folded();
            return;
        }
        match self.fold_now().await {
            Ok(times) => tracing::debug!(?times, "folded the writes into the indices"),
            Err(err) => {
                tracing::warn!("cannot fold the writes into the indices: {err}");
                let mut unfolded = self.unfolded();
                unfolded.folded();
                unfolded.wrote(0);
            }
        }
    }

    async fn run(&self, full: bool, span: &Span) -> Result<SyncReport, SyncError> {
        let started = Instant::now();
        self.fold_what_a_stopped_process_left().await;
        if full {
            self.store.clear().await?;
        }
        let indexed = self.store.files().await?;
        let mut report = SyncReport::default();
        report.stages.indexed = ms_since(started);
        let (removed, changed) = self.what_changed(&indexed, span, &mut report).await?;
        let changes = SyncChanges::of(&removed, changed.iter().map(|c| c.listed.path.as_str()), &indexed);
        let total_files = changed.len();
        self.set_progress(Progress {
            running: true,
            files_total: total_files,
            files_done: 0,
            chunks_done: 0,
        });
        if !removed.is_empty() {
            self.store.apply(&removed, Vec::new()).await?;
        }
        let files_done = self.embed_and_write(changed, &indexed, &mut report).await?;
        if report.added + report.updated + report.removed > 0 {
            let dropped: usize = removed
                .iter()
                .filter_map(|path| indexed.get(path))
                .map(|f| f.chunks)
                .sum();
            self.unfolded().wrote(report.chunks + dropped);
        }
        if full || self.unfolded().due_now() {
            report.stages.optimize = self.fold_now().await?;
        }
        report.ms = ms_since(started);
        self.set_progress(Progress {
            running: false,
            files_total: total_files,
            files_done,
            chunks_done: report.chunks,
        });
        *self.last.lock() = Some(LastSync {
            report: report.clone(),
            at: iso_now(),
        });
        tracing::info!(?report, "sync done");
        // The vector index is built or refreshed beside the next searches and writes, never
        // before this sync answers.
        super::ann::spawn_upkeep(self.store.clone());
        self.changes.publish(changes);
        Ok(report)
    }

    /// Rows a process that stopped before folding them left are folded once it is time; looked
    /// for at the first sync only. Only the primary syncs, so a reader never folds.
    async fn fold_what_a_stopped_process_left(&self) {
        if !self.tail_checked.swap(true, std::sync::atomic::Ordering::AcqRel)
            && self.store.unindexed_rows().await.unwrap_or(0) > 0
        {
            self.unfolded().wrote(0);
        }
    }

    /// The indexed paths of `span` no longer on disk, and the files on disk there whose content
    /// the index does not have (read and chunked). A file whose size and mtime match the index is
    /// not read; one that is read but hashes the same counts as unchanged. Fills the report's
    /// counts and the list and read stages.
    async fn what_changed(
        &self,
        indexed: &HashMap<String, FileState>,
        span: &Span,
        report: &mut SyncReport,
    ) -> Result<(Vec<String>, Vec<Changed>), SyncError> {
        let listing = Instant::now();
        let docs_dir = self.docs_dir.clone();
        let layout = self.layout;
        let listing_span = span.clone();
        let listed = tokio::task::spawn_blocking(move || list_span(&docs_dir, layout, &listing_span))
            .await
            .map_err(|e| SyncError::List(self.docs_dir.clone(), e.into()))?
            .map_err(|reason| SyncError::List(self.docs_dir.clone(), reason))?;
        report.stages.list = ms_since(listing);

        let on_disk: HashSet<&str> = listed.iter().map(|f| f.path.as_str()).collect();
        let removed: Vec<String> = indexed
            .keys()
            .filter(|p| span.covers(p) && !on_disk.contains(p.as_str()))
            .cloned()
            .collect();
        report.removed = removed.len();

        let mut stale = Vec::new();
        for file in listed {
            match indexed.get(&file.path) {
                Some(state) if state.mtime_ms == file.mtime_ms && state.size == file.size => report.unchanged += 1,
                _ => stale.push(file),
            }
        }
        // Reading and hashing is blocking work; do it off the async threads.
        let indexed_hashes: HashMap<String, String> = stale
            .iter()
            .filter_map(|file| Some((file.path.clone(), indexed.get(&file.path)?.file_hash.clone())))
            .collect();
        let reading = Instant::now();
        let (changed, unchanged) = tokio::task::spawn_blocking(move || read_changed(stale, &indexed_hashes))
            .await
            .map_err(|e| SyncError::List(self.docs_dir.clone(), e.into()))?;
        report.stages.read = ms_since(reading);
        report.unchanged += unchanged;
        for file in &changed {
            if indexed.contains_key(&file.listed.path) {
                report.updated += 1;
            } else {
                report.added += 1;
            }
        }
        Ok((removed, changed))
    }

    /// Embeds the changed files' chunks and writes them, replacing the rows the index had of
    /// them; returns how many files were written. Files gather into groups of about
    /// [`EMBED_BATCH`] chunks to embed, and embedded groups into writes of about [`WRITE_ROWS`].
    /// One write runs while the next groups are embedded: the model never waits for LanceDB, and
    /// at most one write is in flight, so writes land in order.
    async fn embed_and_write(
        &self,
        changed: Vec<Changed>,
        indexed: &HashMap<String, FileState>,
        report: &mut SyncReport,
    ) -> Result<usize, SyncError> {
        let total_files = changed.len();
        let mut files_done = 0;
        let mut group: Vec<Changed> = Vec::new();
        let mut group_chunks = 0;
        let mut embedded = 0;
        let mut pending = Pending::default();
        let mut writing: Option<tokio::task::JoinHandle<Result<Written, SyncError>>> = None;
        let mut iter = changed.into_iter().peekable();
        while let Some(file) = iter.next() {
            group_chunks += file.document.chunks.len();
            group.push(file);
            if group_chunks < EMBED_BATCH && iter.peek().is_some() {
                continue;
            }
            let embedding = Instant::now();
            let (paths, rows) = self.embed_group(std::mem::take(&mut group)).await?;
            report.stages.embed += ms_since(embedding);
            embedded += group_chunks;
            group_chunks = 0;
            pending.files += paths.len();
            // Only files the index has rows of need them deleted (`indexed` was read from the
            // table, and only this sync writes it). A first index then never deletes: a delete by
            // path scans the whole table, so one per group made a first index quadratic.
            pending
                .paths
                .extend(paths.into_iter().filter(|path| indexed.contains_key(path)));
            pending.rows.extend(rows);
            if pending.rows.len() < WRITE_ROWS && iter.peek().is_some() {
                continue;
            }
            if let Some(previous) = writing.take() {
                self.written(previous, &mut files_done, report, total_files).await?;
            }
            writing = Some(self.start_write(std::mem::take(&mut pending)));
        }
        // The model's part is done. After a big sync the bulk sessions give their memory back
        // now, before LanceDB compacts and folds the rows into its indexes: the sync's peak
        // (673 MB at 105,000 chunks with minilm-fp32 with them resident; bench/results/README.md).
        if embedded >= REST_AFTER_CHUNKS {
            self.embedder.rest();
        }
        if let Some(previous) = writing.take() {
            self.written(previous, &mut files_done, report, total_files).await?;
        }
        Ok(files_done)
    }

    /// Starts writing `pending` (one delete of its files' old rows and one add) on its own task.
    fn start_write(&self, pending: Pending) -> tokio::task::JoinHandle<Result<Written, SyncError>> {
        let store = self.store.clone();
        let Pending { files, paths, rows } = pending;
        tokio::spawn(async move {
            let started = Instant::now();
            let chunks = rows.len();
            store.apply(&paths, rows).await?;
            Ok(Written {
                files,
                chunks,
                ms: ms_since(started),
            })
        })
    }

    /// Waits for a group's write and records its progress.
    async fn written(
        &self,
        write: tokio::task::JoinHandle<Result<Written, SyncError>>,
        files_done: &mut usize,
        report: &mut SyncReport,
        total_files: usize,
    ) -> Result<(), SyncError> {
        let waiting = Instant::now();
        let written = write.await.map_err(SyncError::Write)??;
        report.stages.write_wait += ms_since(waiting);
        report.stages.write += written.ms;
        *files_done += written.files;
        report.chunks += written.chunks;
        self.set_progress(Progress {
            running: true,
            files_total: total_files,
            files_done: *files_done,
            chunks_done: report.chunks,
        });
        tracing::info!(
            files = *files_done,
            of = total_files,
            chunks = report.chunks,
            "indexing"
        );
        Ok(())
    }

    /// Embeds a group of files into rows; the caller replaces them with one delete and one add.
    async fn embed_group(&self, files: Vec<Changed>) -> Result<(Vec<String>, Vec<ChunkRow>), SyncError> {
        let sections: Vec<super::vectors::Section<'_>> = files
            .iter()
            .flat_map(|file| {
                file.document
                    .chunks
                    .iter()
                    .map(|chunk| (file.document.title.as_str(), chunk))
            })
            .collect();
        let vectors = super::vectors::embed_sections(self.embedder.as_ref(), &sections).await?;
        drop(sections);
        let mut vectors = vectors.into_iter();
        let mut rows = Vec::new();
        let mut paths = Vec::new();
        for file in files {
            let doc = &file.document;
            let meta = &doc.meta;
            let tags = format!(" {} ", meta.tags.join(" "));
            for chunk in &doc.chunks {
                let aliases: Vec<&str> = match chunk.index {
                    0 => meta.aliases.iter().map(String::as_str).collect(),
                    _ => Vec::new(),
                };
                let search_text = super::terms::search_text(&chunker::embedding_text(&doc.title, chunk), &aliases);
                rows.push(ChunkRow {
                    id: format!("{}#{}@{}", file.listed.path, chunk.index, &file.hash[..12]),
                    path: file.listed.path.clone(),
                    file_hash: file.hash.clone(),
                    mtime_ms: file.listed.mtime_ms,
                    size: file.listed.size,
                    chunk_index: chunk.index as i32,
                    title: doc.title.clone(),
                    heading: chunk.heading.clone(),
                    text: chunk.text.clone(),
                    search_text,
                    supersedes: meta.supersedes.join("\n"),
                    tags: tags.clone(),
                    aliases: meta.aliases.join("\n"),
                    description: meta.description.clone(),
                    created_by: meta.created_by.clone(),
                    session: meta.session.clone(),
                    line_start: chunk.line_start as i32,
                    line_end: chunk.line_end as i32,
                    vector: vectors.next().unwrap_or_default(),
                });
            }
            paths.push(file.listed.path);
        }
        Ok((paths, rows))
    }

    fn set_progress(&self, progress: Progress) {
        *self.progress.lock() = progress;
    }
}

/// Now as ISO-8601 UTC with milliseconds, like JavaScript's `toISOString`.
pub fn iso_now() -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    iso_from_ms(ms)
}

/// Milliseconds since the epoch as ISO-8601 UTC (`2026-11-30T07:28:50.123Z`).
pub fn iso_from_ms(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// The UTC day `YYYY-MM-DD` of a time in milliseconds.
pub fn utc_day(ms: f64) -> String {
    iso_from_ms(ms as i64)[..10].to_string()
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates_match_known_instants() {
        assert_eq!(iso_from_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_from_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_from_ms(1_796_023_730_123), "2026-11-30T07:28:50.123Z");
        assert_eq!(utc_day(1_796_023_730_123.0), "2026-11-30");
    }
}
