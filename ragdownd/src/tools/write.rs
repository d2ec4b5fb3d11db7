//! The write tools: `ragdown_write`, `ragdown_edit`, `ragdown_delete`, `ragdown_remember`.
//!
//! Each validates the client's path inside the scope, does its file work off the async threads
//! through [`crate::documents`] (atomic, hash-guarded, never half a file), then syncs the index so
//! the change is searchable before the tool answers. Output and error texts are fixed to the
//! character (the goldens in `tests/data/expected.json`): agents parse them.

use std::path::Path;

use rmcp::schemars::JsonSchema;
use serde::Deserialize;

use super::{ToolError, ToolResult, ToolSettings};
use crate::documents::{
    self, DocError, Edit, Expected, Root, append_text, apply_replacements, check_base, content_hash, create_unique,
    delete_guarded, keep_provenance, read_existing, remember_frontmatter, remember_text, resolve_supersedes,
    short_hash, slug, stamp_provenance, write_guarded,
};
use crate::engine::Scope;
use crate::error::ErrorKind;
use crate::index::sync::SyncReport;

/// Arguments of `ragdown_write`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// The document's path in this folder, e.g. `ops/backups.md` (created when new).
    #[schemars(length(min = 1))]
    pub path: String,
    /// The whole new text, or with `append` the text to add.
    #[schemars(length(min = 1))]
    pub text: String,
    /// Required to replace an existing document: the hash `ragdown_read_doc` printed (12+ characters).
    pub base_hash: Option<String>,
    /// Add `text` at the end of the document (or of the section under `heading`) instead of replacing it.
    #[serde(default)]
    pub append: bool,
    /// With `append`: the heading whose section gets the text.
    pub heading: Option<String>,
    /// Your session id, recorded in a new document's front matter.
    pub session_id: Option<String>,
}

/// One replacement of `ragdown_edit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct EditArg {
    /// The exact passage to replace, copied from the document (whitespace included).
    #[schemars(length(min = 1))]
    pub old_text: String,
    /// The text that takes its place (empty deletes it).
    pub new_text: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

/// Arguments of `ragdown_edit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The document's path in this folder.
    #[schemars(length(min = 1))]
    pub path: String,
    /// Replacements, applied in order; all apply or nothing is written.
    #[schemars(length(min = 1))]
    pub edits: Vec<EditArg>,
    /// The hash `ragdown_read_doc` printed; when given, the edit is refused if the file changed since.
    pub base_hash: Option<String>,
}

/// Arguments of `ragdown_delete`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct DeleteArgs {
    /// A document or a subfolder of this folder.
    #[schemars(length(min = 1))]
    pub path: String,
    /// Delete a subfolder with everything in it.
    #[serde(default)]
    pub recursive: bool,
    /// For a document: the hash `ragdown_read_doc` printed; it is deleted only if still that version.
    pub base_hash: Option<String>,
}

/// Arguments of `ragdown_remember`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// The note's title.
    #[schemars(length(min = 1))]
    pub title: String,
    /// The note's Markdown body.
    #[schemars(length(min = 1))]
    pub content: String,
    /// Tags for the note.
    pub tags: Option<Vec<String>>,
    /// File name without `.md` [default: `<date>-<slug of the title>`]; never overwrites (adds `-2`, `-3`...).
    pub name: Option<String>,
    /// Documents of this folder that this note replaces; searches skip them from now on.
    pub supersedes: Option<Vec<String>>,
    /// Your session id, recorded in the front matter.
    pub session_id: Option<String>,
}

/// The refusal of every write under `RAGDOWN_READ_ONLY`.
pub const READ_ONLY: &str = "The server is read-only (RAGDOWN_READ_ONLY)";

pub(super) fn refuse_read_only(settings: &ToolSettings) -> Result<(), ToolError> {
    if settings.read_only {
        return Err(ToolError::with_kind(ErrorKind::ReadOnly, READ_ONLY));
    }
    Ok(())
}

/// Runs blocking file work off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, DocError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        // The task panicked or was cancelled: the server failed, not the call.
        .map_err(|e| ToolError::internal(format!("the write was interrupted: {e}")))?
        .map_err(ToolError::from)
}

/// Brings the index up to date with a write before the tool answers.
pub(crate) async fn index_now(scope: &Scope) -> Result<SyncReport, ToolError> {
    Ok(scope.engine.sync(false).await?)
}

