//! Recording one change, step by step, each step on disk before it is made.
//!
//! A [`Change`] is begun when a write starts ([`History::begin`]) and writes nothing until its
//! first step is recorded: a write refused by its checks leaves no entry. Each step stores the
//! contents it names, then rewrites the entry with the step added, both flushed, before the caller
//! touches the file. A step that then fails is taken back ([`Change::forget_last`]).

use std::fs;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use super::entry::{self, Entry, Op, Who};
use super::{History, blobs};
use crate::documents::{DocError, Record};

/// One change being made: its entry, on disk once it has a step.
#[derive(Debug)]
pub struct Change {
    /// `None`: nothing is recorded (unit tests of the file code, a history turned off).
    history: Option<Arc<History>>,
    entry: Mutex<Entry>,
}

impl History {
    /// Begins recording a change by `who`; `action` says what was asked (`write`, `move`, ...).
    pub fn begin(self: &Arc<Self>, who: Who, action: &str) -> Change {
        Change {
            history: Some(self.clone()),
            entry: Mutex::new(Entry::new(who, action)),
        }
    }
}

impl Change {
    /// A change that records nothing.
    pub fn untracked() -> Self {
        Self {
            history: None,
            entry: Mutex::new(Entry::new(Who::web(), "untracked")),
        }
    }

    /// The entry's id, once a step is recorded.
    pub fn id(&self) -> Option<String> {
        let entry = self.entry.lock();
        (self.history.is_some() && !entry.ops.is_empty()).then(|| entry.id.clone())
    }

    /// Marks the change as the undo of entry `id`.
    pub(super) fn set_undoes(&self, id: &str) {
        self.entry.lock().undoes = Some(id.to_string());
    }

    /// The entry as recorded so far.
    pub fn entry(&self) -> Entry {
        self.entry.lock().clone()
    }

    /// Records that the file at `abs` goes from `before` to `after` (`None`: no file).
    pub fn file(&self, abs: &Path, before: Option<&[u8]>, after: Option<&[u8]>) -> Result<(), DocError> {
        let Some(history) = &self.history else {
            return Ok(());
        };
        let path = history.relative(abs)?;
        self.record(abs, |objects, added| {
            let mut put = |bytes: Option<&[u8]>| -> std::io::Result<Option<String>> {
                bytes
                    .map(|bytes| {
                        let (hash, written) = blobs::put(objects, bytes)?;
                        *added += written;
                        Ok(hash)
                    })
                    .transpose()
            };
            let before = put(before)?;
            let after = put(after)?;
            Ok(vec![Op::File { path, before, after }])
        })
    }

    /// Records a rename of `from` to `to` (a folder when `dir`; a document's content `hash`).
    pub fn renamed(&self, from: &Path, to: &Path, dir: bool, hash: Option<String>) -> Result<(), DocError> {
        let Some(history) = &self.history else {
            return Ok(());
        };
        let (from_rel, to_rel) = (history.relative(from)?, history.relative(to)?);
        self.record(from, |_, _| {
            Ok(vec![Op::Rename {
                from: from_rel,
                to: to_rel,
                dir,
                hash,
            }])
        })
    }

    /// Records the empty folder `abs` about to be made.
    pub fn mkdir(&self, abs: &Path) -> Result<(), DocError> {
        let Some(history) = &self.history else {
            return Ok(());
        };
        let path = history.relative(abs)?;
        self.record(abs, |_, _| Ok(vec![Op::Mkdir { path }]))
    }

    /// Records the symbolic link `abs` to `target` about to be made.
    pub fn linked(&self, abs: &Path, target: &str) -> Result<(), DocError> {
        let Some(history) = &self.history else {
            return Ok(());
        };
        let path = history.relative(abs)?;
        let target = target.to_string();
        self.record(abs, |_, _| Ok(vec![Op::Link { path, target }]))
    }

