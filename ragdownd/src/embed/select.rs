//! Choosing the embedder from the configuration.
//!
//! An explicitly chosen model that cannot be had is an error. With no choice, the default model
//! is used, downloaded on first start; when that fails, a model already in the cache is used
//! instead, with a warning that names it, so an offline laptop still starts.

use std::sync::Arc;

use embedd::model::{self, ModelSource};
use embedd::{LocalEmbedder, LocalOptions, registry};

use super::hash::HashEmbedder;
use super::{EmbedError, SharedEmbedder};

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

/// Builds the embedder the configuration asks for. Blocking (loads a model).
pub fn select(choice: &EmbedderChoice) -> Result<SharedEmbedder, EmbedError> {
    match choice.name.as_deref() {
        Some("hash") => Ok(Arc::new(HashEmbedder)),
        Some(name) if name.starts_with("openai:") => Err(EmbedError::Load {
            name: name.into(),
            reason: "the openai:<model> embedder is not available in this build yet".into(),
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