/// Brings the index up to date with a write to `path` (scope-relative: a document, or a folder
/// and what is under it) before the tool answers, looking at nothing else: the report counts
/// that path's files alone.
pub(crate) async fn index_path(scope: &Scope, path: &str) -> Result<SyncReport, ToolError> {
    Ok(scope.engine.sync_paths([scope.to_root_path(path)]).await?)
}

/// What a whole-document save did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Saved {
    /// The document, scope-relative.
    pub path: String,
    pub created: bool,
    /// The whole hash of what was written.
    pub hash: String,
    pub sync: SyncReport,
}

/// Writes `text` as the whole document at `path` (scope-relative), then syncs: the web UI's save,
/// upload and new document. With `base_hash` only over that version; without it only a new
/// document, unless `overwrite` (the web UI's "save over it"). The text is written as given, with
/// no provenance stamp: a person wrote it.
pub async fn save(
    scope: &Scope,
    path: &str,
    text: String,
    base_hash: Option<String>,
    overwrite: bool,
) -> Result<Saved, ToolError> {
    let root = scope.paths();
    let shown = shown(path);
    let abs = root.resolve(path, true)?;
    let display = shown.clone();
    let change = scope.begin("save");
    let written = blocking(move || {
        let expected = match (&base_hash, overwrite) {
            (Some(base), _) => Expected::Version(base),
            (None, true) => Expected::Anything,
            (None, false) => Expected::New,
        };
        change.mkdirs(&abs)?;
        root.create_parent_dirs(&abs)?;
        write_guarded(&abs, &display, &text, expected, &change)
    })
    .await?;
    let sync = index_path(scope, &shown).await?;
    Ok(Saved {
        path: shown,
        created: written.created,
        hash: written.hash,
        sync,
    })
}

/// Deletes the document or subfolder at `path` (scope-relative) as `ragdown_delete` and
/// `DELETE /api/doc` do, then syncs.
pub async fn delete_path(
    scope: &Scope,
    path: &str,
    recursive: bool,
    base_hash: Option<String>,
) -> Result<SyncReport, ToolError> {
    let shown = shown(path);
    let abs = scope.paths().resolve(path, false)?;
    let change = scope.begin("delete");
    let display = shown.clone();
    blocking(move || delete_guarded(&abs, &display, recursive, base_hash.as_deref(), &change)).await?;
    index_path(scope, &shown).await
}

