//! Resource subscriptions over a real stdio child process with the watcher on: an edit made on
//! disk, by no tool, reaches a subscriber as `notifications/resources/updated` once the index's
//! sync has seen it, and a new file as `notifications/resources/list_changed`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{StdioClient, docs, fixture, test_env};

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
