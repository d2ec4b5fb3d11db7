//! Scoped tokens (issue 26, part 1) over real HTTP on a real `serve`: made by the owner through
//! `/api/access/tokens`, then used at `/mcp/<folder>[/<sub>]` and on `/api` as an agent would.
//! Each refusal is checked beside the same request with the owner's token succeeding, so a test
//! fails if the check it pins were missing.

use serde_json::{Value, json};

use crate::api::{Answer, Api, ApiClient, TOKEN};
use crate::support::{serve, write};

/// Makes a token as the owner: (id, secret).
async fn make(api: &ApiClient, name: &str, scope: &[&str], access: &str) -> (String, String) {
    let answer = api
        .send(
            "POST",
            "/api/access/tokens",
            Some(json!({"name": name, "scope": scope, "access": access})),
        )
        .await;
    assert_eq!(answer.status, 201, "{}", answer.text());
    let body = answer.json();
    let secret = body["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("rdt_"), "{secret}");
    (body["token"]["id"].as_str().unwrap().to_string(), secret)
}

/// One JSON-RPC request to an MCP endpoint with `token`.
async fn mcp(api: &ApiClient, path: &str, token: &str, body: Value) -> Answer {
    api.call_with(
        "POST",
        path,
        Some(body.to_string().into_bytes()),
        Some(token),
        &[("Accept", "application/json, text/event-stream")],
    )
    .await
}

/// The tool names an MCP endpoint lists to `token`.
async fn tool_names(api: &ApiClient, path: &str, token: &str) -> Vec<String> {
    let answer = mcp(
        api,
        path,
        token,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.text());
    answer.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

fn tool_call(name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// A call with `token` (any: the owner's or a scoped one) and an optional JSON body.
async fn call(api: &ApiClient, method: &'static str, path: &str, token: &str, body: Option<Value>) -> Answer {
    api.call(method, path, body.map(|b| b.to_string().into_bytes()), Some(token))
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_token_lists_no_write_tools_and_every_write_is_refused() {
    let api = Api::start(&[]).await;
    let (_, read) = make(&api, "reader", &["ops"], "read").await;

    let owners = tool_names(&api, "/mcp/ops", TOKEN).await;
    assert!(owners.iter().any(|t| t == "ragdown_write"), "{owners:?}");
    let readers = tool_names(&api, "/mcp/ops", &read).await;
    assert!(readers.iter().any(|t| t == "ragdown_recall"), "{readers:?}");
    for write_tool in [
        "ragdown_write",
        "ragdown_edit",
        "ragdown_append",
        "ragdown_delete",
        "ragdown_move",
    ] {
        assert!(
            !readers.iter().any(|t| t == write_tool),
            "{write_tool} listed: {readers:?}"
        );
    }

    let write = tool_call("ragdown_write", json!({"path": "agent.md", "text": "# Agent\n"}));
    let answer = mcp(&api, "/mcp/ops", &read, write).await;
    let body = answer.json();
    assert!(body["error"].is_object() || body["result"]["isError"] == true, "{body}");
    assert!(!api.path("ops/agent.md").exists(), "a read token wrote over MCP");

    let before = api.snapshot();
    let save = json!({"path": "ops/new.md", "text": "# New\n"});
    assert_eq!(call(&api, "POST", "/api/doc", &read, Some(save)).await.status, 403);
    assert_eq!(
        call(&api, "DELETE", "/api/doc?path=ops/backups.md", &read, None)
            .await
            .status,
        403
    );
    let moved = json!({"from": "ops/backups.md", "to": "ops/b.md"});
    assert_eq!(call(&api, "POST", "/api/move", &read, Some(moved)).await.status, 403);
    assert_eq!(api.snapshot(), before, "a refused write changed nothing");

    let doc = call(&api, "GET", "/api/doc?path=ops/backups.md", &read, None).await;
    assert_eq!(doc.status, 200, "{}", doc.text());
    let recall = mcp(
        &api,
        "/mcp/ops",
        &read,
        tool_call("ragdown_recall", json!({"query": "restic"})),
    )
    .await;
    assert_eq!(recall.json()["result"]["isError"], false, "{}", recall.text());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_is_refused_outside_its_folders_and_on_the_owner_s_routes() {
    let api = Api::start(&["--root-mcp", "true"]).await;
    write(api.root(), "work/.ragdown.json", r#"{"mcp": true}"#);
    write(api.root(), "work/plan.md", "# Plan\n\nRestic for work too.\n");
    let (_, token) = make(&api, "ops writer", &["ops"], "write").await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});

    // Another folder with MCP on, and the root that spans them all.
    assert_eq!(mcp(&api, "/mcp/work", TOKEN, list.clone()).await.status, 200);
    let other = mcp(&api, "/mcp/work", &token, list.clone()).await;
    assert_eq!(other.status, 403, "{}", other.text());
    assert!(other.text().contains("opens only ops"), "{}", other.text());
    assert_eq!(mcp(&api, "/mcp/nowhere", &token, list.clone()).await.status, 403);
    assert_eq!(mcp(&api, "/mcp", TOKEN, list.clone()).await.status, 200);
    assert_eq!(mcp(&api, "/mcp", &token, list.clone()).await.status, 403);

    // Search, documents and files of another folder.
    for (path, owner_status) in [
        ("/api/search?folder=work&q=restic", 200),
        ("/api/search?folder=private&q=secret", 200),
        ("/api/doc?path=private/secret.md", 200),
        ("/api/file?path=private/secret.md", 200),
        ("/api/backlinks?path=private/secret.md", 200),
        ("/api/history?path=private/secret.md", 200),
        ("/api/docs?folder=private", 200),
    ] {
        assert_eq!(
            call(&api, "GET", path, TOKEN, None).await.status,
            owner_status,
            "owner: {path}"
        );
        let answer = call(&api, "GET", path, &token, None).await;
        assert!(
            answer.status == 403 || answer.status == 400,
            "{path}: {} {}",
            answer.status,
            answer.text()
        );
    }
    let climbing = call(&api, "GET", "/api/doc?path=ops/../private/secret.md", &token, None).await;
    assert_eq!(climbing.status, 403, "{}", climbing.text());
    let ops = call(&api, "GET", "/api/search?folder=ops&q=restic", &token, None).await;
    assert_eq!(ops.status, 200, "{}", ops.text());
    assert!(!ops.json()["hits"].as_array().unwrap().is_empty());
    let write_there = json!({"path": "private/agent.md", "text": "# Agent\n"});
    assert_eq!(
        call(&api, "POST", "/api/doc", &token, Some(write_there)).await.status,
        403
    );
    assert!(!api.path("private/agent.md").exists());

    // Lists show only its folder.
    let folders = call(&api, "GET", "/api/folders", &token, None).await.json();
    let names: Vec<&str> = folders["folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ops"]);
    assert_eq!(folders["loose_files"], json!([]));
    let docs = call(&api, "GET", "/api/docs", &token, None).await.json();
    let docs = docs["docs"].as_array().unwrap();
    assert!(!docs.is_empty());
    assert!(
        docs.iter().all(|d| d["path"].as_str().unwrap().starts_with("ops/")),
        "{docs:?}"
    );

    // A change in another folder is not in its history, nor the version it made.
    let saved = call(
        &api,
        "POST",
        "/api/doc",
        TOKEN,
        Some(json!({"path": "private/diary.md", "text": "# Diary\n"})),
    )
    .await;
    assert_eq!(saved.status, 201, "{}", saved.text());
    let hash = saved.json()["hash"].as_str().unwrap().to_string();
    let owners = call(&api, "GET", "/api/history/changes", TOKEN, None).await.json();
    assert!(owners.to_string().contains("private/diary.md"));
    let tokens = call(&api, "GET", "/api/history/changes", &token, None).await;
    assert_eq!(tokens.status, 200, "{}", tokens.text());
    assert!(!tokens.text().contains("private/"), "{}", tokens.text());
    let version = format!("/api/history/version?hash={hash}");
    assert_eq!(call(&api, "GET", &version, TOKEN, None).await.status, 200);
    assert_eq!(call(&api, "GET", &version, &token, None).await.status, 404);
    let restore = json!({"path": "ops/copied.md", "hash": hash});
    assert_eq!(
        call(&api, "POST", "/api/history/restore", &token, Some(restore.clone()))
            .await
            .status,
        404
    );
    assert!(
        !api.path("ops/copied.md").exists(),
        "another folder's version reached the token's"
    );
    assert_eq!(
        call(&api, "POST", "/api/history/restore", TOKEN, Some(restore))
            .await
            .status,
        200
    );
    assert!(api.path("ops/copied.md").exists());

    // The owner's routes, even with a write token and even those that only read.
    for (method, path, body) in [
        ("PATCH", "/api/settings", Some(json!({"text_limit": 100}))),
        ("GET", "/api/query-log", None),
        ("GET", "/api/access/tokens", None),
        (
            "POST",
            "/api/access/tokens",
            Some(json!({"name": "more", "scope": ["work"], "access": "write"})),
        ),
        ("POST", "/api/folders", Some(json!({"name": "new-folder"}))),
        ("PATCH", "/api/folders/ops", Some(json!({"mcp": false}))),
        ("DELETE", "/api/loose?name=loose.md", None),
    ] {
        let answer = call(&api, method, path, &token, body).await;
        assert_eq!(
            answer.error(403),
            "Forbidden: only the owner's token (RAGDOWN_TOKEN) may use this",
            "{method} {path}"
        );
    }
    assert_eq!(call(&api, "GET", "/api/query-log", TOKEN, None).await.status, 200);
    assert!(api.path("loose.md").exists());
    assert!(!api.path("new-folder").exists());
    let status = call(&api, "GET", "/api/status", TOKEN, None).await.json();
    assert_eq!(status["settings"]["text_limit"], 2000, "the settings did not change");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_token_writes_in_its_folder() {
    let api = Api::start(&[]).await;
    let (_, token) = make(&api, "writer", &["ops"], "write").await;
    let tools = tool_names(&api, "/mcp/ops", &token).await;
    assert!(tools.iter().any(|t| t == "ragdown_write"), "{tools:?}");
    let write = tool_call(
        "ragdown_write",
        json!({"path": "agent.md", "text": "# Agent\n\nWritten by a scoped token.\n"}),
    );
    let answer = mcp(&api, "/mcp/ops", &token, write).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["result"]["isError"], false, "{}", answer.text());
    assert!(
        api.read("ops/agent.md")
            .ends_with("# Agent\n\nWritten by a scoped token.\n")
    );
    let save = call(
        &api,
        "POST",
        "/api/doc",
        &token,
        Some(json!({"path": "ops/api.md", "text": "# Api\n"})),
    )
    .await;
    assert_eq!(save.status, 201, "{}", save.text());
    assert_eq!(api.read("ops/api.md"), "# Api\n");

    // Rewritten, then its first version restored, both with the token.
    let first = call(&api, "GET", "/api/doc?path=ops/api.md", &token, None).await.json()["hash"].clone();
    let rewrite = json!({"path": "ops/api.md", "text": "# Api v2\n", "base_hash": first});
    let saved = call(&api, "POST", "/api/doc", &token, Some(rewrite)).await;
    assert_eq!(saved.status, 200, "{}", saved.text());
    let restore = json!({"path": "ops/api.md", "hash": first});
    let restored = call(&api, "POST", "/api/history/restore", &token, Some(restore)).await;
    assert_eq!(restored.status, 200, "{}", restored.text());
    assert_eq!(api.read("ops/api.md"), "# Api\n");

    // The history says which token made each change, over MCP and over /api; the owner's own
    // change names none.
    let owned = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/owner.md", "text": "# Owner\n"})),
        )
        .await;
    assert_eq!(owned.status, 201, "{}", owned.text());
    let changes = api.send("GET", "/api/history/changes?folder=ops", None).await.json();
    let who: Vec<(String, String)> = changes["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let path = e["ops"][0]["path"].as_str().unwrap_or_default().to_string();
            (path, e["who"]["token"].as_str().unwrap_or("(owner)").to_string())
        })
        .collect();
    assert_eq!(
        who,
        [
            ("ops/owner.md".to_string(), "(owner)".to_string()),
            ("ops/api.md".to_string(), "writer".to_string()),
            ("ops/api.md".to_string(), "writer".to_string()),
            ("ops/api.md".to_string(), "writer".to_string()),
            ("ops/agent.md".to_string(), "writer".to_string()),
        ],
        "{changes}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subfolder_token_opens_that_subfolder_and_nothing_above_it() {
    let api = Api::start(&[]).await;
    let bad = api
        .send(
            "POST",
            "/api/access/tokens",
            Some(json!({"name": "x", "scope": ["ops/nope"], "access": "read"})),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text());
    let (_, token) = make(&api, "db reader", &["ops/db"], "write").await;

    assert!(!tool_names(&api, "/mcp/ops", TOKEN).await.is_empty());
    let root = mcp(
        &api,
        "/mcp/ops",
        &token,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert_eq!(root.status, 403, "{}", root.text());
    assert!(!tool_names(&api, "/mcp/ops/db", &token).await.is_empty());

    assert_eq!(
        call(&api, "GET", "/api/doc?path=ops/db/postgres.md", &token, None)
            .await
            .status,
        200
    );
    assert_eq!(
        call(&api, "GET", "/api/doc?path=ops/backups.md", TOKEN, None)
            .await
            .status,
        200
    );
    assert_eq!(
        call(&api, "GET", "/api/doc?path=ops/backups.md", &token, None)
            .await
            .status,
        403
    );
    assert_eq!(
        call(&api, "GET", "/api/doc?path=ops/db/../backups.md", &token, None)
            .await
            .status,
        403
    );
    let save = json!({"path": "ops/top.md", "text": "# Top\n"});
    assert_eq!(call(&api, "POST", "/api/doc", &token, Some(save)).await.status, 403);
    assert!(!api.path("ops/top.md").exists());

    // The folder is listed with what the token opens of it, and counted over that alone.
    let count = |list: Value| list["folders"][0]["files"].as_u64().unwrap();
    assert_eq!(count(call(&api, "GET", "/api/folders", TOKEN, None).await.json()), 3);
    assert_eq!(count(call(&api, "GET", "/api/folders", &token, None).await.json()), 1);

    // Asked for the folder, its search narrows to the subfolder.
    let hits = call(&api, "GET", "/api/search?folder=ops&q=restic%20backups", &token, None).await;
    assert_eq!(hits.status, 200, "{}", hits.text());
    let hits = hits.json()["hits"].as_array().unwrap().clone();
    assert!(!hits.is_empty());
    assert!(
        hits.iter().all(|h| h["path"].as_str().unwrap().starts_with("ops/db/")),
        "{hits:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn revoked_and_expired_tokens_are_refused_with_401() {
    let api = Api::start(&[]).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (id, revoked) = make(&api, "to revoke", &["ops"], "read").await;
    assert_eq!(mcp(&api, "/mcp/ops", &revoked, list.clone()).await.status, 200);
    let gone = api.send("DELETE", &format!("/api/access/tokens/{id}"), None).await;
    assert_eq!(gone.status, 200, "{}", gone.text());
    assert_eq!(
        mcp(&api, "/mcp/ops", &revoked, list.clone()).await.error(401),
        "Unauthorized"
    );
    assert_eq!(
        call(&api, "GET", "/api/docs?folder=ops", &revoked, None)
            .await
            .error(401),
        "Unauthorized"
    );
    assert_eq!(
        api.send("DELETE", &format!("/api/access/tokens/{id}"), None)
            .await
            .status,
        404
    );

    let (id, expiring) = make(&api, "to expire", &["ops"], "read").await;
    assert_eq!(mcp(&api, "/mcp/ops", &expiring, list.clone()).await.status, 200);
    // Its time runs out: the file says so (as a hand edit, or another server, would).
    let file = api.path(".ragdown-access.json");
    let mut stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for token in stored["tokens"].as_array_mut().unwrap() {
        if token["id"] == id.as_str() {
            token["expires_ms"] = json!(1_000);
        }
    }
    std::fs::write(&file, serde_json::to_string_pretty(&stored).unwrap()).unwrap();
    let expired = mcp(&api, "/mcp/ops", &expiring, list.clone()).await;
    assert_eq!(expired.error(401), "Unauthorized: this token has expired");
    assert_eq!(call(&api, "GET", "/api/docs", &expiring, None).await.status, 401);
    let listed = api.send("GET", "/api/access/tokens", None).await.json();
    let tokens = listed["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 1, "the revoked one is gone: {listed}");
    assert_eq!(tokens[0]["expired"], true);
    let past = json!({"name": "past", "scope": ["ops"], "access": "read", "expires_ms": 1_000});
    assert_eq!(api.send("POST", "/api/access/tokens", Some(past)).await.status, 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_token_file_holds_no_secret_and_outlives_the_index() {
    let api = Api::start(&["--query-log", "true"]).await;
    let (id, secret) = make(&api, "agent", &["ops"], "read").await;
    let search = tool_call("ragdown_recall", json!({"query": "restic"}));
    assert_eq!(mcp(&api, "/mcp/ops", &secret, search).await.status, 200);

    let file = api.path(".ragdown-access.json");
    let stored = std::fs::read_to_string(&file).unwrap();
    let body = secret.trim_start_matches("rdt_");
    assert!(!stored.contains(body), "the secret is on disk: {stored}");
    assert!(stored.contains("\"hash\": \"sha256:"), "{stored}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let listed = api.send("GET", "/api/access/tokens", None).await;
    assert!(!listed.text().contains(body), "the list shows the secret");
    assert_eq!(listed.json()["tokens"][0]["id"], id.as_str());
    let log = std::fs::read_to_string(api.data.path().join("query-log.jsonl")).unwrap_or_default();
    assert!(log.contains("restic"), "the search was logged: {log}");
    assert!(!log.contains(body), "the secret is in the query log");

    // The index goes; the tokens stay, and a server on a fresh index takes them.
    std::fs::remove_dir_all(api.data.path()).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let (base, stop) = serve(api.root(), fresh.path(), TOKEN, &[]).await;
    let other = Api::at(&base);
    other.wait_ready().await;
    assert!(!tool_names(&other, "/mcp/ops", &secret).await.is_empty());
    let _ = stop.send(());
}

#[tokio::test(flavor = "multi_thread")]
async fn under_secure_local_net_a_scoped_token_still_binds_its_bearer() {
    let docs = crate::support::docs(&[("ops/.ragdown.json", r#"{"mcp": true}"#), ("ops/a.md", "# A\n")]);
    let data = tempfile::tempdir().unwrap();
    let (docs_arg, data_arg) = (docs.path().to_str().unwrap(), data.path().to_str().unwrap());
    let args = [
        "ragdownd",
        "serve",
        "--docs",
        docs_arg,
        "--data",
        data_arg,
        "--embedder",
        "hash",
        "--watch",
        "false",
        "--secure-local-net",
        "true",
    ];
    let (base, stop) = crate::support::serve_args(&args, data.path()).await;
    let api = Api::at(&base);
    api.wait_ready().await;
    let made = api
        .call(
            "POST",
            "/api/access/tokens",
            Some(
                json!({"name": "reader", "scope": ["ops"], "access": "read"})
                    .to_string()
                    .into_bytes(),
            ),
            None,
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text());
    let made = made.json();
    let (id, read) = (made["token"]["id"].as_str().unwrap(), made["secret"].as_str().unwrap());

    let save = |path: &str| Some(json!({"path": path, "text": "# B\n"}).to_string().into_bytes());
    assert_eq!(
        api.call("POST", "/api/doc", save("ops/open.md"), None).await.status,
        201
    );
    assert_eq!(
        api.call("POST", "/api/doc", save("ops/read.md"), Some(read))
            .await
            .status,
        403
    );
    assert!(!docs.path().join("ops/read.md").exists());
    let tools = tool_names(&api, "/mcp/ops", read).await;
    assert!(!tools.iter().any(|t| t == "ragdown_write"), "{tools:?}");

    let gone = api
        .call("DELETE", &format!("/api/access/tokens/{id}"), None, None)
        .await;
    assert_eq!(gone.status, 200, "{}", gone.text());
    assert_eq!(api.call("GET", "/api/docs", None, Some(read)).await.status, 401);
    let _ = stop.send(());
}
