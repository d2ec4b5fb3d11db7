//! The client's side of OAuth: `POST /oauth/token` (an authorization code, with its PKCE
//! verifier, for tokens; a refresh token for new ones, rotated), `POST /oauth/register` (RFC 7591
//! dynamic registration, deprecated by the MCP spec but what many clients still use) and
//! `POST /oauth/revoke` (RFC 7009). Clients are public: no secret, PKCE instead. Each endpoint is
//! rate limited, and its answers are never cached.

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::{Limit, OAuthError, admit, no_store, resource_path};
use crate::access::oauth::flow::Redeem;
use crate::access::oauth::records::RefreshError;
use crate::access::oauth::{
    ACCESS_TTL_MS, Issued, check_grant_types, client_name, client_uri, level_of, pkce, redirect, scope_of,
};
use crate::access::store::now_ms;
use crate::http::AppState;

/// A token request's form.
#[derive(Debug, Default, Deserialize)]
pub struct TokenForm {
    grant_type: Option<String>,
    code: Option<String>,
    redirect_uri: Option<String>,
    client_id: Option<String>,
    code_verifier: Option<String>,
    refresh_token: Option<String>,
    resource: Option<String>,
    scope: Option<String>,
}

fn required<'a>(value: &'a Option<String>, name: &str) -> Result<&'a str, OAuthError> {
    value
        .as_deref()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| OAuthError::new("invalid_request", format!("{name} is required")))
}

/// Runs token-file work off the async threads; a task that died is a `server_error`.
async fn off_thread<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, OAuthError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| OAuthError::new("server_error", err.to_string()))
}

fn tokens(issued: Issued) -> Response {
    no_store(
        Json(json!({
            "access_token": issued.access_token,
            "token_type": "Bearer",
            "expires_in": ACCESS_TTL_MS / 1000,
            "refresh_token": issued.refresh_token,
            "scope": scope_of(issued.access),
        }))
        .into_response(),
    )
}

/// `POST /oauth/token`.
pub async fn token(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    form: Result<Form<TokenForm>, FormRejection>,
) -> Response {
    let base = match admit(&state, &headers, Some(Limit::Token)) {
        Ok(base) => base,
        Err(refused) => return refused.into_response(),
    };
    let Ok(Form(form)) = form else {
        return OAuthError::new("invalid_request", "send an application/x-www-form-urlencoded body").into_response();
    };
    let result = match form.grant_type.as_deref() {
        Some("authorization_code") => exchange(&state, &base, &form).await,
        Some("refresh_token") => refresh(&state, &base, &form).await,
        Some(other) => Err(OAuthError::new(
            "unsupported_grant_type",
            format!("grant_type {other:?}: use authorization_code or refresh_token"),
        )),
        None => Err(OAuthError::new("invalid_request", "grant_type is required")),
    };
    result.unwrap_or_else(IntoResponse::into_response)
}

/// An authorization code for a grant and its first tokens.
async fn exchange(state: &Arc<AppState>, base: &str, form: &TokenForm) -> Result<Response, OAuthError> {
    let text = required(&form.code, "code")?;
    let client_id = required(&form.client_id, "client_id")?;
    let redirect_uri = required(&form.redirect_uri, "redirect_uri")?;
    let verifier = required(&form.code_verifier, "code_verifier")?;
    let code = match state.oauth.flows.redeem(text, now_ms()) {
        Redeem::Fresh(code) => code,
        Redeem::Unknown => return Err(OAuthError::new("invalid_grant", "unknown or expired code")),
        Redeem::Again(grant) => {
            if let Some(grant) = grant {
                let store = state.access.clone();
                let _ = off_thread(move || store.revoke_grant(&grant)).await;
            }
            return Err(OAuthError::new(
                "invalid_grant",
                "this code was already used: the tokens it gave are revoked",
            ));
        }
    };
    if code.client_id != client_id {
        return Err(OAuthError::new(
            "invalid_grant",
            "this code was issued to another client",
        ));
    }
    if code.redirect_uri != redirect_uri {
        return Err(OAuthError::new(
            "invalid_grant",
            "redirect_uri is not the one the code was sent to",
        ));
    }
    if !pkce::verifies(verifier, &code.challenge) {
        return Err(OAuthError::new(
            "invalid_grant",
            "code_verifier does not match the code_challenge",
        ));
    }
    if let Some(resource) = form.resource.as_deref().filter(|r| !r.is_empty())
        && resource_path(base, resource).ok().as_ref() != Some(&code.grant.path)
    {
        return Err(OAuthError::new(
            "invalid_target",
            "resource is not the one this code was issued for",
        ));
    }
    let store = state.access.clone();
    let grant = code.grant.clone();
    let issued = off_thread(move || store.issue(grant, now_ms()))
        .await?
        .map_err(|err| OAuthError::new("server_error", err.to_string()))?;
    state.oauth.flows.redeemed(text, &issued.grant_id);
    tracing::info!(client = %code.grant.client_name, endpoint = %code.grant.path, "an OAuth client connected");
    Ok(tokens(issued))
}