    /// Records the symbolic link `abs` to `target` about to be removed.
    pub fn unlinked(&self, abs: &Path, target: &str) -> Result<(), DocError> {
        let Some(history) = &self.history else {
            return Ok(());
        };
        let path = history.relative(abs)?;
        let target = target.to_string();
        self.record(abs, |_, _| Ok(vec![Op::Unlink { path, target }]))
    }

    /// Records the folders between the docs dir and `abs`'s parent that are missing, which the
    /// caller is about to make, shallowest first.
    pub fn mkdirs(&self, abs: &Path) -> Result<(), DocError> {
        let Some(history) = &self.history else {
            return Ok(());
        };
        let mut missing: Vec<&Path> = abs
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(&history.root) && *dir != history.root)
            .take_while(|dir| matches!(fs::symlink_metadata(dir), Err(err) if err.kind() == ErrorKind::NotFound))
            .collect();
        missing.reverse();
        for dir in missing {
            self.mkdir(dir)?;
        }
        Ok(())
    }

    /// Records everything under the folder `abs` (files with their contents, symbolic links,
    /// folders) as deleted, in the order a recursive delete removes them: each folder's entries
    /// before the folder.
    pub fn removing_tree(&self, abs: &Path) -> Result<(), DocError> {
        let Some(history) = &self.history else {
            return Ok(());
        };
        let shown = history.relative(abs)?;
        self.record(abs, |objects, added| {
            let mut ops = Vec::new();
            for item in walkdir::WalkDir::new(abs).follow_links(false).contents_first(true) {
                let item = item.map_err(std::io::Error::from)?;
                let path = history.relative(item.path()).map_err(std::io::Error::other)?;
                let kind = item.file_type();
                if kind.is_dir() {
                    ops.push(Op::Rmdir { path });
                } else if kind.is_symlink() {
                    let target = fs::read_link(item.path())?.to_string_lossy().into_owned();
                    ops.push(Op::Unlink { path, target });
                } else if kind.is_file() {
                    let (hash, written) = blobs::put(objects, &fs::read(item.path())?)?;
                    *added += written;
                    ops.push(Op::File {
                        path,
                        before: Some(hash),
                        after: None,
                    });
                } else {
                    return Err(std::io::Error::other(format!(
                        "{path} is neither a file, a folder nor a link, so it cannot be kept"
                    )));
                }
            }
            Ok(ops)
        })
        .map_err(|err| match err {
            DocError::Io { source, .. } => DocError::Io {
                context: format!("could not keep {shown} in the history, so it was not deleted"),
                source,
            },
            other => other,
        })
    }

    /// Takes back the last step: it was refused or failed and nothing of it was made.
    pub fn forget_last(&self) {
        let Some(history) = &self.history else {
            return;
        };
        let mut entry = self.entry.lock();
        entry.ops.pop();
        let done = if entry.ops.is_empty() {
            entry::remove(&history.entries_dir(), &entry.id)
        } else {
            entry::write(&history.entries_dir(), &entry).map(|_| ())
        };
        if let Err(err) = done {
            // The entry says a step happened that did not: an undo finds the file as it was before
            // that step and leaves it.
            tracing::warn!(%err, id = %entry.id, "could not take a step back out of the history");
        }
    }

    /// Stores what `steps` makes (contents under the shared lock, the step list), then the entry
    /// with them added, and counts what was written.
    fn record(
        &self,
        abs: &Path,
        steps: impl FnOnce(&Path, &mut u64) -> std::io::Result<Vec<Op>>,
    ) -> Result<(), DocError> {
        let history = self.history.as_ref().expect("a tracked change");
        let context = || {
            let shown = history.relative(abs).unwrap_or_else(|_| abs.display().to_string());
            format!("could not record the change to {shown} in the history, so it was not made")
        };
        let mut added = 0;
        {
            let mut entry = self.entry.lock();
            let done = history.ensure().and_then(|()| {
                let _shared = history.lock(false)?;
                let ops = steps(&history.objects_dir(), &mut added)?;
                let count = ops.len();
                entry.ops.extend(ops);
                match entry::write(&history.entries_dir(), &entry) {
                    Ok(written) => {
                        added += written;
                        Ok(())
                    }
                    Err(err) => {
                        let keep = entry.ops.len() - count;
                        entry.ops.truncate(keep);
                        Err(err)
                    }
                }
            });
            done.map_err(DocError::io(context()))?;
        }
        history.added(added);
        Ok(())
    }
}

