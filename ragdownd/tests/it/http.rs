//! `serve` in-process on an ephemeral port: status, auth, folders and MCP over streamable HTTP.

use std::time::{Duration, Instant};

use clap::Parser;
use ragdownd::config::{Cli, Config};
use serde_json::{Value, json};

use crate::support::{expected, fixture, write};

struct Server {
    base: String,
    _docs: tempfile::TempDir,
    _data: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

const TOKEN: &str = "s3cret-token";

async fn start() -> Server {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    write(
        docs.path(),
        "ops/backups.md",
        &std::fs::read_to_string(fixture("http-ops-backups.md")).unwrap(),
    );
    write(
        docs.path(),
        "ops/.ragdown.json",
        &std::fs::read_to_string(fixture("http-ops-ragdown.json")).unwrap(),
    );
    write(docs.path(), "private/secret.md", "# Secret\n\nNot served over MCP.");
    write(docs.path(), "loose.md", "# Loose\n\nListed, not indexed.");
    let cli = Cli::try_parse_from([
        "ragdownd",
        "serve",
        "--docs",
        docs.path().to_str().unwrap(),
        "--data",
        data.path().to_str().unwrap(),
        "--embedder",
        "hash",
        "--watch",
        "false",
        "--token",
        TOKEN,
    ])
    .unwrap();
    let config = Config::from_cli(cli, None, Some(data.path().to_path_buf())).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(ragdownd::app::run_serve(config, listener, async move {
        let _ = stopped.await;
    }));
    Server {
        base,
        _docs: docs,
        _data: data,
        stop: Some(stop),
    }
}

/// A blocking HTTP call on a worker thread: (status, headers' keep-alive, body).
async fn http(
    method: &'static str,
    url: String,
    token: Option<&'static str>,
    body: Option<Value>,
) -> (u16, String, String) {
    http_with(method, url, token, body, None).await
}

/// As [`http`], with an `Origin` header.
async fn http_with(
    method: &'static str,
    url: String,
    token: Option<&'static str>,
    body: Option<Value>,
    origin: Option<&'static str>,
) -> (u16, String, String) {
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut response = match (method, body) {
            ("GET", _) => {
                let mut request = agent.get(&url);
                if let Some(token) = token {
                    request = request.header("Authorization", &format!("Bearer {token}"));
                }
                request.call().unwrap()
            }
            (_, body) => {
                let mut request = agent
                    .post(&url)
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream");
                if let Some(token) = token {
                    request = request.header("Authorization", &format!("bearer   {token}"));
                }
                if let Some(origin) = origin {
                    request = request.header("Origin", origin);
                }
                request.send(body.unwrap_or(json!({})).to_string()).unwrap()
            }
        };
        let keep_alive = response
            .headers()
            .get("keep-alive")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let status = response.status().as_u16();
        (status, keep_alive, response.body_mut().read_to_string().unwrap())
    })
    .await
    .unwrap()
}

async fn wait_ready(server: &Server) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, _, body) = http("GET", format!("{}/api/status", server.base), None, None).await;
        let status: Value = serde_json::from_str(&body).unwrap();
        if status["ready"] == true && status["syncing"] == false && status["last_sync"].is_object() {
            return status;
        }
        assert!(Instant::now() < deadline, "not ready in time: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
}

#[tokio::test(flavor = "multi_thread")]
async fn status_counts_only_folder_documents_and_says_keep_alive() {
    let server = start().await;
    let status = wait_ready(&server).await;
    let subset = &expected()["http_status_subset"];
    assert_eq!(status["name"], subset["name"]);
    assert_eq!(
        (status["files"].as_u64(), status["chunks"].as_u64()),
        (Some(2), Some(2)),
        "{status}"
    );
    assert_eq!(status["settings"]["text_limit"], subset["settings"]["text_limit"]);
    let (_, keep_alive, _) = http("GET", format!("{}/api/status", server.base), None, None).await;
    assert_eq!(keep_alive, expected()["http_keep_alive_header"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_needs_the_token_and_a_folder_with_mcp_on() {
    let server = start().await;
    wait_ready(&server).await;
    let (status, _, body) = http("POST", format!("{}/mcp/ops", server.base), None, Some(initialize())).await;
    assert_eq!((status, body.as_str()), (401, r#"{"error":"Unauthorized"}"#));
    let (status, _, _) = http(
        "POST",
        format!("{}/mcp/ops", server.base),
        Some("wrong"),
        Some(initialize()),
    )
    .await;
    assert_eq!(status, 401);
    let (status, _, body) = http("POST", format!("{}/mcp", server.base), Some(TOKEN), Some(initialize())).await;
    assert_eq!(status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        expected()["http_bare_mcp_404_body"]
    );
    for folder in ["private", "missing", ".git"] {
        let (status, _, body) = http(
            "POST",
            format!("{}/mcp/{folder}", server.base),
            Some(TOKEN),
            Some(initialize()),
        )
        .await;
        assert_eq!((status, body.as_str()), (404, r#"{"error":"Not found"}"#), "{folder}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_is_an_mcp_server_with_folder_relative_paths() {
    let server = start().await;
    wait_ready(&server).await;
    let url = format!("{}/mcp/ops", server.base);
    let (status, _, body) = http("POST", url.clone(), Some(TOKEN), Some(initialize())).await;
    assert_eq!(status, 200, "{body}");
    let init: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], expected()["http_mcp_server_name"]);
    assert!(
        init["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("the \"Operations\" folder")
    );

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "ragdown_recall", "arguments": {"query": "pg_restore postgres"}}});
    let (status, _, body) = http("POST", url.clone(), Some(TOKEN), Some(call)).await;
    assert_eq!(status, 200, "{body}");
    let result: Value = serde_json::from_str(&body).unwrap();
    let text = result["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("[1] backups.md:5-5 — Backups › Restore (similarity "),
        "{text}"
    );
    assert!(!text.contains("secret"), "another folder's document leaked: {text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn write_tools_work_over_http_and_bad_requests_are_refused() {
    let server = start().await;
    wait_ready(&server).await;
    let url = format!("{}/mcp/ops", server.base);
    let call = |name: &str, arguments: Value| json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    let (status, _, body) = http(
        "POST",
        url.clone(),
        Some(TOKEN),
        Some(call(
            "ragdown_write",
            json!({"path": "new.md", "text": "# New\n\nWritten over HTTP."}),
        )),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let result: Value = serde_json::from_str(&body).unwrap();
    let text = result["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("created new.md (hash "),
        "paths are folder-relative: {text}"
    );
    assert!(server._docs.path().join("ops/new.md").is_file());

    // A web page on another site must not drive the server through a browser.
    let (status, _, _) = http_with(
        "POST",
        url.clone(),
        Some(TOKEN),
        Some(call("ragdown_stats", json!({}))),
        Some("http://evil.example"),
    )
    .await;
    assert_eq!(status, 403);

    let huge = "x".repeat(ragdownd::http::MAX_BODY_BYTES + 1);
    let (status, _, body) = http(
        "POST",
        url,
        Some(TOKEN),
        Some(call("ragdown_write", json!({"path": "big.md", "text": huge}))),
    )
    .await;
    assert_eq!((status, body.as_str()), (413, r#"{"error":"Body too large"}"#));
    assert!(!server._docs.path().join("ops/big.md").exists());
}
