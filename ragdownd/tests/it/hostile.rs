//! Hostile input over MCP stdio: traversal in every path argument, arguments of the wrong type,
//! garbage on the wire, and files built to break a parser. Each gets a clear error or is handled,
//! the server keeps answering, and nothing outside the docs is read or written.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{StdioClient, test_env, write};

/// Every file under `dir` (but `skip`) with its bytes' length and a hash, for before/after checks.
fn snapshot(dir: &Path, skip: &Path) -> BTreeMap<String, (u64, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|entry| entry.path() != skip)
        .filter_map(Result::ok)
        .filter(|entry| !entry.file_type().is_dir())
        .map(|entry| {
            let bytes = std::fs::read(entry.path()).unwrap_or_default();
            let hash = ragdownd::documents::content_hash(&bytes);
            (entry.path().display().to_string(), (bytes.len() as u64, hash))
        })
        .collect()
}

/// Path arguments that try to leave the folder, or name what must not be touched.
const HOSTILE_PATHS: &[&str] = &[
    "../outside.md",
    "..\\outside.md",
    "ops/../../outside.md",
    "ops/..\\..\\outside.md",
    "/etc/passwd",
    "/tmp/outside.md",
    "C:\\outside.md",
    "C:outside.md",
    "\\\\server\\share\\x.md",
    "%2e%2e/outside.md",
    "%2e%2e%2foutside.md",
    "..%2foutside.md",
    "\u{ff0e}\u{ff0e}/outside.md",
    "\u{ff0e}\u{ff0e}\u{ff0f}outside.md",
    "\u{2025}/outside.md",
    "ops/\u{0}/x.md",
    "ops/x.md\u{0}.txt",
    ".git/config.md",
    "ops/.hidden/x.md",
    "node_modules/x.md",
    "link/secret.md",
    "link/secret",
    "[[link/secret]]",
    "[[../outside]]",
    "",
    ".",
    "./",
];

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn traversal_in_every_path_argument_changes_nothing_outside() {
    let root = tempfile::tempdir().unwrap();
    let docs = root.path().join("docs");
    write(&docs, "ops/a.md", "# A\n\nalpha [[b]]");
    write(&docs, "ops/b.md", "# B\n\nbeta");
    write(root.path(), "outside.md", "# Outside\n\nnever read");
    write(root.path(), "secrets/secret.md", "# Secret\n\nnever read");
    std::os::unix::fs::symlink(root.path().join("secrets"), docs.join("link")).unwrap();
    let data = root.path().join("data");
    let mut client = StdioClient::start(&test_env(&docs, &data)).await;
    client.ok("ragdown_reindex", json!({})).await;
    let before = snapshot(root.path(), &data);

    for path in HOSTILE_PATHS {
        let calls = [
            ("ragdown_read_doc", json!({ "path": path })),
            ("ragdown_backlinks", json!({ "path": path })),
            ("ragdown_write", json!({ "path": path, "text": "# Pwned" })),
            ("ragdown_write", json!({ "path": path, "text": "more", "append": true })),
            (
                "ragdown_edit",
                json!({ "path": path, "edits": [{"old_text": "never", "new_text": "pwned"}] }),
            ),
            ("ragdown_delete", json!({ "path": path, "recursive": true })),
            ("ragdown_move", json!({ "from": path, "to": "ops/moved.md" })),
            ("ragdown_move", json!({ "from": "ops/b.md", "to": path })),
            (
                "ragdown_remember",
                json!({ "title": "T", "content": "c", "name": path }),
            ),
            (
                "ragdown_remember",
                json!({ "title": "T", "content": "c", "supersedes": [path] }),
            ),
            ("ragdown_list", json!({ "path_prefix": path })),
            ("ragdown_recall", json!({ "query": "never read", "path_prefix": path })),
        ];
        for (tool, arguments) in calls {
            let (text, _) = client.call(tool, arguments.clone()).await;
            assert!(
                !text.contains("never read"),
                "{tool} {arguments} read outside the docs: {text}"
            );
        }
    }
    assert_eq!(
        snapshot(root.path(), &data)
            .into_iter()
            .filter(|(path, _)| !path.starts_with(&docs.display().to_string()))
            .collect::<BTreeMap<_, _>>(),
        before
            .into_iter()
            .filter(|(path, _)| !path.starts_with(&docs.display().to_string()))
            .collect::<BTreeMap<_, _>>(),
        "nothing outside the docs changed"
    );
    let text = client.ok("ragdown_read_doc", json!({"path": "ops/a.md"})).await;
    assert!(text.contains("alpha"), "still answering: {text}");
}

