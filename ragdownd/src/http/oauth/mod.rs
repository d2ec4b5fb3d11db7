//! OAuth 2.1 over HTTP, as the MCP authorization spec (2026-07-28) asks: ragdown is both the
//! resource server (its MCP endpoints) and their authorization server. The rules live in
//! [`crate::access::oauth`]; this is their HTTP face.
//!
//! - Discovery: a 401 from `/mcp/<folder>` carries `WWW-Authenticate: Bearer resource_metadata=…,
//!   scope="read write"` ([`challenge`]); protected-resource metadata (RFC 9728) for each MCP
//!   endpoint at `/.well-known/oauth-protected-resource/mcp/<folder>[/<sub>]`; authorization-server
//!   metadata (RFC 8414) at `/.well-known/oauth-authorization-server` ([`discovery`]).
//! - [`authorize`]: `GET /oauth/authorize`, which sends the browser to the consent page of the web
//!   UI (`/oauth/consent/<id>`, answered through `http::consent`).
//! - [`token`]: `POST /oauth/token`, `/oauth/register` (RFC 7591) and `/oauth/revoke` (RFC 7009).
//!
//! The issuer and every resource URI are made from `RAGDOWN_PUBLIC_URL` when set (behind a proxy
//! or tunnel), else from the request's `Host`, which must be one the server allows. All of it is
//! off (404) unless OAuth is on: `RAGDOWN_OAUTH` (default on) and an owner's `RAGDOWN_TOKEN`, who
//! approves each client. Any other `/.well-known/` path is a JSON 404, never the web UI's page (a
//! hosted client probes them even on servers without OAuth). No token, code or verifier is
//! logged.

pub mod authorize;
pub mod discovery;
pub mod token;

use std::num::NonZeroU32;

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde_json::json;

use super::AppState;
use super::auth::host_allowed;
use super::error::ApiError;
use crate::access::FolderPath;
use crate::access::oauth::Rejected;
use crate::access::oauth::flow::Flows;
use crate::access::oauth::metadata::Fetcher;

/// What OAuth keeps while the server runs.
#[derive(Debug)]
pub struct OAuth {
    /// Requests waiting for the owner, and codes.
    pub flows: Flows,
    /// Client metadata documents.
    pub fetcher: Fetcher,
    /// `/oauth/token` and `/oauth/revoke`: 60 a minute, 20 at once.
    token_limit: DefaultDirectRateLimiter,
    /// `/oauth/register`: 10 a minute, 10 at once.
    register_limit: DefaultDirectRateLimiter,
    /// `/oauth/authorize`: 30 a minute, 30 at once (each may fetch a metadata document).
    authorize_limit: DefaultDirectRateLimiter,
}

fn per_minute(rate: u32, burst: u32) -> DefaultDirectRateLimiter {
    let rate = NonZeroU32::new(rate).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    RateLimiter::direct(Quota::per_minute(rate).allow_burst(burst))
}

impl OAuth {
    pub fn new(private_clients: bool) -> Self {
        Self {
            flows: Flows::default(),
            fetcher: Fetcher::new(private_clients),
            token_limit: per_minute(60, 20),
            register_limit: per_minute(10, 10),
            authorize_limit: per_minute(30, 30),
        }
    }
}

/// Which rate limit a route spends from.
#[derive(Debug, Clone, Copy)]
pub enum Limit {
    Token,
    Register,
    Authorize,
}

/// An OAuth error response (RFC 6749 §5.2): `{error, error_description}`, never cached.
#[derive(Debug)]
pub struct OAuthError {
    pub status: StatusCode,
    pub error: &'static str,
    pub description: String,
}

