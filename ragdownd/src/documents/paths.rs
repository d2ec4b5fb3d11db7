//! Client-supplied paths: turning a path an agent or the web UI names into a file under the docs
//! folder, or refusing it.
//!
//! A path is accepted only where the indexer would walk: relative, no `..`, no dot-entry or
//! `node_modules` on the way, and no symlink or file where a folder should be, because the indexer
//! does not follow symlinks and a write through one could land outside the docs. This module only
//! checks and creates folders; it never reads or writes a document.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::DocError;
use crate::index::sync::{is_markdown, is_skipped};

/// Resolves `rel`, a path relative to `root` from a client, to the file it names under `root`.
///
/// `\` is read as `/`, and empty and `.` segments are dropped (`./a//b.md` is `a/b.md`). Refused
/// with a 400 ([`DocError::BadRequest`]) when the path is absolute, is empty or `.`, has `..`
/// anywhere, has a dot-entry or `node_modules` segment, is not Markdown while `markdown_only`, or
/// when something already on disk on the way is a file or a symlink where a folder should be, or
/// the path itself is a symlink. Missing folders are fine: see [`create_parent_dirs`].
pub fn resolve_client_path(root: &Path, rel: &str, markdown_only: bool) -> Result<PathBuf, DocError> {
    let refuse = |why: &str| DocError::BadRequest(format!("{why}: {rel}"));
    let posix = rel.replace('\\', "/");
    if posix.starts_with('/') || has_drive_letter(&posix) {
        return Err(refuse("path must be relative to the docs folder"));
    }
    let segments: Vec<&str> = posix.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
    let Some(last) = segments.last() else {
        return Err(refuse("path is outside the docs folder"));
    };
    if segments.contains(&"..") {
        return Err(refuse("path is outside the docs folder"));
    }
    if segments.iter().any(|s| is_skipped(s) || s.contains('\0')) {
        return Err(refuse("path names a folder or file the index skips"));
    }
    if markdown_only && !is_markdown(last) {
        return Err(refuse("not a Markdown file (.md, .markdown, .mdx)"));
    }

    let mut current = root.to_path_buf();
    for (i, segment) in segments.iter().enumerate() {
        current.push(segment);
        let is_last = i + 1 == segments.len();
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refuse(if is_last {
                    "symlinks are not followed"
                } else {
                    "a folder on the path is a file or a symlink"
                }));
            }
            Ok(meta) if !is_last && !meta.is_dir() => {
                return Err(refuse("a folder on the path is a file or a symlink"));
            }
            Ok(_) => {}
            // Nothing below a missing folder can exist either.
            Err(err) if err.kind() == ErrorKind::NotFound => break,
            Err(err) => return Err(DocError::io(format!("could not check {rel}"))(err)),
        }
    }
    let mut full = root.to_path_buf();
    full.extend(&segments);
    Ok(full)
}

/// Creates the folders between `root` and `full` (a path [`resolve_client_path`] returned) that
/// are missing, one at a time, refusing as that function does if one turns out to be a file or a
/// symlink. Checked again here because the disk may have changed since the path was resolved.
pub fn create_parent_dirs(root: &Path, full: &Path) -> Result<(), DocError> {
    let shown = full
        .strip_prefix(root)
        .unwrap_or(full)
        .to_string_lossy()
        .replace('\\', "/");
    let Some(parent) = full.parent() else {
        return Ok(());
    };
    let Ok(below) = parent.strip_prefix(root) else {
        return Err(DocError::BadRequest(format!(
            "path is outside the docs folder: {shown}"
        )));
    };
    let mut current = root.to_path_buf();
    for segment in below.components() {
        current.push(segment);
        let meta = match fs::symlink_metadata(&current) {
            Err(err) if err.kind() == ErrorKind::NotFound => {
                match fs::create_dir(&current) {
                    Ok(()) => {}
                    Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
                    Err(err) => return Err(DocError::io(format!("could not create the folder for {shown}"))(err)),
                }
                fs::symlink_metadata(&current)
            }
            other => other,
        }
        .map_err(DocError::io(format!("could not check {shown}")))?;
        if !meta.is_dir() {
            return Err(DocError::BadRequest(format!(
                "a folder on the path is a file or a symlink: {shown}"
            )));
        }
    }
    Ok(())
}

