//! The history of every change made through ragdown: what changed (paths, and for a move both
//! paths and every document whose links were rewritten), who changed it (the MCP tool and session,
//! or the web UI), when, and the bytes before and after, so that any entry can be undone byte for
//! byte and every version read back.
//!
//! **Layout.** One directory, `<docs dir>/.ragdown-history` unless `RAGDOWN_HISTORY_DIR` says
//! otherwise, never the index's data dir (deleting the index costs a rebuild, never history):
//!
//! ```text
//! .ragdown-history/
//!   .gitignore          "*": a git work tree around the docs never sees the history
//!   lock                shared by recorders, exclusive for retention (flock)
//!   entries/<id>.json   one change: who, when, what, and its operations in order
//!   objects/ab/cdef…    each distinct content once, zstd-compressed, named by its SHA-256
//! ```
//!
//! The directory is a dot entry, so the indexer, the watcher, the folder list and every client
//! path check already leave it out: it is never indexed nor shown as a document.
//!
//! **Crates.** Contents are named by SHA-256 (`sha2`, RustCrypto, already how ragdown hashes a
//! document: a version's name in the history is the `hash` agents and the web UI already see, so
//! restoring "the version with hash X" needs no second name). They are compressed with `zstd`
//! (the reference library's maintained bindings, already built into this binary by LanceDB;
//! Markdown shrinks about 3-4x), so nothing new is compiled.
//!
//! **Crash safety.** An entry is written before the change it describes: the contents first
//! (each file flushed and renamed into place), then the entry (the same), and only then is the
//! document touched, itself by an atomic rename ([`crate::documents`]). A kill at any point leaves
//! either the old file (with no entry, or an entry the undo finds not applied: the disk still holds
//! each operation's `before`) or the new file with its entry. A change made of many steps (a move
//! that rewrites links, a recursive delete) records each step before making it, so a kill halfway
//! leaves an entry that undoes exactly the steps that happened. A change the history cannot record
//! (a full disk) is refused, never made without its way back.
//!
//! **Changes made elsewhere.** An undo compares each file with the entry's `after` before touching
//! it: a file changed since (an editor, `git pull`) is a conflict, and the caller chooses to keep
//! it or overwrite it (the overwritten bytes are recorded too, so that can be undone as well).
//!
//! This module never touches the index and never formats a tool's text; retention only ever
//! deletes inside the history directory.

mod blobs;
mod change;
mod entry;
mod retention;
mod undo;

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

pub use change::Change;
pub use entry::{Entry, Op, Via, Who};
pub use retention::Pruned;
pub use undo::{Conflict, Resolve, SessionUndo, Undone};

use crate::documents::DocError;

/// The name of the history directory in the docs dir, by default.
pub const DEFAULT_DIR_NAME: &str = ".ragdown-history";

/// Days a change is kept, by default.
pub const DEFAULT_DAYS: u64 = 30;

/// Most bytes the history keeps on disk, by default: a month of a busy vault (a few hundred
/// changes a day to notes of a few kB) takes 10-30 MB compressed.
pub const DEFAULT_MAX_BYTES: u64 = 64 << 20;

/// A `RAGDOWN_HISTORY_MAX_SIZE` that is not a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a size: {0} (say 64MB, 500KB or a number of bytes)")]
pub struct NotASize(String);

/// A size as `RAGDOWN_HISTORY_MAX_SIZE` takes it: bytes, or a number with `KB`, `MB` or `GB`
/// (powers of 1024; the `B` may be left out, case does not matter).
pub fn parse_size(text: &str) -> Result<u64, NotASize> {
    let clean = text.trim().to_ascii_uppercase();
    let clean = clean.strip_suffix('B').unwrap_or(&clean).trim_end();
    let (number, unit) = match clean.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((at, _)) => (&clean[..at], &clean[at..]),
        None => (clean, ""),
    };
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => return Err(NotASize(text.to_string())),
    };
    let number: u64 = number.trim().parse().map_err(|_| NotASize(text.to_string()))?;
    Ok(number.saturating_mul(1 << shift))
}

