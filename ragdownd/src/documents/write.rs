//! Writing and deleting documents so that nothing is lost or half-written.
//!
//! Every write goes to a dot-named temp file beside the target (the indexer and the watcher skip
//! dot-entries), is flushed to disk, and is renamed over the target, so a reader sees the old
//! bytes or the new, never part of either. The writer holds a lock on its temp file until then, so
//! one left by a killed writer can be told from one in flight and removed ([`super::temp`]).
//!
//! A guarded write or delete re-reads the file and checks it against the version the caller read
//! while holding the lock of the file's folder: a per-path lock inside this process and an
//! advisory lock (`flock`) on the folder itself, which every ragdown process writing there takes,
//! so two writers that both read one version cannot both replace it, in one process or in several.
//! A program that takes no lock (an editor) can still slip in between the check and the rename;
//! that window is a few system calls wide.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Weak};

use parking_lot::Mutex;

use super::Record;
use super::hash::{content_hash, is_version};
use super::{DocError, line_ending, with_line_ending};

/// What a guarded write expects to find at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected<'a> {
    /// Nothing: a new document. An existing file is a 409.
    New,
    /// The version the change was made to: a whole hash or a prefix of at least 12 characters
    /// ([`is_version`]). A file that changed or went away since is a 409 with code `changed`.
    Version(&'a str),
    /// Whatever is there, or nothing (the web UI's "save over it").
    Anything,
}

impl<'a> From<Option<&'a str>> for Expected<'a> {
    /// A client's optional `base_hash`: without one, only a new document may be written.
    fn from(base_hash: Option<&'a str>) -> Self {
        base_hash.map_or(Self::New, Self::Version)
    }
}

/// What a guarded write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Whether the file was created rather than replaced.
    pub created: bool,
    /// The content hash of the bytes written, line endings as written.
    pub hash: String,
}

/// Replaces (or creates) `path` with `bytes` atomically: a temp file in the same folder is written,
/// flushed, and renamed over `path`, then the folder is flushed so the rename survives a crash. A
/// replaced file keeps its permission bits; a new one gets the process's default (`0666 & !umask`).
/// On failure the temp file is removed and `path` is as it was.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_via_temp(path, Persist::Over, |file| file.write_all(bytes))
}

/// Writes `text` to `path` if the file there is what `expected` says, all under `path`'s lock.
///
/// `shown` is the path as the client named it, for messages. The write is recorded in `change`
/// once the checks pass, before the file is touched. When a file is replaced and its first
/// line ended in CRLF, the new text is written with CRLF too.
pub fn write_guarded(
    path: &Path,
    shown: &str,
    text: &str,
    expected: Expected<'_>,
    change: &dyn Record,
) -> Result<Written, DocError> {
    with_path_lock(path, || {
        let current = read_existing(path, shown)?;
        let bytes = match (&current, expected) {
            (Some(_), Expected::New) => {
                return Err(DocError::conflict(format!(
                    "{shown} exists: pass the hash ragdown_read_doc returned as base_hash to replace it"
                )));
            }
            (None, Expected::Version(_)) => {
                return Err(DocError::changed(format!("{shown} was deleted since it was opened")));
            }
            (Some(current), Expected::Version(base)) => {
                check_base(shown, Some(base), &content_hash(current))?;
                ending_of(current, text)
            }
            (Some(current), Expected::Anything) => ending_of(current, text),
            (None, _) => text.to_owned(),
        };
        let persist = if current.is_none() && expected == Expected::New {
            Persist::NoClobber
        } else {
            Persist::Over
        };
        change.file(path, current.as_deref(), Some(bytes.as_bytes()))?;
        write_via_temp(path, persist, |file| file.write_all(bytes.as_bytes())).map_err(|err| {
            change.forget_last();
            if err.kind() == ErrorKind::AlreadyExists {
                // Created by someone outside this process since it was checked.
                DocError::conflict(format!(
                    "{shown} exists: pass the hash ragdown_read_doc returned as base_hash to replace it"
                ))
            } else {
                DocError::io(format!("could not write {shown}"))(err)
            }
        })?;
        Ok(Written {
            created: current.is_none(),
            hash: content_hash(bytes.as_bytes()),
        })
    })
}

