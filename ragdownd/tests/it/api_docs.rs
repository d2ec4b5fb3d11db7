//! The document routes over real HTTP: list, read, save (create, replace with `base_hash`, the
//! 409 `changed`, CRLF kept, size limits), delete, raw files, search, resolve, backlinks and
//! move; with what is on disk afterwards, and hostile paths that must change and reveal nothing.

use serde_json::{Value, json};

use crate::api::Api;

#[tokio::test(flavor = "multi_thread")]
async fn docs_are_listed_and_read_with_their_front_matter_and_hash() {
    let api = Api::start(&[]).await;
    let docs = api.send("GET", "/api/docs?folder=ops", None).await.json();
    let list = docs["docs"].as_array().unwrap();
    let paths: Vec<&str> = list.iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["ops/backups.md", "ops/crlf.md", "ops/db/postgres.md"]);
    let backups = &list[0];
    assert_eq!(backups["folder"], "ops");
    assert_eq!(backups["tags"], json!(["infra"]));
    assert_eq!(backups["aliases"], json!(["Restores"]));
    assert_eq!(backups["chunks"], 2);
    assert!(backups["size"].as_f64().unwrap() > 0.0);
    let all = api.send("GET", "/api/docs", None).await.json();
    assert_eq!(all["docs"].as_array().unwrap().len(), 4);
    assert_eq!(
        api.send("GET", "/api/docs?folder=nope", None).await.error(404),
        "no such folder: nope"
    );

    let doc = api.send("GET", "/api/doc?path=ops/backups.md", None).await.json();
    let text = api.read("ops/backups.md");
    assert_eq!(doc["text"], text);
    assert_eq!(doc["hash"].as_str().unwrap().len(), 64);
    assert_eq!(doc["hash"], ragdownd::documents::content_hash(text.as_bytes()));
    assert_eq!(doc["total_lines"], text.split('\n').count());
    assert_eq!(doc["tags"], json!(["infra"]));
    api.send("GET", "/api/doc?path=ops/nope.md", None).await.error(404);
    assert_eq!(api.send("GET", "/api/doc", None).await.error(400), "path is required");
    // A loose file is not the index's: a 404, as for any file it does not hold.
    api.send("GET", "/api/doc?path=loose.md", None).await.error(404);
}

