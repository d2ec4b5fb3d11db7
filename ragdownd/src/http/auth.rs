//! Who may call, decided in one place ([`decide`]): the owner's bearer token (`RAGDOWN_TOKEN`,
//! or anyone under `SECURE_LOCAL_NET`), a scoped token from the token file, or an OAuth access
//! token (which opens its one MCP endpoint, never `/api`), else 401. The
//! `/api` middleware ([`require`], [`require_owner`]) puts the decision into the request, where
//! handlers take it as the [`Access`] extractor (a handler without the middleware's decision gets a
//! 401, never the owner's access); the MCP routes ask [`decide`] themselves.
//!
//! For the `/api` routes the same host and origin rules as the MCP routes' apply too
//! (DNS-rebinding and cross-site protection): the `Host` must be loopback or one of
//! `RAGDOWN_ALLOWED_HOSTS`, and a browser's `Origin`, when sent, must be the page the server itself
//! serves. A read token is refused every method but GET and HEAD here, so no write route is
//! reached with one whatever its handler does. Nothing here logs a token.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::AppState;
use super::error::{ApiError, after_body};
use crate::access::oauth::ACCESS_PREFIX;
use crate::access::store::now_ms;
use crate::access::{Access, Refusal, secret};

/// The bearer token of a request, when it sends one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(char::is_whitespace)?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Whether `given` is the owner's token `expected`. Digests are compared, so the comparison takes
/// the same time whatever the lengths and wherever they differ.
fn is_owner_token(expected: &str, given: &str) -> bool {
    let given = Sha256::digest(given.as_bytes());
    let wanted = Sha256::digest(expected.as_bytes());
    given.ct_eq(&wanted).into()
}

/// The access decision for a request's headers: the owner's token, a scoped token that is known
/// and not expired, or (under `SECURE_LOCAL_NET`, when no scoped token is sent) the owner; else a
/// 401. A scoped token is checked even under `SECURE_LOCAL_NET`, so an agent given a read token
/// stays read-only there, and a revoked one is refused.
pub fn decide(state: &AppState, headers: &HeaderMap) -> Result<Access, ApiError> {
    let given = bearer(headers);
    if let (Some(expected), Some(given)) = (state.config.token.as_deref(), given)
        && is_owner_token(expected, given)
    {
        return Ok(Access::Admin);
    }
    let scoped = given.filter(|t| t.starts_with(secret::PREFIX) || t.starts_with(ACCESS_PREFIX));
    if let Some(given) = scoped {
        let now = now_ms();
        let verified = if given.starts_with(ACCESS_PREFIX) {
            state.access.verify_access(given, now)
        } else {
            state.access.verify(given, now)
        };
        return match verified {
            Ok(grant) => {
                if state.access.flush_due(now) {
                    let store = state.access.clone();
                    tokio::task::spawn_blocking(move || {
                        if let Err(err) = store.flush() {
                            tracing::warn!(%err, "could not note when tokens were last used");
                        }
                    });
                }
                Ok(Access::Token(grant))
            }
            Err(Refusal::Expired) => Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: this token has expired",
            )),
            Err(Refusal::Unknown) => Err(ApiError::unauthorized()),
        };
    }
    match state.config.token {
        None => Ok(Access::Admin),
        Some(_) => Err(ApiError::unauthorized()),
    }
}

/// The 403 for a scoped token where only the owner may go.
pub fn owner_only() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "Forbidden: only the owner's token (RAGDOWN_TOKEN) may use this",
    )
}

/// The 403 for a write with a read token.
pub fn read_token() -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "Forbidden: this token may only read")
}

/// The decision the middleware put into the request. A route without that middleware answers
/// 401: no handler can run with an access nobody decided.
impl<S: Send + Sync> FromRequestParts<S> for Access {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<Access>()
            .cloned()
            .ok_or_else(ApiError::unauthorized)
    }
}

/// The host names requests may address: loopback and `RAGDOWN_ALLOWED_HOSTS`.
pub fn allowed_hosts(extra: &[String]) -> Vec<String> {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(extra.iter().cloned());
    hosts
}

/// The name part of a `Host` header or an origin's authority: no port, no IPv6 brackets.
fn host_name(authority: &str) -> &str {
    let authority = authority.trim();
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    match authority.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => authority,
    }
}

