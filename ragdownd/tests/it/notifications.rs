//! Resource notifications with the watcher on: an edit made on disk, by no tool, reaches a
//! subscriber as `notifications/resources/updated` once the index's sync has seen it, and a new
//! file as `notifications/resources/list_changed`. The 2025-11-25 way (`resources/subscribe`) over
//! a real stdio child process; the 2026-07-28 way (`subscriptions/listen`) over stdio and over
//! `serve`'s stateless HTTP, whose answer is an SSE stream that stays open.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{StdioClient, docs, fixture, serve_args, test_env};

/// Long enough for the watcher's quiet time and a sync on a slow, shared machine.
const WITHIN: Duration = Duration::from_secs(60);

fn methods(notes: &[Value]) -> Vec<(String, String)> {
    notes
        .iter()
        .map(|n| {
            (
                n["method"].as_str().unwrap_or_default().to_string(),
                n["params"]["uri"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn edits_on_disk_reach_subscribers_through_the_indexs_sync() {
    let backups = std::fs::read_to_string(fixture("ops-backups.md")).unwrap();
    let dir = docs(&[("ops/backups.md", &backups), ("ops/other.md", "# Other\n")]);
    let data = tempfile::tempdir().unwrap();
    let mut env = test_env(dir.path(), data.path());
    env.retain(|(key, _)| key != "RAGDOWN_WATCH");
    env.push(("RAGDOWN_WATCH".into(), "true".into()));
    let mut client = StdioClient::start_stateless(&env).await;
    let init = client
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        )
        .await;
    let resources = &init["result"]["capabilities"]["resources"];
    assert_eq!(
        (&resources["subscribe"], &resources["listChanged"]),
        (&json!(true), &json!(true)),
        "{init}"
    );
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    client.ok("ragdown_reindex", json!({})).await;

    let uri = "ragdown:///ops/backups.md";
    let section = "ragdown:///ops/backups.md#Restore";
    for subscribed in [uri, section] {
        let answer = client.request("resources/subscribe", json!({"uri": subscribed})).await;
        assert!(answer.get("result").is_some(), "{answer}");
    }
    for hostile in [
        "ragdown:///../x.md",
        "ragdown:///ops/.hidden.md",
        "ragdown:///ops/%2e%2e/%2e%2e/x.md",
        "file:///etc/passwd",
    ] {
        let answer = client.request("resources/subscribe", json!({"uri": hostile})).await;
        assert!(answer.get("error").is_some(), "{hostile}: {answer}");
    }

    // An editor changes the file: both subscriptions hear of it, and the list has not changed.
    std::fs::write(
        dir.path().join("ops/backups.md"),
        format!("{backups}\n\nEdited by hand.\n"),
    )
    .unwrap();
    let mut notes = client
        .notifications_until("notifications/resources/updated", WITHIN)
        .await;
    if notes
        .iter()
        .filter(|n| n["method"] == "notifications/resources/updated")
        .count()
        < 2
    {
        notes.extend(
            client
                .notifications_until("notifications/resources/updated", WITHIN)
                .await,
        );
    }
    // (The first sync's list_changed may come first: the files were new then.)
    notes.retain(|n| n["method"] == "notifications/resources/updated");
    let updated: Vec<(String, String)> = methods(&notes);
    assert_eq!(
        updated,
        [
            ("notifications/resources/updated".to_string(), uri.to_string()),
            ("notifications/resources/updated".to_string(), section.to_string()),
        ],
        "an update tells the subscribers only"
    );

    // An unsubscribed document changes, then a new one appears: the list changed, and nothing
    // was said about the document no one follows any more.
    for gone in [uri, section] {
        let answer = client.request("resources/unsubscribe", json!({"uri": gone})).await;
        assert!(answer.get("result").is_some(), "{answer}");
    }
    std::fs::write(dir.path().join("ops/backups.md"), "# Backups\n\nRewritten.\n").unwrap();
    std::fs::write(dir.path().join("ops/new.md"), "# New\n\nA new runbook.\n").unwrap();
    let notes = client
        .notifications_until("notifications/resources/list_changed", WITHIN)
        .await;
    assert!(
        !notes.iter().any(|n| n["method"] == "notifications/resources/updated"),
        "{notes:?}"
    );
    let listed = client.request("resources/list", json!({})).await;
    assert!(listed.to_string().contains("ragdown:///ops/new.md"), "{listed}");

    // A session's subscriptions are bounded.
    for i in 0..1_000 {
        let answer = client
            .request("resources/subscribe", json!({"uri": format!("ragdown:///ops/n{i}.md")}))
            .await;
        assert!(answer.get("result").is_some(), "{answer}");
    }
    let over = client
        .request("resources/subscribe", json!({"uri": "ragdown:///ops/one-more.md"}))
        .await;
    assert!(
        over["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("at most 1000"),
        "{over}"
    );
}

/// `initialize` in the 2025-11-25 protocol, then `initialized`.
async fn initialized(client: &mut StdioClient) {
    let init = client
        .request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        )
        .await;
    assert_eq!(init["result"]["capabilities"]["resources"]["subscribe"], true, "{init}");
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
}

#[tokio::test]
async fn a_reader_process_hears_what_the_primarys_syncs_changed() {
    // Two `ragdownd stdio` on one index: the first indexes and watches, the second is a reader
    // that syncs nothing itself, yet its subscriber hears an edit made on disk by no tool.
    let backups = std::fs::read_to_string(fixture("ops-backups.md")).unwrap();
    let dir = docs(&[("ops/backups.md", &backups)]);
    let data = tempfile::tempdir().unwrap();
    let mut env = test_env(dir.path(), data.path());
    env.retain(|(key, _)| key != "RAGDOWN_WATCH");
    env.push(("RAGDOWN_WATCH".into(), "true".into()));
    let mut primary = StdioClient::start_stateless(&env).await;
    initialized(&mut primary).await;
    primary.ok("ragdown_reindex", json!({})).await;
    let mut reader = StdioClient::start_stateless(&env).await;
    initialized(&mut reader).await;
    // Forwarded to the primary; answered once the reader's index is open (and following).
    reader.ok("ragdown_reindex", json!({})).await;
    let uri = "ragdown:///ops/backups.md";
    let answer = reader.request("resources/subscribe", json!({"uri": uri})).await;
    assert!(answer.get("result").is_some(), "{answer}");

    std::fs::write(
        dir.path().join("ops/backups.md"),
        format!("{backups}\n\nEdited by hand.\n"),
    )
    .unwrap();
    let notes = reader
        .notifications_until("notifications/resources/updated", WITHIN)
        .await;
    assert!(
        methods(&notes).contains(&("notifications/resources/updated".to_string(), uri.to_string())),
        "{notes:?}"
    );
    std::fs::write(dir.path().join("ops/new.md"), "# New\n\nA new runbook.\n").unwrap();
    reader
        .notifications_until("notifications/resources/list_changed", WITHIN)
        .await;
    drop(primary);
}

/// The 2026-07-28 request metadata that replaces `initialize`.
fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "ragdown-tests", "version": "0"}
    })
}

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A vault of two runbooks in `ops`, and the environment of a stdio server over it that watches.
fn watched_vault() -> (tempfile::TempDir, tempfile::TempDir, Vec<(String, String)>) {
    let backups = std::fs::read_to_string(fixture("ops-backups.md")).unwrap();
    let dir = docs(&[
        ("ops/backups.md", &backups),
        ("ops/other.md", "# Other\n"),
        ("ops/.ragdown.json", r#"{"mcp": true}"#),
        ("private/secret.md", "# Secret\n"),
    ]);
    let data = tempfile::tempdir().unwrap();
    let mut env = test_env(dir.path(), data.path());
    env.retain(|(key, _)| key != "RAGDOWN_WATCH");
    env.push(("RAGDOWN_WATCH".into(), "true".into()));
    (dir, data, env)
}

#[tokio::test]
async fn listen_streams_over_stdio_carry_what_their_filter_asked_for() {
    let (dir, _data, env) = watched_vault();
    let mut client = StdioClient::start_stateless(&env).await;
    let meta = meta_2026();
    let discover = client.request("server/discover", json!({"_meta": meta})).await;
    let resources = &discover["result"]["capabilities"]["resources"];
    assert_eq!(
        (&resources["subscribe"], &resources["listChanged"]),
        (&json!(true), &json!(true)),
        "server/discover claims what subscriptions/listen delivers: {discover}"
    );
    let legacy = client
        .request(
            "resources/subscribe",
            json!({"uri": "ragdown:///ops/backups.md", "_meta": meta}),
        )
        .await;
    assert!(
        legacy.get("error").is_some(),
        "2026-07-28 has no resources/subscribe: {legacy}"
    );
    // Let the first sync pass before listening, so only the edits below are told.
    client
        .request(
            "tools/call",
            json!({"name": "ragdown_reindex", "arguments": {}, "_meta": meta}),
        )
        .await;

    let uri = "ragdown:///ops/backups.md";
    let filter = json!({
        "resourcesListChanged": true,
        "toolsListChanged": true,
        "resourceSubscriptions": [uri, "ragdown:///../x.md", "ragdown:///ops/.hidden.md", "file:///etc/passwd"],
    });
    let listen = client
        .send_request("subscriptions/listen", json!({"notifications": filter, "_meta": meta}))
        .await;
    let ack = client
        .notifications_until("notifications/subscriptions/acknowledged", WITHIN)
        .await
        .pop()
        .unwrap();
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], json!(listen), "{ack}");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true, "resourceSubscriptions": [uri]}),
        "hostile URIs and the tools list (which never changes) are left out: {ack}"
    );

    std::fs::write(dir.path().join("ops/backups.md"), "# Backups\n\nEdited by hand.\n").unwrap();
    let notes = client
        .notifications_until("notifications/resources/updated", WITHIN)
        .await;
    let updated = notes.last().unwrap();
    assert_eq!(updated["params"]["uri"], uri, "{notes:?}");
    assert_eq!(updated["params"]["_meta"][SUBSCRIPTION_ID], json!(listen), "{updated}");
    std::fs::write(dir.path().join("ops/new.md"), "# New\n").unwrap();
    let notes = client
        .notifications_until("notifications/resources/list_changed", WITHIN)
        .await;
    assert_eq!(
        notes.last().unwrap()["params"]["_meta"][SUBSCRIPTION_ID],
        json!(listen),
        "{notes:?}"
    );

    // Cancelled, the stream says nothing more; a second one, for the list only, hears the next
    // change, and nothing tagged with the first comes before it.
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": listen}}))
        .await;
    let second = client
        .send_request(
            "subscriptions/listen",
            json!({"notifications": {"resourcesListChanged": true}, "_meta": meta}),
        )
        .await;
    client
        .notifications_until("notifications/subscriptions/acknowledged", WITHIN)
        .await;
    std::fs::write(dir.path().join("ops/backups.md"), "# Backups\n\nEdited again.\n").unwrap();
    std::fs::remove_file(dir.path().join("ops/new.md")).unwrap();
    let notes = client
        .notifications_until("notifications/resources/list_changed", WITHIN)
        .await;
    assert!(
        notes
            .iter()
            .all(|n| n["params"]["_meta"][SUBSCRIPTION_ID] != json!(listen)),
        "a cancelled stream went on: {notes:?}"
    );
    assert_eq!(
        notes.last().unwrap()["params"]["_meta"][SUBSCRIPTION_ID],
        json!(second),
        "{notes:?}"
    );
}

