//! Tests of whole vaults built from small fixture dirs: determinism, distinct chunks, exact
//! counts, duplicates across files, the non-empty guard and the queries.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use ragdownd::markdown::{Chunk, chunk_document};
use serde_json::Value;

use super::prose::{MIN_CHUNK_CHARS, fingerprint};
use super::*;

/// A section both `ops/backup.md` and `ops/restore.md` hold.
const SHARED: &str = "Every restore starts from the newest verified snapshot, and the engineer on call \
                      writes down the time it was taken before anything else is done.";

const PROSE: [&str; 8] = [
    "The nightly backup runs at three in the morning and writes a report when it is done. If the report \
     is missing by six, the on-call engineer checks the scheduler first and the storage quota second.",
    "Snapshots are kept for thirty days in the primary region and for a year in the archive. The archive \
     is cheaper to keep but slower to read, so a restore from it takes most of a working day.",
    "When a restore is needed, the team lead decides which snapshot to use and writes the decision in \
     the incident channel. Nobody restores over a live database without that written decision.",
    "Replica lag is the first thing to look at when reads return stale data. A lag of more than a \
     minute means the replica is behind, and the read traffic should move back to the primary.",
    "The deploy pipeline builds the image, runs the tests, and waits for a human to approve the \
     release. A release that breaks production is rolled back first and explained afterwards.",
    "Access keys are rotated every ninety days, and a key that leaks is revoked the same hour. The \
     rotation is written into the calendar so that it is never a surprise to the teams that use them.",
    "Consumers that fall behind are scaled out before the queue is allowed to grow past its limit. \
     The limit is set so that a whole hour of messages fits in the queue without loss.",
    "Every incident gets a written review within a week. The review says what happened, what was \
     done, what helped, and what the team will change so that it does not happen again.",
];

/// Writes the fixture sources under `root` and returns them.
fn fixture(root: &Path) -> Vec<Source> {
    let docs = root.join("docs");
    let write = |rel: &str, text: &str| {
        let path = docs.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "ops/backup.md",
        &format!(
            "---\ntitle: Backups\n---\n# Backups\n\n{}\n\n## Snapshots\n\n{}\n\n```sh\nbackup --verify\n```\n\n\
             ## Restore\n\n{SHARED}\n",
            PROSE[0], PROSE[1]
        ),
    );
    write(
        "ops/restore.md",
        &format!(
            "# Restore\n\n{}\n\n## First step\n\n{SHARED}\n\n## Replicas\n\n{}\n",
            PROSE[2], PROSE[3]
        ),
    );
    write(
        "notes/short.md",
        "# Short\n\nToo short to keep.\n\n## Also\n\nStill short.\n",
    );
    write(
        "notes/deploy.md",
        &format!(
            "{}\n\n# Keys\n\n{}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            PROSE[4], PROSE[5]
        ),
    );
    write(
        "notes/queues.md",
        &format!("# Queues\n\n- {}\n\n# Reviews\n\n> {}\n", PROSE[6], PROSE[7]),
    );
    write("notes/readme.txt", &PROSE.join("\n\n"));
    std::fs::write(docs.join("notes/latin1.md"), b"# Caf\xe9\n\nnot utf-8\n").unwrap();
    named_sources(&[docs]).unwrap()
}

/// Every chunk of every Markdown file under `out`, with its path, in path order.
fn all_chunks(out: &Path) -> Vec<(String, Chunk)> {
    let mut paths: Vec<String> = walkdir::WalkDir::new(out)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && ragdownd::markdown::is_markdown(&e.file_name().to_string_lossy()))
        .map(|e| e.path().strip_prefix(out).unwrap().to_string_lossy().replace('\\', "/"))
        .collect();
    paths.sort();
    let mut chunks = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(out.join(&path)).unwrap();
        for chunk in chunk_document(&path, &text).chunks {
            chunks.push((path.clone(), chunk));
        }
    }
    chunks
}

