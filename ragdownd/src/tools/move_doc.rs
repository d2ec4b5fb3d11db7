//! `ragdown_move`: renames or moves a document, or a subfolder with everything in it, inside the
//! scope, then rewrites every link that pointed at what moved so that it still does.
//!
//! The move never overwrites: the target is claimed without clobbering (a hard link for a file,
//! an empty folder renamed over for a subfolder) so a file that appears at the target meanwhile
//! wins. Links are rewritten by [`links::rewrite_for_move`] against the scope's files as they are
//! on disk after the move, not the index, which may lag behind an editor. Each rewritten document
//! is written whole and only if it is still the version that was read; one edited meanwhile is
//! left as it is (its links stay stale; the move itself stands). Paths in and out are
//! scope-relative.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use rmcp::schemars::JsonSchema;
use serde::Deserialize;

use super::write::{blocking, index_now, refuse_read_only, shown};
use super::{ToolError, ToolResult, ToolSettings};
use crate::documents::paths::is_skipped;
use crate::documents::{
    DocError, Root, atomic_write, content_hash, read_existing, rename_dir_no_clobber, rename_file_no_clobber,
    with_path_lock,
};
use crate::engine::Scope;
use crate::history::Change;
use crate::index::scan::posix;
use crate::index::sync::SyncReport;
use crate::markdown::is_markdown;
use crate::markdown::links::{self, LinkTarget};
use crate::markdown::read_document_meta;

/// Arguments of `ragdown_move`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct MoveArgs {
    /// The document or subfolder to move, relative to this folder, e.g. `ops/pg.md` or `ops`.
    #[schemars(length(min = 1))]
    pub from: String,
    /// Its whole new path, name included: `db/postgres.md`, not `db/`. Missing subfolders on the way
    /// are created; nothing may be there yet. A document keeps a Markdown extension.
    #[schemars(length(min = 1))]
    pub to: String,
}

/// A move that passed every check: what goes where.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Planned {
    /// The source as the scope shows it, e.g. `ops/backups.md`.
    from: String,
    /// The target as the scope shows it.
    to: String,
    /// The source on disk.
    from_abs: PathBuf,
    /// The target on disk.
    to_abs: PathBuf,
    /// A subfolder with everything under it, rather than one document.
    is_dir: bool,
}

/// What a move did: scope-relative paths.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Moved {
    pub from: String,
    pub to: String,
    /// The documents whose links were rewritten.
    pub updated: Vec<String>,
    /// The sync that brought the index up to date.
    pub sync: SyncReport,
}

/// Moves a document or a subfolder inside `scope` and rewrites the links to (and in) it: the one
/// move of `ragdown_move` and `POST /api/move`.
pub async fn move_path(scope: &Scope, from: &str, to: &str) -> Result<Moved, ToolError> {
    let root = scope.paths();
    let planned = {
        let root = root.clone();
        let (from, to) = (from.to_string(), to.to_string());
        blocking(move || plan(&root, &from, &to)).await?
    };
    let (from, to) = (planned.from.clone(), planned.to.clone());
    let change = scope.begin("move");
    let updated = blocking(move || {
        perform(&root, &planned, &change)?;
        Ok(rewrite_links(&root.dir(), &planned, &change))
    })
    .await?;
    let sync = index_now(scope).await?;
    Ok(Moved {
        from,
        to,
        updated,
        sync,
    })
}

/// `ragdown_move`: moves a document or a subfolder and rewrites the links to (and in) it.
pub async fn move_doc(scope: &Scope, settings: &ToolSettings, args: MoveArgs) -> ToolResult {
    refuse_read_only(settings)?;
    let moved = move_path(scope, &args.from, &args.to).await?;
    let answer = format!("moved {} to {}", moved.from, moved.to);
    if moved.updated.is_empty() {
        Ok(answer)
    } else {
        Ok(format!("{answer}; links updated in {}", moved.updated.join(", ")))
    }
}

