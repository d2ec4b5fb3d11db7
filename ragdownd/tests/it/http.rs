//! `serve` in-process on an ephemeral port: status, auth, folders and MCP over streamable HTTP.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{expected, fixture, serve, write};

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
    start_with(&[]).await
}

/// `serve` on the test folders with extra command-line arguments.
async fn start_with(extra: &[&str]) -> Server {
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
    let (base, stop) = serve(docs.path(), data.path(), TOKEN, extra).await;
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
        assert_eq!(
            (status, body.as_str()),
            (
                404,
                r#"{"error":"Not found: no folder with MCP turned on at this path"}"#
            ),
            "{folder}"
        );
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

/// One `tools/call` over HTTP; (is_error, text).
async fn call_tool(url: &str, name: &str, arguments: Value) -> (bool, String) {
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}});
    let (status, _, body) = http("POST", url.to_string(), Some(TOKEN), Some(call)).await;
    assert_eq!(status, 200, "{body}");
    let result: Value = serde_json::from_str(&body).unwrap();
    let result = &result["result"];
    (
        result["isError"] == true,
        result["content"][0]["text"].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_root_endpoint_spans_every_mcp_folder_and_makes_folders() {
    let server = start_with(&["--root-mcp", "true"]).await;
    let docs = server._docs.path();
    write(docs, "work/.ragdown.json", r#"{"mcp": true, "title": "Work"}"#);
    write(
        docs,
        "work/restore.md",
        "# Restore drill\n\nRun pg_restore against the staging copy every quarter.\n",
    );
    write(
        docs,
        "private/drill.md",
        "# Drill\n\npg_restore secrets of the private folder.\n",
    );
    let url = format!("{}/mcp", server.base);
    wait_ready(&server).await;
    call_tool(&format!("{}/mcp/ops", server.base), "ragdown_reindex", json!({})).await;

    let (status, _, body) = http("POST", url.clone(), Some(TOKEN), Some(initialize())).await;
    assert_eq!(status, 200, "{body}");
    let init: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "ragdown");

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (_, _, body) = http("POST", url.clone(), Some(TOKEN), Some(list)).await;
    let tools: Value = serde_json::from_str(&body).unwrap();
    let tools = tools["result"]["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).cloned().unwrap();
    assert_eq!(tools.len(), 14);
    let required = |name: &str| tool(name)["inputSchema"]["required"].clone();
    assert!(
        required("ragdown_read_doc")
            .as_array()
            .unwrap()
            .contains(&json!("folder"))
    );
    assert!(
        !required("ragdown_recall")
            .as_array()
            .unwrap()
            .contains(&json!("folder"))
    );
    assert!(tool("ragdown_recall")["inputSchema"]["properties"]["folder"].is_object());
    assert!(
        tool("ragdown_reindex")["inputSchema"]["properties"]
            .get("folder")
            .is_none()
    );

    // No folder: every MCP folder, each hit naming its own; never the human-only one.
    let (is_error, text) = call_tool(&url, "ragdown_recall", json!({"query": "pg_restore", "top_k": 10})).await;
    assert!(!is_error, "{text}");
    assert!(text.contains("] [ops] backups.md:"), "{text}");
    assert!(text.contains("] [work] restore.md:"), "{text}");
    assert!(!text.contains("private") && !text.contains("secrets"), "{text}");
    let (_, listed) = call_tool(&url, "ragdown_list", json!({})).await;
    assert_eq!(listed.lines().next(), Some("documents: 2"), "{listed}");
    assert!(listed.contains("\n[work] restore.md — Restore drill"), "{listed}");

    // A folder narrows to it, with folder-relative paths.
    let (_, text) = call_tool(&url, "ragdown_recall", json!({"query": "pg_restore", "folder": "work"})).await;
    assert!(text.starts_with("[1] restore.md:"), "{text}");
    let (is_error, text) = call_tool(
        &url,
        "ragdown_read_doc",
        json!({"folder": "work", "path": "restore.md"}),
    )
    .await;
    assert!(!is_error && text.starts_with("restore.md:1-4 of 4 (hash "), "{text}");

    // Tools that name a document need a folder; a human-only folder is as good as missing.
    let (is_error, text) = call_tool(&url, "ragdown_read_doc", json!({"path": "restore.md"})).await;
    assert!(is_error && text.contains("ragdown_read_doc needs a folder"), "{text}");
    for folder in ["private", "nope"] {
        let (is_error, text) = call_tool(&url, "ragdown_read_doc", json!({"folder": folder, "path": "drill.md"})).await;
        assert!(is_error, "{text}");
        assert_eq!(
            text,
            format!("no folder named \"{folder}\" (ragdown_folders lists the folders this server offers)")
        );
    }
    let (is_error, text) = call_tool(&url, "ragdown_reindex", json!({"folder": "work"})).await;
    assert!(is_error && text.contains("unknown field `folder`"), "{text}");

    let (_, text) = call_tool(&url, "ragdown_folders", json!({})).await;
    assert_eq!(
        text,
        "folders: 2\nops — Operations (1 document)\nwork — Work (1 document)"
    );

    // Making a folder: MCP on, marked as an agent's, never over an existing one.
    let (is_error, text) = call_tool(
        &url,
        "ragdown_create_folder",
        json!({"name": "Field notes", "title": "Field"}),
    )
    .await;
    assert!(!is_error, "{text}");
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(docs.join("Field notes/.ragdown.json")).unwrap()).unwrap();
    assert_eq!(
        settings,
        json!({"title": "Field", "mcp": true, "created_by": "ragdown_create_folder"})
    );
    let (is_error, text) = call_tool(&url, "ragdown_create_folder", json!({"name": "private"})).await;
    assert!(
        is_error && text.starts_with("a folder named \"private\" already exists"),
        "{text}"
    );
    assert!(!docs.join("private/.ragdown.json").exists());
    let (is_error, text) = call_tool(&url, "ragdown_create_folder", json!({"name": "../escape"})).await;
    assert!(is_error && text.starts_with("not a valid folder name"), "{text}");
    let (is_error, text) = call_tool(
        &url,
        "ragdown_write",
        json!({"folder": "Field notes", "path": "first.md", "text": "# First\n"}),
    )
    .await;
    assert!(!is_error && text.starts_with("created first.md"), "{text}");
    assert!(docs.join("Field notes/first.md").is_file());

    // The folder listing for people names loose files and every folder.
    let (status, _, body) = http("GET", format!("{}/api/folders", server.base), Some(TOKEN), None).await;
    assert_eq!(status, 200);
    let folders: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(folders["loose_files"], json!(["loose.md"]));
    let names: Vec<&str> = folders["folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Field notes", "ops", "private", "work"]);
    assert_eq!(folders["folders"][0]["mcp_path"], "/mcp/Field%20notes");
    assert_eq!(folders["folders"][0]["created_by"], "ragdown_create_folder");
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_connections_close_after_the_keep_alive_timeout() {
    use std::io::{Read, Write};
    let server = start_with(&["--keep-alive-ms", "300"]).await;
    let addr = server.base.trim_start_matches("http://").to_string();
    let outcome = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream
            .write_all(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
            .unwrap();
        let mut received = Vec::new();
        let mut buf = [0u8; 4096];
        let started = Instant::now();
        // Read the answer, then keep reading: the server must end the idle connection itself.
        loop {
            match stream.read(&mut buf) {
                Ok(0) => return Ok((received, started.elapsed())),
                Ok(n) => received.extend_from_slice(&buf[..n]),
                Err(err) => return Err(err.kind()),
            }
        }
    })
    .await
    .unwrap();
    let (received, elapsed) = outcome.expect("the idle connection was never closed");
    let head = String::from_utf8_lossy(&received);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.to_lowercase().contains("keep-alive: timeout=0"), "{head}");
    assert!(elapsed < Duration::from_secs(9), "{elapsed:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_right_token_is_never_answered_401_whatever_protocol_version_is_probed() {
    let server = start().await;
    wait_ready(&server).await;
    let url = format!("{}/mcp/ops", server.base);
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01"] {
        let outcome = tokio::task::spawn_blocking({
            let url = url.clone();
            move || {
                let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
                let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
                let mut statuses = Vec::new();
                for body in [init, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})] {
                    let response = agent
                        .post(&url)
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json, text/event-stream")
                        .header("Authorization", &format!("Bearer {TOKEN}"))
                        .header("MCP-Protocol-Version", version)
                        .send(body.to_string())
                        .unwrap();
                    statuses.push(response.status().as_u16());
                }
                statuses
            }
        })
        .await
        .unwrap();
        assert!(!outcome.contains(&401), "{version}: {outcome:?}");
        assert_eq!(outcome[0], 200, "{version}: initialize must answer");
    }
}
