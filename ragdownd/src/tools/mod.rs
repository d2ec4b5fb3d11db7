//! The MCP tools' logic and output text, independent of any transport.
//!
//! Each tool takes its typed arguments and a [`Scope`] and returns the text the agent reads, or a
//! [`ToolError`] whose message becomes an `isError` result. Output strings are fixed to the
//! character (the goldens in `tests/data/expected.json`), since agents and hooks already parse
//! them.

use std::path::{Component, Path};
use std::sync::Arc;

use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::engine::Scope;
use crate::error::{ErrorKind, Kinded};
use crate::index::sync::{iso_from_ms, utc_day};
use crate::markdown::chunker::breadcrumb;
use crate::search::{self, Hit, SearchRequest, WrittenBy};
use crate::settings::{Settings, Values};

pub use list::list;
pub use read::{backlinks, links_to, read_doc, read_file, split_lines};

pub mod browse;
pub mod complete;
pub mod context;
pub mod folders;
mod list;
mod logging;
pub mod move_doc;
pub mod read;
pub mod write;

/// Most hits a search returns.
pub use crate::settings::MAX_TOP_K;

/// A tool failure: the message the agent is shown (as an `isError` result over MCP, as `{error}`
/// over `/api`) and what kind of failure it is. How a kind is answered is each transport's
/// business, so the routes that share the tools' code share their errors too.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: String,
    kind: ErrorKind,
}

/// Any domain error becomes a tool failure of its own kind, with its message.
impl<E: Kinded> From<E> for ToolError {
    fn from(err: E) -> Self {
        Self::with_kind(err.kind(), err.to_string())
    }
}

impl ToolError {
    /// A refusal of the call's arguments ([`ErrorKind::Invalid`]).
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self::with_kind(ErrorKind::Invalid, message)
    }

    /// A failure of the given kind.
    pub(crate) fn with_kind(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind,
        }
    }

    /// A failure of the server under a call that was fine ([`ErrorKind::Internal`]).
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::with_kind(ErrorKind::Internal, message)
    }

    /// The message shown.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What kind of failure it is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

pub(crate) type ToolResult = Result<String, ToolError>;

/// A tool's answer: the text the agent reads and, for the tools whose answer is data
/// (`ragdown_recall`, `ragdown_list`, `ragdown_backlinks`, `ragdown_stats`), the same answer as
/// JSON, which MCP sends as `structuredContent` beside the text. The text is what it always was.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The text content, byte for byte the tool's documented output.
    pub text: String,
    /// The answer as data; `None` for a tool that answers with text alone.
    pub structured: Option<serde_json::Value>,
}

impl Output {
    /// An answer that is data, and `text` for the agent to read.
    pub fn with_data(text: String, data: serde_json::Value) -> Self {
        Self {
            text,
            structured: Some(data),
        }
    }
}

impl From<String> for Output {
    fn from(text: String) -> Self {
        Self { text, structured: None }
    }
}

/// A tool's answer or its failure.
pub(crate) type Answer = Result<Output, ToolError>;

/// What every tool call sees: the server's fixed switches, and the layered settings, read afresh
/// by each call so a saved change applies to the next one.
#[derive(Debug, Clone)]
pub struct ToolSettings {
    /// `RAGDOWN_READ_ONLY`.
    pub read_only: bool,
    /// Where `ragdown_remember` writes, relative to a folder (`RAGDOWN_NOTES_DIR`).
    pub notes_dir: String,
    /// The layered settings ([`crate::settings`]).
    pub layered: Arc<Settings>,
}

impl ToolSettings {
    /// Tool settings whose layered values are `values` alone (stdio without a saved file, tests).
    pub fn from_values(read_only: bool, notes_dir: &str, values: Values) -> Self {
        Self {
            read_only,
            notes_dir: notes_dir.to_string(),
            layered: Arc::new(Settings::env_only(values)),
        }
    }

    /// The layered values in effect now.
    pub fn current(&self) -> Values {
        self.layered.current()
    }
}

fn default_top_k() -> usize {
    8
}

/// Output shape of a search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "lowercase")]
pub enum RecallFormat {
    /// Numbered hits as prompt-ready text.
    #[default]
    Text,
    /// `{hits:[...]}` for programs.
    Json,
}

/// Arguments of `ragdown_recall`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct RecallArgs {
    /// What to look for, in plain words or as an exact identifier (a command, a config key, a path).
    #[schemars(length(min = 1))]
    pub query: String,
    /// How many sections to return.
    #[serde(default = "default_top_k")]
    #[schemars(range(min = 1, max = 50))]
    pub top_k: usize,
    /// Only documents under this directory (relative to this server's folder), e.g. `runbooks/db`.
    pub path_prefix: Option<String>,
    /// Only documents with this tag or one of its sub-tags (`project` also matches `project/alpha`).
    pub tag: Option<String>,
    /// Only documents written by an agent through the write tools, or only those written by people.
    pub written_by: Option<WrittenBy>,
    /// `text` (default) for reading, `json` for programs.
    #[serde(default)]
    pub format: RecallFormat,
    /// Characters per hit before it is clipped (0 = never clip). Defaults to the server's limit.
    #[schemars(range(min = 0))]
    pub max_chars: Option<usize>,
}

