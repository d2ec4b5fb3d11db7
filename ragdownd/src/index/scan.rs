//! The Markdown files on disk, as a sync sees them: which belong to the index, listing them with
//! their size and mtime, and reading, hashing and chunking the ones that may have changed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use crate::documents::paths::is_skipped;
use crate::documents::temp;
use crate::markdown::chunker::{self, Document};
use crate::markdown::is_markdown;

/// Which Markdown files belong to the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// stdio: the docs dir is one folder; every Markdown file under it is indexed.
    Single,
    /// serve: top-level directories are folders; loose files directly in the docs dir are not indexed.
    Folders,
}

/// A Markdown file on disk.
pub(super) struct Listed {
    pub path: String,
    pub abs: PathBuf,
    pub mtime_ms: f64,
    pub size: f64,
}

/// A file that needs (re)indexing, read and chunked.
pub(super) struct Changed {
    pub listed: Listed,
    pub hash: String,
    pub document: Document,
}

/// Files read per thread before the reading is split across cores: below this one thread is
/// quicker than starting more.
const FILES_PER_THREAD: usize = 64;

/// Why the docs dir could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The docs dir is missing, or not a directory.
    #[error("not a directory")]
    NotADirectory,
    /// The blocking task that lists or reads the files ended without an answer.
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
}

/// The Markdown files of `docs_dir` that `layout` indexes, sorted by path. Abandoned temp files of
/// killed writes are removed on the way, and young ones once they are old enough to judge.
pub(super) fn list_markdown(docs_dir: &Path, layout: Layout) -> Result<Vec<Listed>, ListError> {
    if !docs_dir.is_dir() {
        return Err(ListError::NotADirectory);
    }
    Ok(walk(docs_dir, docs_dir, 0, layout))
}

/// What [`list_markdown`] lists at `rel` (a file, or a folder and everything under it), without
/// walking the rest: nothing where the whole walk would not get there (a skipped name or a
/// symlink on the way, a loose file of the folders layout), sorted by path.
pub(super) fn list_markdown_under(docs_dir: &Path, layout: Layout, rel: &str) -> Result<Vec<Listed>, ListError> {
    if !docs_dir.is_dir() {
        return Err(ListError::NotADirectory);
    }
    let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
    let mut at = docs_dir.to_path_buf();
    for part in &parts {
        if is_skipped(part) || *part == ".." {
            return Ok(Vec::new());
        }
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if !meta.file_type().is_symlink() => {}
            _ => return Ok(Vec::new()),
        }
    }
    Ok(walk(docs_dir, &at, parts.len(), layout))
}