/// Checks a move of `from` to `to` (client paths under `root`) against the disk as it is now.
fn plan(root: &Root, from: &str, to: &str) -> Result<Planned, DocError> {
    let (from_shown, to_shown) = (shown(from), shown(to));
    let from_abs = root.resolve(from, false)?;
    let meta = match fs::symlink_metadata(&from_abs) {
        Ok(meta) => meta,
        Err(err) if err.kind() == ErrorKind::NotFound => {
            return Err(DocError::NotFound(format!("no such document: {from_shown}")));
        }
        Err(err) => return Err(DocError::io(format!("could not check {from_shown}"))(err)),
    };
    let is_dir = meta.is_dir();
    if !is_dir && !meta.is_file() {
        return Err(DocError::NotFound(format!("no such document: {from_shown}")));
    }
    if !is_dir && !is_markdown(&from_shown) {
        return Err(DocError::BadRequest(format!(
            "not a Markdown file (.md, .markdown, .mdx): {from}"
        )));
    }
    // A document must stay Markdown, or the index would drop it; a subfolder may take any name.
    let to_abs = root.resolve(to, !is_dir)?;
    if from_shown == to_shown {
        return Err(DocError::BadRequest(format!(
            "cannot move {from_shown} onto itself: give to a different path"
        )));
    }
    if is_dir && to_shown.starts_with(&format!("{from_shown}/")) {
        return Err(DocError::BadRequest(format!(
            "cannot move {from_shown} into itself: {to_shown} is inside it"
        )));
    }
    if fs::symlink_metadata(&to_abs).is_ok() {
        return Err(DocError::conflict(format!("already exists: {to_shown}")));
    }
    Ok(Planned {
        from: from_shown,
        to: to_shown,
        from_abs,
        to_abs,
        is_dir,
    })
}

/// Moves the file or folder, creating the target's missing folders, without overwriting anything;
/// each step is recorded in `change` before it is made.
fn perform(root: &Root, planned: &Planned, change: &Change) -> Result<(), DocError> {
    let Planned {
        from,
        to,
        from_abs,
        to_abs,
        is_dir,
    } = planned;
    change.mkdirs(to_abs)?;
    root.create_parent_dirs(to_abs)?;
    let moved = if *is_dir {
        change.renamed(from_abs, to_abs, true, None)?;
        rename_dir_no_clobber(from_abs, to_abs)
    } else {
        // Under the source's lock, so a guarded write to it lands before the move or fails after.
        with_path_lock(from_abs, || {
            let hash = read_existing(from_abs, from)?.map(|bytes| content_hash(&bytes));
            change.renamed(from_abs, to_abs, false, hash)?;
            Ok::<_, DocError>(rename_file_no_clobber(from_abs, to_abs))
        })?
    };
    if moved.is_err() {
        change.forget_last();
    }
    moved.map_err(|err| match err.kind() {
        ErrorKind::AlreadyExists | ErrorKind::DirectoryNotEmpty => DocError::conflict(format!("already exists: {to}")),
        ErrorKind::NotFound => DocError::NotFound(format!("no such document: {from}")),
        _ => DocError::io(format!("could not move {from} to {to}"))(err),
    })
}

/// A file of the scope after the move: scope-relative path, and its aliases when it is Markdown.
struct Listed {
    path: String,
    aliases: Vec<String>,
    markdown: bool,
}

/// Rewrites the links in every Markdown document of the scope, the moved ones included, that
/// pointed at what moved (or, for a moved document, at what stayed). Returns the scope-relative
/// paths of the documents rewritten, sorted. A document that cannot be read or written, or that
/// changed since it was read, is skipped: the move itself has happened and stands.
fn rewrite_links(root: &Path, planned: &Planned, change: &Change) -> Vec<String> {
    let files = list_files(root);
    let targets: Vec<LinkTarget<'_>> = files
        .iter()
        .map(|file| LinkTarget {
            path: &file.path,
            aliases: &file.aliases,
        })
        .collect();
    let mut updated = Vec::new();
    for file in files.iter().filter(|file| file.markdown) {
        let abs = root.join(&file.path);
        let Ok(bytes) = fs::read(&abs) else {
            continue;
        };
        let Ok(source) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let was_at = moved_back(&file.path, planned);
        let Some(next) = links::rewrite_for_move(source, &was_at, &planned.from, &planned.to, planned.is_dir, &targets)
        else {
            continue;
        };
        match write_if_unchanged(&abs, &file.path, &content_hash(&bytes), &next, change) {
            Ok(true) => updated.push(file.path.clone()),
            Ok(false) => tracing::warn!(path = %file.path, "changed while its links were rewritten; left as it is"),
            Err(err) => tracing::warn!(path = %file.path, %err, "could not rewrite its links after a move"),
        }
    }
    updated.sort();
    updated
}

