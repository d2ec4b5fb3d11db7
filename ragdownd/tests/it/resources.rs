//! Documents as MCP resources over a real stdio child process and over `serve`'s HTTP endpoints,
//! on both protocol eras: `initialize` (2025) and per-request `_meta` (2026-07-28). Lists, reads
//! (text, an image, a template-built section), completion, paging, and hostile URIs.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::support::{StdioClient, docs, fixture, serve, test_env, write};

/// A PNG's first bytes and some that are not UTF-8: a blob must bring them back exactly.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff\xfe image bytes";

/// The 2026-07-28 request metadata that replaces `initialize`.
fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "ragdown-tests", "version": "0"}
    })
}

/// The vault: a document with a description, one with a space in its name, an image, a dot-file,
/// a symlink to a file outside, and a file outside the docs dir.
fn vault() -> (tempfile::TempDir, tempfile::TempDir) {
    let backups = std::fs::read_to_string(fixture("ops-backups.md")).unwrap();
    let dir = docs(&[
        ("ops/backups.md", &backups),
        (
            "ops/restore drill.md",
            "---\ndescription: How the quarterly drill goes.\n---\n# Restore drill\r\n\r\n## Steps\r\n\r\nStop the app.\r\n\r\n## After\r\n\r\nStart it.\r\n",
        ),
        ("ops/.hidden.md", "# Hidden\n\nnot served"),
    ]);
    std::fs::create_dir_all(dir.path().join("ops/img")).unwrap();
    std::fs::write(dir.path().join("ops/img/diagram.png"), PNG).unwrap();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "# Secret\n\nTOP-SECRET outside the docs");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("ops/link.md")).unwrap();
    (dir, outside)
}

/// Sends `method` with `params` in the given era (`Some(meta)` adds the 2026-07-28 `_meta`).
async fn ask(client: &mut StdioClient, method: &str, params: Value, meta: Option<&Value>) -> Value {
    let mut params = params;
    if let Some(meta) = meta {
        params["_meta"] = meta.clone();
    }
    client.request(method, params).await
}

fn uris(list: &Value) -> Vec<String> {
    list["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("no resources: {list}"))
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_string())
        .collect()
}

