//! One loaded model: its tokenizer, its ONNX session, pooling and L2 normalisation.
//!
//! A [`Model`] is not shared between threads: `Session::run` needs `&mut self`, so the worker
//! that owns it is the only caller (see [`crate::local`]). Its [`Encoder`] (the tokenizer) is
//! cloneable and thread-safe, so callers tokenize on their own threads.

use std::path::{Path, PathBuf};

use ort::session::Session;
use ort::session::builder::SessionBuilder;
use ort::value::Tensor;
use prost::bytes::Bytes;
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationParams};

use crate::EmbedError;
use crate::hub::{ONNX_FILE, TOKENIZER_FILE};
pub use crate::pooling::normalize;
use crate::pooling::pool;
use crate::provider::Provider;
use crate::registry::{self, ModelSpec, Pooling};
use crate::runtime::{self, RuntimeOptions};
use crate::weights::SharedWeights;

/// Whether a text is a search query or a document passage (models with prefixes treat them
/// differently).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    Query,
    Document,
}

/// Where models come from.
#[derive(Debug, Clone)]
pub struct ModelSource {
    /// The model cache: one directory per model name, holding `model.onnx` and `tokenizer.json`.
    pub models_dir: PathBuf,
    /// The Hugging Face hub (or a mirror) to download missing models from.
    pub hub_endpoint: String,
    /// Whether a missing model may be downloaded.
    pub allow_download: bool,
    /// Where the ONNX Runtime library is looked for.
    pub runtime: RuntimeOptions,
}

/// What identifies the vectors a model makes: two embedders with equal fingerprints give the same
/// vectors for the same text, so they may share one index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint {
    /// The model's short name.
    pub name: String,
    /// The name the index records (see [`ModelSpec::index_name`]).
    pub index_name: String,
    /// The vector dimension.
    pub dim: usize,
    /// How token vectors become one text vector: `cls` or `mean`.
    pub pooling: String,
    /// Prepended to queries before tokenizing.
    pub query_prefix: String,
    /// Prepended to documents before tokenizing.
    pub document_prefix: String,
    /// Texts are truncated to this many tokens (special tokens included).
    pub max_tokens: usize,
    /// SHA-256 of the ONNX weights file.
    pub weights_sha256: String,
}

impl Fingerprint {
    /// The fingerprint of `spec`'s model with weights whose SHA-256 is `weights_sha256`.
    fn of(spec: &ModelSpec, weights_sha256: String) -> Self {
        Self {
            name: spec.name.into(),
            index_name: spec.index_name.into(),
            dim: spec.dim,
            pooling: spec.pooling.as_str().into(),
            query_prefix: spec.query_prefix.into(),
            document_prefix: spec.document_prefix.into(),
            max_tokens: spec.max_tokens,
            weights_sha256,
        }
    }
}

/// The directory a known model lives in, downloading it first when allowed and missing.
pub fn resolve(spec: &ModelSpec, source: &ModelSource) -> Result<PathBuf, EmbedError> {
    let dir = source.models_dir.join(spec.name);
    if is_complete(&dir) {
        return Ok(dir);
    }
    if !source.allow_download {
        return Err(EmbedError::Unavailable {
            name: spec.name.into(),
            dir: dir.clone(),
            reason: "downloads are off".into(),
        });
    }
    if dir.exists() {
        // An incomplete directory from an older, non-atomic copy: replace it.
        std::fs::remove_dir_all(&dir).map_err(|e| EmbedError::Unavailable {
            name: spec.name.into(),
            dir: dir.clone(),
            reason: format!("cannot remove the incomplete copy: {e}"),
        })?;
    }
    crate::hub::download(&source.hub_endpoint, spec, &dir).map_err(|err| EmbedError::Unavailable {
        name: spec.name.into(),
        dir: dir.clone(),
        reason: err.to_string(),
    })?;
    Ok(dir)
}

/// Known models whose files are already in the cache, in registry order.
pub fn cached(models_dir: &Path) -> Vec<&'static ModelSpec> {
    registry::KNOWN_MODELS
        .iter()
        .filter(|spec| is_complete(&models_dir.join(spec.name)))
        .collect()
}

fn is_complete(dir: &Path) -> bool {
    dir.join(ONNX_FILE).is_file() && dir.join(TOKENIZER_FILE).is_file()
}

