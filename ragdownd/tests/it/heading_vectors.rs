//! Heading vectors on a real index: a model with a heading weight stores each section's vector
//! leaning toward its breadcrumb's embedding, and an index made without them is rebuilt, not
//! mixed, when such a model opens it.

use std::path::Path;
use std::sync::Arc;

use ragdownd::embed::hash::{HashEmbedder, hash_vector};
use ragdownd::embed::{Embedder, SharedEmbedder};
use ragdownd::engine::Engine;
use ragdownd::index::scan::Layout;
use ragdownd::markdown;
use ragdownd::search::{self, SearchRequest};

use crate::support::{CountingHash, docs, open_engine};

async fn open(docs: &Path, data: &Path, embedder: SharedEmbedder) -> Arc<Engine> {
    let engine = open_engine(docs, data, Layout::Single, embedder).await;
    engine.indexer.sync(false).await.unwrap();
    engine
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The cosine the search reports for `query` against the one section of `restore.md`.
async fn similarity(engine: &Engine, embedder: &dyn Embedder, query: &str) -> f32 {
    let hits = search::search(
        engine.store(),
        embedder,
        &SearchRequest {
            query,
            limit: 5,
            ..SearchRequest::default()
        },
    )
    .await
    .unwrap();
    let hit = hits
        .iter()
        .find(|h| h.chunk.path == "restore.md")
        .expect("restore.md is found");
    hit.chunk.similarity
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_made_without_heading_vectors_is_rebuilt_with_them() {
    let source = "# Restore drills\n\nRun the script twice on a spare host.";
    let docs = docs(&[("restore.md", source)]);
    let data = tempfile::tempdir().unwrap();
    let query = "restore drills on a spare host";
    let q = hash_vector(query);
    let doc = markdown::chunk_document("restore.md", source);
    let text = hash_vector(&markdown::embedding_text(&doc.title, &doc.chunks[0]));
    let crumb = hash_vector(&markdown::breadcrumb(&doc.title, &doc.chunks[0].heading));
    assert_eq!(
        markdown::breadcrumb(&doc.title, &doc.chunks[0].heading),
        "Restore drills"
    );
    let plain = {
        let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
        similarity(&engine, &HashEmbedder, query).await
    };
    // Within the dense scan's 8-bit copy of the vectors.
    assert!((plain - dot(&q, &text)).abs() < 2e-3, "the text's own vector: {plain}");

    // The same files, unchanged, opened by a model with a heading weight.
    let weighted = Arc::new(CountingHash::with_heading_weight(0.5));
    let engine = open(docs.path(), data.path(), weighted.clone()).await;
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["vectors"], "text+0.5*heading");
    let mixed: Vec<f32> = text.iter().zip(&crumb).map(|(t, h)| t + 0.5 * h).collect();
    let norm = dot(&mixed, &mixed).sqrt();
    let expected = dot(&q, &mixed) / norm;
    assert_eq!(
        weighted.documents(),
        2,
        "the section's text and its breadcrumb, embedded again"
    );
    let leaning = similarity(&engine, weighted.as_ref(), query).await;
    assert!(
        (leaning - expected).abs() < 2e-3,
        "re-embedded with the breadcrumb: {leaning}, expected {expected} (the old vector gave {plain})"
    );
    assert!(leaning - plain > 0.02, "the vectors changed: {plain} → {leaning}");
}
