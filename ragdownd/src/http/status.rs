//! `GET /api/status` (open to all: it says whether a token is needed) and the query log behind
//! Settings → Usage.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use embedd::registry;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, ApiResult};

/// Every known embedder's hook floor and the best score unrelated prompts reached with it, so
/// Settings → Server can flag a floor at or under it.
fn embedders() -> Value {
    let mut out = serde_json::Map::new();
    for spec in registry::KNOWN_MODELS {
        out.insert(
            spec.name.to_string(),
            json!({
                "min_score": spec.min_score.unwrap_or(registry::DEFAULT_MIN_SCORE),
                "unrelated_score": spec.unrelated_score,
            }),
        );
    }
    out.insert(
        "hash".into(),
        json!({ "min_score": registry::DEFAULT_MIN_SCORE, "unrelated_score": null }),
    );
    Value::Object(out)
}

/// `GET /api/status`: answers before the model has loaded (`ready: false`, with the first
/// index's progress once it runs), with the settings in effect, saved and from the environment.
/// The `settings` object of `/api/status` and `PATCH /api/settings`: the values in effect (with
/// the loaded embedder's own gates where none is set), `saved`, `env`, and every known
/// embedder's floors.
pub fn settings_json(state: &AppState) -> Value {
    let layered = &state.tools.layered;
    let mut settings = layered.status_json();
    settings["embedders"] = embedders();
    if let Some(engine) = state.engine() {
        let embedder = &engine.embedder;
        let hook = layered.current().hook;
        settings["hook"]["min_score"] = json!(hook.min_score.unwrap_or_else(|| embedder.min_score()));
        settings["hook"]["min_ratio"] = json!(hook.min_ratio.unwrap_or_else(|| embedder.min_ratio()));
        settings["hook"]["unrelated_score"] = json!(embedder.unrelated_score());
    }
    settings
}

pub async fn status(State(state): State<Arc<AppState>>) -> ApiResult {
    let settings = settings_json(&state);
    let mut out = json!({
        "name": "ragdown",
        "version": env!("CARGO_PKG_VERSION"),
        "auth_required": state.config.token.is_some(),
        "read_only": state.tools.read_only,
    });
    let Some(engine) = state.engine() else {
        out["ready"] = json!(false);
        out["error"] = json!(state.load_error());
        out["settings"] = settings;
        return Ok(Json(out).into_response());
    };
    let embedder = &engine.embedder;
    let files = engine.store().files().await?;
    let chunks: usize = files.values().map(|f| f.chunks).sum();
    let progress = engine.indexer.progress();
    out["ready"] = json!(true);
    out["embedder"] = json!(embedder.index_name());
    out["role"] = json!(if engine.is_primary() { "primary" } else { "reader" });
    out["watching"] = json!(engine.is_watching());
    out["docs_dir"] = json!(state.config.docs_dir);
    out["data_dir"] = json!(state.config.data_dir);
    out["files"] = json!(files.len());
    out["chunks"] = json!(chunks);
    out["syncing"] = json!(progress.running);
    out["progress"] = json!(progress);
    out["last_sync"] = json!(engine.indexer.last_sync());
    out["settings"] = settings;
    Ok(Json(out).into_response())
}

/// `GET /api/query-log`: the query log summed up for Settings → Usage.
pub async fn query_log(State(state): State<Arc<AppState>>) -> ApiResult {
    let engine = state.ready()?;
    let summary = tokio::task::spawn_blocking(move || engine.query_log.summary())
        .await
        .map_err(|err| ApiError::internal(err.to_string()))?;
    Ok(Json(summary).into_response())
}

/// `DELETE /api/query-log`: empties the log, read-only or not (it is the server's, not a document).
pub async fn clear_query_log(State(state): State<Arc<AppState>>) -> Response {
    let result = state.ready().and_then(|engine| {
        engine
            .query_log
            .clear()
            .map_err(|err| ApiError::internal(err.to_string()))
    });
    match result {
        Ok(()) => Json(json!({ "cleared": true })).into_response(),
        Err(err) => err.into_response(),
    }
}
