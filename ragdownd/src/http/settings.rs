//! Settings → Server: `PATCH /api/settings`, and bringing the running server in line with the
//! settings in effect, whether they changed through that route or by a hand edit of
//! `.ragdown-server.json`.
//!
//! Most settings are read by each call and so apply to the next one by themselves (the
//! characters per hit, the sections per document, the hook defaults, the root `/mcp`). Three need
//! the server to act: the query log is switched, the watcher started or stopped, and a new
//! embedder is loaded, before anything is saved when it comes through the route, and then the
//! index is rebuilt with it in place (progress in `/api/status`).

use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::Value;

use super::AppState;
use super::error::{ApiError, ApiResult, JsonBody};
use super::schema::{ErrorBody, SettingsAnswer, SettingsPatch};
use crate::access::Access;
use crate::embed::select;
use crate::embed::{EmbedError, SharedEmbedder};
use crate::error::{ErrorKind, Kinded};
use crate::launch::{embedder_choice, open_engine_with};
use crate::settings::{Patch, Values};

/// How often a hand edit of the saved settings is looked for.
const FOLLOW_EVERY: Duration = Duration::from_secs(2);

/// `PATCH /api/settings`: saves a checked change (`null` reverts a value to its variable) and
/// applies it at once; answers `{settings}` as `/api/status` shows them. A new embedder that
/// cannot load is a 400 and nothing changes; in a reader, an embedder change is a 409. One that
/// loads is saved and answered at once; the index is rebuilt with it right after.
#[utoipa::path(patch, path = "/api/settings", tag = "settings", request_body = SettingsPatch,
    responses((status = 200, body = SettingsAnswer), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "A reader, or a saved file that cannot be read"),
        (status = 500, body = ErrorBody, description = "The embedder named exists but cannot run here"),
        (status = 503, body = ErrorBody, description = "The embedder named is not cached and cannot be downloaded now")))]
pub async fn update(State(state): State<Arc<AppState>>, access: Access, JsonBody(body): JsonBody<Value>) -> ApiResult {
    state.writable(&access)?;
    let patch = Patch::parse(&body)?;
    let _changing = state.changing.lock().await;
    let layered = &state.tools.layered;
    let before = layered.current();
    let next = match patch.embedder() {
        None => before.embedder.clone(),
        Some(None) => layered.env().embedder.clone(),
        Some(Some(name)) => Some(name.to_string()),
    };
    let loaded = if next != before.embedder {
        let engine = state.ready()?;
        if !engine.is_primary() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "this process only reads the index: change the embedder where it is built",
            ));
        }
        let values = Values {
            embedder: next.clone(),
            ..before.clone()
        };
        // Nothing is saved when the model cannot load: 400 for a name that is no model, 503 or
        // 500 when this server cannot get or run a model that exists (`LoadError::kind`).
        Some(load(&state, &values).await.map_err(ApiError::from)?)
    } else {
        None
    };
    layered.save(&patch)?;
    match loaded {
        // The switch waits for a sync in flight (a first index can take a while), so it runs
        // after the answer; `/api/status` shows the new embedder and the rebuild's progress.
        Some(embedder) => {
            drop(_changing);
            let switching = state.clone();
            tokio::spawn(async move {
                let _changing = switching.changing.lock().await;
                if let Err(err) = reconcile(&switching, Some((next, embedder))).await {
                    tracing::error!("cannot switch the embedder: {}", err.message);
                    switching.set_load_error(err.message);
                }
            });
        }
        None => reconcile(&state, None).await?,
    }
    let settings = super::status::settings_view(&state);
    Ok(Json(SettingsAnswer { settings }).into_response())
}

/// Loads the embedder `values` name, with the configuration's model cache and endpoints.
async fn load(state: &AppState, values: &Values) -> Result<SharedEmbedder, LoadError> {
    let name = values.embedder.as_deref().unwrap_or(embedd::registry::DEFAULT_MODEL);
    select::open(&embedder_choice(&state.config, values), &state.config.endpoints)
        .await
        .map_err(|source| LoadError {
            name: name.to_string(),
            source,
        })
}

