//! Opening the index as the configuration and the settings in effect say: the embedder they
//! name, then the engine over the docs dir. Used at start by both programs, and by Settings →
//! Server when the embedder changes.

use std::sync::Arc;

use crate::config::Config;
use crate::embed::EmbedError;
use crate::embed::SharedEmbedder;
use crate::embed::select::{self, EmbedderChoice};
use crate::engine::{Engine, EngineError, EngineOptions};
use crate::settings::Values;
use crate::settings::hook::{floor_too_low, warn_floor_too_low};

/// Why the index could not be opened. The message is the cause's, which already ends with what
/// caused it in turn; the causes stay the error's sources.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The embedder the settings name could not be loaded.
    #[error(transparent)]
    Embedder(#[from] EmbedError),
    /// The engine over the docs dir could not be opened.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// The configuration's embedder choice with the embedder in effect named.
pub fn embedder_choice(config: &Config, values: &Values) -> EmbedderChoice {
    EmbedderChoice {
        name: values.embedder.clone(),
        ..config.embedder.clone()
    }
}

/// Warns when the floor in effect lets unrelated prompts through with `embedder`.
fn warn_on_low_floor(values: &Values, embedder: &SharedEmbedder) {
    if let (Some(floor), Some(unrelated)) = (values.hook.min_score, embedder.unrelated_score())
        && floor_too_low(floor, unrelated)
    {
        warn_floor_too_low(
            floor,
            unrelated,
            "the environment or saved settings",
            embedder.index_name(),
        );
    }
}

/// Opens the index with `embedder` and the values in effect.
pub async fn open_engine_with(
    config: &Config,
    values: &Values,
    embedder: SharedEmbedder,
) -> Result<Arc<Engine>, LaunchError> {
    warn_on_low_floor(values, &embedder);
    let engine = Engine::open(
        EngineOptions {
            docs_dir: config.docs_dir.clone(),
            data_dir: config.data_dir.clone(),
            layout: config.layout,
            watch: values.watch,
            sync_on_open: true,
            takeover_every: crate::engine::TAKEOVER_EVERY,
            history: config.history.clone(),
            vector_index_rows: config.vector_index_rows,
        },
        embedder,
    )
    .await?;
    engine.query_log.set_enabled(values.query_log);
    if values.query_log {
        tracing::info!(file = %engine.query_log.path().display(), "logging queries");
    }
    Ok(engine)
}

/// Loads the embedder in effect (blocking work) and opens the index.
pub async fn open_engine(config: &Config, values: &Values) -> Result<Arc<Engine>, LaunchError> {
    let embedder = select::open(&embedder_choice(config, values), &config.endpoints).await?;
    open_engine_with(config, values, embedder).await
}