/// Every file under `dir`, by relative path.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn vault_same_seed_gives_the_same_bytes_and_another_seed_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let sources = fixture(dir.path());
    let out = |name: &str| dir.path().join(name);
    build(&out("a"), 120, 7, 40, &sources).unwrap();
    build(&out("b"), 120, 7, 40, &sources).unwrap();
    build(&out("c"), 120, 8, 40, &sources).unwrap();
    let (a, b, c) = (tree(&out("a")), tree(&out("b")), tree(&out("c")));
    assert!(a.keys().any(|k| k.starts_with("gen/")) && a.contains_key("queries.json"));
    assert_eq!(a, b);
    assert_ne!(a["queries.json"], c["queries.json"]);
    let generated = |t: &BTreeMap<String, Vec<u8>>| -> Vec<Vec<u8>> {
        t.iter()
            .filter(|(k, _)| k.starts_with("gen/"))
            .map(|(_, v)| v.clone())
            .collect()
    };
    assert_ne!(generated(&a), generated(&c));
    let real = |t: &BTreeMap<String, Vec<u8>>| -> Vec<(String, Vec<u8>)> {
        t.iter()
            .filter(|(k, _)| k.starts_with("real/"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    assert_eq!(real(&a), real(&c), "the real half does not depend on the seed");
}

/// The count is exact: below what the real files hold (the last one cut), and above (notes).
#[test]
fn vault_holds_exactly_n_distinct_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let sources = fixture(dir.path());
    for n in [1, 5, 9, 10, 11, 100, 257] {
        let out = dir.path().join(format!("out-{n}"));
        let manifest = build(&out, n, 1, 10, &sources).unwrap();
        let chunks = all_chunks(&out);
        assert_eq!(chunks.len(), n, "{manifest}");
        assert_eq!(manifest["chunks"], n);
        let real = manifest["real"]["chunks"].as_u64().unwrap() as usize;
        let generated = manifest["generated"]["chunks"].as_u64().unwrap() as usize;
        assert_eq!(real + generated, n);
        assert_eq!(chunks.iter().filter(|(p, _)| p.starts_with("real/")).count(), real);
        let mut seen = HashSet::new();
        for (path, chunk) in &chunks {
            let (print, chars) = fingerprint(&chunk.text);
            assert!(
                seen.insert(print),
                "{path} #{} is a repeat: {}",
                chunk.index,
                chunk.text
            );
            assert!(chars >= MIN_CHUNK_CHARS, "{path} #{}", chunk.index);
        }
    }
}

#[test]
fn vault_keeps_a_section_two_real_files_hold_once() {
    let dir = tempfile::tempdir().unwrap();
    let sources = fixture(dir.path());
    let out = dir.path().join("out");
    let manifest = build(&out, 30, 1, 5, &sources).unwrap();
    let holding: Vec<String> = all_chunks(&out)
        .into_iter()
        .filter(|(p, c)| p.starts_with("real/") && c.text.contains("newest verified snapshot"))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(holding, ["real/docs/ops/backup.md"]);
    let files: Vec<String> = tree(&out.join("real")).into_keys().collect();
    assert_eq!(
        files,
        [
            "docs/notes/deploy.md",
            "docs/notes/queues.md",
            "docs/ops/backup.md",
            "docs/ops/restore.md"
        ],
        "short.md keeps nothing, latin1.md is not UTF-8, readme.txt is not Markdown"
    );
    assert_eq!(manifest["real"]["per_source"]["docs"]["files"], 4);
    assert_eq!(manifest["sources"].as_array().unwrap().len(), 1);
}

#[test]
fn vault_refuses_a_non_empty_out_dir() {
    let dir = tempfile::tempdir().unwrap();
    let sources = fixture(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("keep.md"), "mine").unwrap();
    let error = build(&out, 10, 1, 5, &sources).unwrap_err().to_string();
    assert!(error.contains("is not empty"), "{error}");
    assert_eq!(tree(&out).len(), 1, "nothing written");
    // An empty dir is fine.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    build(&empty, 10, 1, 5, &sources).unwrap();
}

#[test]
fn vault_queries_point_at_existing_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let sources = fixture(dir.path());
    let out = dir.path().join("out");
    build(&out, 200, 3, 300, &sources).unwrap();
    let queries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("queries.json")).unwrap()).unwrap();
    assert_eq!(queries.len(), 300);
    let chunks: BTreeMap<(String, u64), Chunk> = all_chunks(&out)
        .into_iter()
        .map(|(p, c)| ((p, c.index as u64), c))
        .collect();
    let mut kinds = BTreeMap::new();
    let mut real = 0;
    for q in &queries {
        let (path, index) = (q["path"].as_str().unwrap(), q["chunk"].as_u64().unwrap());
        let chunk = &chunks[&(path.to_owned(), index)];
        let query = q["query"].as_str().unwrap();
        match q["kind"].as_str().unwrap() {
            "words" => {
                let words: Vec<&str> = query.split(' ').collect();
                assert!((6..=10).contains(&words.len()), "{query}");
                assert!(
                    words.iter().all(|w| chunk.text.contains(w)),
                    "{query} not in {}",
                    chunk.text
                );
            }
            "heading" => assert!(chunk.heading.ends_with(query), "{query} / {}", chunk.heading),
            kind => panic!("kind {kind}"),
        }
        *kinds.entry(q["kind"].as_str().unwrap().to_owned()).or_insert(0) += 1;
        real += usize::from(path.starts_with("real/"));
    }
    let words = kinds["words"];
    assert!((180..=240).contains(&words), "about 70% words: {kinds:?}");
    assert!(
        real > 0 && real < 60,
        "drawn over all chunks, few of which are real: {real}"
    );
}

