//! `serve`'s HTTP surface: the `/api` routes the web UI stands on, and MCP at
//! `/mcp/<folder>[/<subfolder...>]` (and, with `RAGDOWN_ROOT_MCP`, the root `/mcp`).
//!
//! The server starts answering at once; the index (and the embedding model behind it) loads in
//! the background and `/api/status` says `ready: false` until it has. Every route but the status
//! needs the bearer token unless `SECURE_LOCAL_NET` is on ([`auth`]); errors are one type mapped
//! to a response in one place ([`error`]).
//!
//! - [`status`]: `/api/status` and the query log.
//! - [`folders`]: `/api/folders`, `/api/loose`.
//! - [`docs`]: `/api/docs`, `/api/doc`, `/api/file`; [`browse`]: `/api/browse`, `/api/find`, `/api/jump`.
//! - [`links`]: `/api/search`, `/api/resolve`, `/api/backlinks`, `/api/move`.
//! - [`history`]: `/api/history` and its `changes`, `version`, `undo`, `undo-session`, `restore`.
//! - [`settings`]: `PATCH /api/settings`, and applying a change while the server runs.
//! - [`tokens`]: `/api/access/tokens`, Settings → Access.
//! - [`oauth`]: OAuth 2.1 for MCP clients (`/.well-known/…`, `/oauth/…`); [`consent`]: the owner's
//!   side of it (`/api/oauth/requests`, `/api/access/grants`).
//! - [`mcp`]: the MCP routes.
//! - [`web`]: the web UI, for every other GET.
//! - [`schema`] and [`openapi`]: the wire types and the OpenAPI description made from them
//!   (`GET /api/openapi.json`).
//!
//! Connections are served by hyper directly rather than `axum::serve`, so that an idle keep-alive
//! connection is closed after `HTTP_KEEP_ALIVE_TIMEOUT_MS` (axum's own loop has no such setting).

pub mod auth;
pub mod browse;
pub mod consent;
pub mod docs;
pub mod error;
pub mod folders;
pub mod history;
pub mod links;
pub mod mcp;
pub mod oauth;
pub mod openapi;
pub mod schema;
pub mod settings;
pub mod status;
pub mod tokens;
pub mod web;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, delete, get, patch, post};
use parking_lot::{Mutex, RwLock};
use tower::{Layer, ServiceExt};

use crate::access::{Access, Place};
use crate::config::Config;
use crate::engine::{Engine, Scope};
use crate::mcp::ToolFilter;
use crate::settings::Values;
use crate::tools::ToolSettings;
pub use error::{ApiError, ApiResult, MAX_BODY_BYTES};

/// Shared state of the HTTP server.
#[derive(Debug)]
pub struct AppState {
    /// The index once it is open; replaced when the embedder changes.
    engine: RwLock<Option<Arc<Engine>>>,
    /// Why opening the index failed, when it did.
    load_error: Mutex<Option<String>>,
    /// The configuration the server started with (flags and environment).
    pub config: Config,
    /// The tools' settings, with the one layered [`crate::settings::Settings`] every route reads.
    pub tools: ToolSettings,
    pub filter: ToolFilter,
    /// Held while a settings change applies, so two never interleave.
    pub changing: tokio::sync::Mutex<()>,
    /// The settings the running server was last brought in line with.
    applied: Mutex<Option<Values>>,
    /// Where the web UI's files come from.
    pub web: web::Source,
    /// The last survey of which scripts the notes are written in.
    pub languages: Arc<crate::language::Surveys>,
    /// The history of changes made through ragdown (the same directory the engine records in).
    pub history: Arc<crate::history::History>,
    /// The scoped tokens, and OAuth's clients and grants.
    pub access: Arc<crate::access::Store>,
    /// OAuth's requests, codes, metadata documents and rate limits.
    pub oauth: oauth::OAuth,
    /// Cancelled when the server starts shutting down: the long-lived MCP notification streams
    /// (`subscriptions/listen`) end then, or the graceful shutdown would wait on them.
    pub closing: tokio_util::sync::CancellationToken,
}

