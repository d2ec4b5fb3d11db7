//! The details of the `/api` routes that clients written for the original rely on, over real
//! HTTP: every key of a document and a hit sent (`null` when empty), `top_k` past the most capped,
//! a CRLF document read as lines joined by `\n`, a path outside any folder a 404 to read, an
//! absolute path refused by every route that takes one (and nothing written), and
//! `follow_links` saved and applied like the other search settings.

use serde_json::{Value, json};

use crate::api::Api;
use crate::support::write;

#[tokio::test(flavor = "multi_thread")]
async fn status_sends_the_hook_unrelated_score_even_when_not_measured() {
    let api = Api::start(&[]).await;
    let status = api.call("GET", "/api/status", None, None).await.json();
    for hook in [&status["settings"]["hook"], &status["settings"]["env"]["hook"]] {
        let hook = hook.as_object().unwrap();
        // The hash embedder has no measured score: the key is there, as null.
        assert_eq!(hook.get("unrelated_score"), Some(&Value::Null), "{hook:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn documents_and_hits_send_every_key_null_when_empty() {
    let api = Api::start(&[]).await;
    let docs = api.send("GET", "/api/docs?folder=ops", None).await.json();
    let backups = docs["docs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == "ops/backups.md")
        .unwrap()
        .as_object()
        .unwrap();
    for key in ["description", "created_by", "session"] {
        assert_eq!(backups.get(key), Some(&Value::Null), "{key} in {backups:?}");
    }
    let hits = api.send("GET", "/api/search?folder=ops&q=restic", None).await.json();
    let first = hits["hits"][0].as_object().unwrap();
    assert_eq!(first.get("created_by"), Some(&Value::Null), "{first:?}");

    // An agent's document names its tool in both.
    api.send(
        "POST",
        "/api/doc",
        Some(json!({"path": "ops/agent.md", "text": "---\ncreated_by: ragdown_remember\nsession: s-1\ndescription: A note\n---\n# Agent\n\nwombat ledger\n"})),
    )
    .await;
    let docs = api.send("GET", "/api/docs?folder=ops", None).await.json();
    let agent = docs["docs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == "ops/agent.md")
        .unwrap()
        .clone();
    assert_eq!(
        (&agent["created_by"], &agent["session"], &agent["description"]),
        (&json!("ragdown_remember"), &json!("s-1"), &json!("A note"))
    );
    let hits = api
        .send("GET", "/api/search?folder=ops&q=wombat%20ledger", None)
        .await
        .json();
    assert_eq!(hits["hits"][0]["created_by"], "ragdown_remember", "{hits}");
}

#[tokio::test(flavor = "multi_thread")]
async fn search_caps_top_k_past_the_most_instead_of_refusing() {
    let api = Api::start(&[]).await;
    // Each save syncs the note it wrote before it answers.
    for i in 0..60 {
        let saved = api
            .send(
                "POST",
                "/api/doc",
                Some(json!({"path": format!("ops/many/n{i:02}.md"), "text": format!("# Note {i}\n\nkestrel count {i}\n")})),
            )
            .await;
        assert_eq!(saved.status, 201, "{}", saved.text());
    }
    let answer = api
        .send("GET", "/api/search?folder=ops&q=kestrel&top_k=100", None)
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["hits"].as_array().unwrap().len(), 50);
    let ten = api.send("GET", "/api/search?folder=ops&q=kestrel", None).await.json();
    assert_eq!(ten["hits"].as_array().unwrap().len(), 10);
    for bad in ["0", "-1", "many"] {
        let answer = api
            .send("GET", &format!("/api/search?folder=ops&q=kestrel&top_k={bad}"), None)
            .await;
        assert!(answer.error(400).starts_with("top_k must be"), "{bad}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crlf_document_reads_as_lines_joined_by_lf_and_saves_back_as_crlf() {
    let api = Api::start(&[]).await;
    let on_disk = std::fs::read(api.path("ops/crlf.md")).unwrap();
    let doc = api.send("GET", "/api/doc?path=ops/crlf.md", None).await.json();
    assert_eq!(doc["text"], "# CRLF\n\nWindows lines.\n");
    assert_eq!(doc["total_lines"], 4);
    // The hash is still the file's bytes', so a save with it goes through.
    assert_eq!(doc["hash"], ragdownd::documents::content_hash(&on_disk));
    let text = format!("{}More.\n", doc["text"].as_str().unwrap());
    let saved = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/crlf.md", "text": text, "base_hash": doc["hash"]})),
        )
        .await;
    assert_eq!(saved.status, 200, "{}", saved.text());
    assert_eq!(api.read("ops/crlf.md"), "# CRLF\r\n\r\nWindows lines.\r\nMore.\r\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_is_not_in_a_folder_is_a_404_to_read_and_a_400_to_resolve_from_or_write() {
    let api = Api::start(&[]).await;
    for route in [
        "/api/doc?path=loose.md",
        "/api/doc?path=nofolder/a.md",
        "/api/file?path=loose.md",
        "/api/backlinks?path=loose.md",
    ] {
        api.send("GET", route, None).await.error(404);
    }
    // A link is resolved within a folder: from outside every folder there is nothing to resolve
    // against, a bad request (the original's 400).
    for from in ["loose.md", "nofolder/a.md", "../outside.md"] {
        let refused = api
            .send("GET", &format!("/api/resolve?from={from}&link=Backups"), None)
            .await
            .error(400);
        assert!(refused.contains("not inside a folder"), "{from}: {refused}");
    }
    let before = api.snapshot();
    api.send("DELETE", "/api/doc?path=loose.md", None).await.error(404);
    // A path no folder could hold is refused outright, and nothing anywhere is deleted.
    for bad in [
        "../../etc/passwd.md",
        "ops/../../x.md",
        "..%2F..%2Fetc%2Fpasswd.md",
        ".git/x.md",
    ] {
        let refused = api
            .send("DELETE", &format!("/api/doc?path={bad}"), None)
            .await
            .error(400);
        assert!(refused.contains("path"), "{bad}: {refused}");
    }
    assert_eq!(api.snapshot(), before, "the loose file stays");
    // Writing one is still a bad request.
    let refused = api
        .send("POST", "/api/doc", Some(json!({"path": "loose2.md", "text": "x"})))
        .await
        .error(400);
    assert!(refused.contains("not inside a folder"), "{refused}");
}

#[tokio::test(flavor = "multi_thread")]
async fn absolute_paths_are_refused_by_every_route_and_nothing_is_written() {
    let api = Api::start(&[]).await;
    // A folder named like the first segment of an absolute path on this machine.
    write(api.root(), "tmp/.ragdown.json", r#"{"title":"Tmp"}"#);
    let before = api.snapshot();
    let deep = format!("{}/ops/abs.md", api.root().display());
    let writes = [
        ("POST", "/api/doc", json!({"path": "/ops/x.md", "text": "# X\n"})),
        ("POST", "/api/doc", json!({"path": deep, "text": "# X\n"})),
        ("POST", "/api/doc", json!({"path": "\\ops\\x.md", "text": "# X\n"})),
        ("POST", "/api/doc", json!({"path": "C:/ops/x.md", "text": "# X\n"})),
        (
            "POST",
            "/api/move",
            json!({"from": "/ops/backups.md", "to": "ops/moved.md"}),
        ),
        (
            "POST",
            "/api/move",
            json!({"from": "ops/backups.md", "to": "/ops/moved.md"}),
        ),
    ];
    for (method, route, body) in writes {
        let error = api.send(method, route, Some(body.clone())).await.error(400);
        assert!(error.contains("not absolute"), "{body}: {error}");
    }
    for route in [
        "/api/doc?path=/ops/backups.md",
        "/api/file?path=/ops/backups.md",
        "/api/backlinks?path=/ops/backups.md",
        "/api/resolve?from=/ops/db/postgres.md&link=Backups",
    ] {
        api.send("GET", route, None).await.error(400);
    }
    api.send("DELETE", "/api/doc?path=/ops/backups.md", None)
        .await
        .error(400);
    assert_eq!(api.snapshot(), before, "nothing was written, moved or deleted");
}

/// The paths of a search's hits.
async fn hit_paths(api: &Api, q: &str) -> Vec<String> {
    let hits = api
        .send("GET", &format!("/api/search?folder=ops&q={q}&top_k=2"), None)
        .await
        .json();
    hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn follow_links_is_saved_shown_and_applied_at_once() {
    let api = Api::start(&[]).await;
    for (path, text) in [
        ("ops/hub.md", "# Hub\n\nzanzibar quokka, see [[Target]].\n"),
        ("ops/target.md", "# Target\n\nNothing alike in here at all.\n"),
        ("ops/other.md", "# Other\n\nquokka sightings.\n"),
    ] {
        api.send("POST", "/api/doc", Some(json!({"path": path, "text": text})))
            .await;
    }
    let plain = hit_paths(&api, "zanzibar%20quokka").await;
    assert_eq!(plain, ["ops/hub.md", "ops/other.md"]);

    let changed = api
        .send("PATCH", "/api/settings", Some(json!({"follow_links": 1})))
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text());
    let settings = &changed.json()["settings"];
    assert_eq!(
        (
            &settings["follow_links"],
            &settings["saved"]["follow_links"],
            &settings["env"]["follow_links"]
        ),
        (&json!(1), &json!(1), &json!(0))
    );
    let saved: Value = serde_json::from_str(&api.read(".ragdown-server.json")).unwrap();
    assert_eq!(saved, json!({"follow_links": 1}));
    // The next search follows the best hit's link.
    assert_eq!(
        hit_paths(&api, "zanzibar%20quokka").await,
        ["ops/hub.md", "ops/target.md"]
    );
    let status = api.call("GET", "/api/status", None, None).await.json();
    assert_eq!(status["settings"]["follow_links"], 1);

    api.send("PATCH", "/api/settings", Some(json!({"follow_links": "two"})))
        .await
        .error(400);
    api.send("PATCH", "/api/settings", Some(json!({"follow_links": null})))
        .await;
    assert_eq!(hit_paths(&api, "zanzibar%20quokka").await, plain);
    assert!(!api.path(".ragdown-server.json").exists());
}
