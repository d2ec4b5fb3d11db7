//! What every benchmark binary needs around its workload: the embedder from the local model
//! cache, an engine that syncs only when asked, and a description of the machine for the results.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use embedd::LocalOptions;
use embedd::model::ModelSource;
use embedd::runtime::RuntimeOptions;
use ragdownd::embed::SharedEmbedder;
use ragdownd::embed::select::{self, EmbedderChoice};
use ragdownd::engine::{Engine, EngineOptions};
use ragdownd::index::scan::Layout;
use serde_json::{Value, json};

/// The ragdown cache, found as ragdownd finds it.
pub fn cache_dir() -> PathBuf {
    embedd::runtime::default_cache_dir(
        std::env::var_os("RAGDOWN_CACHE").map(PathBuf::from),
        std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
    .expect("HOME is set")
}

/// An installed embedder (never downloaded), with optional thread, session and batch settings.
/// Blocking.
pub fn embedder(
    name: &str,
    threads: Option<usize>,
    sessions: Option<usize>,
    max_batch_tokens: Option<usize>,
) -> anyhow::Result<SharedEmbedder> {
    let mut local = LocalOptions::default();
    if let Some(threads) = threads {
        local.threads = threads;
    }
    if let Some(sessions) = sessions {
        local.sessions = sessions;
    }
    if let Some(tokens) = max_batch_tokens {
        local.limits.max_batch_tokens = tokens;
    }
    Ok(select::select(&choice(name, local))?)
}

/// `name` served by the `embedd` workers at `urls` (ragdownd's remote embedder, with its CPU
/// fallback), as `RAGDOWN_EMBEDD_URL` gives them.
pub async fn remote_embedder(name: &str, urls: Vec<String>) -> anyhow::Result<SharedEmbedder> {
    let endpoints = select::Endpoints {
        embedd_urls: urls,
        ..select::Endpoints::default()
    };
    Ok(select::open(&choice(name, LocalOptions::default()), &endpoints).await?)
}

/// The embedder choice for an installed model (never downloaded).
fn choice(name: &str, local: LocalOptions) -> EmbedderChoice {
    let cache = cache_dir();
    EmbedderChoice {
        name: Some(name.to_string()),
        source: ModelSource {
            models_dir: std::env::var_os("RAGDOWN_MODELS")
                .map(PathBuf::from)
                .unwrap_or(cache.join("models")),
            hub_endpoint: embedd::hub::DEFAULT_ENDPOINT.into(),
            allow_download: false,
            runtime: RuntimeOptions {
                explicit: std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from),
                cache_dir: Some(cache),
            },
        },
        local,
    }
}

/// An engine over `docs` that syncs only when asked, so the workloads time their own syncs. The
/// vector index's threshold is the server's default, or `RAGDOWN_VECTOR_INDEX_ROWS` (a number).
pub async fn open_engine(docs: &Path, data: &Path, embedder: SharedEmbedder) -> anyhow::Result<Arc<Engine>> {
    let vector_index_rows = match std::env::var("RAGDOWN_VECTOR_INDEX_ROWS") {
        Ok(rows) => rows.parse()?,
        Err(_) => ragdownd::index::ann::DEFAULT_MIN_ROWS,
    };
    open_engine_with_rows(docs, data, embedder, vector_index_rows).await
}

/// [`open_engine`] with the vector index from `vector_index_rows` chunks (`usize::MAX`: never).
pub async fn open_engine_with_rows(
    docs: &Path,
    data: &Path,
    embedder: SharedEmbedder,
    vector_index_rows: usize,
) -> anyhow::Result<Arc<Engine>> {
    Ok(Engine::open(
        EngineOptions {
            docs_dir: docs.to_path_buf(),
            data_dir: data.to_path_buf(),
            layout: Layout::Single,
            watch: false,
            sync_on_open: false,
            takeover_every: ragdownd::engine::TAKEOVER_EVERY,
            history: Default::default(),
            vector_index_rows,
        },
        embedder,
    )
    .await?)
}

/// The CPU, its cores and the build profile, recorded with every result (so no one reads a debug
/// build's timings as release figures).
pub fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_default();
    json!({
        "cpu": cpu,
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "profile": if cfg!(debug_assertions) { "dev" } else { "release" },
    })
}