impl AppState {
    pub fn new(config: Config, tools: ToolSettings, filter: ToolFilter) -> Self {
        let web = web::Source::new(config.web_dir.clone());
        let history = Arc::new(crate::history::History::new(&config.docs_dir, &config.history));
        let access = Arc::new(crate::access::Store::open(config.access_file.clone()));
        Self {
            history,
            access,
            oauth: oauth::OAuth::new(config.oauth.private_clients),
            engine: RwLock::new(None),
            load_error: Mutex::new(None),
            config,
            tools,
            filter,
            changing: tokio::sync::Mutex::new(()),
            applied: Mutex::new(None),
            web,
            languages: Arc::default(),
            closing: tokio_util::sync::CancellationToken::new(),
        }
    }

    /// The settings the running server was last brought in line with; `None` until it has opened.
    pub fn applied(&self) -> Option<Values> {
        self.applied.lock().clone()
    }

    pub fn set_applied(&self, values: Values) {
        *self.applied.lock() = Some(values);
    }

    /// The index, when it is open.
    pub fn engine(&self) -> Option<Arc<Engine>> {
        self.engine.read().clone()
    }

    /// The index, or the 503 that says it is loading.
    pub fn ready(&self) -> ApiResult<Arc<Engine>> {
        self.engine().ok_or_else(ApiError::loading)
    }

    /// Puts `engine` in place, returning the one it replaces.
    pub fn set_engine(&self, engine: Arc<Engine>) -> Option<Arc<Engine>> {
        *self.load_error.lock() = None;
        self.engine.write().replace(engine)
    }

    /// Records why the index could not be opened.
    pub fn set_load_error(&self, error: String) {
        *self.load_error.lock() = Some(error);
    }

    pub fn load_error(&self) -> Option<String> {
        self.load_error.lock().clone()
    }

    /// The whole docs dir as one scope: the owner's alone.
    pub fn root_scope(&self, access: &Access) -> ApiResult<Scope> {
        if !access.is_admin() {
            return Err(auth::owner_only());
        }
        Ok(Scope::root(self.ready()?))
    }

    /// A root-relative path (`notes/a/b.md`) as its folder's scope and the path inside it, so it
    /// goes through the tools' code and path check like an agent's: for the routes that write.
    /// 400 for an absolute path, and when the first segment is not a folder; 403 for a path
    /// outside what a scoped token opens (whose scope is then its subfolder, if it opens one).
    pub fn in_folder(&self, access: &Access, path: &str) -> ApiResult<(Scope, String)> {
        self.locate(access, path)?
            .ok_or_else(|| ApiError::bad_request(format!("not inside a folder: {path}")))
    }

    /// As [`Self::in_folder`], for the routes that read or remove what is there: a path that is
    /// not inside a folder (a loose file, a folder that does not exist) is a 404, as for any file
    /// the index does not hold. An absolute path is still a 400, and one outside a token's
    /// folders a 403.
    pub fn existing_in_folder(&self, access: &Access, path: &str) -> ApiResult<(Scope, String)> {
        self.locate(access, path)?.ok_or_else(ApiError::not_found)
    }

    /// The folder scope and inner path of a root-relative path; `None` when it is not inside a
    /// folder. Backslashes are separators; a path that starts at a root (`/x`, `\x`, `C:/x`) is
    /// refused rather than read as root-relative, so nothing is made where the caller did not mean.
    /// A scoped token's path is placed under the token's own folder path, so the tools' path check
    /// keeps it there (no `..` climbs out of it).
    fn locate(&self, access: &Access, path: &str) -> ApiResult<Option<(Scope, String)>> {
        let clean = path.trim().replace('\\', "/");
        if crate::documents::paths::is_absolute(&clean) {
            return Err(ApiError::bad_request(format!(
                "paths are relative to the docs directory (<folder>/<path>), not absolute: {path}"
            )));
        }
        let (folder_path, rest) = match access.place(&clean) {
            Place::Outside => return Err(ApiError::new(StatusCode::FORBIDDEN, access.refusal())),
            Place::Under { path, rest } => (Some(path), rest),
            Place::Anywhere => {
                let (name, rest) = clean.split_once('/').unwrap_or((clean.as_str(), ""));
                let whole = crate::access::FolderPath::parse(name).ok();
                (whole, rest.to_string())
            }
        };
        let engine = self.ready()?;
        let Some(folder_path) = folder_path.filter(|_| !rest.is_empty()) else {
            return Ok(None);
        };
        let folder = crate::folders::get(&self.config.docs_dir, folder_path.folder());
        Ok(folder.map(|folder| {
            let mut scope = Scope::folder(engine, &folder, &folder_path.sub());
            // A write with a scoped token is recorded as that token's, not the owner's.
            scope.who = scope.who.with_token(access.token_name());
            (scope, rest)
        }))
    }

