//! The vector index through the engine, as a server runs it: built in the background after the
//! sync that takes the table past the threshold, searched at once, and refreshed in the
//! background after more writes, while the rows written meanwhile are found by the exact scan
//! beside it.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ragdownd::embed::hash::HashEmbedder;
use ragdownd::engine::{Engine, EngineOptions};
use ragdownd::index::ann::DenseMode;
use ragdownd::index::scan::Layout;
use ragdownd::index::store::Store;
use ragdownd::search::{self, SearchRequest};

use crate::support::write;

/// `count` documents from `first` on, five sections each.
fn documents(docs: &Path, first: usize, count: usize) {
    for i in first..first + count {
        let body: String = (0..5)
            .map(|s| format!("## Part {s}\n\nMachine m{i} runs job j{i}x{s}.\n\n"))
            .collect();
        write(
            docs,
            &format!("n/{}/doc{i}.md", i % 20),
            &format!("# Doc {i}\n\n{body}"),
        );
    }
}

/// Waits until `done` holds of the store, checking every 100 ms for up to three minutes.
async fn until(store: &Store, what: &str, done: impl AsyncFn(&Store) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(180);
    while !done(store).await {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn top_path(engine: &Engine, query: &str) -> String {
    let request = SearchRequest {
        query,
        limit: 1,
        path_prefix: String::new(),
        tag: None,
        written_by: None,
        within: None,
    };
    let hits = search::search(engine.store(), engine.embedder.as_ref(), &request)
        .await
        .unwrap();
    hits[0].chunk.path.clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn past_the_threshold_a_sync_builds_the_index_in_the_background_and_more_writes_refresh_it() {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    documents(docs.path(), 0, 300);
    let engine = Engine::open(
        EngineOptions {
            docs_dir: docs.path().to_path_buf(),
            data_dir: data.path().to_path_buf(),
            layout: Layout::Single,
            watch: false,
            sync_on_open: false,
            takeover_every: ragdownd::engine::TAKEOVER_EVERY,
            history: Default::default(),
            vector_index_rows: 1_000,
        },
        Arc::new(HashEmbedder),
    )
    .await
    .unwrap();
    engine.indexer.sync(false).await.unwrap();
    let store = engine.store();
    assert_eq!(store.count().await.unwrap(), 1_500);
    until(store, "the index is built after the sync", async |s: &Store| {
        s.has_vector_index().await.unwrap()
    })
    .await;
    assert_eq!(store.dense_mode().await.unwrap(), DenseMode::Indexed);
    assert_eq!(top_path(&engine, "job j123x4").await, "n/3/doc123.md");

    documents(docs.path(), 300, 500);
    engine.indexer.sync(false).await.unwrap();
    assert_eq!(
        top_path(&engine, "job j777x2").await,
        "n/17/doc777.md",
        "a document written after the build is found at once"
    );
    until(store, "the new rows are folded into the index", async |s: &Store| {
        s.vector_index_coverage().await.unwrap() == Some((4_000, 0))
    })
    .await;
    assert_eq!(top_path(&engine, "job j777x2").await, "n/17/doc777.md");
}
