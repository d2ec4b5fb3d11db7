//! The reading tools: `ragdown_read_doc` (a document or a range of it, by path or wikilink) and
//! `ragdown_backlinks`, and the reads and link resolution they share with the `/api` routes
//! (`GET /api/doc`, `GET /api/resolve`, `GET /api/backlinks`).

use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Answer, BacklinksArgs, Output, ReadDocArgs, ToolError, ToolResult, check_relative, logging};
use crate::documents::paths::is_skipped;
use crate::engine::Scope;
use crate::error::ErrorKind;
use crate::markdown::is_markdown;
use crate::markdown::links::{self, LinkKind, LinkTarget, heading_range};

/// `ragdown_read_doc`: a document or a line range of it, by path or wikilink target.
pub async fn read_doc(scope: &Scope, args: ReadDocArgs) -> ToolResult {
    let raw = args.path.trim();
    if raw.is_empty() {
        return Err(ToolError::new("path must not be empty"));
    }
    let (target, heading) = links::split_wikilink(raw);
    check_relative(target)?;
    let not_found = || {
        ToolError::with_kind(
            ErrorKind::NotFound,
            format!("no such document: {raw} (not a path, and no document by that name or alias)"),
        )
    };
    if args.start_line == Some(0) || args.end_line == Some(0) {
        return Err(ToolError::new("start_line and end_line count from 1"));
    }
    let path = resolve(scope, target).await?.ok_or_else(not_found)?;
    let bytes = read_file(&Scope::root(scope.engine.clone()), &path).map_err(|_| not_found())?;
    let hash = hex::encode(Sha256::digest(&bytes));
    let text = String::from_utf8_lossy(&bytes);
    let lines = split_lines(&text);
    let total = lines.len();
    let (start, end) = match (args.start_line, args.end_line, heading) {
        (None, None, Some(anchor)) if !anchor.is_empty() => heading_range(&lines, anchor).unwrap_or((1, total)),
        (start, end, _) => (start.unwrap_or(1), end.unwrap_or(total).min(total)),
    };
    if start > total.max(1) {
        return Err(ToolError::new(format!(
            "start_line {start} is past the end of {} ({total} lines)",
            scope.to_scope_path(&path)
        )));
    }
    if end < start {
        return Err(ToolError::new(format!("end_line {end} is before start_line {start}")));
    }
    logging::read(scope, &path, start, end);
    let shown = scope.to_scope_path(&path);
    let mut notes = String::new();
    if shown != raw {
        notes.push_str(&format!(
            ", resolved from {}",
            serde_json::to_string(raw).unwrap_or_default()
        ));
    }
    let superseded = scope.engine.store().superseded().await?;
    if let Some(by) = superseded.get(&path) {
        let by: Vec<&str> = by.iter().map(|p| scope.to_scope_path(p)).collect();
        notes.push_str(&format!(", superseded by {}", by.join(", ")));
    }
    Ok(format!(
        "{shown}:{start}-{end} of {total} (hash {}{notes})\n{}",
        &hash[..12],
        lines[start - 1..end].join("\n")
    ))
}

/// A text's lines as `ragdown_read_doc` numbers them: split at `\n`, a trailing `\r` dropped.
pub fn split_lines(text: &str) -> Vec<&str> {
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()
}

/// The bytes of the Markdown file at `path` (scope-relative), through the one path check: the
/// read of `ragdown_read_doc` and `GET /api/doc`. A missing file, or anything but a regular
/// Markdown file, is a 404.
pub fn read_file(scope: &Scope, path: &str) -> Result<Vec<u8>, ToolError> {
    let not_found = || ToolError::with_kind(ErrorKind::NotFound, format!("no such document: {path}"));
    let abs = scope.paths().resolve(path, true).map_err(|_| not_found())?;
    match crate::documents::read_existing(&abs, path) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) | Err(crate::documents::DocError::Conflict(_)) => Err(not_found()),
        Err(err) => Err(err.into()),
    }
}

