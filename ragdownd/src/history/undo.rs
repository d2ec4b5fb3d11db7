//! Undoing an entry, a whole session, and restoring one version: each is itself a recorded
//! change (action `undo` or `restore`), so it can be undone in turn.
//!
//! An undo first looks at every step against the disk: a step whose `after` is there is undone,
//! one whose `before` is there already was (or never happened: a change killed before it was
//! made), and anything else changed since, outside ragdown or by a later change. With
//! [`Resolve::Keep`] (the default) one such conflict refuses the whole undo and nothing is
//! touched; with [`Resolve::Overwrite`] files are put back anyway (what they held is recorded, so
//! that too can be undone) and only what cannot be put back without losing something (a rename
//! onto a path that is taken) is reported.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::History;
use super::change::Change;
use super::entry::{Op, Who};
use crate::documents::{
    DocError, atomic_write, content_hash, is_version, read_existing, rename_dir_no_clobber, rename_file_no_clobber,
    with_path_lock,
};

/// What an undo does with a file changed since the entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Resolve {
    /// Refuse the whole undo and touch nothing.
    #[default]
    Keep,
    /// Put the files back anyway.
    Overwrite,
}

/// A path an undo left as it is, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Conflict {
    pub path: String,
    pub reason: String,
}

/// What an undo did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Undone {
    /// The entry undone.
    pub undid: String,
    /// The entry recording this undo (undo it to redo); `None` when nothing changed.
    pub entry: Option<String>,
    /// Paths put back as they were.
    pub changed: Vec<String>,
    /// Paths already as they were before the entry (undone already, or never changed).
    pub unchanged: Vec<String>,
    /// Paths left as they are.
    pub conflicts: Vec<Conflict>,
}

/// What undoing a session did, newest entry first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SessionUndo {
    /// Entries undone, wholly.
    pub undone: Vec<Undone>,
    /// Entries that could not be undone (their conflicts), or only in part.
    pub failed: Vec<Undone>,
}

/// What one step's undo would do, judged against the disk.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Undo,
    AlreadyBefore,
    Conflict(String),
}

impl History {
    /// Undoes entry `id` as `who`.
    pub fn undo(self: &Arc<Self>, id: &str, who: Who, resolve: Resolve) -> Result<Undone, DocError> {
        let entry = self.entry(id)?;
        let mut report = Undone {
            undid: entry.id.clone(),
            ..Undone::default()
        };
        let steps: Vec<(Op, State)> = (0..entry.ops.len())
            .rev()
            .map(|at| (entry.ops[at].clone(), self.state(at, &entry.ops)))
            .collect();
        let refused = steps.iter().filter_map(|(op, state)| match state {
            State::Conflict(reason) => Some(Conflict {
                path: op.paths()[0].to_string(),
                reason: reason.clone(),
            }),
            _ => None,
        });
        if resolve == Resolve::Keep {
            report.conflicts = refused.collect();
            if !report.conflicts.is_empty() {
                return Ok(report);
            }
        }
        let change = self.begin(who, "undo");
        change.set_undoes(&entry.id);
        for (op, state) in steps {
            let path = op.paths()[0].to_string();
            let overwrite = matches!((&op, &state), (Op::File { .. }, State::Conflict(_)));
            match state {
                State::AlreadyBefore => report.unchanged.push(path),
                State::Conflict(reason) if !overwrite => report.conflicts.push(Conflict { path, reason }),
                _ => match self.undo_step(&change, &op, resolve == Resolve::Keep) {
                    Ok(true) => report.changed.push(path),
                    Ok(false) => report.unchanged.push(path),
                    Err(err) => report.conflicts.push(Conflict {
                        path,
                        reason: err.to_string(),
                    }),
                },
            }
        }
        report.entry = change.id();
        Ok(report)
    }

    /// Undoes every entry of agent session `session`, newest first, as `who`. An entry that cannot
    /// be undone (a file changed since) is reported and left; the others are undone.
    pub fn undo_session(self: &Arc<Self>, session: &str, who: &Who) -> Result<SessionUndo, DocError> {
        let mut report = SessionUndo::default();
        let entries = self.entries();
        let mine = entries
            .iter()
            .rev()
            .filter(|e| e.undoes.is_none() && e.who.session.as_deref() == Some(session));
        for entry in mine {
            let undone = self.undo(&entry.id, who.clone(), Resolve::Keep)?;
            if !undone.conflicts.is_empty() {
                report.failed.push(undone);
            } else if !undone.changed.is_empty() {
                report.undone.push(undone);
            }
        }
        Ok(report)
    }