/// The file in a model directory that describes a model the registry does not know.
pub const DESCRIPTION_FILE: &str = "embedd.json";

/// What `embedd.json` says about a model directory the registry does not know.
#[derive(Debug, serde::Deserialize)]
struct Description {
    name: String,
    pooling: String,
    dim: usize,
    max_tokens: usize,
    #[serde(default)]
    query_prefix: String,
    #[serde(default)]
    document_prefix: String,
    /// Whether the model handles languages beyond English; assumed not when unsaid.
    #[serde(default)]
    multilingual: bool,
}

/// The spec of a model given as a directory: its `embedd.json` when present, else the known
/// model the directory is named after (`.../models/minilm`).
///
/// A description is leaked into a `&'static ModelSpec`: a process loads one model, once.
pub fn spec_for_dir(dir: &Path) -> Result<&'static ModelSpec, EmbedError> {
    let load_err = |reason: String| EmbedError::Load {
        name: dir.display().to_string(),
        reason,
    };
    if !is_complete(dir) {
        return Err(load_err(format!(
            "the directory must hold {ONNX_FILE} and {TOKENIZER_FILE}"
        )));
    }
    let description = dir.join(DESCRIPTION_FILE);
    if description.is_file() {
        let text =
            std::fs::read_to_string(&description).map_err(|e| load_err(format!("{}: {e}", description.display())))?;
        let d: Description =
            serde_json::from_str(&text).map_err(|e| load_err(format!("{}: {e}", description.display())))?;
        let pooling = match d.pooling.as_str() {
            "mean" => Pooling::Mean,
            "cls" => Pooling::Cls,
            other => {
                return Err(load_err(format!(
                    "{}: pooling {other:?} is not mean or cls",
                    description.display()
                )));
            }
        };
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let name = leak(d.name);
        return Ok(Box::leak(Box::new(ModelSpec {
            name,
            index_name: name,
            hf_repo: "",
            hf_onnx_file: "",
            pooling,
            query_prefix: leak(d.query_prefix),
            document_prefix: leak(d.document_prefix),
            max_tokens: d.max_tokens,
            dim: d.dim,
            multilingual: d.multilingual,
            min_score: None,
            unrelated_score: None,
            min_ratio: None,
            heading_weight: None,
        })));
    }
    let named = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    registry::find(named).ok_or_else(|| {
        load_err(format!(
            "{DESCRIPTION_FILE} is missing and the directory is not named after a known model ({})",
            registry::known_names()
        ))
    })
}

/// A model's tokenizer with its prefixes and truncation: cheap to clone, safe to share.
#[derive(Clone)]
pub struct Encoder {
    spec: &'static ModelSpec,
    tokenizer: std::sync::Arc<Tokenizer>,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder").field("model", &self.spec.name).finish()
    }
}

impl Encoder {
    /// Loads `tokenizer.json` from a model directory, with padding off (batches are padded per
    /// bucket) and truncation at the model's limit.
    pub fn load(spec: &'static ModelSpec, dir: &Path) -> Result<Self, EmbedError> {
        let load_err = |reason: String| EmbedError::Load {
            name: spec.name.into(),
            reason,
        };
        let mut tokenizer = Tokenizer::from_file(dir.join(TOKENIZER_FILE))
            .map_err(|e| load_err(format!("{}: {e}", dir.join(TOKENIZER_FILE).display())))?;
        // Shipped tokenizer.json files pin padding and truncation (minilm: fixed 128); batches
        // are padded here, per bucket, and truncation follows the model's own limit.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: spec.max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|e| load_err(e.to_string()))?;
        Ok(Self {
            spec,
            tokenizer: std::sync::Arc::new(tokenizer),
        })
    }

    /// Token ids of `text`, prefixed for its kind and truncated to the model's limit.
    pub fn tokenize(&self, text: &str, kind: TextKind) -> Result<Vec<u32>, EmbedError> {
        let prefix = match kind {
            TextKind::Query => self.spec.query_prefix,
            TextKind::Document => self.spec.document_prefix,
        };
        let encoding = if prefix.is_empty() {
            self.tokenizer.encode(text, true)
        } else {
            self.tokenizer.encode(format!("{prefix}{text}"), true)
        }
        .map_err(EmbedError::inference)?;
        Ok(encoding.get_ids().to_vec())
    }
}