/// Where the history lives and how much of it is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryOptions {
    /// The history directory; `None` for [`DEFAULT_DIR_NAME`] in the docs dir.
    pub dir: Option<PathBuf>,
    /// Entries older than this are dropped.
    pub max_age: Duration,
    /// Past this many bytes (contents and entries), the oldest entries are dropped.
    pub max_bytes: u64,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        Self {
            dir: None,
            max_age: Duration::from_secs(DEFAULT_DAYS * 24 * 3600),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// The history of one docs dir. Cheap to open: everything is on disk, and several processes (a
/// serve and stdio clients over one vault) share one directory safely.
#[derive(Debug)]
pub struct History {
    /// The docs dir; entries hold paths relative to it.
    root: PathBuf,
    /// The history directory.
    dir: PathBuf,
    options: HistoryOptions,
    /// Bytes this process added since its last retention pass.
    added: AtomicU64,
    /// Whether this process has run a retention pass yet.
    pruned_once: Mutex<bool>,
}

impl History {
    /// The history of `docs_dir` with `options`. Nothing is created until the first change.
    pub fn new(docs_dir: &Path, options: &HistoryOptions) -> Self {
        let dir = options.dir.clone().unwrap_or_else(|| docs_dir.join(DEFAULT_DIR_NAME));
        Self {
            root: docs_dir.to_path_buf(),
            dir,
            options: options.clone(),
            added: AtomicU64::new(0),
            pruned_once: Mutex::new(false),
        }
    }

    /// The history directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The docs dir the entries' paths are relative to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn entries_dir(&self) -> PathBuf {
        self.dir.join("entries")
    }

    fn objects_dir(&self) -> PathBuf {
        self.dir.join("objects")
    }

    /// Creates the directory and its `.gitignore` when missing.
    fn ensure(&self) -> io::Result<()> {
        if self.entries_dir().is_dir() && self.objects_dir().is_dir() {
            return Ok(());
        }
        std::fs::create_dir_all(self.entries_dir())?;
        std::fs::create_dir_all(self.objects_dir())?;
        let ignore = self.dir.join(".gitignore");
        if !ignore.exists() {
            // `*` ignores the directory's contents, this file included: git never lists them,
            // and nothing is added to the user's .gitignore or git index.
            crate::documents::atomic_write(&ignore, b"# ragdown's history of changes: see docs/history.md\n*\n")?;
        }
        Ok(())
    }

    /// Takes the lock shared by recorders (exclusive: retention), held until the file is dropped.
    fn lock(&self, exclusive: bool) -> io::Result<File> {
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("lock"))?;
        if exclusive {
            file.lock()?
        } else {
            file.lock_shared()?
        };
        Ok(file)
    }

    /// A path under the docs dir as entries hold it: relative, `/`-separated.
    fn relative(&self, abs: &Path) -> Result<String, DocError> {
        abs.strip_prefix(&self.root)
            .ok()
            .and_then(crate::index::scan::posix)
            .filter(|rel| !rel.is_empty())
            .ok_or_else(|| DocError::BadRequest(format!("not inside the docs folder: {}", abs.display())))
    }

    /// A path of an entry on disk.
    fn absolute(&self, rel: &str) -> PathBuf {
        let mut path = self.root.clone();
        path.extend(rel.split('/'));
        path
    }

    /// The bytes of the version named `hash` (a whole SHA-256), or 404.
    pub fn content(&self, hash: &str) -> Result<Vec<u8>, DocError> {
        blobs::get(&self.objects_dir(), hash)
    }

    /// Every entry, oldest first. Entries that cannot be read are left out, with a warning.
    pub fn entries(&self) -> Vec<Entry> {
        entry::list(&self.entries_dir())
    }

    /// One entry by id, or 404.
    pub fn entry(&self, id: &str) -> Result<Entry, DocError> {
        entry::read(&self.entries_dir(), id)
    }

    /// Counts `bytes` newly written, and runs retention when a fair share of the limit was added
    /// since the last pass (or none has run in this process yet).
    fn added(&self, bytes: u64) {
        let total = self.added.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let first = {
            let mut once = self.pruned_once.lock();
            !std::mem::replace(&mut *once, true)
        };
        if first || total > self.options.max_bytes / 8 {
            self.added.store(0, Ordering::Relaxed);
            if let Err(err) = self.prune() {
                tracing::warn!(%err, dir = %self.dir.display(), "could not prune the history");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("64MB"), Ok(64 << 20));
        assert_eq!(parse_size(" 500 kb"), Ok(500 << 10));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("12000"), Ok(12000));
        assert!(parse_size("lots").is_err() && parse_size("5TB").is_err() && parse_size("").is_err());
    }
}
