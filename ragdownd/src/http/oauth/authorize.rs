//! `GET /oauth/authorize`: checks an authorization request and sends the browser to the owner's
//! consent page.
//!
//! Who the client is and where it returns are checked first, and a failure there is shown as a
//! page, never a redirect (OAuth 2.1 §4.1.2.1: a bad `client_id` or `redirect_uri` must not send
//! the browser anywhere). The client is a client ID metadata document (an https `client_id`,
//! fetched, see [`crate::access::oauth::metadata`]) or one that registered here. Every later
//! failure goes back to the client as `error=…`, with `state` and `iss` (RFC 9207).

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::{Limit, admit, no_store, resource_path};
use crate::access::Level;
use crate::access::oauth::flow::{Client, ClientKind, Pending};
use crate::access::oauth::records::NewGrant;
use crate::access::oauth::{Rejected, level_of, metadata, pkce, redirect};
use crate::access::store::now_ms;
use crate::http::AppState;

/// The query of an authorization request.
#[derive(Debug, Deserialize)]
pub struct AuthorizeQuery {
    response_type: Option<String>,
    client_id: Option<String>,
    redirect_uri: Option<String>,
    state: Option<String>,
    scope: Option<String>,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    resource: Option<String>,
}

/// A page saying why the request cannot go on (shown in the browser of the person connecting).
fn error_page(status: StatusCode, message: &str) -> Response {
    let escaped = message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    let page = format!(
        "<!doctype html><meta charset=utf-8><title>ragdown: cannot connect</title>\
         <body style=\"font:16px system-ui;max-width:40rem;margin:3rem auto;padding:0 1rem\">\
         <h1>This app cannot connect</h1><p>{escaped}</p></body>"
    );
    no_store((status, Html(page)).into_response())
}

/// `redirect_uri` with the response's parameters and `iss` added to its query.
pub fn back_to_client(redirect_uri: &str, params: &[(&str, &str)], state: Option<&str>, issuer: &str) -> String {
    let Ok(mut url) = url::Url::parse(redirect_uri) else {
        return redirect_uri.to_string();
    };
    {
        let mut query = url.query_pairs_mut();
        for (key, value) in params {
            query.append_pair(key, value);
        }
        if let Some(state) = state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", issuer);
    }
    url.into()
}

fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    no_store(response)
}

/// Who is asking: from its metadata document, or as it registered here.
async fn client(state: &AppState, client_id: &str) -> Result<Client, Rejected> {
    if metadata::is_document_url(client_id) {
        let meta = state.oauth.fetcher.get(client_id, now_ms()).await?;
        return Ok(Client {
            id: meta.client_id,
            name: meta.client_name,
            uri: meta.client_uri,
            kind: ClientKind::MetadataDocument,
            redirect_uris: meta.redirect_uris,
        });
    }
    let record = state
        .access
        .registered_client(client_id)
        .ok_or("unknown client_id: this app is not registered here (it may have been removed); connect it again")?;
    Ok(Client {
        id: record.client_id,
        name: record.client_name,
        uri: record.client_uri,
        kind: ClientKind::Registered,
        redirect_uris: record.redirect_uris,
    })
}

/// `GET /oauth/authorize`.
pub async fn authorize(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Query(query): Query<AuthorizeQuery>,
) -> Response {
    let issuer = match admit(&state, &headers, Some(Limit::Authorize)) {
        Ok(base) => base,
        Err(refused) => return error_page(refused.status, &refused.description),
    };
    let Some(client_id) = query.client_id.as_deref().filter(|c| !c.is_empty()) else {
        return error_page(StatusCode::BAD_REQUEST, "client_id is required");
    };
    let client = match client(&state, client_id).await {
        Ok(client) => client,
        Err(why) => return error_page(StatusCode::BAD_REQUEST, &why.to_string()),
    };
    let redirect_uri = match query.redirect_uri.as_deref() {
        Some(uri) if redirect::matches(&client.redirect_uris, uri) => uri.to_string(),
        Some(_) => {
            return error_page(
                StatusCode::BAD_REQUEST,
                "redirect_uri is not one this app registered, so ragdown will not send you there",
            );
        }
        None => return error_page(StatusCode::BAD_REQUEST, "redirect_uri is required"),
    };
    let back = |error: &str, description: &str| {
        see_other(&back_to_client(
            &redirect_uri,
            &[("error", error), ("error_description", description)],
            query.state.as_deref(),
            &issuer,
        ))
    };
    if query.response_type.as_deref() != Some("code") {
        return back("unsupported_response_type", "response_type must be code");
    }
    let challenge = match pkce::check_challenge(query.code_challenge.as_deref(), query.code_challenge_method.as_deref())
    {
        Ok(challenge) => challenge,
        Err(why) => return back("invalid_request", &why.to_string()),
    };
    let Some(resource) = query.resource.as_deref().filter(|r| !r.is_empty()) else {
        return back(
            "invalid_target",
            "resource is required: the URL of the MCP endpoint (RFC 8707), like <server>/mcp/<folder>",
        );
    };
    let path = match resource_path(&issuer, resource) {
        Ok(path) => path,
        Err(why) => return back("invalid_target", &why.to_string()),
    };
    let mut access = match level_of(query.scope.as_deref()) {
        Ok(level) => level,
        Err(why) => return back("invalid_scope", &why.to_string()),
    };
    if state.tools.read_only {
        access = Level::Read;
    }
    let pending = Pending {
        id: String::new(),
        grant: NewGrant {
            client_id: client.id.clone(),
            client_name: client.name.clone(),
            resource: resource.to_string(),
            path,
            access,
        },
        client,
        redirect_uri: redirect_uri.clone(),
        state: query.state.clone(),
        challenge,
        csrf: String::new(),
        expires_ms: 0,
    };
    match state.oauth.flows.add(pending, now_ms()) {
        Ok(id) => see_other(&format!("/oauth/consent/{id}")),
        Err(_) => back("server_error", "no random bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_keeps_the_redirect_uri_s_own_query_and_adds_state_and_iss() {
        let url = back_to_client(
            "https://app.example/cb?tenant=a",
            &[("code", "abc")],
            Some("x y"),
            "http://127.0.0.1:3000",
        );
        assert_eq!(
            url,
            "https://app.example/cb?tenant=a&code=abc&state=x+y&iss=http%3A%2F%2F127.0.0.1%3A3000"
        );
        assert!(error_page(StatusCode::BAD_REQUEST, "<script>").status() == StatusCode::BAD_REQUEST);
    }
}
