//! `serve`'s HTTP surface: `/api/status`, `/api/folders`, `/mcp/<folder>[/<subfolder...>]` and,
//! with `RAGDOWN_ROOT_MCP`, the root `/mcp` over every MCP folder.
//!
//! The server starts answering at once; the index (and the embedding model behind it) loads in
//! the background and `/api/status` says `ready: false` until it has. MCP routes need the bearer
//! token unless `SECURE_LOCAL_NET` is on, and serve only folders whose `.ragdown.json` has
//! `"mcp": true` (any other folder gets the same 404 as a missing one).
//!
//! Connections are served by hyper directly rather than `axum::serve`, so that an idle keep-alive
//! connection is closed after `HTTP_KEEP_ALIVE_TIMEOUT_MS` (axum's own loop has no such setting).

use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tower::ServiceExt;

use crate::engine::{Engine, Scope};
use crate::folders;
use crate::mcp::{RagdownServer, ToolFilter};
use crate::tools::ToolSettings;

/// The largest request body `/mcp` accepts, as the original: 1 MiB.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Shared state of the HTTP server.
#[derive(Debug)]
pub struct AppState {
    /// Set once the index is open.
    pub engine: OnceLock<Arc<Engine>>,
    /// The docs dir (folders are read from it on every request, so new ones appear at once).
    pub docs_dir: std::path::PathBuf,
    pub settings: ToolSettings,
    pub filter: ToolFilter,
    /// `RAGDOWN_TOKEN`; `None` only with `SECURE_LOCAL_NET`.
    pub token: Option<String>,
    /// Host names accepted besides loopback (DNS-rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// `HTTP_KEEP_ALIVE_TIMEOUT_MS`.
    pub keep_alive_ms: u64,
    /// `RAGDOWN_ROOT_MCP`: bare `/mcp` serves every MCP folder.
    pub root_mcp: bool,
    /// Values shown under `settings` in `/api/status`.
    pub public_settings: serde_json::Value,
    /// Why loading failed, when it did.
    pub load_error: OnceLock<String>,
}

/// The router.
pub fn router(state: Arc<AppState>) -> Router {
    let keep_alive = HeaderValue::from_str(&format!("timeout={}", state.keep_alive_ms / 1000))
        .unwrap_or(HeaderValue::from_static("timeout=75"));
    Router::new()
        .route("/api/status", get(status))
        .route("/api/folders", get(api_folders))
        .route("/api/query-log", get(query_log).delete(clear_query_log))
        .route("/mcp", any(bare_mcp))
        .route("/mcp/", any(bare_mcp))
        .route("/mcp/{folder}", any(mcp))
        .route("/mcp/{folder}/{*rest}", any(mcp_sub))
        .fallback(not_found)
        .layer(axum::middleware::map_response(move |mut response: Response| {
            let keep_alive = keep_alive.clone();
            async move {
                response.headers_mut().insert("keep-alive", keep_alive);
                response
            }
        }))
        .with_state(state)
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "Not found")
}

/// The 404 for a folder that is missing, human-only, or a bad subfolder: one answer for all, so
/// a human-only folder cannot be told from a missing one.
const NO_FOLDER: &str = "Not found: no folder with MCP turned on at this path";

async fn bare_mcp(State(state): State<Arc<AppState>>, request: Request) -> Response {
    if !authorized(&state, request.headers()) {
        return error(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    if !state.root_mcp {
        return error(StatusCode::NOT_FOUND, "Pick a folder: /mcp/<folder>");
    }
    let Some(engine) = state.engine.get() else {
        return loading();
    };
    let server = RagdownServer::root(engine.clone(), state.settings.clone(), state.filter.clone());
    serve_server(&state, server, request).await
}

fn loading() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "The index is still loading; retry shortly",
    )
}