/// Arguments of `ragdown_read_doc`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ReadDocArgs {
    /// A document path from a search hit (`ops/backups.md`), or a wikilink target such as `Backups`,
    /// `Backups#Restore` or `ops/Backups`.
    #[schemars(length(min = 1))]
    pub path: String,
    /// First line to return (1-based).
    #[schemars(range(min = 1))]
    pub start_line: Option<usize>,
    /// Last line to return (inclusive).
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
}

fn default_list_limit() -> usize {
    100
}

/// How `ragdown_list` orders documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "lowercase")]
pub enum ListSort {
    /// By path.
    #[default]
    Path,
    /// Most recently changed first.
    Recent,
}

/// Arguments of `ragdown_list`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only documents under this directory (relative to this server's folder).
    pub path_prefix: Option<String>,
    /// Only documents with this tag or one of its sub-tags.
    pub tag: Option<String>,
    /// Only documents written by an agent, or only those written by people.
    pub written_by: Option<WrittenBy>,
    /// Only documents an agent wrote in this session.
    pub session_id: Option<String>,
    /// `path` (default) or `recent` (most recently changed first).
    #[serde(default)]
    pub sort: ListSort,
    /// Most documents to list.
    #[serde(default = "default_list_limit")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: usize,
}

/// Arguments of `ragdown_backlinks`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct BacklinksArgs {
    /// The document whose incoming links to list: a path or a wikilink target.
    #[schemars(length(min = 1))]
    pub path: String,
}

/// Arguments of `ragdown_stats`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct StatsArgs {
    /// Also list every indexed file with its chunk count.
    #[serde(default)]
    pub include_files: bool,
}

/// Arguments of `ragdown_reindex`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ReindexArgs {
    /// Drop the whole index and rebuild it from the files, instead of syncing what changed.
    #[serde(default)]
    pub full: bool,
}

/// The web UI's search (`GET /api/search`): [`find`], logged as a web search.
pub async fn web_search(scope: &Scope, settings: &ToolSettings, args: &RecallArgs) -> Result<Vec<Hit>, ToolError> {
    let started = std::time::Instant::now();
    let hits = find(scope, settings, args).await?;
    logging::search(crate::querylog::Kind::WebSearch, scope, settings, args, &hits, started);
    Ok(hits)
}

/// `ragdown_recall`: hybrid search. The data is `{hits: [...]}`, the same whatever the format;
/// the text is that JSON with `format: json`, else numbered hits.
pub async fn recall(scope: &Scope, settings: &ToolSettings, args: RecallArgs) -> Answer {
    let started = std::time::Instant::now();
    let hits = find(scope, settings, &args).await?;
    logging::search(crate::querylog::Kind::Recall, scope, settings, &args, &hits, started);
    let max_chars = args.max_chars.unwrap_or(settings.current().text_limit);
    let data: Vec<serde_json::Value> = hits.iter().map(|hit| hit_json(scope, hit, max_chars)).collect();
    let data = json!({ "hits": data });
    let text = match args.format {
        RecallFormat::Json => data.to_string(),
        RecallFormat::Text if hits.is_empty() => "No matching documents.".into(),
        RecallFormat::Text => hits
            .iter()
            .enumerate()
            .map(|(i, hit)| format!("[{}] {}", i + 1, format_hit(scope, hit, max_chars)))
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    Ok(Output::with_data(text, data))
}

/// The hits of a search with `args` in `scope`: the one search path of `ragdown_recall` and
/// `GET /api/search`. Neither formats nor logs.
pub async fn find(scope: &Scope, settings: &ToolSettings, args: &RecallArgs) -> Result<Vec<Hit>, ToolError> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err(ToolError::new("query must not be empty"));
    }
    if !(1..=MAX_TOP_K).contains(&args.top_k) {
        return Err(ToolError::new(format!("top_k must be between 1 and {MAX_TOP_K}")));
    }
    let path_prefix = scoped_prefix(scope, args.path_prefix.as_deref())?;
    let request = SearchRequest {
        query,
        limit: args.top_k,
        path_prefix,
        tag: args.tag.clone(),
        written_by: args.written_by,
        within: scope.span_prefixes(),
    };
    let engine = &scope.engine;
    let options = search::SearchOptions::new(settings.current().search, engine.layout);
    Ok(search::search_with(engine.store(), engine.embedder.as_ref(), &request, &options).await?)
}

