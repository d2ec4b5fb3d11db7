//! Every tool of this slice over a real stdio child process, against the original's goldens.

use regex::Regex;
use serde_json::{Value, json};

use crate::support::{StdioClient, docs, expected, fixture, test_env, today};

fn ops_docs() -> tempfile::TempDir {
    let backups = std::fs::read_to_string(fixture("ops-backups.md")).unwrap();
    docs(&[("ops/backups.md", &backups)])
}

async fn started(docs: &tempfile::TempDir, data: &tempfile::TempDir, extra: &[(&str, &str)]) -> StdioClient {
    let mut env = test_env(docs.path(), data.path());
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut client = StdioClient::start(&env).await;
    // Joins the first sync (or its follow-up), so the index is complete before the checks.
    client.ok("ragdown_reindex", json!({})).await;
    client
}

#[tokio::test]
async fn recall_answers_in_the_reference_text_format() {
    let (docs, data) = (ops_docs(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data, &[]).await;
    let expected = expected();

    let text = client.ok("ragdown_recall", json!({"query": "pg_restore twice"})).await;
    let pattern = expected["recall_text_regex"]
        .as_str()
        .unwrap()
        .replace("YYYY-MM-DD", &today());
    assert!(Regex::new(&pattern).unwrap().is_match(&text), "{text}");
    let first = text.split("\n\n[2] ").next().unwrap();
    assert!(first.ends_with("\nRun pg_restore twice."), "{text}");

    let clipped = client
        .ok(
            "ragdown_recall",
            json!({"query": "pg_restore twice", "max_chars": 5, "top_k": 1}),
        )
        .await;
    let suffix = expected["recall_clip_suffix"].as_str().unwrap();
    assert!(clipped.ends_with(&format!("Run p… {suffix}")), "{clipped}");

    let none = client
        .ok("ragdown_recall", json!({"query": "pg_restore", "tag": "no-such-tag"}))
        .await;
    assert_eq!(none, expected["recall_empty"].as_str().unwrap());
}

#[tokio::test]
async fn recall_json_hits_carry_the_reference_keys() {
    let (docs, data) = (ops_docs(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data, &[]).await;
    let text = client
        .ok("ragdown_recall", json!({"query": "pg_restore twice", "format": "json"}))
        .await;
    let value: Value = serde_json::from_str(&text).unwrap();
    let hit = &value["hits"][0];
    let expected = expected();
    let keys: Vec<&str> = expected["recall_json_hit_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    for key in keys {
        match key.strip_suffix('?') {
            // Optional: only on agent-written documents.
            Some(optional) => assert!(hit.get(optional).is_none(), "{optional} on a user document"),
            None => assert!(hit.get(key).is_some(), "missing {key} in {hit}"),
        }
    }
    assert_eq!(hit["path"], "ops/backups.md");
    assert_eq!(hit["heading"], "Backups › Restore");
    assert_eq!(
        (hit["line_start"].as_i64(), hit["line_end"].as_i64()),
        (Some(7), Some(7))
    );
    assert!(hit["sources"].as_array().unwrap().contains(&json!("lexical")), "{hit}");
    let similarity = hit["similarity"].as_f64().unwrap();
    assert_eq!((similarity * 1e4).round() / 1e4, similarity, "4 decimal places");
}

#[tokio::test]
async fn read_doc_returns_ranges_headings_and_refuses_paths_outside() {
    let (docs, data) = (ops_docs(), tempfile::tempdir().unwrap());
    crate::support::write(
        docs.path(),
        "ops/backups-v2.md",
        "---\nsupersedes: backups.md\n---\n# Backups v2\n\nNew plan.\n",
    );
    let mut client = started(&docs, &data, &[]).await;
    let expected = expected();

    let text = client
        .ok(
            "ragdown_read_doc",
            json!({"path": "ops/backups.md", "start_line": 5, "end_line": 7}),
        )
        .await;
    let pattern = expected["read_doc_range_regex"].as_str().unwrap();
    // The superseded note is part of the header for this document; the range golden has none.
    let without_note = text.replace(", superseded by ops/backups-v2.md", "");
    assert!(Regex::new(pattern).unwrap().is_match(&without_note), "{text}");

    let whole = client.ok("ragdown_read_doc", json!({"path": "ops/backups.md"})).await;
    let header = whole.lines().next().unwrap();
    let pattern = expected["read_doc_superseded_header_regex"].as_str().unwrap();
    assert!(Regex::new(pattern).unwrap().is_match(header), "{header}");

    // A wikilink target with a heading narrows to that section.
    let section = client.ok("ragdown_read_doc", json!({"path": "backups#Restore"})).await;
    assert!(
        section.starts_with("ops/backups.md:5-7 of 7 (hash ")
            && section.contains(", resolved from \"backups#Restore\"")
            && section.ends_with("\n## Restore\n\nRun pg_restore twice."),
        "{section}"
    );

    let (error, is_error) = client.call("ragdown_read_doc", json!({"path": "../etc/passwd"})).await;
    assert!(is_error);
    assert!(
        error.contains(expected["read_doc_outside_error_regex"].as_str().unwrap()),
        "{error}"
    );

    let (missing, is_error) = client.call("ragdown_read_doc", json!({"path": "nothing-here"})).await;
    assert!(is_error);
    assert_eq!(
        missing,
        "no such document: nothing-here (not a path, and no document by that name or alias)"
    );
}

#[tokio::test]
async fn stats_and_reindex_report_the_index() {
    let (docs, data) = (ops_docs(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data, &[]).await;
    let stats: Value = serde_json::from_str(&client.ok("ragdown_stats", json!({"include_files": true})).await).unwrap();
    let subset = &expected()["stats_json_subset"];
    for (key, value) in subset.as_object().unwrap() {
        assert_eq!(&stats[key], value, "stats.{key} in {stats}");
    }
    assert_eq!(stats["read_only"], false);
    assert_eq!(stats["data_dir"], data.path().to_str().unwrap());

    // Nothing changed: a sync reads nothing and writes nothing.
    let report: Value = serde_json::from_str(&client.ok("ragdown_reindex", json!({})).await).unwrap();
    assert_eq!(
        (
            report["added"].as_u64(),
            report["updated"].as_u64(),
            report["removed"].as_u64(),
            report["unchanged"].as_u64()
        ),
        (Some(0), Some(0), Some(0), Some(1))
    );
    let full: Value = serde_json::from_str(&client.ok("ragdown_reindex", json!({"full": true})).await).unwrap();
    assert_eq!(
        (full["added"].as_u64(), full["chunks"].as_u64()),
        (Some(1), Some(2)),
        "{full}"
    );
}

#[tokio::test]
async fn tools_listed_follow_read_only_and_disabled_settings() {
    let (docs, data) = (ops_docs(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data, &[]).await;
    let names = client.tool_names().await;
    // The original's twelve tools, all of them.
    let implemented = [
        "ragdown_backlinks",
        "ragdown_context",
        "ragdown_delete",
        "ragdown_edit",
        "ragdown_list",
        "ragdown_move",
        "ragdown_read_doc",
        "ragdown_recall",
        "ragdown_reindex",
        "ragdown_remember",
        "ragdown_stats",
        "ragdown_write",
    ];
    assert_eq!(names, implemented);
    assert_eq!(json!(names), expected()["tools_writable_sorted"]);

    let data2 = tempfile::tempdir().unwrap();
    let mut env = test_env(docs.path(), data2.path());
    env.push(("RAGDOWN_READ_ONLY".into(), "true".into()));
    env.push((
        "RAGDOWN_DISABLED_TOOLS".into(),
        "ragdown_context, ragdown_stats,ragdown_reindex".into(),
    ));
    let mut read_only = StdioClient::start(&env).await;
    assert_eq!(
        read_only.tool_names().await,
        [
            "ragdown_backlinks",
            "ragdown_list",
            "ragdown_read_doc",
            "ragdown_recall"
        ]
    );
    let listed: Vec<Value> = expected()["tools_disabled_env_example"]["listed"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        listed,
        [
            "ragdown_backlinks",
            "ragdown_list",
            "ragdown_read_doc",
            "ragdown_recall"
        ]
    );
    let response = read_only
        .request("tools/call", json!({"name": "ragdown_reindex", "arguments": {}}))
        .await;
    assert!(
        response.get("error").is_some(),
        "a hidden tool must not be callable: {response}"
    );
}

#[tokio::test]
async fn bad_arguments_are_refused_with_a_clear_error() {
    let (docs, data) = (ops_docs(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data, &[]).await;
    let (text, is_error) = client.call("ragdown_recall", json!({"query": "x", "top_k": 51})).await;
    assert!(is_error && text == "top_k must be between 1 and 50", "{text}");
    let (text, is_error) = client.call("ragdown_recall", json!({"query": "x", "bogus": 1})).await;
    assert!(is_error && text.contains("unknown field `bogus`"), "{text}");
    let (text, is_error) = client
        .call("ragdown_recall", json!({"query": "x", "path_prefix": "../up"}))
        .await;
    assert!(is_error && text == "path is outside the docs folder: ../up", "{text}");
    let response = client
        .request("tools/call", json!({"name": "ragdown_nope", "arguments": {}}))
        .await;
    assert!(
        response["error"]["message"].as_str().unwrap().contains("unknown tool"),
        "{response}"
    );
}

#[tokio::test]
async fn list_prints_one_line_per_document_in_the_reference_format() {
    let backups = std::fs::read_to_string(fixture("ops-backups.md")).unwrap();
    let docs = docs(&[
        (
            "notes/a.md",
            "---\ntitle: Alpha\ntags: [project/alpha]\n---\nAlpha body.",
        ),
        (
            "ops/dr.md",
            "---\ndescription: Zebra crossing plan\n---\n# DR\n\nThe plan.",
        ),
        (
            "notes/drill.md",
            "---\ntitle: Restore drill\ncreated_by: ragdown_remember\nsession: s1\n---\nDrill notes.",
        ),
        ("ops/backups.md", &backups),
        (
            "ops/backups-v2.md",
            "---\nsupersedes: backups.md\n---\n# Backups v2\n\nNew plan.",
        ),
    ]);
    let data = tempfile::tempdir().unwrap();
    let mut client = started(&docs, &data, &[]).await;
    let expected = expected();
    let golden: Vec<String> = expected["list_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().replace("YYYY-MM-DD", &today()))
        .collect();
    let all = client.ok("ragdown_list", json!({})).await;
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines[0], "documents: 5");
    for line in &golden[2..] {
        assert!(lines.contains(&line.as_str()), "missing {line:?} in\n{all}");
    }
    assert_eq!(
        client
            .ok("ragdown_list", json!({"path_prefix": "notes"}))
            .await
            .lines()
            .count(),
        3
    );
    let limited = client
        .ok("ragdown_list", json!({"path_prefix": "notes", "limit": 1}))
        .await;
    assert_eq!(limited.lines().next().unwrap(), golden[1]);
    let agent = client
        .ok("ragdown_list", json!({"written_by": "agent", "session_id": "s1"}))
        .await;
    assert_eq!(agent.lines().collect::<Vec<_>>(), ["documents: 1", golden[4].as_str()]);
    let tagged = client.ok("ragdown_list", json!({"tag": "project"})).await;
    assert_eq!(tagged.lines().nth(1), Some(golden[2].as_str()));
    assert_eq!(
        client.ok("ragdown_list", json!({"tag": "nothing"})).await,
        expected["list_empty"]
    );
}

#[tokio::test]
async fn backlinks_list_linking_lines_outside_code() {
    let docs = docs(&[
        ("ops/restore.md", "---\naliases: [DR]\n---\n# Restore\n\nSteps."),
        ("a.md", "# A\n\nSee [[restore]].\n\nAnd [[DR|disaster recovery]]."),
        ("b.md", "# B\n\n[steps](ops/restore.md) but `[[restore]]` is code."),
        ("c.md", "# C\n\n```\n[[restore]]\n```\n\nNo link here."),
    ]);
    let data = tempfile::tempdir().unwrap();
    let mut client = started(&docs, &data, &[]).await;
    let text = client.ok("ragdown_backlinks", json!({"path": "ops/restore.md"})).await;
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value, expected()["backlinks_json"]);
    let (error, is_error) = client
        .call("ragdown_backlinks", json!({"path": "ops/nothing.md"}))
        .await;
    assert!(
        is_error && error == "not an indexed document: ops/nothing.md",
        "{error}"
    );
}

#[tokio::test]
async fn a_second_process_on_the_same_index_is_a_reader() {
    let (docs, data) = (ops_docs(), tempfile::tempdir().unwrap());
    let mut first = started(&docs, &data, &[]).await;
    let mut second = StdioClient::start(&test_env(docs.path(), data.path())).await;
    let stats: Value = serde_json::from_str(&second.ok("ragdown_stats", json!({})).await).unwrap();
    assert_eq!(
        (stats["role"].as_str(), stats["syncing"].is_null()),
        (Some("reader"), true),
        "{stats}"
    );
    crate::support::write(docs.path(), "ops/new.md", "# New\n\nAdded while two servers run.");
    let report: Value = serde_json::from_str(&second.ok("ragdown_reindex", json!({})).await).unwrap();
    assert_eq!(report["added"], 1, "{report}");
    let hits = first
        .ok(
            "ragdown_recall",
            json!({"query": "added while two servers run", "top_k": 1}),
        )
        .await;
    assert!(hits.starts_with("[1] ops/new.md"), "{hits}");
    let stats: Value = serde_json::from_str(&first.ok("ragdown_stats", json!({})).await).unwrap();
    assert_eq!(
        (stats["role"].as_str(), stats["chunks"].as_u64()),
        (Some("primary"), Some(3)),
        "{stats}"
    );
}
