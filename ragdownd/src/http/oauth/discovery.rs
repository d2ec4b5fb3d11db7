//! Discovery documents: protected-resource metadata (RFC 9728) for each MCP endpoint, and the
//! authorization server's metadata (RFC 8414), both public and served with CORS for browser-based
//! clients. Any other `/.well-known/` path is a JSON 404.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::{OAuthError, admit, resource_uri};
use crate::access::FolderPath;
use crate::access::oauth::SCOPES;
use crate::http::AppState;

/// Public metadata may be cached for a while.
fn cacheable(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
    response
}

/// `GET /.well-known/oauth-authorization-server`.
pub async fn authorization_server(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let base = match admit(&state, &headers, None) {
        Ok(base) => base,
        Err(refused) => return refused.into_response(),
    };
    cacheable(
        Json(json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/oauth/authorize"),
            "token_endpoint": format!("{base}/oauth/token"),
            "registration_endpoint": format!("{base}/oauth/register"),
            "revocation_endpoint": format!("{base}/oauth/revoke"),
            "scopes_supported": SCOPES,
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true,
            "client_id_metadata_document_supported": true,
        }))
        .into_response(),
    )
}

/// `GET /.well-known/oauth-protected-resource/mcp/<folder>[/<sub>]`. Answered for any well-formed
/// endpoint, there or not, so it tells nobody which folders exist (the MCP endpoint itself answers
/// 401 before it looks, too).
pub async fn protected_resource(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(path): Path<String>,
) -> Response {
    let base = match admit(&state, &headers, None) {
        Ok(base) => base,
        Err(refused) => return refused.into_response(),
    };
    let Ok(endpoint) = FolderPath::parse(&path) else {
        return OAuthError::new("not_found", "no MCP endpoint at this path").into_response();
    };
    let scopes: &[&str] = if state.tools.read_only { &SCOPES[..1] } else { &SCOPES };
    cacheable(
        Json(json!({
            "resource": resource_uri(&base, &endpoint),
            "authorization_servers": [base],
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
            "resource_name": format!("ragdown: {endpoint}"),
        }))
        .into_response(),
    )
}

/// Every other `/.well-known/…`: a JSON 404.
pub async fn unknown() -> Response {
    OAuthError::new("not_found", "nothing is published at this well-known path").into_response()
}