    /// Puts the version `hash` back at `abs` as `who` (only over the version `base_hash`, when
    /// given); returns the entry recording it, `None` when the file already holds that version.
    pub fn restore(
        self: &Arc<Self>,
        abs: &Path,
        hash: &str,
        base_hash: Option<&str>,
        who: Who,
    ) -> Result<Option<String>, DocError> {
        let bytes = self.content(hash)?;
        let shown = self.relative(abs)?;
        let change = self.begin(who, "restore");
        change.mkdirs(abs)?;
        crate::documents::Root::new(&self.root, "").create_parent_dirs(abs)?;
        with_path_lock(abs, || {
            let current = read_existing(abs, &shown)?;
            if let Some(base) = base_hash
                && !current
                    .as_deref()
                    .is_some_and(|now| is_version(base, &content_hash(now)))
            {
                return Err(DocError::changed(format!(
                    "{shown} was changed on disk since it was opened"
                )));
            }
            if current.as_deref() == Some(bytes.as_slice()) {
                return Ok(());
            }
            put(&change, abs, &shown, current.as_deref(), Some(&bytes))
        })?;
        Ok(change.id())
    }

    /// Judges step `at` of an entry's steps `all` against the disk. Its paths are looked up where
    /// the entry's later renames put them: the undo puts those back first.
    fn state(&self, at: usize, all: &[Op]) -> State {
        let changed = || State::Conflict("changed since (outside ragdown, or by a later change)".into());
        let now = |path: &str| moved_on(&all[at + 1..], path);
        match &all[at] {
            Op::File { path, before, after } => match self.hash_at(&now(path)) {
                Err(reason) => State::Conflict(reason.to_string()),
                Ok(now) if now == *after => State::Undo,
                Ok(now) if now == *before => State::AlreadyBefore,
                Ok(_) => changed(),
            },
            Op::Rename { from, to, dir, hash } => {
                let (at_from, at_to) = (self.absolute(&now(from)), self.absolute(&now(to)));
                match (exists(&at_from), exists(&at_to)) {
                    (false, true) if *dir => State::Undo,
                    (false, true) => {
                        // The moved document may have had its own links rewritten in this entry.
                        let rewritten = all.iter().filter_map(|op| match op {
                            Op::File { path, after, .. } if path == to => after.clone(),
                            _ => None,
                        });
                        let current = self.hash_at(&now(to)).ok().flatten();
                        let known: Vec<Option<String>> =
                            std::iter::once(hash.clone()).chain(rewritten.map(Some)).collect();
                        if hash.is_none() || known.contains(&current) {
                            State::Undo
                        } else {
                            changed()
                        }
                    }
                    (true, false) => State::AlreadyBefore,
                    (true, true) if interrupted(&at_from, &at_to, *dir) => State::Undo,
                    (true, true) => State::Conflict(format!("both {from} and {to} exist")),
                    (false, false) => State::Conflict(format!("neither {from} nor {to} exists any more")),
                }
            }
            Op::Mkdir { path } => match exists(&self.absolute(&now(path))) {
                true => State::Undo,
                false => State::AlreadyBefore,
            },
            Op::Rmdir { path } => match fs::symlink_metadata(self.absolute(&now(path))) {
                Ok(meta) if meta.is_dir() => State::AlreadyBefore,
                Ok(_) => State::Conflict("not a folder any more".into()),
                Err(_) => State::Undo,
            },
            Op::Unlink { path, target } => match fs::read_link(self.absolute(path)) {
                Ok(now) if now.to_string_lossy() == *target => State::AlreadyBefore,
                Ok(_) => changed(),
                Err(_) if exists(&self.absolute(path)) => changed(),
                Err(_) => State::Undo,
            },
            Op::Link { path, target } => match fs::read_link(self.absolute(path)) {
                Ok(now) if now.to_string_lossy() == *target => State::Undo,
                Err(_) if !exists(&self.absolute(path)) => State::AlreadyBefore,
                _ => changed(),
            },
        }
    }

    /// The hash of the file at `path` (`None`: nothing there), or why it is not a file.
    fn hash_at(&self, path: &str) -> Result<Option<String>, DocError> {
        Ok(read_existing(&self.absolute(path), path)?.as_deref().map(content_hash))
    }