/// A model ready to embed, owned by one thread.
pub struct Model {
    spec: &'static ModelSpec,
    encoder: Encoder,
    session: Session,
    /// BERT-style models take `token_type_ids`; ModernBERT and Gemma do not.
    wants_token_types: bool,
    fingerprint: Fingerprint,
    /// On the CPU, the weights and what ONNX Runtime pre-packs of them for its kernels, shared by
    /// every session of this model ([`Model::maker`]), so another session holds no copy.
    shared: Option<SharedWeights>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model").field("fingerprint", &self.fingerprint).finish()
    }
}

/// The bytes of the model file in `dir`.
fn read_weights(spec: &ModelSpec, dir: &Path) -> Result<Bytes, EmbedError> {
    let onnx = dir.join(ONNX_FILE);
    std::fs::read(&onnx).map(Bytes::from).map_err(|e| EmbedError::Load {
        name: spec.name.into(),
        reason: format!("{}: {e}", onnx.display()),
    })
}

/// Makes sessions of a loaded model (see [`Model::maker`]). On the CPU it holds the shared
/// weights, so they stay in memory for the next session while it lives.
#[derive(Clone)]
pub struct SessionMaker {
    spec: &'static ModelSpec,
    dir: PathBuf,
    weights_sha256: String,
    encoder: Encoder,
    provider: Provider,
    runtime_options: RuntimeOptions,
    shared: Option<SharedWeights>,
}

impl SessionMaker {
    /// One session per entry of `threads`, with that many threads each, checked and warmed up.
    /// The model file is read once for all of them. Blocking.
    pub fn make(&self, threads: &[usize]) -> Result<Vec<Model>, EmbedError> {
        if threads.is_empty() {
            return Ok(Vec::new());
        }
        let weights = read_weights(self.spec, &self.dir)?;
        threads.iter().map(|&threads| self.session(&weights, threads)).collect()
    }

    /// A session of the model file's bytes `weights` with `threads` intra-op threads, checked and
    /// warmed up.
    fn session(&self, weights: &Bytes, threads: usize) -> Result<Model, EmbedError> {
        let (spec, provider) = (self.spec, self.provider);
        let failed = LoadFailure { spec, provider };
        let environment = runtime::ensure_loaded(&self.runtime_options)?;
        let mut builder = session_builder(environment, threads).map_err(|e| failed.model(e))?;
        provider.register(&mut builder).map_err(|e| failed.provider(e))?;
        let shared = self.weights_to_share(weights);
        if let Some(shared) = &shared {
            builder = shared.apply(builder).map_err(|e| failed.model(e))?;
        }
        let session = builder
            .commit_from_memory(weights)
            .map_err(|e| failed.on_this_provider(e))?;
        let wants_token_types = wants_token_types(&session, &failed)?;
        let mut model = Model {
            spec,
            encoder: self.encoder.clone(),
            session,
            wants_token_types,
            fingerprint: Fingerprint::of(spec, self.weights_sha256.clone()),
            shared,
        };
        model.warm_up(&failed)?;
        tracing::info!(model = spec.name, %provider, threads, "execution provider active (warm-up batch ran)");
        Ok(model)
    }

    /// On the CPU, the weights a new session shares: another session's, or for the first one
    /// those read from `weights`. Other providers copy the weights to their device anyway.
    fn weights_to_share(&self, weights: &Bytes) -> Option<SharedWeights> {
        (self.provider == Provider::Cpu).then(|| {
            self.shared.clone().unwrap_or_else(|| {
                let shared = SharedWeights::of_model(self.spec.name, weights.clone());
                tracing::debug!(
                    model = self.spec.name,
                    tensors = shared.len(),
                    "weights shared between sessions"
                );
                shared
            })
        })
    }
}

/// A session builder with `threads` intra-op threads (at least one) and one inter-op thread.
fn session_builder(environment: &ort::environment::Environment, threads: usize) -> ort::Result<SessionBuilder> {
    Ok(Session::builder(environment)?
        .with_intra_threads(threads.max(1))?
        .with_inter_threads(1)?)
}

/// Whether the graph takes `token_type_ids`, once it is known to take the inputs every model
/// needs (`input_ids`, `attention_mask`).
fn wants_token_types(session: &Session, failed: &LoadFailure) -> Result<bool, EmbedError> {
    let input_names: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
    for required in ["input_ids", "attention_mask"] {
        if !input_names.contains(&required) {
            return Err(failed.model(format!(
                "the ONNX graph has no {required} input (inputs: {input_names:?})"
            )));
        }
    }
    Ok(input_names.contains(&"token_type_ids"))
}