/// The checks both eras share, over stdio on [`vault`].
async fn lists_reads_and_completes(client: &mut StdioClient, docs: &std::path::Path, meta: Option<&Value>) {
    // Resources take nothing from tools/list.
    let tools = ask(client, "tools/list", json!({}), meta).await;
    let tools_text = tools["result"].to_string();
    assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), 12, "{tools}");
    assert!(!tools_text.contains("ragdown:///"), "{tools_text}");

    let list = ask(client, "resources/list", json!({}), meta).await;
    assert_eq!(
        uris(&list),
        [
            "ragdown:///ops/backups.md",
            "ragdown:///ops/img/diagram.png",
            "ragdown:///ops/restore%20drill.md"
        ],
        "no dot-file, no symlink: {list}"
    );
    let resources = list["result"]["resources"].as_array().unwrap();
    let drill = &resources[2];
    assert_eq!(
        (&drill["name"], &drill["title"], &drill["mimeType"]),
        (
            &json!("ops/restore drill.md"),
            &json!("Restore drill"),
            &json!("text/markdown")
        )
    );
    assert_eq!(drill["description"], "How the quarterly drill goes.");
    assert_eq!(
        (&resources[1]["mimeType"], &resources[1]["size"]),
        (&json!("image/png"), &json!(PNG.len()))
    );
    assert!(list["result"].get("nextCursor").is_none(), "{list}");

    // A document: the bytes on disk, the same ragdown_read_doc shows under its header.
    let read = ask(
        client,
        "resources/read",
        json!({"uri": "ragdown:///ops/restore%20drill.md"}),
        meta,
    )
    .await;
    let contents = &read["result"]["contents"][0];
    let on_disk = std::fs::read_to_string(docs.join("ops/restore drill.md")).unwrap();
    assert_eq!(contents["text"].as_str(), Some(on_disk.as_str()), "{read}");
    assert_eq!(contents["mimeType"], "text/markdown");
    let backups = ask(
        client,
        "resources/read",
        json!({"uri": "ragdown:///ops/backups.md"}),
        meta,
    )
    .await;
    let text = backups["result"]["contents"][0]["text"].as_str().unwrap().to_string();
    let call = json!({"name": "ragdown_read_doc", "arguments": {"path": "ops/backups.md"}});
    let tool = ask(client, "tools/call", call, meta).await;
    let tool_text = tool["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        tool_text.split_once('\n').unwrap().1,
        text,
        "the read tool's lines are the resource's text"
    );

    // The image: a blob of exactly its bytes.
    let image = ask(
        client,
        "resources/read",
        json!({"uri": "ragdown:///ops/img/diagram.png"}),
        meta,
    )
    .await;
    let blob = &image["result"]["contents"][0];
    assert_eq!(blob["mimeType"], "image/png", "{image}");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob["blob"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, PNG);

    // A section, by the template with its variables filled in as RFC 6570 says.
    let templates = ask(client, "resources/templates/list", json!({}), meta).await;
    let templates = templates["result"]["resourceTemplates"].as_array().unwrap().clone();
    let section = templates[1]["uriTemplate"].as_str().unwrap();
    assert_eq!(templates[0]["uriTemplate"], "ragdown:///{+path}");
    assert_eq!(section, "ragdown:///{+path}#{heading}");
    let uri = section
        .replace("{+path}", "ops/restore%20drill.md")
        .replace("{heading}", "steps");
    let read = ask(client, "resources/read", json!({"uri": uri}), meta).await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "## Steps\r\n\r\nStop the app.\r\n\r\n",
        "the section's lines as in the file: {read}"
    );
    let missing = ask(
        client,
        "resources/read",
        json!({"uri": "ragdown:///ops/backups.md#Nowhere"}),
        meta,
    )
    .await;
    assert!(
        missing["error"]["message"].as_str().unwrap().contains("no heading"),
        "{missing}"
    );

    // Completion of the path, then of a heading of the document the path names.
    let complete = |template: &str, name: &str, value: &str, context: Value| {
        json!({"ref": {"type": "ref/resource", "uri": template}, "argument": {"name": name, "value": value},
               "context": {"arguments": context}})
    };
    let done = ask(
        client,
        "completion/complete",
        complete("ragdown:///{+path}", "path", "ops/r", json!({})),
        meta,
    )
    .await;
    assert_eq!(
        done["result"]["completion"]["values"],
        json!(["ops/restore drill.md"]),
        "{done}"
    );
    let done = ask(
        client,
        "completion/complete",
        complete("ragdown:///{+path}", "path", "DIAG", json!({})),
        meta,
    )
    .await;
    assert_eq!(
        done["result"]["completion"]["values"],
        json!(["ops/img/diagram.png"]),
        "{done}"
    );
    let done = ask(
        client,
        "completion/complete",
        complete(section, "heading", "", json!({"path": "ops/restore drill.md"})),
        meta,
    )
    .await;
    assert_eq!(
        done["result"]["completion"]["values"],
        json!(["Restore drill", "Steps", "After"]),
        "{done}"
    );
    let done = ask(
        client,
        "completion/complete",
        complete("ragdown:///x/{+path}", "path", "", json!({})),
        meta,
    )
    .await;
    assert!(done.get("error").is_some(), "an unknown template: {done}");
}

/// Every one of these is refused, and none shows anything of what it names.
const HOSTILE: &[&str] = &[
    "ragdown:///../outside.md",
    "ragdown:///ops/../../secret.md",
    "ragdown:///ops/%2e%2e/%2e%2e/secret.md",
    "ragdown:///ops%2F..%2F..%2Fsecret.md",
    "ragdown:///ops/.hidden.md",
    "ragdown:///ops/%2Ehidden.md",
    "ragdown:///ops/link.md",
    "ragdown:////etc/passwd",
    "ragdown:///C:/Windows/win.ini",
    "file:///etc/passwd",
    "ragdown://ops/backups.md",
    "ragdown:///ops/backups.md?raw=1",
];

async fn refuses_hostile_uris(client: &mut StdioClient, meta: Option<&Value>) {
    for uri in HOSTILE {
        let answer = ask(client, "resources/read", json!({"uri": uri}), meta).await;
        assert!(answer.get("result").is_none(), "{uri} was read: {answer}");
        let error = answer["error"].to_string();
        assert!(
            !error.contains("TOP-SECRET") && !error.contains("not served"),
            "{uri}: {error}"
        );
        // The URI as requested, which the client already knows, and nothing of what it names.
        assert_eq!(answer["error"]["data"]["uri"], *uri, "{answer}");
    }
    for (missing, code) in [
        ("ragdown:///ops/missing.md", json!(-32002)),
        ("test://other-scheme", json!(-32602)),
    ] {
        let answer = ask(client, "resources/read", json!({"uri": missing}), meta).await;
        assert_eq!(answer["error"]["data"]["uri"], missing, "{answer}");
        if meta.is_some() {
            assert_eq!(answer["error"]["code"], -32602, "2026-07-28: {answer}");
        } else {
            assert_eq!(answer["error"]["code"], code, "{answer}");
        }
    }
    // A prompt reference gets an answer that says there are none.
    let prompt = json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "x"}});
    let answer = ask(client, "completion/complete", prompt, meta).await;
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no prompts")),
        "{answer}"
    );
}