#[tokio::test]
async fn wrong_types_and_garbage_get_clear_errors_and_the_server_keeps_answering() {
    let docs = crate::support::docs(&[("a.md", "# A\n\nalpha")]);
    let data = tempfile::tempdir().unwrap();
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    let cases = [
        ("ragdown_recall", json!({"query": 5})),
        ("ragdown_recall", json!({"query": "a", "top_k": "many"})),
        ("ragdown_recall", json!({"query": "a", "top_k": -3})),
        ("ragdown_recall", json!({"query": "a", "top_k": 1e30})),
        ("ragdown_write", json!({"path": ["a.md"], "text": "x"})),
        ("ragdown_edit", json!({"path": "a.md", "edits": "replace all"})),
        (
            "ragdown_edit",
            json!({"path": "a.md", "edits": [{"old_text": 1, "new_text": 2}]}),
        ),
        ("ragdown_list", json!({"limit": 1.5})),
        ("ragdown_read_doc", json!({"path": "a.md", "unknown": true})),
        ("ragdown_read_doc", json!({})),
    ];
    for (tool, arguments) in cases {
        let (text, is_error) = client.call(tool, arguments.clone()).await;
        assert!(is_error, "{tool} {arguments}: {text}");
        assert!(
            text.starts_with("invalid arguments") || text.contains("must"),
            "{tool} {arguments}: {text}"
        );
    }
    // Params the SDK cannot read as a tool call at all: a protocol error that says so.
    for params in [
        json!({"name": "ragdown_read_doc", "arguments": "a.md"}),
        json!({"name": "ragdown_read_doc", "arguments": [1, 2]}),
        json!({"name": 42, "arguments": {}}),
    ] {
        let answer = client.request("tools/call", params.clone()).await;
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("arguments an object"),
            "{answer}"
        );
    }
    let answer = client
        .request("tools/call", json!({"name": "no_such_tool", "arguments": {}}))
        .await;
    assert!(answer.get("error").is_some(), "{answer}");
    let answer = client.request("no/such/method", json!({})).await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    // Garbage on the wire: not JSON, cut-off JSON, invalid UTF-8, a 5 MB line, JSON nested deeper
    // than any parser should follow. Each is dropped and the session goes on.
    client.send_raw(b"this is not json").await;
    client
        .send_raw(br#"{"jsonrpc":"2.0","id":99,"method":"tools/list""#)
        .await;
    client.send_raw(&[0xff, 0xfe, b'{', 0x80]).await;
    client.send_raw(&vec![b'x'; 5 << 20]).await;
    client.send_raw("[".repeat(100_000).as_bytes()).await;
    let huge = json!({"jsonrpc": "2.0", "id": 98, "method": "tools/call",
        "params": {"name": "ragdown_recall", "arguments": {"query": "alpha ".repeat(400_000)}}});
    client.send_raw(huge.to_string().as_bytes()).await;
    assert!(
        client.response(98).await.get("result").is_some(),
        "a 2.4 MB query is answered"
    );
    assert_eq!(
        std::fs::read_to_string(docs.path().join("a.md")).unwrap(),
        "# A\n\nalpha"
    );
    let text = client.ok("ragdown_read_doc", json!({"path": "a.md"})).await;
    assert!(text.contains("alpha"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn files_built_to_break_a_parser_are_indexed_or_skipped_and_read_in_ranges() {
    let docs = tempfile::tempdir().unwrap();
    let deep: String = (0..10_000)
        .map(|depth| format!("{}- level {depth}\n", "  ".repeat(depth)))
        .collect();
    let quotes = format!("{}deep quote\n", "> ".repeat(10_000));
    let long_line = format!("# Long\n\n{}\n", "word ".repeat(1_000_000));
    let many_lines: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
    write(docs.path(), "deep-list.md", &deep);
    write(docs.path(), "deep-quote.md", &quotes);
    write(docs.path(), "long-line.md", &long_line);
    write(docs.path(), "many-lines.md", &many_lines);
    write(docs.path(), "brackets.md", &"[[".repeat(100_000));
    write(docs.path(), "fences.md", &"```\n".repeat(50_001));
    std::fs::write(
        docs.path().join("binary.md"),
        [0u8, 159, 146, 150, 255, 0, 1, 2].repeat(10_000),
    )
    .unwrap();
    std::fs::write(docs.path().join("latin1.md"), b"# Caf\xe9\n\nna\xefve text\n").unwrap();
    write(docs.path(), "ok.md", "# Fine\n\nan ordinary note about kayaks");
    let data = tempfile::tempdir().unwrap();
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    let report: Value = serde_json::from_str(&client.ok("ragdown_reindex", json!({})).await).unwrap();
    assert!(report.is_object(), "{report}");
    let hits = client
        .ok("ragdown_recall", json!({"query": "kayaks", "top_k": 3}))
        .await;
    assert!(hits.contains("ok.md"), "{hits}");
    let text = client
        .ok(
            "ragdown_read_doc",
            json!({"path": "many-lines.md", "start_line": 150000, "end_line": 150001}),
        )
        .await;
    assert!(
        text.ends_with("line 149999\nline 150000"),
        "{}",
        &text[..text.len().min(200)]
    );
    let (text, is_error) = client.call("ragdown_read_doc", json!({"path": "binary.md"})).await;
    assert!(
        is_error || text.starts_with("binary.md:"),
        "{}",
        &text[..text.len().min(200)]
    );
    let stats: Value = serde_json::from_str(&client.ok("ragdown_stats", json!({})).await).unwrap();
    assert!(stats["files"].as_u64().unwrap() >= 7, "{stats}");
}
