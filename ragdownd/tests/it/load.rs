//! Many MCP clients over HTTP at once against one server on loopback: searches, hook calls and
//! hash-guarded edits of one shared document, for a bounded count. No request fails, every
//! accepted edit is in the file exactly once, and every refused one was told so. Speed is not
//! asserted here: `bench/load.sh` measures it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{printed_hash, serve, write};

const TOKEN: &str = "load-token";

/// One `tools/call` over HTTP with a blocking client: (status, is_error, text).
fn call(agent: &ureq::Agent, url: &str, name: &str, arguments: Value) -> (u16, bool, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}});
    let mut response = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", &format!("Bearer {TOKEN}"))
        .send(body.to_string())
        .unwrap();
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap();
    let Ok(answer) = serde_json::from_str::<Value>(&text) else {
        return (status, true, text);
    };
    let result = &answer["result"];
    (
        status,
        result["isError"] == true || answer.get("error").is_some(),
        result["content"][0]["text"].as_str().unwrap_or(&text).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn many_http_clients_search_and_edit_at_once_with_no_error_and_no_lost_edit() {
    const CLIENTS: usize = 8;
    const EDITS: usize = 6;
    const SEARCHES: usize = 12;
    let docs = tempfile::tempdir().unwrap();
    write(docs.path(), "ops/.ragdown.json", r#"{"mcp": true}"#);
    write(docs.path(), "ops/shared.md", "# Shared\n\nEND\n");
    for i in 0..30 {
        write(
            docs.path(),
            &format!("ops/runbook-{i}.md"),
            &format!("# Runbook {i}\n\n## Restore\n\nRestore host db-{i} with pg_restore.\n"),
        );
    }
    let data = tempfile::tempdir().unwrap();
    let (base, _stop) = serve(docs.path(), data.path(), TOKEN, &[]).await;
    let url = format!("{base}/mcp/ops");
    let probe = url.clone();
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, is_error, text) = call(&agent, &probe, "ragdown_list", json!({}));
            if status == 200 && !is_error && text.contains("runbook-29.md") {
                break;
            }
            assert!(Instant::now() < deadline, "not indexed in time: {status} {text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    })
    .await
    .unwrap();

    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let url = url.clone();
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
                let (mut requests, mut refused, mut accepted) = (0, 0, 0);
                for i in 0..SEARCHES {
                    let (status, is_error, text) = if i.is_multiple_of(2) {
                        call(
                            &agent,
                            &url,
                            "ragdown_recall",
                            json!({"query": format!("restore db-{i}")}),
                        )
                    } else {
                        let prompt = format!("how do I restore db-{i} with pg_restore?");
                        call(
                            &agent,
                            &url,
                            "ragdown_context",
                            json!({"prompt": prompt, "session_id": format!("s{client}")}),
                        )
                    };
                    requests += 1;
                    assert!(status == 200 && !is_error, "client {client}: {status} {text}");
                }
                while accepted < EDITS {
                    let (status, is_error, text) = call(&agent, &url, "ragdown_read_doc", json!({"path": "shared.md"}));
                    assert!(status == 200 && !is_error, "client {client}: {text}");
                    let base = printed_hash(&text);
                    let line = format!("client {client} edit {accepted}");
                    let edits = json!([{"old_text": "END", "new_text": format!("{line}\nEND")}]);
                    let (status, is_error, text) = call(
                        &agent,
                        &url,
                        "ragdown_edit",
                        json!({"path": "shared.md", "edits": edits, "base_hash": base}),
                    );
                    requests += 2;
                    assert_eq!(status, 200, "{text}");
                    if is_error {
                        assert_eq!(text, "shared.md was changed on disk since it was opened");
                        refused += 1;
                        assert!(refused < 300, "client {client} never got an edit through");
                    } else {
                        accepted += 1;
                    }
                }
                (requests, refused)
            })
        })
        .collect();
    let (mut requests, mut refused) = (0, 0);
    for client in clients {
        let (r, f) = client.join().expect("a client failed");
        requests += r;
        refused += f;
    }
    let elapsed = started.elapsed();
    let text = std::fs::read_to_string(docs.path().join("ops/shared.md")).unwrap();
    for client in 0..CLIENTS {
        for edit in 0..EDITS {
            let line = format!("client {client} edit {edit}\n");
            assert_eq!(text.matches(&line).count(), 1, "{line:?} in:\n{text}");
        }
    }
    assert_eq!(text.lines().count(), 3 + CLIENTS * EDITS, "{text}");
    eprintln!(
        "{requests} requests from {CLIENTS} clients in {elapsed:?} (debug build), {refused} edits refused and retried"
    );
}