#[tokio::test]
async fn stdio_serves_documents_as_resources_after_initialize() {
    let ((docs, _outside), data) = (vault(), tempfile::tempdir().unwrap());
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;
    lists_reads_and_completes(&mut client, docs.path(), None).await;
    refuses_hostile_uris(&mut client, None).await;
}

#[tokio::test]
async fn stdio_serves_documents_as_resources_on_the_2026_protocol() {
    let ((docs, _outside), data) = (vault(), tempfile::tempdir().unwrap());
    let mut client = StdioClient::start_stateless(&test_env(docs.path(), data.path())).await;
    let meta = meta_2026();
    let discover = ask(&mut client, "server/discover", json!({}), Some(&meta)).await;
    let capabilities = &discover["result"]["capabilities"];
    assert!(
        capabilities["resources"].is_object() && capabilities["completions"].is_object(),
        "{discover}"
    );
    // What subscriptions/listen delivers (tests/it/notifications.rs follows it).
    assert_eq!(capabilities["resources"]["subscribe"], true, "{discover}");
    assert_eq!(capabilities["resources"]["listChanged"], true, "{discover}");
    let reindex = ask(
        &mut client,
        "tools/call",
        json!({"name": "ragdown_reindex", "arguments": {}}),
        Some(&meta),
    )
    .await;
    assert_eq!(reindex["result"]["isError"], false, "{reindex}");
    lists_reads_and_completes(&mut client, docs.path(), Some(&meta)).await;
    refuses_hostile_uris(&mut client, Some(&meta)).await;
}