    /// A folder's scope by name (`notes`), or a subfolder's (`notes/a`); 404 `no such folder` for
    /// anything else. A scoped token gets 403 outside its paths; asked for a folder of which it
    /// opens one subfolder, it gets that subfolder's scope.
    pub fn folder_scope(&self, access: &Access, name: &str) -> ApiResult<Scope> {
        let engine = self.ready()?;
        let missing = || ApiError::new(StatusCode::NOT_FOUND, format!("no such folder: {name}"));
        let mut wanted = crate::access::FolderPath::parse(name).map_err(|_| missing())?;
        if !access.opens(&wanted) {
            let inside = access.paths_in(wanted.folder()).unwrap_or_default();
            match inside.as_slice() {
                [only] if wanted.depth() == 1 => wanted = only.clone(),
                _ => return Err(ApiError::new(StatusCode::FORBIDDEN, access.refusal())),
            }
        }
        let folder = crate::folders::get(&self.config.docs_dir, wanted.folder()).ok_or_else(missing)?;
        let sub = wanted.sub();
        if !sub.is_empty() && crate::access::paths::check_exists(&self.config.docs_dir, &wanted).is_err() {
            return Err(missing());
        }
        Ok(Scope::folder(engine, &folder, &sub))
    }

    /// The root-relative prefixes (`notes/`, `notes/a/`) an access may list: every folder for the
    /// owner (`""`), a token's paths, or those of one folder.
    pub fn listable(&self, access: &Access, folder: Option<&str>) -> ApiResult<Vec<String>> {
        match (folder, access.grant()) {
            (Some(name), _) => Ok(vec![self.folder_scope(access, name)?.prefix]),
            (None, None) => Ok(vec![String::new()]),
            (None, Some(grant)) => Ok(grant.paths.iter().map(|p| p.prefix()).collect()),
        }
    }

    /// Refuses a write under `RAGDOWN_READ_ONLY`, and with a read token.
    pub fn writable(&self, access: &Access) -> ApiResult<()> {
        if self.tools.read_only {
            return Err(ApiError::read_only());
        }
        if !access.can_write() {
            return Err(auth::read_token());
        }
        Ok(())
    }

    /// The tools' settings and filter for an MCP server of `access`: a read token's has the write
    /// tools hidden and refused, as under `RAGDOWN_READ_ONLY`.
    pub fn tools_for(&self, access: &Access) -> (ToolSettings, ToolFilter) {
        let (mut tools, mut filter) = (self.tools.clone(), self.filter.clone());
        if !access.can_write() {
            tools.read_only = true;
            filter.read_only = true;
        }
        (tools, filter)
    }
}

