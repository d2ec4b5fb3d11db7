//! Renames that never replace what is at the target: a document or folder that appears there
//! meanwhile wins, and nothing is lost (`ragdown_move`, a folder's rename).

use std::fs;
use std::io::{self, ErrorKind};
use std::path::Path;

/// Renames a file, failing with `AlreadyExists` rather than replacing one at `to`.
///
/// `rename` silently replaces, so the name is claimed with a hard link (which never does) and the
/// old name removed. Where hard links are refused (some network and FAT file systems, or Linux's
/// `protected_hardlinks` for a file someone else owns) it falls back to check-then-rename.
pub fn rename_file_no_clobber(from: &Path, to: &Path) -> io::Result<()> {
    match fs::hard_link(from, to) {
        Ok(()) => fs::remove_file(from).inspect_err(|_| {
            // Keep one name, the old one, rather than two.
            let _ = fs::remove_file(to);
        }),
        Err(err) if matches!(err.kind(), ErrorKind::AlreadyExists | ErrorKind::NotFound) => Err(err),
        Err(_) => {
            if fs::symlink_metadata(to).is_ok() {
                return Err(ErrorKind::AlreadyExists.into());
            }
            fs::rename(from, to)
        }
    }
}

/// Renames a folder, failing with `AlreadyExists` rather than replacing anything at `to`.
///
/// On Unix the name is claimed by creating an empty folder, which `rename` then replaces; a file
/// put into it meanwhile makes the rename fail instead of being lost.
pub fn rename_dir_no_clobber(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        fs::create_dir(to)?;
        fs::rename(from, to).inspect_err(|_| {
            let _ = fs::remove_dir(to);
        })
    }
    #[cfg(not(unix))]
    {
        if fs::symlink_metadata(to).is_ok() {
            return Err(ErrorKind::AlreadyExists.into());
        }
        fs::rename(from, to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rename_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [("a.md", "a"), ("b.md", "b"), ("d/x.md", "x"), ("e/y.md", "y")] {
            fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            fs::write(root.join(path), text).unwrap();
        }
        let read = |root: &Path, path: &str| fs::read_to_string(root.join(path)).unwrap();
        let err = rename_file_no_clobber(&root.join("a.md"), &root.join("b.md")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AlreadyExists);
        assert_eq!((read(root, "a.md"), read(root, "b.md")), ("a".into(), "b".into()));
        assert!(rename_dir_no_clobber(&root.join("d"), &root.join("e")).is_err());
        assert_eq!((read(root, "d/x.md"), read(root, "e/y.md")), ("x".into(), "y".into()));

        rename_file_no_clobber(&root.join("a.md"), &root.join("c.md")).unwrap();
        assert!(!root.join("a.md").exists());
        assert_eq!(read(root, "c.md"), "a");
        rename_dir_no_clobber(&root.join("d"), &root.join("f")).unwrap();
        assert_eq!(read(root, "f/x.md"), "x");
    }
}
