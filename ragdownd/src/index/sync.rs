//! Diff sync: make the index match the files on disk, touching only what changed.
//!
//! Files whose size and mtime match the index are skipped without reading; the others are read
//! and hashed, and only a changed hash re-chunks and re-embeds. Files that are gone are dropped.
//! Each group of changed files is replaced by one delete and one add, so searches keep answering
//! from everything already indexed while a long first index runs, and a crash mid-sync leaves
//! whole files, never half of one.
//!
//! Syncs never overlap: requests go to one task, and every request that arrives while a sync runs
//! is answered by the one follow-up sync that starts after it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use embedd::TextKind;
use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};

use super::store::{ChunkRow, Store};
use crate::documents::temp;
use crate::embed::SharedEmbedder;
use crate::markdown::chunker::{self, Document};

/// Chunks embedded and stored per step of a sync.
const EMBED_BATCH: usize = 256;

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

/// Which Markdown files belong to the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// stdio: the docs dir is one folder; every Markdown file under it is indexed.
    Single,
    /// serve: top-level directories are folders; loose files directly in the docs dir are not indexed.
    Folders,
}

/// Sync failures.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Store(#[from] super::store::StoreError),
    #[error(transparent)]
    Embed(#[from] embedd::EmbedError),
    #[error("cannot list {0}: {1}")]
    List(PathBuf, String),
    #[error("the sync task stopped")]
    Stopped,
    #[error("an index write failed: {0}")]
    Write(String),
}