/// Refuses with the 409 `<shown> was changed on disk since it was opened` (code `changed`) unless
/// `base_hash`, when given, names the version whose hash is `current_hash`.
///
/// For a read-modify-write (an edit, an append): check the client's `base_hash` against the hash of
/// what was read, then write with [`Expected::Version`] of that hash, so the change lands only on
/// the text it was computed from.
pub fn check_base(shown: &str, base_hash: Option<&str>, current_hash: &str) -> Result<(), DocError> {
    match base_hash {
        Some(base) if !is_version(base, current_hash) => Err(DocError::changed(format!(
            "{shown} was changed on disk since it was opened"
        ))),
        _ => Ok(()),
    }
}

/// `text` as it is written over `current`: with CRLF when `current`'s first line ends in one.
fn ending_of(current: &[u8], text: &str) -> String {
    match line_ending(current) {
        "\r\n" => with_line_ending(text, "\r\n"),
        _ => text.to_owned(),
    }
}

/// Runs `f` holding the lock for `path`, which every guarded write and delete of the same file in
/// this process also takes. For callers that read, decide and write in more than one step.
pub fn with_path_lock<T>(path: &Path, f: impl FnOnce() -> T) -> T {
    let lock = path_lock(path);
    let _held = lock.lock();
    let _folder = lock_folder(parent_dir(path));
    f()
}

/// Takes the advisory lock of the folder `dir` that ragdown writers in every process share, and
/// holds it until the returned file is dropped. Where the file system has no such locks (some
/// network mounts), the in-process lock alone guards and a warning says so.
fn lock_folder(dir: &Path) -> Option<File> {
    let locked = File::open(dir).and_then(|folder| folder.lock().map(|()| folder));
    match locked {
        Ok(folder) => Some(folder),
        Err(err) => {
            // Once per process: on such a file system every write would say it again.
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                tracing::warn!(dir = %dir.display(), %err, "cannot lock the folder; writers in other processes are not kept out");
            });
            None
        }
    }
}

/// The locks of the paths being written now. Weak, so a path's entry dies with its last holder
/// and the map does not grow with every file ever written.
static LOCKS: LazyLock<Mutex<HashMap<PathBuf, Weak<Mutex<()>>>>> = LazyLock::new(Mutex::default);

fn path_lock(path: &Path) -> Arc<Mutex<()>> {
    let key = lock_key(path);
    let mut locks = LOCKS.lock();
    if let Some(lock) = locks.get(&key).and_then(Weak::upgrade) {
        return lock;
    }
    locks.retain(|_, lock| lock.strong_count() > 0);
    let lock = Arc::new(Mutex::new(()));
    locks.insert(key, Arc::downgrade(&lock));
    lock
}

/// The path with its folder canonicalised, so `a/./b.md` and `a/b.md` share a lock. The file itself
/// is not resolved: it may not exist yet, and a symlink there is never followed.
fn lock_key(path: &Path) -> PathBuf {
    match path.file_name() {
        Some(name) => fs::canonicalize(parent_dir(path)).map_or_else(|_| path.to_path_buf(), |dir| dir.join(name)),
        None => path.to_path_buf(),
    }
}

/// The file's bytes, `None` when there is nothing at `path`, and a 409 (`not a file: <shown>`) when
/// what is there is a folder, a symlink or anything else that is not a regular file.
pub fn read_existing(path: &Path, shown: &str) -> Result<Option<Vec<u8>>, DocError> {
    match fs::symlink_metadata(path) {
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
        Err(err) => Err(DocError::io(format!("could not read {shown}"))(err)),
        Ok(meta) if !meta.is_file() => Err(DocError::conflict(format!("not a file: {shown}"))),
        Ok(_) => match fs::read(path) {
            Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
            other => other.map(Some).map_err(DocError::io(format!("could not read {shown}"))),
        },
    }
}

/// How the finished temp file takes the target's place.
#[derive(Debug, Clone, Copy)]
enum Persist {
    /// Renamed over whatever is there.
    Over,
    /// Only if nothing is there (`AlreadyExists` otherwise), atomically.
    NoClobber,
}