/// The file code records through this: each of its steps is one of the change's.
impl Record for Change {
    fn file(&self, abs: &Path, before: Option<&[u8]>, after: Option<&[u8]>) -> Result<(), DocError> {
        Change::file(self, abs, before, after)
    }
    fn mkdirs(&self, abs: &Path) -> Result<(), DocError> {
        Change::mkdirs(self, abs)
    }
    fn removing_tree(&self, abs: &Path) -> Result<(), DocError> {
        Change::removing_tree(self, abs)
    }
    fn forget_last(&self) {
        Change::forget_last(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryOptions;

    #[test]
    fn nothing_is_written_until_a_step_and_a_failed_step_is_taken_back() {
        let docs = tempfile::tempdir().unwrap();
        let history = Arc::new(History::new(docs.path(), &HistoryOptions::default()));
        let change = history.begin(Who::web(), "save");
        assert_eq!(change.id(), None);
        assert!(history.entries().is_empty());
        let abs = docs.path().join("ops/a.md");
        change.mkdirs(&abs).unwrap();
        change.file(&abs, None, Some(b"one\r\n")).unwrap();
        let entries = history.entries();
        assert_eq!(entries.len(), 1);
        assert_eq!(
            entries[0].ops,
            vec![
                Op::Mkdir { path: "ops".into() },
                Op::File {
                    path: "ops/a.md".into(),
                    before: None,
                    after: Some(crate::documents::content_hash(b"one\r\n"))
                }
            ]
        );
        assert_eq!(
            history.content(&crate::documents::content_hash(b"one\r\n")).unwrap(),
            b"one\r\n"
        );
        change.forget_last();
        assert_eq!(history.entries()[0].ops.len(), 1);
        change.forget_last();
        assert!(history.entries().is_empty(), "an entry with no step is removed");
        assert!(
            fs::read_to_string(history.dir().join(".gitignore"))
                .unwrap()
                .contains("\n*\n"),
            "git ignores the history"
        );
    }

    #[test]
    fn a_tree_is_recorded_children_first_with_every_file() {
        let docs = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("ops/old/a.md", "a"),
            ("ops/img.png", "\u{89}PNG"),
            ("ops/.ragdown.json", "{}"),
        ] {
            fs::create_dir_all(docs.path().join(path).parent().unwrap()).unwrap();
            fs::write(docs.path().join(path), text).unwrap();
        }
        fs::create_dir(docs.path().join("ops/empty")).unwrap();
        let history = Arc::new(History::new(docs.path(), &HistoryOptions::default()));
        let change = history.begin(Who::web(), "delete-folder");
        change.removing_tree(&docs.path().join("ops")).unwrap();
        let ops = history.entries().remove(0).ops;
        assert_eq!(ops.last(), Some(&Op::Rmdir { path: "ops".into() }));
        let position = |want: &str| ops.iter().position(|op| op.paths() == vec![want]).unwrap();
        assert!(position("ops/old/a.md") < position("ops/old"));
        assert!(position("ops/empty") < position("ops"));
        assert!(
            ops.iter().any(|op| op.paths() == vec!["ops/.ragdown.json"]),
            "dot files too"
        );
        assert_eq!(ops.len(), 6, "three files, three folders");
    }

    #[test]
    fn an_untracked_change_records_nothing() {
        let docs = tempfile::tempdir().unwrap();
        let change = Change::untracked();
        change.file(&docs.path().join("a.md"), None, Some(b"x")).unwrap();
        assert_eq!(change.id(), None);
        assert!(!docs.path().join(super::super::DEFAULT_DIR_NAME).exists());
    }
}