/// The router.
pub fn router(state: Arc<AppState>) -> Router {
    let keep_alive = HeaderValue::from_str(&format!("timeout={}", state.config.keep_alive_ms / 1000))
        .unwrap_or(HeaderValue::from_static("timeout=75"));
    // What a scoped token may use, within its folders (reads only, for a read token).
    let shared = Router::new()
        .route("/api/folders", get(folders::list))
        .route("/api/docs", get(docs::list))
        .route("/api/browse", get(browse::browse))
        .route("/api/find", get(browse::find))
        .route("/api/jump", get(browse::jump))
        .route("/api/tags", get(browse::tags))
        .route("/api/complete", get(browse::complete))
        .route("/api/doc", get(docs::read).post(docs::save).delete(docs::remove))
        .route("/api/file", get(docs::file))
        .route("/api/search", get(links::search))
        .route("/api/resolve", get(links::resolve))
        .route("/api/backlinks", get(links::backlinks))
        .route("/api/move", post(links::move_doc))
        .route("/api/history", get(history::document))
        .route("/api/history/changes", get(history::changes))
        .route("/api/history/version", get(history::version))
        .route("/api/history/restore", post(history::restore))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), auth::require));
    // The owner's alone: the server and its folders, the tokens, the query log, and undoing
    // changes (reviewing what agents did is the owner's).
    let owner = Router::new()
        .route("/api/folders", post(folders::create))
        .route("/api/folders/{name}", patch(folders::update).delete(folders::remove))
        .route("/api/loose", delete(folders::remove_loose))
        .route("/api/settings", patch(settings::update))
        .route("/api/history/undo", post(history::undo))
        .route("/api/history/undo-session", post(history::undo_session))
        .route("/api/query-log", get(status::query_log).delete(status::clear_query_log))
        .route("/api/access/tokens", get(tokens::list).post(tokens::create))
        .route("/api/access/tokens/{id}", delete(tokens::revoke))
        .route("/api/access/grants", get(consent::grants))
        .route("/api/access/grants/{id}", delete(consent::revoke))
        .route("/api/oauth/requests/{id}", get(consent::request).post(consent::answer))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), auth::require_owner));
    let api = shared.merge(owner);
    // OAuth's public side: called by clients, from browsers on other sites too (CORS).
    let cors = tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([axum::http::Method::GET, axum::http::Method::POST])
        .allow_headers([
            axum::http::header::CONTENT_TYPE,
            axum::http::header::AUTHORIZATION,
            axum::http::HeaderName::from_static("mcp-protocol-version"),
        ]);
    let oauth_routes = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::discovery::authorization_server),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp/{*path}",
            get(oauth::discovery::protected_resource),
        )
        .route("/.well-known/{*rest}", any(oauth::discovery::unknown))
        .route("/oauth/token", post(oauth::token::token))
        .route("/oauth/register", post(oauth::token::register))
        .route("/oauth/revoke", post(oauth::token::revoke))
        .layer(cors)
        .route("/oauth/authorize", get(oauth::authorize::authorize));
    Router::new()
        .route("/api/status", get(status::status))
        .route("/api/openapi.json", get(openapi::serve))
        .merge(api)
        .merge(oauth_routes)
        .route("/mcp", any(mcp::bare))
        .route("/mcp/", any(mcp::bare))
        .route("/mcp/{folder}", any(mcp::folder))
        .route("/mcp/{folder}/{*rest}", any(mcp::subfolder))
        .fallback_service(fallback(state.clone()))
        .layer(axum::middleware::map_response(move |response: Response| {
            let keep_alive = keep_alive.clone();
            async move { with_keep_alive(response, keep_alive) }
        }))
        .with_state(state)
}

/// Adds the keep-alive header, and gives a bare 405 (a method a route does not answer) the
/// API's error shape.
fn with_keep_alive(response: Response, keep_alive: HeaderValue) -> Response {
    let mut response = if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && response.headers().get(axum::http::header::CONTENT_TYPE).is_none()
    {
        let allow = response.headers().get(axum::http::header::ALLOW).cloned();
        let mut json = ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed").into_response();
        if let Some(allow) = allow {
            json.headers_mut().insert(axum::http::header::ALLOW, allow);
        }
        json
    } else {
        response
    };
    response.headers_mut().insert("keep-alive", keep_alive);
    response
}

/// An unknown `/api/…` path is the API's 404 (decided before auth); anything else is the web UI,
/// gzipped for clients that take it. Built once with the router.
fn fallback(
    state: Arc<AppState>,
) -> impl tower::Service<
    Request,
    Response = Response<tower_http::compression::CompressionBody<Body>>,
    Error = std::convert::Infallible,
    Future = impl Send,
> + Clone
+ Send
+ Sync
+ 'static {
    tower_http::compression::CompressionLayer::new().layer(tower::service_fn(move |request: Request| {
        let state = state.clone();
        async move {
            let path = request.uri().path();
            let response = if path == "/api" || path.starts_with("/api/") {
                ApiError::not_found().into_response()
            } else {
                web::serve(&state.web, request).await
            };
            Ok::<_, std::convert::Infallible>(response)
        }
    }))
}

/// A required query parameter or body field: 400 `<name> is required` when missing or empty.
pub fn required<'a>(value: &'a Option<String>, name: &str) -> ApiResult<&'a str> {
    value
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| ApiError::bad_request(format!("{name} is required")))
}

/// A URL path segment, as JavaScript's `encodeURIComponent` writes it.
pub fn encode_segment(segment: &str) -> String {
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
