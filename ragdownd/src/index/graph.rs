//! The link graph: for every indexed document, what the links written in it can point at (their
//! [`link_key`]s, hashed), held in memory and brought up to date against the index's files, so
//! that the documents linking to one are found without reading every file.
//!
//! A backlink search read and resolved every document of the folder: over 60 s at a million
//! chunks (165,000 files, 2026-12-07). With the graph it reads only the few documents whose
//! links carry one of the wanted document's [`name_keys`], and resolves their links exactly as
//! before, so what it answers is unchanged. The graph is brought up to date on each search by
//! comparing the index's files with what it read (a file whose size or mtime changed is read
//! again), and filled in the background after a primary's first sync.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::rows::FileState;
use super::scan::on_every_core;
use crate::markdown::links::{self, LinkKey};

/// Files read per thread before the reading is split across cores.
const FILES_PER_THREAD: usize = 256;

/// What the graph knows of one document.
#[derive(Debug)]
struct Source {
    mtime_ms: f64,
    size: f64,
    /// The hashed keys of its links, sorted, each once.
    keys: Box<[u64]>,
    /// Whether one of its links may point anywhere ([`LinkKey::Anywhere`]).
    anywhere: bool,
}

/// The link keys of every indexed document.
#[derive(Debug)]
pub struct LinkGraph {
    docs_dir: PathBuf,
    sources: tokio::sync::Mutex<HashMap<String, Source>>,
    /// Files read since the start.
    reads: AtomicU64,
}

impl LinkGraph {
    pub fn new(docs_dir: PathBuf) -> Self {
        Self {
            docs_dir,
            sources: tokio::sync::Mutex::new(HashMap::new()),
            reads: AtomicU64::new(0),
        }
    }

    /// How many files the graph has read since the start.
    pub fn files_read(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// Brings the graph to `files` (the index's, docs-dir-relative), then gives the documents
    /// under `prefix` other than `except` that have a link keyed by one of `keys` (a document's
    /// [`name_keys`](links::name_keys)) or one that may point anywhere, sorted by path.
    pub async fn linking(
        &self,
        files: &HashMap<String, FileState>,
        prefix: &str,
        keys: &[String],
        except: &str,
    ) -> Vec<String> {
        let mut sources = self.sources.lock().await;
        self.refresh(&mut sources, files).await;
        let wanted: Vec<u64> = keys.iter().map(|key| hash(key)).collect();
        let mut out: Vec<String> = sources
            .iter()
            .filter(|(path, source)| {
                path.starts_with(prefix)
                    && path.as_str() != except
                    && (source.anywhere || wanted.iter().any(|key| source.keys.binary_search(key).is_ok()))
            })
            .map(|(path, _)| path.clone())
            .collect();
        out.sort();
        out
    }

    /// Brings the graph to `files` now (what a primary does after its first sync, so the first
    /// backlink search does not read every file).
    pub async fn warm(&self, files: &HashMap<String, FileState>) {
        let mut sources = self.sources.lock().await;
        self.refresh(&mut sources, files).await;
    }

    /// Drops what is gone from `files` and reads what changed there.
    async fn refresh(&self, sources: &mut HashMap<String, Source>, files: &HashMap<String, FileState>) {
        sources.retain(|path, _| files.contains_key(path));
        let stale: Vec<(String, f64, f64)> = files
            .iter()
            .filter(|(path, state)| {
                sources
                    .get(*path)
                    .is_none_or(|known| known.mtime_ms != state.mtime_ms || known.size != state.size)
            })
            .map(|(path, state)| (path.clone(), state.mtime_ms, state.size))
            .collect();
        if stale.is_empty() {
            return;
        }
        self.reads.fetch_add(stale.len() as u64, Ordering::Relaxed);
        let dir = self.docs_dir.clone();
        let read = tokio::task::spawn_blocking(move || read_all(&dir, stale)).await;
        match read {
            Ok(read) => sources.extend(read),
            Err(err) => tracing::warn!("reading the links of the changed files failed: {err}"),
        }
    }
}

/// Each of `stale` read and its links keyed, on every core. A file that cannot be read has no
/// links until it changes again.
fn read_all(dir: &Path, stale: Vec<(String, f64, f64)>) -> Vec<(String, Source)> {
    on_every_core(stale, FILES_PER_THREAD, |part| {
        part.into_iter()
            .map(|(path, mtime_ms, size)| {
                let source = read_source(&dir.join(&path), mtime_ms, size);
                (path, source)
            })
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// The keys of the links in the file at `abs`.
fn read_source(abs: &Path, mtime_ms: f64, size: f64) -> Source {
    let text = std::fs::read(abs)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let mut keys = Vec::new();
    let mut anywhere = false;
    for link in links::find_links(&text) {
        match links::link_key(&link) {
            LinkKey::Named(key) => keys.push(hash(&key)),
            LinkKey::Anywhere => anywhere = true,
            LinkKey::Itself => {}
        }
    }
    keys.sort_unstable();
    keys.dedup();
    Source {
        mtime_ms,
        size,
        keys: keys.into_boxed_slice(),
        anywhere,
    }
}

/// A key as the graph holds it: 8 bytes, whatever its length. Two keys with one hash only make
/// a document one more candidate, which the exact resolution then turns down.
fn hash(key: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    key.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(mtime_ms: f64, size: f64) -> FileState {
        FileState {
            file_hash: String::new(),
            mtime_ms,
            size,
            chunks: 1,
        }
    }

    #[tokio::test]
    async fn only_documents_with_a_links_key_are_candidates_and_changed_files_are_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| std::fs::write(dir.path().join(path), text).unwrap();
        write("a.md", "See [[Target]] and [x](other.md).");
        write("b.md", "Nothing here, `[[Target]]` is code.");
        write("c.md", "Up [there](../)");
        write("target.md", "[[#Self]] [[Target]]");
        let mut files: HashMap<String, FileState> = ["a.md", "b.md", "c.md", "target.md"]
            .into_iter()
            .map(|p| (p.to_string(), state(1.0, 1.0)))
            .collect();
        let graph = LinkGraph::new(dir.path().to_path_buf());
        let keys = links::name_keys("target.md", &[]);
        assert_eq!(graph.linking(&files, "", &keys, "target.md").await, ["a.md", "c.md"]);
        assert_eq!(graph.files_read(), 4);
        assert_eq!(graph.linking(&files, "", &keys, "target.md").await, ["a.md", "c.md"]);
        assert_eq!(graph.files_read(), 4, "nothing changed, nothing read");
        assert_eq!(
            graph
                .linking(&files, "", &links::name_keys("other.md", &[]), "other.md")
                .await,
            ["a.md", "c.md"]
        );

        // b.md changes (its size in the index did), a.md is gone from the index.
        write("b.md", "Now [[target|it]].");
        files.insert("b.md".into(), state(1.0, 2.0));
        files.remove("a.md");
        assert_eq!(graph.linking(&files, "", &keys, "target.md").await, ["b.md", "c.md"]);
        assert_eq!(graph.files_read(), 5);
        assert!(graph.linking(&files, "sub/", &keys, "target.md").await.is_empty());
        // An alias is a key of its own.
        write("b.md", "Now [[The Goal]].");
        files.insert("b.md".into(), state(2.0, 2.0));
        let aliased = links::name_keys("target.md", &["The Goal".to_string()]);
        assert_eq!(graph.linking(&files, "", &aliased, "target.md").await, ["b.md", "c.md"]);
        assert_eq!(graph.linking(&files, "", &keys, "target.md").await, ["c.md"]);
    }
}
