//! Settings → Server over real HTTP (`PATCH /api/settings`: saved, applied at once, reverted with
//! `null`, hand edits followed, a broken file reported, an embedder that cannot load changing
//! nothing, one that can rebuilding the index), and read-only mode across the routes.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api::{Api, ApiClient};
use crate::support::cache_dir;

const SAVED: &str = ".ragdown-server.json";

fn saved(api: &Api) -> Option<Value> {
    std::fs::read_to_string(api.path(SAVED))
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap())
}

async fn status(api: &ApiClient) -> Value {
    api.call("GET", "/api/status", None, None).await.json()
}

/// Polls the status until `done` holds.
pub(crate) async fn status_until(api: &ApiClient, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let now = status(api).await;
        if done(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "{what}: {now}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A `ragdown_recall` over `/mcp/ops`: the text of its first hit.
async fn recall(api: &Api, query: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "ragdown_recall", "arguments": {"query": query, "top_k": 1}}});
    let answer = api
        .call_with(
            "POST",
            "/mcp/ops",
            Some(body.to_string().into_bytes()),
            Some("api-token"),
            &[("Accept", "application/json, text/event-stream")],
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    answer.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_setting_applies_at_once_and_null_reverts_it() {
    let api = Api::start(&[]).await;
    assert!(!recall(&api, "restic restore").await.contains("[clipped"));
    let changed = api
        .send(
            "PATCH",
            "/api/settings",
            Some(json!({"text_limit": 20, "hook": {"top_k": 2}, "query_log": true})),
        )
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text());
    let settings = &changed.json()["settings"];
    assert_eq!(
        (settings["text_limit"].as_u64(), settings["hook"]["top_k"].as_u64()),
        (Some(20), Some(2))
    );
    assert_eq!(settings["env"]["text_limit"], 2000);
    assert_eq!(
        saved(&api),
        Some(json!({"text_limit": 20, "hook": {"top_k": 2}, "query_log": true}))
    );
    // The next call is clipped to the new limit, and it was logged.
    let short = recall(&api, "restic restore").await;
    assert!(short.contains("[clipped: 20 of 26 characters"), "{short:?}");
    let usage = api.send("GET", "/api/query-log", None).await.json();
    assert!(usage.to_string().contains("restic restore"), "{usage}");
    let cleared = api.send("DELETE", "/api/query-log", None).await;
    assert_eq!(cleared.json(), json!({"cleared": true}));
    let usage = api.send("GET", "/api/query-log", None).await.json();
    assert!(!usage.to_string().contains("restic restore"), "{usage}");

    // Unknown keys of the file are kept; null reverts; an emptied file is removed.
    let mut file = saved(&api).unwrap();
    file["theme_of_someone_else"] = json!("kept");
    std::fs::write(api.path(SAVED), file.to_string()).unwrap();
    api.send(
        "PATCH",
        "/api/settings",
        Some(json!({"text_limit": null, "hook": null, "query_log": null})),
    )
    .await;
    assert_eq!(saved(&api), Some(json!({"theme_of_someone_else": "kept"})));
    assert_eq!(status(&api).await["settings"]["text_limit"], 2000);
    std::fs::write(api.path(SAVED), "{}").unwrap();
    api.send("PATCH", "/api/settings", Some(json!({"watch": null}))).await;
    assert!(!api.path(SAVED).exists());

    // Bad changes are refused whole and change nothing.
    api.send("PATCH", "/api/settings", Some(json!({"text_limit": 5}))).await;
    for bad in [
        json!({"text_limit": "lots"}),
        json!({"colour": "teal"}),
        json!({"text_limit": 1, "hook": {"top_k": 0}}),
        json!({"watch": "yes"}),
        json!([1, 2]),
    ] {
        let answer = api.send("PATCH", "/api/settings", Some(bad.clone())).await;
        assert_eq!(answer.status, 400, "{bad}: {}", answer.text());
    }
    assert_eq!(saved(&api), Some(json!({"text_limit": 5})));
}

