//! Finding and following documents: `GET /api/search` (hybrid search of one folder, human-only
//! folders included), `GET /api/resolve` (a link to the path it points at), `GET /api/backlinks`
//! and `POST /api/move` (within one folder, links rewritten). Each runs the tools' own search,
//! resolution, backlink and move code over the folder's scope; paths in and out are root-relative.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::json;

use super::error::{ApiError, ApiQuery, ApiResult, JsonBody};
use super::schema::{
    Backlinks, BacklinksQuery, ErrorBody, MoveBody, Moved, ResolveQuery, Resolved, SearchHit, SearchHits, SearchQuery,
};
use super::{AppState, required};
use crate::access::Access;
use crate::tools::{self, MAX_TOP_K, RecallArgs, RecallFormat};

/// Hits `GET /api/search` returns without a `top_k`.
const DEFAULT_TOP_K: usize = 10;

fn round4(x: f32) -> f64 {
    (f64::from(x) * 10_000.0).round() / 10_000.0
}

/// `GET /api/search?folder=&q=&tag=&top_k=`: `{hits:[…]}` with root-relative paths, whole section
/// texts and similarities to 4 decimals; top_k 10 by default, more than 50 capped at 50.
#[utoipa::path(get, path = "/api/search", tag = "links", params(SearchQuery),
    responses((status = 200, body = SearchHits), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn search(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<SearchQuery>,
) -> ApiResult {
    let folder = required(&query.folder, "folder")?;
    let q = required(&query.q, "q")?;
    let top_k = match query.top_k.as_deref().filter(|t| !t.is_empty()) {
        None => DEFAULT_TOP_K,
        // Past the most is capped rather than refused; nothing or 0 is not a request.
        Some(raw) => raw
            .parse::<u64>()
            .ok()
            .filter(|n| *n >= 1)
            .map(|n| usize::try_from(n).unwrap_or(MAX_TOP_K).min(MAX_TOP_K))
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "top_k must be a whole number from 1 (at most {MAX_TOP_K} are returned)"
                ))
            })?,
    };
    let scope = state.folder_scope(&access, folder)?;
    let args = RecallArgs {
        query: q.to_string(),
        top_k,
        path_prefix: None,
        tag: query.tag.clone().filter(|t| !t.trim().is_empty()),
        written_by: None,
        format: RecallFormat::Json,
        max_chars: None,
    };
    let hits = tools::web_search(&scope, &state.tools, &args).await?;
    let hits = hits
        .iter()
        .map(|hit| {
            let chunk = &hit.chunk;
            SearchHit {
                path: chunk.path.clone(),
                title: chunk.title.clone(),
                heading: chunk.heading.clone(),
                start_line: chunk.line_start,
                end_line: chunk.line_end,
                similarity: round4(chunk.similarity),
                text: chunk.text.clone(),
                tags: chunk.tags.split_whitespace().map(str::to_string).collect(),
                mtime_ms: chunk.mtime_ms,
                created_by: (!chunk.created_by.is_empty()).then(|| chunk.created_by.clone()),
            }
        })
        .collect();
    Ok(Json(SearchHits { hits }).into_response())
}

/// `GET /api/resolve?from=&link=`: `{path, anchor?}` for a link written in the document `from`,
/// attachments included; 404 when nothing matches. A `from` outside every folder is a 400, as in
/// the original: links are resolved within a folder, so there is nothing to resolve against.
#[utoipa::path(get, path = "/api/resolve", tag = "links", params(ResolveQuery),
    responses((status = 200, body = Resolved), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn resolve(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<ResolveQuery>,
) -> ApiResult {
    let from = required(&query.from, "from")?;
    let link = required(&query.link, "link")?;
    let (scope, rel) = state.in_folder(&access, from)?;
    let found = tools::read::resolve_link(&scope, &rel, link).await?;
    let Some((path, anchor)) = found else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no document or file matches {}", json!(link)),
        ));
    };
    let path = scope.to_root_path(&path);
    let documents = scope.engine.store().document_map().await?;
    let title = documents.get(&path).map(|doc| doc.title.clone());
    Ok(Json(Resolved { path, anchor, title }).into_response())
}

/// `GET /api/backlinks?path=`: as `ragdown_backlinks` in the document's folder, with root-relative
/// paths.
#[utoipa::path(get, path = "/api/backlinks", tag = "links", params(BacklinksQuery),
    responses((status = 200, body = Backlinks), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn backlinks(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<BacklinksQuery>,
) -> ApiResult {
    let path = required(&query.path, "path")?;
    let (scope, rel) = state.existing_in_folder(&access, path)?;
    let found = tools::links_to(&scope, &rel).await?;
    let mut found: Backlinks =
        serde_json::from_value(found).map_err(|err| ApiError::internal(format!("backlinks: {err}")))?;
    found.path = scope.to_root_path(&found.path);
    for entry in &mut found.backlinks {
        entry.path = scope.to_root_path(&entry.path);
    }
    Ok(Json(found).into_response())
}

/// `POST /api/move {from, to}`: a document or subfolder within its folder, with every link to it
/// rewritten: `{from, to, updated, sync}`. Links do not cross folders, so neither does a move.
#[utoipa::path(post, path = "/api/move", tag = "links", request_body = MoveBody,
    responses((status = 200, body = Moved), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn move_doc(
    State(state): State<Arc<AppState>>,
    access: Access,
    JsonBody(body): JsonBody<MoveBody>,
) -> ApiResult {
    state.writable(&access)?;
    let from = required(&body.from, "from")?;
    let to = required(&body.to, "to")?;
    let (scope, from_rel) = state.in_folder(&access, from)?;
    let (to_scope, to_rel) = state.in_folder(&access, to)?;
    // The same prefix: the same folder, and for a token the same one of its paths, so both
    // paths are relative to one scope.
    if to_scope.prefix != scope.prefix {
        let message = match access.grant() {
            None => "a move stays within its folder: links do not cross folders",
            Some(_) => "a move stays within one folder this token opens: links do not cross folders",
        };
        return Err(ApiError::bad_request(message));
    }
    let moved = tools::move_doc::move_path(&scope, &from_rel, &to_rel).await?;
    let updated: Vec<String> = moved.updated.iter().map(|p| scope.to_root_path(p)).collect();
    Ok(Json(Moved {
        from: scope.to_root_path(&moved.from),
        to: scope.to_root_path(&moved.to),
        updated,
        sync: moved.sync.into(),
    })
    .into_response())
}