/// Reads an SSE body's `data:` messages as they come, from a response that stays open.
struct Sse {
    response: reqwest::Response,
    buffer: String,
}

impl Sse {
    /// The next JSON-RPC message on the stream; `None` once it has ended.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() || data.iter().all(|d| d.is_empty()) {
                    continue; // a keep-alive comment or a priming event
                }
                return Some(serde_json::from_str(&data.join("\n")).unwrap());
            }
            let chunk = tokio::time::timeout(WITHIN, self.response.chunk())
                .await
                .expect("nothing on the stream within the deadline")
                .unwrap()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// POSTs one JSON-RPC message to `url` with the token and, for a 2026-07-28 body, the headers
/// that era's transport asks for.
async fn post(http: &reqwest::Client, url: &str, token: &str, body: Value) -> reqwest::Response {
    let mut request = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", format!("Bearer {token}"));
    if body["params"]["_meta"].is_object() {
        // The 2026-07-28 transport also names the method, and the tool or resource, in headers.
        request = request
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", body["method"].as_str().unwrap());
        if let Some(name) = body["params"]["name"].as_str() {
            request = request.header("Mcp-Name", name);
        }
    } else {
        request = request.header("MCP-Protocol-Version", "2025-11-25");
    }
    request.body(body.to_string()).send().await.unwrap()
}

