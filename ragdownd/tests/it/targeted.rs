//! Syncs of some paths, and the backlinks the link graph finds, on a real LanceDB: a tool's write
//! and the watcher's events sync only the paths they name, and leave the rest of the index as it
//! was, and a backlink search follows every change without reading every file.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ragdownd::embed::hash::HashEmbedder;
use ragdownd::engine::{Engine, Scope};
use ragdownd::index::sync::SyncReport;
use ragdownd::tools;

use crate::support::{docs, docs_of, numbered_notes, open_serving, write};

async fn open(docs: &Path, data: &Path, watch: bool) -> Arc<Engine> {
    let engine = open_serving(
        docs,
        data,
        Arc::new(HashEmbedder),
        watch,
        ragdownd::engine::TAKEOVER_EVERY,
    )
    .await;
    engine.indexer.sync(false).await.unwrap();
    engine
}

fn counts(report: &SyncReport) -> (usize, usize, usize, usize) {
    (report.added, report.updated, report.removed, report.unchanged)
}

async fn hash_of(engine: &Engine, path: &str) -> Option<String> {
    let files = engine.store().files().await.unwrap();
    files.get(path).map(|state| state.file_hash.clone())
}

/// Waits up to 20 s for `done`.
async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done().await {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sync_of_some_paths_makes_them_match_the_disk_and_leaves_the_rest_alone() {
    let docs = docs(&[
        ("a.md", "# A\n\nalpha"),
        ("d.md", "# D\n\ndelta"),
        ("sub/b.md", "# B\n\nbeta"),
        ("sub/c.md", "# C\n\ngamma"),
        ("subway.md", "# Subway\n\nbeside sub, not in it"),
    ]);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), false).await;
    let d_before = hash_of(&engine, "d.md").await;

    write(docs.path(), "a.md", "# A\n\nalpha, changed");
    write(docs.path(), "d.md", "# D\n\ndelta, changed");
    write(docs.path(), "sub/new.md", "# New\n\nepsilon");
    write(docs.path(), ".obsidian/x.md", "# never indexed");
    std::fs::remove_file(docs.path().join("sub/b.md")).unwrap();
    std::fs::remove_file(docs.path().join("subway.md")).unwrap();

    let report = engine.sync_paths(["a.md"]).await.unwrap();
    assert_eq!(counts(&report), (0, 1, 0, 0), "{report:?}");
    assert_eq!(hash_of(&engine, "d.md").await, d_before, "d.md is not in the span");
    assert!(hash_of(&engine, "subway.md").await.is_some());

    let report = engine.sync_paths(["sub", ".obsidian/x.md", "gone.md"]).await.unwrap();
    assert_eq!(
        counts(&report),
        (1, 0, 1, 1),
        "new.md added, b.md dropped, c.md as it was"
    );
    let files = engine.store().files().await.unwrap();
    let mut paths: Vec<&str> = files.keys().map(String::as_str).collect();
    paths.sort();
    assert_eq!(paths, ["a.md", "d.md", "sub/c.md", "sub/new.md", "subway.md"]);

    let report = engine.indexer.sync(false).await.unwrap();
    assert_eq!(
        counts(&report),
        (0, 1, 1, 3),
        "the whole walk finds what the spans left"
    );
    assert_ne!(hash_of(&engine, "d.md").await, d_before);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tools_write_syncs_the_document_it_wrote_and_nothing_else() {
    let docs = docs_of(&numbered_notes("n", 30));
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), false).await;
    // A file changed behind the server's back stays as the index had it: the save looks at its own.
    write(docs.path(), "n/3.md", "# Note 3\n\nchanged behind the server's back");
    let three = hash_of(&engine, "n/3.md").await;

    let scope = Scope::root(engine.clone());
    let saved = tools::write::save(&scope, "new/one.md", "# One\n\nsaved".into(), None, false)
        .await
        .unwrap();
    assert_eq!(counts(&saved.sync), (1, 0, 0, 0), "{:?}", saved.sync);
    assert!(hash_of(&engine, "new/one.md").await.is_some());
    assert_eq!(hash_of(&engine, "n/3.md").await, three);

    let report = tools::write::delete_path(&scope, "n", true, None).await.unwrap();
    assert_eq!(counts(&report), (0, 0, 30, 0), "a folder's delete syncs that folder");
    let files = engine.store().files().await.unwrap();
    assert_eq!(files.keys().collect::<Vec<_>>(), ["new/one.md"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_syncs_the_paths_its_events_name() {
    let docs = docs_of(&numbered_notes("n", 30));
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), true).await;

    write(docs.path(), "new/deep/x.md", "# X\n\nin a folder made while watching");
    until("the new folder's note is indexed", async || {
        hash_of(&engine, "new/deep/x.md").await.is_some()
    })
    .await;
    std::fs::rename(docs.path().join("new"), docs.path().join("moved")).unwrap();
    until("the moved folder is indexed where it went", async || {
        let files = engine.store().files().await.unwrap();
        files.contains_key("moved/deep/x.md") && !files.contains_key("new/deep/x.md")
    })
    .await;
    let last = engine.indexer.last_sync().unwrap().report;
    assert!(
        last.unchanged < 30,
        "the watcher's sync looked at the moved folder, not at all 31 files: {last:?}"
    );
    assert_eq!(engine.store().count().await.unwrap(), 31);
}

#[tokio::test(flavor = "multi_thread")]
async fn backlinks_follow_every_change_and_read_only_the_documents_that_may_link() {
    let mut entries: Vec<(String, String)> = (0..40)
        .map(|i| (format!("n/{i}.md"), format!("# Note {i}\n\nlinks to [[n{i}]] only")))
        .collect();
    entries.push((
        "ops/target.md".into(),
        "---\naliases: [The Goal]\n---\n# Target\n".into(),
    ));
    entries.push((
        "a.md".into(),
        "# A\n\nSee [[target]].\nAnd [again](ops/target.md).".into(),
    ));
    entries.push(("b.md".into(), "# B\n\n`[[target]]` in code is no link.".into()));
    entries.push(("ops/c.md".into(), "# C\n\nUp: [x](../ops/target.md#goals)".into()));
    let docs = docs_of(&entries);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), false).await;
    let scope = Scope::root(engine.clone());
    let linking = async || -> Vec<(String, Vec<u64>)> {
        let found = tools::links_to(&scope, "target").await.unwrap();
        assert_eq!(found["path"], "ops/target.md");
        found["backlinks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|doc| {
                let lines = doc["lines"].as_array().unwrap();
                (
                    doc["path"].as_str().unwrap().to_string(),
                    lines.iter().map(|l| l["line"].as_u64().unwrap()).collect(),
                )
            })
            .collect()
    };
    assert_eq!(
        linking().await,
        [("a.md".to_string(), vec![3, 4]), ("ops/c.md".to_string(), vec![3])]
    );
    let read = engine.links.files_read();
    assert_eq!(read, 44, "every indexed file once");
    linking().await;
    assert_eq!(engine.links.files_read(), read, "nothing changed, nothing read again");

    tools::write::save(&scope, "b.md", "# B\n\nNow by alias: [[the goal]].".into(), None, true)
        .await
        .unwrap();
    tools::write::save(&scope, "a.md", "# A\n\nNo link now.".into(), None, true)
        .await
        .unwrap();
    assert_eq!(
        linking().await,
        [("b.md".to_string(), vec![3]), ("ops/c.md".to_string(), vec![3])]
    );
    assert_eq!(engine.links.files_read(), read + 2, "the two saved files, read again");
}
