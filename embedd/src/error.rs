//! Errors of the embedding layer, and what each means to a caller ([`Class`]): the one table the
//! transports map from, so gRPC and HTTP always answer the same failure the same way.

use std::path::PathBuf;

/// Everything that can go wrong between a text and its vector. `Clone`: one batch's failure is
/// every request's in it, as it is.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    /// The ONNX Runtime shared library could not be found or loaded.
    #[error("{0}")]
    Runtime(String),
    /// The model name is not one of the known models and is not a model directory.
    #[error("unknown model {name:?}: use one of {known}, or a directory holding model.onnx and tokenizer.json")]
    UnknownModel { name: String, known: String },
    /// The model files are not in the cache and could not be downloaded.
    #[error("model {name} is not in {dir} and could not be downloaded: {reason}")]
    Unavailable { name: String, dir: PathBuf, reason: String },
    /// The model files exist but could not be loaded.
    #[error("cannot load model {name}: {reason}")]
    Load { name: String, reason: String },
    /// Tokenizing or running a batch failed.
    #[error("embedding failed: {0}")]
    Inference(String),
    /// The worker thread is gone (it panicked or was shut down).
    #[error("the embedding worker stopped")]
    WorkerGone,
    /// The requested execution provider could not run the model.
    #[error("execution provider {provider} is not usable: {reason}")]
    Provider { provider: String, reason: String },
    /// The lane's queue is full: the caller should retry later (or slow down).
    #[error("the {lane} queue is full ({queued} of {capacity} tokens queued, {asked} more asked); retry later")]
    Overloaded {
        lane: &'static str,
        queued: usize,
        capacity: usize,
        asked: usize,
    },
    /// The request itself is malformed.
    #[error("invalid request: {0}")]
    InvalidInput(String),
}

/// What a failure means to a caller, whatever the transport. Each transport maps a class to one
/// code, the pairs of the gRPC-to-HTTP mapping (google.rpc.Code): `Busy` is 429 and
/// `RESOURCE_EXHAUSTED`, `BadRequest` 400 and `INVALID_ARGUMENT`, `CannotServe` 503 and
/// `UNAVAILABLE`, `Failed` 500 and `INTERNAL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The queue is full: retry later, or slow down.
    Busy,
    /// The request itself is wrong: retrying it will not help.
    BadRequest,
    /// This server cannot embed now: its model, runtime or provider cannot be loaded, or its
    /// worker stopped. Not the caller's fault; another worker may serve the same request, which
    /// is what a pool (ragdownd's `RAGDOWN_EMBEDD_URL`) does on `UNAVAILABLE` and 503.
    CannotServe,
    /// Running this request failed.
    Failed,
}

impl EmbedError {
    pub(crate) fn inference(err: impl std::fmt::Display) -> Self {
        Self::Inference(err.to_string())
    }

    /// What this failure means to a caller (every variant named, so a new one must be classed).
    pub fn class(&self) -> Class {
        match self {
            Self::Overloaded { .. } => Class::Busy,
            Self::InvalidInput(_) => Class::BadRequest,
            Self::WorkerGone
            | Self::Runtime(_)
            | Self::UnknownModel { .. }
            | Self::Unavailable { .. }
            | Self::Load { .. }
            | Self::Provider { .. } => Class::CannotServe,
            Self::Inference(_) => Class::Failed,
        }
    }
}
