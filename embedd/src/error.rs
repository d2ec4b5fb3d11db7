//! Errors of the embedding layer. Transports map these once to their wire format.

use std::path::PathBuf;

/// Everything that can go wrong between a text and its vector.
#[derive(Debug, thiserror::Error)]
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

impl EmbedError {
    pub(crate) fn inference(err: impl std::fmt::Display) -> Self {
        Self::Inference(err.to_string())
    }
}
