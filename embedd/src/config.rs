//! The server's configuration: flags with environment fallbacks, parsed once and validated.
//!
//! Nothing else in the crate reads the environment; `main` passes `HOME` and `XDG_CACHE_HOME` in.
//! Models and the ONNX Runtime library are found the way ragdownd finds them (`RAGDOWN_MODELS`,
//! `RAGDOWN_CACHE`, `ORT_DYLIB_PATH`), through [`crate::model`] and [`crate::runtime`].

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

use crate::batch::BatchLimits;
use crate::local::{DEFAULT_REST_AFTER_IDLE, LocalEmbedder, LocalOptions, default_threads, rest_after_secs};
use crate::model::{self, ModelSource};
use crate::provider::Provider;
use crate::registry::{self, ModelSpec};
use crate::runtime::{self, RuntimeOptions};
use crate::{EmbedError, hub};

/// embedd: an embedding server (gRPC and an OpenAI-compatible HTTP API) over ONNX Runtime.
#[derive(Debug, Clone, Parser)]
#[command(name = "embedd", version, about)]
pub struct Cli {
    /// Without a command, serve.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The model: a known name (granite-small, bge-small, embeddinggemma, minilm, minilm-fp32,
    /// multilingual-e5-small) or a directory
    /// holding model.onnx and tokenizer.json (and embedd.json unless named after a known model).
    #[arg(long, env = "EMBEDD_MODEL", default_value = registry::DEFAULT_MODEL)]
    pub model: String,
    /// Execution provider: auto (GPU providers first, then CPU), cuda, coreml, directml or cpu.
    #[arg(long, env = "EMBEDD_PROVIDER", default_value = "auto")]
    pub provider: Provider,
    /// ONNX Runtime intra-op threads [default: every core].
    #[arg(long, env = "EMBEDD_THREADS")]
    pub threads: Option<usize>,
    /// Sessions that run batches side by side, sharing the threads [default: one per thread,
    /// at most two; GPU providers one].
    #[arg(long, env = "EMBEDD_SESSIONS")]
    pub sessions: Option<usize>,
    /// Most padded tokens (rows x width) in one batch.
    #[arg(long, env = "EMBEDD_MAX_BATCH_TOKENS", default_value_t = BatchLimits::default().max_batch_tokens)]
    pub max_batch_tokens: usize,
    /// Most texts in one batch.
    #[arg(long, env = "EMBEDD_MAX_BATCH_SIZE", default_value_t = BatchLimits::default().max_batch_size)]
    pub max_batch_size: usize,
    /// Most tokens one lane queues; beyond it requests get RESOURCE_EXHAUSTED (HTTP 429).
    #[arg(long, env = "EMBEDD_MAX_QUEUE_TOKENS", default_value_t = LocalOptions::default().max_queue_tokens)]
    pub max_queue_tokens: usize,
    /// Serve the interactive lane from the main session only, instead of a second one-thread
    /// session of its own (which keeps queries from waiting behind bulk batches).
    #[arg(long, env = "EMBEDD_NO_INTERACTIVE_SESSION")]
    pub no_interactive_session: bool,
    /// Seconds without bulk work after which the bulk sessions give their memory back (made
    /// again, in about 0.3 s on a CPU, by the next bulk batch); 0 keeps them. GPU sessions never
    /// rest.
    #[arg(long, env = "EMBEDD_REST_AFTER_SECS", default_value_t = DEFAULT_REST_AFTER_IDLE.as_secs())]
    pub rest_after_secs: u64,
    /// The gRPC address.
    #[arg(long, env = "EMBEDD_GRPC_ADDR", default_value = "127.0.0.1:50051")]
    pub grpc_addr: SocketAddr,
    /// The HTTP address (OpenAI-compatible /v1/embeddings, /metrics, /health).
    #[arg(long, env = "EMBEDD_HTTP_ADDR", default_value = "127.0.0.1:8080")]
    pub http_addr: SocketAddr,
    /// A bearer token every gRPC and HTTP request must carry (except /health).
    #[arg(long, env = "EMBEDD_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The model cache [default: <cache>/models].
    #[arg(long, env = "RAGDOWN_MODELS")]
    pub models: Option<PathBuf>,
    /// The ONNX Runtime library (full file name) [default: the ragdown cache, then the system].
    #[arg(long, env = "ORT_DYLIB_PATH")]
    pub ort_library: Option<PathBuf>,
    /// The Hugging Face hub (or a mirror) a missing known model is downloaded from.
    #[arg(long, env = "HF_ENDPOINT", default_value = hub::DEFAULT_ENDPOINT)]
    pub hub_endpoint: String,
    /// Never download a missing model.
    #[arg(long, env = "EMBEDD_OFFLINE")]
    pub offline: bool,
    /// The ragdown cache directory [default: $XDG_CACHE_HOME/ragdown or ~/.cache/ragdown].
    #[arg(long, env = "RAGDOWN_CACHE")]
    pub cache_dir: Option<PathBuf>,
    /// Log filter (tracing's EnvFilter syntax).
    #[arg(long, env = "EMBEDD_LOG", default_value = "info")]
    pub log: String,
}

