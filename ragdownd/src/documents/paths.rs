//! Client-supplied paths: turning a path an agent or the web UI names into a file under the docs
//! folder, or refusing it.
//!
//! This is the one path check of the server: every tool, endpoint and route that takes a path
//! resolves it here. A path is accepted only where the indexer would walk: relative, no `..`, no
//! dot-entry or `node_modules` on the way, and no symlink or file where a folder should be,
//! because the indexer does not follow symlinks and a read or write through one could land outside
//! the docs. Every component from the docs dir down is checked, the scope's own folders included
//! ([`Root`]), so a symlinked folder anywhere on the way cannot lead out. This module only checks
//! and creates folders; it never reads or writes a document.
//!
//! The check is made against the disk as it is when the request comes; someone with shell access
//! who swaps a folder for a symlink between the check and the write is outside what it guards
//! against (agents and web clients cannot make symlinks).

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::DocError;
use crate::markdown::is_markdown;

/// Whether a directory entry is left out of the index and of every client path: dot-entries and
/// `node_modules`. The indexer's walk and this module's check both ask it, so a path a client may
/// name is always one the indexer walks.
pub fn is_skipped(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules"
}

/// The folder client paths are relative to: a folder of the docs dir (or the docs dir itself),
/// named by its root-relative prefix. Resolving checks every component from the docs dir down,
/// the prefix's as well as the client's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    docs_dir: PathBuf,
    /// Root-relative segments of the folder: `["team", "ops"]` for `team/ops/`.
    prefix: Vec<String>,
}

impl Root {
    /// The folder `prefix` (root-relative, `team/ops/` or `team/ops`; empty for the docs dir itself)
    /// under `docs_dir`.
    pub fn new(docs_dir: impl Into<PathBuf>, prefix: &str) -> Self {
        Self {
            docs_dir: docs_dir.into(),
            prefix: prefix.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect(),
        }
    }

    /// The folder on disk.
    pub fn dir(&self) -> PathBuf {
        let mut dir = self.docs_dir.clone();
        dir.extend(&self.prefix);
        dir
    }

    /// The docs dir this folder is under.
    pub fn docs_dir(&self) -> &Path {
        &self.docs_dir
    }

    /// The folder `rel` (a client path) below this one, checked as [`Root::resolve`] checks.
    pub fn join(&self, rel: &str) -> Result<Self, DocError> {
        let segments = client_segments(rel)?;
        let mut prefix = self.prefix.clone();
        prefix.extend(segments.into_iter().map(str::to_owned));
        Ok(Self {
            docs_dir: self.docs_dir.clone(),
            prefix,
        })
    }

    /// Whether this folder is a real folder reached from the docs dir through real folders only:
    /// its prefix passes [`Root::resolve`] from the docs dir and names a folder.
    pub fn exists_as_dir(&self) -> bool {
        if self.prefix.is_empty() {
            return self.docs_dir.is_dir();
        }
        Root::new(&self.docs_dir, "")
            .resolve(&self.prefix.join("/"), false)
            .is_ok_and(|dir| fs::symlink_metadata(dir).is_ok_and(|meta| meta.is_dir()))
    }

