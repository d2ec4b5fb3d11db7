//! Chinese, Japanese and Korean notes (`tests/data/cjk`) on a real LanceDB: BM25 finds a word
//! inside a sentence, and an index built before the CJK text rule upgrades itself at start
//! without re-embedding (issue 25).

use std::path::Path;
use std::sync::Arc;

use ragdownd::engine::Engine;
use ragdownd::index::filter::Filter;
use ragdownd::index::retext::RowText;
use ragdownd::index::scan::Layout;
use ragdownd::index::terms::{TEXT_RULE, joined_terms, lexical_query};
use ragdownd::markdown::{Chunk, embedding_text};

use crate::support::{CountingHash, fixture, open_engine};

/// The CJK notes copied into a temp docs dir.
fn cjk_docs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in walkdir::WalkDir::new(fixture("cjk")) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(fixture("cjk")).unwrap();
        let to = dir.path().join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    dir
}

/// The headings of the best BM25 hits for `query`, best first.
async fn bm25(engine: &Engine, query: &str) -> Vec<String> {
    let hits = engine
        .store()
        .lexical(&lexical_query(query), &Filter::default(), 5)
        .await
        .unwrap();
    hits.into_iter().map(|hit| hit.candidate.heading).collect()
}

/// What the sync wrote before TEXT_RULE 1: CJK runs as they are.
fn rule_0(row: &RowText<'_>) -> String {
    let chunk = Chunk {
        index: row.chunk_index as usize,
        heading: row.heading.to_string(),
        text: row.text.to_string(),
        line_start: 0,
        line_end: 0,
    };
    let mut text = embedding_text(row.title, &chunk);
    if row.chunk_index == 0 && !row.aliases.is_empty() {
        text = format!("{text}\n\n{}", row.aliases);
    }
    let terms = joined_terms(&text);
    if !terms.is_empty() {
        text = format!("{text}\n\n{}", terms.join(" "));
    }
    text
}

async fn open(docs: &Path, data: &Path, embedder: Arc<CountingHash>) -> Arc<Engine> {
    open_engine(docs, data, Layout::Single, embedder).await
}

fn meta(data: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(data.join("meta.json")).unwrap()).unwrap()
}

