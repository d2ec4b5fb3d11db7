//! The history (issue 27): every kind of change made through ragdown, over MCP and `/api`, undone
//! to the byte and redone; a session's changes undone without touching another's; retention that
//! drops the oldest first and never the index; and `kill -9` at random points of a write, a move
//! and a recursive delete, after which undoing the history gives back the tree as it was.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api::Api;
use crate::support::{StdioClient, test_env, write};
use ragdownd::history::{History, HistoryOptions, Resolve, Who};

/// Every entry under `root` but the history: folders, files with their bytes, links with their
/// targets, sorted. Two equal snapshots are byte-identical trees.
fn tree(root: &Path) -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".ragdown-history" && !is_temp(&e.file_name().to_string_lossy()));
    for entry in walker.flatten().filter(|e| e.depth() > 0) {
        let rel = entry.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let kind = entry.file_type();
        let item = if kind.is_symlink() {
            (
                "link",
                std::fs::read_link(entry.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
                    .into_bytes(),
            )
        } else if kind.is_dir() {
            ("dir", Vec::new())
        } else {
            ("file", std::fs::read(entry.path()).unwrap())
        };
        out.push((rel, item.0.to_string(), item.1));
    }
    out.sort();
    out
}

/// A temp file of a write that was killed: removed by the next start, never a document.
fn is_temp(name: &str) -> bool {
    name.starts_with(".ragdown-") && name.ends_with(".tmp")
}

