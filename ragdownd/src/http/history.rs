//! The history over HTTP: a document's history, a folder's recent changes, one version's bytes,
//! undoing an entry, restoring a version, and undoing everything an agent session did.
//!
//! Paths are root-relative (`<folder>/<path>`), as everywhere in `/api`. Every write here goes
//! through [`crate::history`], which records it as a change of its own (undoable in turn), then
//! syncs the index. Nothing here formats text for agents.
//!
//! A scoped token sees the changes inside its folders only, each with only the steps inside them,
//! and only the versions those steps name; undoing is the owner's (the router keeps it so).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiQuery, ApiResult, JsonBody};
use super::schema::ErrorBody;
use super::{AppState, required};
use crate::access::Access;
use crate::documents::DocError;
use crate::history::{Conflict, Entry, Op, Resolve, SessionUndo, Undone, Who};

/// One entry as the web UI lists it.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntryView {
    /// Sorts by time.
    pub id: String,
    /// ISO-8601 UTC.
    pub at: String,
    pub who: Who,
    /// `write`, `append`, `edit`, `remember`, `move`, `delete`, `save`, `create-folder`,
    /// `rename-folder`, `delete-folder`, `restore` or `undo`.
    pub action: String,
    /// For an undo: the entry it undid.
    pub undoes: Option<String>,
    /// The entry that undid this one, when one did (and was not undone in turn).
    pub undone_by: Option<String>,
    /// The steps, in order; hashes name versions `GET /api/history/version` returns.
    pub ops: Vec<Op>,
}

/// `GET /api/history`: one document's entries, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct DocHistory {
    pub path: String,
    /// The hash of the file on disk now; `None` when there is none.
    pub current: Option<String>,
    pub entries: Vec<EntryView>,
}

/// `GET /api/history/changes`: recent changes, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct Changes {
    pub entries: Vec<EntryView>,
    /// Every agent session among the changes that matched the folder and path, newest first.
    pub sessions: Vec<String>,
}

/// `GET /api/history/version`: one stored version.
#[derive(Debug, Serialize, ToSchema)]
pub struct Version {
    pub hash: String,
    pub size: usize,
    /// The content, when it is UTF-8 text (a Markdown document); `None` for binary attachments.
    pub text: Option<String>,
}

/// `POST /api/history/undo`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UndoBody {
    /// The entry's id.
    pub entry: String,
    /// What to do with a file changed since the entry: `keep` (refuse, the default) or
    /// `overwrite` (what it holds now is recorded first, so this too can be undone).
    #[serde(default)]
    pub resolve: Resolve,
}

/// `POST /api/history/undo-session`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SessionBody {
    /// The agent session whose changes are undone, newest first.
    pub session: String,
}

/// `POST /api/history/restore`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RestoreBody {
    /// Root-relative.
    pub path: String,
    /// The version to put back (a whole hash from the document's history).
    pub hash: String,
    /// Only over this version of the file (what the page showed); without it, over anything.
    pub base_hash: Option<String>,
}

/// A version restored.
#[derive(Debug, Serialize, ToSchema)]
pub struct Restored {
    pub path: String,
    pub hash: String,
    /// The entry recording the restore; `None` when the file already held that version.
    pub entry: Option<String>,
}

/// 409 from an undo refused over changes made since.
#[derive(Debug, Serialize, ToSchema)]
pub struct UndoConflict {
    pub error: String,
    /// `conflict`.
    pub code: String,
    /// Each path changed since, and how.
    pub conflicts: Vec<Conflict>,
}

/// `GET /api/history?path=`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DocHistoryQuery {
    /// The document, root-relative.
    pub path: Option<String>,
}

/// The filters of the recent changes.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChangesQuery {
    /// Only changes under this root-relative path.
    pub path: Option<String>,
    /// Only this folder's.
    pub folder: Option<String>,
    /// Only this agent session's.
    pub session: Option<String>,
    /// Only this tool's (`ragdown_write`), or `web` for the web UI's.
    pub tool: Option<String>,
    /// At most this many, newest first [default 200].
    pub limit: Option<usize>,
}

/// `?hash=`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HashQuery {
    pub hash: Option<String>,
}

/// Runs blocking history work off the async threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, DocError> + Send + 'static) -> ApiResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| ApiError::internal(err.to_string()))?
        .map_err(ApiError::from)
}

/// Brings the index in line after a change, when it is open.
async fn sync(state: &AppState) {
    if let Some(engine) = state.engine()
        && let Err(err) = engine.sync(false).await
    {
        tracing::warn!(%err, "could not sync after an undo");
    }
}