/// The request's `Host` header, empty when it has none.
fn host_header(headers: &HeaderMap) -> &str {
    headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// Whether the request's `Host` is one of `hosts` (the whole list, [`allowed_hosts`]).
fn host_in(headers: &HeaderMap, hosts: &[String]) -> bool {
    let name = host_name(host_header(headers));
    hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(name))
}

/// Whether the request's `Host` is loopback or one of `extra` (the origin is not looked at: the
/// OAuth endpoints are called from other sites' pages by design).
pub fn host_allowed(headers: &HeaderMap, extra: &[String]) -> bool {
    host_in(headers, &allowed_hosts(extra))
}

/// Whether `headers` pass the host and origin rules for `hosts`.
fn host_and_origin_allowed(headers: &HeaderMap, hosts: &[String]) -> bool {
    if !host_in(headers, hosts) {
        return false;
    }
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        None => true,
        Some(origin) => {
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .unwrap_or_default();
            authority.eq_ignore_ascii_case(host_header(headers))
        }
    }
}

/// The host and origin check, then the decision, put into the request; `Err` is the refusal.
fn admit(state: &AppState, request: &mut Request) -> Result<(), ApiError> {
    if !host_and_origin_allowed(request.headers(), &allowed_hosts(&state.config.allowed_hosts)) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "Forbidden: this host or origin may not call the API (see RAGDOWN_ALLOWED_HOSTS)",
        ));
    }
    let access = decide(state, request.headers())?;
    if access.is_oauth() {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: an OAuth access token opens only the MCP endpoint it was issued for",
        ));
    }
    if !access.can_write() && !matches!(*request.method(), Method::GET | Method::HEAD) {
        return Err(read_token());
    }
    request.extensions_mut().insert(access);
    Ok(())
}

/// Middleware of the `/api` routes a scoped token may use (within its folders): host, origin,
/// then the access decision. A refusal is answered after the body is read ([`after_body`]).
pub async fn require(State(state): State<Arc<AppState>>, mut request: Request, next: Next) -> Response {
    match admit(&state, &mut request) {
        Ok(()) => next.run(request).await,
        Err(refused) => after_body(request.into_body(), refused.into_response()).await,
    }
}

/// Middleware of the owner's `/api` routes (settings, folders, tokens, the query log, undo): as
/// [`require`], and a scoped token is a 403.
pub async fn require_owner(State(state): State<Arc<AppState>>, mut request: Request, next: Next) -> Response {
    let refused = match admit(&state, &mut request) {
        Ok(()) if request.extensions().get::<Access>().is_some_and(Access::is_admin) => {
            return next.run(request).await;
        }
        Ok(()) => owner_only(),
        Err(refused) => refused,
    };
    after_body(request.into_body(), refused.into_response()).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn owner(value: &str) -> bool {
        bearer(&headers(&[(header::AUTHORIZATION, value)])).is_some_and(|given| is_owner_token("s3cret", given))
    }

    #[test]
    fn the_token_is_a_bearer_token_matched_whole() {
        assert!(owner("bearer  s3cret "));
        for bad in ["Bearer s3cre", "Basic s3cret", "s3cret", "Bearer s3cretx", "Bearer"] {
            assert!(!owner(bad), "{bad}");
        }
        assert_eq!(bearer(&HeaderMap::new()), None);
    }

    #[test]
    fn hosts_must_be_allowed_and_origins_the_servers_own() {
        let hosts = allowed_hosts(&["notes.lan".into()]);
        for good in [
            vec![(header::HOST, "localhost:3000")],
            vec![(header::HOST, "[::1]:3000")],
            vec![(header::HOST, "notes.lan")],
            vec![
                (header::HOST, "127.0.0.1:3000"),
                (header::ORIGIN, "http://127.0.0.1:3000"),
            ],
        ] {
            assert!(host_and_origin_allowed(&headers(&good), &hosts), "{good:?}");
        }
        for bad in [
            vec![(header::HOST, "evil.example:3000")],
            vec![],
            vec![
                (header::HOST, "localhost:3000"),
                (header::ORIGIN, "http://evil.example"),
            ],
            vec![(header::HOST, "localhost:3000"), (header::ORIGIN, "null")],
        ] {
            assert!(!host_and_origin_allowed(&headers(&bad), &hosts), "{bad:?}");
        }
    }
}
