//! The index on a real LanceDB: diff sync, single flight, rebuilds and self-repair.

use std::path::Path;
use std::sync::Arc;

use embedd::TextKind;
use futures::future::BoxFuture;
use ragdownd::embed::hash::HashEmbedder;
use ragdownd::embed::{EmbedError, Embedder, SharedEmbedder};
use ragdownd::engine::Engine;
use ragdownd::index::store::Store;
use ragdownd::index::sync::SyncReport;
use ragdownd::search::{self, SearchRequest};

use crate::support::{CountingHash, docs, docs_of, open_serving, write};

async fn open(docs: &Path, data: &Path, embedder: SharedEmbedder) -> Arc<Engine> {
    open_serving(docs, data, embedder, false, ragdownd::engine::TAKEOVER_EVERY).await
}

/// A watching engine on the hash embedder, its first sync done.
async fn watching(docs: &Path, data: &Path) -> Arc<Engine> {
    let engine = open_serving(
        docs,
        data,
        Arc::new(HashEmbedder),
        true,
        ragdownd::engine::TAKEOVER_EVERY,
    )
    .await;
    settle(&engine).await;
    engine
}

fn counts(report: &SyncReport) -> (usize, usize, usize, usize) {
    (report.added, report.updated, report.removed, report.unchanged)
}