/// Entries as listed: newest first, each with the undo that undid it.
fn views(all: &[Entry], keep: impl Fn(&Entry) -> bool) -> Vec<EntryView> {
    let mut undone_by = std::collections::HashMap::new();
    for entry in all {
        if let Some(undid) = &entry.undoes {
            undone_by.insert(undid.as_str(), entry.id.clone());
        }
    }
    // An undo that was undone in turn leaves its entry standing again.
    let standing = |id: &str| -> Option<String> {
        let by = undone_by.get(id)?;
        (!undone_by.contains_key(by.as_str())).then(|| by.clone())
    };
    all.iter()
        .rev()
        .filter(|entry| keep(entry))
        .map(|entry| EntryView {
            id: entry.id.clone(),
            at: entry.at.clone(),
            who: entry.who.clone(),
            action: entry.action.clone(),
            undoes: entry.undoes.clone(),
            undone_by: standing(&entry.id),
            ops: entry.ops.clone(),
        })
        .collect()
}

/// The root-relative paths whose changes `GET /api/history/changes` lists (`""`: all): for the
/// owner the path, else the folder (which must exist), else everything; for a token the same,
/// within its paths (403 outside them).
fn changes_under(
    state: &AppState,
    access: &Access,
    folder: Option<&str>,
    path: Option<String>,
) -> ApiResult<Vec<String>> {
    if let Some(name) = folder
        && crate::folders::get(&state.config.docs_dir, name).is_none()
        && access.is_admin()
    {
        return Err(ApiError::new(StatusCode::NOT_FOUND, format!("no such folder: {name}")));
    }
    let forbidden = || ApiError::new(StatusCode::FORBIDDEN, access.refusal());
    let Some(grant) = access.grant() else {
        return Ok(vec![path.or(folder.map(str::to_string)).unwrap_or_default()]);
    };
    match (path, folder) {
        (Some(path), _) if access.opens_path(&path) => Ok(vec![path]),
        (Some(_), _) => Err(forbidden()),
        (None, Some(name)) => {
            let inside = access.paths_in(name).unwrap_or_default();
            if inside.is_empty() {
                return Err(forbidden());
            }
            Ok(inside.iter().map(ToString::to_string).collect())
        }
        (None, None) => Ok(grant.paths.iter().map(ToString::to_string).collect()),
    }
}

/// Whether `access` may see the step `op`: every path it names lies inside what it opens.
fn sees(access: &Access, op: &Op) -> bool {
    op.paths().iter().all(|p| access.opens_path(p))
}

/// Whether `access` may read or restore the stored version `hash`: the owner any, a token only
/// those that steps inside its folders name (any other is as unknown to it as a hash never
/// stored), so no version of another folder's document reaches it.
fn may_see_version(access: &Access, history: &crate::history::History, hash: &str) -> bool {
    access.is_admin()
        || history
            .entries()
            .iter()
            .flat_map(|e| &e.ops)
            .any(|op| op.hashes().contains(&hash) && sees(access, op))
}

/// `entries` as `access` may see them: a token's with only the steps inside its folders.
fn visible(access: &Access, mut entries: Vec<EntryView>) -> Vec<EntryView> {
    if access.grant().is_some() {
        for entry in &mut entries {
            entry.ops.retain(|op| sees(access, op));
        }
    }
    entries
}