/// Tags stored as `" a b/c "`.
fn stored_tags(tags: &str) -> Vec<&str> {
    tags.split_whitespace().collect()
}

/// One hit as prompt text: `path:start-end — breadcrumb [#tags] (similarity, changed day[, author])`
/// and the (clipped) text on the next line.
pub fn format_hit(scope: &Scope, hit: &Hit, max_chars: usize) -> String {
    let chunk = &hit.chunk;
    let path = scope.label(&chunk.path);
    let tags = stored_tags(&chunk.tags);
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!(
            " [{}]",
            tags.iter().map(|t| format!("#{t}")).collect::<Vec<_>>().join(" ")
        )
    };
    let author = if chunk.created_by.is_empty() {
        String::new()
    } else {
        format!(", written by an agent with {}", chunk.created_by)
    };
    format!(
        "{path}:{}-{} — {}{tags} (similarity {:.2}, changed {}{author})\n{}",
        chunk.line_start,
        chunk.line_end,
        breadcrumb(&chunk.title, &chunk.heading),
        chunk.similarity,
        utc_day(chunk.mtime_ms),
        clip(
            &chunk.text,
            max_chars,
            &read_doc_target(scope, &chunk.path),
            chunk.line_start,
            chunk.line_end
        )
    )
}

/// The `ragdown_read_doc` arguments naming a root-relative path in this scope: `path: "…"`, with
/// `folder: "…"` first in a spanning scope.
fn read_doc_target(scope: &Scope, root_path: &str) -> String {
    match scope.split_folder(root_path) {
        Some((folder, rest)) => format!("folder: \"{folder}\", path: \"{rest}\""),
        None => format!("path: \"{}\"", scope.to_scope_path(root_path)),
    }
}

/// Cuts `text` to `max_chars` characters, naming the call that returns the rest; `target` is the
/// call's arguments that name the document (see [`read_doc_target`]).
pub fn clip(text: &str, max_chars: usize, target: &str, start: i32, end: i32) -> String {
    let len = text.chars().count();
    if max_chars == 0 || len <= max_chars {
        return text.to_string();
    }
    let head: String = text.chars().take(max_chars).collect();
    format!(
        "{head}… [clipped: {max_chars} of {len} characters — ragdown_read_doc {{{target}, start_line: {start}, end_line: {end}}}]"
    )
}

fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

fn hit_json(scope: &Scope, hit: &Hit, max_chars: usize) -> serde_json::Value {
    let chunk = &hit.chunk;
    let (folder, path) = match scope.split_folder(&chunk.path) {
        Some((folder, rest)) => (Some(folder), rest),
        None => (None, scope.to_scope_path(&chunk.path)),
    };
    let target = read_doc_target(scope, &chunk.path);
    let mut value = json!({
        "path": path,
        "title": chunk.title,
        "heading": chunk.heading,
        "line_start": chunk.line_start,
        "line_end": chunk.line_end,
        "similarity": round(f64::from(chunk.similarity), 4),
        "score": round(hit.score, 5),
        "sources": hit.sources,
        "tags": stored_tags(&chunk.tags),
        "modified": iso_from_ms(chunk.mtime_ms as i64),
        "text": clip(&chunk.text, max_chars, &target, chunk.line_start, chunk.line_end),
    });
    if let Some(folder) = folder {
        value["folder"] = json!(folder);
    }
    if !chunk.created_by.is_empty() {
        value["created_by"] = json!(chunk.created_by);
    }
    value
}

/// The root-relative directory prefix for a tool's optional `path_prefix` inside the scope.
pub(crate) fn scoped_prefix(scope: &Scope, path_prefix: Option<&str>) -> Result<String, ToolError> {
    let clean = path_prefix.unwrap_or_default().trim().trim_matches('/');
    if clean.is_empty() {
        return Ok(scope.prefix.clone());
    }
    check_relative(clean)?;
    Ok(format!("{}{clean}/", scope.prefix))
}

/// Refuses paths that could leave the scope: absolute, `..`, or a drive prefix.
pub(crate) fn check_relative(path: &str) -> Result<(), ToolError> {
    let outside = || ToolError::new(format!("path is outside the docs folder: {path}"));
    if path.starts_with('/') || path.starts_with('\\') {
        return Err(outside());
    }
    for component in Path::new(path).components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            _ => return Err(outside()),
        }
    }
    if path.split(['/', '\\']).any(|segment| segment == "..") {
        return Err(outside());
    }
    Ok(())
}

