//! Faults: `kill -9` of ragdownd in the middle of a first index and of writes, and the disk full
//! under a document write and under the index. The user's file is always whole (the old version
//! or the new one), no temp file is ever indexed, and the next start repairs the index by itself.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{StdioClient, test_env, write};

fn stats(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// `files` documents of five sections each in 40 folders under `docs/r/`, every section naming
/// its own host and item.
fn five_step_docs(docs: &Path, files: u64) {
    for i in 0..files {
        let body: String = (0..5)
            .map(|s| format!("## Step {s}\n\nOn host db-{i} check item {i}-{s}.\n\n"))
            .collect();
        write(
            docs,
            &format!("r/{:02}/doc{i}.md", i % 40),
            &format!("# Doc {i}\n\n{body}"),
        );
    }
}

/// The chunks the index of `docs` holds when built from nothing, in a data dir of its own.
async fn reference_chunks(docs: &Path) -> u64 {
    let data = tempfile::tempdir().unwrap();
    let mut client = StdioClient::start(&test_env(docs, data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;
    stats(&client.ok("ragdown_stats", json!({})).await)["chunks"]
        .as_u64()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_during_the_first_index_the_next_start_repairs_it() {
    let docs = tempfile::tempdir().unwrap();
    let files = 1_500;
    five_step_docs(docs.path(), files);
    let data = tempfile::tempdir().unwrap();
    let mut first = StdioClient::start(&test_env(docs.path(), data.path())).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    let at_kill = loop {
        let now = stats(&first.ok("ragdown_stats", json!({})).await);
        if now["files"].as_u64().unwrap() > 0 {
            break now;
        }
        assert!(Instant::now() < deadline, "the first index never started: {now}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    first.kill().await;
    assert!(
        at_kill["syncing"] == true && at_kill["files"].as_u64().unwrap() < files,
        "killed after the first index was done: make the vault larger ({at_kill})"
    );

    let mut again = StdioClient::start(&test_env(docs.path(), data.path())).await;
    again.ok("ragdown_reindex", json!({})).await;
    let repaired = stats(&again.ok("ragdown_stats", json!({})).await);
    assert_eq!(repaired["files"].as_u64(), Some(files), "{repaired}");
    assert_eq!(
        repaired["chunks"].as_u64(),
        Some(reference_chunks(docs.path()).await),
        "chunks as a fresh index has them: none missing, none twice"
    );
}

/// Kills `ragdownd stdio` while it runs `tool` with `arguments`, `after` the request went out;
/// returns the document's bytes afterwards.
async fn kill_during(docs: &Path, data: &Path, tool: &str, arguments: Value, after: Duration) -> Vec<u8> {
    let mut client = StdioClient::start(&test_env(docs, data)).await;
    client.ok("ragdown_reindex", json!({})).await;
    client
        .send_request("tools/call", json!({"name": tool, "arguments": arguments}))
        .await;
    tokio::time::sleep(after).await;
    client.kill().await;
    std::fs::read(docs.join("big.md")).expect("the document is still there")
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_during_a_write_or_an_edit_the_document_is_whole() {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let old = format!("# Big\n\nSTART\n{}", "old line of the first version\n".repeat(60_000));
    let new = format!("# Big\n\nSTART\n{}", "new line of the second version\n".repeat(60_000));
    // How long a whole write takes here, so the kills below spread over it.
    std::fs::write(docs.path().join("big.md"), &old).unwrap();
    let base = ragdownd::documents::content_hash(old.as_bytes());
    let took = {
        let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
        client.ok("ragdown_reindex", json!({})).await;
        let started = Instant::now();
        let arguments = json!({"path": "big.md", "text": new, "base_hash": base});
        client
            .send_request("tools/call", json!({"name": "ragdown_write", "arguments": arguments}))
            .await;
        // Until the new version is in place (the index is updated after that).
        while std::fs::metadata(docs.path().join("big.md")).unwrap().len() != new.len() as u64 {
            assert!(started.elapsed() < Duration::from_secs(60), "the write never landed");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        started.elapsed()
    };
    let mut outcomes = Vec::new();
    for round in 0..8u32 {
        std::fs::write(docs.path().join("big.md"), &old).unwrap();
        // From a fifth of the time the new version takes to land to well past it.
        let after = took * (round + 1) / 5;
        let (arguments, edited) = if round % 2 == 0 {
            (json!({"path": "big.md", "text": new, "base_hash": base}), new.clone())
        } else {
            let edits = json!([{"old_text": "START", "new_text": "EDITED"}]);
            (
                json!({"path": "big.md", "edits": edits, "base_hash": base}),
                old.replacen("START", "EDITED", 1),
            )
        };
        let tool = if round % 2 == 0 {
            "ragdown_write"
        } else {
            "ragdown_edit"
        };
        let now = kill_during(docs.path(), data.path(), tool, arguments, after).await;
        assert!(
            now == old.as_bytes() || now == edited.as_bytes(),
            "round {round}: {tool} killed after {after:?} left {} bytes, neither version",
            now.len()
        );
        outcomes.push(now == old.as_bytes());
    }
    // The next start indexes the document as it is on disk, and never a temp file.
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;
    let now = stats(&client.ok("ragdown_stats", json!({"include_files": true})).await);
    assert_eq!(now["file_list"].as_array().unwrap().len(), 1, "{now}");
    assert_eq!(now["file_list"][0]["path"], "big.md");
    let text = client
        .ok("ragdown_read_doc", json!({"path": "big.md", "end_line": 1}))
        .await;
    let on_disk = ragdownd::documents::content_hash(&std::fs::read(docs.path().join("big.md")).unwrap());
    assert!(text.contains(&format!("(hash {}", &on_disk[..12])), "{text}");
    let kept_old = outcomes.iter().filter(|kept| **kept).count();
    assert!(
        kept_old > 0 && kept_old < outcomes.len(),
        "every kill fell on the same side of the rename ({kept_old} of 8 kept the old version): the kills missed the write"
    );
}

/// A tmpfs of `size` at `dir`, unmounted on drop: a disk that can fill up. Needs root.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(dir: &Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(dir).unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .ok()?;
        status.success().then(|| Self(dir.to_path_buf()))
    }

    fn resize(&self, size: &str) {
        let status = std::process::Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Root can mount a tmpfs; anyone else cannot, and these tests then say so and stop.
fn small_disk(dir: &Path, size: &str) -> Option<SmallDisk> {
    let disk = SmallDisk::mount(dir, size);
    if disk.is_none() {
        eprintln!("skipped: mounting a tmpfs needs root");
    }
    disk
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_under_a_document_write_is_a_clear_error_and_changes_nothing() {
    let root = tempfile::tempdir().unwrap();
    let Some(_disk) = small_disk(&root.path().join("docs"), "2m") else {
        return;
    };
    let docs = root.path().join("docs");
    let original = format!("# Doc\n\n{}", "the original text\n".repeat(20_000));
    write(&docs, "doc.md", &original);
    let data = root.path().join("data");
    let mut client = StdioClient::start(&test_env(&docs, &data)).await;
    client.ok("ragdown_reindex", json!({})).await;
    // Fill what is left but a little.
    let free = fs_free(&docs);
    std::fs::write(docs.join(".filler"), vec![0u8; free.saturating_sub(64 * 1024) as usize]).unwrap();

    let base = ragdownd::documents::content_hash(original.as_bytes());
    let bigger = format!("# Doc\n\n{}", "a longer replacement text\n".repeat(20_000));
    let (text, is_error) = client
        .call(
            "ragdown_write",
            json!({"path": "doc.md", "text": bigger, "base_hash": base}),
        )
        .await;
    assert!(is_error && text.starts_with("could not write doc.md"), "{text}");
    assert!(text.contains("No space left"), "{text}");
    assert_eq!(std::fs::read_to_string(docs.join("doc.md")).unwrap(), original);
    let (text, is_error) = client
        .call("ragdown_remember", json!({"title": "Note", "content": bigger}))
        .await;
    assert!(is_error, "{text}");
    let left: Vec<String> = walkdir::WalkDir::new(&docs)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp") || name.ends_with("note.md"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    // Space back: the same write goes through.
    std::fs::remove_file(docs.join(".filler")).unwrap();
    let text = client
        .ok(
            "ragdown_write",
            json!({"path": "doc.md", "text": bigger, "base_hash": base}),
        )
        .await;
    assert!(text.starts_with("wrote doc.md"), "{text}");
    assert_eq!(std::fs::read_to_string(docs.join("doc.md")).unwrap(), bigger);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_under_the_index_is_an_error_and_the_index_is_whole_once_space_is_back() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let Some(disk) = small_disk(&data, "3m") else {
        return;
    };
    let docs = root.path().join("docs");
    // Well past 3 MB: 400 of these fit in it once a sync wrote 4,096 chunks per commit (fewer,
    // larger data files), and only sometimes failed.
    const FILES: u64 = 1_000;
    for i in 0..FILES {
        let body: String = (0..4)
            .map(|s| format!("## Part {s}\n\n{}\n\n", format!("text {i} {s} ").repeat(40)))
            .collect();
        write(&docs, &format!("d{i:03}.md"), &format!("# Doc {i}\n\n{body}"));
    }
    let mut client = StdioClient::start(&test_env(&docs, &data)).await;
    let (text, is_error) = client.call("ragdown_reindex", json!({})).await;
    assert!(
        is_error,
        "the index fit in 3 MB after all: make the vault larger ({text})"
    );

    disk.resize("256m");
    let report: Value = serde_json::from_str(&client.ok("ragdown_reindex", json!({})).await).unwrap();
    assert!(report.is_object(), "{report}");
    let now = stats(&client.ok("ragdown_stats", json!({})).await);
    assert_eq!(now["files"].as_u64(), Some(FILES), "{now}");
    drop(client);
    assert_eq!(now["chunks"].as_u64(), Some(reference_chunks(&docs).await), "{now}");
}

/// Bytes free for an unprivileged write on the file system of `dir`.
fn fs_free(dir: &Path) -> u64 {
    let out = std::process::Command::new("df")
        .args(["--output=avail", "-B1"])
        .arg(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .and_then(|line| line.trim().parse().ok())
        .unwrap()
}

/// The names of the write temp files directly in `dir`.
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| ragdownd::documents::temp::is_temp_name(name))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_temp_file_of_a_killed_write_is_removed_soon_after_a_restart() {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let big = docs.path().join("big.md");
    let old = "# Big\n\nThe old version.\n";
    let new = format!(
        "# Big\n\n{}",
        "a line of the new version, long enough to take a while\n".repeat(150_000)
    );
    // The user's own files that look a little like ours stay.
    write(docs.path(), ".notes.tmp", "mine");
    write(docs.path(), ".ragdown-notes.txt", "mine too");
    // Kill a write while its temp file is there; a kill that lands after the rename is tried again.
    let mut killed = false;
    for _ in 0..20 {
        std::fs::write(&big, old).unwrap();
        let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
        client.ok("ragdown_reindex", json!({})).await;
        let arguments =
            json!({"path": "big.md", "text": new, "base_hash": ragdownd::documents::content_hash(old.as_bytes())});
        client
            .send_request("tools/call", json!({"name": "ragdown_write", "arguments": arguments}))
            .await;
        let (dir, size) = (docs.path().to_path_buf(), new.len() as u64);
        let landed = tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            loop {
                if !temp_files(&dir).is_empty() {
                    return false;
                }
                if std::fs::metadata(dir.join("big.md")).map(|m| m.len()).unwrap_or(0) == size {
                    return true;
                }
                assert!(started.elapsed() < Duration::from_secs(60), "the write never began");
            }
        })
        .await
        .unwrap();
        client.kill().await;
        if !landed && !temp_files(docs.path()).is_empty() {
            killed = true;
            break;
        }
    }
    assert!(killed, "no kill landed while the temp file was there");
    // A restart at once: its first sync removes the temp file, young as it is (nobody holds its
    // lock), with no wait for a later look.
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;
    assert_eq!(
        temp_files(docs.path()),
        Vec::<String>::new(),
        "gone after the first sync"
    );
    assert_eq!(std::fs::read_to_string(docs.path().join(".notes.tmp")).unwrap(), "mine");
    assert_eq!(
        std::fs::read_to_string(docs.path().join(".ragdown-notes.txt")).unwrap(),
        "mine too"
    );
    let now = std::fs::read(&big).unwrap();
    assert!(now == old.as_bytes() || now == new.as_bytes(), "the document is whole");
    let stats = stats(&client.ok("ragdown_stats", json!({})).await);
    assert_eq!(stats["files"], 1, "{stats}");
}

/// The vector indexes on the index in `data` (opened as a reader would).
async fn vector_indices(data: &Path) -> Vec<String> {
    let store = ragdownd::index::store::Store::open(&data.join("lance"), 384, false)
        .await
        .unwrap();
    store.vector_indices().await.unwrap()
}

/// The best hit of a few questions that each name one section (the next ones tie closely with the
/// hash embedder, and the exact paths may break a tie either way).
async fn top_paths(client: &mut StdioClient) -> Vec<String> {
    let mut out = Vec::new();
    for query in [
        "check item 17-3 on db-17",
        "host db-1203 step 4",
        "item 640-0",
        "item 999-2",
        "db-12 item 12-1",
    ] {
        let text = client
            .ok("ragdown_recall", json!({"query": query, "top_k": 1, "format": "json"}))
            .await;
        let hits: Value = serde_json::from_str(&text).unwrap();
        for hit in hits["hits"].as_array().unwrap() {
            out.push(format!("{}#{}", hit["path"], hit["heading"]));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn killed_while_it_builds_the_vector_index_the_next_start_searches_right_and_builds_it() {
    let docs = tempfile::tempdir().unwrap();
    five_step_docs(docs.path(), 1_500);
    let exact = {
        let data = tempfile::tempdir().unwrap();
        let mut env = test_env(docs.path(), data.path());
        env.push(("RAGDOWN_VECTOR_INDEX_ROWS".into(), "off".into()));
        let mut client = StdioClient::start(&env).await;
        client.ok("ragdown_reindex", json!({})).await;
        top_paths(&mut client).await
    };
    let data = tempfile::tempdir().unwrap();
    let mut env = test_env(docs.path(), data.path());
    env.push(("RAGDOWN_VECTOR_INDEX_ROWS".into(), "1000".into()));
    let mut first = StdioClient::start(&env).await;
    // The sync answers before the build (it starts after), so the kill falls into it.
    first.ok("ragdown_reindex", json!({})).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    first.kill().await;
    assert!(
        vector_indices(data.path()).await.is_empty(),
        "the build finished before the kill: make the vault larger"
    );

    let mut again = StdioClient::start(&env).await;
    again.ok("ragdown_reindex", json!({})).await;
    assert_eq!(
        top_paths(&mut again).await,
        exact,
        "searched right before the index is back"
    );
    let deadline = Instant::now() + Duration::from_secs(300);
    while vector_indices(data.path()).await.is_empty() {
        assert!(Instant::now() < deadline, "the vector index was never built again");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(top_paths(&mut again).await, exact, "the same hits through the index");
}