/// `GET /api/folders`: every folder (MCP on or not) with its counts, and the loose Markdown files
/// that no folder holds and `serve` does not index.
async fn api_folders(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if !authorized(&state, &headers) {
        return error(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    let files = match state.engine.get() {
        Some(engine) => match engine.store().files().await {
            Ok(files) => files,
            Err(err) => return error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
        },
        None => Default::default(),
    };
    let found: Vec<serde_json::Value> = folders::list(&state.docs_dir)
        .into_iter()
        .map(|folder| {
            let prefix = format!("{}/", folder.name);
            let (count, chunks) = files
                .iter()
                .filter(|(path, _)| path.starts_with(&prefix))
                .fold((0, 0), |(count, chunks), (_, file)| (count + 1, chunks + file.chunks));
            let settings = folders::settings_json(&state.docs_dir, &folder.name);
            let mut value = json!({
                "name": folder.name,
                "title": folder.title,
                "mcp": folder.mcp,
                "hook": settings.get("hook").cloned().unwrap_or(json!({})),
                "mcp_path": format!("/mcp/{}", encode_segment(&folder.name)),
                "files": count,
                "chunks": chunks,
            });
            if let Some(by) = &folder.created_by {
                value["created_by"] = json!(by);
            }
            value
        })
        .collect();
    Json(json!({ "folders": found, "loose_files": folders::loose_files(&state.docs_dir) })).into_response()
}

/// A URL path segment, as JavaScript's `encodeURIComponent` writes it.
fn encode_segment(segment: &str) -> String {
    let mut out = String::new();
    for byte in segment.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

async fn status(State(state): State<Arc<AppState>>) -> Response {
    let Some(engine) = state.engine.get() else {
        return Json(json!({
            "name": "ragdown",
            "ready": false,
            "error": state.load_error.get(),
            "settings": state.public_settings,
        }))
        .into_response();
    };
    let (files, chunks) = match engine.store().files().await {
        Ok(files) => (files.len(), files.values().map(|f| f.chunks).sum::<usize>()),
        Err(err) => return error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
    };
    let progress = engine.indexer.progress();
    Json(json!({
        "name": "ragdown",
        "ready": true,
        "embedder": engine.embedder.index_name(),
        "files": files,
        "chunks": chunks,
        "syncing": progress.running,
        "progress": progress,
        "last_sync": engine.indexer.last_sync(),
        "settings": state.public_settings,
    }))
    .into_response()
}

/// `GET /api/query-log`: the query log summed up for Settings → Usage.
async fn query_log(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if !authorized(&state, &headers) {
        return error(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    let Some(engine) = state.engine.get() else {
        return loading();
    };
    let log = engine.clone();
    match tokio::task::spawn_blocking(move || log.query_log.summary()).await {
        Ok(summary) => Json(summary).into_response(),
        Err(err) => error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
    }
}

/// `DELETE /api/query-log`: empties the log, read-only or not (it is the server's, not a document).
async fn clear_query_log(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if !authorized(&state, &headers) {
        return error(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    let Some(engine) = state.engine.get() else {
        return loading();
    };
    match engine.query_log.clear() {
        Ok(()) => Json(json!({ "cleared": true })).into_response(),
        Err(err) => error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
    }
}

/// Whether the request carries the right bearer token (or none is needed).
fn authorized(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(expected) = &state.token else {
        return true;
    };
    let Some(value) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let value = value.trim();
    let Some((scheme, token)) = value.split_once(char::is_whitespace) else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    // Compare digests, so the comparison takes the same time whatever the lengths.
    let given = Sha256::digest(token.trim().as_bytes());
    let wanted = Sha256::digest(expected.as_bytes());
    given.ct_eq(&wanted).into()
}

async fn mcp(State(state): State<Arc<AppState>>, Path(folder): Path<String>, request: Request) -> Response {
    serve_mcp(state, folder, String::new(), request).await
}

async fn mcp_sub(
    State(state): State<Arc<AppState>>,
    Path((folder, rest)): Path<(String, String)>,
    request: Request,
) -> Response {
    serve_mcp(state, folder, rest, request).await
}

async fn serve_mcp(state: Arc<AppState>, folder: String, rest: String, request: Request) -> Response {
    if !authorized(&state, request.headers()) {
        return error(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    let Some(found) = folders::get(&state.docs_dir, &folder).filter(|f| f.mcp) else {
        return error(StatusCode::NOT_FOUND, NO_FOLDER);
    };
    let sub = rest.trim_matches('/');
    // Through the one path check: every segment a real folder, none a symlink, dot or `..`.
    let real_subfolder = || {
        sub.split('/').all(|s| !s.is_empty() && s != ".")
            && crate::documents::Root::new(&state.docs_dir, &folder)
                .join(sub)
                .is_ok_and(|root| root.exists_as_dir())
    };
    if !sub.is_empty() && !real_subfolder() {
        return error(StatusCode::NOT_FOUND, NO_FOLDER);
    }
    let Some(engine) = state.engine.get() else {
        return loading();
    };
    let scope = Scope::folder(engine.clone(), &found, sub);
    let server = RagdownServer::new(scope, state.settings.clone(), state.filter.clone());
    serve_server(&state, server, request).await
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
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        return Err(error(StatusCode::PAYLOAD_TOO_LARGE, "Body too large"));
    };
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

/// Serves `router` on `listener` until `shutdown` resolves, then lets requests in flight finish.
/// An idle keep-alive connection is closed after `keep_alive_ms` (0: never).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    keep_alive_ms: u64,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let idle = (keep_alive_ms > 0).then(|| std::time::Duration::from_millis(keep_alive_ms));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!("accept failed: {err}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(
            router
                .clone()
                .map_request(|request: Request<hyper::body::Incoming>| request.map(Body::new)),
        );
        let mut builder = hyper::server::conn::http1::Builder::new();
        // The header-read timer runs while a kept-alive connection waits for its next request, so
        // it is the idle timeout; `None` turns hyper's 30 s default off.
        builder
            .timer(hyper_util::rt::TokioTimer::new())
            .keep_alive(true)
            .header_read_timeout(idle);
        let connection = graceful.watch(builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!("connection closed: {err}");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// Answers one streamable-HTTP MCP request with `server`.
async fn serve_server(state: &AppState, server: RagdownServer, request: Request) -> Response {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(state.allowed_hosts.iter().cloned());
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
    // Stateless, plain JSON answers: each request carries everything, as the original serves it.
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
            error(StatusCode::PAYLOAD_TOO_LARGE, "Body too large")
        }
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    }
}
