//! The owner's side of OAuth, behind `require_owner`: the consent page's request and answer
//! (`GET`/`POST /api/oauth/requests/<id>`), and the grants under Settings → Access
//! (`GET /api/access/grants`, `DELETE /api/access/grants/<id>`).
//!
//! An answer needs the request's CSRF secret, which only the owner's signed-in page reads with the
//! request: a page elsewhere that gets the owner's browser to post an answer (the request id is in
//! a URL the client itself chose to open) has no secret, and nothing changes.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, ApiResult, JsonBody};
use super::oauth::authorize::back_to_client;
use super::oauth::base_url;
use super::schema::ErrorBody;
use super::tokens::blocking;
use crate::access::Level;
use crate::access::oauth::flow::{Answer, ClientKind, Code, Pending};
use crate::access::oauth::redirect;
use crate::access::paths::check_exists;
use crate::access::store::now_ms;

/// The client, as the consent page shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClientView {
    pub id: String,
    pub name: String,
    pub uri: Option<String>,
    pub kind: ClientKind,
    pub redirect_uri: String,
    /// The host the approval goes back to (the spec asks that it be shown plainly).
    pub redirect_host: String,
    /// Whether the client only ever returns to this computer (the page warns then).
    pub localhost_only: bool,
}

/// `GET /api/oauth/requests/<id>`.
#[derive(Debug, Serialize, ToSchema)]
pub struct RequestView {
    pub id: String,
    pub client: ClientView,
    pub resource: String,
    /// The MCP endpoint asked for (`notes`, `notes/projects`).
    pub path: String,
    pub access: Level,
    /// Whether the endpoint is a folder (or subfolder) with MCP on; `false` with `problem` saying why.
    pub available: bool,
    pub problem: Option<String>,
    /// To send back with the answer.
    pub csrf: String,
    pub expires_ms: u64,
}

/// Whether the endpoint asked for is there with MCP on.
fn problem(state: &AppState, pending: &Pending) -> Option<String> {
    let path = &pending.grant.path;
    let mcp = crate::folders::get(&state.config.docs_dir, path.folder()).is_some_and(|f| f.mcp);
    if !mcp {
        return Some(format!("There is no folder {:?} with MCP turned on.", path.folder()));
    }
    check_exists(&state.config.docs_dir, path)
        .err()
        .map(|why| why.to_string())
}

fn view(state: &AppState, pending: Pending) -> RequestView {
    let problem = problem(state, &pending);
    RequestView {
        id: pending.id.clone(),
        client: ClientView {
            redirect_host: redirect::shown_host(&pending.redirect_uri),
            localhost_only: redirect::localhost_only(&pending.client.redirect_uris),
            id: pending.client.id,
            name: pending.client.name,
            uri: pending.client.uri,
            kind: pending.client.kind,
            redirect_uri: pending.redirect_uri,
        },
        resource: pending.grant.resource,
        path: pending.grant.path.to_string(),
        access: pending.grant.access,
        available: problem.is_none(),
        problem,
        csrf: pending.csrf,
        expires_ms: pending.expires_ms,
    }
}

fn expired() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "This request has expired or was already answered; start connecting again from the app",
    )
}

/// A pending authorization request, as the consent page shows it, with its CSRF secret.
#[utoipa::path(get, path = "/api/oauth/requests/{id}", tag = "access",
    params(("id" = String, Path, description = "The request's id, from the consent page's URL")),
    responses((status = 200, body = RequestView), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "Expired, answered, or never made")))]
pub async fn request(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> ApiResult<Json<RequestView>> {
    let pending = state.oauth.flows.get(&id, now_ms()).ok_or_else(expired)?;
    Ok(Json(view(&state, pending)))
}

/// What the owner pressed.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Deny,
}

/// `POST /api/oauth/requests/<id>`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AnswerBody {
    pub decision: Decision,
    /// The request's CSRF secret, from the `GET`.
    #[serde(default)]
    pub csrf: String,
    /// Narrows a read+write request to read; never widens.
    pub access: Option<Level>,
}

/// Where the browser goes now.
#[derive(Debug, Serialize, ToSchema)]
pub struct Redirect {
    pub redirect: String,
}

/// The owner's answer: Allow (a code goes back to the client) or Deny.
#[utoipa::path(post, path = "/api/oauth/requests/{id}", tag = "access", request_body = AnswerBody,
    params(("id" = String, Path, description = "The request's id")),
    responses((status = 200, body = Redirect), (status = 400, body = ErrorBody, description = "A read request widened, or the folder asked for is gone"),
        (status = 401, body = ErrorBody), (status = 403, body = ErrorBody, description = "No valid CSRF secret: nothing changed"),
        (status = 404, body = ErrorBody, description = "Expired, answered, or never made")))]