#[utoipa::path(get, path = "/api/history", tag = "history", params(DocHistoryQuery),
    responses((status = 200, body = DocHistory), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
pub async fn document(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<DocHistoryQuery>,
) -> ApiResult {
    let path = required(&query.path, "path")?
        .trim()
        .trim_matches('/')
        .replace('\\', "/");
    let history = state.history.clone();
    let (scope, rel) = state.in_folder(&access, &path)?;
    let abs = scope.paths().resolve(&rel, false)?;
    let shown = path.clone();
    let seen = access.clone();
    let (current, entries) = blocking(move || {
        let current = crate::documents::read_existing(&abs, &shown)?.map(|b| crate::documents::content_hash(&b));
        let all = history.entries();
        Ok((current, visible(&seen, views(&all, |e| e.touches(&shown, false)))))
    })
    .await?;
    Ok(Json(DocHistory { path, current, entries }).into_response())
}

#[utoipa::path(get, path = "/api/history/changes", tag = "history", params(ChangesQuery),
    responses((status = 200, body = Changes), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn changes(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<ChangesQuery>,
) -> ApiResult {
    let folder = query.folder.as_deref().map(str::trim).filter(|f| !f.is_empty());
    let path = query
        .path
        .as_deref()
        .map(|p| p.trim().trim_matches('/').replace('\\', "/"))
        .filter(|p| !p.is_empty());
    let unders = changes_under(&state, &access, folder, path)?;
    let history = state.history.clone();
    let limit = query.limit.unwrap_or(200);
    let (session, tool) = (query.session.clone(), query.tool.clone());
    let (entries, sessions) = blocking(move || {
        let all = history.entries();
        let mut sessions: Vec<String> = Vec::new();
        let touches = |e: &Entry| unders.iter().any(|under| e.touches(under, true));
        for entry in all.iter().rev().filter(|e| touches(e)) {
            if let Some(s) = &entry.who.session
                && !sessions.contains(s)
            {
                sessions.push(s.clone());
            }
        }
        let by_tool = |e: &Entry| match tool.as_deref() {
            None | Some("") => true,
            Some("web") => e.who.tool.is_none(),
            Some(name) => e.who.tool.as_deref() == Some(name),
        };
        let by_session = |e: &Entry| session.as_deref().is_none_or(|s| e.who.session.as_deref() == Some(s));
        let mut entries = visible(&access, views(&all, |e| touches(e) && by_tool(e) && by_session(e)));
        entries.truncate(limit);
        Ok((entries, sessions))
    })
    .await?;
    Ok(Json(Changes { entries, sessions }).into_response())
}

#[utoipa::path(get, path = "/api/history/version", tag = "history", params(HashQuery),
    responses((status = 200, body = Version), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn version(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<HashQuery>,
) -> ApiResult {
    let hash = required(&query.hash, "hash")?.trim().to_ascii_lowercase();
    let history = state.history.clone();
    let wanted = hash.clone();
    let bytes = blocking(move || {
        if !may_see_version(&access, &history, &wanted) {
            return Err(DocError::NotFound(format!("no stored version {wanted}")));
        }
        history.content(&wanted)
    })
    .await?;
    let size = bytes.len();
    let text = String::from_utf8(bytes).ok();
    Ok(Json(Version { hash, size, text }).into_response())
}

#[utoipa::path(post, path = "/api/history/undo", tag = "history", request_body = UndoBody,
    responses((status = 200, body = Undone), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = UndoConflict, description = "Changed since: nothing was undone; resolve: overwrite to undo anyway")))]
pub async fn undo(State(state): State<Arc<AppState>>, access: Access, JsonBody(body): JsonBody<UndoBody>) -> ApiResult {
    state.writable(&access)?;
    let history = state.history.clone();
    let resolve = body.resolve;
    let undone = blocking(move || history.undo(body.entry.trim(), Who::web(), resolve)).await?;
    if undone.entry.is_none() && !undone.conflicts.is_empty() {
        let paths: Vec<&str> = undone.conflicts.iter().map(|c| c.path.as_str()).collect();
        let body = UndoConflict {
            error: format!(
                "changed since this entry, so nothing was undone: {} (keep them, or undo with resolve: overwrite)",
                paths.join(", ")
            ),
            code: "conflict".into(),
            conflicts: undone.conflicts,
        };
        return Ok((StatusCode::CONFLICT, Json(body)).into_response());
    }
    sync(&state).await;
    Ok(Json(undone).into_response())
}

#[utoipa::path(post, path = "/api/history/undo-session", tag = "history", request_body = SessionBody,
    responses((status = 200, body = SessionUndo), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn undo_session(
    State(state): State<Arc<AppState>>,
    access: Access,
    JsonBody(body): JsonBody<SessionBody>,
) -> ApiResult {
    state.writable(&access)?;
    let session = body.session.trim().to_string();
    if session.is_empty() {
        return Err(ApiError::bad_request("session is required"));
    }
    let history = state.history.clone();
    let report = blocking(move || history.undo_session(&session, &Who::web())).await?;
    sync(&state).await;
    Ok(Json(report).into_response())
}

#[utoipa::path(post, path = "/api/history/restore", tag = "history", request_body = RestoreBody,
    responses((status = 200, body = Restored), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "`code: changed`: not the version shown")))]
pub async fn restore(
    State(state): State<Arc<AppState>>,
    access: Access,
    JsonBody(body): JsonBody<RestoreBody>,
) -> ApiResult {
    state.writable(&access)?;
    let (scope, rel) = state.in_folder(&access, &body.path)?;
    let abs = scope.paths().resolve(&rel, false)?;
    let path = scope.to_root_path(&crate::tools::write::shown(&rel));
    let history = state.history.clone();
    let hash = body.hash.trim().to_ascii_lowercase();
    let wanted = hash.clone();
    // The folder scope's who: the web UI's, naming the scoped token when one made the request.
    let who = scope.who.clone();
    let entry = blocking(move || {
        if !may_see_version(&access, &history, &wanted) {
            return Err(DocError::NotFound(format!("no stored version {wanted}")));
        }
        history.restore(&abs, &wanted, body.base_hash.as_deref(), who)
    })
    .await?;
    sync(&state).await;
    Ok(Json(Restored { path, hash, entry }).into_response())
}