/// A whole JSON answer (`Value::Null` if the body is not JSON).
async fn answer(response: reqwest::Response) -> Value {
    serde_json::from_str(&response.text().await.unwrap()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn listen_over_http_streams_edits_on_disk_and_ends_gracefully_at_shutdown() {
    let (dir, data, _env) = watched_vault();
    let token = "listen-token";
    let args = [
        "ragdownd",
        "serve",
        "--docs",
        dir.path().to_str().unwrap(),
        "--data",
        data.path().to_str().unwrap(),
        "--embedder",
        "hash",
        "--watch",
        "true",
        "--token",
        token,
    ];
    let (base, stop) = serve_args(&args, data.path()).await;
    let url = format!("{base}/mcp/ops");
    let http = reqwest::Client::new();
    let meta = meta_2026();
    // The index is open and has synced once: the reindex answers after it.
    let deadline = tokio::time::Instant::now() + WITHIN;
    loop {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ragdown_reindex", "arguments": {}, "_meta": meta}});
        let reindexed = answer(post(&http, &url, token, body).await).await;
        if reindexed["result"]["isError"] == json!(false) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "not ready: {reindexed}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // 2025-11-25 over stateless HTTP: no stream to notify on, so none is claimed, and
    // resources/subscribe is refused; 2026-07-28 claims both for subscriptions/listen.
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let init = answer(post(&http, &url, token, init).await).await;
    let resources = &init["result"]["capabilities"]["resources"];
    assert!(resources.is_object() && resources.get("subscribe").is_none(), "{init}");
    assert!(resources.get("listChanged").is_none(), "{init}");
    let subscribe = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe",
        "params": {"uri": "ragdown:///ops/backups.md"}});
    let subscribe = answer(post(&http, &url, token, subscribe).await).await;
    assert!(subscribe.get("error").is_some(), "{subscribe}");
    let discover = json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {"_meta": meta}});
    let discover = answer(post(&http, &url, token, discover).await).await;
    let resources = &discover["result"]["capabilities"]["resources"];
    assert_eq!(
        (&resources["subscribe"], &resources["listChanged"]),
        (&json!(true), &json!(true)),
        "{discover}"
    );

    // Another folder's document is not acknowledged on this endpoint.
    let uri = "ragdown:///ops/backups.md";
    let listen = json!({"jsonrpc": "2.0", "id": "watch-1", "method": "subscriptions/listen", "params": {
        "notifications": {"resourcesListChanged": true, "resourceSubscriptions": [uri, "ragdown:///private/secret.md"]},
        "_meta": meta}});
    let response = post(&http, &url, token, listen).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut stream = Sse {
        response,
        buffer: String::new(),
    };
    let ack = stream.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], "watch-1", "{ack}");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourcesListChanged": true, "resourceSubscriptions": [uri]}),
        "{ack}"
    );

    std::fs::write(dir.path().join("ops/backups.md"), "# Backups\n\nEdited by hand.\n").unwrap();
    let updated = stream.next().await.unwrap();
    assert_eq!(updated["method"], "notifications/resources/updated", "{updated}");
    assert_eq!(updated["params"]["uri"], uri, "{updated}");
    assert_eq!(updated["params"]["_meta"][SUBSCRIPTION_ID], "watch-1", "{updated}");
    // A change in another folder is not this endpoint's; one here changes its list.
    std::fs::write(dir.path().join("private/more.md"), "# More\n").unwrap();
    std::fs::write(dir.path().join("ops/new.md"), "# New\n").unwrap();
    let changed = stream.next().await.unwrap();
    assert_eq!(changed["method"], "notifications/resources/list_changed", "{changed}");

    // Shutting down ends the stream with the request's result instead of waiting on it.
    stop.send(()).unwrap();
    let last = stream.next().await.unwrap();
    assert_eq!(last["id"], "watch-1", "{last}");
    assert_eq!(last["result"]["_meta"][SUBSCRIPTION_ID], "watch-1", "{last}");
    assert_eq!(stream.next().await, None, "the stream ends after its result");
}