/// A tool call over `/mcp/<folder>`: its text, and whether it is an error.
async fn tool(api: &Api, folder: &str, name: &str, arguments: Value) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}});
    let answer = api
        .call_with(
            "POST",
            format!("/mcp/{folder}").trim_end_matches('/'),
            Some(body.to_string().into_bytes()),
            Some("api-token"),
            &[("Accept", "application/json, text/event-stream")],
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    let result = &answer.json()["result"];
    assert_ne!(result["isError"], true, "{name} {arguments}: {result}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

/// The newest entry of the history.
async fn newest(api: &Api) -> Value {
    let changes = api.send("GET", "/api/history/changes", None).await.json();
    changes["entries"][0].clone()
}

/// Undoes entry `id` and returns the answer's body, asserting it succeeded.
async fn undo(api: &Api, id: &str) -> Value {
    let answer = api.send("POST", "/api/history/undo", Some(json!({"entry": id}))).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    answer.json()
}

/// Checks the change just made (`action`, by `who`): undone, the tree is `before`; the undo undone,
/// it is `after` again.
async fn undoes_and_redoes(api: &Api, kind: &str, action: &str, before: &[(String, String, Vec<u8>)]) {
    let after = tree(api.root());
    assert_ne!(after, before, "{kind}: the change changed nothing");
    let entry = newest(api).await;
    assert_eq!(entry["action"], action, "{kind}: {entry}");
    let undone = undo(api, entry["id"].as_str().unwrap()).await;
    assert!(undone["conflicts"].as_array().unwrap().is_empty(), "{kind}: {undone}");
    assert_eq!(
        tree(api.root()),
        before,
        "{kind}: undone, the tree is as before, to the byte"
    );
    let redo = undone["entry"]
        .as_str()
        .unwrap_or_else(|| panic!("{kind}: the undo was not recorded: {undone}"));
    assert_eq!(newest(api).await["undoes"], entry["id"], "{kind}");
    undo(api, redo).await;
    assert_eq!(tree(api.root()), after, "{kind}: the undo undone, the tree is as after");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_kind_of_change_is_undone_to_the_byte_and_redone() {
    let api = Api::start(&[]).await;
    write(api.root(), "ops/att/shot.md", "# Shot\n\n![[pic.png]]\n");
    write(api.root(), "ops/att/pic.png", "\u{89}PNG\r\n\u{1a}\n binary");
    write(api.root(), "ops/att/deeper/empty.txt", "");
    std::fs::create_dir(api.path("ops/att/hollow")).unwrap();
    write(api.root(), "team/.ragdown.json", r#"{"title":"Team","mcp":true}"#);
    write(api.root(), "team/plan.md", "# Plan\r\n\r\nShip it.\r\n");
    write(api.root(), "team/sub/link.md", "See [plan](../plan.md).\n");
    let crlf = ragdownd::documents::content_hash(&std::fs::read(api.path("ops/crlf.md")).unwrap());

    let mcp = [
        (
            "write, new, in new folders",
            "write",
            json!({"path": "new/deep/n.md", "text": "# N\n", "session_id": "s1"}),
            "ragdown_write",
        ),
        (
            "write over CRLF",
            "write",
            json!({"path": "crlf.md", "text": "# CRLF\n\nRewritten.\n", "base_hash": crlf}),
            "ragdown_write",
        ),
        (
            "append",
            "append",
            json!({"path": "backups.md", "text": "Appended.", "append": true, "heading": "Restore"}),
            "ragdown_write",
        ),
        (
            "edit",
            "edit",
            json!({"path": "backups.md", "edits": [{"old_text": "Nightly", "new_text": "Hourly"}]}),
            "ragdown_edit",
        ),
        (
            "remember",
            "remember",
            json!({"title": "Kafka lag", "content": "Restart the consumer."}),
            "ragdown_remember",
        ),
        (
            "move with link rewrites",
            "move",
            json!({"from": "backups.md", "to": "archive/old/backups.md"}),
            "ragdown_move",
        ),
        (
            "move of a subfolder",
            "move",
            json!({"from": "db", "to": "databases"}),
            "ragdown_move",
        ),
        (
            "delete of a document",
            "delete",
            json!({"path": "crlf.md"}),
            "ragdown_delete",
        ),
        (
            "delete of a subfolder with attachments",
            "delete",
            json!({"path": "att", "recursive": true}),
            "ragdown_delete",
        ),
    ];
    for (kind, action, arguments, name) in mcp {
        let before = tree(api.root());
        tool(&api, "ops", name, arguments).await;
        let entry = newest(&api).await;
        assert_eq!(entry["who"]["via"], "mcp", "{kind}: {entry}");
        assert_eq!(entry["who"]["tool"], name, "{kind}");
        undoes_and_redoes(&api, kind, action, &before).await;
    }
    let moved = newest(&api).await;
    assert_eq!(moved["action"], "undo");

    // The move's entry names both paths and every document whose links it rewrote.
    let history = api
        .send("GET", "/api/history?path=ops/archive/old/backups.md", None)
        .await
        .json();
    let entry = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "move")
        .unwrap();
    let paths: Vec<&str> = entry["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|op| op["path"].as_str().or(op["to"].as_str()))
        .collect();
    assert!(paths.contains(&"ops/archive/old/backups.md"), "{entry}");
    assert!(
        entry["ops"].to_string().contains("ops/databases/postgres.md")
            || entry["ops"].to_string().contains("ops/db/postgres.md"),
        "{entry}"
    );

    let web: [(&str, &str, &str, Option<Value>); 5] = [
        (
            "UI save",
            "save",
            "POST /api/doc",
            Some(
                json!({"path": "team/plan.md", "text": "# Plan\n\nShipped.\n", "base_hash": ragdownd::documents::content_hash(&std::fs::read(api.path("team/plan.md")).unwrap())}),
            ),
        ),
        (
            "upload over a document",
            "save",
            "POST /api/doc",
            Some(json!({"path": "team/plan.md", "text": "uploaded\n", "overwrite": true})),
        ),
        (
            "delete from the UI",
            "delete",
            "DELETE /api/doc?path=team/sub/link.md",
            None,
        ),
        (
            "folder rename",
            "rename-folder",
            "PATCH /api/folders/team",
            Some(json!({"name": "crew"})),
        ),
        (
            "folder delete",
            "delete-folder",
            "DELETE /api/folders/crew?confirm=crew",
            None,
        ),
    ];
    for (kind, action, route, body) in web {
        let before = tree(api.root());
        let (method, path) = route.split_once(' ').unwrap();
        let method = match method {
            "POST" => "POST",
            "PATCH" => "PATCH",
            _ => "DELETE",
        };
        let answer = api.send(method, path, body).await;
        assert!(answer.status < 300, "{kind}: {}", answer.text());
        assert_eq!(newest(&api).await["who"], json!({"via": "web"}), "{kind}");
        undoes_and_redoes(&api, kind, action, &before).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_folder_an_agent_makes_is_undone_and_made_again() {
    let api = Api::start(&["--root-mcp", "true"]).await;
    let before = tree(api.root());
    tool(
        &api,
        "",
        "ragdown_create_folder",
        json!({"name": "made", "title": "Made"}),
    )
    .await;
    assert_eq!(
        newest(&api).await["who"],
        json!({"via": "mcp", "tool": "ragdown_create_folder"})
    );
    assert!(api.path("made/.ragdown.json").is_file());
    undoes_and_redoes(&api, "folder create", "create-folder", &before).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_changed_since_is_a_conflict_kept_unless_overwritten() {
    let api = Api::start(&[]).await;
    tool(
        &api,
        "ops",
        "ragdown_write",
        json!({"path": "a.md", "text": "# A\r\n\r\nagent\r\n"}),
    )
    .await;
    let id = newest(&api).await["id"].as_str().unwrap().to_string();
    // As written: a new document gets its provenance stamp, in the text's own line endings.
    let first_bytes = std::fs::read(api.path("ops/a.md")).unwrap();
    assert!(first_bytes.ends_with(b"# A\r\n\r\nagent\r\n"));
    tool(
        &api,
        "ops",
        "ragdown_edit",
        json!({"path": "a.md", "edits": [{"old_text": "agent", "new_text": "agent, edited"}]}),
    )
    .await;
    // An editor changes it outside ragdown.
    std::fs::write(api.path("ops/a.md"), "# A\n\nby hand\n").unwrap();
    let edit = newest(&api).await["id"].as_str().unwrap().to_string();
    let refused = api
        .send("POST", "/api/history/undo", Some(json!({"entry": edit})))
        .await;
    assert_eq!(refused.status, 409, "{}", refused.text());
    let body = refused.json();
    assert_eq!(body["code"], "conflict");
    assert_eq!(body["conflicts"][0]["path"], "ops/a.md");
    assert_eq!(api.read("ops/a.md"), "# A\n\nby hand\n", "kept");

    let forced = api
        .send(
            "POST",
            "/api/history/undo",
            Some(json!({"entry": edit, "resolve": "overwrite"})),
        )
        .await;
    assert_eq!(forced.status, 200, "{}", forced.text());
    assert_eq!(
        std::fs::read(api.path("ops/a.md")).unwrap(),
        first_bytes,
        "put back as the edit found it, CRLF and all"
    );
    // What the overwrite replaced is in the history: undoing the undo gives the hand edit back.
    undo(&api, forced.json()["entry"].as_str().unwrap()).await;
    assert_eq!(api.read("ops/a.md"), "# A\n\nby hand\n");

    // The document's history, and a version read back byte for byte.
    let history = api.send("GET", "/api/history?path=ops/a.md", None).await.json();
    let entries = history["entries"].as_array().unwrap();
    assert!(entries.iter().any(|e| e["id"] == id));
    let first = ragdownd::documents::content_hash(&first_bytes);
    let version = api
        .send("GET", &format!("/api/history/version?hash={first}"), None)
        .await
        .json();
    assert_eq!(version["text"].as_str().unwrap().as_bytes(), first_bytes);
    let restored = api
        .send(
            "POST",
            "/api/history/restore",
            Some(json!({"path": "ops/a.md", "hash": first})),
        )
        .await;
    assert_eq!(restored.status, 200, "{}", restored.text());
    assert_eq!(std::fs::read(api.path("ops/a.md")).unwrap(), first_bytes);
    assert_eq!(
        newest(&api).await["action"],
        "restore",
        "a restore is recorded, so it can be undone"
    );
    // The history is never a document.
    let docs = api.send("GET", "/api/docs", None).await.text();
    assert!(!docs.contains("ragdown-history"), "{docs}");
    for path in [".ragdown-history/lock", "ops/../.ragdown-history/lock"] {
        let answer = api.send("GET", &format!("/api/file?path={path}"), None).await;
        assert!(matches!(answer.status, 400 | 404), "{path}: {}", answer.status);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn undoing_a_session_undoes_only_that_sessions_changes() {
    let api = Api::start(&[]).await;
    let write = |path: &'static str, text: &'static str, session: &'static str| json!({"path": path, "text": text, "session_id": session});
    tool(&api, "ops", "ragdown_write", write("a1.md", "# A1\n", "agent-a")).await;
    tool(&api, "ops", "ragdown_write", write("b1.md", "# B1\n", "agent-b")).await;
    tool(
        &api,
        "ops",
        "ragdown_write",
        json!({"path": "a1.md", "text": "More.", "append": true, "session_id": "agent-a"}),
    )
    .await;
    tool(
        &api,
        "ops",
        "ragdown_remember",
        json!({"title": "B note", "content": "b", "session_id": "agent-b"}),
    )
    .await;
    tool(&api, "ops", "ragdown_write", write("a2/deep.md", "# A2\n", "agent-a")).await;
    let b_tree: Vec<_> = tree(api.root())
        .into_iter()
        .filter(|(p, _, _)| !p.starts_with("ops/a"))
        .collect();

    let changes = api
        .send("GET", "/api/history/changes?folder=ops&session=agent-a", None)
        .await
        .json();
    assert_eq!(changes["entries"].as_array().unwrap().len(), 3);
    assert_eq!(changes["sessions"], json!(["agent-a", "agent-b"]));
    let report = api
        .send("POST", "/api/history/undo-session", Some(json!({"session": "agent-a"})))
        .await;
    assert_eq!(report.status, 200, "{}", report.text());
    let report = report.json();
    assert_eq!(report["undone"].as_array().unwrap().len(), 3, "{report}");
    assert!(report["failed"].as_array().unwrap().is_empty(), "{report}");
    assert_eq!(tree(api.root()), b_tree, "agent-b's changes stay, agent-a's are gone");
    assert!(!api.path("ops/a2").exists());

    // A change of one session that another built on is reported, not undone.
    tool(
        &api,
        "ops",
        "ragdown_write",
        write("shared.md", "# Shared\n", "agent-a"),
    )
    .await;
    let hash = ragdownd::documents::content_hash(&std::fs::read(api.path("ops/shared.md")).unwrap());
    let shared = api.read("ops/shared.md");
    tool(
        &api,
        "ops",
        "ragdown_write",
        json!({"path": "shared.md", "text": "# Shared, by B\n", "base_hash": hash, "session_id": "agent-b"}),
    )
    .await;
    let report = api
        .send("POST", "/api/history/undo-session", Some(json!({"session": "agent-a"})))
        .await
        .json();
    assert_eq!(report["failed"][0]["conflicts"][0]["path"], "ops/shared.md", "{report}");
    assert!(api.read("ops/shared.md").ends_with("# Shared, by B\n"), "kept");
    api.send("POST", "/api/history/undo-session", Some(json!({"session": "agent-b"})))
        .await;
    assert_eq!(api.read("ops/shared.md"), shared);
}

/// Text that barely compresses.
fn noise(seed: u64, len: usize) -> String {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 60 == 59 {
                '\n'
            } else {
                (b'a' + (x % 26) as u8) as char
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn retention_drops_the_oldest_first_and_leaves_the_index_alone() {
    let api = Api::start(&["--history-max-size", "40KB"]).await;
    let mut versions = Vec::new();
    for i in 0..12 {
        let text = format!("# Big\n\n{}\n", noise(i, 6_000));
        let answer = api
            .send(
                "POST",
                "/api/doc",
                Some(json!({"path": "ops/big.md", "text": text, "overwrite": true})),
            )
            .await;
        assert!(answer.status < 300, "{}", answer.text());
        versions.push(ragdownd::documents::content_hash(text.as_bytes()));
    }
    let history = Arc::new(History::new(
        api.root(),
        &HistoryOptions {
            max_bytes: 40 << 10,
            ..HistoryOptions::default()
        },
    ));
    assert!(!history.dir().starts_with(api.data.path()));
    let docs_before = tree(api.root());
    let status_before = api.send("GET", "/api/status", None).await.json();
    let pruned = history.prune().unwrap();
    assert!(pruned.bytes <= 40 << 10, "{pruned:?}");
    assert_eq!(tree(api.root()), docs_before, "nor the documents");
    let status = api.send("GET", "/api/status", None).await.json();
    assert_eq!(
        (status["files"].clone(), status["chunks"].clone()),
        (status_before["files"].clone(), status_before["chunks"].clone())
    );

    let kept: Vec<bool> = versions.iter().map(|hash| history.content(hash).is_ok()).collect();
    let first_kept = kept.iter().position(|k| *k).expect("the newest is kept");
    assert!(first_kept > 0, "the oldest went: {kept:?}");
    assert!(
        kept[first_kept..].iter().all(|k| *k),
        "oldest first, never a newer one: {kept:?}"
    );
    let status = api
        .send("GET", &format!("/api/history/version?hash={}", versions[0]), None)
        .await;
    assert_eq!(status.status, 404);
    let search = api.send("GET", "/api/search?folder=ops&q=Big", None).await.text();
    assert!(search.contains("ops/big.md"), "{search}");
}

/// Starts `ragdownd stdio` on `docs`, runs `tool` and kills it `after` the request went out.
async fn kill_during(docs: &Path, data: &Path, tool: &str, arguments: &Value, after: Duration) {
    let mut client = StdioClient::start(&test_env(docs, data)).await;
    client
        .send_request("tools/call", json!({"name": tool, "arguments": arguments}))
        .await;
    tokio::time::sleep(after).await;
    client.kill().await;
}

/// Undoes every entry newest first, as the history's owner would after a crash.
fn undo_everything(docs: &Path) {
    let history = Arc::new(History::new(docs, &HistoryOptions::default()));
    for entry in history.entries().iter().rev() {
        let undone = history.undo(&entry.id, Who::web(), Resolve::Keep).unwrap();
        assert!(undone.conflicts.is_empty(), "{undone:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_at_any_point_no_change_is_left_without_its_entry() {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let root = docs.path();
    let big = format!("# Big\n\n{}", "old line of the first version\r\n".repeat(40_000));
    write(root, "big.md", &big);
    for i in 0..120 {
        write(
            root,
            &format!("tree/sub{}/n{i}.md", i % 7),
            &format!("# N{i}\n\nSee [big](../../big.md).\n"),
        );
        write(root, &format!("tree/img/p{i}.png"), &noise(i, 3_000));
    }
    write(root, "links.md", "[t](tree/sub0/n0.md) [[n7]]\n");
    let original = tree(root);
    let base = ragdownd::documents::content_hash(big.as_bytes());
    let cases = [
        (
            "ragdown_write",
            json!({"path": "big.md", "text": "new line of the second version\n".repeat(40_000), "base_hash": base}),
        ),
        ("ragdown_move", json!({"from": "tree", "to": "moved/tree"})),
        ("ragdown_delete", json!({"path": "tree", "recursive": true})),
    ];
    for (tool, arguments) in cases {
        // How long the whole change takes here, so the kills spread over it.
        let took = {
            let mut client = StdioClient::start(&test_env(root, data.path())).await;
            let started = Instant::now();
            client.ok(tool, arguments.clone()).await;
            started.elapsed()
        };
        undo_everything(root);
        assert_eq!(tree(root), original, "{tool}: undone whole");
        std::fs::remove_dir_all(root.join(".ragdown-history")).unwrap();
        let mut changed = 0;
        for round in 0..6u32 {
            // From a third of the time the whole call took to twice it: under load the change
            // itself may start late, so the kills reach well past the answer.
            let after = took * (round + 1) / 3;
            kill_during(root, data.path(), tool, &arguments, after).await;
            let now = tree(root);
            if now != original {
                changed += 1;
                let history = History::new(root, &HistoryOptions::default());
                assert!(
                    !history.entries().is_empty(),
                    "{tool} round {round}: changed with no entry"
                );
            }
            undo_everything(root);
            assert_eq!(
                tree(root),
                original,
                "{tool} killed after {after:?}: the history gives back the tree to the byte"
            );
            std::fs::remove_dir_all(root.join(".ragdown-history")).unwrap();
        }
        assert!(changed > 0, "{tool}: no kill landed after the change began");
    }
}