#[tokio::test]
async fn resources_come_in_pages_that_cover_every_file_once() {
    let dir = docs(&[("a.md", "# A\n")]);
    for i in 0..230 {
        std::fs::create_dir_all(dir.path().join("img")).unwrap();
        std::fs::write(dir.path().join(format!("img/{i:03}.png")), PNG).unwrap();
    }
    let data = tempfile::tempdir().unwrap();
    let mut client = StdioClient::start(&test_env(dir.path(), data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = client.request("resources/list", params).await;
        seen.extend(uris(&page));
        pages += 1;
        match page["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!((pages, seen.len()), (3, 231));
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique, seen, "in order, each once");
    let bad = client
        .request("resources/list", json!({"cursor": "not a cursor"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

/// A JSON-RPC POST to `url` with the bearer token, and the headers the 2026-07-28 protocol asks
/// for when the body's `_meta` names it: its answer as JSON.
async fn post(url: String, token: &'static str, body: Value) -> Value {
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut request = agent
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", &format!("Bearer {token}"));
        if let Some(version) = body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str() {
            // The 2026-07-28 transport also names the method, and the tool or resource, in headers.
            request = request
                .header("MCP-Protocol-Version", version)
                .header("Mcp-Method", body["method"].as_str().unwrap());
            let params = &body["params"];
            if let Some(name) = params["name"].as_str().or(params["uri"].as_str()) {
                request = request.header("Mcp-Name", name);
            }
        }
        let mut response = request.send(body.to_string()).unwrap();
        let text = response.body_mut().read_to_string().unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    })
    .await
    .unwrap()
}

fn rpc(method: &str, params: Value, meta: Option<&Value>) -> Value {
    let mut params = params;
    if let Some(meta) = meta {
        params["_meta"] = meta.clone();
    }
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
}

#[tokio::test(flavor = "multi_thread")]
async fn each_folder_endpoint_serves_its_own_documents_with_the_same_uris() {
    let ((dir, _outside), data) = (vault(), tempfile::tempdir().unwrap());
    write(dir.path(), "ops/.ragdown.json", r#"{"mcp": true}"#);
    write(dir.path(), "work/.ragdown.json", r#"{"mcp": true}"#);
    write(dir.path(), "work/plan.md", "# Plan\n\nwork plan");
    write(
        dir.path(),
        "private/secret.md",
        "# Private\n\nTOP-SECRET human-only folder",
    );
    let token = "resources-token";
    let (base, _stop) = serve(dir.path(), data.path(), token, &["--root-mcp", "true"]).await;
    let ops = format!("{base}/mcp/ops");
    // The first sync, joined.
    let sync = rpc(
        "tools/call",
        json!({"name": "ragdown_reindex", "arguments": {}}),
        Some(&meta_2026()),
    );
    let mut answer = post(ops.clone(), token, sync.clone()).await;
    for _ in 0..600 {
        if answer.get("result").is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        answer = post(ops.clone(), token, sync.clone()).await;
    }
    assert_eq!(answer["result"]["isError"], false, "{answer}");

    // Stateless HTTP has no stream for notifications: none claimed, subscribing refused.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let init = post(ops.clone(), token, init).await;
    assert!(
        init["result"]["capabilities"]["resources"].get("subscribe").is_none(),
        "{init}"
    );
    let subscribe = post(
        ops.clone(),
        token,
        rpc("resources/subscribe", json!({"uri": "ragdown:///ops/backups.md"}), None),
    )
    .await;
    assert!(subscribe.get("error").is_some(), "{subscribe}");

    let meta = meta_2026();
    for era in [None, Some(&meta)] {
        let list = post(ops.clone(), token, rpc("resources/list", json!({}), era)).await;
        assert_eq!(
            uris(&list),
            [
                "ragdown:///ops/backups.md",
                "ragdown:///ops/img/diagram.png",
                "ragdown:///ops/restore%20drill.md"
            ],
            "the same URIs as over stdio, only this folder's: {list}"
        );
        assert_eq!(
            list["result"]["resources"][0]["name"], "backups.md",
            "named as the tools name it"
        );
        let read = post(
            ops.clone(),
            token,
            rpc("resources/read", json!({"uri": "ragdown:///ops/backups.md"}), era),
        )
        .await;
        let on_disk = std::fs::read_to_string(dir.path().join("ops/backups.md")).unwrap();
        assert_eq!(
            read["result"]["contents"][0]["text"].as_str(),
            Some(on_disk.as_str()),
            "{read}"
        );
        let templates = post(ops.clone(), token, rpc("resources/templates/list", json!({}), era)).await;
        assert_eq!(
            templates["result"]["resourceTemplates"][0]["uriTemplate"],
            "ragdown:///ops/{+path}"
        );
        let done = post(
            ops.clone(),
            token,
            rpc(
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "ragdown:///ops/{+path}"},
                       "argument": {"name": "path", "value": "back"}}),
                era,
            ),
        )
        .await;
        assert_eq!(done["result"]["completion"]["values"], json!(["backups.md"]), "{done}");

        // Another folder's document, a human-only folder's, one outside every folder, and the
        // hostile ones: the same "no such resource", nothing of the file shown.
        let others = [
            "ragdown:///work/plan.md",
            "ragdown:///private/secret.md",
            "ragdown:///ops/../work/plan.md",
        ];
        for uri in others.iter().chain(HOSTILE) {
            let answer = post(ops.clone(), token, rpc("resources/read", json!({"uri": uri}), era)).await;
            assert!(answer.get("result").is_none(), "{uri} was read: {answer}");
            let error = answer["error"].to_string();
            assert!(
                !error.contains("TOP-SECRET") && !error.contains("work plan"),
                "{uri}: {error}"
            );
        }

        // The root endpoint: every folder with MCP on, under the same URIs, never the human-only one.
        let root = post(format!("{base}/mcp"), token, rpc("resources/list", json!({}), era)).await;
        let listed = uris(&root);
        assert!(
            listed.contains(&"ragdown:///ops/backups.md".to_string())
                && listed.contains(&"ragdown:///work/plan.md".to_string()),
            "{root}"
        );
        assert!(!listed.iter().any(|uri| uri.contains("private")), "{root}");
        let read = post(
            format!("{base}/mcp"),
            token,
            rpc("resources/read", json!({"uri": "ragdown:///work/plan.md"}), era),
        )
        .await;
        assert_eq!(read["result"]["contents"][0]["text"], "# Plan\n\nwork plan", "{read}");
        let private = post(
            format!("{base}/mcp"),
            token,
            rpc("resources/read", json!({"uri": "ragdown:///private/secret.md"}), era),
        )
        .await;
        assert!(private.get("result").is_none(), "{private}");
    }
}
