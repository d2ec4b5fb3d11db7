//! OAuth 2.1 (issue 26, part 2) over real HTTP on a real `serve`, as an MCP client meets it: the
//! 401 challenge, discovery, registration, the authorization request, the owner's answer through
//! the consent page's API, the code exchange with PKCE, then the token at its MCP endpoint and
//! nowhere else; refresh with rotation; revocation. Each refusal is pinned beside a request that
//! succeeds, so a check that went missing fails a test. (The consent page itself, in Chromium, is
//! `web/e2e/oauth.spec.ts`; the official SDKs' flows are `tests/interop/`.)

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::api::{Answer, Api, TOKEN};
use crate::support::write;

const REDIRECT: &str = "http://127.0.0.1:4999/callback";
const VERIFIER: &str = "a-verifier-of-forty-three-characters-or-more-0123456789";

fn challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

fn form(pairs: &[(&str, &str)]) -> String {
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        out.append_pair(key, value);
    }
    out.finish()
}

/// The query parameters of a URL, as a JSON object.
fn query_of(url: &str) -> Value {
    let url = url::Url::parse(url).unwrap();
    let map: serde_json::Map<String, Value> = url.query_pairs().map(|(k, v)| (k.into_owned(), json!(v))).collect();
    Value::Object(map)
}

/// A call that does not follow redirects, with an optional bearer token, body and content type.
async fn raw(api: &Api, method: &'static str, path: &str, token: Option<&str>, body: Option<(&str, String)>) -> Answer {
    let url = format!("{}{path}", api.base);
    let token = token.map(str::to_string);
    let body = body.map(|(kind, text)| (kind.to_string(), text));
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .build()
            .into();
        let mut request = ureq::http::Request::builder()
            .method(method)
            .uri(&url)
            .header("Accept", "application/json, text/event-stream");
        if let Some(token) = &token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let bytes = match body {
            Some((kind, text)) => {
                request = request.header("Content-Type", kind);
                text.into_bytes()
            }
            None => Vec::new(),
        };
        let mut response = agent.run(request.body(bytes).unwrap()).unwrap();
        Answer {
            status: response.status().as_u16(),
            headers: response
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
                .collect(),
            body: response.body_mut().read_to_vec().unwrap(),
        }
    })
    .await
    .unwrap()
}

/// The answer (status line, headers, body) to a GET that names `host` as its `Host`.
async fn status_with_host(api: &Api, path: &str, host: &str) -> String {
    use std::io::{Read, Write};
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let addr = api.base.trim_start_matches("http://").to_string();
    tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    })
    .await
    .unwrap()
}

async fn post_form(api: &Api, path: &str, pairs: &[(&str, &str)]) -> Answer {
    raw(
        api,
        "POST",
        path,
        None,
        Some(("application/x-www-form-urlencoded", form(pairs))),
    )
    .await
}

async fn post_json(api: &Api, path: &str, token: Option<&str>, body: Value) -> Answer {
    raw(api, "POST", path, token, Some(("application/json", body.to_string()))).await
}