/// Syncs until the report is about the files as they are now (the first call may join the
/// start-up sync, which ran before the latest edit).
async fn settle(engine: &Engine) -> SyncReport {
    engine.indexer.sync(false).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn sync_touches_only_what_changed() {
    let docs = docs(&[("a.md", "# A\n\nalpha"), ("sub/b.md", "# B\n\nbeta")]);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    settle(&engine).await;
    assert_eq!(engine.store().count().await.unwrap(), 2);
    assert_eq!(counts(&settle(&engine).await), (0, 0, 0, 2), "a no-op sync");

    write(docs.path(), "a.md", "# A\n\nalpha, changed");
    write(docs.path(), "c.md", "# C\n\ngamma");
    std::fs::remove_file(docs.path().join("sub/b.md")).unwrap();
    let report = settle(&engine).await;
    assert_eq!(counts(&report), (1, 1, 1, 0), "{report:?}");
    assert_eq!(report.chunks, 2);

    // Same bytes, new mtime: read and hashed, but not re-embedded.
    let a = docs.path().join("a.md");
    let bytes = std::fs::read(&a).unwrap();
    std::fs::write(&a, &bytes).unwrap();
    let file = std::fs::File::options().write(true).open(&a).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let report = settle(&engine).await;
    assert_eq!((counts(&report), report.chunks), ((0, 0, 0, 2), 0), "{report:?}");

    let files = engine.store().files().await.unwrap();
    let mut paths: Vec<&String> = files.keys().collect();
    paths.sort();
    assert_eq!(paths, ["a.md", "c.md"]);
}

/// A server's index is busy from the moment it asks for its first sync, not only once the sync has
/// listed the files: `/api/status` said `syncing: false` in between, with no files yet, and a
/// client that waited for an idle server (the web UI's tests) saw a folder half indexed.
/// On one thread the sync task cannot start before the test looks, so the gap is always there.
#[tokio::test(flavor = "current_thread")]
async fn a_sync_asked_for_counts_as_syncing_before_it_starts() {
    let docs = docs(&[("a.md", "# A\n\nalpha"), ("b.md", "# B\n\nbeta")]);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    assert!(!engine.indexer.progress().running, "the sync has not started yet");
    assert!(engine.indexer.last_sync().is_none());
    assert!(engine.indexer.syncing(), "asked for, so under way");
    settle(&engine).await;
    assert!(!engine.indexer.syncing(), "every request answered");
    assert_eq!(engine.store().files().await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_sync_requests_share_one_follow_up() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| (format!("d{i:02}.md"), format!("# Doc {i}\n\nbody {i}")))
        .collect();
    let docs = docs_of(&files);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    let calls = (0..6).map(|_| {
        let engine = engine.clone();
        tokio::spawn(async move { engine.indexer.sync(false).await.unwrap() })
    });
    let reports: Vec<SyncReport> = futures::future::join_all(calls)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let mut distinct = reports.clone();
    distinct.dedup();
    distinct.sort_by_key(|r| (r.added, r.unchanged, r.ms));
    distinct.dedup();
    // The start-up sync indexes everything; every request made meanwhile shares one follow-up.
    assert!(distinct.len() <= 2, "{distinct:?}");
    assert!(reports.iter().all(|r| r.added + r.unchanged == 40), "{reports:?}");
    assert_eq!(engine.store().count().await.unwrap(), 40);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_lost_between_delete_and_add_is_restored_by_the_next_sync() {
    let docs = docs(&[("a.md", "# A\n\nalpha"), ("b.md", "# B\n\nbeta")]);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    settle(&engine).await;
    // A crash after a sync's delete and before its add leaves the file's rows missing.
    engine.store().apply(&["a.md".to_string()], Vec::new()).await.unwrap();
    assert_eq!(engine.store().count().await.unwrap(), 1);
    let report = settle(&engine).await;
    assert_eq!(counts(&report), (1, 0, 0, 1), "{report:?}");
    assert_eq!(engine.store().count().await.unwrap(), 2);
}

/// An embedder with another fingerprint and dimension, to check that a change rebuilds.
#[derive(Debug)]
struct TinyEmbedder;

impl Embedder for TinyEmbedder {
    fn index_name(&self) -> &str {
        "tiny-8"
    }
    fn fingerprint(&self) -> String {
        "tiny-8".into()
    }
    fn dim(&self) -> usize {
        8
    }
    fn min_score(&self) -> f32 {
        0.5
    }
    fn unrelated_score(&self) -> Option<f32> {
        None
    }
    fn embed<'a>(&'a self, texts: Vec<String>, _kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(async move {
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0.0f32; 8];
                    v[t.len() % 8] = 1.0;
                    v
                })
                .collect())
        })
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_different_embedder_rebuilds_the_index() {
    let docs = docs(&[("a.md", "# A\n\nalpha"), ("b.md", "# B\n\nbeta")]);
    let data = tempfile::tempdir().unwrap();
    {
        let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
        settle(&engine).await;
    }
    let engine = open(docs.path(), data.path(), Arc::new(TinyEmbedder)).await;
    settle(&engine).await;
    // 8-dimensional vectors could not have been added to the old 384-dimensional table.
    assert_eq!(engine.store().count().await.unwrap(), 2);
    assert_eq!(engine.store().dim(), 8);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(
        (meta["embedder"].as_str(), meta["dim"].as_u64()),
        (Some("tiny-8"), Some(8))
    );
    let hits = search::search(
        engine.store(),
        &TinyEmbedder,
        &SearchRequest {
            query: "alpha",
            limit: 5,
            ..SearchRequest::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(hits.len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn bm25_finds_identifiers_whole_and_filters_apply_before_the_limit() {
    let docs = docs(&[
        (
            "ops/restore.md",
            "---\ntags: [db/postgres]\n---\n# Restore\n\nRun `pg_restore --jobs=4` on the host.",
        ),
        (
            "ops/tune.md",
            "---\ntags: [db]\n---\n# Tuning\n\nRaise max_batch_tokens to 2048 for long documents.",
        ),
        (
            "notes/misc.md",
            "# Misc\n\nRestore the plants on Sunday; pg and restore are words.",
        ),
    ]);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    settle(&engine).await;
    let run = |query: &'static str, prefix: &'static str, tag: Option<&'static str>| {
        let engine = engine.clone();
        async move {
            search::search(
                engine.store(),
                engine.embedder.as_ref(),
                &SearchRequest {
                    query,
                    limit: 1,
                    path_prefix: prefix.into(),
                    tag: tag.map(str::to_string),
                    written_by: None,
                    within: None,
                },
            )
            .await
            .unwrap()
        }
    };
    let hits = run("max_batch_tokens", "", None).await;
    assert_eq!(hits[0].chunk.path, "ops/tune.md");
    assert!(hits[0].sources.contains(&"lexical"));
    let hits = run("pg_restore", "", None).await;
    assert_eq!(hits[0].chunk.path, "ops/restore.md");
    let hits = run("restore", "notes/", None).await;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].chunk.path, "notes/misc.md");
    // `db` matches `db/postgres` (a sub-tag) and `db`; `db/postgres` matches only the first.
    let hits = run("tokens restore", "", Some("#DB/postgres/")).await;
    assert_eq!(hits[0].chunk.path, "ops/restore.md");
    assert_eq!(
        Store::open(&data.path().join("lance"), 384, false)
            .await
            .unwrap()
            .count()
            .await
            .unwrap(),
        3
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_indexes_edits_without_being_asked() {
    let docs = docs(&[("a.md", "# A\n\nalpha")]);
    let data = tempfile::tempdir().unwrap();
    let engine = watching(docs.path(), data.path()).await;
    write(docs.path(), "notes/b.md", "# B\n\nbeta written while the server runs");
    write(docs.path(), ".obsidian/c.md", "# C\n\nin a dot-folder: never indexed");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let files = engine.store().files().await.unwrap();
        if files.contains_key("notes/b.md") {
            assert!(!files.contains_key(".obsidian/c.md"));
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the watcher did not pick up notes/b.md"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    std::fs::remove_file(docs.path().join("a.md")).unwrap();
    loop {
        if !engine.store().files().await.unwrap().contains_key("a.md") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the watcher did not drop a.md");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn binary_files_named_markdown_are_skipped_and_the_rest_indexed() {
    let docs = docs(&[("good.md", "# Good\n\ntext")]);
    std::fs::write(docs.path().join("image.md"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    settle(&engine).await;
    let files = engine.store().files().await.unwrap();
    assert!(
        files.contains_key("good.md") && !files.contains_key("image.md"),
        "{files:?}"
    );
    assert_eq!(
        std::fs::read(docs.path().join("image.md")).unwrap()[..4],
        *b"\x89PNG",
        "the file is untouched"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_index_is_rebuilt_from_the_files() {
    let docs = docs(&[("a.md", "# A\n\nalpha"), ("b.md", "# B\n\nbeta")]);
    let data = tempfile::tempdir().unwrap();
    {
        let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
        settle(&engine).await;
    }
    // Damage every manifest, as a disk fault or a half-copied backup would.
    for entry in walkdir::WalkDir::new(data.path().join("lance")).into_iter().flatten() {
        if entry.path().extension().is_some_and(|e| e == "manifest") {
            std::fs::write(entry.path(), b"not a manifest").unwrap();
        }
    }
    assert!(
        Store::open(&data.path().join("lance"), 384, false).await.is_err(),
        "the damage must make the index unreadable, or this test checks nothing"
    );
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    settle(&engine).await;
    assert_eq!(engine.store().count().await.unwrap(), 2);
    let hits = search::search(
        engine.store(),
        engine.embedder.as_ref(),
        &SearchRequest {
            query: "beta",
            limit: 1,
            ..SearchRequest::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(hits[0].chunk.path, "b.md");
}

#[tokio::test(flavor = "multi_thread")]
async fn one_primary_per_index_readers_forward_and_take_over() {
    let docs = docs(&[("a.md", "# A\n\nalpha"), ("b.md", "# B\n\nbeta")]);
    let data = tempfile::tempdir().unwrap();
    let every = std::time::Duration::from_millis(100);
    let primary = open_serving(docs.path(), data.path(), Arc::new(HashEmbedder), false, every).await;
    settle(&primary).await;
    let reader = open_serving(docs.path(), data.path(), Arc::new(HashEmbedder), false, every).await;
    assert!(primary.is_primary() && !reader.is_primary());

    // The reader's sync runs in the primary: nothing is indexed twice.
    write(docs.path(), "c.md", "# C\n\ngamma");
    let report = reader.sync(false).await.unwrap();
    assert_eq!(counts(&report), (1, 0, 0, 2), "{report:?}");
    assert_eq!(
        primary.indexer.last_sync().unwrap().report,
        report,
        "the primary ran it"
    );
    assert_eq!(
        reader.store().count().await.unwrap(),
        3,
        "the reader sees the primary's rows"
    );

    // The primary goes away; the reader takes over by itself and indexes from then on.
    drop(primary);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !reader.is_primary() {
        assert!(std::time::Instant::now() < deadline, "the reader did not take over");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    write(docs.path(), "d.md", "# D\n\ndelta");
    let report = reader.sync(false).await.unwrap();
    assert_eq!(report.added + report.unchanged, 4, "{report:?}");
    assert_eq!(reader.store().count().await.unwrap(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_rests_when_nothing_changes() {
    let docs = docs(&[
        ("a.md", "# A\n\nalpha"),
        ("sub/b.md", "# B\n\nbeta"),
        ("sub/deeper/c.md", "# C"),
    ]);
    let data = tempfile::tempdir().unwrap();
    let engine = watching(docs.path(), data.path()).await;
    // Let the events of the first syncs' own reads arrive and settle (the debounce is 750 ms).
    tokio::time::sleep(ragdownd::index::watch::DEBOUNCE * 3).await;
    let before = engine.indexer.syncs_run();
    // A watcher woken by the syncs' own reads would sync about once per debounce here.
    tokio::time::sleep(ragdownd::index::watch::DEBOUNCE * 4).await;
    assert_eq!(
        engine.indexer.syncs_run(),
        before,
        "syncs ran with nothing changed on disk"
    );
    // It still wakes for a real change.
    write(docs.path(), "sub/d.md", "# D\n\ndelta");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !engine.store().files().await.unwrap().contains_key("sub/d.md") {
        assert!(std::time::Instant::now() < deadline, "the watcher missed sub/d.md");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A first index larger than one write lands every file once, and re-indexing every file replaces
/// each one's rows across several writes without leaving old ones behind.
#[tokio::test(flavor = "multi_thread")]
async fn syncs_larger_than_one_write_replace_every_file_once() {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let note = |i: usize, version: &str| -> String {
        let sections: String = (0..6)
            .map(|s| format!("## Step {s}\n\nOn host db-{i} run check {s} ({version}).\n\n"))
            .collect();
        format!("# Runbook {i}\n\nIntro {i}.\n\n{sections}")
    };
    let files = ragdownd::index::sync::WRITE_ROWS / 7 + 120;
    for i in 0..files {
        write(docs.path(), &format!("r/{i:04}.md"), &note(i, "v1"));
    }
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    let first = settle(&engine).await;
    let per_file = engine.store().files().await.unwrap();
    let chunks = per_file.values().map(|f| f.chunks).sum::<usize>();
    assert!(
        chunks > ragdownd::index::sync::WRITE_ROWS,
        "{chunks} chunks fit one write"
    );
    assert_eq!(per_file.len(), files);
    assert_eq!(engine.store().count().await.unwrap(), chunks);
    assert_eq!(counts(&first).3 + first.added, files, "{first:?}");
    let progress = engine.indexer.progress();
    assert_eq!((progress.files_done, progress.running), (progress.files_total, false));

    for i in 0..files {
        write(docs.path(), &format!("r/{i:04}.md"), &note(i, "v2"));
    }
    let report = settle(&engine).await;
    assert_eq!(counts(&report), (0, files, 0, 0), "{report:?}");
    assert_eq!(report.chunks, chunks);
    assert_eq!(
        engine.store().count().await.unwrap(),
        chunks,
        "old rows were left behind"
    );
    let hits = search::search(
        engine.store(),
        engine.embedder.as_ref(),
        &SearchRequest {
            query: "v1",
            limit: 5,
            ..SearchRequest::default()
        },
    )
    .await
    .unwrap();
    assert!(
        !hits.is_empty() && hits.iter().all(|h| !h.chunk.text.contains("(v1)")),
        "an old row is still found"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_big_sync_lets_the_embedder_rest_and_an_edit_or_a_no_op_does_not() {
    use ragdownd::index::sync::REST_AFTER_CHUNKS;
    let docs = tempfile::tempdir().unwrap();
    for i in 0..=REST_AFTER_CHUNKS {
        write(docs.path(), &format!("n{i}.md"), &format!("# Note {i}\n\nbody {i}"));
    }
    let data = tempfile::tempdir().unwrap();
    let embedder = Arc::new(CountingHash::default());
    let engine = open(docs.path(), data.path(), embedder.clone()).await;
    let report = settle(&engine).await;
    assert_eq!(
        engine.store().count().await.unwrap(),
        REST_AFTER_CHUNKS + 1,
        "{report:?}"
    );
    assert_eq!(embedder.rests(), 1, "the first index is over the threshold");

    write(docs.path(), "n0.md", "# Note 0\n\nbody 0, edited");
    assert_eq!(counts(&settle(&engine).await), (0, 1, 0, REST_AFTER_CHUNKS));
    assert_eq!(embedder.rests(), 1, "an edit keeps the bulk sessions");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_answers_before_its_rows_are_folded_in_and_is_found_at_once() {
    let docs = docs(&[
        ("a.md", "# A\n\nalpha"),
        ("b.md", "# B\n\nbeta"),
        ("c.md", "# C\n\ngamma"),
    ]);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Arc::new(HashEmbedder)).await;
    settle(&engine).await;
    let store = engine.store();
    let folded = || async {
        let deadline = std::time::Instant::now() + ragdownd::index::fold::FOLD_AFTER * 4;
        while store.unindexed_rows().await.unwrap() > 0 {
            assert!(std::time::Instant::now() < deadline, "never folded in");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    folded().await;

    write(docs.path(), "a.md", "# A\n\nalpha, now with zyxquartz");
    let report = settle(&engine).await;
    assert_eq!(counts(&report), (0, 1, 0, 2), "{report:?}");
    // The edit answered without folding its row into the full-text index (that waits)...
    assert_eq!(
        store.unindexed_rows().await.unwrap(),
        1,
        "the edit folded before it answered"
    );
    // ...and a search finds it all the same, by its word alone.
    let request = SearchRequest {
        query: "zyxquartz",
        limit: 1,
        path_prefix: String::new(),
        tag: None,
        written_by: None,
        within: None,
    };
    let hits = search::search(engine.store(), engine.embedder.as_ref(), &request)
        .await
        .unwrap();
    assert_eq!(hits[0].chunk.path, "a.md");
    assert!(hits[0].sources.contains(&"lexical"), "{:?}", hits[0].sources);
    // The indexer folds it in on its own, with no sync asked for.
    folded().await;
    let hits = search::search(engine.store(), engine.embedder.as_ref(), &request)
        .await
        .unwrap();
    assert_eq!(hits[0].chunk.path, "a.md");
}