    /// Undoes one step, recording it in `change` first; `false` when there was nothing to do.
    /// `strict`: a file must still hold the step's `after` (checked again under its lock).
    fn undo_step(&self, change: &Change, op: &Op, strict: bool) -> Result<bool, DocError> {
        match op {
            Op::File { path, before, after } => {
                let abs = self.absolute(path);
                let bytes = before.as_deref().map(|hash| self.content(hash)).transpose()?;
                if bytes.is_some() {
                    change.mkdirs(&abs)?;
                    crate::documents::Root::new(&self.root, "").create_parent_dirs(&abs)?;
                }
                with_path_lock(&abs, || {
                    let current = read_existing(&abs, path)?;
                    if strict && current.as_deref().map(content_hash) != *after {
                        return Err(DocError::changed(format!("{path} changed while it was being undone")));
                    }
                    if current == bytes {
                        return Ok(false);
                    }
                    put(change, &abs, path, current.as_deref(), bytes.as_deref()).map(|()| true)
                })
            }
            Op::Rename { from, to, dir, hash } => {
                let (at_from, at_to) = (self.absolute(from), self.absolute(to));
                if exists(&at_from) {
                    // A rename killed halfway: drop the second name it made.
                    return if *dir {
                        change.removing_tree(&at_to)?;
                        remove(change, || fs::remove_dir(&at_to), to)
                    } else {
                        let now = read_existing(&at_to, to)?;
                        change.file(&at_to, now.as_deref(), None)?;
                        remove(change, || fs::remove_file(&at_to), to)
                    };
                }
                change.mkdirs(&at_from)?;
                crate::documents::Root::new(&self.root, "").create_parent_dirs(&at_from)?;
                change.renamed(&at_to, &at_from, *dir, hash.clone())?;
                let moved = if *dir {
                    rename_dir_no_clobber(&at_to, &at_from)
                } else {
                    with_path_lock(&at_to, || rename_file_no_clobber(&at_to, &at_from))
                };
                moved.map(|()| true).map_err(|err| {
                    change.forget_last();
                    DocError::io(format!("could not move {to} back to {from}"))(err)
                })
            }
            Op::Mkdir { path } => {
                let abs = self.absolute(path);
                if fs::read_dir(&abs)
                    .map_err(DocError::io(format!("could not read {path}")))?
                    .next()
                    .is_some()
                {
                    return Err(DocError::conflict(format!("{path} is not empty, so it was kept")));
                }
                change.removing_tree(&abs)?;
                remove(change, || fs::remove_dir(&abs), path)
            }
            Op::Rmdir { path } => {
                let abs = self.absolute(path);
                change.mkdirs(&abs)?;
                crate::documents::Root::new(&self.root, "").create_parent_dirs(&abs)?;
                change.mkdir(&abs)?;
                match fs::create_dir(&abs) {
                    Err(err) if err.kind() == ErrorKind::AlreadyExists => {
                        change.forget_last();
                        Ok(false)
                    }
                    other => other.map(|()| true).map_err(|err| {
                        change.forget_last();
                        DocError::io(format!("could not make {path}"))(err)
                    }),
                }
            }
            Op::Unlink { path, target } => {
                let abs = self.absolute(path);
                change.mkdirs(&abs)?;
                crate::documents::Root::new(&self.root, "").create_parent_dirs(&abs)?;
                change.linked(&abs, target)?;
                make_link(target, &abs).map(|()| true).map_err(|err| {
                    change.forget_last();
                    DocError::io(format!("could not make the link {path}"))(err)
                })
            }
            Op::Link { path, target } => {
                let abs = self.absolute(path);
                change.unlinked(&abs, target)?;
                remove(change, || fs::remove_file(&abs), path)
            }
        }
    }
}

/// Records `before` → `after` at `abs`, then makes it so: written whole, created without
/// replacing anything, or removed. Called under the file's lock.
fn put(change: &Change, abs: &Path, shown: &str, before: Option<&[u8]>, after: Option<&[u8]>) -> Result<(), DocError> {
    change.file(abs, before, after)?;
    let done = match (before, after) {
        (_, None) => fs::remove_file(abs),
        (None, Some(bytes)) => crate::documents::write::create_new(abs, bytes),
        (Some(_), Some(bytes)) => atomic_write(abs, bytes),
    };
    done.map_err(|err| {
        change.forget_last();
        DocError::io(format!("could not write {shown}"))(err)
    })
}

/// Runs a removal recorded as the change's last step, taking the step back if it fails.
fn remove(change: &Change, removal: impl FnOnce() -> std::io::Result<()>, shown: &str) -> Result<bool, DocError> {
    removal().map(|()| true).map_err(|err| {
        change.forget_last();
        DocError::io(format!("could not remove {shown}"))(err)
    })
}

