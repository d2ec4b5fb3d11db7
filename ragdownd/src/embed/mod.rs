//! Embedders behind one trait: the in-process CPU model (the `embedd` library), `embedd` workers
//! over gRPC ([`remote`]), an OpenAI-compatible endpoint ([`openai`]) and `hash`.
//!
//! Everything above this module sees an [`Embedder`]: a name recorded in the index, a dimension,
//! the hook's score floor, and `embed`. Choosing one from the configuration lives in [`select`].

pub mod hash;
pub mod openai;
pub mod remote;
pub mod select;

use std::sync::Arc;

use embedd::{LocalEmbedder, TextKind};
use futures::future::BoxFuture;

pub use embedd::EmbedError;

/// Turns texts into unit-length vectors.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// The name recorded in `meta.json`, e.g. `hash-384` or `all-MiniLM-L6-v2-q8`.
    fn index_name(&self) -> &str;
    /// Everything that makes two embedders' vectors comparable; a change rebuilds the index.
    fn fingerprint(&self) -> String;
    /// The vector dimension.
    fn dim(&self) -> usize;
    /// The hook's cosine floor for this embedder (its measured MIN_SCORE, or 0.8 unmeasured).
    fn min_score(&self) -> f32;
    /// The strongest score an unrelated prompt reached, when measured.
    fn unrelated_score(&self) -> Option<f32>;
    /// Whether the model reads languages beyond English (`multilingual-e5-small` does, `minilm`
    /// does not); `None` when that is not known (the hash embedder, an OpenAI-compatible one).
    fn multilingual(&self) -> Option<bool> {
        None
    }
    /// How much of a section's heading path's embedding its stored vector adds to its text's
    /// ([`crate::index::vectors`]): the model's measured weight; `None` for the text's alone.
    fn heading_weight(&self) -> Option<f32> {
        None
    }
    /// The hook's ratio gate for this embedder (its measured MIN_RATIO, or 0.95 unmeasured).
    fn min_ratio(&self) -> f32 {
        embedd::registry::DEFAULT_MIN_RATIO
    }
    /// One vector per text, in order.
    fn embed<'a>(&'a self, texts: Vec<String>, kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>>;
    /// Bulk work is done for now: an embedder that holds memory for it may give it back, to take
    /// it again with the next documents. The in-process model drops its bulk sessions
    /// ([`LocalEmbedder::rest`]); the others hold nothing of the kind.
    fn rest(&self) {}
}

/// The index's record of a model's fingerprint: the same for the in-process model and for `embedd`
/// workers serving the same file, so moving between them keeps the index.
pub fn fingerprint_key(f: &embedd::Fingerprint) -> String {
    format!(
        "{}@{}:{}",
        f.index_name,
        f.dim,
        &f.weights_sha256[..f.weights_sha256.len().min(16)]
    )
}

/// A shared embedder.
pub type SharedEmbedder = Arc<dyn Embedder>;

impl Embedder for LocalEmbedder {
    fn index_name(&self) -> &str {
        &self.fingerprint().index_name
    }

    fn fingerprint(&self) -> String {
        fingerprint_key(LocalEmbedder::fingerprint(self))
    }

    fn dim(&self) -> usize {
        self.fingerprint().dim
    }

    fn min_score(&self) -> f32 {
        self.spec().min_score.unwrap_or(embedd::registry::DEFAULT_MIN_SCORE)
    }

    fn unrelated_score(&self) -> Option<f32> {
        self.spec().unrelated_score
    }

    fn multilingual(&self) -> Option<bool> {
        Some(self.spec().multilingual)
    }

    fn min_ratio(&self) -> f32 {
        self.spec().min_ratio.unwrap_or(embedd::registry::DEFAULT_MIN_RATIO)
    }

    fn heading_weight(&self) -> Option<f32> {
        self.spec().heading_weight
    }

    fn embed<'a>(&'a self, texts: Vec<String>, kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(LocalEmbedder::embed(self, texts, kind))
    }

    fn rest(&self) {
        LocalEmbedder::rest(self);
    }
}
