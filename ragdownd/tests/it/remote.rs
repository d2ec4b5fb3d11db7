//! ragdownd against real `embedd` processes over real sockets: workers give the in-process model's
//! vectors, a worker killed mid-index loses nothing, the CPU fallback takes over when every worker
//! is gone and hands back when one returns, a worker with another model is refused, and
//! `openai:<model>` works against embedd's OpenAI-compatible endpoint.
//!
//! Needs the `embedd` binary (the test command builds it) and the `minilm` and `minilm-fp32`
//! models (`scripts/install-model.sh`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use embedd::{LocalEmbedder, LocalOptions, TextKind, registry};
use ragdownd::embed::Embedder;
use ragdownd::embed::remote::{RemoteEmbedder, RemoteOptions};
use ragdownd::embed::select::{self, EmbedderChoice, Endpoints};
use ragdownd::index::scan::Layout;

use crate::support::{cache_dir, open_engine, write};

fn source() -> embedd::ModelSource {
    embedd::ModelSource {
        models_dir: cache_dir().join("models"),
        hub_endpoint: "http://127.0.0.1:9".into(),
        allow_download: false,
        runtime: embedd::runtime::RuntimeOptions {
            explicit: std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from),
            cache_dir: Some(cache_dir()),
        },
    }
}

fn local_options() -> LocalOptions {
    LocalOptions {
        threads: 1,
        ..LocalOptions::default()
    }
}

