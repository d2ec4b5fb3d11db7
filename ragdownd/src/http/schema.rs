//! The API's wire types: every body a route takes or answers, as Rust types. The handlers build
//! these rather than loose JSON, and [`super::openapi`] describes the API from them, so the web
//! UI's TypeScript types are generated from what the server really sends.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::index::sync::SyncReport;

/// An error: `{error}` or `{error, code}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: String,
    /// `changed`: the file is no longer the version the caller read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// What a sync did.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Sync {
    pub added: usize,
    pub updated: usize,
    pub removed: usize,
    pub unchanged: usize,
    /// Chunks written.
    pub chunks: usize,
    pub ms: u64,
}

impl From<SyncReport> for Sync {
    fn from(r: SyncReport) -> Self {
        Self {
            added: r.added,
            updated: r.updated,
            removed: r.removed,
            unchanged: r.unchanged,
            chunks: r.chunks,
            ms: r.ms,
        }
    }
}

/// A folder's own `ragdown_context` defaults, from its `.ragdown.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct FolderHook {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<u64>,
}

/// A folder.
#[derive(Debug, Serialize, ToSchema)]
pub struct FolderView {
    pub name: String,
    pub title: String,
    /// Whether `/mcp/<name>` serves it.
    pub mcp: bool,
    pub hook: FolderHook,
    /// `/mcp/<name>`, the name percent-encoded.
    pub mcp_path: String,
    /// Indexed documents.
    pub files: usize,
    pub chunks: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
}

/// `GET /api/folders`.
#[derive(Debug, Serialize, ToSchema)]
pub struct FolderList {
    pub folders: Vec<FolderView>,
    /// Markdown files directly in the docs dir: not indexed.
    pub loose_files: Vec<String>,
}

/// `POST /api/folders`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewFolder {
    pub name: String,
    pub title: Option<String>,
    pub mcp: Option<bool>,
}

/// `PATCH /api/folders/<name>`: each key given changes; a `null` in `hook` drops that value.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FolderChange {
    pub title: Option<String>,
    pub mcp: Option<bool>,
    #[schema(value_type = Option<FolderHook>)]
    pub hook: Option<serde_json::Map<String, serde_json::Value>>,
    /// A new name: the folder is renamed and the index re-synced.
    pub name: Option<String>,
}

/// One folder, as made or changed.
#[derive(Debug, Serialize, ToSchema)]
pub struct FolderAnswer {
    pub folder: FolderView,
    /// The sync a rename ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<Sync>,
}

/// A deletion of a folder.
#[derive(Debug, Serialize, ToSchema)]
pub struct FolderDeleted {
    pub name: String,
    pub sync: Option<Sync>,
}

/// `?confirm=` of a folder's deletion.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Confirm {
    /// The folder's name again.
    pub confirm: Option<String>,
}

/// `?name=` of a loose file.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LooseName {
    pub name: Option<String>,
}

/// A loose file deleted.
#[derive(Debug, Serialize, ToSchema)]
pub struct LooseDeleted {
    pub name: String,
}

/// `?folder=` of the document list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DocsQuery {
    /// Leave out for every folder.
    pub folder: Option<String>,
}

/// An indexed document.
#[derive(Debug, Serialize, ToSchema)]
pub struct DocInfo {
    /// Root-relative: `<folder>/<path>`.
    pub path: String,
    pub folder: String,
    pub title: String,
    pub mtime_ms: f64,
    pub size: f64,
    pub chunks: usize,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    /// The documents that replace this one.
    pub superseded_by: Vec<String>,
    /// The front matter's `description`; `null` when there is none (every key is sent, as the
    /// original does).
    pub description: Option<String>,
    /// The tool that wrote it, when an agent did; `null` for a person's document.
    pub created_by: Option<String>,
    /// The agent session that wrote it, when one did.
    pub session: Option<String>,
}

/// `GET /api/docs`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DocList {
    pub docs: Vec<DocInfo>,
}