/// The largest attachment a resource read sends, as `GET /api/file`.
pub const MAX_ATTACHMENT_BYTES: u64 = 64 << 20;

/// The bytes of the file at `path` (scope-relative, of any kind: an image, a PDF), through the one
/// path check as [`read_file`]: anything the check refuses, a folder, a symlink or a missing file
/// is "no such file"; a file past [`MAX_ATTACHMENT_BYTES`] is refused.
pub fn read_attachment(scope: &Scope, path: &str) -> Result<Vec<u8>, ToolError> {
    let not_found = || ToolError::with_kind(ErrorKind::NotFound, format!("no such file: {path}"));
    let abs = scope.paths().resolve(path, false).map_err(|_| not_found())?;
    let meta = std::fs::symlink_metadata(&abs).map_err(|_| not_found())?;
    if !meta.is_file() {
        return Err(not_found());
    }
    if meta.len() > MAX_ATTACHMENT_BYTES {
        return Err(ToolError::new(format!(
            "{path} is too large to send ({} bytes, at most {MAX_ATTACHMENT_BYTES})",
            meta.len()
        )));
    }
    std::fs::read(&abs).map_err(|_| not_found())
}

/// Finds the root-relative path for a scope-relative path or wikilink target.
async fn resolve(scope: &Scope, target: &str) -> Result<Option<String>, ToolError> {
    let clean = target.trim_start_matches("./");
    if clean.split('/').any(is_skipped) {
        return Ok(None);
    }
    // A path, as given or with `.md` added.
    for candidate in [clean.to_string(), format!("{clean}.md")] {
        if !is_markdown(&candidate) {
            continue;
        }
        // Through the one path check, so a symlinked folder on the way is no way out.
        let Ok(abs) = scope.paths().resolve(&candidate, true) else {
            continue;
        };
        if std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file()) {
            return Ok(Some(scope.to_root_path(&candidate)));
        }
    }
    // A wikilink target, resolved as Obsidian does among the scope's documents.
    let names = scope.engine.store().names().await?;
    Ok(names.resolve(clean, "", &scope.prefix).map(str::to_string))
}

/// Most characters of a linking line that `ragdown_backlinks` shows.
const BACKLINK_LINE_CHARS: usize = 240;

/// `ragdown_backlinks`: which documents of this endpoint link to a document, and on which lines.
pub async fn backlinks(scope: &Scope, args: BacklinksArgs) -> Answer {
    let data = links_to(scope, &args.path).await?;
    Ok(Output::with_data(data.to_string(), data))
}

