//! The file list a page at a time over real HTTP (`/api/browse`, `/api/find`, `/api/tags`,
//! `/api/jump`) and what `/api/doc` and `/api/resolve` now carry so the web UI needs no whole
//! list: each against a real `serve`, the owner's token beside a token scoped to a subfolder.

use serde_json::{Value, json};

use crate::api::{Answer, Api, ApiClient, TOKEN};

async fn get(api: &ApiClient, path: &str, token: &str) -> Value {
    let answer: Answer = api.call("GET", path, None, Some(token)).await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.text());
    answer.json()
}

fn paths(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect()
}

/// A token opening only `ops/db`, made by the owner.
async fn db_token(api: &ApiClient) -> String {
    let body = json!({"name": "db", "scope": ["ops/db"], "access": "read"});
    let made = api.send("POST", "/api/access/tokens", Some(body)).await;
    assert_eq!(made.status, 201, "{}", made.text());
    made.json()["secret"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn browse_lists_one_directory_a_page_at_a_time_within_what_a_token_opens() {
    let api = Api::start(&[]).await;
    let top = get(&api, "/api/browse?folder=ops", TOKEN).await;
    assert_eq!(top["dir"], "");
    assert_eq!(top["dirs"], json!([{"name": "db", "path": "db", "count": 1}]));
    assert_eq!(paths(&top["docs"]), ["ops/backups.md", "ops/crlf.md"]);
    assert_eq!(top["total_docs"], 2);
    assert_eq!(top["docs"][0]["title"], "Backups");
    assert_eq!(top["docs"][0]["chunks"], 2);
    let page = get(&api, "/api/browse?folder=ops&offset=1&limit=1", TOKEN).await;
    assert_eq!(
        (paths(&page["docs"]), &page["total_docs"]),
        (vec!["ops/crlf.md".to_string()], &json!(2))
    );
    let db = get(&api, "/api/browse?folder=ops&dir=db/", TOKEN).await;
    assert_eq!(
        (&db["dir"], paths(&db["docs"])),
        (&json!("db"), vec!["ops/db/postgres.md".to_string()])
    );
    let none = get(&api, "/api/browse?folder=ops&dir=nowhere", TOKEN).await;
    assert_eq!(none, json!({"dir": "nowhere", "dirs": [], "docs": [], "total_docs": 0}));
    assert_eq!(
        api.send("GET", "/api/browse", None).await.error(400),
        "folder is required"
    );
    assert_eq!(
        api.send("GET", "/api/browse?folder=nope", None).await.error(404),
        "no such folder: nope"
    );

    let token = db_token(&api).await;
    let top = get(&api, "/api/browse?folder=ops", &token).await;
    assert_eq!(top["dirs"], json!([{"name": "db", "path": "db", "count": 1}]));
    assert_eq!(
        (top["docs"].as_array().unwrap().len(), &top["total_docs"]),
        (0, &json!(0))
    );
    let db = get(&api, "/api/browse?folder=ops&dir=db", &token).await;
    assert_eq!(paths(&db["docs"]), ["ops/db/postgres.md"]);
    let refused = api.call("GET", "/api/browse?folder=private", None, Some(&token)).await;
    assert_eq!(refused.status, 403, "{}", refused.text());
}

#[tokio::test(flavor = "multi_thread")]
async fn find_tags_and_jump_answer_from_the_server_within_what_a_token_opens() {
    let api = Api::start(&[]).await;
    let found = get(&api, "/api/find?folder=ops&q=RESTORES", TOKEN).await;
    assert_eq!(
        (paths(&found["docs"]), &found["total"]),
        (vec!["ops/backups.md".to_string()], &json!(1))
    );
    let tagged = get(&api, "/api/find?folder=ops&tag=%23Infra", TOKEN).await;
    assert_eq!(paths(&tagged["docs"]), ["ops/backups.md"]);
    let all = get(&api, "/api/find?folder=ops&limit=2", TOKEN).await;
    assert_eq!((all["docs"].as_array().unwrap().len(), &all["total"]), (2, &json!(3)));
    assert_eq!(
        get(&api, "/api/tags?folder=ops", TOKEN).await,
        json!({"tags": [{"tag": "infra", "count": 1}]})
    );
    let jumps = get(&api, "/api/jump?q=post", TOKEN).await;
    assert_eq!(paths(&jumps["docs"]), ["ops/db/postgres.md"]);
    // Every folder the caller may read, the human-only one too (the switcher is the owner's).
    let blank = get(&api, "/api/jump?limit=10", TOKEN).await;
    assert_eq!(blank["docs"].as_array().unwrap().len(), 4, "{blank}");

    let token = db_token(&api).await;
    assert_eq!(
        paths(&get(&api, "/api/find?folder=ops", &token).await["docs"]),
        ["ops/db/postgres.md"]
    );
    assert!(
        get(&api, "/api/find?folder=ops&q=restores", &token).await["docs"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(get(&api, "/api/tags?folder=ops", &token).await, json!({"tags": []}));
    assert_eq!(
        paths(&get(&api, "/api/jump?limit=10", &token).await["docs"]),
        ["ops/db/postgres.md"]
    );
    assert!(
        get(&api, "/api/jump?q=backups", &token).await["docs"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_document_carries_its_listing_and_the_titles_of_what_supersedes_it() {
    let api = Api::start(&[]).await;
    let save =
        json!({"path": "ops/backups-v2.md", "text": "---\nsupersedes: backups.md\n---\n# Backups v2\n\nNew plan.\n"});
    let saved = api.send("POST", "/api/doc", Some(save)).await;
    assert_eq!(saved.status, 201, "{}", saved.text());
    let doc = get(&api, "/api/doc?path=ops/backups.md", TOKEN).await;
    assert_eq!(doc["info"]["title"], "Backups");
    assert_eq!(doc["info"]["tags"], json!(["infra"]));
    assert_eq!(doc["superseded_by"], json!(["ops/backups-v2.md"]));
    assert_eq!(doc["titles"], json!({"ops/backups-v2.md": "Backups v2"}));
    let fresh = get(&api, "/api/doc?path=ops/crlf.md", TOKEN).await;
    assert_eq!(fresh["titles"], json!({}));

    let resolved = get(&api, "/api/resolve?from=ops/db/postgres.md&link=Backups", TOKEN).await;
    assert_eq!(resolved, json!({"path": "ops/backups.md", "title": "Backups"}));
    let picture = get(&api, "/api/resolve?from=ops/db/postgres.md&link=diagram.png", TOKEN).await;
    assert_eq!(picture, json!({"path": "ops/img/diagram.png"}));
}