/// A refresh token for new tokens; the refresh token is rotated.
async fn refresh(state: &Arc<AppState>, base: &str, form: &TokenForm) -> Result<Response, OAuthError> {
    let presented = required(&form.refresh_token, "refresh_token")?.to_string();
    let client_id = required(&form.client_id, "client_id")?.to_string();
    let access = match form.scope.as_deref().filter(|s| !s.is_empty()) {
        Some(scope) => Some(level_of(Some(scope)).map_err(|why| OAuthError::new("invalid_scope", why))?),
        None => None,
    };
    let resource = match form.resource.as_deref().filter(|r| !r.is_empty()) {
        Some(resource) => Some(resource_path(base, resource).map_err(|why| OAuthError::new("invalid_target", why))?),
        None => None,
    };
    let store = state.access.clone();
    let outcome =
        off_thread(move || store.refresh(&presented, &client_id, access, resource.as_ref(), now_ms())).await?;
    match outcome {
        Ok(issued) => Ok(tokens(issued)),
        Err(RefreshError::Store(err)) => Err(OAuthError::new("server_error", err.to_string())),
        Err(refused) => Err(OAuthError::new("invalid_grant", refused.to_string())),
    }
}

/// A registration request (RFC 7591 §2); other fields are ignored.
#[derive(Debug, Deserialize)]
pub struct Registration {
    #[serde(default)]
    redirect_uris: Vec<String>,
    client_name: Option<String>,
    client_uri: Option<String>,
    grant_types: Option<Vec<String>>,
    response_types: Option<Vec<String>>,
}

fn invalid_metadata(why: impl std::fmt::Display) -> OAuthError {
    OAuthError::new("invalid_client_metadata", why)
}

/// `POST /oauth/register`.
pub async fn register(State(state): State<Arc<AppState>>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    if let Err(refused) = admit(&state, &headers, Some(Limit::Register)) {
        return refused.into_response();
    }
    let registration: Registration = match serde_json::from_slice(&body) {
        Ok(registration) => registration,
        Err(err) => return invalid_metadata(format!("not a JSON registration: {err}")).into_response(),
    };
    match registered(&state, registration).await {
        Ok(response) => response,
        Err(refused) => refused.into_response(),
    }
}

async fn registered(state: &Arc<AppState>, r: Registration) -> Result<Response, OAuthError> {
    redirect::check_all(&r.redirect_uris).map_err(|why| OAuthError::new("invalid_redirect_uri", why))?;
    let grant_types = r
        .grant_types
        .unwrap_or_else(|| vec!["authorization_code".into(), "refresh_token".into()]);
    check_grant_types(&grant_types).map_err(invalid_metadata)?;
    if r.response_types.is_some_and(|types| types.iter().any(|t| t != "code")) {
        return Err(invalid_metadata("response_types may hold only code"));
    }
    let name = client_name(r.client_name.as_deref()).unwrap_or_else(|| "Unnamed app".into());
    let uri = client_uri(r.client_uri);
    let store = state.access.clone();
    let record = off_thread(move || store.register_client(name, uri, r.redirect_uris, now_ms()))
        .await?
        .map_err(|err| invalid_metadata(err.to_string()))?;
    let mut body = json!({
        "client_id": record.client_id,
        "client_id_issued_at": record.created_ms / 1000,
        "client_name": record.client_name,
        "redirect_uris": record.redirect_uris,
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    if let Some(uri) = record.client_uri {
        body["client_uri"] = json!(uri);
    }
    Ok(no_store((StatusCode::CREATED, Json(body)).into_response()))
}

/// A revocation request (RFC 7009).
#[derive(Debug, Deserialize)]
pub struct Revocation {
    token: Option<String>,
}

/// `POST /oauth/revoke`: ends the grant the token belongs to. 200 whether it was known or not
/// (RFC 7009 §2.2), so it tells nothing.
pub async fn revoke(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    form: Result<Form<Revocation>, FormRejection>,
) -> Response {
    if let Err(refused) = admit(&state, &headers, Some(Limit::Token)) {
        return refused.into_response();
    }
    let Some(token) = form.ok().and_then(|Form(r)| r.token).filter(|t| !t.is_empty()) else {
        return OAuthError::new("invalid_request", "token is required").into_response();
    };
    let store = state.access.clone();
    match off_thread(move || store.revoke_token(&token)).await {
        Ok(Ok(_)) => no_store(StatusCode::OK.into_response()),
        Ok(Err(err)) => OAuthError::new("server_error", err.to_string()).into_response(),
        Err(died) => died.into_response(),
    }
}