/// The client's path as the scope shows it: `/` separators, no `./`.
pub fn shown(path: &str) -> String {
    path.trim()
        .replace('\\', "/")
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// `ragdown_write`: create, replace (with `base_hash`) or append to a document.
pub async fn write(scope: &Scope, settings: &ToolSettings, args: WriteArgs) -> ToolResult {
    refuse_read_only(settings)?;
    if args.heading.is_some() && !args.append {
        return Err(ToolError::new("heading is for append: true"));
    }
    let root = scope.paths();
    let shown = shown(&args.path);
    let path = root.resolve(&args.path, true)?;
    let display = shown.clone();
    let change = scope.begin(if args.append { "append" } else { "write" });
    let written = blocking(move || {
        change.mkdirs(&path)?;
        root.create_parent_dirs(&path)?;
        let existing = read_existing(&path, &display)?;
        match (existing, args.append) {
            (None, true) => Err(DocError::NotFound(format!("no such document: {display}"))),
            (Some(current), true) => {
                let hash = content_hash(&current);
                check_base(&display, args.base_hash.as_deref(), &hash)?;
                let current = String::from_utf8_lossy(&current);
                let next = append_text(&current, &args.text, args.heading.as_deref(), &display)?;
                write_guarded(&path, &display, &next, Expected::Version(&hash), &change)
            }
            (None, false) => {
                let text = stamp_provenance(&args.text, "ragdown_write", args.session_id.as_deref());
                write_guarded(&path, &display, &text, Expected::New, &change)
            }
            (Some(previous), false) => {
                let text = keep_provenance(&String::from_utf8_lossy(&previous), &args.text);
                write_guarded(&path, &display, &text, args.base_hash.as_deref().into(), &change)
            }
        }
    })
    .await?;
    index_path(scope, &shown).await?;
    let verb = if written.created { "created" } else { "wrote" };
    Ok(format!("{verb} {shown} (hash {})", short_hash(&written.hash)))
}

/// `ragdown_edit`: exact-passage replacements, all or nothing.
pub async fn edit(scope: &Scope, settings: &ToolSettings, args: EditArgs) -> ToolResult {
    refuse_read_only(settings)?;
    if args.edits.is_empty() {
        return Err(ToolError::new("edits must hold at least one edit"));
    }
    let shown = shown(&args.path);
    let path = scope.paths().resolve(&args.path, true)?;
    let display = shown.clone();
    let change = scope.begin("edit");
    let (written, replaced) = blocking(move || {
        let current = read_existing(&path, &display)?
            .ok_or_else(|| DocError::NotFound(format!("no such document: {display}")))?;
        let hash = content_hash(&current);
        check_base(&display, args.base_hash.as_deref(), &hash)?;
        let edits: Vec<Edit> = args
            .edits
            .into_iter()
            .map(|e| Edit {
                old_text: e.old_text,
                new_text: e.new_text,
                replace_all: e.replace_all,
            })
            .collect();
        let (next, replaced) = apply_replacements(&String::from_utf8_lossy(&current), &edits)?;
        let written = write_guarded(&path, &display, &next, Expected::Version(&hash), &change)?;
        Ok((written, replaced))
    })
    .await?;
    index_path(scope, &shown).await?;
    Ok(format!(
        "edited {shown} (replaced {replaced}, hash {})",
        short_hash(&written.hash)
    ))
}

/// `ragdown_delete`: a document (optionally hash-guarded) or a subfolder.
pub async fn delete(scope: &Scope, settings: &ToolSettings, args: DeleteArgs) -> ToolResult {
    refuse_read_only(settings)?;
    delete_path(scope, &args.path, args.recursive, args.base_hash).await?;
    Ok(format!("deleted {}", shown(&args.path)))
}

/// Where `ragdown_remember` writes: `<folder>/<notes dir>` at a folder's root (the notes dir is
/// validated with the configuration), the subfolder itself at a subfolder endpoint.
fn notes_dir(scope: &Scope, settings: &ToolSettings) -> Result<Root, DocError> {
    let is_subfolder = scope.folder.is_some() && scope.prefix.trim_end_matches('/').contains('/');
    if is_subfolder {
        Ok(scope.paths())
    } else {
        scope.paths().join(&settings.notes_dir)
    }
}

/// `ragdown_remember`: a new note with front matter, never overwriting.
pub async fn remember(scope: &Scope, settings: &ToolSettings, args: RememberArgs) -> ToolResult {
    refuse_read_only(settings)?;
    if args.title.trim().is_empty() || args.content.trim().is_empty() {
        return Err(ToolError::new("title and content must not be empty"));
    }
    let root = scope.paths();
    let notes = notes_dir(scope, settings)?;
    let today = crate::index::sync::iso_now()[..10].to_string();
    let name = args
        .name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .map(|n| n.trim().trim_end_matches(".md").to_string())
        .unwrap_or_else(|| format!("{today}-{}", slug(&args.title)));
    let change = scope.begin("remember");
    let (path, superseded) = blocking(move || {
        let targets = resolve_supersedes(&root, args.supersedes.as_deref().unwrap_or_default())?;
        // `supersedes` in front matter is relative to the note's own folder.
        let dir = notes.dir();
        let note_dir = match Path::new(&name).parent() {
            Some(parent) if !parent.as_os_str().is_empty() => dir.join(parent),
            _ => dir,
        };
        let relative: Vec<String> = targets
            .iter()
            .map(|t| documents::relative_posix(&note_dir, t))
            .collect();
        let front = remember_frontmatter(
            &args.title,
            &today,
            args.tags.as_deref().unwrap_or_default(),
            &relative,
            args.session_id.as_deref(),
        );
        let path = create_unique(&notes, &name, &remember_text(&front, &args.content), &change)?;
        let root = root.dir();
        let superseded: Vec<String> = targets
            .iter()
            .filter_map(|t| t.strip_prefix(&root).ok().and_then(crate::index::scan::posix))
            .collect();
        Ok((path, superseded))
    })
    .await?;
    let shown = path
        .strip_prefix(scope.dir())
        .ok()
        .and_then(crate::index::scan::posix)
        .unwrap_or_default();
    index_path(scope, &shown).await?;
    if superseded.is_empty() {
        Ok(format!("saved {shown}"))
    } else {
        Ok(format!("saved {shown} (supersedes {})", superseded.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[tokio::test]
    async fn an_interrupted_write_is_the_servers_failure() {
        let err = blocking::<()>(|| panic!("the disk went away")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Internal);
        assert!(
            err.message().starts_with("the write was interrupted"),
            "{}",
            err.message()
        );
        let refused = blocking::<()>(|| Err(DocError::NotFound("a.md".into())))
            .await
            .unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::NotFound, "a refusal keeps its own kind");
    }
}
