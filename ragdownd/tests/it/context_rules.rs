//! `ragdown_context`'s rules on a real LanceDB with the `hash` embedder, through the tool function
//! on in-process engines and scopes: per-endpoint session memory and reset, the quoted-name and
//! alias injections, per-folder and saved settings layered per call, and the query log's contents.
//! The last test runs `serve` and checks the same over HTTP with `/api/query-log`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ragdownd::embed::hash::HashEmbedder;
use ragdownd::engine::{Engine, Scope};
use ragdownd::index::scan::Layout;
use ragdownd::querylog::Kind;
use ragdownd::settings::{Settings, Values};
use ragdownd::tools::context::{self, ContextArgs, HookDefaults};
use ragdownd::tools::{self, ReadDocArgs, RecallArgs, ToolSettings};
use serde_json::{Value, json};

use crate::support::{docs, write};

/// Five documents about the postgres database, so a prompt about it passes several chunks.
fn ops_docs() -> tempfile::TempDir {
    docs(&[
        (
            "ops/db/restore.md",
            "# Restore\n\nRestore the postgres database from the nightly dump.\n\n## Clean restore\n\n\
             Only then run `pg_restore --clean` against the replica.\n",
        ),
        (
            "ops/db/vacuum.md",
            "# Vacuum\n\nVacuum the postgres database every week so dead rows do not pile up.\n",
        ),
        (
            "ops/replicas.md",
            "# Replicas\n\nThe postgres database has two read replicas behind the balancer.\n",
        ),
        (
            "ops/upgrades.md",
            "# Upgrades\n\nUpgrade the postgres database one minor version at a time.\n",
        ),
        (
            "ops/ingest.md",
            "---\naliases: [Kestrel]\n---\n# Ingest\n\nEvents arrive through a queue and land in quartz ledgers.\n",
        ),
        (
            "garden/tomatoes.md",
            "# Tomatoes\n\nWater the tomato plants every morning.\n",
        ),
    ])
}

/// The original's test settings: a low floor and no ratio gate, so the rules under test decide.
fn values() -> Values {
    Values {
        embedder: None,
        watch: false,
        root_mcp: false,
        text_limit: 2000,
        search: Default::default(),
        query_log: false,
        hook: HookDefaults {
            top_k: 4,
            min_score: Some(0.2),
            min_ratio: Some(0.0),
            max_chars: 6000,
        },
    }
}

/// The tool settings a server over `scope`'s engine has, as the app builds them: under serve the
/// saved settings in the docs dir are a layer; under stdio they are not.
fn settings_for(scope: &Scope) -> ToolSettings {
    let engine = &scope.engine;
    let layered = match engine.layout {
        Layout::Folders => Settings::with_saved_file(values(), &engine.docs_dir),
        Layout::Single => Settings::env_only(values()),
    };
    ToolSettings {
        read_only: false,
        notes_dir: "notes".into(),
        layered: Arc::new(layered),
    }
}

async fn engine(docs: &Path, data: &Path, layout: Layout) -> Arc<Engine> {
    let engine = crate::support::open_engine(docs, data, layout, Arc::new(HashEmbedder)).await;
    engine.sync(false).await.unwrap();
    engine
}

fn scope(engine: &Arc<Engine>, prefix: &str, folder: Option<&str>) -> Scope {
    Scope {
        engine: engine.clone(),
        prefix: prefix.into(),
        folder: folder.map(str::to_string),
        title: folder.map(str::to_string),
        span: None,
        who: ragdownd::history::Who::web(),
    }
}

async fn ask(scope: &Scope, args: Value) -> String {
    let args: ContextArgs = serde_json::from_value(args).unwrap();
    context::context(scope, &settings_for(scope), args).await.unwrap()
}

/// The `path:lines` of each excerpt in a block, in order.
fn excerpts(block: &str) -> Vec<String> {
    block
        .lines()
        .filter(|line| line.contains(" — ") && line.contains("(similarity "))
        .map(|line| line.split(" — ").next().unwrap().to_string())
        .collect()
}

