//! Trust: nothing read or written outside the docs, no lost update across processes, a reader
//! that takes over the moment the primary dies, clean-up after a killed write, and clear errors
//! for bad input. Each test here was a defect first; each fails without its fix.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{StdioClient, docs, printed_hash, serve, test_env, write};

/// The names and contents of the files directly in `dir`, sorted.
fn listing(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            (entry.file_name().to_string_lossy().into_owned(), text)
        })
        .collect();
    out.sort();
    out
}

async fn started(docs: &Path, data: &Path) -> StdioClient {
    let mut client = StdioClient::start(&test_env(docs, data)).await;
    client.ok("ragdown_reindex", json!({})).await;
    client
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlinked_folder_leads_no_tool_out_of_the_docs() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "# Secret\n\nthe outside file");
    let docs = docs(&[("ops/a.md", "# A\n\nalpha")]);
    std::os::unix::fs::symlink(outside.path(), docs.path().join("linkdir")).unwrap();
    std::os::unix::fs::symlink(outside.path(), docs.path().join("notes")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut client = started(docs.path(), data.path()).await;
    let before = listing(outside.path());

    for path in [
        "linkdir/secret.md",
        "linkdir/secret",
        "[[linkdir/secret]]",
        "notes/secret.md",
    ] {
        let (text, is_error) = client.call("ragdown_read_doc", json!({ "path": path })).await;
        assert!(is_error && !text.contains("the outside file"), "{path}: {text}");
    }
    let refused = [
        ("ragdown_write", json!({"path": "linkdir/pwned.md", "text": "# Pwned"})),
        ("ragdown_write", json!({"path": "notes/x.md", "text": "# X"})),
        (
            "ragdown_edit",
            json!({"path": "linkdir/secret.md", "edits": [{"old_text": "outside", "new_text": "pwned"}]}),
        ),
        ("ragdown_remember", json!({"title": "Escape", "content": "out"})),
        (
            "ragdown_remember",
            json!({"title": "Escape", "content": "out", "name": "deep/escape"}),
        ),
        (
            "ragdown_remember",
            json!({"title": "S", "content": "c", "name": "ops-note", "supersedes": ["linkdir/secret.md"]}),
        ),
        ("ragdown_delete", json!({"path": "linkdir/secret.md"})),
        (
            "ragdown_move",
            json!({"from": "linkdir/secret.md", "to": "ops/stolen.md"}),
        ),
        ("ragdown_move", json!({"from": "ops/a.md", "to": "linkdir/a.md"})),
    ];
    for (tool, arguments) in refused {
        let (text, is_error) = client.call(tool, arguments.clone()).await;
        assert!(is_error, "{tool} {arguments}: {text}");
        assert!(
            text.contains("symlink") || text.starts_with("no such document"),
            "{tool}: {text}"
        );
    }
    assert_eq!(
        listing(outside.path()),
        before,
        "nothing outside was written or removed"
    );
    assert!(
        docs.path().join("ops/a.md").is_file(),
        "the refused move left a.md in place"
    );
    assert!(!outside.path().join("deep").exists());
}

/// A bare HTTP POST of `body` (any bytes) to `url` with the token: (status, body).
async fn post_raw(url: String, token: &'static str, body: &'static [u8]) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut response = agent
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", &format!("Bearer {token}"))
            .send(body)
            .unwrap();
        (
            response.status().as_u16(),
            response.body_mut().read_to_string().unwrap(),
        )
    })
    .await
    .unwrap()
}