/// Makes the index in `data` look as the server before the CJK rule left it.
async fn make_old(engine: &Engine, data: &Path) {
    engine.store().retext(rule_0).await.unwrap();
    let mut old = meta(data);
    old.as_object_mut().unwrap().remove("text_rule");
    std::fs::write(data.join("meta.json"), old.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cjk_word_inside_a_sentence_finds_its_section() {
    let docs = cjk_docs();
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::default()).await;
    engine.indexer.sync(false).await.unwrap();
    for (query, heading) in [
        ("备份", "数据库运维 › 数据库备份"),
        ("数据库", "数据库运维 › 数据库备份"),
        ("复制延迟", "数据库运维 › 监控"),
        ("再起動", "障害対応 › 障害対応手順"),
        ("オンコール", "障害対応 › 障害対応手順"),
        ("バックアップの確認", "障害対応 › ﾊﾞｯｸｱｯﾌﾟの確認"),
        ("복원", "백업 › 데이터베이스 복원"),
        ("데이터베이스", "백업 › 데이터베이스 복원"),
        ("pg_restore 恢复", "数据库运维 › 数据库备份"),
        ("how to 恢复 the 数据库", "数据库运维 › 数据库备份"),
    ] {
        let found = bm25(&engine, query).await;
        assert_eq!(found.first().map(String::as_str), Some(heading), "{query}: {found:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_from_before_the_cjk_rule_upgrades_at_start_without_re_embedding() {
    let docs = cjk_docs();
    let data = tempfile::tempdir().unwrap();
    let rows;
    {
        let embedder = Arc::new(CountingHash::default());
        let engine = open(docs.path(), data.path(), embedder.clone()).await;
        engine.indexer.sync(false).await.unwrap();
        rows = engine.store().count().await.unwrap();
        assert_eq!(embedder.documents(), rows);
        make_old(&engine, data.path()).await;
        assert!(
            bm25(&engine, "备份").await.is_empty(),
            "the old rule finds no word in a sentence"
        );
    }

    let embedder = Arc::new(CountingHash::default());
    let engine = open(docs.path(), data.path(), embedder.clone()).await;
    assert_eq!(meta(data.path())["text_rule"], TEXT_RULE);
    assert_eq!(engine.store().count().await.unwrap(), rows);
    assert_eq!(
        bm25(&engine, "备份").await.first().map(String::as_str),
        Some("数据库运维 › 数据库备份")
    );
    let report = engine.indexer.sync(false).await.unwrap();
    assert_eq!(
        (report.added, report.updated, report.unchanged),
        (0, 0, 3),
        "{report:?}"
    );
    assert_eq!(embedder.documents(), 0, "nothing was embedded again");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upgrade_killed_before_its_meta_is_written_runs_again() {
    let docs = cjk_docs();
    let data = tempfile::tempdir().unwrap();
    {
        let engine = open(docs.path(), data.path(), Arc::default()).await;
        engine.indexer.sync(false).await.unwrap();
        make_old(&engine, data.path()).await;
        // Killed after the rows were rewritten (and even after the full-text index was rebuilt),
        // before meta.json: the old meta stays.
        engine
            .store()
            .retext(ragdownd::index::retext::current_rule)
            .await
            .unwrap();
    }
    assert!(meta(data.path()).get("text_rule").is_none());
    let embedder = Arc::new(CountingHash::default());
    let engine = open(docs.path(), data.path(), embedder.clone()).await;
    assert_eq!(meta(data.path())["text_rule"], TEXT_RULE);
    assert_eq!(
        bm25(&engine, "再起動").await.first().map(String::as_str),
        Some("障害対応 › 障害対応手順")
    );
    engine.indexer.sync(false).await.unwrap();
    assert_eq!(embedder.documents(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn cjk_wikilinks_backlinks_tags_and_aliases_work_on_the_index() {
    let docs = cjk_docs();
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::default()).await;
    engine.indexer.sync(false).await.unwrap();
    let scope = ragdownd::engine::Scope::root(engine.clone());

    let documents = engine.store().documents("").await.unwrap();
    let doc = |path: &str| documents.iter().find(|d| d.path == path).unwrap();
    assert_eq!(doc("zh.md").tags, ["运维", "监控"]);
    assert_eq!(doc("zh.md").aliases, ["备份手册"]);
    assert_eq!(doc("ja/障害対応.md").tags, ["バックアップ"]);
    assert_eq!(doc("백업.md").tags, ["백업"]);

    // zh.md links [[ja/障害対応|障害対応手順]] and [[백업]] on line 16; the Japanese note links
    // zh.md by its alias, [[备份手册]], on line 12.
    let backlinks = |path: &'static str| {
        let scope = scope.clone();
        async move { ragdownd::tools::read::links_to(&scope, path).await.unwrap() }
    };
    let linking = |answer: &serde_json::Value| -> Vec<(String, u64)> {
        answer["backlinks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|doc| {
                let path = doc["path"].as_str().unwrap().to_string();
                doc["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(move |line| (path.clone(), line["line"].as_u64().unwrap()))
            })
            .collect()
    };
    assert_eq!(linking(&backlinks("ja/障害対応").await), [("zh.md".to_string(), 16)]);
    assert_eq!(linking(&backlinks("백업").await), [("zh.md".to_string(), 16)]);
    let by_alias = backlinks("备份手册").await;
    assert_eq!(by_alias["path"], "zh.md");
    assert_eq!(linking(&by_alias), [("ja/障害対応.md".to_string(), 12)]);

    // A tag filter in CJK.
    let hits = ragdownd::search::search(
        engine.store(),
        engine.embedder.as_ref(),
        &ragdownd::search::SearchRequest {
            query: "复制延迟",
            limit: 3,
            tag: Some("监控".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(
        !hits.is_empty() && hits.iter().all(|hit| hit.chunk.path == "zh.md"),
        "{hits:?}"
    );
}

/// Issue 25: a six-letter CJK question reaches the search (the gates opened, so what the hash
/// embedder's cosines would drop still shows); a two-letter greeting does not.
#[tokio::test]
async fn the_hook_searches_a_short_cjk_question() {
    let docs = cjk_docs();
    let data = tempfile::tempdir().unwrap();
    let mut client = crate::support::StdioClient::start(&crate::support::test_env(docs.path(), data.path())).await;
    client.ok("ragdown_reindex", serde_json::json!({})).await;
    let open = |prompt: &str| serde_json::json!({"prompt": prompt, "min_score": 0.0, "min_ratio": 0.0});
    let block = client.ok("ragdown_context", open("怎么恢复备份？")).await;
    assert!(block.contains("zh.md:"), "{block}");
    let block = client.ok("ragdown_context", open("バックアップ復元")).await;
    assert!(block.contains("<ragdown-context"), "{block}");
    let nothing = client.ok("ragdown_context", open("你好")).await;
    assert!(!nothing.contains("<ragdown-context"), "{nothing}");
}