/// Writes a temp file beside `path` with `fill`, flushes it, and moves it into place.
fn write_via_temp(path: &Path, persist: Persist, fill: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let dir = parent_dir(path);
    let previous = fs::symlink_metadata(path)
        .ok()
        .filter(fs::Metadata::is_file)
        .map(|meta| meta.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(super::temp::PREFIX).suffix(super::temp::SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // tempfile's default is 0600; 0666 is narrowed by the umask, like any new file.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut temp = locked_temp(&builder, dir)?;
    fill(temp.as_file_mut())?;
    if let Some(permissions) = previous {
        temp.as_file().set_permissions(permissions)?;
    }
    temp.as_file().sync_all()?;
    match persist {
        Persist::Over => temp.persist(path).map_err(|err| err.error)?,
        Persist::NoClobber => temp.persist_noclobber(path).map_err(|err| err.error)?,
    };
    // The rename is the commit: the new file is in place, so a failure to flush the folder is
    // worth a warning, not an error that would tell the caller nothing was written.
    if let Err(err) = sync_dir(dir) {
        tracing::warn!(dir = %dir.display(), %err, "could not flush the folder after a write");
    }
    Ok(())
}

/// A new temp file in `dir`, locked: the lock, held until the file is renamed and closed, is the
/// mark of a write in flight. A clean-up that took the file between its creation and the lock (see
/// [`super::temp`]) leaves its name leading nowhere; then another is made. Dropping the file on any
/// early return deletes it.
fn locked_temp(builder: &tempfile::Builder<'_, '_>, dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    const TRIES: usize = 5;
    for _ in 0..TRIES {
        let temp = builder.tempfile_in(dir)?;
        if let Err(err) = temp.as_file().lock() {
            tracing::debug!(%err, "cannot lock a temp file");
            return Ok(temp);
        }
        if super::temp::is_still_named(temp.as_file(), temp.path())? {
            return Ok(temp);
        }
        // Taken by a clean-up: its name is gone, so dropping it must not remove another's file.
        let _ = temp.into_temp_path().keep();
    }
    Err(io::Error::other(format!(
        "could not make a temp file in {} that stays ({TRIES} were taken by a clean-up)",
        dir.display()
    )))
}

/// Creates `path` with `bytes` atomically, failing with `AlreadyExists` if anything is there.
pub(crate) fn create_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_via_temp(path, Persist::NoClobber, |file| file.write_all(bytes))
}

fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Flushes a folder's entries, so a rename into it survives a power cut.
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir; // Windows cannot open a folder as a file; NTFS journals the rename.
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::documents::record::Unrecorded;
    use std::sync::Barrier;
    use std::thread;

    use super::*;
    use crate::error::ErrorKind as Kind;
    use crate::error::Kinded;

    fn temp_files(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        atomic_write(&path, b"first").unwrap();
        atomic_write(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(temp_files(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn a_failed_write_leaves_the_original_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        fs::write(&path, "original").unwrap();
        let result = write_via_temp(&path, Persist::Over, |file| {
            file.write_all(b"half of the new te")?;
            Err(io::Error::other("disk full"))
        });
        assert_eq!(result.unwrap_err().to_string(), "disk full");
        assert_eq!(fs::read_to_string(&path).unwrap(), "original");
        assert_eq!(temp_files(dir.path()), Vec::<String>::new());
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        fs::write(&path, "x").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        atomic_write(&path, b"y").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[test]
    fn create_new_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        create_new(&path, b"one").unwrap();
        assert_eq!(create_new(&path, b"two").unwrap_err().kind(), ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&path).unwrap(), b"one");
        assert_eq!(temp_files(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn guarded_write_checks_the_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");

        let created = write_guarded(&path, "a.md", "one\n", Expected::New, &Unrecorded).unwrap();
        assert_eq!(
            created,
            Written {
                created: true,
                hash: content_hash(b"one\n")
            }
        );
        let err = write_guarded(&path, "a.md", "two\n", Expected::New, &Unrecorded).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a.md exists: pass the hash ragdown_read_doc returned as base_hash to replace it"
        );
        assert_eq!(err.kind(), Kind::Conflict);

        // A short hash (12 characters) is enough.
        let replaced = write_guarded(
            &path,
            "a.md",
            "two\n",
            Expected::Version(&created.hash[..12]),
            &Unrecorded,
        )
        .unwrap();
        assert_eq!(
            replaced,
            Written {
                created: false,
                hash: content_hash(b"two\n")
            }
        );

        let err = write_guarded(&path, "a.md", "three\n", Expected::Version(&created.hash), &Unrecorded).unwrap_err();
        assert_eq!(err.to_string(), "a.md was changed on disk since it was opened");
        assert_eq!(err.kind(), Kind::Changed);
        assert_eq!(fs::read_to_string(&path).unwrap(), "two\n");

        fs::remove_file(&path).unwrap();
        let err = write_guarded(&path, "a.md", "four\n", Expected::Version(&replaced.hash), &Unrecorded).unwrap_err();
        assert_eq!(err.to_string(), "a.md was deleted since it was opened");
        assert_eq!(err.kind(), Kind::Changed);
        assert!(!path.exists());

        let anything = write_guarded(&path, "a.md", "five\n", Expected::Anything, &Unrecorded).unwrap();
        assert!(anything.created);
        assert!(
            !write_guarded(&path, "a.md", "six\n", Expected::Anything, &Unrecorded)
                .unwrap()
                .created
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "six\n");
    }

    #[test]
    fn an_edit_lands_only_on_the_text_it_was_computed_from() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        fs::write(&path, "v1\n").unwrap();
        let read = read_existing(&path, "a.md").unwrap().unwrap();
        let read_hash = content_hash(&read);
        // The client's base_hash is checked against what was read ...
        let err = check_base("a.md", Some("0123456789ab"), &read_hash).unwrap_err();
        assert_eq!(
            (err.to_string().as_str(), err.kind()),
            ("a.md was changed on disk since it was opened", Kind::Changed)
        );
        check_base("a.md", Some(&read_hash[..12]), &read_hash).unwrap();
        check_base("a.md", None, &read_hash).unwrap();
        // ... and the write against the hash of what was read, so a change in between is refused.
        fs::write(&path, "v2\n").unwrap();
        let err = write_guarded(&path, "a.md", "v1 edited\n", Expected::Version(&read_hash), &Unrecorded).unwrap_err();
        assert_eq!(err.kind(), Kind::Changed);
        assert_eq!(fs::read_to_string(&path).unwrap(), "v2\n");
        assert_eq!(read_existing(&dir.path().join("none.md"), "none.md").unwrap(), None);
    }

    #[test]
    fn a_folder_is_not_a_file_to_write() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("x.md")).unwrap();
        let err = write_guarded(&dir.path().join("x.md"), "x.md", "t", Expected::Anything, &Unrecorded).unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (Kind::Conflict, "not a file: x.md")
        );
    }

    #[test]
    fn a_crlf_file_stays_crlf() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        fs::write(&path, "one\r\ntwo\r\n").unwrap();
        let base = content_hash(&fs::read(&path).unwrap());
        let written = write_guarded(
            &path,
            "a.md",
            "uno\ndos\r\ntres\n",
            Expected::Version(&base),
            &Unrecorded,
        )
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "uno\r\ndos\r\ntres\r\n");
        assert_eq!(written.hash, content_hash(b"uno\r\ndos\r\ntres\r\n"));

        // An LF file takes the text as given.
        fs::write(&path, "one\ntwo\r\n").unwrap();
        let base = content_hash(&fs::read(&path).unwrap());
        write_guarded(&path, "a.md", "uno\ndos\n", Expected::Version(&base), &Unrecorded).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "uno\ndos\n");
    }

    #[test]
    fn two_writers_of_one_version_cannot_both_win() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("race.md");
        // Big enough that an unguarded check-then-write interleaves.
        let texts = ["A".repeat(1 << 20), "B".repeat(1 << 20)];
        for round in 0..10 {
            fs::write(&path, format!("original {round}\n")).unwrap();
            let base = content_hash(&fs::read(&path).unwrap());
            let barrier = Barrier::new(2);
            let results: Vec<_> = thread::scope(|scope| {
                let writers: Vec<_> = texts
                    .iter()
                    .map(|text| {
                        let (barrier, path, base) = (&barrier, &path, &base);
                        scope.spawn(move || {
                            barrier.wait();
                            write_guarded(path, "race.md", text, Expected::Version(base), &Unrecorded)
                        })
                    })
                    .collect();
                writers.into_iter().map(|writer| writer.join().unwrap()).collect()
            });
            let winners: Vec<usize> = (0..2).filter(|i| results[*i].is_ok()).collect();
            assert_eq!(winners.len(), 1, "round {round}: exactly one writer wins");
            let loser = results.iter().find_map(|result| result.as_ref().err()).unwrap();
            assert_eq!(loser.kind(), Kind::Changed);
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                texts[winners[0]],
                "round {round}: the winner's whole text"
            );
        }
        assert_eq!(temp_files(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn path_locks_are_shared_by_spellings_and_released() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let plain = dir.path().join("sub/a.md");
        let dotted = dir.path().join("sub/./a.md");
        let one = path_lock(&plain);
        assert!(Arc::ptr_eq(&one, &path_lock(&dotted)));
        assert!(!Arc::ptr_eq(&one, &path_lock(&dir.path().join("sub/b.md"))));
        let key = lock_key(&plain);
        drop(one);
        path_lock(&dir.path().join("sub/c.md"));
        let locks = LOCKS.lock();
        assert!(
            locks.get(&key).is_none(),
            "a lock nobody holds is pruned when the next one is made"
        );
    }
}
