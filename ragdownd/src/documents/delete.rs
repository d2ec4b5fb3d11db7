//! Deleting a document or a subfolder, guarded as writes are: a document only if it is still the
//! version the caller read, a subfolder only empty or when asked for everything in it. What goes
//! is recorded in the history first.

use std::fs;
use std::path::Path;

use super::DocError;
use super::Record;
use super::hash::{content_hash, is_version};
use super::write::{read_existing, with_path_lock};
use crate::markdown::is_markdown;

/// Deletes the document or subfolder at `path` (resolved with `markdown_only: false`), as
/// `ragdown_delete` does. A document is deleted only if it is Markdown and, with `base_hash`, still
/// that version; a subfolder takes no `base_hash` and, unless empty, needs `recursive`.
pub fn delete_guarded(
    path: &Path,
    shown: &str,
    recursive: bool,
    base_hash: Option<&str>,
    change: &dyn Record,
) -> Result<(), DocError> {
    let meta = fs::symlink_metadata(path);
    if meta.as_ref().is_ok_and(fs::Metadata::is_dir) {
        if base_hash.is_some() {
            return Err(DocError::BadRequest(format!(
                "{shown} is a subfolder: base_hash guards one document, so leave it out to delete a subfolder"
            )));
        }
        let mut entries = fs::read_dir(path).map_err(DocError::io(format!("could not read {shown}")))?;
        if entries.next().is_some() && !recursive {
            return Err(DocError::conflict(format!(
                "{shown} is not empty: pass recursive: true to delete everything in it"
            )));
        }
        // Everything in it, contents and all, is in the history before the first file goes.
        change.removing_tree(path)?;
        return fs::remove_dir_all(path).map_err(|err| {
            // Part of it may be gone: the entry stays, and its undo puts back what is missing.
            DocError::io(format!("could not delete {shown}"))(err)
        });
    }
    let name = path.file_name().map(|name| name.to_string_lossy()).unwrap_or_default();
    if !is_markdown(&name) {
        return Err(DocError::BadRequest(format!(
            "not a Markdown file (.md, .markdown, .mdx): {shown}"
        )));
    }
    with_path_lock(path, || {
        let current = match read_existing(path, shown) {
            Ok(Some(bytes)) => bytes,
            // Nothing there, or a symlink or other non-file: no document either way.
            Ok(None) | Err(DocError::Conflict(_)) => {
                return Err(DocError::NotFound(format!("no such document: {shown}")));
            }
            Err(err) => return Err(err),
        };
        if base_hash.is_some_and(|base| !is_version(base, &content_hash(&current))) {
            return Err(DocError::changed(format!(
                "{shown} changed since it was read, so it was not deleted: read it again and decide on what it says now"
            )));
        }
        change.file(path, Some(&current), None)?;
        fs::remove_file(path).map_err(|err| {
            change.forget_last();
            DocError::io(format!("could not delete {shown}"))(err)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind as Kind;
    use crate::error::Kinded;

    #[test]
    fn delete_checks_the_version_and_subfolder_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let none = crate::documents::record::Unrecorded;
        fs::create_dir_all(root.join("ops/old")).unwrap();
        fs::write(root.join("ops/old/pg.md"), "pg").unwrap();
        fs::write(root.join("ops/img.png"), "png").unwrap();

        let err = delete_guarded(
            &root.join("ops/old/pg.md"),
            "ops/old/pg.md",
            false,
            Some(&content_hash(b"other")),
            &none,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "ops/old/pg.md changed since it was read, so it was not deleted: read it again and decide on what it says now"
        );
        assert_eq!(err.kind(), Kind::Changed);
        assert!(root.join("ops/old/pg.md").exists());

        let err = delete_guarded(&root.join("ops/img.png"), "ops/img.png", false, None, &none).unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (Kind::Invalid, "not a Markdown file (.md, .markdown, .mdx): ops/img.png")
        );
        let err = delete_guarded(&root.join("ops/gone.md"), "ops/gone.md", false, None, &none).unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (Kind::NotFound, "no such document: ops/gone.md")
        );

        let err = delete_guarded(&root.join("ops"), "ops", true, Some("0123456789ab"), &none).unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (
                Kind::Invalid,
                "ops is a subfolder: base_hash guards one document, so leave it out to delete a subfolder"
            )
        );
        let err = delete_guarded(&root.join("ops"), "ops", false, None, &none).unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (
                Kind::Conflict,
                "ops is not empty: pass recursive: true to delete everything in it"
            )
        );

        delete_guarded(
            &root.join("ops/old/pg.md"),
            "ops/old/pg.md",
            false,
            Some(&content_hash(b"pg")[..12]),
            &none,
        )
        .unwrap();
        assert!(!root.join("ops/old/pg.md").exists());
        delete_guarded(&root.join("ops/old"), "ops/old", false, None, &none).unwrap();
        assert!(
            !root.join("ops/old").exists(),
            "an empty subfolder goes without recursive"
        );
        delete_guarded(&root.join("ops"), "ops", true, None, &none).unwrap();
        assert!(!root.join("ops").exists());
    }
}