/// Where a path after the move was before it.
fn moved_back(path: &str, planned: &Planned) -> String {
    if path == planned.to {
        return planned.from.clone();
    }
    match path.strip_prefix(&planned.to) {
        Some(rest) if planned.is_dir && rest.starts_with('/') => format!("{}{rest}", planned.from),
        _ => path.to_owned(),
    }
}

/// Replaces the file with `text` if its hash is still `read_hash`, under its path lock; `false`
/// when it changed (or went away) since it was read. Recorded in `change` first.
fn write_if_unchanged(abs: &Path, shown: &str, read_hash: &str, text: &str, change: &Change) -> Result<bool, DocError> {
    with_path_lock(abs, || {
        let now = read_existing(abs, shown)?;
        let unchanged = now.as_deref().is_some_and(|now| content_hash(now) == read_hash);
        if unchanged {
            change.file(abs, now.as_deref(), Some(text.as_bytes()))?;
            atomic_write(abs, text.as_bytes()).map_err(|err| {
                change.forget_last();
                DocError::io(format!("could not write {shown}"))(err)
            })?;
        }
        Ok(unchanged)
    })
}

/// Every file under `root` the indexer would walk, Markdown or not (`![[diagram.png]]` resolves to
/// an attachment), with each Markdown document's front matter aliases. Unreadable entries are left
/// out rather than failing a move that already happened.
fn list_files(root: &Path) -> Vec<Listed> {
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || !is_skipped(&entry.file_name().to_string_lossy()));
    let mut out = Vec::new();
    for entry in walker.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(path) = entry.path().strip_prefix(root).ok().and_then(posix) else {
            continue;
        };
        let markdown = is_markdown(&path);
        let aliases = if markdown {
            fs::read(entry.path())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .map(|source| read_document_meta(&path, &source).aliases)
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        out.push(Listed {
            path,
            aliases,
            markdown,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind as Kind;
    use crate::error::Kinded;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        }
        dir
    }

    fn refused(result: Result<Planned, DocError>) -> (Kind, String) {
        let err = result.expect_err("the move is refused");
        (err.kind(), err.to_string())
    }

    fn read(root: &Path, path: &str) -> String {
        fs::read_to_string(root.join(path)).unwrap()
    }

    #[test]
    fn plans_refuse_what_cannot_move() {
        let dir = tree(&[("a.md", "a"), ("b.md", "b"), ("ops/x.md", "x"), ("img.png", "")]);
        let root = &Root::new(dir.path(), "");
        assert_eq!(
            refused(plan(root, "missing.md", "c.md")),
            (Kind::NotFound, "no such document: missing.md".into())
        );
        assert_eq!(
            refused(plan(root, "a.md", "b.md")),
            (Kind::Conflict, "already exists: b.md".into())
        );
        assert_eq!(
            refused(plan(root, "ops", "a.md")),
            (Kind::Conflict, "already exists: a.md".into())
        );
        assert_eq!(
            refused(plan(root, "./a.md", "a.md")),
            (
                Kind::Invalid,
                "cannot move a.md onto itself: give to a different path".into()
            )
        );
        assert_eq!(
            refused(plan(root, "ops", "ops/deeper")),
            (
                Kind::Invalid,
                "cannot move ops into itself: ops/deeper is inside it".into()
            )
        );
        assert_eq!(
            refused(plan(root, "../x.md", "c.md")),
            (Kind::Invalid, "path is outside the docs folder: ../x.md".into())
        );
        assert_eq!(
            refused(plan(root, "a.md", "../c.md")),
            (Kind::Invalid, "path is outside the docs folder: ../c.md".into())
        );
        assert_eq!(
            refused(plan(root, ".", "c")),
            (Kind::Invalid, "path is outside the docs folder: .".into())
        );
        assert_eq!(
            refused(plan(root, "a.md", "a.txt")),
            (
                Kind::Invalid,
                "not a Markdown file (.md, .markdown, .mdx): a.txt".into()
            )
        );
        assert_eq!(
            refused(plan(root, "img.png", "pic.png")),
            (
                Kind::Invalid,
                "not a Markdown file (.md, .markdown, .mdx): img.png".into()
            )
        );
        // A sibling whose name starts with the folder's is not inside it.
        let ok = plan(root, "ops", "opsx").unwrap();
        assert!(ok.is_dir && ok.to == "opsx");
        assert!(!plan(root, "a.md", "new/dir/c.md").unwrap().is_dir);
    }

    #[test]
    fn a_folder_move_rewrites_links_into_out_of_and_inside_it() {
        let dir = tree(&[
            (
                "index.md",
                "See [[backups#Restore]] and [b](ops/backups.md).\r\nAnd [[readme]].\r\n",
            ),
            ("readme.md", "---\naliases: [Start]\n---\n# Readme\n"),
            (
                "ops/backups.md",
                "[up](../readme.md), [r](restore.md), [[Start]] and ![[diagram.png]]",
            ),
            ("ops/restore.md", "[b](backups.md)"),
            ("ops/diagram.png", ""),
            ("other.md", "Nothing that moved: [[readme]]."),
        ]);
        let root = dir.path();
        let planned = plan(&Root::new(root, ""), "ops", "infra/db").unwrap();
        perform(&Root::new(root, ""), &planned, &Change::untracked()).unwrap();
        assert!(!root.join("ops").exists());
        assert_eq!(
            rewrite_links(root, &planned, &Change::untracked()),
            ["index.md", "infra/db/backups.md"]
        );
        assert_eq!(
            read(root, "index.md"),
            "See [[backups#Restore]] and [b](infra/db/backups.md).\r\nAnd [[readme]].\r\n",
            "only the link target changes; CRLF stays"
        );
        assert_eq!(
            read(root, "infra/db/backups.md"),
            "[up](../../readme.md), [r](restore.md), [[Start]] and ![[diagram.png]]"
        );
        assert_eq!(read(root, "infra/db/restore.md"), "[b](backups.md)");
        assert_eq!(read(root, "other.md"), "Nothing that moved: [[readme]].");
    }

    #[test]
    fn a_document_changed_after_it_was_read_is_skipped() {
        let dir = tree(&[("index.md", "[a](a.md)")]);
        let abs = dir.path().join("index.md");
        let stale = content_hash(b"something else");
        assert!(!write_if_unchanged(&abs, "index.md", &stale, "[a](b.md)", &Change::untracked()).unwrap());
        assert_eq!(read(dir.path(), "index.md"), "[a](a.md)");
        let fresh = content_hash(b"[a](a.md)");
        assert!(write_if_unchanged(&abs, "index.md", &fresh, "[a](b.md)", &Change::untracked()).unwrap());
        assert_eq!(read(dir.path(), "index.md"), "[a](b.md)");
    }

    #[test]
    fn paths_map_back_to_before_the_move() {
        let planned = |from: &str, to: &str, is_dir| Planned {
            from: from.into(),
            to: to.into(),
            from_abs: PathBuf::new(),
            to_abs: PathBuf::new(),
            is_dir,
        };
        let folder = planned("ops", "infra/db", true);
        assert_eq!(moved_back("infra/db/x.md", &folder), "ops/x.md");
        assert_eq!(moved_back("infra/dbx/x.md", &folder), "infra/dbx/x.md");
        assert_eq!(moved_back("index.md", &folder), "index.md");
        let file = planned("a.md", "b/a.md", false);
        assert_eq!(moved_back("b/a.md", &file), "a.md");
        assert_eq!(moved_back("b/a.md/x", &file), "b/a.md/x");
    }
}
