//! The MCP routes: `/mcp/<folder>[/<subfolder...>]`, each a stateless streamable-HTTP MCP server
//! over one folder with MCP on, and with `RAGDOWN_ROOT_MCP` the bare `/mcp` over all of them.
//! Any other folder, a missing one, or a bad subfolder gets the same 404, so a human-only folder
//! cannot be told from a missing one. A scoped token asking outside its folders gets a 403 before
//! any of that is looked at (the access decision is [`super::auth`]'s), so it learns nothing of
//! what exists either.
//!
//! Without a token, or with one refused, the answer is a 401 whose `WWW-Authenticate` starts
//! OAuth when it is on ([`super::oauth::challenge`]).
//!
//! Stateless means no sessions: change notifications reach HTTP clients through the 2026-07-28
//! `subscriptions/listen`, one POST whose SSE answer stays open until the client closes it or the
//! server shuts down ([`crate::mcp`]); the 2025-11-25 GET stream, which needs a session, is not
//! offered (the capabilities `initialize` answers with say so).

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tower::ServiceExt;

use super::AppState;
use super::auth::{allowed_hosts, decide};
use super::error::{ApiError, MAX_BODY_BYTES, after_body, read_body};
use super::oauth::challenge;
use crate::access::FolderPath;
use crate::engine::Scope;
use crate::folders;
use crate::mcp::RagdownServer;

/// The 404 for a folder that is missing, human-only, or a bad subfolder: one answer for all, so
/// a human-only folder cannot be told from a missing one.
const NO_FOLDER: &str = "Not found: no folder with MCP turned on at this path";

/// A refusal decided before the body is read, answered after it ([`after_body`]); boxed, as a
/// response is large beside the server an `Ok` carries.
type Refused = Box<Response>;

fn refuse(refusal: impl IntoResponse) -> Refused {
    Box::new(refusal.into_response())
}

/// The bare `/mcp`: every MCP folder as one server with `RAGDOWN_ROOT_MCP` (read afresh, so
/// Settings → Server turns it on and off at once), else a 404 that says what to do.
pub async fn bare(State(state): State<Arc<AppState>>, request: Request) -> Response {
    match root_server(&state, request.headers()) {
        Ok(server) => serve_server(&state, server, request).await,
        Err(refused) => after_body(request.into_body(), *refused).await,
    }
}

/// The root's server for a request with `headers`, or the refusal.
fn root_server(state: &AppState, headers: &HeaderMap) -> Result<RagdownServer, Refused> {
    let access = decide(state, headers).map_err(refuse)?;
    // The root spans every folder: the owner's alone; a token is pointed at its own endpoints,
    // and an OAuth token, issued for one endpoint, is not one for this resource (401).
    if access.is_oauth() {
        return Err(refuse(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: an OAuth access token opens only the MCP endpoint it was issued for",
        )));
    }
    if !access.is_admin() {
        return Err(refuse(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("{}: use /mcp/<folder>", access.refusal()),
        )));
    }
    if !state.tools.current().root_mcp {
        return Err(refuse(ApiError::new(
            StatusCode::NOT_FOUND,
            "Pick a folder: /mcp/<folder>",
        )));
    }
    let engine = state.engine().ok_or_else(|| refuse(ApiError::loading()))?;
    Ok(RagdownServer::root(engine, state.tools.clone(), state.filter.clone()))
}

/// `/mcp/<folder>`.
pub async fn folder(State(state): State<Arc<AppState>>, Path(folder): Path<String>, request: Request) -> Response {
    serve_mcp(state, folder, String::new(), request).await
}

/// `/mcp/<folder>/<subfolder...>`.
pub async fn subfolder(
    State(state): State<Arc<AppState>>,
    Path((folder, rest)): Path<(String, String)>,
    request: Request,
) -> Response {
    serve_mcp(state, folder, rest, request).await
}

async fn serve_mcp(state: Arc<AppState>, folder: String, rest: String, request: Request) -> Response {
    match folder_server(&state, &folder, &rest, request.headers()) {
        Ok(server) => serve_server(&state, server, request).await,
        Err(refused) => after_body(request.into_body(), *refused).await,
    }
}