pub async fn answer(
    State(state): State<Arc<AppState>>,
    headers: axum::http::HeaderMap,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<AnswerBody>,
) -> ApiResult<Json<Redirect>> {
    let now = now_ms();
    let issuer = base_url(&state, &headers).ok_or_else(|| ApiError::bad_request("this host may not be used"))?;
    let waiting = state.oauth.flows.get(&id, now).ok_or_else(expired)?;
    if body.decision == Decision::Allow {
        if body.access == Some(Level::Write) && waiting.grant.access == Level::Read {
            return Err(ApiError::bad_request(
                "the app asked to read only; it cannot be given more",
            ));
        }
        if let Some(why) = problem(&state, &waiting) {
            return Err(ApiError::bad_request(why));
        }
    }
    let pending = state
        .oauth
        .flows
        .answer(&id, &body.csrf, now)
        .map_err(|why| match why {
            Answer::Unknown => expired(),
            Answer::Forged => ApiError::new(
                StatusCode::FORBIDDEN,
                "Forbidden: this answer did not come from the consent page (no valid CSRF token); nothing was changed",
            ),
        })?;
    let state_param = pending.state.as_deref();
    if body.decision == Decision::Deny {
        tracing::info!(client = %pending.client.name, "the owner denied an OAuth client");
        let params = [
            ("error", "access_denied"),
            ("error_description", "The owner denied access"),
        ];
        return Ok(Json(Redirect {
            redirect: back_to_client(&pending.redirect_uri, &params, state_param, &issuer),
        }));
    }
    let mut grant = pending.grant.clone();
    grant.access = body.access.unwrap_or(grant.access);
    let code = Code {
        client_id: pending.client.id.clone(),
        redirect_uri: pending.redirect_uri.clone(),
        challenge: pending.challenge.clone(),
        grant,
        expires_ms: 0,
        redeemed: None,
    };
    let text = state
        .oauth
        .flows
        .add_code(code, now)
        .map_err(|err| ApiError::internal(format!("no random bytes: {err}")))?;
    Ok(Json(Redirect {
        redirect: back_to_client(&pending.redirect_uri, &[("code", &text)], state_param, &issuer),
    }))
}

/// A grant as Settings → Access lists it: never a token.
#[derive(Debug, Serialize, ToSchema)]
pub struct GrantView {
    pub id: String,
    pub client_id: String,
    pub client_name: String,
    pub resource: String,
    pub path: String,
    pub access: Level,
    pub created_ms: u64,
    pub last_used_ms: Option<u64>,
    /// When its refresh token runs out unused.
    pub expires_ms: Option<u64>,
}

/// The apps connected with OAuth, oldest first, never their tokens.
#[utoipa::path(get, path = "/api/access/grants", tag = "access",
    responses((status = 200, body = Vec<GrantView>), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "The token file cannot be read")))]
pub async fn grants(State(state): State<Arc<AppState>>) -> ApiResult<Json<Vec<GrantView>>> {
    let store = state.access.clone();
    let grants = blocking(move || store.grants(now_ms())).await?;
    Ok(Json(
        grants
            .into_iter()
            .map(|g| GrantView {
                expires_ms: g.expires_ms(),
                id: g.id,
                client_id: g.client_id,
                client_name: g.client_name,
                resource: g.resource,
                path: g.path.to_string(),
                access: g.access,
                created_ms: g.created_ms,
                last_used_ms: g.last_used_ms,
            })
            .collect(),
    ))
}

/// `DELETE /api/access/grants/<id>`.
#[derive(Debug, Serialize, ToSchema)]
pub struct RevokedGrant {
    pub revoked: String,
}

/// Revokes an app's grant: its access and refresh tokens stop working at once.
#[utoipa::path(delete, path = "/api/access/grants/{id}", tag = "access",
    params(("id" = String, Path, description = "The grant's id")),
    responses((status = 200, body = RevokedGrant), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn revoke(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> ApiResult<Json<RevokedGrant>> {
    let store = state.access.clone();
    let grant = blocking(move || store.revoke_grant(&id))
        .await
        .map_err(|err| match err.status {
            StatusCode::NOT_FOUND => ApiError::new(StatusCode::NOT_FOUND, "No such grant: it was revoked already"),
            _ => err,
        })?;
    Ok(Json(RevokedGrant { revoked: grant.id }))
}