/// `ragdown_stats`: the index behind this endpoint.
pub async fn stats(scope: &Scope, settings: &ToolSettings, args: StatsArgs) -> Answer {
    let engine = &scope.engine;
    let files = engine.store().files().await?;
    let mut in_scope: Vec<(&str, usize)> = files
        .iter()
        .filter(|(path, _)| scope.contains(path))
        .map(|(path, state)| (path.as_str(), state.chunks))
        .collect();
    in_scope.sort();
    let progress = engine.indexer.progress();
    let mut value = json!({
        "docs_dir": scope.dir().to_string_lossy(),
        "data_dir": engine.data_dir.to_string_lossy(),
        "role": if engine.is_primary() { "primary" } else { "reader" },
        "embedder": engine.embedder.index_name(),
        "read_only": settings.read_only,
        "files": in_scope.len(),
        "chunks": in_scope.iter().map(|(_, chunks)| chunks).sum::<usize>(),
        "syncing": engine.is_primary().then_some(engine.indexer.syncing()),
        "progress": {
            "files_total": progress.files_total,
            "files_done": progress.files_done,
            "chunks_done": progress.chunks_done,
        },
        "last_sync": engine.indexer.last_sync(),
        "scope": scope.folder.as_ref().map(|_| scope.dir().to_string_lossy().into_owned()),
    });
    if let Some(folders) = &scope.span {
        value["folders"] = json!(folders);
    }
    if args.include_files {
        value["file_list"] = in_scope
            .iter()
            .map(|(path, chunks)| match scope.split_folder(path) {
                Some((folder, rest)) => json!({ "folder": folder, "path": rest, "chunks": chunks }),
                None => json!({ "path": scope.to_scope_path(path), "chunks": chunks }),
            })
            .collect();
    }
    Ok(Output::with_data(value.to_string(), value))
}

/// `ragdown_reindex`: sync now (or rebuild) and report what changed.
pub async fn reindex(scope: &Scope, args: ReindexArgs) -> ToolResult {
    let report = scope.engine.sync(args.full).await?;
    Ok(serde_json::to_string(&report).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_names_the_read_doc_call() {
        let target = r#"path: "ops/backups.md""#;
        assert_eq!(clip("Run pg_restore twice.", 0, target, 1, 1), "Run pg_restore twice.");
        assert_eq!(clip("short", 10, target, 1, 1), "short");
        assert_eq!(
            clip("Run pg_restore twice.", 5, target, 7, 7),
            "Run p… [clipped: 5 of 21 characters — ragdown_read_doc {path: \"ops/backups.md\", start_line: 7, end_line: 7}]"
        );
        // Characters, not bytes: never cut inside a UTF-8 sequence.
        assert!(clip("ééééé", 2, target, 1, 1).starts_with("éé…"));
    }

    #[test]
    fn clip_cuts_cjk_text_between_characters_at_every_limit() {
        // Three-byte CJK letters, a four-byte one (𠀋) and ASCII mixed: any byte cut would panic.
        let text = "数据库备份：用pg_restore恢复𠀋。バックアップ復元、백업 복원";
        let len = text.chars().count();
        for limit in 0..=len + 1 {
            let clipped = clip(text, limit, r#"path: "zh.md""#, 3, 9);
            if limit == 0 || limit >= len {
                assert_eq!(clipped, text);
                continue;
            }
            let head: String = text.chars().take(limit).collect();
            assert!(
                clipped.starts_with(&format!("{head}… [clipped: {limit} of {len} characters")),
                "{clipped}"
            );
        }
    }

    /// A sync that fails on the server's side (here: the docs dir is gone) is the server's
    /// failure, not a refusal of the call's arguments.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_failed_reindex_is_an_internal_error() {
        let (docs, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let options = crate::engine::EngineOptions {
            docs_dir: docs.path().join("gone"),
            data_dir: data.path().to_path_buf(),
            layout: crate::index::scan::Layout::Single,
            watch: false,
            sync_on_open: false,
            takeover_every: crate::engine::TAKEOVER_EVERY,
            history: Default::default(),
            vector_index_rows: crate::index::ann::DEFAULT_MIN_ROWS,
        };
        let embedder = Arc::new(crate::embed::hash::HashEmbedder);
        let engine = crate::engine::Engine::open(options, embedder).await.unwrap();
        let err = reindex(&Scope::root(engine), ReindexArgs::default()).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Internal, "{err}");
        assert!(err.message().starts_with("cannot list "), "{err}");
    }

    #[test]
    fn paths_that_leave_the_folder_are_refused() {
        for bad in ["../x.md", "/etc/passwd", "a/../../b.md", "..", "a/.."] {
            assert_eq!(
                check_relative(bad),
                Err(ToolError::new(format!("path is outside the docs folder: {bad}"))),
                "{bad}"
            );
        }
        assert!(check_relative("ops/backups.md").is_ok());
        assert!(check_relative("./ops/backups.md").is_ok());
    }
}