impl OAuthError {
    pub fn new(error: &'static str, description: impl std::fmt::Display) -> Self {
        let status = match error {
            "invalid_client" => StatusCode::UNAUTHORIZED,
            "not_found" => StatusCode::NOT_FOUND,
            "slow_down" => StatusCode::TOO_MANY_REQUESTS,
            "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        };
        Self {
            status,
            error,
            description: description.to_string(),
        }
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let body = json!({ "error": self.error, "error_description": self.description });
        no_store((self.status, Json(body)).into_response())
    }
}

/// Marks a response as never to be cached (RFC 6749 §5.1).
pub fn no_store(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// The gate of every OAuth route: on, a host the server allows, and within its rate limit.
/// `Err` is the response to give.
pub fn admit(state: &AppState, headers: &HeaderMap, limit: Option<Limit>) -> Result<String, OAuthError> {
    if !state.config.oauth.enabled {
        return Err(OAuthError::new(
            "not_found",
            "OAuth is off on this server (it needs RAGDOWN_TOKEN, and RAGDOWN_OAUTH not false)",
        ));
    }
    let base = base_url(state, headers).ok_or_else(|| {
        OAuthError::new(
            "invalid_request",
            "this host may not be used (see RAGDOWN_ALLOWED_HOSTS and RAGDOWN_PUBLIC_URL)",
        )
    })?;
    let limiter = limit.map(|limit| match limit {
        Limit::Token => &state.oauth.token_limit,
        Limit::Register => &state.oauth.register_limit,
        Limit::Authorize => &state.oauth.authorize_limit,
    });
    if limiter.is_some_and(|l| l.check().is_err()) {
        return Err(OAuthError::new("slow_down", "too many requests; wait a minute"));
    }
    Ok(base)
}

/// The server's origin as clients reach it: `RAGDOWN_PUBLIC_URL`, else `http://<Host>` when the
/// host is one the server allows; `None` otherwise.
pub fn base_url(state: &AppState, headers: &HeaderMap) -> Option<String> {
    if let Some(public) = &state.config.oauth.public_url {
        return Some(public.clone());
    }
    if !host_allowed(headers, &state.config.allowed_hosts) {
        return None;
    }
    let host = headers.get(header::HOST)?.to_str().ok()?;
    Some(format!("http://{}", host.to_ascii_lowercase()))
}

/// The MCP endpoint `path` as a URL path (`/mcp/notes/a%20b`), each segment percent-encoded.
fn endpoint(path: &FolderPath) -> String {
    let segments: Vec<String> = path.to_string().split('/').map(super::encode_segment).collect();
    format!("/mcp/{}", segments.join("/"))
}

/// The canonical resource URI of the MCP endpoint `path`.
pub fn resource_uri(base: &str, path: &FolderPath) -> String {
    format!("{base}{}", endpoint(path))
}

/// The protected-resource metadata URL of the MCP endpoint `path` (RFC 9728 §3.1: the well-known
/// name inserted before the resource's path).
pub fn metadata_uri(base: &str, path: &FolderPath) -> String {
    format!("{base}/.well-known/oauth-protected-resource{}", endpoint(path))
}

/// The endpoint a resource URI names, when it is one of this server's (`base`): same origin, the
/// path `/mcp/<folder>[/<sub>]`, no query or fragment. `Err` says why not.
pub fn resource_path(base: &str, resource: &str) -> Result<FolderPath, Rejected> {
    let wrong = || {
        Rejected::from(format!(
            "resource must be this server's MCP endpoint URL, like {base}/mcp/<folder>"
        ))
    };
    let url = url::Url::parse(resource.trim()).map_err(|_| wrong())?;
    let origin = url::Url::parse(base).map_err(|_| wrong())?.origin();
    if url.origin() != origin || url.query().is_some() || url.fragment().is_some() {
        return Err(wrong());
    }
    let rest = url.path().strip_prefix("/mcp/").ok_or_else(wrong)?;
    let decoded: Result<Vec<String>, _> = rest
        .split('/')
        .map(|s| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .map(|d| d.into_owned())
        })
        .collect();
    let decoded = decoded.map_err(|_| wrong())?;
    if decoded.iter().any(|s| s.contains(['/', '\\'])) {
        return Err(wrong());
    }
    FolderPath::parse(&decoded.join("/")).map_err(|_| wrong())
}

/// The 401 (or a token's 403) of an MCP endpoint, with the challenge that starts OAuth when it is
/// on: where the endpoint's metadata is, the scope to ask for, and `invalid_token` when a token
/// was sent and refused (RFC 6750 §3).
pub fn challenge(state: &AppState, headers: &HeaderMap, path: Option<FolderPath>, refused: ApiError) -> Response {
    let base = path
        .as_ref()
        .filter(|_| state.config.oauth.enabled && refused.status == StatusCode::UNAUTHORIZED)
        .and_then(|path| Some((base_url(state, headers)?, path)));
    let mut response = refused.clone().into_response();
    if let Some((base, path)) = base {
        let scope = if state.tools.read_only { "read" } else { "read write" };
        let mut value = format!(
            "Bearer resource_metadata=\"{}\", scope=\"{scope}\"",
            metadata_uri(&base, path)
        );
        if headers.contains_key(header::AUTHORIZATION) {
            let description = refused.message.replace(['"', '\\'], "'");
            value.push_str(&format!(
                ", error=\"invalid_token\", error_description=\"{description}\""
            ));
        }
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris_name_an_endpoint_of_this_origin() {
        let base = "http://127.0.0.1:3000";
        let notes = FolderPath::parse("notes/a b").unwrap();
        let uri = resource_uri(base, &notes);
        assert_eq!(uri, "http://127.0.0.1:3000/mcp/notes/a%20b");
        assert_eq!(resource_path(base, &uri).unwrap(), notes);
        assert_eq!(
            resource_path(base, "HTTP://127.0.0.1:3000/mcp/notes/")
                .unwrap()
                .to_string(),
            "notes"
        );
        assert_eq!(
            resource_path(base, "http://127.0.0.1:3000/mcp/%E7%AC%94%E8%AE%B0")
                .unwrap()
                .to_string(),
            "笔记"
        );
        for bad in [
            "http://127.0.0.1:3001/mcp/notes",
            "https://127.0.0.1:3000/mcp/notes",
            "http://localhost:3000/mcp/notes",
            "http://127.0.0.1:3000/mcp",
            "http://127.0.0.1:3000/mcp/",
            "http://127.0.0.1:3000/api/notes",
            "http://127.0.0.1:3000/mcp/notes?x=1",
            "http://127.0.0.1:3000/mcp/notes#f",
            "http://127.0.0.1:3000/mcp/notes/..%2Fwork",
            "http://127.0.0.1:3000/mcp/notes/%2e%2e",
            "http://127.0.0.1:3000/mcp/.git",
            "mcp/notes",
        ] {
            assert!(resource_path(base, bad).is_err(), "{bad}");
        }
        assert_eq!(
            metadata_uri(base, &notes),
            "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp/notes/a%20b"
        );
    }
}
