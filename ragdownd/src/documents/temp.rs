//! The temp files a write leaves beside its target while it runs, and the clean-up of ones whose
//! writer died.
//!
//! A write goes to `.ragdown-<random>.tmp` beside the document and renames it into place (see
//! [`super::write`]). The writer holds an advisory lock on its temp file until the rename, so a
//! temp file nobody holds a lock on belongs to a process that was killed mid-write, however young
//! it is: [`remove_if_abandoned`] deletes it. The moment between a writer creating its file and
//! locking it is covered on the writer's side: once it holds the lock it checks that the name
//! still leads to its file ([`is_still_named`]), and starts again with a new one when a clean-up
//! took it. The indexer calls [`tidy`] for every temp file its walk meets, so a restart cleans up
//! what a crash left, even a second after the kill; one a live writer holds is looked at again
//! later ([`recheck_later`]), in case that writer dies before the next sync.
//!
//! Like all of `documents`, it knows nothing of the index, so the indexer may use it.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use parking_lot::Mutex;

/// The start of a temp file's name.
pub const PREFIX: &str = ".ragdown-";
/// The end of a temp file's name.
pub const SUFFIX: &str = ".tmp";

/// How long before a temp file a live writer held is looked at again.
pub const RECHECK_AFTER: Duration = Duration::from_secs(10);

/// Whether a file name is one of our temp files.
pub fn is_temp_name(name: &str) -> bool {
    name.len() > PREFIX.len() + SUFFIX.len() && name.starts_with(PREFIX) && name.ends_with(SUFFIX)
}

/// Deletes the temp file at `path` when its writer is gone: no process holds its lock. True when
/// it was deleted. Anything that is not a regular file with a temp file's name is left alone, and
/// so is a file that is no longer at `path` once its lock is taken (a write that just landed).
pub fn remove_if_abandoned(path: &Path) -> io::Result<bool> {
    let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
    if !is_temp_name(name) {
        return Ok(false);
    }
    let meta = fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Ok(false);
    }
    let file = File::open(path)?;
    match file.try_lock() {
        Ok(()) if is_still_named(&file, path)? => {
            // Removed while the lock is held: a writer that made it and had not locked it yet
            // finds it gone once it does, and starts again.
            fs::remove_file(path)?;
            Ok(true)
        }
        Ok(()) => Ok(false),
        Err(fs::TryLockError::WouldBlock) => Ok(false),
        Err(fs::TryLockError::Error(err)) => Err(err),
    }
}

/// Whether `path` still leads to the open `file` (the same file, not one renamed over it or made
/// in its place), asked by whoever holds its lock.
pub fn is_still_named(file: &File, path: &Path) -> io::Result<bool> {
    let named = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(err) => return Err(err),
    };
    Ok(same_file(&file.metadata()?, &named))
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

/// [`remove_if_abandoned`] with what it did logged: true when the file is still there for a later
/// look (its writer still holds it).
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

/// Looks at `paths` (temp files a walk left because their writers held them) again once
/// [`RECHECK_AFTER`] has passed, and removes those whose writer is gone by then; one still held is
/// looked at again after as long, until it is gone. One thread looks, however many
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
            std::thread::sleep(RECHECK_AFTER);
            let paths = std::mem::take(&mut WAITING.lock().0);
            // Still held by a live writer: looked at again, until it is gone one way or the other.
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

    #[test]
    fn only_unlocked_temp_files_go() {
        let dir = tempfile::tempdir().unwrap();
        // Left by a write killed a moment ago: nobody holds it, young as it is.
        let abandoned = dir.path().join(".ragdown-abc.tmp");
        fs::write(&abandoned, "half a document").unwrap();
        assert!(remove_if_abandoned(&abandoned).unwrap());
        assert!(!abandoned.exists());

        // A writer still holds it.
        let held = dir.path().join(".ragdown-def.tmp");
        fs::write(&held, "being written").unwrap();
        let writer = File::open(&held).unwrap();
        writer.lock().unwrap();
        assert!(!remove_if_abandoned(&held).unwrap());
        drop(writer);
        assert!(remove_if_abandoned(&held).unwrap(), "gone once its writer is");

        // Not ours.
        let user = dir.path().join("notes.tmp");
        fs::write(&user, "the user's").unwrap();
        assert!(!remove_if_abandoned(&user).unwrap());
        assert!(user.exists());
        assert!(!is_temp_name(".ragdown-.tmp") && is_temp_name(".ragdown-x.tmp"));
    }

    #[test]
    fn a_file_renamed_over_its_temp_name_is_not_the_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let temp = dir.path().join(".ragdown-abc.tmp");
        fs::write(&temp, "one").unwrap();
        let opened = File::open(&temp).unwrap();
        assert!(is_still_named(&opened, &temp).unwrap());
        fs::rename(&temp, dir.path().join("doc.md")).unwrap();
        assert!(!is_still_named(&opened, &temp).unwrap(), "moved away");
        fs::write(&temp, "another").unwrap();
        assert!(!is_still_named(&opened, &temp).unwrap(), "another file at the name");
    }
}