/// The `embedd` binary beside this test binary (`target/<profile>/embedd`).
fn embedd_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(Path::parent).unwrap();
    let binary = dir.join(format!("embedd{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is missing: build it with `cargo build -p embedd --bin embedd` (the test command does)",
        binary.display()
    );
    binary
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One `embedd` process; killed when dropped.
struct Worker {
    child: Child,
    grpc: u16,
    http: u16,
    model: &'static str,
}

impl Worker {
    fn start(model: &'static str) -> Self {
        Self::start_on(model, free_port(), free_port())
    }

    fn start_on(model: &'static str, grpc: u16, http: u16) -> Self {
        let child = Command::new(embedd_binary())
            .args(["--model", model, "--provider", "cpu", "--threads", "1"])
            .args(["--grpc-addr", &format!("127.0.0.1:{grpc}")])
            .args(["--http-addr", &format!("127.0.0.1:{http}")])
            .arg("--offline")
            .env("RAGDOWN_CACHE", cache_dir())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("embedd starts");
        let worker = Self {
            child,
            grpc,
            http,
            model,
        };
        worker.wait_serving();
        worker
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.grpc)
    }

    /// Waits until the worker serves: its ports are bound before the model loads, so a port
    /// that accepts is not yet a worker that answers (on a loaded machine the load takes seconds).
    fn wait_serving(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let health = std::net::SocketAddr::from(([127, 0, 0, 1], self.http));
        while embedd::health::probe(health, "/health", Duration::from_secs(1)).is_err()
            || std::net::TcpStream::connect(("127.0.0.1", self.grpc)).is_err()
        {
            assert!(
                Instant::now() < deadline,
                "embedd ({}) did not serve in time",
                self.model
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

fn options(urls: Vec<String>, model: Option<&str>) -> RemoteOptions {
    RemoteOptions {
        urls,
        token: None,
        timeout: Duration::from_secs(20),
        model: model.map(|m| registry::find(m).unwrap()),
        source: source(),
        local: local_options(),
    }
}

fn local(model: &str) -> LocalEmbedder {
    LocalEmbedder::start(registry::find(model).unwrap(), &source(), &local_options()).unwrap()
}

fn max_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f32::max)
}

fn texts(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            format!(
                "Runbook step {i}: restore the replica {} times, then check pg_stat_archiver.",
                i % 7
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn workers_give_the_in_process_vectors_and_share_the_index_fingerprint() {
    let workers = [Worker::start("minilm"), Worker::start("minilm")];
    let remote = RemoteEmbedder::connect(options(workers.iter().map(Worker::url).collect(), None))
        .await
        .unwrap();
    assert_eq!(remote.workers_up(), 2);
    let local = local("minilm");
    // Moving between in-process and remote embedding keeps the index.
    assert_eq!(Embedder::fingerprint(&remote), Embedder::fingerprint(&local));
    assert_eq!(Embedder::index_name(&remote), "all-MiniLM-L6-v2-q8");

    // More texts than one part, so both workers answer some of them.
    let batch = texts(150);
    let from_workers = Embedder::embed(&remote, batch.clone(), TextKind::Document)
        .await
        .unwrap();
    let in_process = Embedder::embed(&local, batch, TextKind::Document).await.unwrap();
    assert!(max_diff(&from_workers, &in_process) < 1e-4);
    for vector in &from_workers {
        let norm: f32 = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{norm}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_mid_index_loses_nothing_and_the_cpu_takes_over_until_one_returns() {
    let mut first = Worker::start("minilm");
    let mut second = Worker::start("minilm");
    let (second_grpc, second_http) = (second.grpc, second.http);
    let remote = RemoteEmbedder::connect(options(vec![first.url(), second.url()], Some("minilm")))
        .await
        .unwrap();
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let files = 160;
    for i in 0..files {
        let body: String = (0..3)
            .map(|s| format!("## Step {s}\n\nOn host db-{i} run pg_basebackup then verify checksum {i}-{s}.\n\n"))
            .collect();
        write(
            docs.path(),
            &format!("runbooks/r{i:03}.md"),
            &format!("# Runbook {i}\n\n{body}"),
        );
    }
    let engine = open_engine(docs.path(), data.path(), Layout::Single, Arc::new(remote.clone())).await;

    // Kill one worker while the index is being built.
    let watcher = {
        let engine = engine.clone();
        tokio::spawn(async move {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !engine.indexer.progress().running && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            first.kill();
            let progress = engine.indexer.progress();
            (first, progress.running && progress.files_done < progress.files_total)
        })
    };
    let report = engine.sync(false).await.unwrap();
    let (mut first, killed_mid_index) = watcher.await.unwrap();
    assert!(
        killed_mid_index,
        "the worker died after the index was done: make the corpus larger"
    );
    assert_eq!(report.added, files);
    let per_file = engine.store().files().await.unwrap();
    assert_eq!(per_file.len(), files);
    assert!(per_file.values().all(|f| f.chunks == 3), "a file lost chunks");
    assert_eq!(engine.store().count().await.unwrap(), files * 3);
    assert_eq!(remote.workers_up(), 1, "the killed worker is still counted in");

    // Every worker gone: the in-process model embeds, with the same vectors.
    second.kill();
    write(
        docs.path(),
        "runbooks/late.md",
        "# Late\n\nWritten while every worker was down.\n",
    );
    let report = engine.sync(false).await.unwrap();
    assert_eq!(report.added, 1);
    let local = local("minilm");
    let probe = texts(3);
    let fallback = Embedder::embed(&remote, probe.clone(), TextKind::Query).await.unwrap();
    let expected = Embedder::embed(&local, probe.clone(), TextKind::Query).await.unwrap();
    assert!(max_diff(&fallback, &expected) < 1e-4);

    // A worker coming back is used again.
    let _back = Worker::start_on("minilm", second_grpc, second_http);
    let deadline = Instant::now() + Duration::from_secs(20);
    while remote.workers_up() == 0 {
        assert!(Instant::now() < deadline, "the returning worker was never taken back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let again = Embedder::embed(&remote, probe, TextKind::Query).await.unwrap();
    assert!(max_diff(&again, &expected) < 1e-4);
    first.kill();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_serving_another_model_is_refused() {
    // The same model in other weights: fp32 against the int8 file the index wants.
    let other = Worker::start("minilm-fp32");
    let remote = RemoteEmbedder::connect(options(vec![other.url()], Some("minilm")))
        .await
        .unwrap();
    assert_eq!(remote.workers_up(), 0, "a worker with other weights must not be used");
    assert_eq!(remote.expected().index_name, "all-MiniLM-L6-v2-q8");
    // Its vectors never reach the index: the in-process int8 model answers instead.
    let probe = texts(2);
    let got = Embedder::embed(&remote, probe.clone(), TextKind::Document)
        .await
        .unwrap();
    let want = Embedder::embed(&local("minilm"), probe, TextKind::Document)
        .await
        .unwrap();
    assert!(max_diff(&got, &want) < 1e-4);

    // Left to choose, ragdownd takes the workers' model; an index built with another is rebuilt
    // rather than mixed (the fingerprint is part of the index's meta).
    let remote = RemoteEmbedder::connect(options(vec![other.url()], None)).await.unwrap();
    assert_eq!(remote.workers_up(), 1);
    assert_ne!(
        Embedder::fingerprint(&remote),
        Embedder::fingerprint(&local("minilm")),
        "fp32 and int8 weights must not share an index"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_embedder_against_embedds_openai_endpoint() {
    let worker = Worker::start("minilm");
    let choice = EmbedderChoice {
        name: Some("openai:minilm".into()),
        source: source(),
        local: local_options(),
    };
    let endpoints = Endpoints {
        embedding_url: format!("http://127.0.0.1:{}/v1", worker.http),
        ..Endpoints::default()
    };
    let embedder = select::open(&choice, &endpoints).await.unwrap();
    assert_eq!(embedder.index_name(), "openai:minilm@384");
    assert_eq!(embedder.dim(), 384);
    // More than one request's worth (64 texts), answered in order.
    let batch = texts(70);
    let got = embedder.embed(batch.clone(), TextKind::Document).await.unwrap();
    let want = Embedder::embed(&local("minilm"), batch, TextKind::Document)
        .await
        .unwrap();
    assert!(max_diff(&got, &want) < 1e-4);

    // A wrong endpoint is a clear error at start, not later.
    let endpoints = Endpoints {
        embedding_url: format!("http://127.0.0.1:{}/v1", free_port()),
        ..Endpoints::default()
    };
    let err = select::open(&choice, &endpoints).await.unwrap_err().to_string();
    assert!(err.contains("openai:minilm"), "{err}");
}