#[tokio::test(flavor = "multi_thread")]
async fn saving_creates_replaces_only_the_version_read_and_keeps_crlf() {
    let api = Api::start(&[]).await;
    let created = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/new/note.md", "text": "# Note\n\nFresh.\n"})),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let body = created.json();
    assert_eq!(
        (body["path"].as_str(), body["created"].as_bool()),
        (Some("ops/new/note.md"), Some(true))
    );
    assert_eq!(body["sync"]["added"], 1);
    assert_eq!(api.read("ops/new/note.md"), "# Note\n\nFresh.\n");
    let hash = body["hash"].as_str().unwrap().to_string();

    // Without base_hash or overwrite an existing document is refused, and stays as it was.
    api.send(
        "POST",
        "/api/doc",
        Some(json!({"path": "ops/new/note.md", "text": "clobber"})),
    )
    .await
    .error(409);
    // With the right hash it is replaced (200); with a stale one, 409 `changed`, untouched.
    let replaced = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/new/note.md", "text": "# Note\n\nSecond.\n", "base_hash": hash})),
        )
        .await;
    assert_eq!(replaced.status, 200, "{}", replaced.text());
    assert_eq!(replaced.json()["created"], false);
    let stale = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/new/note.md", "text": "lost?", "base_hash": hash})),
        )
        .await;
    assert_eq!(stale.status, 409, "{}", stale.text());
    assert_eq!(stale.json()["code"], "changed");
    assert_eq!(api.read("ops/new/note.md"), "# Note\n\nSecond.\n");
    // "Save mine anyway".
    let forced = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/new/note.md", "text": "# Mine\n", "overwrite": true})),
        )
        .await;
    assert_eq!(forced.status, 200, "{}", forced.text());
    assert_eq!(api.read("ops/new/note.md"), "# Mine\n");

    // A CRLF file stays CRLF whatever the editor sends.
    let crlf = api.send("GET", "/api/doc?path=ops/crlf.md", None).await.json();
    let saved = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/crlf.md", "text": "# CRLF\n\nEdited.\n", "base_hash": crlf["hash"]})),
        )
        .await;
    assert_eq!(saved.status, 200, "{}", saved.text());
    assert_eq!(api.read("ops/crlf.md"), "# CRLF\r\n\r\nEdited.\r\n");

    // Bad bodies change nothing.
    let before = api.snapshot();
    for (body, says) in [
        (json!({"path": "ops/x.md"}), "path and text are required strings"),
        (json!({"path": 3, "text": "x"}), "path and text are required strings"),
        (json!({"path": "ops/x.txt", "text": "x"}), "not a Markdown file"),
        (json!({"path": "loose2.md", "text": "x"}), "not inside a folder"),
        (
            json!({"path": "ops/x.md", "text": "x", "base_hash": "zz"}),
            "base_hash must be",
        ),
    ] {
        let answer = api.send("POST", "/api/doc", Some(body.clone())).await;
        assert_eq!(answer.status, 400, "{body}: {}", answer.text());
        assert!(
            answer.json()["error"].as_str().unwrap().contains(says),
            "{body}: {}",
            answer.text()
        );
    }
    // 4 MiB on this route, 1 MiB elsewhere.
    let big = "x".repeat(3 << 20);
    let ok = api
        .send("POST", "/api/doc", Some(json!({"path": "ops/big.md", "text": big})))
        .await;
    assert_eq!(ok.status, 201, "{}", ok.text());
    let too_big = "x".repeat(5 << 20);
    let refused = api
        .send(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/huge.md", "text": too_big})),
        )
        .await;
    assert_eq!(refused.error(413), "Body too large");
    assert!(!api.path("ops/huge.md").exists());
    let big_elsewhere = api
        .send(
            "POST",
            "/api/move",
            Some(json!({"from": "x".repeat(2 << 20), "to": "y"})),
        )
        .await;
    assert_eq!(big_elsewhere.error(413), "Body too large");
    std::fs::remove_file(api.path("ops/big.md")).unwrap();
    let mut after = api.snapshot();
    after.retain(|(path, _)| !path.ends_with("ops/big.md"));
    let mut before = before;
    before.retain(|(path, _)| !path.ends_with("ops/big.md"));
    assert_eq!(after, before);
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_paths_reach_nothing_outside_and_change_nothing() {
    let api = Api::start(&[]).await;
    let before = api.snapshot();
    let hostile = [
        "ops/../private/secret.md",
        "ops/%2e%2e/private/secret.md",
        "../outside.md",
        "/etc/passwd",
        "ops/linkdir/secret.md",
        "ops/.git/config.md",
        "ops\\..\\private\\secret.md",
        "ops/a\u{0}.md",
        "C:/Windows/x.md",
    ];
    for path in hostile {
        let q = urlencode(path);
        // In a JSON body a `%2e` is two characters of a name, not a dot: send it decoded.
        let path = path.replace("%2e", ".");
        let path = path.as_str();
        for (method, route, body) in [
            ("GET", format!("/api/doc?path={q}"), None),
            ("GET", format!("/api/file?path={q}"), None),
            ("GET", format!("/api/backlinks?path={q}"), None),
            ("DELETE", format!("/api/doc?path={q}"), None),
            (
                "POST",
                "/api/doc".to_string(),
                Some(json!({"path": path, "text": "# pwned"})),
            ),
            (
                "POST",
                "/api/move".to_string(),
                Some(json!({"from": "ops/backups.md", "to": path})),
            ),
            (
                "POST",
                "/api/move".to_string(),
                Some(json!({"from": path, "to": "ops/moved.md"})),
            ),
        ] {
            let answer = api.send(method, &route, body).await;
            assert!(
                (400..500).contains(&answer.status),
                "{method} {route} {path:?}: {} {}",
                answer.status,
                answer.text()
            );
            assert!(!answer.text().contains("Must never be read"), "{method} {route}");
            assert!(!answer.text().contains("Human only"), "{method} {route}");
        }
    }
    assert_eq!(api.snapshot(), before, "nothing changed inside or outside the docs dir");
    // A full-width look-alike of `..` is only a name: what it writes stays in its folder.
    let lookalike = "ops/\u{ff0e}\u{ff0e}/private/secret.md";
    let written = api
        .send("POST", "/api/doc", Some(json!({"path": lookalike, "text": "# odd"})))
        .await;
    assert_eq!(written.status, 201, "{}", written.text());
    assert_eq!(api.read(lookalike), "# odd");
    assert_eq!(api.read("private/secret.md"), "# Secret\n\nHuman only.\n");
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn deleting_and_raw_files() {
    let api = Api::start(&[]).await;
    let file = api.send("GET", "/api/file?path=ops/img/diagram.png", None).await;
    assert_eq!(file.status, 200);
    assert_eq!(file.body, std::fs::read(api.path("ops/img/diagram.png")).unwrap());
    assert_eq!(file.header("content-type"), Some("image/png"));
    assert_eq!(file.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(file.header("content-security-policy"), Some("sandbox"));
    assert_eq!(file.header("cache-control"), Some("no-cache"));
    let md = api.send("GET", "/api/file?path=ops/backups.md", None).await;
    assert_eq!(md.header("content-type"), Some("text/markdown; charset=utf-8"));
    write_raw(&api, "ops/.secret/key.md", "# key");
    api.send("GET", "/api/file?path=ops/.secret/key.md", None)
        .await
        .error(404);
    api.send("GET", "/api/file?path=ops/linkdir/secret.md", None)
        .await
        .error(404);
    api.send("GET", "/api/file?path=ops/img", None).await.error(404);

    let gone = api.send("DELETE", "/api/doc?path=ops/crlf.md", None).await;
    assert_eq!(gone.status, 200, "{}", gone.text());
    assert_eq!(gone.json()["path"], "ops/crlf.md");
    assert_eq!(gone.json()["sync"]["removed"], 1);
    assert!(!api.path("ops/crlf.md").exists());
    api.send("DELETE", "/api/doc?path=ops/crlf.md", None).await.error(404);
    api.send("DELETE", "/api/doc?path=ops/img/diagram.png", None)
        .await
        .error(400);
    assert!(api.path("ops/img/diagram.png").exists());
    api.send("DELETE", "/api/doc?path=ops/db", None).await.error(400);
    assert!(api.path("ops/db/postgres.md").exists());
}

fn write_raw(api: &Api, rel: &str, text: &str) {
    let path = api.path(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn search_resolve_backlinks_and_move() {
    let api = Api::start(&[]).await;
    let hits = api
        .send("GET", "/api/search?folder=ops&q=restic%20restore", None)
        .await
        .json();
    let first = &hits["hits"][0];
    assert_eq!(first["path"], "ops/backups.md", "{hits}");
    assert_eq!(first["heading"], "Backups › Restore");
    assert!(first["start_line"].as_u64().unwrap() >= 1);
    let similarity = first["similarity"].as_f64().unwrap();
    assert_eq!((similarity * 10_000.0).round() / 10_000.0, similarity);
    // Human-only folders are searchable by their owners.
    let private = api
        .send("GET", "/api/search?folder=private&q=secret", None)
        .await
        .json();
    assert_eq!(private["hits"][0]["path"], "private/secret.md");
    assert_eq!(
        api.send("GET", "/api/search?folder=ops", None).await.error(400),
        "q is required"
    );
    api.send("GET", "/api/search?q=x", None).await.error(400);
    api.send("GET", "/api/search?folder=nope&q=x", None).await.error(404);
    api.send("GET", "/api/search?folder=ops&q=x&top_k=0", None)
        .await
        .error(400);
    let one = api
        .send("GET", "/api/search?folder=ops&q=restic&top_k=1", None)
        .await
        .json();
    assert_eq!(one["hits"].as_array().unwrap().len(), 1);

    let from = "from=ops/db/postgres.md";
    let resolved = api
        .send("GET", &format!("/api/resolve?{from}&link=Backups%23Restore"), None)
        .await
        .json();
    assert_eq!(
        resolved,
        json!({"path": "ops/backups.md", "anchor": "Restore", "title": "Backups"})
    );
    let alias = api
        .send("GET", &format!("/api/resolve?{from}&link=Restores"), None)
        .await
        .json();
    assert_eq!(alias["path"], "ops/backups.md");
    let image = api
        .send("GET", &format!("/api/resolve?{from}&link=diagram.png"), None)
        .await
        .json();
    assert_eq!(image, json!({"path": "ops/img/diagram.png"}));
    let relative = api
        .send("GET", &format!("/api/resolve?{from}&link=../backups.md"), None)
        .await
        .json();
    assert_eq!(relative["path"], "ops/backups.md");
    let missing = api
        .send("GET", &format!("/api/resolve?{from}&link=Nowhere"), None)
        .await;
    assert_eq!(missing.error(404), "no document or file matches \"Nowhere\"");
    // Links do not cross folders.
    api.send("GET", &format!("/api/resolve?{from}&link=secret"), None)
        .await
        .error(404);

    let backlinks = api.send("GET", "/api/backlinks?path=ops/backups.md", None).await.json();
    assert_eq!(backlinks["path"], "ops/backups.md");
    assert_eq!(backlinks["backlinks"][0]["path"], "ops/db/postgres.md", "{backlinks}");
    assert_eq!(backlinks["backlinks"][0]["lines"][0]["line"], 3);

    let moved = api
        .send(
            "POST",
            "/api/move",
            Some(json!({"from": "ops/backups.md", "to": "ops/infra/backups.md"})),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text());
    let moved = moved.json();
    assert_eq!(moved["to"], "ops/infra/backups.md");
    assert_eq!(moved["updated"], json!(["ops/db/postgres.md"]), "{moved}");
    assert!(api.path("ops/infra/backups.md").exists() && !api.path("ops/backups.md").exists());
    assert!(
        api.read("ops/db/postgres.md")
            .contains("[the backups](../infra/backups.md)")
    );
    let before = api.snapshot();
    let across = api
        .send(
            "POST",
            "/api/move",
            Some(json!({"from": "ops/db/postgres.md", "to": "private/postgres.md"})),
        )
        .await;
    assert_eq!(
        across.error(400),
        "a move stays within its folder: links do not cross folders"
    );
    api.send(
        "POST",
        "/api/move",
        Some(json!({"from": "ops/db/postgres.md", "to": "ops/crlf.md"})),
    )
    .await
    .error(409);
    api.send("POST", "/api/move", Some(json!({"from": "ops/db/postgres.md"})))
        .await
        .error(400);
    assert_eq!(api.snapshot(), before);
    let value: Value = api.send("GET", "/api/docs?folder=ops", None).await.json();
    assert!(
        value["docs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["path"] == "ops/infra/backups.md")
    );
}