    /// Resolves `rel`, a path relative to this folder from a client, to the file it names.
    ///
    /// `\` is read as `/`, and empty and `.` segments are dropped (`./a//b.md` is `a/b.md`).
    /// Refused with a 400 ([`DocError::BadRequest`]) when the path is absolute, is empty or `.`,
    /// has `..` anywhere, has a dot-entry, `node_modules` or NUL segment, is not Markdown while
    /// `markdown_only`, or when something already on disk on the way from the docs dir is a file or
    /// a symlink where a folder should be, or the path itself is a symlink. Missing folders are
    /// fine: see [`Root::create_parent_dirs`].
    pub fn resolve(&self, rel: &str, markdown_only: bool) -> Result<PathBuf, DocError> {
        let refuse = |why: &str| DocError::BadRequest(format!("{why}: {rel}"));
        let segments = client_segments(rel)?;
        let last = segments.last().copied().unwrap_or_default();
        if markdown_only && !is_markdown(last) {
            return Err(refuse("not a Markdown file (.md, .markdown, .mdx)"));
        }
        let all: Vec<&str> = self.prefix.iter().map(String::as_str).chain(segments).collect();
        let mut current = self.docs_dir.clone();
        for (i, segment) in all.iter().enumerate() {
            current.push(segment);
            let is_last = i + 1 == all.len();
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
        let mut full = self.docs_dir.clone();
        full.extend(&all);
        Ok(full)
    }

    /// Creates the folders between the docs dir and `full` (a path [`Root::resolve`] returned) that
    /// are missing, one at a time, refusing as `resolve` does if one turns out to be a file or a
    /// symlink. Checked again here because the disk may have changed since the path was resolved.
    pub fn create_parent_dirs(&self, full: &Path) -> Result<(), DocError> {
        create_parent_dirs(&self.docs_dir, full)
    }
}

/// Refuses (a 400) a client path that no folder could hold whatever is on disk: absolute, naming
/// nothing, climbing with `..`, or with a segment the index skips or a NUL.
pub fn check_client_path(rel: &str) -> Result<(), DocError> {
    client_segments(rel).map(drop)
}

/// A client path's segments: `\` read as `/`, empty and `.` segments dropped; refused when it is
/// absolute, names nothing, climbs with `..`, or has a segment the index skips or a NUL.
fn client_segments(rel: &str) -> Result<Vec<&str>, DocError> {
    let refuse = |why: &str| DocError::BadRequest(format!("{why}: {rel}"));
    if is_absolute(rel) {
        return Err(refuse("path must be relative to the docs folder"));
    }
    let segments: Vec<&str> = rel.split(['/', '\\']).filter(|s| !s.is_empty() && *s != ".").collect();
    if segments.is_empty() || segments.contains(&"..") {
        return Err(refuse("path is outside the docs folder"));
    }
    if segments.iter().any(|s| is_skipped(s) || s.contains('\0')) {
        return Err(refuse("path names a folder or file the index skips"));
    }
    Ok(segments)
}

/// [`Root::resolve`] from `root` itself, for the tests.
#[cfg(test)]
fn resolve_client_path(root: &Path, rel: &str, markdown_only: bool) -> Result<PathBuf, DocError> {
    Root::new(root, "").resolve(rel, markdown_only)
}

/// Creates the folders between `root` and `full` (a path [`Root::resolve`] returned) that
/// are missing, one at a time, refusing as that function does if one turns out to be a file or a
/// symlink. Checked again here because the disk may have changed since the path was resolved.
fn create_parent_dirs(root: &Path, full: &Path) -> Result<(), DocError> {
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

/// Whether a client's path starts at a root: `/x`, `\x`, or a Windows drive prefix such as `C:`,
/// which is absolute however it goes on. Such a path is refused, never read as relative.
pub fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with(['/', '\\']) || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
}

#[cfg(test)]
#[path = "paths_props.rs"]
mod props;

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

    #[cfg(unix)]
    #[test]
    fn a_symlinked_folder_in_the_scope_itself_leads_nowhere() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "secret").unwrap();
        fs::create_dir_all(dir.path().join("team/real")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("team/linkdir")).unwrap();

        // A subfolder scope through the link: every path in it is refused, reads and writes alike.
        let linked = Root::new(dir.path(), "team/linkdir/");
        assert!(!linked.exists_as_dir());
        for (rel, markdown_only) in [
            ("secret.md", true),
            ("pwned.md", true),
            ("deeper/x.md", true),
            ("x", false),
        ] {
            assert_eq!(
                message(linked.resolve(rel, markdown_only)),
                format!("a folder on the path is a file or a symlink: {rel}")
            );
        }
        // The same link as a path inside the folder's own scope.
        let team = Root::new(dir.path(), "team");
        assert!(team.exists_as_dir());
        assert_eq!(
            message(team.resolve("linkdir/secret.md", true)),
            "a folder on the path is a file or a symlink: linkdir/secret.md"
        );
        assert!(!team.join("linkdir").unwrap().exists_as_dir());
        assert!(team.join("real").unwrap().exists_as_dir());
        assert!(team.join("..").is_err() && team.join(".git").is_err());
        assert_eq!(
            team.join("real").unwrap().resolve("a.md", true).unwrap(),
            dir.path().join("team/real/a.md")
        );
        // A folder of the scope that does not exist yet (a notes folder) is made on the first write.
        let notes = Root::new(dir.path(), "team/notes");
        let full = notes.resolve("a.md", true).unwrap();
        notes.create_parent_dirs(&full).unwrap();
        assert!(dir.path().join("team/notes").is_dir());
    }
}