const PROMPT: &str = "how do I look after the postgres database?";

#[tokio::test(flavor = "multi_thread")]
async fn each_endpoint_keeps_its_own_session_memory_and_reset_forgets_only_its_own() {
    let docs = ops_docs();
    let data = tempfile::tempdir().unwrap();
    let engine = engine(docs.path(), data.path(), Layout::Folders).await;
    let folder = scope(&engine, "ops/", Some("ops"));
    let sub = scope(&engine, "ops/db/", Some("ops"));
    let one = json!({"prompt": PROMPT, "session_id": "s", "top_k": 1});

    let first = excerpts(&ask(&folder, one.clone()).await);
    assert_eq!(first.len(), 1);
    assert!(first[0].starts_with("db/"), "{first:?}");
    let again = excerpts(&ask(&folder, one.clone()).await);
    assert_eq!(again.len(), 1);
    assert_ne!(again, first, "the same endpoint never repeats a chunk for a session");
    // The subfolder endpoint's memory is its own: it gives the same chunk (path relative to it).
    let in_sub = excerpts(&ask(&sub, one.clone()).await);
    assert_eq!(in_sub, [first[0].strip_prefix("db/").unwrap()]);
    // Another session at the same endpoint starts empty.
    let other = excerpts(&ask(&folder, json!({"prompt": PROMPT, "session_id": "t", "top_k": 1})).await);
    assert_eq!(other, first);

    // Resetting the subfolder's session leaves the folder's alone.
    ask(&sub, json!({"prompt": "", "session_id": "s", "reset": true})).await;
    assert_eq!(excerpts(&ask(&sub, one.clone()).await), in_sub);
    let third = excerpts(&ask(&folder, one.clone()).await);
    assert!(!third.contains(&first[0]) && !third.contains(&again[0]), "{third:?}");
    // And a reset with the prompt answers that prompt with what the session had before.
    let reset = excerpts(
        &ask(
            &folder,
            json!({"prompt": PROMPT, "session_id": "s", "top_k": 1, "reset": true}),
        )
        .await,
    );
    assert_eq!(reset, first);

    // Another engine over the same files (another process) shares no memory with this one.
    let data2 = tempfile::tempdir().unwrap();
    let engine2 = self::engine(docs.path(), data2.path(), Layout::Folders).await;
    assert_eq!(excerpts(&ask(&scope(&engine2, "ops/", Some("ops")), one).await), first);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_quoted_strong_name_injects_its_chunk_whatever_its_cosine() {
    let docs = ops_docs();
    let data = tempfile::tempdir().unwrap();
    let engine = engine(docs.path(), data.path(), Layout::Folders).await;
    let ops = scope(&engine, "ops/", Some("ops"));
    // A floor nothing reaches: only an injection can put a chunk in the block.
    let named = ask(
        &ops,
        json!({"prompt": "is `pg_restore --clean` safe on a primary?", "min_score": 0.99}),
    )
    .await;
    assert_eq!(excerpts(&named), ["db/restore.md:7-7"], "{named}");
    assert!(named.contains("Only then run `pg_restore --clean` against the replica."));
    // Unquoted identifiers are names too.
    let unquoted = ask(
        &ops,
        json!({"prompt": "what does pg_restore change?", "min_score": 0.99}),
    )
    .await;
    assert_eq!(excerpts(&unquoted), ["db/restore.md:7-7"]);
    // Only one chunk, and the gated hits follow it.
    let with_gated = ask(
        &ops,
        json!({"prompt": "is `pg_restore --clean` safe on the postgres database?"}),
    )
    .await;
    let with_gated = excerpts(&with_gated);
    assert_eq!(with_gated[0], "db/restore.md:7-7");
    assert!(with_gated.len() > 1 && !with_gated[1..].contains(&with_gated[0]));
    // A plain word in backticks, an unquoted version number, or a name no document holds: nothing.
    for prompt in [
        "is `postgres` worth the trouble here?",
        "should we move to 16.2.1 this quarter?",
        "is `pg_dumpall --globals-only` safe on a primary?",
    ] {
        assert_eq!(
            ask(&ops, json!({"prompt": prompt, "min_score": 0.99})).await,
            "",
            "{prompt}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_alias_injects_its_documents_best_chunk_whatever_its_cosine() {
    let docs = ops_docs();
    let data = tempfile::tempdir().unwrap();
    let engine = engine(docs.path(), data.path(), Layout::Folders).await;
    let ops = scope(&engine, "ops/", Some("ops"));
    let block = ask(
        &ops,
        json!({"prompt": "who looks after KESTREL these days?", "min_score": 0.99}),
    )
    .await;
    assert_eq!(excerpts(&block), ["ingest.md:6-6"], "{block}");
    // Whole words only.
    let plural = ask(
        &ops,
        json!({"prompt": "who looks after kestrels these days?", "min_score": 0.99}),
    )
    .await;
    assert_eq!(plural, "");
    // The session is given it once.
    let args = json!({"prompt": "who looks after kestrel these days?", "min_score": 0.99, "session_id": "a"});
    assert_eq!(excerpts(&ask(&ops, args.clone()).await), ["ingest.md:6-6"]);
    assert_eq!(ask(&ops, args).await, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_layer_call_over_folder_over_saved_over_env_and_are_read_on_each_call() {
    let docs = ops_docs();
    let data = tempfile::tempdir().unwrap();
    let engine = engine(docs.path(), data.path(), Layout::Folders).await;
    let ops = scope(&engine, "ops/", Some("ops"));
    let root = scope(&engine, "", None);
    let count = |block: String| excerpts(&block).len();
    assert_eq!(count(ask(&ops, json!({"prompt": PROMPT})).await), 4, "the env's top_k");

    write(docs.path(), ".ragdown-server.json", r#"{"hook": {"top_k": 3}}"#);
    assert_eq!(count(ask(&ops, json!({"prompt": PROMPT})).await), 3, "saved over env");
    write(
        docs.path(),
        "ops/.ragdown.json",
        r#"{"mcp": true, "hook": {"top_k": 1}}"#,
    );
    assert_eq!(
        count(ask(&ops, json!({"prompt": PROMPT})).await),
        1,
        "folder over saved"
    );
    assert_eq!(
        count(ask(&ops, json!({"prompt": PROMPT, "top_k": 2})).await),
        2,
        "call over folder"
    );
    // A call that names no folder (the root endpoint) uses the server's settings.
    assert_eq!(count(ask(&root, json!({"prompt": PROMPT})).await), 3);
    // The folder's file leaves top_k out now: the saved value applies again, without a restart.
    write(
        docs.path(),
        "ops/.ragdown.json",
        r#"{"mcp": true, "hook": {"min_score": 0.99}}"#,
    );
    assert_eq!(ask(&ops, json!({"prompt": PROMPT})).await, "", "the folder's floor");
    write(docs.path(), "ops/.ragdown.json", r#"{"mcp": true}"#);
    assert_eq!(count(ask(&ops, json!({"prompt": PROMPT})).await), 3);
    // An invalid value in a file is ignored, not an error.
    write(
        docs.path(),
        "ops/.ragdown.json",
        r#"{"mcp": true, "hook": {"top_k": 0}}"#,
    );
    assert_eq!(count(ask(&ops, json!({"prompt": PROMPT})).await), 3);

    // stdio serves the docs dir as its one folder: its .ragdown.json applies, saved settings not.
    let single_docs = ops_docs();
    let single_data = tempfile::tempdir().unwrap();
    let single = self::engine(single_docs.path(), single_data.path(), Layout::Single).await;
    let whole = scope(&single, "", None);
    write(single_docs.path(), ".ragdown-server.json", r#"{"hook": {"top_k": 1}}"#);
    assert_eq!(
        count(ask(&whole, json!({"prompt": PROMPT})).await),
        4,
        "stdio reads no saved settings"
    );
    write(single_docs.path(), ".ragdown.json", r#"{"hook": {"top_k": 2}}"#);
    assert_eq!(count(ask(&whole, json!({"prompt": PROMPT})).await), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_query_log_holds_queries_and_hit_locations_never_document_text() {
    let docs = ops_docs();
    let data = tempfile::tempdir().unwrap();
    let engine = engine(docs.path(), data.path(), Layout::Folders).await;
    let ops = scope(&engine, "ops/", Some("ops"));
    // Off by default: nothing is written.
    ask(&ops, json!({"prompt": PROMPT})).await;
    assert!(engine.query_log.entries().is_empty());
    assert!(!data.path().join("query-log.jsonl").exists());

    engine.query_log.set_enabled(true);
    let recall: RecallArgs = serde_json::from_value(json!({"query": "events queue", "top_k": 3})).unwrap();
    tools::recall(&ops, &settings_for(&ops), recall).await.unwrap();
    let hook = ask(
        &ops,
        json!({"prompt": "where do the events from the queue land?", "session_id": "s1"}),
    )
    .await;
    assert!(hook.contains("quartz ledgers"), "{hook}");
    ask(&ops, json!({"prompt": "/compact keep the plan"})).await;
    ask(
        &ops,
        json!({"prompt": "the weather in Paris tomorrow", "min_score": 0.99}),
    )
    .await;
    let read: ReadDocArgs = serde_json::from_value(json!({"path": "ingest.md"})).unwrap();
    tools::read_doc(&ops, read).await.unwrap();

    let entries = engine.query_log.entries();
    let kinds: Vec<Kind> = entries.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [Kind::Recall, Kind::Context, Kind::Context, Kind::Context, Kind::Read]
    );
    let recall = &entries[0];
    assert_eq!(recall.query.as_deref(), Some("events queue"));
    assert_eq!(recall.endpoint, "ops/");
    assert_eq!(recall.filters["top_k"], 3);
    assert_eq!(recall.hits[0].path, "ops/ingest.md", "paths name the folder");
    assert_eq!(recall.hits[0].heading, "Ingest");
    assert_eq!(recall.hits[0].lines, [6, 6]);
    assert_eq!(recall.min_score, Some(0.2), "the hook's floor for this endpoint");
    let hook = &entries[1];
    assert_eq!(hook.session.as_deref(), Some("s1"));
    assert_eq!(hook.filters["top_k"], 4);
    let outcomes: Vec<String> = hook
        .hits
        .iter()
        .map(|h| {
            serde_json::to_value(h.outcome.unwrap())
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(outcomes[0], "passed", "{outcomes:?}");
    assert!(
        outcomes.iter().any(|o| o == "under_floor"),
        "what a gate dropped is logged: {outcomes:?}"
    );
    assert_eq!(entries[2].skipped.as_deref(), Some("slash"));
    assert!(entries[2].hits.is_empty());
    assert_eq!(entries[4].path.as_deref(), Some("ops/ingest.md"));

    // Document text never reaches the log: only queries, paths, headings, lines and scores.
    let raw = std::fs::read_to_string(data.path().join("query-log.jsonl")).unwrap();
    for text in ["quartz", "ledgers", "Vacuum the postgres", "Kestrel"] {
        assert!(
            !raw.contains(text),
            "{text:?} is document text and is in the log:\n{raw}"
        );
    }

    let summary = engine.query_log.summary();
    assert_eq!(summary["enabled"], true);
    assert_eq!(summary["gaps"]["count"], 1, "the weather prompt: {summary}");
    assert_eq!(summary["hook"]["prompts"], 2);
    assert_eq!(summary["hook"]["injected"], 1);
    assert_eq!(summary["reads"]["after_search"], 1, "{summary}");
}

const TOKEN: &str = "hook-token";

async fn post(url: String, body: Value) -> (u16, String) {
    call("POST", url, Some(body)).await
}

async fn call(method: &'static str, url: String, body: Option<Value>) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let auth = format!("Bearer {TOKEN}");
        let mut response = match (method, body) {
            ("GET", _) => agent.get(&url).header("Authorization", &auth).call().unwrap(),
            ("DELETE", _) => agent.delete(&url).header("Authorization", &auth).call().unwrap(),
            (_, body) => agent
                .post(&url)
                .header("Authorization", &auth)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .send(body.unwrap_or_default().to_string())
                .unwrap(),
        };
        (
            response.status().as_u16(),
            response.body_mut().read_to_string().unwrap(),
        )
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn over_http_the_memory_outlives_stateless_requests_and_the_log_is_summed_up() {
    let docs = ops_docs();
    write(
        docs.path(),
        "ops/.ragdown.json",
        r#"{"mcp": true, "hook": {"top_k": 1}}"#,
    );
    let data = tempfile::tempdir().unwrap();
    let (base, stop) = crate::support::serve(
        docs.path(),
        data.path(),
        TOKEN,
        &[
            "--hook-min-score",
            "0.2",
            "--hook-min-ratio",
            "0",
            "--query-log",
            "true",
        ],
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, body) = call("GET", format!("{base}/api/status"), None).await;
        let status: Value = serde_json::from_str(&body).unwrap();
        if status["ready"] == true && status["syncing"] == false && status["last_sync"].is_object() {
            break;
        }
        assert!(Instant::now() < deadline, "not ready in time: {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let hook = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "ragdown_context",
            "arguments": {"prompt": PROMPT, "session_id": "claude:x", "format": "claude-code"}}})
    };
    let text = |body: &str| -> String {
        let value: Value = serde_json::from_str(body).unwrap();
        value["result"]["content"][0]["text"].as_str().unwrap().to_string()
    };
    let (status, body) = post(format!("{base}/mcp/ops"), hook(1)).await;
    assert_eq!(status, 200, "{body}");
    let first: Value = serde_json::from_str(&text(&body)).unwrap();
    let block = first["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert_eq!(excerpts(block).len(), 1, "the folder's top_k: {block}");
    let (_, body) = post(format!("{base}/mcp/ops"), hook(2)).await;
    let second: Value = serde_json::from_str(&text(&body)).unwrap();
    let block2 = second["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert_ne!(
        excerpts(block2),
        excerpts(block),
        "the second request remembers the first"
    );

    let (status, body) = call("GET", format!("{base}/api/query-log"), None).await;
    assert_eq!(status, 200, "{body}");
    let summary: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(summary["enabled"], true);
    assert_eq!(summary["hook"]["prompts"], 2);
    assert_eq!(summary["hook"]["injection_rate"], 1.0);
    let (status, _) = call("DELETE", format!("{base}/api/query-log"), None).await;
    assert_eq!(status, 200);
    let (_, body) = call("GET", format!("{base}/api/query-log"), None).await;
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["entries"], 0);
    let _ = stop.send(());
}

/// minilm's own gates (floor 0.4, ratio 0.76, measured by `bench/hook.sh`) over the example vault
/// with nothing overridden: a question in other words gets its section, and none of the
/// benchmark's off-topic prompts gets anything. Needs the model `scripts/install-model.sh minilm`
/// installs.
#[tokio::test(flavor = "multi_thread")]
async fn minilms_own_gates_inject_on_topic_sections_and_nothing_off_topic() {
    let (mut client, _data) = crate::support::example_vault_with_minilm().await;
    let block = client
        .ok(
            "ragdown_context",
            json!({"prompt": "How do I undo a release that broke production?"}),
        )
        .await;
    let heads = excerpts(&block);
    assert!(
        heads.iter().any(|head| head.starts_with("runbooks/deploy.md:")) && block.contains("Rolling back"),
        "{block}"
    );
    assert!(heads.len() <= 4, "top_k 4: {heads:?}");
    let off_topic: Vec<String> =
        serde_json::from_str(include_str!("../../../bench/data/off-topic-prompts.json")).unwrap();
    for prompt in off_topic {
        let block = client.ok("ragdown_context", json!({ "prompt": prompt })).await;
        assert_eq!(block, "", "{prompt:?} got documents");
    }
}
