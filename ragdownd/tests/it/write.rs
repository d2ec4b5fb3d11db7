//! The write tools over a real stdio child process: the original's output and error text, files
//! written whole, and every write searchable before the tool answers.

use regex::Regex;
use serde_json::{Value, json};

use crate::support::{StdioClient, docs, expected, fixture, test_env, write};

async fn client_for(docs: &tempfile::TempDir, data: &tempfile::TempDir) -> StdioClient {
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;
    client
}

fn ops() -> tempfile::TempDir {
    docs(&[(
        "ops/backups.md",
        &std::fs::read_to_string(fixture("ops-backups.md")).unwrap(),
    )])
}

/// The 12-character hash `ragdown_read_doc` prints for a document.
async fn hash_of(client: &mut StdioClient, path: &str) -> String {
    let text = client.ok("ragdown_read_doc", json!({"path": path})).await;
    let header = text.lines().next().unwrap();
    Regex::new(r"\(hash ([0-9a-f]{12})").unwrap().captures(header).unwrap()[1].to_string()
}

#[tokio::test]
async fn remember_writes_a_new_note_and_never_overwrites() {
    let (docs, data) = (ops(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    let expected = expected();
    let args = json!({"title": "Kafka retention", "content": "Retention is seven days.\n\n", "tags": ["ops"], "name": "kafka"});
    let first = client.ok("ragdown_remember", args.clone()).await;
    let second = client.ok("ragdown_remember", args).await;
    assert_eq!(json!([first, second]), expected["remember_results"]);
    let text = std::fs::read_to_string(docs.path().join("notes/kafka.md")).unwrap();
    let pattern = expected["remember_file_regex"].as_str().unwrap();
    assert!(Regex::new(pattern).unwrap().is_match(&text), "{text:?}");
    // Indexed before the tool answered.
    let hits = client
        .ok(
            "ragdown_recall",
            json!({"query": "retention seven days", "written_by": "agent"}),
        )
        .await;
    assert!(hits.starts_with("[1] notes/kafka"), "{hits}");
    assert!(hits.contains("written by an agent with ragdown_remember"), "{hits}");

    let saved = client
        .ok(
            "ragdown_remember",
            json!({"title": "Backups v2", "content": "New plan.", "supersedes": ["ops/backups.md"]}),
        )
        .await;
    assert!(
        Regex::new(r"^saved notes/\d{4}-\d{2}-\d{2}-backups-v2\.md \(supersedes ops/backups\.md\)$")
            .unwrap()
            .is_match(&saved),
        "{saved}"
    );
    let (error, is_error) = client
        .call(
            "ragdown_remember",
            json!({"title": "x", "content": "y", "supersedes": ["../etc/passwd"]}),
        )
        .await;
    assert!(
        is_error && error.starts_with("supersedes is outside the documents folder"),
        "{error}"
    );
}

#[tokio::test]
async fn write_creates_replaces_with_base_hash_and_appends() {
    let (docs, data) = (ops(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    let expected = expected();

    let created = client
        .ok(
            "ragdown_write",
            json!({"path": "ops/new.md", "text": "# Plain\n\nText.", "session_id": "s9"}),
        )
        .await;
    assert!(
        Regex::new(expected["write_created_regex"].as_str().unwrap())
            .unwrap()
            .is_match(&created),
        "{created}"
    );
    assert_eq!(
        std::fs::read_to_string(docs.path().join("ops/new.md")).unwrap(),
        expected["write_created_file_with_session"].as_str().unwrap()
    );

    let (error, is_error) = client
        .call("ragdown_write", json!({"path": "ops/backups.md", "text": "gone"}))
        .await;
    assert!(is_error);
    assert_eq!(
        error,
        "ops/backups.md exists: pass the hash ragdown_read_doc returned as base_hash to replace it"
    );

    let hash = hash_of(&mut client, "ops/backups.md").await;
    let appended = client
        .ok(
            "ragdown_write",
            json!({"path": "ops/backups.md", "text": "Check the checksum first.", "append": true, "heading": "Restore", "base_hash": hash}),
        )
        .await;
    assert!(appended.starts_with("wrote ops/backups.md (hash "), "{appended}");
    let text = std::fs::read_to_string(docs.path().join("ops/backups.md")).unwrap();
    assert!(
        text.starts_with(
            "# Backups\n\nNightly snapshots.\n\n## Restore\n\nRun pg_restore twice.\n\nCheck the checksum first."
        ),
        "{text:?}"
    );

    // The hash from before the append is stale now.
    let (error, is_error) = client
        .call(
            "ragdown_write",
            json!({"path": "ops/backups.md", "text": "# Replaced", "base_hash": hash}),
        )
        .await;
    assert!(
        is_error && error.contains("changed on disk since it was opened"),
        "{error}"
    );
    let fresh = hash_of(&mut client, "ops/backups.md").await;
    let replaced = client
        .ok(
            "ragdown_write",
            json!({"path": "ops/backups.md", "text": "# Replaced\n\nAll new.", "base_hash": fresh}),
        )
        .await;
    assert!(
        Regex::new(expected["write_replaced_regex"].as_str().unwrap())
            .unwrap()
            .is_match(&replaced),
        "{replaced}"
    );
    let hits = client
        .ok("ragdown_recall", json!({"query": "all new replaced", "top_k": 1}))
        .await;
    assert!(
        hits.contains("All new."),
        "the replacement was not indexed before the answer: {hits}"
    );

    let (error, is_error) = client
        .call(
            "ragdown_write",
            json!({"path": "ops/x.md", "text": "t", "heading": "H"}),
        )
        .await;
    assert!(is_error && error == "heading is for append: true", "{error}");
}

#[tokio::test]
async fn two_writers_with_one_base_hash_exactly_one_wins() {
    let (docs, data) = (ops(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    let hash = hash_of(&mut client, "ops/backups.md").await;
    let long_a = format!("# A\n\n{}", "alpha ".repeat(50_000));
    let long_b = format!("# B\n\n{}", "beta ".repeat(50_000));
    let a = client
        .send_request("tools/call", json!({"name": "ragdown_write", "arguments": {"path": "ops/backups.md", "text": long_a, "base_hash": hash}}))
        .await;
    let b = client
        .send_request("tools/call", json!({"name": "ragdown_write", "arguments": {"path": "ops/backups.md", "text": long_b, "base_hash": hash}}))
        .await;
    let results: Vec<Value> = vec![client.response(a).await, client.response(b).await];
    let errors: Vec<bool> = results
        .iter()
        .map(|r| r["result"]["isError"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(errors.iter().filter(|e| **e).count(), 1, "{results:?}");
    let loser = results.iter().find(|r| r["result"]["isError"] == true).unwrap();
    assert!(
        loser["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("changed on disk"),
        "{loser}"
    );
    let text = std::fs::read_to_string(docs.path().join("ops/backups.md")).unwrap();
    assert!(
        text == long_a || text == long_b,
        "the file is neither writer's whole text ({} bytes)",
        text.len()
    );
}

#[tokio::test]
async fn edit_applies_all_or_nothing_with_the_reference_messages() {
    let (docs, data) = (ops(), tempfile::tempdir().unwrap());
    let mut client = client_for(&docs, &data).await;
    let expected = expected();
    let edited = client
        .ok(
            "ragdown_edit",
            json!({"path": "ops/backups.md", "edits": [
                {"old_text": "Nightly", "new_text": "Hourly"},
                {"old_text": "twice", "new_text": "three times"}
            ]}),
        )
        .await;
    assert!(
        Regex::new(expected["edit_result_regex"].as_str().unwrap())
            .unwrap()
            .is_match(&edited),
        "{edited}"
    );
    let before = std::fs::read_to_string(docs.path().join("ops/backups.md")).unwrap();
    assert!(before.contains("Hourly snapshots.") && before.contains("three times"));

    let (error, is_error) = client
        .call(
            "ragdown_edit",
            json!({"path": "ops/backups.md", "edits": [
                {"old_text": "three times", "new_text": "once"},
                {"old_text": "Hourly  snapshots!", "new_text": "x"}
            ]}),
        )
        .await;
    assert!(is_error);
    assert!(
        Regex::new(expected["edit_partial_error_regex"].as_str().unwrap())
            .unwrap()
            .is_match(&error),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(docs.path().join("ops/backups.md")).unwrap(),
        before,
        "nothing written"
    );

    let (error, _) = client
        .call(
            "ragdown_edit",
            json!({"path": "ops/none.md", "edits": [{"old_text": "a", "new_text": "b"}]}),
        )
        .await;
    assert_eq!(error, "no such document: ops/none.md");
}

#[tokio::test]
async fn delete_removes_documents_and_subfolders_and_refuses_bad_paths() {
    let (docs, data) = (ops(), tempfile::tempdir().unwrap());
    write(docs.path(), "ops/old/pg.md", "# PG\n\nold notes");
    std::fs::write(docs.path().join("ops/image.png"), b"\x89PNG").unwrap();
    let mut client = client_for(&docs, &data).await;
    let expected = expected();
    let first = client.ok("ragdown_delete", json!({"path": "ops/old/pg.md"})).await;
    let (error, is_error) = client.call("ragdown_delete", json!({"path": "ops"})).await;
    assert!(
        is_error && error == "ops is not empty: pass recursive: true to delete everything in it",
        "{error}"
    );
    for bad in ["../outside.md", ".", "ops/image.png", "/etc/passwd"] {
        let (error, is_error) = client.call("ragdown_delete", json!({"path": bad})).await;
        assert!(is_error, "{bad}: {error}");
    }
    assert!(docs.path().join("ops/image.png").exists());
    let second = client
        .ok("ragdown_delete", json!({"path": "ops", "recursive": true}))
        .await;
    assert_eq!(json!([first, second]), expected["delete_results"]);
    assert!(!docs.path().join("ops").exists());
    let stats: Value = serde_json::from_str(&client.ok("ragdown_stats", json!({})).await).unwrap();
    assert_eq!((stats["files"].as_u64(), stats["chunks"].as_u64()), (Some(0), Some(0)));
}