/// Who a failure to make a session is blamed on: the model ([`EmbedError::Load`]) or the
/// provider it was to run on ([`EmbedError::Provider`], with what that provider needs).
struct LoadFailure {
    spec: &'static ModelSpec,
    provider: Provider,
}

impl LoadFailure {
    /// The model could not be loaded.
    fn model(&self, reason: impl std::fmt::Display) -> EmbedError {
        EmbedError::Load {
            name: self.spec.name.into(),
            reason: reason.to_string(),
        }
    }

    /// The provider could not run the model; the reason gets the provider's hint appended.
    fn provider(&self, reason: impl std::fmt::Display) -> EmbedError {
        let hint = self.provider.hint();
        EmbedError::Provider {
            provider: self.provider.to_string(),
            reason: if hint.is_empty() {
                reason.to_string()
            } else {
                format!("{reason} ({hint})")
            },
        }
    }

    /// A failure that says nothing about whose fault it is: the model's on the CPU, which can
    /// run any model, the provider's on the others.
    fn on_this_provider(&self, reason: impl std::fmt::Display) -> EmbedError {
        if self.provider == Provider::Cpu {
            self.model(reason)
        } else {
            self.provider(reason)
        }
    }
}

impl Model {
    /// Loads a model's files from `dir` with `threads` intra-op threads, on the CPU.
    pub fn load(
        spec: &'static ModelSpec,
        dir: &Path,
        threads: usize,
        runtime_options: &RuntimeOptions,
    ) -> Result<Self, EmbedError> {
        Self::load_on(spec, dir, threads, Provider::Cpu, runtime_options)
    }

    /// Loads a model on `provider` (`auto` tries each in [`Provider::auto_order`] and falls back
    /// to CPU, saying why). Returns the model and the provider that really runs it.
    pub fn load_best(
        spec: &'static ModelSpec,
        dir: &Path,
        threads: usize,
        provider: Provider,
        runtime_options: &RuntimeOptions,
    ) -> Result<(Self, Provider), EmbedError> {
        if provider != Provider::Auto {
            return Ok((Self::load_on(spec, dir, threads, provider, runtime_options)?, provider));
        }
        let mut refused = Vec::new();
        for candidate in Provider::auto_order() {
            match Self::load_on(spec, dir, threads, candidate, runtime_options) {
                Ok(model) => {
                    if !refused.is_empty() {
                        tracing::warn!(
                            provider = %candidate,
                            "auto: falling back to {candidate}; not usable: {}",
                            refused.join("; ")
                        );
                    }
                    return Ok((model, candidate));
                }
                Err(err @ EmbedError::Provider { .. }) => refused.push(err.to_string()),
                Err(err) => return Err(err),
            }
        }
        Err(EmbedError::Provider {
            provider: "auto".into(),
            reason: refused.join("; "),
        })
    }

    /// Loads a model on one concrete provider. The provider counts only once a session was
    /// created on it and a warm-up batch ran; any failure on the way is a [`EmbedError::Provider`]
    /// with ONNX Runtime's reason.
    pub fn load_on(
        spec: &'static ModelSpec,
        dir: &Path,
        threads: usize,
        provider: Provider,
        runtime_options: &RuntimeOptions,
    ) -> Result<Self, EmbedError> {
        let weights = read_weights(spec, dir)?;
        let weights_sha256 = hex::encode(Sha256::digest(&weights));
        let encoder = Encoder::load(spec, dir)?;
        let first = SessionMaker {
            spec,
            dir: dir.to_path_buf(),
            weights_sha256,
            encoder,
            provider,
            runtime_options: runtime_options.clone(),
            shared: None,
        };
        first.session(&weights, threads)
    }

    /// What it takes to make more sessions of this model later, on any thread: they share this
    /// one's weights and tokenizer, and the model file is not hashed again.
    pub fn maker(&self, dir: &Path, provider: Provider, runtime_options: &RuntimeOptions) -> SessionMaker {
        SessionMaker {
            spec: self.spec,
            dir: dir.to_path_buf(),
            weights_sha256: self.fingerprint.weights_sha256.clone(),
            encoder: self.encoder.clone(),
            provider,
            runtime_options: runtime_options.clone(),
            shared: self.shared.clone(),
        }
    }