/// Where `path` is after the renames among `later` (steps made after the one that named it).
fn moved_on(later: &[Op], path: &str) -> String {
    let mut path = path.to_string();
    for op in later {
        if let Op::Rename { from, to, .. } = op {
            if path == *from {
                path.clone_from(to);
            } else if let Some(rest) = path.strip_prefix(from.as_str())
                && rest.starts_with('/')
            {
                path = format!("{to}{rest}");
            }
        }
    }
    path
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Whether a rename was killed between claiming the target and letting go of the source: an
/// empty folder at `to` for a folder, the same file under both names for a document.
fn interrupted(from: &Path, to: &Path, dir: bool) -> bool {
    if dir {
        fs::read_dir(to).is_ok_and(|mut entries| entries.next().is_none())
    } else {
        matches!((fs::read(from), fs::read(to)), (Ok(a), Ok(b)) if a == b)
    }
}

#[cfg(unix)]
fn make_link(target: &str, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
fn make_link(_target: &str, _at: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other("symbolic links are restored on Unix only"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryOptions;

    fn history(docs: &Path) -> Arc<History> {
        Arc::new(History::new(docs, &HistoryOptions::default()))
    }

    #[test]
    fn a_path_is_looked_up_where_later_renames_put_it() {
        let later = [
            Op::Rename {
                from: "tree".into(),
                to: "moved/tree".into(),
                dir: true,
                hash: None,
            },
            Op::Mkdir { path: "x".into() },
        ];
        assert_eq!(moved_on(&later, "tree/a.md"), "moved/tree/a.md");
        assert_eq!(moved_on(&later, "tree"), "moved/tree");
        assert_eq!(moved_on(&later, "treehouse/a.md"), "treehouse/a.md");
    }

    #[test]
    fn a_rename_killed_halfway_is_undone_without_losing_either_name() {
        let docs = tempfile::tempdir().unwrap();
        let root = docs.path();
        std::fs::write(root.join("a.md"), "# A\r\n").unwrap();
        std::fs::create_dir(root.join("dir")).unwrap();
        std::fs::write(root.join("dir/x.md"), "x").unwrap();
        let history = history(root);
        let change = history.begin(Who::web(), "move");
        let hash = Some(content_hash(b"# A\r\n"));
        change
            .renamed(&root.join("a.md"), &root.join("b.md"), false, hash)
            .unwrap();
        change
            .renamed(&root.join("dir"), &root.join("dir2"), true, None)
            .unwrap();
        // Killed after claiming both targets, before letting go of the sources.
        std::fs::hard_link(root.join("a.md"), root.join("b.md")).unwrap();
        std::fs::create_dir(root.join("dir2")).unwrap();
        let undone = history.undo(&change.id().unwrap(), Who::web(), Resolve::Keep).unwrap();
        assert!(undone.conflicts.is_empty(), "{undone:?}");
        assert!(!root.join("b.md").exists() && !root.join("dir2").exists());
        assert_eq!(std::fs::read(root.join("a.md")).unwrap(), b"# A\r\n");
        assert_eq!(std::fs::read(root.join("dir/x.md")).unwrap(), b"x");
    }

    #[test]
    fn a_step_that_never_happened_is_left_and_a_changed_file_refuses_the_undo() {
        let docs = tempfile::tempdir().unwrap();
        let root = docs.path();
        std::fs::write(root.join("a.md"), "one").unwrap();
        let history = history(root);
        // Recorded, then killed before the write.
        let killed = history.begin(Who::web(), "save");
        killed.file(&root.join("a.md"), Some(b"one"), Some(b"two")).unwrap();
        let undone = history.undo(&killed.id().unwrap(), Who::web(), Resolve::Keep).unwrap();
        assert_eq!((undone.unchanged, undone.entry), (vec!["a.md".to_string()], None));
        assert_eq!(std::fs::read(root.join("a.md")).unwrap(), b"one");

        let made = history.begin(Who::web(), "save");
        made.file(&root.join("a.md"), Some(b"one"), Some(b"two")).unwrap();
        std::fs::write(root.join("a.md"), "two").unwrap();
        std::fs::write(root.join("a.md"), "by hand").unwrap();
        let refused = history.undo(&made.id().unwrap(), Who::web(), Resolve::Keep).unwrap();
        assert_eq!(refused.conflicts.len(), 1);
        assert_eq!(refused.entry, None);
        assert_eq!(std::fs::read(root.join("a.md")).unwrap(), b"by hand", "kept");
        let forced = history
            .undo(&made.id().unwrap(), Who::web(), Resolve::Overwrite)
            .unwrap();
        assert_eq!(std::fs::read(root.join("a.md")).unwrap(), b"one");
        // The overwrite kept what it replaced: undoing it gives the hand edit back.
        history.undo(&forced.entry.unwrap(), Who::web(), Resolve::Keep).unwrap();
        assert_eq!(std::fs::read(root.join("a.md")).unwrap(), b"by hand");
    }
}