/// `?path=` (and `&base_hash=` for a delete) of the one-document routes.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PathQuery {
    /// Root-relative: `<folder>/<path>`.
    pub path: Option<String>,
    /// Delete only this version.
    pub base_hash: Option<String>,
}

/// `GET /api/doc`: a document from disk.
#[derive(Debug, Serialize, ToSchema)]
pub struct Doc {
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
    pub total_lines: usize,
    pub text: String,
    /// SHA-256 of the bytes on disk, 64 hex characters: the `base_hash` of a save.
    pub hash: String,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    /// Whether the index holds it yet.
    pub indexed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<Vec<String>>,
    /// What `GET /api/docs` lists of it (modified, size, chunks, provenance); `null` until the
    /// index holds it.
    pub info: Option<DocInfo>,
    /// The titles of the documents `superseded_by` names, by root-relative path.
    pub titles: BTreeMap<String, String>,
}

/// `POST /api/doc`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SaveBody {
    #[schema(value_type = String)]
    pub path: Option<serde_json::Value>,
    #[schema(value_type = String)]
    pub text: Option<serde_json::Value>,
    /// Replace whatever is there ("save mine anyway").
    #[serde(default)]
    pub overwrite: bool,
    /// Replace only this version.
    pub base_hash: Option<String>,
}

/// A document saved.
#[derive(Debug, Serialize, ToSchema)]
pub struct Saved {
    pub path: String,
    pub created: bool,
    pub hash: String,
    pub sync: Sync,
}

/// A document deleted.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    pub path: String,
    pub sync: Sync,
}

/// `GET /api/search`'s query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    pub folder: Option<String>,
    pub q: Option<String>,
    /// A tag; its sub-tags match too.
    pub tag: Option<String>,
    /// From 1; 10 when left out, more than 50 capped at 50.
    pub top_k: Option<String>,
}

/// One search hit.
#[derive(Debug, Serialize, ToSchema)]
pub struct SearchHit {
    pub path: String,
    pub title: String,
    /// The section's breadcrumb, `Title › Heading`.
    pub heading: String,
    pub start_line: i32,
    pub end_line: i32,
    /// Cosine similarity, 4 decimals.
    pub similarity: f64,
    pub text: String,
    pub tags: Vec<String>,
    pub mtime_ms: f64,
    /// The tool that wrote the document, when an agent did; `null` for a person's document.
    pub created_by: Option<String>,
}

/// `GET /api/search`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SearchHits {
    pub hits: Vec<SearchHit>,
}

/// `GET /api/resolve`'s query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResolveQuery {
    /// The document the link is written in.
    pub from: Option<String>,
    /// The link: `Note`, `Note#Heading`, `diagram.png`, `../ops/a.md`.
    pub link: Option<String>,
}

/// Where a link points.
#[derive(Debug, Serialize, ToSchema)]
pub struct Resolved {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// The document's title, when the index holds it (none for an attachment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// `GET /api/backlinks`' query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BacklinksQuery {
    pub path: Option<String>,
}

/// A linking line.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LinkLine {
    pub line: usize,
    pub text: String,
}

/// A document that links to the one asked about.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Backlink {
    pub path: String,
    pub title: String,
    pub lines: Vec<LinkLine>,
}

/// `GET /api/backlinks`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Backlinks {
    pub path: String,
    pub backlinks: Vec<Backlink>,
}

/// `POST /api/move`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct MoveBody {
    pub from: Option<String>,
    pub to: Option<String>,
}

/// A move done.
#[derive(Debug, Serialize, ToSchema)]
pub struct Moved {
    pub from: String,
    pub to: String,
    /// The documents whose links were rewritten.
    pub updated: Vec<String>,
    pub sync: Sync,
}

/// `ragdown_context`'s settings, as `/api/status` shows them.
#[derive(Debug, Serialize, ToSchema)]
pub struct HookView {
    pub top_k: usize,
    /// `null` in `env` when it follows the embedder.
    pub min_score: Option<f64>,
    pub min_ratio: Option<f64>,
    pub max_chars: usize,
    /// The best score an unrelated prompt reached with the loaded embedder; `null` when not
    /// measured (and in `env`).
    pub unrelated_score: Option<f64>,
}

