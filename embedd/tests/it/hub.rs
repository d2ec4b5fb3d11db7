//! Downloading from the Hugging Face hub's file layout, against a local stand-in of the hub.
//!
//! The stand-in serves `/<repo>/resolve/main/<file>` from a directory, as the hub does; the real
//! download, atomic install and model loading run against it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use embedd::model::ModelSource;
use embedd::runtime::RuntimeOptions;
use embedd::{LocalEmbedder, LocalOptions, TextKind, registry};

use crate::minilm::cache_dir;

struct Hub {
    root: PathBuf,
    requests: AtomicUsize,
}

async fn file(State(hub): State<Arc<Hub>>, Path(path): Path<String>) -> impl IntoResponse {
    hub.requests.fetch_add(1, Ordering::SeqCst);
    match std::fs::read(hub.root.join(&path)) {
        Ok(bytes) => (StatusCode::OK, bytes).into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "Entry not found").into_response(),
    }
}

/// Serves `root` in the hub's layout; returns its address.
async fn serve_hub(root: PathBuf) -> (SocketAddr, Arc<Hub>) {
    let hub = Arc::new(Hub {
        root,
        requests: AtomicUsize::new(0),
    });
    let app = axum::Router::new()
        .route("/{*path}", axum::routing::get(file))
        .with_state(hub.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, hub)
}

fn source(models_dir: PathBuf, endpoint: String) -> ModelSource {
    ModelSource {
        models_dir,
        hub_endpoint: endpoint,
        allow_download: true,
        runtime: RuntimeOptions {
            explicit: std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from),
            cache_dir: Some(cache_dir()),
        },
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_model_is_downloaded_from_the_hub_layout_and_loads() {
    downloads_from_the_hub_layout_and_loads("minilm").await;
}

/// The multilingual model's repository and file names, through the same download as the others
/// (its files are our offline build, served as the hub would serve intfloat's).
#[tokio::test(flavor = "multi_thread")]
async fn multilingual_e5_small_is_downloaded_by_name_and_loads() {
    downloads_from_the_hub_layout_and_loads("multilingual-e5-small").await;
}

/// Serves the installed `name` in the hub's layout under its registry repository and file names,
/// and starts it from an empty model cache.
async fn downloads_from_the_hub_layout_and_loads(name: &str) {
    let spec = registry::find(name).unwrap();
    let installed = cache_dir().join("models").join(name);
    let hub_dir = tempfile::tempdir().unwrap();
    let repo = hub_dir.path().join(spec.hf_repo).join("resolve/main");
    std::fs::create_dir_all(repo.join("onnx")).unwrap();
    std::fs::copy(installed.join("model.onnx"), repo.join(spec.hf_onnx_file))
        .unwrap_or_else(|e| panic!("{e}: run scripts/install-model.sh {name} first"));
    std::fs::copy(installed.join("tokenizer.json"), repo.join("tokenizer.json")).unwrap();
    let (addr, hub) = serve_hub(hub_dir.path().to_path_buf()).await;

    let models = tempfile::tempdir().unwrap();
    let source = source(models.path().to_path_buf(), format!("http://{addr}"));
    let embedder = tokio::task::spawn_blocking(move || LocalEmbedder::start(spec, &source, &LocalOptions::default()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(hub.requests.load(Ordering::SeqCst), 2, "model.onnx and tokenizer.json");
    assert!(models.path().join(name).join("model.onnx").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(models.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != name)
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let v = embedder
        .embed(vec!["How do I restore a backup?".into()], TextKind::Query)
        .await
        .unwrap();
    assert_eq!(v[0].len(), spec.dim);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_the_hub_does_not_have_fails_clearly_and_leaves_nothing() {
    let hub_dir = tempfile::tempdir().unwrap();
    let (addr, _hub) = serve_hub(hub_dir.path().to_path_buf()).await;
    let models = tempfile::tempdir().unwrap();
    let source = source(models.path().to_path_buf(), format!("http://{addr}"));
    let spec = registry::find("bge-small").unwrap();
    let err = tokio::task::spawn_blocking(move || LocalEmbedder::start(spec, &source, &LocalOptions::default()))
        .await
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(err.contains("bge-small") && err.contains("404"), "{err}");
    assert_eq!(
        std::fs::read_dir(models.path()).unwrap().count(),
        0,
        "no partial download left"
    );
}