struct Request {
    full: bool,
    reply: oneshot::Sender<Result<SyncReport, String>>,
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
    runs: std::sync::atomic::AtomicU64,
    /// Set by [`Indexer::close`]: no sync runs any more.
    closed: std::sync::atomic::AtomicBool,
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
            runs: Default::default(),
            closed: Default::default(),
        });
        let (requests, mut queue) = mpsc::unbounded_channel::<Request>();
        let task_shared = shared.clone();
        tokio::spawn(async move {
            while let Some(first) = queue.recv().await {
                let mut waiting = vec![first];
                while let Ok(more) = queue.try_recv() {
                    waiting.push(more);
                }
                let full = waiting.iter().any(|r| r.full);
                let result = if task_shared.closed.load(std::sync::atomic::Ordering::Acquire) {
                    Err(SyncError::Stopped.to_string())
                } else {
                    task_shared.run(full).await.map_err(|e| e.to_string())
                };
                task_shared.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if let Err(err) = &result {
                    tracing::error!("sync failed: {err}");
                }
                for request in waiting {
                    let _ = request.reply.send(result.clone());
                }
            }
        });
        Self { requests, shared }
    }

    /// Syncs now, or joins the follow-up of the sync in flight. `full` drops every row first.
    pub async fn sync(&self, full: bool) -> Result<SyncReport, String> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(Request { full, reply })
            .map_err(|_| SyncError::Stopped.to_string())?;
        answer.await.map_err(|_| SyncError::Stopped.to_string())?
    }

    /// Stops syncing: the sync in flight, if any, finishes first; every later one is refused. For
    /// handing the index to another indexer (an embedder switch) without two writing at once.
    pub async fn close(&self) {
        self.shared.closed.store(true, std::sync::atomic::Ordering::Release);
        let _ = self.sync(false).await;
    }

    /// Asks for a sync without waiting for it (the watcher's way).
    pub fn schedule(&self) {
        let (reply, _answer) = oneshot::channel();
        let _ = self.requests.send(Request { full: false, reply });
    }

    pub fn progress(&self) -> Progress {
        self.shared.progress.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn last_sync(&self) -> Option<LastSync> {
        self.shared.last.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.shared.store
    }

    /// How many syncs this process has run since it started (a watcher that never rests shows here).
    pub fn syncs_run(&self) -> u64 {
        self.shared.runs.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A Markdown file on disk.
struct Listed {
    path: String,
    abs: PathBuf,
    mtime_ms: f64,
    size: f64,
}

/// A file that needs (re)indexing, read and chunked.
struct Changed {
    listed: Listed,
    hash: String,
    document: Document,
}

impl Shared {
    async fn run(&self, full: bool) -> Result<SyncReport, SyncError> {
        let started = Instant::now();
        if full {
            self.store.clear().await?;
        }
        let indexed = self.store.files().await?;
        let docs_dir = self.docs_dir.clone();
        let layout = self.layout;
        let listed = tokio::task::spawn_blocking(move || list_markdown(&docs_dir, layout))
            .await
            .map_err(|e| SyncError::List(self.docs_dir.clone(), e.to_string()))??;

        let mut report = SyncReport::default();
        let on_disk: HashSet<&str> = listed.iter().map(|f| f.path.as_str()).collect();
        let removed: Vec<String> = indexed
            .keys()
            .filter(|p| !on_disk.contains(p.as_str()))
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
        let indexed_hashes: std::collections::HashMap<String, String> =
            indexed.iter().map(|(p, s)| (p.clone(), s.file_hash.clone())).collect();
        let (changed, unchanged) = tokio::task::spawn_blocking(move || read_changed(stale, &indexed_hashes))
            .await
            .map_err(|e| SyncError::List(self.docs_dir.clone(), e.to_string()))?;
        report.unchanged += unchanged;
        for file in &changed {
            if indexed.contains_key(&file.listed.path) {
                report.updated += 1;
            } else {
                report.added += 1;
            }
        }
        self.set_progress(Progress {
            running: true,
            files_total: changed.len(),
            files_done: 0,
            chunks_done: 0,
        });
        if !removed.is_empty() {
            self.store.apply(&removed, Vec::new()).await?;
        }
        let total_files = changed.len();
        let mut files_done = 0;
        let mut group: Vec<Changed> = Vec::new();
        let mut group_chunks = 0;
        // One group's write runs while the next group is embedded: the model never waits for
        // LanceDB, and at most one write is in flight, so groups land in order.
        let mut writing: Option<tokio::task::JoinHandle<Result<(usize, usize), SyncError>>> = None;
        let mut iter = changed.into_iter().peekable();
        while let Some(file) = iter.next() {
            group_chunks += file.document.chunks.len();
            group.push(file);
            if group_chunks < EMBED_BATCH && iter.peek().is_some() {
                continue;
            }
            let (mut paths, rows) = self.embed_group(std::mem::take(&mut group)).await?;
            let files = paths.len();
            // Only files the index has rows of need them deleted (`indexed` was read from the
            // table, and only this sync writes it). A first index then never deletes: a delete by
            // path scans the whole table, so one per group made a first index quadratic.
            paths.retain(|path| indexed.contains_key(path));
            group_chunks = 0;
            if let Some(previous) = writing.take() {
                self.written(previous, &mut files_done, &mut report, total_files)
                    .await?;
            }
            let store = self.store.clone();
            writing = Some(tokio::spawn(async move {
                let counts = (files, rows.len());
                store.apply(&paths, rows).await?;
                Ok(counts)
            }));
        }
        if let Some(previous) = writing.take() {
            self.written(previous, &mut files_done, &mut report, total_files)
                .await?;
        }
        if report.added + report.updated + report.removed > 0 || full {
            self.store.optimize().await?;
        }
        report.ms = started.elapsed().as_millis() as u64;
        self.set_progress(Progress {
            running: false,
            files_total: total_files,
            files_done,
            chunks_done: report.chunks,
        });
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(LastSync {
            report: report.clone(),
            at: iso_now(),
        });
        tracing::info!(?report, "sync done");
        Ok(report)
    }

    /// Waits for a group's write and records its progress.
    async fn written(
        &self,
        write: tokio::task::JoinHandle<Result<(usize, usize), SyncError>>,
        files_done: &mut usize,
        report: &mut SyncReport,
        total_files: usize,
    ) -> Result<(), SyncError> {
        let (files, chunks) = write.await.map_err(|e| SyncError::Write(e.to_string()))??;
        *files_done += files;
        report.chunks += chunks;
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
        let mut texts = Vec::new();
        for file in &files {
            for chunk in &file.document.chunks {
                texts.push(chunker::embedding_text(&file.document.title, chunk));
            }
        }
        let vectors = self.embedder.embed(texts, TextKind::Document).await?;
        let mut vectors = vectors.into_iter();
        let mut rows = Vec::new();
        let mut paths = Vec::new();
        for file in files {
            let doc = &file.document;
            let meta = &doc.meta;
            let tags = format!(" {} ", meta.tags.join(" "));
            for chunk in &doc.chunks {
                let embedding_text = chunker::embedding_text(&doc.title, chunk);
                let mut search_text = if chunk.index == 0 && !meta.aliases.is_empty() {
                    format!("{embedding_text}\n\n{}", meta.aliases.join("\n"))
                } else {
                    embedding_text
                };
                let terms = crate::search::route::joined_terms(&search_text);
                if !terms.is_empty() {
                    search_text = format!("{search_text}\n\n{}", terms.join(" "));
                }
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
        *self.progress.lock().unwrap_or_else(|p| p.into_inner()) = progress;
    }
}

/// Whether a file name is Markdown that ragdown indexes.
pub fn is_markdown(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

/// Whether a directory entry is skipped: dot-entries and `node_modules`.
pub fn is_skipped(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules"
}

fn list_markdown(docs_dir: &Path, layout: Layout) -> Result<Vec<Listed>, SyncError> {
    if !docs_dir.is_dir() {
        return Err(SyncError::List(docs_dir.to_path_buf(), "not a directory".into()));
    }
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(docs_dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || !is_skipped(&name) || (temp::is_temp_name(&name) && e.file_type().is_file())
        });
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                tracing::warn!("skipping an unreadable entry: {err}");
                continue;
            }
        };
        if temp::is_temp_name(&entry.file_name().to_string_lossy()) {
            // A write's temp file: never indexed, and removed once its writer is gone.
            match temp::remove_if_abandoned(entry.path()) {
                Ok(true) => tracing::warn!(path = %entry.path().display(), "removed a temp file a killed write left"),
                Ok(false) => {}
                Err(err) => {
                    tracing::warn!(path = %entry.path().display(), %err, "cannot remove an abandoned temp file")
                }
            }
            continue;
        }
        if !entry.file_type().is_file() || !is_markdown(&entry.file_name().to_string_lossy()) {
            continue;
        }
        if layout == Layout::Folders && entry.depth() == 1 {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(docs_dir) else {
            continue;
        };
        let Some(path) = posix(rel) else {
            tracing::warn!(path = %rel.display(), "skipping a file whose name is not UTF-8");
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        out.push(Listed {
            path,
            abs: entry.path().to_path_buf(),
            mtime_ms: mtime_ms(&meta),
            size: meta.len() as f64,
        });
    }
    Ok(out)
}

/// A relative path with `/` separators, or `None` when it is not UTF-8.
pub fn posix(rel: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    parts.map(|p| p.join("/"))
}

/// A file's modification time in milliseconds since the epoch.
pub fn mtime_ms(meta: &std::fs::Metadata) -> f64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
        .floor()
}

/// Reads each stale file; those whose hash is unchanged count as unchanged.
fn read_changed(stale: Vec<Listed>, indexed: &std::collections::HashMap<String, String>) -> (Vec<Changed>, usize) {
    let mut changed = Vec::new();
    let mut unchanged = 0;
    for listed in stale {
        let bytes = match std::fs::read(&listed.abs) {
            Ok(bytes) => bytes,
            Err(err) => {
                tracing::warn!(path = %listed.path, "cannot read: {err}");
                continue;
            }
        };
        let hash = hex::encode(Sha256::digest(&bytes));
        if indexed.get(&listed.path) == Some(&hash) {
            unchanged += 1;
            continue;
        }
        let Some(source) = text_of(&bytes) else {
            tracing::warn!(path = %listed.path, "skipping: not UTF-8 text (a binary file named like Markdown?)");
            continue;
        };
        let document = chunker::chunk_document(&listed.path, source);
        changed.push(Changed { listed, hash, document });
    }
    (changed, unchanged)
}

/// The file as text, or `None` for binary content.
fn text_of(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    (!text.contains('\0')).then_some(text)
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

    #[test]
    fn markdown_names_and_skipped_entries() {
        for name in ["a.md", "B.MD", "c.markdown", "d.mdx"] {
            assert!(is_markdown(name), "{name}");
        }
        for name in ["a.txt", "md", "a.md.bak"] {
            assert!(!is_markdown(name), "{name}");
        }
        assert!(is_skipped(".obsidian") && is_skipped("node_modules") && !is_skipped("notes"));
    }

    #[test]
    fn listing_skips_dot_dirs_node_modules_symlinks_and_loose_files_in_folders_mode() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for path in [
            "ops/a.md",
            "ops/sub/b.markdown",
            ".hidden/c.md",
            "ops/node_modules/d.md",
            "loose.md",
            "ops/e.txt",
        ] {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, "# x").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("ops/a.md"), root.join("ops/link.md")).unwrap();
        let names = |layout| -> Vec<String> {
            list_markdown(root, layout)
                .unwrap()
                .into_iter()
                .map(|l| l.path)
                .collect()
        };
        assert_eq!(names(Layout::Folders), ["ops/a.md", "ops/sub/b.markdown"]);
        assert_eq!(names(Layout::Single), ["loose.md", "ops/a.md", "ops/sub/b.markdown"]);
    }

    #[test]
    fn binary_content_is_not_text() {
        assert_eq!(text_of(b"# ok"), Some("# ok"));
        assert_eq!(text_of(b"\x89PNG\r\n\x1a\n\0\0"), None);
        assert_eq!(text_of(&[0xff, 0xfe, 0x41]), None);
    }
}
