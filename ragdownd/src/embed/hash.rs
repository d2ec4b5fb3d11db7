//! The `hash` embedder: deterministic vectors without a model, for tests.
//!
//! Each `[\p{L}\p{N}_]+` token of the lowercased text adds ±1 at a bucket chosen by its SHA-1.
//! The vectors are mcp-ragdown's `hash` embedder's bit for bit, so the golden tool outputs the
//! tests compare against (`tests/it/stdio.rs`), recorded with it, hold here.

use std::sync::LazyLock;

use embedd::TextKind;
use futures::future::BoxFuture;
use regex::Regex;
use sha1::{Digest, Sha1};

use super::{EmbedError, Embedder};

/// The hash embedder's dimension.
pub const DIM: usize = 384;

static TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\p{L}\p{N}_]+").expect("valid regex"));

/// Texts hashed on the calling task; larger batches go to a blocking thread.
const INLINE_TEXTS: usize = 8;

/// Deterministic bag-of-words vectors.
#[derive(Debug, Default, Clone)]
pub struct HashEmbedder;

/// The vector of one text.
pub fn hash_vector(text: &str) -> Vec<f32> {
    let mut vector = vec![0f32; DIM];
    let lower = text.to_lowercase();
    for token in TOKEN.find_iter(&lower) {
        let digest = Sha1::digest(token.as_str().as_bytes());
        let bucket = u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]) as usize % DIM;
        vector[bucket] += if digest[4] & 1 == 1 { 1.0 } else { -1.0 };
    }
    embedd::model::normalize(vector)
}

impl Embedder for HashEmbedder {
    fn index_name(&self) -> &str {
        "hash-384"
    }

    fn fingerprint(&self) -> String {
        "hash-384".into()
    }

    fn dim(&self) -> usize {
        DIM
    }

    fn min_score(&self) -> f32 {
        embedd::registry::DEFAULT_MIN_SCORE
    }

    fn unrelated_score(&self) -> Option<f32> {
        None
    }

    fn embed<'a>(&'a self, texts: Vec<String>, _kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(async move {
            if texts.len() <= INLINE_TEXTS {
                return Ok(texts.iter().map(|t| hash_vector(t)).collect());
            }
            // A sync's batch is milliseconds of hashing: off the async threads, so the write the
            // sync spawned before it runs meanwhile (inline, it waited: 1 s of a 105,000-chunk
            // first index, 2026-12-02).
            tokio::task::spawn_blocking(move || texts.iter().map(|t| hash_vector(t)).collect())
                .await
                .map_err(|_| EmbedError::WorkerGone)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_same_vector_and_unit_length() {
        let a = hash_vector("Run pg_restore twice");
        assert_eq!(a, hash_vector("run PG_RESTORE twice!"));
        let norm: f32 = a.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-6);
    }

    #[test]
    fn one_token_sets_one_bucket_chosen_by_sha1() {
        // sha1("hello") = aaf4c61d dcc5e8a2 ...: bytes 0..4 little-endian = 0x1dc6f4aa, byte 4 = 0xdc (even).
        let v = hash_vector("hello");
        let bucket = 0x1dc6_f4aa_usize % DIM;
        assert_eq!(v[bucket], -1.0);
        assert_eq!(v.iter().filter(|x| **x != 0.0).count(), 1);
    }

    #[test]
    fn empty_text_is_the_zero_vector() {
        assert!(hash_vector("  — ").iter().all(|v| *v == 0.0));
    }
}