/// The Markdown files from `start`, which sits `depth` levels below `docs_dir`.
fn walk(docs_dir: &Path, start: &Path, depth: usize, layout: Layout) -> Vec<Listed> {
    let mut out = Vec::new();
    // Temp files too young (or still held) to judge now: looked at again once they can be.
    let mut young = Vec::new();
    let walker = walkdir::WalkDir::new(start)
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
            if temp::tidy(entry.path()) {
                young.push(entry.path().to_path_buf());
            }
            continue;
        }
        if !entry.file_type().is_file() || !is_markdown(&entry.file_name().to_string_lossy()) {
            continue;
        }
        if layout == Layout::Folders && depth + entry.depth() == 1 {
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
    temp::recheck_later(young);
    out
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

/// Reads each stale file, in order, on every core; those whose hash is unchanged count as
/// unchanged. A first index of 15,000 files spent 1.0-1.4 s here on one thread (2026-12-02).
pub(super) fn read_changed(stale: Vec<Listed>, indexed: &HashMap<String, String>) -> (Vec<Changed>, usize) {
    let mut changed = Vec::new();
    let mut unchanged = 0;
    for (part, same) in on_every_core(stale, FILES_PER_THREAD, |part| read_part(part, indexed)) {
        changed.extend(part);
        unchanged += same;
    }
    (changed, unchanged)
}

/// `work` over `items` split into one part per core, each of at least `min_per_thread` items (one
/// part, on this thread, below that); the parts' answers in the items' order. A panic in a part
/// goes on in the caller.
pub(super) fn on_every_core<T: Send, R: Send>(
    items: Vec<T>,
    min_per_thread: usize,
    work: impl Fn(Vec<T>) -> R + Sync,
) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(items.len() / min_per_thread.max(1)).max(1);
    if threads == 1 {
        return vec![work(items)];
    }
    let per_thread = items.len().div_ceil(threads);
    let mut parts = Vec::with_capacity(threads);
    let mut rest = items;
    while !rest.is_empty() {
        let tail = rest.split_off(per_thread.min(rest.len()));
        parts.push(std::mem::replace(&mut rest, tail));
    }
    let work = &work;
    std::thread::scope(|scope| {
        let workers: Vec<_> = parts.into_iter().map(|part| scope.spawn(move || work(part))).collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

fn read_part(stale: Vec<Listed>, indexed: &HashMap<String, String>) -> (Vec<Changed>, usize) {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Writes `# x` at each of `paths` under `root`.
    fn tree(root: &Path, paths: &[&str]) {
        for path in paths {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, "# x").unwrap();
        }
    }

    #[test]
    fn listing_skips_dot_dirs_node_modules_symlinks_and_loose_files_in_folders_mode() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "ops/a.md",
                "ops/sub/b.markdown",
                ".hidden/c.md",
                "ops/node_modules/d.md",
                "loose.md",
                "ops/e.txt",
            ],
        );
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
    fn listing_under_a_path_lists_what_the_whole_walk_lists_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        tree(
            root,
            &[
                "ops/a.md",
                "ops/sub/b.markdown",
                "ops/sub/deeper/c.md",
                ".hidden/c.md",
                "ops/.dot/d.md",
                "ops/node_modules/d.md",
                "loose.md",
                "ops/e.txt",
                "other/f.md",
            ],
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("ops/a.md"), root.join("ops/link.md")).unwrap();
            std::os::unix::fs::symlink(root.join("ops/sub"), root.join("ops/linked")).unwrap();
        }
        let paths = |listed: Vec<Listed>| -> Vec<String> { listed.into_iter().map(|l| l.path).collect() };
        for layout in [Layout::Single, Layout::Folders] {
            let all = paths(list_markdown(root, layout).unwrap());
            for rel in [
                "",
                "ops",
                "ops/",
                "ops/a.md",
                "ops/sub",
                "ops/sub/deeper/c.md",
                ".hidden",
                ".hidden/c.md",
                "ops/.dot/d.md",
                "ops/node_modules",
                "loose.md",
                "ops/e.txt",
                "ops/link.md",
                "ops/linked",
                "ops/linked/b.markdown",
                "gone",
                "ops/gone.md",
                "ops/a.md/x",
                "../ops",
                "other",
            ] {
                let prefix = rel.trim_end_matches('/');
                let expected: Vec<&String> = all
                    .iter()
                    .filter(|p| prefix.is_empty() || *p == prefix || p.starts_with(&format!("{prefix}/")))
                    .collect();
                let got = paths(list_markdown_under(root, layout, rel).unwrap());
                assert_eq!(got.iter().collect::<Vec<_>>(), expected, "{layout:?} {rel}");
            }
        }
        assert!(matches!(
            list_markdown_under(&root.join("missing"), Layout::Single, "a.md"),
            Err(ListError::NotADirectory)
        ));
    }

    #[test]
    fn reading_on_several_threads_keeps_the_order_and_counts_unchanged_files() {
        let dir = tempfile::tempdir().unwrap();
        let files = FILES_PER_THREAD * 4 + 3;
        let mut listed = Vec::new();
        for i in 0..files {
            let abs = dir.path().join(format!("n{i:04}.md"));
            std::fs::write(&abs, format!("# Note {i}\n\nBody {i}.\n")).unwrap();
            listed.push(Listed {
                path: format!("n{i:04}.md"),
                abs,
                mtime_ms: 0.0,
                size: 0.0,
            });
        }
        // Every seventh file is indexed with its current hash, so it is read but not changed.
        let mut indexed = HashMap::new();
        for i in (0..files).step_by(7) {
            let bytes = std::fs::read(&listed[i].abs).unwrap();
            indexed.insert(listed[i].path.clone(), hex::encode(Sha256::digest(&bytes)));
        }
        indexed.insert("n0001.md".to_string(), "an old hash".to_string());
        let expected: Vec<String> = (0..files)
            .filter(|i| i % 7 != 0)
            .map(|i| format!("n{i:04}.md"))
            .collect();

        let (changed, unchanged) = read_changed(listed, &indexed);
        let paths: Vec<&str> = changed.iter().map(|c| c.listed.path.as_str()).collect();
        assert_eq!(paths, expected);
        assert_eq!(unchanged, files.div_ceil(7));
        assert!(changed.iter().all(|c| c.document.title.starts_with("Note ")));
    }

    #[test]
    fn binary_content_is_not_text() {
        assert_eq!(text_of(b"# ok"), Some("# ok"));
        assert_eq!(text_of(b"\x89PNG\r\n\x1a\n\0\0"), None);
        assert_eq!(text_of(&[0xff, 0xfe, 0x41]), None);
    }
}
