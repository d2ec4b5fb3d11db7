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
    until(deadline, "the bulk request never queued", || {
        embedder.depth()[Lane::Bulk.index()].texts >= 40
    })
    .await;
    bulk.abort();
    assert!(bulk.await.unwrap_err().is_cancelled());

    embedder.resume();
    // ragdownd's path: a query goes in the interactive lane and runs.
    let vectors = embedder
        .embed(vec!["still answered".into()], TextKind::Query)
        .await
        .unwrap();
    assert_eq!(vectors.len(), 1);
    until(deadline, "the abandoned texts were never dropped", || {
        embedder.depth()[Lane::Bulk.index()].texts == 0
    })
    .await;
    assert_eq!(embedder.batches_run(), 1, "only the query's batch ran");
}

/// Polls `done` every 5 ms until it holds, failing with `what` once `deadline` has passed.
async fn until(deadline: Instant, what: &str, done: impl Fn() -> bool) {
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits until `embedder` holds `sessions` sessions, failing after 10 s.
async fn resident_becomes(embedder: &embedd::LocalEmbedder, sessions: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let what = format!("the sessions resident never came to {sessions}");
    until(deadline, &what, || embedder.resident_sessions() == sessions).await;
}

/// Sends `documents()` in a task of its own and waits until all 48 are queued (the embedder
/// paused), returning the task.
async fn queue_documents(
    embedder: &embedd::LocalEmbedder,
) -> tokio::task::JoinHandle<Result<Vec<Vec<f32>>, embedd::EmbedError>> {
    let bulk = {
        let embedder = embedder.clone();
        tokio::spawn(async move { embedder.embed(documents(), TextKind::Document).await })
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    until(deadline, "the documents never queued", || {
        embedder.depth()[Lane::Bulk.index()].texts >= 48
    })
    .await;
    bulk
}

/// Asserts that a query is answered without making a bulk session again.
async fn a_query_leaves_the_bulk_sessions_resting(embedder: &embedd::LocalEmbedder) {
    let resident = embedder.resident_sessions();
    let query = embedder
        .embed(vec!["drain the node".into()], TextKind::Query)
        .await
        .unwrap();
    assert_eq!(query.len(), 1);
    assert_eq!(embedder.resident_sessions(), resident, "a query made a bulk session");
}

/// Asserts that a remade session gave the same vectors.
fn assert_same_vectors(after: &[Vec<f32>], before: &[Vec<f32>]) {
    assert_eq!(after.len(), before.len());
    for (a, b) in after.iter().zip(before) {
        let cosine: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        assert!(cosine > 0.9999, "a remade session gave another vector ({cosine})");
    }
}

fn documents() -> Vec<String> {
    (0..48)
        .map(|i| format!("runbook step {i}: drain the node, restart the service, check the logs"))
        .collect()
}

#[tokio::test]
async fn bulk_sessions_rest_when_told_and_come_back_for_the_next_documents() {
    let embedder = load(LocalOptions {
        threads: 2,
        sessions: 2,
        ..LocalOptions::default()
    })
    .await;
    assert_eq!(embedder.resident_sessions(), 3, "two bulk sessions and the query one");
    let before = embedder.embed(documents(), TextKind::Document).await.unwrap();

    embedder.rest();
    resident_becomes(&embedder, 1).await;
    // A query runs on the session kept for queries: no bulk session is made for it.
    a_query_leaves_the_bulk_sessions_resting(&embedder).await;

    // The next documents make a bulk session again, with the same weights.
    let after = embedder.embed(documents(), TextKind::Document).await.unwrap();
    assert!(embedder.resident_sessions() >= 2);
    assert_same_vectors(&after, &before);
}

#[tokio::test]
async fn a_rest_waits_for_queued_documents_and_a_session_serving_queries_keeps_its_model() {
    // Without a session kept for queries, the first bulk session serves them and never rests.
    let embedder = load(LocalOptions {
        threads: 2,
        sessions: 2,
        interactive_session: false,
        start_paused: true,
        ..LocalOptions::default()
    })
    .await;
    assert_eq!(embedder.resident_sessions(), 2);
    let bulk = queue_documents(&embedder).await;
    embedder.rest();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        embedder.resident_sessions(),
        2,
        "a session rested with documents queued"
    );

    embedder.resume();
    assert_eq!(bulk.await.unwrap().unwrap().len(), 48);
    resident_becomes(&embedder, 1).await;
    a_query_leaves_the_bulk_sessions_resting(&embedder).await;
}

#[tokio::test]
async fn bulk_sessions_rest_on_their_own_after_a_while_without_bulk_work_never_with_work_queued() {
    let embedder = load(LocalOptions {
        threads: 2,
        sessions: 2,
        start_paused: true,
        rest_after_idle: Some(Duration::from_secs(1)),
        ..LocalOptions::default()
    })
    .await;
    let bulk = queue_documents(&embedder).await;
    // Past the idle time with documents waiting (paused): nobody rests.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        embedder.resident_sessions(),
        3,
        "a session rested with documents queued"
    );

    embedder.resume();
    let before = bulk.await.unwrap().unwrap();
    resident_becomes(&embedder, 1).await;
    a_query_leaves_the_bulk_sessions_resting(&embedder).await;

    // Only a bulk session embeds documents, so these coming back means one was made again.
    let after = embedder.embed(documents(), TextKind::Document).await.unwrap();
    assert_same_vectors(&after, &before);
    resident_becomes(&embedder, 1).await;
}

#[tokio::test]
async fn without_an_idle_time_the_bulk_sessions_stay_until_told() {
    let embedder = load(LocalOptions {
        threads: 2,
        sessions: 2,
        rest_after_idle: None,
        ..LocalOptions::default()
    })
    .await;
    embedder.embed(documents(), TextKind::Document).await.unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(embedder.resident_sessions(), 3);
    embedder.rest();
    resident_becomes(&embedder, 1).await;
}
