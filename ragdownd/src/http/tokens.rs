//! Settings → Access: `GET/POST /api/access/tokens` and `DELETE /api/access/tokens/<id>`, the
//! owner's alone (the router puts them behind `require_owner`).
//!
//! A token's secret is in the answer that makes it and nowhere else: not in the list, not in a
//! log, not on disk (the file holds its hash, see [`crate::access::store`]).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, ApiResult, JsonBody};
use super::schema::ErrorBody;
use crate::access::store::now_ms;
use crate::access::{FolderPath, Level, NewToken, StoreError, TokenRecord};

/// A token as listed: never its secret.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenView {
    pub id: String,
    pub name: String,
    /// The folders and subfolders it opens (`notes`, `notes/projects`).
    pub scope: Vec<String>,
    pub access: Level,
    /// ms since the epoch.
    pub created_ms: u64,
    /// When it stops working, ms since the epoch; `None`: never.
    pub expires_ms: Option<u64>,
    /// When it was last used, ms since the epoch (to the minute); `None`: never.
    pub last_used_ms: Option<u64>,
    /// Whether it has expired (it is refused; revoke it to tidy the list).
    pub expired: bool,
}

impl TokenView {
    fn of(record: &TokenRecord, now: u64) -> Self {
        Self {
            id: record.id.clone(),
            name: record.name.clone(),
            scope: record.scope.iter().map(ToString::to_string).collect(),
            access: record.access,
            created_ms: record.created_ms,
            expires_ms: record.expires_ms,
            last_used_ms: record.last_used_ms,
            expired: record.expired(now),
        }
    }
}

/// `GET /api/access/tokens`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenList {
    /// Oldest first.
    pub tokens: Vec<TokenView>,
    /// Where the server keeps them (`RAGDOWN_ACCESS_FILE`).
    pub file: String,
}

/// `POST /api/access/tokens`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct NewTokenBody {
    /// What to call it (`coding agent`): 1 to 100 characters.
    pub name: String,
    /// The folders or subfolders it opens, each `folder` or `folder/sub/dir`; each must exist.
    pub scope: Vec<String>,
    /// `read`: search and read only. `write`: read and write.
    pub access: Level,
    /// When it stops working, ms since the epoch (in the future); leave out for never.
    pub expires_ms: Option<u64>,
}

/// 201 from `POST /api/access/tokens`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedToken {
    pub token: TokenView,
    /// The token itself (`rdt_…`), shown this once: the server keeps only its hash.
    pub secret: String,
}

/// `DELETE /api/access/tokens/<id>`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Revoked {
    pub id: String,
    pub name: String,
}

/// Runs token-file work off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| ApiError::internal(err.to_string()))?
        .map_err(ApiError::from)
}

/// Every scoped token, without secrets.
#[utoipa::path(get, path = "/api/access/tokens", tag = "access",
    responses((status = 200, body = TokenList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "The token file cannot be read")))]
pub async fn list(State(state): State<Arc<AppState>>) -> ApiResult {
    let store = state.access.clone();
    let tokens = blocking(move || store.list()).await?;
    let now = now_ms();
    Ok(Json(TokenList {
        tokens: tokens.iter().map(|t| TokenView::of(t, now)).collect(),
        file: state.access.path().display().to_string(),
    })
    .into_response())
}

/// Makes a token: 201 with its secret, shown this once.
#[utoipa::path(post, path = "/api/access/tokens", tag = "access", request_body = NewTokenBody,
    responses((status = 201, body = CreatedToken), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody), (status = 409, body = ErrorBody, description = "The token file cannot be read")))]
pub async fn create(State(state): State<Arc<AppState>>, JsonBody(body): JsonBody<NewTokenBody>) -> ApiResult {
    let docs_dir = &state.config.docs_dir;
    let mut scope = Vec::new();
    for text in &body.scope {
        let path = FolderPath::parse(text).map_err(|why| ApiError::bad_request(why.to_string()))?;
        crate::access::paths::check_exists(docs_dir, &path).map_err(|why| ApiError::bad_request(why.to_string()))?;
        scope.push(path);
    }
    let new = NewToken {
        name: body.name,
        scope,
        access: body.access,
        expires_ms: body.expires_ms,
    };
    let store = state.access.clone();
    let now = now_ms();
    let (record, secret) = blocking(move || store.create(new, now)).await?;
    tracing::info!(id = %record.id, name = %record.name, "scoped token made");
    let body = CreatedToken {
        token: TokenView::of(&record, now),
        secret: secret.expose().to_string(),
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// Revokes a token: refused from the next request on.
#[utoipa::path(delete, path = "/api/access/tokens/{id}", tag = "access",
    params(("id" = String, Path, description = "The token's id")),
    responses((status = 200, body = Revoked), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn revoke(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> ApiResult {
    let store = state.access.clone();
    let gone = blocking(move || store.revoke(&id)).await?;
    tracing::info!(id = %gone.id, name = %gone.name, "scoped token revoked");
    Ok(Json(Revoked {
        id: gone.id,
        name: gone.name,
    })
    .into_response())
}