/// Registers a client (RFC 7591): its id.
async fn register(api: &Api, name: &str) -> String {
    let answer = post_json(
        api,
        "/oauth/register",
        None,
        json!({"client_name": name, "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}),
    )
    .await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    let body = answer.json();
    assert_eq!(body["token_endpoint_auth_method"], "none");
    body["client_id"].as_str().unwrap().to_string()
}

/// The authorization request's URL.
fn authorize_url(api: &Api, client: &str, endpoint: &str, scope: &str) -> String {
    let query = form(&[
        ("response_type", "code"),
        ("client_id", client),
        ("redirect_uri", REDIRECT),
        ("state", "st-1"),
        ("scope", scope),
        ("code_challenge", &challenge(VERIFIER)),
        ("code_challenge_method", "S256"),
        ("resource", &format!("{}/mcp/{endpoint}", api.base)),
    ]);
    format!("/oauth/authorize?{query}")
}

/// Asks for `endpoint`: the consent request as the owner's page reads it.
async fn ask(api: &Api, client: &str, endpoint: &str, scope: &str) -> Value {
    let answer = raw(api, "GET", &authorize_url(api, client, endpoint, scope), None, None).await;
    assert_eq!(answer.status, 303, "{}", answer.text());
    let location = answer.header("location").unwrap().to_string();
    let id = location.strip_prefix("/oauth/consent/").expect(&location).to_string();
    let request = raw(api, "GET", &format!("/api/oauth/requests/{id}"), Some(TOKEN), None).await;
    assert_eq!(request.status, 200, "{}", request.text());
    request.json()
}

/// The owner's answer: where the browser is sent.
async fn answer(api: &Api, request: &Value, decision: &str, access: Option<&str>) -> Value {
    let mut body = json!({"decision": decision, "csrf": request["csrf"]});
    if let Some(access) = access {
        body["access"] = json!(access);
    }
    let id = request["id"].as_str().unwrap();
    let answer = post_json(api, &format!("/api/oauth/requests/{id}"), Some(TOKEN), body).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    query_of(answer.json()["redirect"].as_str().unwrap())
}

async fn exchange(api: &Api, client: &str, code: &str, verifier: &str) -> Answer {
    post_form(
        api,
        "/oauth/token",
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("client_id", client),
            ("code_verifier", verifier),
        ],
    )
    .await
}

/// A whole approval of `endpoint`: (client id, code, token response).
async fn connect(api: &Api, endpoint: &str, access: Option<&str>) -> (String, String, Value) {
    let client = register(api, "Test app").await;
    let request = ask(api, &client, endpoint, "read write").await;
    let back = answer(api, &request, "allow", access).await;
    let code = back["code"].as_str().unwrap().to_string();
    let tokens = exchange(api, &client, &code, VERIFIER).await;
    assert_eq!(tokens.status, 200, "{}", tokens.text());
    assert_eq!(tokens.header("cache-control"), Some("no-store"));
    (client, code, tokens.json())
}

async fn tools(api: &Api, endpoint: &str, token: &str) -> Answer {
    post_json(
        api,
        endpoint,
        Some(token),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await
}

fn tool_names(answer: &Answer) -> Vec<String> {
    answer.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_knows_only_the_url_discovers_where_to_authorize() {
    let api = Api::start(&[]).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let bare = post_json(&api, "/mcp/ops", None, list.clone()).await;
    let base = &api.base;
    assert_eq!(bare.status, 401);
    let challenge = bare.header("www-authenticate").unwrap();
    assert_eq!(
        challenge,
        format!(
            "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp/ops\", scope=\"read write\""
        )
    );
    let wrong = tools(&api, "/mcp/ops", "rda_not-a-token").await;
    assert_eq!(wrong.status, 401);
    assert!(
        wrong
            .header("www-authenticate")
            .unwrap()
            .contains("error=\"invalid_token\"")
    );

    let prm = raw(&api, "GET", "/.well-known/oauth-protected-resource/mcp/ops", None, None).await;
    assert_eq!(prm.status, 200);
    assert_eq!(prm.json()["resource"], format!("{base}/mcp/ops"));
    assert_eq!(prm.json()["authorization_servers"], json!([base]));
    assert_eq!(
        prm.header("access-control-allow-origin"),
        Some("*"),
        "for browser-based clients"
    );

    let meta = raw(&api, "GET", "/.well-known/oauth-authorization-server", None, None)
        .await
        .json();
    assert_eq!(meta["issuer"], *base);
    assert_eq!(meta["authorization_endpoint"], format!("{base}/oauth/authorize"));
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(meta["authorization_response_iss_parameter_supported"], true);
    assert_eq!(meta["client_id_metadata_document_supported"], true);
    assert_eq!(meta["token_endpoint_auth_methods_supported"], json!(["none"]));

    // Probes of other well-known paths get JSON, never the web UI's page.
    let probe = raw(&api, "GET", "/.well-known/openid-configuration", None, None).await;
    assert_eq!(probe.status, 404);
    assert!(probe.json()["error"].is_string());
    // A host the server does not allow gets nothing (DNS rebinding): the issuer and resource URIs
    // are made from the Host, so a foreign one is refused, not echoed.
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource/mcp/ops",
        "/oauth/authorize?client_id=x",
    ] {
        let allowed = status_with_host(&api, path, &api.base["http://".len()..]).await;
        assert!(!allowed.contains("this host may not be used"), "{path}: {allowed}");
        let refused = status_with_host(&api, path, "evil.example").await;
        assert!(refused.starts_with("HTTP/1.1 400 "), "{path}: {refused}");
        assert!(refused.contains("this host may not be used"), "{path}: {refused}");
    }
    // The owner's token still works, and the scoped tokens' 403 is unchanged.
    assert_eq!(tools(&api, "/mcp/ops", TOKEN).await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_oauth_off_there_is_no_challenge_and_no_metadata() {
    let api = Api::start(&["--oauth", "false"]).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let bare = post_json(&api, "/mcp/ops", None, list).await;
    assert_eq!(bare.status, 401);
    assert_eq!(bare.header("www-authenticate"), None);
    let prm = raw(&api, "GET", "/.well-known/oauth-protected-resource/mcp/ops", None, None).await;
    assert_eq!(prm.status, 404);
    assert!(prm.json()["error"].is_string());
    assert_eq!(
        post_json(&api, "/oauth/register", None, json!({"redirect_uris": [REDIRECT]}))
            .await
            .status,
        404
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_client_works_with_exactly_what_was_approved_and_nowhere_else() {
    let api = Api::start(&[]).await;
    write(api.root(), "work/.ragdown.json", r#"{"title":"Work","mcp":true}"#);
    let client = register(&api, "Test app").await;
    let request = ask(&api, &client, "ops", "read write").await;
    assert_eq!(request["client"]["name"], "Test app");
    assert_eq!(request["client"]["redirect_host"], "127.0.0.1");
    assert_eq!(request["client"]["localhost_only"], true);
    assert_eq!(request["path"], "ops");
    assert_eq!(request["access"], "write");
    assert_eq!(request["available"], true);

    let back = answer(&api, &request, "allow", None).await;
    assert_eq!(back["state"], "st-1");
    assert_eq!(back["iss"], *api.base, "RFC 9207");
    let code = back["code"].as_str().unwrap();
    let tokens = exchange(&api, &client, code, VERIFIER).await.json();
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["scope"], "read write");
    assert_eq!(tokens["expires_in"], 3600);
    let token = tokens["access_token"].as_str().unwrap();
    assert!(token.starts_with("rda_"));

    let listed = tools(&api, "/mcp/ops", token).await;
    assert_eq!(listed.status, 200, "{}", listed.text());
    assert!(tool_names(&listed).contains(&"ragdown_write".to_string()));
    let write = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "ragdown_write", "arguments": {"path": "from-oauth.md", "text": "# From OAuth\n"}}});
    let wrote = post_json(&api, "/mcp/ops", Some(token), write).await;
    assert_eq!(wrote.status, 200, "{}", wrote.text());
    assert!(api.read("ops/from-oauth.md").ends_with("# From OAuth\n"));

    // Bound to its resource (RFC 8707): another folder, a subfolder, the root and /api refuse it,
    // where the owner's token is let in.
    for elsewhere in ["/mcp/work", "/mcp/ops/db"] {
        assert_eq!(tools(&api, elsewhere, TOKEN).await.status, 200, "{elsewhere}");
        let refused = tools(&api, elsewhere, token).await;
        assert_eq!(refused.status, 401, "{elsewhere}: {}", refused.text());
        assert!(refused.header("www-authenticate").unwrap().contains("invalid_token"));
    }
    let root = tools(&api, "/mcp", token).await;
    assert_eq!(root.status, 401, "{}", root.text());
    assert_eq!(
        raw(&api, "GET", "/api/docs?folder=ops", Some(TOKEN), None).await.status,
        200
    );
    assert_eq!(
        raw(&api, "GET", "/api/docs?folder=ops", Some(token), None).await.status,
        401
    );
    assert_eq!(
        raw(&api, "GET", "/api/access/grants", Some(token), None).await.status,
        401
    );

    // The grant is listed for the owner, with no token in it; revoking it ends the token at once.
    let grants = raw(&api, "GET", "/api/access/grants", Some(TOKEN), None).await;
    let listed = grants.json();
    assert_eq!(listed[0]["client_name"], "Test app");
    assert_eq!(listed[0]["path"], "ops");
    assert_eq!(listed[0]["access"], "write");
    assert!(!grants.text().contains(&token[4..]));
    let id = listed[0]["id"].as_str().unwrap();
    let revoked = raw(&api, "DELETE", &format!("/api/access/grants/{id}"), Some(TOKEN), None).await;
    assert_eq!(revoked.status, 200, "{}", revoked.text());
    assert_eq!(tools(&api, "/mcp/ops", token).await.status, 401);
    let refresh = post_form(
        &api,
        "/oauth/token",
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
            ("client_id", &client),
        ],
    )
    .await;
    assert_eq!(refresh.status, 400);
    assert_eq!(refresh.json()["error"], "invalid_grant");
    // Nothing on disk holds a token.
    let file = std::fs::read_to_string(api.root().join(".ragdown-access.json")).unwrap();
    assert!(!file.contains(&token[4..]) && !file.contains(code));
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_approval_and_deny() {
    let api = Api::start(&[]).await;
    let (_, _, tokens) = connect(&api, "ops", Some("read")).await;
    assert_eq!(tokens["scope"], "read");
    let token = tokens["access_token"].as_str().unwrap();
    let names = tool_names(&tools(&api, "/mcp/ops", token).await);
    assert!(names.contains(&"ragdown_recall".to_string()), "{names:?}");
    assert!(
        !names.iter().any(|n| n == "ragdown_write" || n == "ragdown_delete"),
        "{names:?}"
    );
    let write = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "ragdown_write", "arguments": {"path": "nope.md", "text": "x"}}});
    let body = post_json(&api, "/mcp/ops", Some(token), write).await.json();
    assert!(body["error"].is_object() || body["result"]["isError"] == true, "{body}");
    assert!(!api.path("ops/nope.md").exists());

    // A read request cannot be widened by the answer.
    let client = register(&api, "Reader").await;
    let request = ask(&api, &client, "ops", "read").await;
    let id = request["id"].as_str().unwrap();
    let widened = post_json(
        &api,
        &format!("/api/oauth/requests/{id}"),
        Some(TOKEN),
        json!({"decision": "allow", "csrf": request["csrf"], "access": "write"}),
    )
    .await;
    assert_eq!(widened.status, 400);
    // Deny: the client hears access_denied, with its state and the issuer.
    let back = answer(&api, &request, "deny", None).await;
    assert_eq!(back["error"], "access_denied");
    assert_eq!(back["state"], "st-1");
    assert_eq!(back["iss"], *api.base);
    assert!(back.get("code").is_none());
    assert_eq!(
        raw(&api, "GET", "/api/access/grants", Some(TOKEN), None)
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_answer_changes_nothing() {
    let api = Api::start(&[]).await;
    let client = register(&api, "Test app").await;
    let request = ask(&api, &client, "ops", "read write").await;
    let id = request["id"].as_str().unwrap();
    let path = format!("/api/oauth/requests/{id}");
    // Without the owner's token: 401. With it but without the page's CSRF secret: 403.
    let anonymous = post_json(&api, &path, None, json!({"decision": "allow", "csrf": request["csrf"]})).await;
    assert_eq!(anonymous.status, 401);
    for forged in [
        json!({"decision": "allow"}),
        json!({"decision": "allow", "csrf": "guess"}),
    ] {
        let refused = post_json(&api, &path, Some(TOKEN), forged).await;
        assert_eq!(refused.status, 403, "{}", refused.text());
    }
    // The request still waits, and the real answer works.
    assert_eq!(raw(&api, "GET", &path, Some(TOKEN), None).await.status, 200);
    assert!(answer(&api, &request, "allow", None).await["code"].is_string());
    assert_eq!(
        raw(&api, "GET", &path, Some(TOKEN), None).await.status,
        404,
        "answered once"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn codes_need_their_verifier_and_are_good_once() {
    let api = Api::start(&[]).await;
    // A wrong verifier: refused, and the code is spent.
    let client = register(&api, "Test app").await;
    let request = ask(&api, &client, "ops", "read write").await;
    let code = answer(&api, &request, "allow", None).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    let wrong = exchange(
        &api,
        &client,
        &code,
        "another-verifier-of-forty-three-characters-000000",
    )
    .await;
    assert_eq!(wrong.status, 400);
    assert_eq!(wrong.json()["error"], "invalid_grant");
    assert!(
        wrong.json()["error_description"]
            .as_str()
            .unwrap()
            .contains("code_verifier")
    );
    assert_eq!(
        exchange(&api, &client, &code, VERIFIER).await.json()["error"],
        "invalid_grant"
    );
    // Another client's code, and a missing verifier.
    let (other, _, _) = connect(&api, "ops", None).await;
    let request = ask(&api, &client, "ops", "read write").await;
    let code = answer(&api, &request, "allow", None).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    let missing = post_form(
        &api,
        "/oauth/token",
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("client_id", &client),
        ],
    )
    .await;
    assert_eq!(missing.json()["error"], "invalid_request");
    let request = ask(&api, &client, "ops", "read write").await;
    let code = answer(&api, &request, "allow", None).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        exchange(&api, &other, &code, VERIFIER).await.json()["error"],
        "invalid_grant"
    );

    // A code used twice: the second is refused and the tokens the first got are revoked.
    let (client, code, tokens) = connect(&api, "ops", None).await;
    let token = tokens["access_token"].as_str().unwrap();
    assert_eq!(tools(&api, "/mcp/ops", token).await.status, 200);
    let again = exchange(&api, &client, &code, VERIFIER).await;
    assert_eq!(again.json()["error"], "invalid_grant");
    assert_eq!(tools(&api, "/mcp/ops", token).await.status, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn refresh_tokens_rotate_and_a_reused_one_revokes_the_grant() {
    let api = Api::start(&[]).await;
    let (client, _, first) = connect(&api, "ops", None).await;
    let refresh = |token: String| {
        let client = client.clone();
        let api = &api;
        async move {
            post_form(
                api,
                "/oauth/token",
                &[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", &token),
                    ("client_id", &client),
                ],
            )
            .await
        }
    };
    let second = refresh(first["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(second.status, 200, "{}", second.text());
    let second = second.json();
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    let token = second["access_token"].as_str().unwrap();
    assert_eq!(tools(&api, "/mcp/ops", token).await.status, 200);
    // The first refresh token again: someone else holds a copy. The grant ends.
    let reused = refresh(first["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(reused.json()["error"], "invalid_grant");
    assert_eq!(tools(&api, "/mcp/ops", token).await.status, 401);
    let after = refresh(second["refresh_token"].as_str().unwrap().to_string()).await;
    assert_eq!(after.json()["error"], "invalid_grant");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_access_token_is_refused_with_the_challenge() {
    let api = Api::start(&[]).await;
    let (_, _, tokens) = connect(&api, "ops", None).await;
    let token = tokens["access_token"].as_str().unwrap();
    assert_eq!(tools(&api, "/mcp/ops", token).await.status, 200);
    // Age the token on disk, as an hour would (the server reads the file again when it changes),
    // under the file's lock, as the server's own writes (noting the use just made) take it.
    let file = api.root().join(".ragdown-access.json");
    ragdownd::documents::with_path_lock(&file, || {
        let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        value["grants"][0]["access_tokens"][0]["expires_ms"] = json!(1);
        std::fs::write(&file, format!("{value}\n\n")).unwrap();
    });
    let expired = tools(&api, "/mcp/ops", token).await;
    assert_eq!(expired.status, 401);
    assert!(expired.text().contains("expired"), "{}", expired.text());
    assert!(expired.header("www-authenticate").unwrap().contains("invalid_token"));
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_authorization_requests_never_redirect_anywhere_unregistered() {
    let api = Api::start(&[]).await;
    let client = register(&api, "Test app").await;
    let good = authorize_url(&api, &client, "ops", "read write");

    // Who and where first: shown as a page, never a redirect.
    let elsewhere = good.replace(
        &form(&[("x", REDIRECT)])[2..],
        &form(&[("x", "https://evil.example/cb")])[2..],
    );
    assert_ne!(elsewhere, good);
    for (path, needle) in [
        (elsewhere.as_str(), "redirect_uri"),
        (&good.replace(&client, "c0000000000000000") as &str, "unknown client_id"),
        (
            &good.replace(&client, "https%3A%2F%2F127.0.0.1%3A9%2Fclient.json"),
            "private address",
        ),
        (
            &good.replace(&client, "https%3A%2F%2Flocalhost%3A9%2Fclient.json"),
            "private address",
        ),
    ] {
        let answer = raw(&api, "GET", path, None, None).await;
        assert_eq!(answer.status, 400, "{path}: {}", answer.text());
        assert_eq!(answer.header("location"), None);
        assert!(answer.text().contains(needle), "{path}: {}", answer.text());
    }

    // Then everything else goes back to the client, with state and iss.
    let challenge = challenge(VERIFIER);
    for (from, to, error) in [
        (format!("code_challenge={challenge}&"), String::new(), "invalid_request"),
        (
            "code_challenge_method=S256".to_string(),
            "code_challenge_method=plain".to_string(),
            "invalid_request",
        ),
        (
            "response_type=code".to_string(),
            "response_type=token".to_string(),
            "unsupported_response_type",
        ),
        (
            "scope=read+write".to_string(),
            "scope=admin".to_string(),
            "invalid_scope",
        ),
        (
            "resource=".to_string(),
            "resource=https%3A%2F%2Fother.example%2Fmcp%2Fops&x=".to_string(),
            "invalid_target",
        ),
    ] {
        let path = good.replace(&from, &to);
        assert_ne!(path, good, "{from}");
        let answer = raw(&api, "GET", &path, None, None).await;
        assert_eq!(answer.status, 303, "{path}");
        let back = query_of(answer.header("location").unwrap());
        assert!(answer.header("location").unwrap().starts_with(REDIRECT));
        assert_eq!(back["error"], error, "{path}");
        assert_eq!(back["state"], "st-1");
        assert_eq!(back["iss"], *api.base);
    }
    // A registration with an unsafe redirect URI is refused.
    for bad in ["http://evil.example/cb", "javascript:alert(1)"] {
        let refused = post_json(&api, "/oauth/register", None, json!({"redirect_uris": [bad]})).await;
        assert_eq!(refused.status, 400);
        assert_eq!(refused.json()["error"], "invalid_redirect_uri");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn registration_is_rate_limited() {
    let api = Api::start(&[]).await;
    let mut statuses = Vec::new();
    for _ in 0..12 {
        let answer = post_json(&api, "/oauth/register", None, json!({"redirect_uris": [REDIRECT]})).await;
        statuses.push(answer.status);
    }
    assert_eq!(statuses.iter().filter(|s| **s == 201).count(), 10, "{statuses:?}");
    assert_eq!(statuses.last(), Some(&429));
}

/// Sends a POST to `path` without a token, its body in a second write after the headers (as a
/// client under load does), reads the refusal, then asks for the authorization-server metadata
/// on the same connection: both status lines ("closed" when the connection was closed).
async fn refusal_then_reuse(api: &Api, path: &str) -> (String, String) {
    use std::io::{Read, Write};
    let addr = api.base.trim_start_matches("http://").to_string();
    let host = addr.clone();
    let path = path.to_string();
    tokio::task::spawn_blocking(move || {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        stream.write_all(body.as_bytes()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let mut buffer = [0u8; 65536];
        let n = stream.read(&mut buffer).unwrap();
        let first = String::from_utf8_lossy(&buffer[..n]).lines().next().unwrap_or_default().to_string();
        let again = format!("GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: {host}\r\n\r\n");
        let second = match stream.write_all(again.as_bytes()) {
            Err(_) => "closed".to_string(),
            Ok(()) => match stream.read(&mut buffer) {
                Ok(0) | Err(_) => "closed".to_string(),
                Ok(n) => String::from_utf8_lossy(&buffer[..n]).lines().next().unwrap_or_default().to_string(),
            },
        };
        (first, second)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_may_reuse_its_connection_after_a_refusal() {
    // An OAuth client's first POST is refused before its body is read; it then fetches the
    // metadata on the same pooled connection. Left unread, a body that came after the headers
    // made the server close the connection, and the client met a reset (seen in CI as the Python
    // SDK's httpx.ReadError).
    let api = Api::start(&[]).await;
    for path in ["/mcp/ops", "/mcp", "/api/doc"] {
        let (first, second) = refusal_then_reuse(&api, path).await;
        assert!(first.starts_with("HTTP/1.1 401"), "{path}: {first}");
        assert!(second.starts_with("HTTP/1.1 200"), "{path}: then {second}");
    }
}