const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_symlinked_subfolder_is_no_endpoint_and_bad_json_gets_a_json_rpc_error() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "# Secret");
    let docs = docs(&[("team/.ragdown.json", r#"{"mcp": true}"#), ("team/real/a.md", "# A")]);
    std::os::unix::fs::symlink(outside.path(), docs.path().join("team/linkdir")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let (base, _stop) = serve(docs.path(), data.path(), "tok", &[]).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, _) = post_raw(format!("{base}/mcp/team"), "tok", INITIALIZE).await;
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the server did not come up: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for sub in [
        "linkdir",
        "linkdir/",
        "linkdir/deeper",
        "real/../linkdir",
        "./linkdir",
        "%6cinkdir",
        "real/%2e%2e/linkdir",
        "%2e%2e/team",
        "real%2f..%2flinkdir",
        ".git",
    ] {
        let (status, body) = post_raw(format!("{base}/mcp/team/{sub}"), "tok", INITIALIZE).await;
        assert_eq!(status, 404, "{sub}: {body}");
    }
    let (status, body) = post_raw(format!("{base}/mcp/team/real"), "tok", INITIALIZE).await;
    assert_eq!(status, 200, "a real subfolder is served: {body}");

    let (status, body) = post_raw(format!("{base}/mcp/team"), "tok", b"{\"jsonrpc\": \"2.0\", \"id\": 1,").await;
    let answer: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON: {body}"));
    assert_eq!(
        (status, answer["error"]["code"].as_i64()),
        (400, Some(-32700)),
        "{body}"
    );
    assert_eq!(answer["id"], Value::Null);
    let (status, body) = post_raw(format!("{base}/mcp/team"), "tok", br#"{"id": 4, "hello": "world"}"#).await;
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (status, answer["error"]["code"].as_i64()),
        (400, Some(-32600)),
        "{body}"
    );
    assert_eq!(answer["id"], 4);
    assert_eq!(listing(outside.path()), vec![("secret.md".into(), "# Secret".into())]);
}

#[tokio::test]
async fn read_doc_answers_every_bad_line_range_with_a_tool_error() {
    let docs = docs(&[("a.md", "one\ntwo\nthree\n")]);
    let data = tempfile::tempdir().unwrap();
    let mut client = started(docs.path(), data.path()).await;
    let cases = [
        (
            json!({"path": "a.md", "start_line": 0}),
            "start_line and end_line count from 1",
        ),
        (
            json!({"path": "a.md", "end_line": 0}),
            "start_line and end_line count from 1",
        ),
        (
            json!({"path": "a.md", "start_line": 9}),
            "start_line 9 is past the end of a.md (4 lines)",
        ),
        (
            json!({"path": "a.md", "start_line": 3, "end_line": 2}),
            "end_line 2 is before start_line 3",
        ),
        (json!({"path": "a.md", "start_line": -1}), "invalid arguments"),
        (json!({"path": "a.md", "start_line": "2"}), "invalid arguments"),
        (json!({"path": 7}), "invalid arguments"),
    ];
    for (arguments, wanted) in cases {
        let answer = tokio::time::timeout(
            Duration::from_secs(10),
            client.call("ragdown_read_doc", arguments.clone()),
        )
        .await
        .unwrap_or_else(|_| panic!("no answer to {arguments}"));
        assert!(answer.1 && answer.0.starts_with(wanted), "{arguments}: {answer:?}");
    }
    let text = client
        .ok(
            "ragdown_read_doc",
            json!({"path": "a.md", "start_line": 2, "end_line": 2}),
        )
        .await;
    assert!(text.ends_with("\ntwo"), "the server still answers: {text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn one_reader_takes_over_the_moment_the_primary_dies_and_nothing_is_indexed_twice() {
    let docs = docs(&[("a.md", "# A\n\nalpha\n\n## Two\n\nbeta")]);
    let data = tempfile::tempdir().unwrap();
    let mut primary = started(docs.path(), data.path()).await;
    let mut readers = Vec::new();
    for _ in 0..3 {
        readers.push(StdioClient::start(&test_env(docs.path(), data.path())).await);
    }
    let stats = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    for reader in &mut readers {
        assert_eq!(stats(&reader.ok("ragdown_stats", json!({})).await)["role"], "reader");
    }
    // Written where the primary's watcher would have seen it, had one run (RAGDOWN_WATCH=false):
    // an edit the primary never indexed before it died, and nobody asks for a sync afterwards.
    write(docs.path(), "gap.md", "# Gap\n\nwritten in the gap");
    primary.kill().await;
    // A reader's timer would wait 30 s; the lock frees the moment the primary dies.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let list = readers[0].ok("ragdown_list", json!({})).await;
        if list.contains("gap.md") {
            break;
        }
        assert!(Instant::now() < deadline, "gap.md not indexed: {list}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut roles = Vec::new();
    for reader in &mut readers {
        let now = stats(&reader.ok("ragdown_stats", json!({})).await);
        assert_eq!(now["chunks"], 3, "every chunk once: {now}");
        roles.push(now["role"].as_str().unwrap().to_string());
    }
    roles.sort();
    assert_eq!(roles, ["primary", "reader", "reader"], "exactly one took over");
    // A sync from any of them runs in the new primary and finds nothing left to do.
    let report = stats(&readers[2].ok("ragdown_reindex", json!({})).await);
    assert_eq!(
        (report["added"].as_u64(), report["unchanged"].as_u64()),
        (Some(0), Some(2)),
        "{report}"
    );
}

/// The hash `ragdown_read_doc` printed for `path`.
async fn read_hash(client: &mut StdioClient, path: &str) -> String {
    let text = client.ok("ragdown_read_doc", json!({ "path": path })).await;
    printed_hash(&text).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn edits_from_several_processes_with_one_base_hash_never_both_win() {
    // Big enough that an unguarded check-then-rename interleaves across processes.
    let body = "filler line for a document of some size\n".repeat(6_000);
    let docs = docs(&[("race.md", &format!("# Race\n\nMARK\n{body}"))]);
    let data = tempfile::tempdir().unwrap();
    let mut clients = vec![started(docs.path(), data.path()).await];
    for _ in 1..4 {
        clients.push(StdioClient::start(&test_env(docs.path(), data.path())).await);
    }
    let path = docs.path().join("race.md");
    for round in 0..6 {
        let original = format!("# Race {round}\n\nMARK\n{body}");
        std::fs::write(&path, &original).unwrap();
        let base = read_hash(&mut clients[0], "race.md").await;
        let mut ids = Vec::new();
        for (i, client) in clients.iter_mut().enumerate() {
            let arguments = json!({"path": "race.md", "base_hash": base,
                "edits": [{"old_text": "MARK", "new_text": format!("MARK by writer {i}")}]});
            ids.push(
                client
                    .send_request("tools/call", json!({"name": "ragdown_edit", "arguments": arguments}))
                    .await,
            );
        }
        let mut winners = Vec::new();
        for (i, (client, id)) in clients.iter_mut().zip(ids).enumerate() {
            let answer = client.response(id).await;
            let result = &answer["result"];
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            if result["isError"] == true {
                assert_eq!(text, "race.md was changed on disk since it was opened", "round {round}");
            } else {
                assert!(text.starts_with("edited race.md"), "{text}");
                winners.push(i);
            }
        }
        assert_eq!(
            winners.len(),
            1,
            "round {round}: exactly one edit lands, got {winners:?}"
        );
        let now = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            now,
            original.replace("MARK", &format!("MARK by writer {}", winners[0])),
            "round {round}: the winner's edit, whole"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_accepted_edit_from_every_process_is_kept_exactly_once() {
    const WRITERS: usize = 4;
    const EDITS: usize = 4;
    let docs = docs(&[("shared.md", "# Shared\n\nEND\n")]);
    let data = tempfile::tempdir().unwrap();
    let mut clients = vec![started(docs.path(), data.path()).await];
    for _ in 1..WRITERS {
        clients.push(StdioClient::start(&test_env(docs.path(), data.path())).await);
    }
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(writer, mut client)| {
            tokio::spawn(async move {
                let (mut accepted, mut refused) = (0, 0);
                while accepted < EDITS {
                    let base = read_hash(&mut client, "shared.md").await;
                    let line = format!("writer {writer} edit {accepted}");
                    let arguments = json!({"path": "shared.md", "base_hash": base,
                        "edits": [{"old_text": "END", "new_text": format!("{line}\nEND")}]});
                    let (text, is_error) = client.call("ragdown_edit", arguments).await;
                    if is_error {
                        assert_eq!(text, "shared.md was changed on disk since it was opened");
                        refused += 1;
                    } else {
                        accepted += 1;
                    }
                    assert!(refused < 200, "writer {writer} never got through");
                }
                client
            })
        })
        .collect();
    for task in tasks {
        drop(task.await.unwrap());
    }
    let text = std::fs::read_to_string(docs.path().join("shared.md")).unwrap();
    for writer in 0..WRITERS {
        for edit in 0..EDITS {
            let line = format!("writer {writer} edit {edit}\n");
            assert_eq!(text.matches(&line).count(), 1, "{line:?} in:\n{text}");
        }
    }
    assert_eq!(text.lines().count(), 3 + WRITERS * EDITS, "{text}");
}

#[tokio::test]
async fn a_temp_file_a_killed_write_left_is_removed_on_the_next_start() {
    let docs = docs(&[("ops/a.md", "# A\n\nalpha")]);
    let abandoned = docs.path().join("ops/.ragdown-killed.tmp");
    std::fs::write(&abandoned, "x".repeat(1 << 20)).unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&abandoned)
        .unwrap()
        .set_modified(old)
        .unwrap();
    // One a write killed a moment before the restart left: just as abandoned, young as it is.
    let just_killed = docs.path().join("ops/.ragdown-just-killed.tmp");
    std::fs::write(&just_killed, "y".repeat(2 << 20)).unwrap();
    // One a live writer holds: it stays.
    let held = docs.path().join("ops/.ragdown-live.tmp");
    std::fs::write(&held, "being written").unwrap();
    let holder = std::fs::File::options().write(true).open(&held).unwrap();
    holder.set_modified(old).unwrap();
    holder.lock().unwrap();
    let user_file = docs.path().join("ops/.notes.tmp");
    std::fs::write(&user_file, "the user's own").unwrap();

    let data = tempfile::tempdir().unwrap();
    let mut client = started(docs.path(), data.path()).await;
    assert!(!abandoned.exists(), "the abandoned temp file is gone");
    assert!(!just_killed.exists(), "the one a write killed just now is gone too");
    assert!(
        held.exists() && user_file.exists(),
        "a held temp file and the user's files stay"
    );
    let stats: Value = serde_json::from_str(&client.ok("ragdown_stats", json!({})).await).unwrap();
    assert_eq!(stats["files"], 1, "{stats}");
}
