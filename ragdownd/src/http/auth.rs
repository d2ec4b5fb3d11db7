//! Who may call: the bearer token (unless `SECURE_LOCAL_NET`), and for the `/api` routes the same
//! host and origin rules the MCP routes have (DNS-rebinding and cross-site protection): the
//! `Host` must be loopback or one of `RAGDOWN_ALLOWED_HOSTS`, and a browser's `Origin`, when sent,
//! must be the page the server itself serves.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::AppState;
use super::error::ApiError;

/// Whether the request carries the right bearer token (or none is needed).
pub fn authorized(token: Option<&str>, headers: &HeaderMap) -> bool {
    let Some(expected) = token else {
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

/// Whether `headers` pass the host and origin rules for `hosts`.
fn host_and_origin_allowed(headers: &HeaderMap, hosts: &[String]) -> bool {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !hosts
        .iter()
        .any(|allowed| allowed.eq_ignore_ascii_case(host_name(host)))
    {
        return false;
    }
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        None => true,
        Some(origin) => {
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .unwrap_or_default();
            authority.eq_ignore_ascii_case(host)
        }
    }
}

/// Middleware of every `/api` route but the status: host, origin, then token.
pub async fn require(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    if !host_and_origin_allowed(request.headers(), &allowed_hosts(&state.config.allowed_hosts)) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "Forbidden: this host or origin may not call the API (see RAGDOWN_ALLOWED_HOSTS)",
        )
        .into_response();
    }
    if !authorized(state.config.token.as_deref(), request.headers()) {
        return ApiError::unauthorized().into_response();
    }
    next.run(request).await
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

    #[test]
    fn the_token_is_a_bearer_token_matched_whole() {
        let ok = headers(&[(header::AUTHORIZATION, "bearer  s3cret ")]);
        assert!(authorized(Some("s3cret"), &ok));
        for bad in ["Bearer s3cre", "Basic s3cret", "s3cret", "Bearer s3cretx"] {
            assert!(
                !authorized(Some("s3cret"), &headers(&[(header::AUTHORIZATION, bad)])),
                "{bad}"
            );
        }
        assert!(!authorized(Some("s3cret"), &HeaderMap::new()));
        assert!(authorized(None, &HeaderMap::new()));
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