/// A Windows drive prefix such as `C:`, which is absolute however it goes on.
fn has_drive_letter(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<PathBuf, DocError>) -> String {
        match result {
            Err(DocError::BadRequest(message)) => message,
            other => panic!("expected a 400, got {other:?}"),
        }
    }

    #[test]
    fn accepts_relative_markdown_paths_and_normalises_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("ops")).unwrap();
        assert_eq!(
            resolve_client_path(root, "ops/new.md", true).unwrap(),
            root.join("ops/new.md")
        );
        assert_eq!(
            resolve_client_path(root, "./ops//x.MD", true).unwrap(),
            root.join("ops/x.MD")
        );
        assert_eq!(
            resolve_client_path(root, "ops\\y.mdx", true).unwrap(),
            root.join("ops/y.mdx")
        );
        // Missing folders are allowed: a write creates them.
        assert_eq!(
            resolve_client_path(root, "a/b/c.md", true).unwrap(),
            root.join("a/b/c.md")
        );
        // Without markdown_only any name goes, folders included.
        assert_eq!(resolve_client_path(root, "ops", false).unwrap(), root.join("ops"));
        assert_eq!(
            resolve_client_path(root, "ops/img.png", false).unwrap(),
            root.join("ops/img.png")
        );
    }

    #[test]
    fn refuses_paths_that_leave_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            message(resolve_client_path(root, "../x.md", true)),
            "path is outside the docs folder: ../x.md"
        );
        assert_eq!(
            message(resolve_client_path(root, "a/../b.md", true)),
            "path is outside the docs folder: a/../b.md"
        );
        assert_eq!(
            message(resolve_client_path(root, "a\\..\\b.md", true)),
            "path is outside the docs folder: a\\..\\b.md"
        );
        assert_eq!(
            message(resolve_client_path(root, ".", false)),
            "path is outside the docs folder: ."
        );
        assert_eq!(
            message(resolve_client_path(root, "", false)),
            "path is outside the docs folder: "
        );
        assert_eq!(
            message(resolve_client_path(root, "/etc/x.md", true)),
            "path must be relative to the docs folder: /etc/x.md"
        );
        assert_eq!(
            message(resolve_client_path(root, "C:/x.md", true)),
            "path must be relative to the docs folder: C:/x.md"
        );
        assert_eq!(
            message(resolve_client_path(root, "\\x.md", true)),
            "path must be relative to the docs folder: \\x.md"
        );
    }

    #[test]
    fn refuses_what_the_index_skips_and_non_markdown() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for path in [".git/x.md", "a/.hidden.md", "node_modules/x.md", "a/\0.md"] {
            assert_eq!(
                message(resolve_client_path(root, path, true)),
                format!("path names a folder or file the index skips: {path}")
            );
        }
        assert_eq!(
            message(resolve_client_path(root, "notes.txt", true)),
            "not a Markdown file (.md, .markdown, .mdx): notes.txt"
        );
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinks_and_files_on_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("t.md"), root.join("link.md")).unwrap();
        fs::write(root.join("file.md"), "x").unwrap();
        assert_eq!(
            message(resolve_client_path(root, "linked/x.md", true)),
            "a folder on the path is a file or a symlink: linked/x.md"
        );
        assert_eq!(
            message(resolve_client_path(root, "link.md", true)),
            "symlinks are not followed: link.md"
        );
        assert_eq!(
            message(resolve_client_path(root, "file.md/x.md", true)),
            "a folder on the path is a file or a symlink: file.md/x.md"
        );
        // A symlinked folder is refused even as the last segment, for a delete or download.
        assert_eq!(
            message(resolve_client_path(root, "linked", false)),
            "symlinks are not followed: linked"
        );
    }

    #[test]
    fn creates_missing_folders_but_not_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let full = resolve_client_path(root, "a/b/c.md", true).unwrap();
        create_parent_dirs(root, &full).unwrap();
        assert!(root.join("a/b").is_dir());
        assert!(!full.exists(), "only folders are created");

        // A file appears where a folder should be after the path was resolved.
        let full = resolve_client_path(root, "x/y.md", true).unwrap();
        fs::write(root.join("x"), "not a folder").unwrap();
        match create_parent_dirs(root, &full) {
            Err(DocError::BadRequest(message)) => {
                assert_eq!(message, "a folder on the path is a file or a symlink: x/y.md")
            }
            other => panic!("expected a 400, got {other:?}"),
        }
    }
}