/// What to run besides serving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Subcommand)]
pub enum Command {
    /// Ask the embedd listening on EMBEDD_HTTP_ADDR whether it answers /health (the Docker
    /// HEALTHCHECK); exit 0 when it does.
    Health,
}

/// A configuration problem, reported before anything starts.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("EMBEDD_THREADS and EMBEDD_SESSIONS must be at least 1")]
    Threads,
    #[error("EMBEDD_MAX_BATCH_TOKENS and EMBEDD_MAX_BATCH_SIZE must be at least 1")]
    Batch,
    #[error("cannot find the home directory; set RAGDOWN_CACHE or XDG_CACHE_HOME")]
    NoHome,
    #[error(transparent)]
    Model(#[from] EmbedError),
}

/// Which model to serve.
#[derive(Debug, Clone)]
pub enum ModelChoice {
    /// A known model, from the cache (downloaded when missing and allowed).
    Known(&'static ModelSpec),
    /// A model directory given by path.
    Dir {
        /// The model its `embedd.json`, or its name, says it holds.
        spec: &'static ModelSpec,
        /// The directory, holding model.onnx and tokenizer.json.
        dir: PathBuf,
    },
}

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The model to serve: a known one or a model directory.
    pub model: ModelChoice,
    /// Where models and the ONNX Runtime library are found, and whether a missing known model
    /// may be downloaded.
    pub source: ModelSource,
    /// How the scheduler runs the model: provider, threads, sessions, batch and queue limits.
    pub local: LocalOptions,
    /// The address gRPC listens on.
    pub grpc_addr: SocketAddr,
    /// The address HTTP listens on.
    pub http_addr: SocketAddr,
    /// The bearer token every request but `/health` must carry; `None` (unset or blank) serves
    /// without one.
    pub token: Option<String>,
    /// The log filter (tracing's EnvFilter syntax).
    pub log: String,
}

impl Config {
    /// Validates parsed flags. `home` and `xdg_cache` come from the environment via `main`.
    pub fn from_cli(cli: Cli, home: Option<PathBuf>, xdg_cache: Option<PathBuf>) -> Result<Self, ConfigError> {
        if cli.threads == Some(0) || cli.sessions == Some(0) {
            return Err(ConfigError::Threads);
        }
        if cli.max_batch_tokens == 0 || cli.max_batch_size == 0 {
            return Err(ConfigError::Batch);
        }
        let cache_dir = runtime::default_cache_dir(cli.cache_dir, xdg_cache, home).ok_or(ConfigError::NoHome)?;
        let name = cli.model.trim();
        let as_dir = PathBuf::from(name);
        let model = if let Some(spec) = registry::find(name) {
            ModelChoice::Known(spec)
        } else if as_dir.is_dir() {
            ModelChoice::Dir {
                spec: model::spec_for_dir(&as_dir)?,
                dir: as_dir,
            }
        } else {
            return Err(EmbedError::UnknownModel {
                name: name.into(),
                known: registry::known_names(),
            }
            .into());
        };
        Ok(Self {
            model,
            source: ModelSource {
                models_dir: cli.models.unwrap_or_else(|| cache_dir.join("models")),
                hub_endpoint: cli.hub_endpoint,
                allow_download: !cli.offline,
                runtime: RuntimeOptions {
                    explicit: cli.ort_library,
                    cache_dir: Some(cache_dir),
                },
            },
            local: LocalOptions {
                threads: cli.threads.unwrap_or_else(default_threads),
                sessions: cli.sessions.unwrap_or(0),
                limits: BatchLimits {
                    max_batch_tokens: cli.max_batch_tokens,
                    max_batch_size: cli.max_batch_size,
                },
                provider: cli.provider,
                bucketing: None,
                max_queue_tokens: cli.max_queue_tokens,
                start_paused: false,
                interactive_session: !cli.no_interactive_session,
                rest_after_idle: rest_after_secs(cli.rest_after_secs),
            },
            grpc_addr: cli.grpc_addr,
            http_addr: cli.http_addr,
            token: cli.token.filter(|t| !t.trim().is_empty()),
            log: cli.log,
        })
    }