    /// Runs one batch, so a provider that cannot run the model fails here and not on the first
    /// request, and checks the vectors have the spec's dimension.
    fn warm_up(&mut self, failed: &LoadFailure) -> Result<(), EmbedError> {
        let warm_up = self.encoder.tokenize("warm-up", TextKind::Document)?;
        let vectors = self.run(&[&warm_up]).map_err(|e| {
            if failed.provider == Provider::Cpu {
                e
            } else {
                failed.provider(format!("the warm-up batch failed: {e}"))
            }
        })?;
        if vectors.first().map(Vec::len) != Some(self.spec.dim) {
            return Err(failed.model(format!(
                "the model gives vectors of {:?} dimensions, the spec says {}",
                vectors.first().map(Vec::len),
                self.spec.dim
            )));
        }
        Ok(())
    }

    /// How many weight tensors this session shares with the model's other sessions.
    pub fn shared_weights(&self) -> usize {
        self.shared.as_ref().map_or(0, SharedWeights::len)
    }

    pub fn spec(&self) -> &'static ModelSpec {
        self.spec
    }

    pub fn fingerprint(&self) -> &Fingerprint {
        &self.fingerprint
    }

    /// The model's tokenizer, to tokenize on other threads.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// Token ids of `text`, prefixed for its kind and truncated to the model's limit.
    pub fn tokenize(&self, text: &str, kind: TextKind) -> Result<Vec<u32>, EmbedError> {
        self.encoder.tokenize(text, kind)
    }

    /// Embeds one batch of tokenized texts, padded to the longest of them.
    pub fn run(&mut self, batch: &[&[u32]]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.run_padded(batch, 0)
    }

    /// Embeds one batch padded to `width` tokens, or to its longest text when that is longer
    /// (GPU providers pad to a bucket so they see few distinct shapes).
    pub fn run_padded(&mut self, batch: &[&[u32]], width: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        let rows = batch.len();
        let width = batch.iter().map(|ids| ids.len()).max().unwrap_or(0).max(width).max(1);
        let mut ids = vec![0i64; rows * width];
        let mut mask = vec![0i64; rows * width];
        for (row, tokens) in batch.iter().enumerate() {
            for (col, &token) in tokens.iter().enumerate() {
                ids[row * width + col] = i64::from(token);
                mask[row * width + col] = 1;
            }
        }
        let shape = [rows as i64, width as i64];
        let mut inputs = ort::inputs![
            "input_ids" => Tensor::from_array((shape, ids)).map_err(EmbedError::inference)?,
            "attention_mask" => Tensor::from_array((shape, mask.clone())).map_err(EmbedError::inference)?,
        ];
        if self.wants_token_types {
            inputs.push((
                "token_type_ids".into(),
                Tensor::from_array((shape, vec![0i64; rows * width]))
                    .map_err(EmbedError::inference)?
                    .into(),
            ));
        }
        let outputs = self.session.run(inputs).map_err(EmbedError::inference)?;
        let hidden = outputs.get("last_hidden_state").unwrap_or(&outputs[0]);
        let (out_shape, data) = hidden.try_extract_tensor::<f32>().map_err(EmbedError::inference)?;
        let dims: Vec<usize> = out_shape.iter().map(|&d| d as usize).collect();
        let vectors = match dims.as_slice() {
            [r, w, dim] if *r == rows && *w == width => pool(data, &mask, rows, width, *dim, self.spec.pooling),
            [r, dim] if *r == rows => data.chunks(*dim).map(<[f32]>::to_vec).collect(),
            other => return Err(EmbedError::Inference(format!("unexpected output shape {other:?}"))),
        };
        Ok(vectors.into_iter().map(normalize).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_lists_only_complete_model_directories() {
        let dir = tempfile::tempdir().unwrap();
        let minilm = dir.path().join("minilm");
        std::fs::create_dir_all(&minilm).unwrap();
        std::fs::write(minilm.join(ONNX_FILE), b"x").unwrap();
        assert!(
            cached(dir.path()).is_empty(),
            "a model without its tokenizer is not usable"
        );
        std::fs::write(minilm.join(TOKENIZER_FILE), b"{}").unwrap();
        assert_eq!(
            cached(dir.path()).iter().map(|s| s.name).collect::<Vec<_>>(),
            ["minilm"]
        );
    }
}
