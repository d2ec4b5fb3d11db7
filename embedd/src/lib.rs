//! embedd: turns text into unit-length vectors with ONNX Runtime.
//!
//! The crate is both the in-process CPU embedder that `ragdownd` uses on a laptop and the core of
//! the `embedd` server. It owns everything that touches a model:
//!
//! - [`registry`]: the known models (pooling, prefixes, max length, dim, score floors).
//! - [`runtime`]: finding and loading the ONNX Runtime shared library, once per process.
//! - [`hub`]: fetching model files from the Hugging Face hub into the model cache.
//! - [`model`]: one loaded model: tokenizer, session, pooling and normalisation.
//! - [`provider`]: execution providers (CUDA, CoreML, DirectML, CPU) and `auto`.
//! - [`batch`]: the pure policy: which lane goes next, which texts form its next batch.
//! - [`local`]: the scheduler: queues per lane, a worker thread that owns the session, behind a
//!   cloneable async handle. ragdownd uses it in-process; the server's transports share it.
//! - [`metrics`]: Prometheus families the scheduler records.
//! - The server: [`config`] (flags and environment, parsed once), [`grpc`] and [`http`] (thin
//!   transports), [`auth`] (the bearer token both check), [`server`]
//!   (`serve(embedder, settings, listeners, shutdown)`), [`health`] (the probe behind `embedd health`
//!   and `ragdownd health`, the Docker images' HEALTHCHECK).
//!
//! Only [`config`] reads the environment: the library takes a [`model::ModelSource`] and
//! [`local::LocalOptions`].

pub mod auth;
pub mod batch;
pub mod config;
pub mod error;
pub mod grpc;
pub mod health;
pub mod http;
pub mod hub;
pub mod local;
pub mod metrics;
pub mod model;
mod pooling;
pub mod provider;
pub mod registry;
pub mod runtime;
pub mod server;
mod weights;

pub use batch::Lane;
pub use error::EmbedError;
pub use local::{LocalEmbedder, LocalOptions};
pub use model::{Fingerprint, ModelSource, TextKind};
pub use provider::Provider;
pub use registry::{ModelSpec, Pooling};
