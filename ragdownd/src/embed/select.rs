//! Choosing the embedder from the configuration.
//!
//! An explicitly chosen model that cannot be had is an error. With no choice, the default model
//! is used, downloaded on first start; when that fails, a model already in the cache is used
//! instead, with a warning that names it, so an offline laptop still starts.

use std::sync::Arc;
use std::time::Duration;

use embedd::model::{self, ModelSource};
use embedd::{LocalEmbedder, LocalOptions, registry};

use super::hash::HashEmbedder;
use super::openai::{self, OpenAiEmbedder};
use super::remote::{RemoteEmbedder, RemoteOptions};
use super::{EmbedError, SharedEmbedder};

/// Embedding somewhere else: `embedd` workers, or an OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct Endpoints {
    /// `RAGDOWN_EMBEDD_URL`: `embedd` workers; empty embeds in-process.
    pub embedd_urls: Vec<String>,
    /// `RAGDOWN_EMBEDD_TOKEN`: the workers' `EMBEDD_TOKEN`.
    pub embedd_token: Option<String>,
    /// `RAGDOWN_EMBEDD_TIMEOUT_MS`: how long a worker may take before its batch goes elsewhere.
    pub embedd_timeout: Duration,
    /// `RAGDOWN_EMBEDDING_URL`, for `openai:<model>`.
    pub embedding_url: String,
    /// `RAGDOWN_EMBEDDING_API_KEY`, for `openai:<model>`.
    pub api_key: Option<String>,
}

impl Default for Endpoints {
    fn default() -> Self {
        Self {
            embedd_urls: Vec::new(),
            embedd_token: None,
            embedd_timeout: Duration::from_secs(30),
            embedding_url: openai::DEFAULT_URL.into(),
            api_key: None,
        }
    }
}

/// Builds the embedder the configuration asks for: `openai:<model>`, `embedd` workers (with the
/// in-process model as their fallback) when `RAGDOWN_EMBEDD_URL` is set, else [`select`].
pub async fn open(choice: &EmbedderChoice, endpoints: &Endpoints) -> Result<SharedEmbedder, EmbedError> {
    if let Some(model) = choice.name.as_deref().and_then(|n| n.strip_prefix("openai:")) {
        let embedder = OpenAiEmbedder::connect(model, &endpoints.embedding_url, endpoints.api_key.clone()).await?;
        return Ok(Arc::new(embedder));
    }
    if !endpoints.embedd_urls.is_empty() && choice.name.as_deref() != Some("hash") {
        let model = match choice.name.as_deref() {
            Some(name) => Some(registry::find(name).ok_or_else(|| EmbedError::UnknownModel {
                name: name.into(),
                known: format!("{}, hash", registry::known_names()),
            })?),
            None => None,
        };
        let embedder = RemoteEmbedder::connect(RemoteOptions {
            urls: endpoints.embedd_urls.clone(),
            token: endpoints.embedd_token.clone(),
            timeout: endpoints.embedd_timeout,
            model,
            source: choice.source.clone(),
            local: choice.local.clone(),
        })
        .await?;
        return Ok(Arc::new(embedder));
    }
    let choice = choice.clone();
    tokio::task::spawn_blocking(move || select(&choice))
        .await
        .map_err(|err| EmbedError::Inference(err.to_string()))?
}

/// What the configuration says about embedding.
#[derive(Debug, Clone)]
pub struct EmbedderChoice {
    /// `RAGDOWN_EMBEDDER`: a known model, `hash`, or `None` for the default.
    pub name: Option<String>,
    /// Where models live and come from.
    pub source: ModelSource,
    /// Threads and batching of the in-process model.
    pub local: LocalOptions,
}

/// Builds an in-process or `hash` embedder. Blocking (loads a model).
pub fn select(choice: &EmbedderChoice) -> Result<SharedEmbedder, EmbedError> {
    match choice.name.as_deref() {
        Some("hash") => Ok(Arc::new(HashEmbedder)),
        Some(name) if name.starts_with("openai:") => Err(EmbedError::Load {
            name: name.into(),
            reason: "openai:<model> is opened with select::open".into(),
        }),
        Some(name) => {
            let spec = registry::find(name).ok_or_else(|| EmbedError::UnknownModel {
                name: name.into(),
                known: format!("{}, hash", registry::known_names()),
            })?;
            Ok(Arc::new(LocalEmbedder::start(spec, &choice.source, &choice.local)?))
        }
        None => {
            let spec = registry::find(registry::DEFAULT_MODEL).expect("the default model is known");
            match LocalEmbedder::start(spec, &choice.source, &choice.local) {
                Ok(embedder) => Ok(Arc::new(embedder)),
                Err(err @ EmbedError::Unavailable { .. }) => {
                    let Some(fallback) = model::cached(&choice.source.models_dir)
                        .into_iter()
                        .find(|cached| cached.name != spec.name)
                    else {
                        return Err(err);
                    };
                    tracing::warn!(
                        "!!! the default embedder {} is unavailable ({err}); using {} from the model cache instead. \
                         Set RAGDOWN_EMBEDDER to choose one explicitly.",
                        spec.name,
                        fallback.name
                    );
                    Ok(Arc::new(LocalEmbedder::start(fallback, &choice.source, &choice.local)?))
                }
                Err(err) => Err(err),
            }
        }
    }
}
