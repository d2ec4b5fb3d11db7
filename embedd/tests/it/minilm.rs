//! minilm against golden vectors computed independently with Python's onnxruntime.

use std::path::PathBuf;

use embedd::model::ModelSource;
use embedd::runtime::RuntimeOptions;
use embedd::{LocalEmbedder, LocalOptions, TextKind, registry};
use serde::Deserialize;

#[derive(Deserialize)]
struct Golden {
    onnx_sha256: String,
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
    cos_restore_question_vs_answer: f32,
    cos_question_vs_carbonara: f32,
}

fn golden() -> Golden {
    golden_of("minilm")
}

/// scripts/golden_vectors.py's vectors for the model `name`.
fn golden_of(name: &str) -> Golden {
    let path =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join(format!("tests/data/golden-{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn cache_dir() -> PathBuf {
    embedd::runtime::default_cache_dir(
        std::env::var_os("RAGDOWN_CACHE").map(PathBuf::from),
        std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
    .expect("HOME is set")
}

fn start(threads: usize) -> LocalEmbedder {
    start_with(LocalOptions {
        threads,
        ..LocalOptions::default()
    })
}

/// The installed models (never downloaded), found as the test command installs them.
pub fn source() -> ModelSource {
    let cache = cache_dir();
    ModelSource {
        models_dir: std::env::var_os("RAGDOWN_MODELS")
            .map(PathBuf::from)
            .unwrap_or(cache.join("models")),
        hub_endpoint: "http://127.0.0.1:9".into(),
        allow_download: false,
        runtime: RuntimeOptions {
            explicit: std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from),
            cache_dir: Some(cache),
        },
    }
}

fn start_with(options: LocalOptions) -> LocalEmbedder {
    start_model("minilm", options)
}

fn start_model(name: &str, options: LocalOptions) -> LocalEmbedder {
    LocalEmbedder::start(registry::find(name).unwrap(), &source(), &options)
        .unwrap_or_else(|e| panic!("{e}\nrun scripts/install-ort.sh and scripts/install-model.sh {name} first"))
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[tokio::test]
async fn vectors_match_python_onnxruntime_alone_and_in_a_batch() {
    let golden = golden();
    let embedder = start(1);
    assert_eq!(embedder.fingerprint().weights_sha256, golden.onnx_sha256);
    assert_eq!(embedder.fingerprint().dim, 384);

    // One at a time, as the golden vectors were made.
    each_alone_matches(&embedder, &golden, TextKind::Document).await;

    // All together: length-bucketed batches with padding must give the same vectors.
    let batch = embedder.embed(golden.texts.clone(), TextKind::Document).await.unwrap();
    assert_eq!(batch.len(), golden.texts.len());
    for ((text, got), expected) in golden.texts.iter().zip(&batch).zip(&golden.vectors) {
        let diff = max_abs_diff(got, expected);
        assert!(diff < 1e-4, "batched {text:?}: max abs diff {diff}");
    }

    let question = &batch[0];
    let cos_answer = cosine(question, &batch[1]);
    let cos_unrelated = cosine(question, &batch[2]);
    assert!(
        (cos_answer - golden.cos_restore_question_vs_answer).abs() < 1e-4,
        "{cos_answer}"
    );
    assert!(
        (cos_unrelated - golden.cos_question_vs_carbonara).abs() < 1e-4,
        "{cos_unrelated}"
    );
    assert!(cos_answer > cos_unrelated + 0.3);
}

/// Embeds each of `golden`'s texts alone, as `kind`, and checks it against its golden vector
/// (within 1e-4) and for unit length.
async fn each_alone_matches(embedder: &LocalEmbedder, golden: &Golden, kind: TextKind) {
    for (text, expected) in golden.texts.iter().zip(&golden.vectors) {
        let got = embedder.embed(vec![text.clone()], kind).await.unwrap().remove(0);
        let diff = max_abs_diff(&got, expected);
        assert!(diff < 1e-4, "{kind:?} {text:?}: max abs diff {diff}");
        let norm = cosine(&got, &got).sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{kind:?} {text:?}: norm {norm}");
    }
}

/// Embeds `golden`'s texts 20 times over as documents, queued while `embedder` is paused so its
/// bulk sessions share them out, and checks every vector against the golden one.
async fn every_bulk_session_matches(embedder: &LocalEmbedder, golden: &Golden) {
    let texts: Vec<String> = golden
        .texts
        .iter()
        .cycle()
        .take(golden.texts.len() * 20)
        .cloned()
        .collect();
    let pending = {
        let embedder = embedder.clone();
        let texts = texts.clone();
        tokio::spawn(async move { embedder.embed(texts, TextKind::Document).await })
    };
    while embedder.depth()[1].texts < texts.len() {
        tokio::task::yield_now().await;
    }
    embedder.resume();
    let vectors = pending.await.unwrap().unwrap();
    for (i, got) in vectors.iter().enumerate() {
        let expected = &golden.vectors[i % golden.texts.len()];
        assert!(max_abs_diff(got, expected) < 1e-4, "text {i}");
    }
    assert!(embedder.batches_run() > 2, "{}", embedder.batches_run());
    assert_eq!(embedder.most_batches_at_once(), 2, "both sessions ran batches at once");
}

#[tokio::test]
async fn two_sessions_run_batches_side_by_side_with_the_same_vectors() {
    let golden = golden();
    let embedder = start_with(LocalOptions {
        threads: 2,
        sessions: 2,
        start_paused: true,
        interactive_session: false,
        ..LocalOptions::default()
    });
    assert_eq!((embedder.info().sessions, embedder.info().threads), (2, 2));
    every_bulk_session_matches(&embedder, &golden).await;
}

#[tokio::test]
async fn fp32_sessions_share_one_copy_of_the_weights_and_match_python_onnxruntime() {
    let golden = golden_of("minilm-fp32");
    let embedder = start_model(
        "minilm-fp32",
        LocalOptions {
            threads: 2,
            sessions: 2,
            start_paused: true,
            ..LocalOptions::default()
        },
    );
    assert_eq!(embedder.fingerprint().weights_sha256, golden.onnx_sha256);
    // BERT-small's matrices: embeddings, and per layer Q, K, V, output, two feed-forward weights
    // and their biases; far more than none.
    assert!(
        embedder.info().shared_weights > 20,
        "{}",
        embedder.info().shared_weights
    );
    every_bulk_session_matches(&embedder, &golden).await;
    // The interactive session, which takes queries, on the shared weights too (once resumed).
    each_alone_matches(&embedder, &golden, TextKind::Query).await;
}

#[tokio::test]
async fn the_int8_build_shares_no_weights() {
    // ONNX Runtime folds quantized weights into float copies of each session's own; sharing the
    // int8 ones was measured to cost memory (embedd/src/weights.rs).
    let embedder = start(1);
    assert_eq!(embedder.info().shared_weights, 0);
}

#[tokio::test]
async fn a_missing_model_without_downloads_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let source = ModelSource {
        models_dir: dir.path().to_path_buf(),
        hub_endpoint: "http://127.0.0.1:9".into(),
        allow_download: false,
        runtime: RuntimeOptions::default(),
    };
    let err =
        LocalEmbedder::start(registry::find("bge-small").unwrap(), &source, &LocalOptions::default()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("bge-small") && message.contains(&dir.path().display().to_string()),
        "{message}"
    );
}

/// Each thread of this process whose name starts with `prefix`, with its nice value.
#[cfg(target_os = "linux")]
fn threads_named(prefix: &str) -> Vec<(String, i64)> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(name) = std::fs::read_to_string(task.path().join("comm")) else {
            continue; // the thread ended meanwhile
        };
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        // Fields after the parenthesised name: state is field 3, nice field 19.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let nice: i64 = after.split(' ').nth(16).unwrap().parse().unwrap();
        if name.trim_end().starts_with(prefix) {
            found.push((name.trim_end().to_string(), nice));
        }
    }
    found
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn bulk_sessions_step_back_for_the_interactive_one() {
    let embedder = start_with(LocalOptions {
        threads: 2,
        sessions: 2,
        ..LocalOptions::default()
    });
    embedder.embed(vec!["warm".into()], TextKind::Query).await.unwrap();
    // Other tests' embedders run in this process too, and those with an interactive session lower
    // their one bulk thread (`embed-minilm`) as well. Only an embedder of two sessions has an
    // `embed-minilm-2`, and the other such test has no interactive session, so a lowered
    // `embed-minilm-2` is ours: the second session steps back too. No interactive thread is
    // ever lowered.
    let own = std::fs::read_to_string("/proc/self/stat").unwrap();
    let own: i64 = own[own.rfind(')').unwrap() + 2..]
        .split(' ')
        .nth(16)
        .unwrap()
        .parse()
        .unwrap();
    let lowered = (own + 10).min(19);
    // A thread names itself and lowers its priority once it runs: wait for both (up to 10 s).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let (bulk, interactive) = loop {
        let bulk: Vec<_> = threads_named("embed-minilm")
            .into_iter()
            .filter(|(name, _)| name == "embed-minilm" || name == "embed-minilm-2")
            .collect();
        let interactive = threads_named("embed-minilm-in");
        let second_lowered = bulk
            .iter()
            .any(|(name, nice)| name == "embed-minilm-2" && *nice == lowered);
        if (second_lowered && !interactive.is_empty()) || std::time::Instant::now() > deadline {
            break (bulk, interactive);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(
        bulk.iter()
            .any(|(name, nice)| name == "embed-minilm-2" && *nice == lowered),
        "{bulk:?}"
    );
    assert!(
        bulk.iter()
            .any(|(name, nice)| name == "embed-minilm" && *nice == lowered),
        "{bulk:?}"
    );
    assert!(!interactive.is_empty());
    assert!(interactive.iter().all(|(_, nice)| *nice == own), "{interactive:?}");
    drop(embedder);
}
