//! embedd: turns text into unit-length vectors with ONNX Runtime.
//!
//! The crate is both the in-process CPU embedder that `ragdownd` uses on a laptop and the core of
//! the `embedd` server. It owns everything that touches a model:
//!
//! - [`registry`]: the known models (pooling, prefixes, max length, dim, score floors).
//! - [`runtime`]: finding and loading the ONNX Runtime shared library, once per process.
//! - [`hub`]: fetching model files from the Hugging Face hub into the model cache.
//! - [`model`]: one loaded model: tokenizer, session, pooling and normalisation.
//! - [`batch`]: the pure policy that groups tokenized texts into length-bucketed batches.
//! - [`local`]: a worker thread that owns the session behind a cloneable async handle.
//!
//! It never reads the environment: callers pass a [`model::ModelSource`] and [`local::LocalOptions`].

pub mod batch;
pub mod error;
pub mod hub;
pub mod local;
pub mod model;
pub mod registry;
pub mod runtime;

pub use error::EmbedError;
pub use local::{LocalEmbedder, LocalOptions};
pub use model::{Fingerprint, ModelSource, TextKind};
pub use registry::{ModelSpec, Pooling};