/// The server of `/mcp/<folder>/<rest>` for a request with `headers`, or the refusal.
fn folder_server(state: &AppState, folder: &str, rest: &str, headers: &HeaderMap) -> Result<RagdownServer, Refused> {
    let endpoint = FolderPath::parse(&format!("{folder}/{rest}")).ok();
    let access =
        decide(state, headers).map_err(|refused| refuse(challenge(state, headers, endpoint.clone(), refused)))?;
    // Decided from the path alone, before looking at the disk: the same 403 whether the folder
    // is there or not, so a token learns nothing of folders outside it. An OAuth token elsewhere
    // than its endpoint is a token not issued for this resource: 401 with the challenge, so the
    // client can ask for this one (RFC 6750 §3.1, RFC 8707).
    if !access.opens_endpoint(folder, rest) {
        if let Some(resource) = access.grant().and_then(|grant| grant.resource.as_ref()) {
            let refused = ApiError::new(
                StatusCode::UNAUTHORIZED,
                format!("Unauthorized: this token was issued for the endpoint /mcp/{resource} only"),
            );
            return Err(refuse(challenge(state, headers, endpoint, refused)));
        }
        return Err(refuse(ApiError::new(StatusCode::FORBIDDEN, access.refusal())));
    }
    let not_found = || refuse(ApiError::new(StatusCode::NOT_FOUND, NO_FOLDER));
    let docs_dir = &state.config.docs_dir;
    let found = folders::get(docs_dir, folder).filter(|f| f.mcp).ok_or_else(not_found)?;
    let sub = rest.trim_matches('/');
    // Through the one path check: every segment a real folder, none a symlink, dot or `..`.
    let real_subfolder = || {
        sub.split('/').all(|s| !s.is_empty() && s != ".")
            && crate::documents::Root::new(docs_dir, folder)
                .join(sub)
                .is_ok_and(|root| root.exists_as_dir())
    };
    if !sub.is_empty() && !real_subfolder() {
        return Err(not_found());
    }
    let engine = state.engine().ok_or_else(|| refuse(ApiError::loading()))?;
    let scope = Scope::folder(engine, &found, sub);
    let (tools, filter) = state.tools_for(&access);
    Ok(RagdownServer::new(scope, tools, filter).with_token(access.token_name()))
}

/// A POST's body read and checked before the MCP service sees it: past [`MAX_BODY_BYTES`] a 413;
/// not JSON, a JSON-RPC parse error (-32700); JSON that is no JSON-RPC message, an invalid request
/// (-32600), both with status 400 as the MCP SDKs answer them. The MCP service alone would answer
/// either with a 415 and plain text, which clients cannot read as an error. Anything else goes on
/// with the same bytes.
async fn checked_json_rpc(request: Request) -> Result<Request, Response> {
    if request.method() != axum::http::Method::POST {
        return Ok(request);
    }
    let (parts, body) = request.into_parts();
    let bytes = read_body(body, MAX_BODY_BYTES)
        .await
        .map_err(IntoResponse::into_response)?;
    let json_rpc_error = |code: i64, message: String, id: serde_json::Value| {
        let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
        (StatusCode::BAD_REQUEST, Json(body)).into_response()
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(err) => {
            return Err(json_rpc_error(
                -32700,
                format!("Parse error: {err}"),
                serde_json::Value::Null,
            ));
        }
    };
    if let Err(err) = serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value.clone()) {
        let id = value.get("id").cloned().unwrap_or(serde_json::Value::Null);
        return Err(json_rpc_error(-32600, format!("Invalid Request: {err}"), id));
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// Answers one streamable-HTTP MCP request with `server`.
async fn serve_server(state: &AppState, server: RagdownServer, request: Request) -> Response {
    // A client that keeps a session id sends it; the history records its writes under it.
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.is_empty())
        .map(str::to_owned);
    let server = match session {
        Some(session) => server.with_session(session),
        None => server,
    };
    let server = server.with_closing(state.closing.clone());
    let hosts = allowed_hosts(&state.config.allowed_hosts);
    // Browsers may call only from these hosts' own pages (DNS-rebinding and cross-site protection);
    // MCP clients send no Origin and are not affected.
    let origins: Vec<String> = hosts
        .iter()
        .flat_map(|host| {
            let host = if host.contains(':') && !host.starts_with('[') {
                format!("[{host}]")
            } else {
                host.clone()
            };
            [format!("http://{host}:*"), format!("https://{host}:*")]
        })
        .collect();
    let mut config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts);
    config.allowed_origins = origins;
    config.max_request_body_bytes = MAX_BODY_BYTES;
    // Stateless, plain JSON answers: each request carries everything it needs. A
    // `subscriptions/listen` (2026-07-28) is answered with an SSE stream that stays open (rmcp
    // falls back to SSE when a notification comes before the result, as its acknowledgment
    // does); the 2025-11-25 GET stream would need sessions, which this server does not keep
    // (docs/tools.md says why).
    config.legacy_session_mode = false;
    config.json_response = true;
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let request = match checked_json_rpc(request).await {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    match service.oneshot(request).await {
        Ok(response) if response.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "Body too large").into_response()
        }
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    }
}