/// `{path, backlinks:[{path, title, lines:[{line, text}]}]}` for the document `path` names (a
/// path or wikilink target), with scope-relative paths: the one backlink search of
/// `ragdown_backlinks` and `GET /api/backlinks`. Only the documents the link graph
/// ([`crate::index::graph`]) says may link to it are read; their links are resolved within the
/// scope, with scope-relative paths, as an agent there sees them.
pub async fn links_to(scope: &Scope, path: &str) -> Result<serde_json::Value, ToolError> {
    let raw = path.trim();
    let (target, _) = links::split_wikilink(raw);
    check_relative(target)?;
    let not_indexed = || ToolError::with_kind(ErrorKind::NotFound, format!("not an indexed document: {raw}"));
    let wanted_root = resolve(scope, target).await?.ok_or_else(not_indexed)?;
    let store = scope.engine.store();
    let documents = store.document_map().await?;
    let wanted_doc = documents.get(&wanted_root).ok_or_else(not_indexed)?;
    let keys = links::name_keys(&wanted_root, &wanted_doc.aliases);
    let files = store.files().await?;
    let linking = scope
        .engine
        .links
        .linking(&files, &scope.prefix, &keys, &wanted_root)
        .await;
    let names = store.names().await?;
    let titles: Vec<String> = linking
        .iter()
        .map(|path| documents.get(path).map(|doc| doc.title.clone()).unwrap_or_default())
        .collect();
    let wanted = scope.to_scope_path(&wanted_root).to_string();
    let prefix = scope.prefix.clone();
    let root = scope.engine.docs_dir.clone();
    let found = tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        for (root_path, title) in linking.iter().zip(titles) {
            let from = root_path.strip_prefix(prefix.as_str()).unwrap_or(root_path);
            let Ok(source) = std::fs::read_to_string(root.join(root_path)) else {
                continue;
            };
            let lines: Vec<&str> = source.lines().collect();
            let mut hits: Vec<serde_json::Value> = Vec::new();
            let mut seen_lines = std::collections::HashSet::new();
            for link in links::find_links(&source) {
                let resolved = match link.kind {
                    LinkKind::Wiki => names
                        .resolve(&link.target, from, &prefix)
                        .and_then(|found| found.strip_prefix(prefix.as_str()))
                        .map(str::to_string),
                    LinkKind::Markdown => links::resolve_relative(&link.target, from),
                };
                if resolved.as_deref() == Some(wanted.as_str()) && seen_lines.insert(link.line) {
                    let text = lines.get(link.line - 1).map(|l| l.trim()).unwrap_or_default();
                    let text = if text.chars().count() > BACKLINK_LINE_CHARS {
                        format!("{}…", text.chars().take(BACKLINK_LINE_CHARS).collect::<String>())
                    } else {
                        text.to_string()
                    };
                    hits.push(json!({ "line": link.line, "text": text }));
                }
            }
            if !hits.is_empty() {
                out.push(json!({ "path": from, "title": title, "lines": hits }));
            }
        }
        (wanted, out)
    });
    let (wanted, found) = found.await.map_err(|e| ToolError::internal(e.to_string()))?;
    Ok(json!({ "path": wanted, "backlinks": found }))
}

/// Most files of a folder that link resolution looks through for attachments.
const MAX_ATTACHMENTS: usize = 100_000;

/// The files under `dir` that are not Markdown (images, PDFs), scope-relative, as the indexer
/// walks: no dot entries, no `node_modules`, no symlinks.
pub(crate) fn attachments(dir: &std::path::Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || !is_skipped(&entry.file_name().to_string_lossy()))
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| entry.path().strip_prefix(dir).ok().and_then(crate::index::scan::posix))
        .filter(|path| !is_markdown(path))
        .take(MAX_ATTACHMENTS)
        .collect()
}

/// Where a link written in the document `from` points, as Obsidian resolves it, among the scope's
/// indexed documents and its attachments: the scope-relative path and the heading it names.
/// A relative Markdown link (`../ops/a.md`, `img/x.png`) is tried as a path first; a wikilink
/// target (`Note`, `Note#Heading`, `diagram.png`) by name and alias. `None` when nothing matches.
pub async fn resolve_link(
    scope: &Scope,
    from: &str,
    link: &str,
) -> Result<Option<(String, Option<String>)>, ToolError> {
    let (target, anchor) = links::split_wikilink(link);
    let anchor = anchor.map(str::to_string);
    let documents = scope.engine.store().documents(&scope.prefix).await?;
    let dir = scope.dir();
    let attached = tokio::task::spawn_blocking(move || attachments(&dir))
        .await
        .map_err(|e| ToolError::internal(e.to_string()))?;
    let paths: Vec<String> = documents
        .iter()
        .map(|doc| scope.to_scope_path(&doc.path).to_string())
        .collect();
    let no_aliases: Vec<String> = Vec::new();
    let targets: Vec<LinkTarget<'_>> = paths
        .iter()
        .zip(&documents)
        .map(|(path, doc)| LinkTarget {
            path,
            aliases: &doc.aliases,
        })
        .chain(attached.iter().map(|path| LinkTarget {
            path,
            aliases: &no_aliases,
        }))
        .collect();
    if target.contains('/')
        && let Some(relative) = links::resolve_relative(target, from)
        && let Some(found) = targets.iter().find(|t| t.path == relative)
    {
        return Ok(Some((found.path.to_string(), anchor)));
    }
    Ok(links::resolve_wikilink(target, from, &targets).map(|path| (path.to_string(), anchor)))
}
