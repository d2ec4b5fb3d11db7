//! The scheduler in-process (as ragdownd uses it): lanes by text kind and abandoned requests.

use std::time::{Duration, Instant};

use embedd::batch::BatchLimits;
use embedd::{Lane, LocalOptions, TextKind};

use super::server::load;

#[tokio::test]
async fn texts_of_a_request_whose_caller_left_are_never_run() {
    let embedder = load(LocalOptions {
        threads: 1,
        start_paused: true,
        limits: BatchLimits {
            max_batch_tokens: 16,
            max_batch_size: 32,
        },
        ..LocalOptions::default()
    })
    .await;
    let texts: Vec<String> = (0..40).map(|i| format!("abandoned note {i}")).collect();
    let bulk = {
        let embedder = embedder.clone();
        tokio::spawn(async move { embedder.embed_in(texts, TextKind::Document, Lane::Bulk).await })
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while embedder.depth()[Lane::Bulk.index()].texts < 40 {
        assert!(Instant::now() < deadline, "the bulk request never queued");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    bulk.abort();
    assert!(bulk.await.unwrap_err().is_cancelled());

    embedder.resume();
    // ragdownd's path: a query goes in the interactive lane and runs.
    let vectors = embedder
        .embed(vec!["still answered".into()], TextKind::Query)
        .await
        .unwrap();
    assert_eq!(vectors.len(), 1);
    while embedder.depth()[Lane::Bulk.index()].texts > 0 {
        assert!(Instant::now() < deadline, "the abandoned texts were never dropped");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(embedder.batches_run(), 1, "only the query's batch ran");
}