/// One full set of the server's layered settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct ValuesView {
    pub embedder: Option<String>,
    pub watch: bool,
    pub root_mcp: bool,
    pub text_limit: usize,
    pub max_per_document: usize,
    pub follow_links: usize,
    pub query_log: bool,
    pub hook: HookView,
}

/// What `.ragdown-server.json` sets.
#[derive(Debug, Serialize, ToSchema)]
pub struct SavedView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedder: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_mcp: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_limit: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_per_document: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow_links: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_log: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook: Option<FolderHook>,
}

/// A known embedder's hook floor and what unrelated prompts reached with it.
#[derive(Debug, Serialize, ToSchema)]
pub struct EmbedderFloors {
    pub min_score: f64,
    pub unrelated_score: Option<f64>,
}

/// The settings in effect, with what is saved and what the environment says.
#[derive(Debug, Serialize, ToSchema)]
pub struct SettingsView {
    #[serde(flatten)]
    pub effective: ValuesView,
    pub saved: SavedView,
    pub env: ValuesView,
    /// Why `.ragdown-server.json` is ignored, when it is.
    pub saved_error: Option<String>,
    /// Folders whose `.ragdown.json` cannot be read, with why: they run with the defaults
    /// (titled by name, MCP off) until it is fixed.
    pub folder_errors: BTreeMap<String, String>,
    pub embedders: BTreeMap<String, EmbedderFloors>,
}

/// `PATCH /api/settings`: any of these; `null` reverts one to its variable.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SettingsPatch {
    pub embedder: Option<String>,
    pub watch: Option<bool>,
    pub root_mcp: Option<bool>,
    pub text_limit: Option<u64>,
    pub max_per_document: Option<u64>,
    pub follow_links: Option<u64>,
    pub query_log: Option<bool>,
    pub hook: Option<FolderHook>,
}

/// `PATCH /api/settings`' answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct SettingsAnswer {
    pub settings: SettingsView,
}

/// Folders with a real share of Chinese, Japanese or Korean, read by an English-only model; the
/// web UI shows it with the setting that fixes it.
#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageNotice {
    /// Each such folder, with the CJK share of its letters (0 to 1).
    pub folders: Vec<FolderLanguage>,
    /// The embedder in use, e.g. `all-MiniLM-L6-v2-q8`.
    pub embedder: String,
    /// The one setting that fixes it: `RAGDOWN_EMBEDDER=multilingual-e5-small`.
    pub setting: String,
    /// The notice as one sentence (the same the log says at start).
    pub message: String,
}

/// One folder of a [`LanguageNotice`].
#[derive(Debug, Serialize, ToSchema)]
pub struct FolderLanguage {
    pub folder: String,
    /// The share of the folder's letters that are Chinese, Japanese or Korean, two decimals.
    pub cjk_share: f64,
}

/// The first index's (or the running sync's) progress.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProgressView {
    pub running: bool,
    pub files_total: usize,
    pub files_done: usize,
    pub chunks_done: usize,
}

/// The last sync, with when it ended.
#[derive(Debug, Serialize, ToSchema)]
pub struct LastSyncView {
    #[serde(flatten)]
    pub sync: Sync,
    /// ISO-8601 UTC.
    pub at: String,
}

/// `GET /api/status`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Status {
    /// `ragdown`.
    pub name: String,
    pub version: String,
    /// Whether the index is open (the model loaded).
    pub ready: bool,
    pub auth_required: bool,
    pub read_only: bool,
    /// Why the index could not be opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The index's embedder, e.g. `all-MiniLM-L6-v2-q8`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedder: Option<String>,
    /// `primary` (indexes) or `reader` (another process does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watching: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs_dir: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syncing: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<ProgressView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sync: Option<LastSyncView>,
    /// Present when a folder is notably Chinese, Japanese or Korean and the embedder reads English
    /// only (a survey of the notes at start, redone every five minutes when asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language_notice: Option<LanguageNotice>,
    pub settings: SettingsView,
}
