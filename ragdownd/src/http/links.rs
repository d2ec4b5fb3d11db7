//! Finding and following documents: `GET /api/search` (hybrid search of one folder, human-only
//! folders included), `GET /api/resolve` (a link to the path it points at), `GET /api/backlinks`
//! and `POST /api/move` (within one folder, links rewritten). Each runs the tools' own search,
//! resolution, backlink and move code over the folder's scope; paths in and out are root-relative.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::{ApiError, ApiQuery, ApiResult, JsonBody};
use super::{AppState, required};
use crate::tools::{self, MAX_TOP_K, RecallArgs, RecallFormat};

/// The query of `GET /api/search`.
#[derive(Debug, Deserialize)]
pub struct SearchQuery {
    pub folder: Option<String>,
    pub q: Option<String>,
    pub tag: Option<String>,
    pub top_k: Option<String>,
}

/// Hits `GET /api/search` returns without a `top_k`.
const DEFAULT_TOP_K: usize = 10;

fn round4(x: f32) -> f64 {
    (f64::from(x) * 10_000.0).round() / 10_000.0
}

/// `GET /api/search?folder=&q=&tag=&top_k=`: `{hits:[…]}` with root-relative paths, whole section
/// texts and similarities to 4 decimals; top_k 10 by default, at most 50.
pub async fn search(State(state): State<Arc<AppState>>, ApiQuery(query): ApiQuery<SearchQuery>) -> ApiResult {
    let folder = required(&query.folder, "folder")?;
    let q = required(&query.q, "q")?;
    let top_k = match query.top_k.as_deref().filter(|t| !t.is_empty()) {
        None => DEFAULT_TOP_K,
        Some(raw) => raw
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_TOP_K).contains(n))
            .ok_or_else(|| ApiError::bad_request(format!("top_k must be a whole number from 1 to {MAX_TOP_K}")))?,
    };
    let scope = state.folder_scope(folder)?;
    let args = RecallArgs {
        query: q.to_string(),
        top_k,
        path_prefix: None,
        tag: query.tag.clone().filter(|t| !t.trim().is_empty()),
        written_by: None,
        format: RecallFormat::Json,
        max_chars: None,
    };
    let hits = tools::find(&scope, &state.tools, &args).await?;
    let hits: Vec<Value> = hits
        .iter()
        .map(|hit| {
            let chunk = &hit.chunk;
            let mut value = json!({
                "path": chunk.path,
                "title": chunk.title,
                "heading": chunk.heading,
                "start_line": chunk.line_start,
                "end_line": chunk.line_end,
                "similarity": round4(chunk.similarity),
                "text": chunk.text,
                "tags": chunk.tags.split_whitespace().collect::<Vec<_>>(),
                "mtime_ms": chunk.mtime_ms,
            });
            if !chunk.created_by.is_empty() {
                value["created_by"] = json!(chunk.created_by);
            }
            value
        })
        .collect();
    Ok(Json(json!({ "hits": hits })).into_response())
}

/// The query of `GET /api/resolve`.
#[derive(Debug, Deserialize)]
pub struct ResolveQuery {
    pub from: Option<String>,
    pub link: Option<String>,
}

/// `GET /api/resolve?from=&link=`: `{path, anchor?}` for a link written in the document `from`,
/// attachments included; 404 when nothing matches.
pub async fn resolve(State(state): State<Arc<AppState>>, ApiQuery(query): ApiQuery<ResolveQuery>) -> ApiResult {
    let from = required(&query.from, "from")?;
    let link = required(&query.link, "link")?;
    let (scope, rel) = state.in_folder(from)?;
    let found = tools::read::resolve_link(&scope, &rel, link).await?;
    let Some((path, anchor)) = found else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no document or file matches {}", json!(link)),
        ));
    };
    let mut out = json!({ "path": scope.to_root_path(&path) });
    if let Some(anchor) = anchor {
        out["anchor"] = json!(anchor);
    }
    Ok(Json(out).into_response())
}

/// The query of `GET /api/backlinks`.
#[derive(Debug, Deserialize)]
pub struct BacklinksQuery {
    pub path: Option<String>,
}

/// `GET /api/backlinks?path=`: as `ragdown_backlinks` in the document's folder, with root-relative
/// paths.
pub async fn backlinks(State(state): State<Arc<AppState>>, ApiQuery(query): ApiQuery<BacklinksQuery>) -> ApiResult {
    let path = required(&query.path, "path")?;
    let (scope, rel) = state.in_folder(path)?;
    let mut found = tools::links_to(&scope, &rel).await?;
    if let Some(path) = found["path"].as_str() {
        found["path"] = json!(scope.to_root_path(path));
    }
    if let Some(list) = found["backlinks"].as_array_mut() {
        for entry in list {
            if let Some(path) = entry["path"].as_str() {
                entry["path"] = json!(scope.to_root_path(path));
            }
        }
    }
    Ok(Json(found).into_response())
}

/// The body of `POST /api/move`.
#[derive(Debug, Deserialize)]
pub struct MoveBody {
    pub from: Option<String>,
    pub to: Option<String>,
}

/// `POST /api/move {from, to}`: a document or subfolder within its folder, with every link to it
/// rewritten: `{from, to, updated, sync}`. Links do not cross folders, so neither does a move.
pub async fn move_doc(State(state): State<Arc<AppState>>, JsonBody(body): JsonBody<MoveBody>) -> ApiResult {
    state.writable()?;
    let from = required(&body.from, "from")?;
    let to = required(&body.to, "to")?;
    let (scope, from_rel) = state.in_folder(from)?;
    let (to_scope, to_rel) = state.in_folder(to)?;
    if to_scope.folder != scope.folder {
        return Err(ApiError::bad_request(
            "a move stays within its folder: links do not cross folders",
        ));
    }
    let moved = tools::move_doc::move_path(&scope, &from_rel, &to_rel).await?;
    let updated: Vec<String> = moved.updated.iter().map(|p| scope.to_root_path(p)).collect();
    Ok(Json(json!({
        "from": scope.to_root_path(&moved.from),
        "to": scope.to_root_path(&moved.to),
        "updated": updated,
        "sync": moved.sync,
    }))
    .into_response())
}
