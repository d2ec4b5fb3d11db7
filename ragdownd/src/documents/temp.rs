//! The temp files a write leaves beside its target while it runs, and the clean-up of ones whose
//! writer died.
//!
//! A write goes to `.ragdown-<random>.tmp` beside the document and renames it into place (see
//! [`super::write`]). The writer holds an advisory lock on its temp file until the rename, so a
//! temp file nobody holds a lock on, and that has not been touched for a while, belongs to a
//! process that was killed mid-write: [`remove_if_abandoned`] deletes it. The indexer calls that
//! for every such file its walk meets, so a restart cleans up what a crash left; one too young to
//! judge (a restart right after the kill) is looked at again once it is old enough
//! ([`recheck_later`]), so it does not wait for a sync that may never come.
//!
//! Like all of `documents`, it knows nothing of the index, so the indexer may use it.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;

/// The start of a temp file's name.
pub const PREFIX: &str = ".ragdown-";
/// The end of a temp file's name.
pub const SUFFIX: &str = ".tmp";

/// How long a temp file must have gone untouched before an unlocked one is taken for abandoned:
/// covers the moment between its creation and its writer taking the lock.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(10);

/// Whether a file name is one of our temp files.
pub fn is_temp_name(name: &str) -> bool {
    name.len() > PREFIX.len() + SUFFIX.len() && name.starts_with(PREFIX) && name.ends_with(SUFFIX)
}

/// Deletes the temp file at `path` when its writer is gone: no process holds its lock and it was
/// last changed more than [`ABANDONED_AFTER`] ago. True when it was deleted. Anything that is not
/// a regular file with a temp file's name is left alone.
pub fn remove_if_abandoned(path: &Path) -> io::Result<bool> {
    let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
    if !is_temp_name(name) {
        return Ok(false);
    }
    let meta = fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Ok(false);
    }
    let age = SystemTime::now().duration_since(meta.modified()?).unwrap_or_default();
    if age < ABANDONED_AFTER {
        return Ok(false);
    }
    let file = File::open(path)?;
    match file.try_lock() {
        Ok(()) => {
            fs::remove_file(path)?;
            Ok(true)
        }
        Err(fs::TryLockError::WouldBlock) => Ok(false),
        Err(fs::TryLockError::Error(err)) => Err(err),
    }
}

/// [`remove_if_abandoned`] with what it did logged: true when the file is still there for a later
/// look (too young to judge, or its writer still holds it).
pub fn tidy(path: &Path) -> bool {
    match remove_if_abandoned(path) {
        Ok(true) => tracing::warn!(path = %path.display(), "removed a temp file a killed write left"),
        Ok(false) => return true,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => tracing::warn!(path = %path.display(), %err, "cannot remove an abandoned temp file"),
    }
    false
}

/// Temp files waiting for [`recheck_later`]'s look, and whether a thread is looking.
static WAITING: Mutex<(BTreeSet<PathBuf>, bool)> = Mutex::new((BTreeSet::new(), false));

/// Looks at `paths` (temp files a walk left because they were too young or held) again once
/// [`ABANDONED_AFTER`] has passed, and removes those whose writer is gone by then; one still young
/// or held is looked at again after as long, until it is gone. One thread looks, however many
/// walks ask; a path asked for twice is looked at once.
pub fn recheck_later(paths: Vec<PathBuf>) {
    if paths.is_empty() {
        return;
    }
    let mut waiting = WAITING.lock();
    waiting.0.extend(paths);
    if waiting.1 {
        return;
    }
    waiting.1 = true;
    drop(waiting);
    let spawned = std::thread::Builder::new().name("temp-recheck".into()).spawn(|| {
        loop {
            std::thread::sleep(ABANDONED_AFTER + Duration::from_secs(1));
            let paths = std::mem::take(&mut WAITING.lock().0);
            // Still young (asked for just before this look) or held by a live writer: looked at
            // again, until it is gone one way or the other.
            let again: Vec<PathBuf> = paths.into_iter().filter(|path| tidy(path)).collect();
            let mut waiting = WAITING.lock();
            waiting.0.extend(again);
            if waiting.0.is_empty() {
                waiting.1 = false;
                return;
            }
        }
    });
    if let Err(err) = spawned {
        tracing::warn!(%err, "cannot look at young temp files later");
        WAITING.lock().1 = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aged(path: &Path) {
        let file = fs::OpenOptions::new().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - ABANDONED_AFTER * 6).unwrap();
    }

    #[test]
    fn only_unlocked_old_temp_files_go() {
        let dir = tempfile::tempdir().unwrap();
        let abandoned = dir.path().join(".ragdown-abc.tmp");
        fs::write(&abandoned, "half a document").unwrap();
        aged(&abandoned);
        assert!(remove_if_abandoned(&abandoned).unwrap());
        assert!(!abandoned.exists());

        // A writer still holds it.
        let held = dir.path().join(".ragdown-def.tmp");
        fs::write(&held, "being written").unwrap();
        aged(&held);
        let writer = File::open(&held).unwrap();
        writer.lock().unwrap();
        assert!(!remove_if_abandoned(&held).unwrap());
        drop(writer);
        assert!(remove_if_abandoned(&held).unwrap(), "gone once its writer is");

        // Just made: its writer may not have locked it yet.
        let fresh = dir.path().join(".ragdown-new.tmp");
        fs::write(&fresh, "x").unwrap();
        assert!(!remove_if_abandoned(&fresh).unwrap());

        // Not ours.
        let user = dir.path().join("notes.tmp");
        fs::write(&user, "the user's").unwrap();
        aged(&user);
        assert!(!remove_if_abandoned(&user).unwrap());
        assert!(user.exists() && fresh.exists());
        assert!(!is_temp_name(".ragdown-.tmp") && is_temp_name(".ragdown-x.tmp"));
    }
}