#[tokio::test(flavor = "multi_thread")]
async fn watching_and_the_root_endpoint_turn_on_and_off_at_once() {
    let api = Api::start(&[]).await;
    assert_eq!(status(&api).await["watching"], false);
    api.send("PATCH", "/api/settings", Some(json!({"watch": true}))).await;
    assert_eq!(status(&api).await["watching"], true);
    // A file written now is indexed by the watcher, with no call to sync it.
    crate::support::write(api.root(), "ops/watched.md", "# Watched\n\nThe heron is here.\n");
    status_until(&api, "the watcher indexes the new file", |s| s["files"] == 5).await;
    api.send("PATCH", "/api/settings", Some(json!({"watch": false}))).await;
    assert_eq!(status(&api).await["watching"], false);

    let bare = || {
        api.call_with(
            "POST",
            "/mcp",
            Some(
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                    .to_string()
                    .into_bytes(),
            ),
            Some("api-token"),
            &[("Accept", "application/json, text/event-stream")],
        )
    };
    assert_eq!(bare().await.status, 404);
    api.send("PATCH", "/api/settings", Some(json!({"root_mcp": true})))
        .await;
    assert_eq!(bare().await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn hand_edits_are_followed_and_a_broken_file_is_reported() {
    let api = Api::start(&[]).await;
    std::fs::write(api.path(SAVED), r#"{"text_limit": 123, "watch": true}"#).unwrap();
    status_until(&api, "a hand edit is followed", |s| {
        s["settings"]["text_limit"] == 123 && s["watching"] == true
    })
    .await;
    std::fs::write(api.path(SAVED), "{broken").unwrap();
    let now = status_until(&api, "a broken file is reported", |s| {
        s["settings"]["saved_error"].is_string()
    })
    .await;
    assert_eq!(now["settings"]["text_limit"], 2000, "a broken file is nothing saved");
    // A change over a broken file is refused rather than losing what it says.
    let refused = api.send("PATCH", "/api/settings", Some(json!({"text_limit": 9}))).await;
    assert_eq!(refused.status, 409, "{}", refused.text());
    assert_eq!(std::fs::read_to_string(api.path(SAVED)).unwrap(), "{broken");
    assert!(!recall(&api, "restic").await.is_empty(), "the server keeps answering");

    // A folder's broken settings file is reported too, and the folder runs with the defaults.
    assert_eq!(status(&api).await["settings"]["folder_errors"], json!({}));
    std::fs::write(api.path("ops/.ragdown.json"), "{\"mcp\": tru").unwrap();
    let now = status(&api).await;
    assert!(
        now["settings"]["folder_errors"]["ops"]
            .as_str()
            .unwrap()
            .contains(".ragdown.json"),
        "{now}"
    );
    let folders = api.send("GET", "/api/folders", None).await.json();
    assert_eq!(folders["folders"][0]["mcp"], false, "{folders}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_embedder_that_cannot_load_changes_nothing() {
    let api = Api::start(&[]).await;
    let before = status(&api).await;
    let answer = api
        .send(
            "PATCH",
            "/api/settings",
            Some(json!({"embedder": "no-such-model", "text_limit": 7})),
        )
        .await;
    assert_eq!(answer.status, 400, "{}", answer.text());
    assert!(
        answer.json()["error"].as_str().unwrap().contains("no-such-model"),
        "{}",
        answer.text()
    );
    assert_eq!(saved(&api), None, "nothing saved, not even the other key");
    let after = status(&api).await;
    assert_eq!(after["embedder"], "hash-384");
    assert_eq!(
        (after["files"].clone(), after["chunks"].clone()),
        (before["files"].clone(), before["chunks"].clone())
    );
    assert_eq!(after["settings"]["text_limit"], 2000);
    assert!(recall(&api, "restic").await.contains("backups.md"));
}

/// A model that exists but that this server cannot get now (not cached, the hub unreachable) is
/// the server's failure, not the request's: 503, and nothing saved.
#[tokio::test(flavor = "multi_thread")]
async fn a_model_the_server_cannot_download_is_unavailable_not_a_bad_request() {
    let api = Api::start(&["--hub-endpoint", "http://127.0.0.1:9"]).await;
    let answer = api
        .send("PATCH", "/api/settings", Some(json!({"embedder": "bge-small"})))
        .await;
    let error = answer.error(503);
    assert!(error.contains("cannot load the embedder bge-small"), "{error}");
    assert_eq!(saved(&api), None);
    assert_eq!(status(&api).await["embedder"], "hash-384");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_embedder_rebuilds_the_index_in_place() {
    let cache = cache_dir();
    if !cache.join("models").exists() {
        eprintln!(
            "skipped: no model cache at {} (scripts/install-model.sh minilm)",
            cache.display()
        );
        return;
    }
    let cache_flag = cache.to_string_lossy().to_string();
    let api = Api::start(&["--cache-dir", cache_flag.as_str()]).await;
    let answer = api
        .send("PATCH", "/api/settings", Some(json!({"embedder": "minilm"})))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(saved(&api), Some(json!({"embedder": "minilm"})));
    let now = status_until(&api, "the index is rebuilt with minilm", |s| {
        s["embedder"] == "all-MiniLM-L6-v2-q8" && s["syncing"] == false && s["files"] == 4
    })
    .await;
    assert_eq!(now["settings"]["embedder"], "minilm");
    assert!(
        recall(&api, "how do we restore the nightly backup")
            .await
            .contains("backups.md")
    );
    // Back to the variable's embedder.
    api.send("PATCH", "/api/settings", Some(json!({"embedder": null})))
        .await;
    status_until(&api, "back to hash", |s| {
        s["embedder"] == "hash-384" && s["syncing"] == false && s["files"] == 4
    })
    .await;
    assert_eq!(saved(&api), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_refuses_writes_but_not_a_folders_settings() {
    let api = Api::start(&["--read-only", "true"]).await;
    let before = api.snapshot();
    let read_only = "The server is read-only (RAGDOWN_READ_ONLY)";
    for (method, route, body) in [
        ("POST", "/api/doc", Some(json!({"path": "ops/x.md", "text": "# x"}))),
        ("DELETE", "/api/doc?path=ops/backups.md", None),
        (
            "POST",
            "/api/move",
            Some(json!({"from": "ops/backups.md", "to": "ops/b.md"})),
        ),
        ("POST", "/api/folders", Some(json!({"name": "new"}))),
        ("DELETE", "/api/folders/ops?confirm=ops", None),
        ("PATCH", "/api/folders/ops", Some(json!({"name": "renamed"}))),
        ("DELETE", "/api/loose?name=loose.md", None),
        ("PATCH", "/api/settings", Some(json!({"text_limit": 5}))),
    ] {
        assert_eq!(
            api.send(method, route, body).await.error(403),
            read_only,
            "{method} {route}"
        );
    }
    assert_eq!(api.snapshot(), before, "nothing changed");
    // Reads still work, and a folder's title, MCP switch and hook may change.
    assert_eq!(api.send("GET", "/api/doc?path=ops/backups.md", None).await.status, 200);
    let changed = api
        .send(
            "PATCH",
            "/api/folders/ops",
            Some(json!({"title": "Ops", "mcp": false, "hook": {"top_k": 3}})),
        )
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text());
    let file: Value = serde_json::from_str(&api.read("ops/.ragdown.json")).unwrap();
    assert_eq!(
        file,
        json!({"title": "Ops", "mcp": false, "colour": "teal", "hook": {"top_k": 3}})
    );
    assert_eq!(status(&api).await["read_only"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reader_refuses_an_embedder_change_and_keeps_the_primarys_settings_file() {
    let api = Api::start(&[]).await;
    let (base, _stop) = crate::support::serve(api.root(), api.data.path(), "api-token", &[]).await;
    let reader = Api::at(&base);
    let status = status_until(&reader, "the second server opens as a reader", |s| s["ready"] == true).await;
    assert_eq!(status["role"], "reader", "{status}");
    let refused = reader
        .send("PATCH", "/api/settings", Some(json!({"embedder": "minilm"})))
        .await;
    assert_eq!(
        refused.error(409),
        "this process only reads the index: change the embedder where it is built"
    );
    assert_eq!(saved(&api), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn status_answers_when_the_index_cannot_open_and_the_rest_says_it_is_loading() {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    crate::support::write(docs.path(), "ops/a.md", "# A\n");
    let args = [
        "ragdownd",
        "serve",
        "--docs",
        docs.path().to_str().unwrap(),
        "--data",
        data.path().to_str().unwrap(),
        "--embedder",
        "no-such-model",
        "--token",
        "api-token",
    ];
    let (base, _stop) = crate::support::serve_args(&args, data.path()).await;
    let api = Api::at(&base);
    let now = status_until(&api, "the load error is reported", |s| s["error"].is_string()).await;
    assert_eq!(now["ready"], false);
    assert!(now["error"].as_str().unwrap().contains("no-such-model"), "{now}");
    assert_eq!(
        now["settings"]["text_limit"], 2000,
        "the settings are shown all the same"
    );
    let folders = api.send("GET", "/api/folders", None).await;
    assert_eq!(folders.status, 200, "{}", folders.text());
    assert_eq!(folders.json()["folders"][0]["name"], "ops");
    let doc = api.send("GET", "/api/doc?path=ops/a.md", None).await;
    assert_eq!(doc.error(503), "The index is still loading; retry shortly");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_web_search_is_logged_as_one_for_the_usage_page() {
    let api = Api::start(&["--query-log", "true"]).await;
    let found = api.send("GET", "/api/search?folder=ops&q=restic%20restore", None).await;
    assert_eq!(found.status, 200, "{}", found.text());
    let usage = api.send("GET", "/api/query-log", None).await.json();
    assert_eq!(usage["searches"]["web_search"], 1, "{usage}");
    assert_eq!(usage["searches"]["recall"], 0, "{usage}");
    let today = usage["days"]
        .as_array()
        .and_then(|days| days.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(today["web_search"], 1, "{usage}");
}