    /// Loads the model on the chosen provider and starts the scheduler. Blocking.
    pub fn start_embedder(&self) -> Result<LocalEmbedder, EmbedError> {
        match &self.model {
            ModelChoice::Known(spec) => LocalEmbedder::start(spec, &self.source, &self.local),
            ModelChoice::Dir { spec, dir } => {
                LocalEmbedder::start_from_dir(spec, dir, &self.source.runtime, &self.local)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn parse(args: &[&str]) -> Result<Config, ConfigError> {
        let cli = Cli::try_parse_from(std::iter::once("embedd").chain(args.iter().copied())).unwrap();
        Config::from_cli(cli, Some(PathBuf::from("/h")), None)
    }

    #[test]
    fn flags_become_a_validated_config() {
        let config = parse(&[
            "--model",
            "minilm",
            "--provider",
            "cpu",
            "--threads",
            "3",
            "--max-batch-tokens",
            "256",
            "--grpc-addr",
            "127.0.0.1:0",
        ])
        .unwrap();
        assert!(matches!(config.model, ModelChoice::Known(spec) if spec.name == "minilm"));
        assert_eq!(config.local.provider, Provider::Cpu);
        assert_eq!(config.local.threads, 3);
        assert_eq!(config.local.sessions, 0, "auto unless asked");
        assert_eq!(config.local.limits.max_batch_tokens, 256);
        assert_eq!(config.source.models_dir, PathBuf::from("/h/.cache/ragdown/models"));
        assert_eq!(config.http_addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(config.local.rest_after_idle, Some(Duration::from_secs(60)));
        let keep = parse(&["--rest-after-secs", "0"]).unwrap();
        assert_eq!(keep.local.rest_after_idle, None, "0 keeps the bulk sessions");
        let soon = parse(&["--rest-after-secs", "5"]).unwrap();
        assert_eq!(soon.local.rest_after_idle, Some(Duration::from_secs(5)));
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        assert!(matches!(parse(&["--threads", "0"]), Err(ConfigError::Threads)));
        assert!(matches!(parse(&["--sessions", "0"]), Err(ConfigError::Threads)));
        let unknown = parse(&["--model", "nope"]).unwrap_err().to_string();
        assert!(unknown.contains("nope") && unknown.contains("minilm"), "{unknown}");
        assert!(Cli::try_parse_from(["embedd", "--provider", "tpu"]).is_err());
    }

    #[test]
    fn a_directory_model_needs_a_description_or_a_known_name() {
        let dir = tempfile::tempdir().unwrap();
        let custom = dir.path().join("my-model");
        std::fs::create_dir_all(&custom).unwrap();
        std::fs::write(custom.join("model.onnx"), b"x").unwrap();
        std::fs::write(custom.join("tokenizer.json"), b"{}").unwrap();
        let path = custom.to_str().unwrap();
        let err = parse(&["--model", path]).unwrap_err().to_string();
        assert!(err.contains("embedd.json"), "{err}");
        std::fs::write(
            custom.join("embedd.json"),
            r#"{"name": "my-model-fp32", "pooling": "mean", "dim": 384, "max_tokens": 256}"#,
        )
        .unwrap();
        let config = parse(&["--model", path]).unwrap();
        let ModelChoice::Dir { spec, .. } = config.model else {
            panic!("not a directory model")
        };
        assert_eq!(
            (spec.name, spec.dim, spec.pooling),
            ("my-model-fp32", 384, registry::Pooling::Mean)
        );
    }
}