/// Why the embedder a settings change names could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("cannot load the embedder {name}: {source}")]
struct LoadError {
    name: String,
    source: EmbedError,
}

impl Kinded for LoadError {
    /// Whose failure it is: the change's, when it names no model; the server's otherwise (a
    /// model it cannot download now may come later; one it cannot run will not).
    fn kind(&self) -> ErrorKind {
        match &self.source {
            EmbedError::UnknownModel { .. } | EmbedError::InvalidInput(_) => ErrorKind::Invalid,
            EmbedError::Unavailable { .. } | EmbedError::Overloaded { .. } | EmbedError::WorkerGone => {
                ErrorKind::Unavailable
            }
            EmbedError::Runtime(_)
            | EmbedError::Load { .. }
            | EmbedError::Inference(_)
            | EmbedError::Provider { .. } => ErrorKind::Internal,
        }
    }
}

/// Brings the server in line with the settings in effect: the query log, the watcher, and the
/// embedder (`loaded` when the caller has loaded it already, with the name it was loaded for; it
/// is used only if that is still the one in effect). Call with `changing` held.
async fn reconcile(state: &AppState, loaded: Option<(Option<String>, SharedEmbedder)>) -> ApiResult<()> {
    let current = state.tools.current();
    let Some(applied) = state.applied() else {
        return Ok(());
    };
    if current == applied {
        return Ok(());
    }
    if current.embedder != applied.embedder {
        let embedder = match loaded.filter(|(name, _)| *name == current.embedder) {
            Some((_, embedder)) => embedder,
            None => match load(state, &current).await {
                Ok(embedder) => embedder,
                Err(err) => {
                    // A hand edit naming a model that cannot load: keep the one running.
                    tracing::error!(
                        "{err}; keeping {}",
                        applied.embedder.as_deref().unwrap_or("the default")
                    );
                    state.set_applied(Values {
                        embedder: current.embedder.clone(),
                        ..applied
                    });
                    return Ok(());
                }
            },
        };
        switch(state, &current, embedder).await?;
    } else if let Some(engine) = state.engine() {
        if current.watch != applied.watch {
            engine.set_watch(current.watch);
        }
        if current.query_log != applied.query_log {
            engine.query_log.set_enabled(current.query_log);
        }
    }
    state.set_applied(current);
    Ok(())
}

/// Puts an engine with `embedder` in place of the running one, over the same data dir: the old
/// one hands the index over, the new one rebuilds it (its `meta.json` names another embedder).
/// If the new one cannot open, the old embedder is opened again.
async fn switch(state: &AppState, values: &Values, embedder: SharedEmbedder) -> ApiResult<()> {
    let old = state.ready()?;
    tracing::info!(
        from = old.embedder.index_name(),
        to = embedder.index_name(),
        "switching the embedder; the index is rebuilt"
    );
    old.retire().await;
    match open_engine_with(&state.config, values, embedder).await {
        Ok(engine) => {
            state.set_engine(engine);
            Ok(())
        }
        Err(err) => {
            tracing::error!("cannot open the index with the new embedder: {err}; going back");
            let previous = old.embedder.clone();
            drop(old);
            let engine = open_engine_with(&state.config, values, previous)
                .await
                .map_err(|err| ApiError::internal(err.to_string()))?;
            state.set_engine(engine);
            Err(ApiError::internal(err.to_string()))
        }
    }
}

/// Follows hand edits of the saved settings while the server runs: every couple of seconds,
/// whatever differs from what was applied is applied. Stops when the server does.
pub fn follow_hand_edits(state: Arc<AppState>, applied: Values) {
    state.set_applied(applied);
    let weak: Weak<AppState> = Arc::downgrade(&state);
    drop(state);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(FOLLOW_EVERY).await;
            let Some(state) = weak.upgrade() else { return };
            let Ok(_changing) = state.changing.try_lock() else {
                continue;
            };
            if let Err(err) = reconcile(&state, None).await {
                tracing::error!("cannot apply the saved settings: {}", err.message);
            }
        }
    });
}