/// A sample of real Markdown (this repository's docs) settles: each file written chunks back into
/// distinct chunks that all pass the filter, and the counts are what the chunker gives.
#[test]
fn vault_real_docs_rechunk_to_what_was_kept() {
    let dir = tempfile::tempdir().unwrap();
    let docs = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../docs");
    let sources = named_sources(&[docs]).unwrap();
    let out = dir.path().join("out");
    let manifest = build(&out, 400, 1, 20, &sources).unwrap();
    let chunks = all_chunks(&out);
    assert_eq!(chunks.len(), 400);
    let real = manifest["real"]["chunks"].as_u64().unwrap() as usize;
    assert!(real > 50, "{manifest}");
    let mut seen = HashSet::new();
    for (path, chunk) in chunks.iter().filter(|(p, _)| p.starts_with("real/")) {
        let (print, chars) = fingerprint(&chunk.text);
        assert!(
            seen.insert(print) && chars >= MIN_CHUNK_CHARS,
            "{path} #{}",
            chunk.index
        );
    }
    assert_eq!(seen.len(), real);
}

/// Checks a vault already written (`VAULT_DIR=/tmp/vault-20k cargo test -p bench vault_check --
/// --ignored`): its chunks, chunked afresh, are as many as the manifest says and all distinct.
#[test]
#[ignore = "needs VAULT_DIR"]
fn vault_check_dir() {
    let dir = std::path::PathBuf::from(std::env::var_os("VAULT_DIR").expect("VAULT_DIR"));
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("vault.json")).unwrap()).unwrap();
    let chunks = all_chunks(&dir);
    assert_eq!(chunks.len() as u64, manifest["chunks"].as_u64().unwrap());
    let mut seen = HashSet::new();
    for (path, chunk) in &chunks {
        assert!(
            seen.insert(fingerprint(&chunk.text).0),
            "{path} #{} is a repeat",
            chunk.index
        );
    }
    eprintln!("{} chunks, all distinct", chunks.len());
}
