use crate::support::{StdioClient, docs, expected, fixture, test_env};

use std::path::Path;

use serde_json::json;

// `ragdown_move` over a real stdio child process: the original's answers, links rewritten in the
// files, nothing overwritten or moved by a refused call, and the index following the move before
// the tool answers.

const INDEX: &str = "# Index\n\nSee [[backups#Restore]] and [backups](ops/backups.md).";

/// The original's move test folder: an index linking to `ops/backups.md` both ways.
fn linked() -> tempfile::TempDir {
    docs(&[
        ("index.md", INDEX),
        (
            "ops/backups.md",
            &std::fs::read_to_string(fixture("ops-backups.md")).unwrap(),
        ),
    ])
}

async fn client_for(docs: &tempfile::TempDir, data: &tempfile::TempDir) -> StdioClient {
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;
    client
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

#[tokio::test]
async fn move_a_document_then_its_folder_rewriting_links() {
    let (docs, data) = (linked(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    let expected = expected();
    let backups = read(docs.path(), "ops/backups.md");

    let first = client
        .ok(
            "ragdown_move",
            json!({"from": "ops/backups.md", "to": "ops/snapshots.md"}),
        )
        .await;
    assert_eq!(first, expected["move_results"][0]);
    assert!(!docs.path().join("ops/backups.md").exists());
    assert_eq!(read(docs.path(), "ops/snapshots.md"), backups);

    let second = client
        .ok("ragdown_move", json!({"from": "ops", "to": "infra/db"}))
        .await;
    assert_eq!(second, expected["move_results"][1]);
    assert!(!docs.path().join("ops").exists());
    assert_eq!(read(docs.path(), "infra/db/snapshots.md"), backups);
    assert_eq!(read(docs.path(), "index.md"), expected["move_rewritten_index"]);

    // The rewritten links resolve: the wikilink's heading narrows to the section.
    let section = client
        .ok("ragdown_read_doc", json!({"path": "snapshots#Restore"}))
        .await;
    assert!(
        section.starts_with("infra/db/snapshots.md:5-7 of 7 (hash "),
        "{section}"
    );
    let backlinks = client
        .ok("ragdown_backlinks", json!({"path": "infra/db/snapshots.md"}))
        .await;
    assert!(backlinks.contains("\"path\":\"index.md\""), "{backlinks}");
}

#[tokio::test]
async fn a_move_without_links_to_rewrite_says_only_moved() {
    let (docs, data) = (linked(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    let moved = client
        .ok("ragdown_move", json!({"from": "index.md", "to": "home.md"}))
        .await;
    assert_eq!(moved, "moved index.md to home.md");
    assert_eq!(read(docs.path(), "home.md"), INDEX);
}

#[tokio::test]
async fn refused_moves_change_nothing() {
    let (docs, data) = (linked(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    let refusals = [
        (
            json!({"from": "ops/backups.md", "to": "index.md"}),
            "already exists: index.md",
        ),
        (json!({"from": "ops", "to": "index.md"}), "already exists: index.md"),
        (
            json!({"from": "../x.md", "to": "x.md"}),
            "path is outside the docs folder: ../x.md",
        ),
        (
            json!({"from": "index.md", "to": "../x.md"}),
            "path is outside the docs folder: ../x.md",
        ),
        (
            json!({"from": "missing.md", "to": "x.md"}),
            "no such document: missing.md",
        ),
        (
            json!({"from": "index.md", "to": "./index.md"}),
            "cannot move index.md onto itself: give to a different path",
        ),
        (
            json!({"from": "ops", "to": "ops/deeper"}),
            "cannot move ops into itself: ops/deeper is inside it",
        ),
        (
            json!({"from": "index.md", "to": "index.txt"}),
            "not a Markdown file (.md, .markdown, .mdx): index.txt",
        ),
    ];
    for (args, message) in refusals {
        let (text, is_error) = client.call("ragdown_move", args.clone()).await;
        assert!(is_error, "{args} was not refused: {text}");
        assert_eq!(text, message, "{args}");
    }
    let (text, is_error) = client
        .call("ragdown_move", json!({"from": "index.md", "to": "x.md", "bogus": 1}))
        .await;
    assert!(is_error && text.starts_with("invalid arguments: "), "{text}");

    assert_eq!(read(docs.path(), "index.md"), INDEX);
    assert_eq!(
        read(docs.path(), "ops/backups.md"),
        std::fs::read_to_string(fixture("ops-backups.md")).unwrap()
    );
    let mut files: Vec<String> = walk(docs.path());
    files.sort();
    assert_eq!(files, ["index.md", "ops/backups.md"], "nothing created or moved");
}

#[tokio::test]
async fn the_index_follows_the_move_before_the_tool_answers() {
    let (docs, data) = (linked(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    client
        .ok(
            "ragdown_move",
            json!({"from": "ops/backups.md", "to": "archive/2024/backups.md"}),
        )
        .await;

    let hits = client.ok("ragdown_recall", json!({"query": "pg_restore twice"})).await;
    assert!(hits.starts_with("[1] archive/2024/backups.md"), "{hits}");
    assert!(!hits.contains("ops/backups.md"), "{hits}");

    let text = client
        .ok("ragdown_read_doc", json!({"path": "archive/2024/backups.md"}))
        .await;
    assert!(text.contains("Run pg_restore twice."), "{text}");
    let (error, is_error) = client.call("ragdown_read_doc", json!({"path": "ops/backups.md"})).await;
    assert!(
        is_error && error.starts_with("no such document: ops/backups.md"),
        "{error}"
    );

    let listed = client.ok("ragdown_list", json!({})).await;
    assert!(listed.contains("\narchive/2024/backups.md — Backups"), "{listed}");
    assert!(!listed.contains("ops/backups.md"), "{listed}");
    assert_eq!(
        read(docs.path(), "index.md"),
        "# Index\n\nSee [[backups#Restore]] and [backups](archive/2024/backups.md)."
    );
}

#[tokio::test]
async fn a_read_only_server_neither_lists_nor_runs_it() {
    let (docs, data) = (linked(), tempfile::tempdir().unwrap());
    let mut env = test_env(docs.path(), data.path());
    env.push(("RAGDOWN_READ_ONLY".into(), "true".into()));
    let mut client = StdioClient::start(&env).await;
    assert!(!client.tool_names().await.iter().any(|name| name == "ragdown_move"));
    let response = client
        .request(
            "tools/call",
            json!({"name": "ragdown_move", "arguments": {"from": "index.md", "to": "x.md"}}),
        )
        .await;
    assert!(response.get("error").is_some(), "{response}");
    assert_eq!(read(docs.path(), "index.md"), INDEX);
}

/// Every file under `root` that the index would see, relative to it.
fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}
