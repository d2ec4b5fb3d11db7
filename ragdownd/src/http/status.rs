//! `GET /api/status` (open to all: it says whether a token is needed) and the query log behind
//! Settings → Usage.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use embedd::registry;
use serde_json::json;

use super::AppState;
use super::error::{ApiError, ApiResult};
use super::schema::{
    EmbedderFloors, FolderHook, FolderLanguage, HookView, LanguageNotice, LastSyncView, ProgressView, SavedView,
    SettingsView, Status, ValuesView,
};
use crate::index::scan::Layout;
use crate::language::{self, Notice};
use crate::settings::{SavedSettings, Values};

/// Every known embedder's hook floor and the best score unrelated prompts reached with it, so
/// Settings → Server can flag a floor at or under it.
fn embedders() -> BTreeMap<String, EmbedderFloors> {
    let mut out: BTreeMap<String, EmbedderFloors> = registry::KNOWN_MODELS
        .iter()
        .map(|spec| {
            let floors = EmbedderFloors {
                min_score: decimal(spec.min_score.unwrap_or(registry::DEFAULT_MIN_SCORE)),
                unrelated_score: spec.unrelated_score.map(decimal),
            };
            (spec.name.to_string(), floors)
        })
        .collect();
    let hash = EmbedderFloors {
        min_score: decimal(registry::DEFAULT_MIN_SCORE),
        unrelated_score: None,
    };
    out.insert("hash".into(), hash);
    out
}

/// An `f32` setting as the JSON number people typed (`0.4`, not `0.4000000059604645`).
fn decimal(x: f32) -> f64 {
    format!("{x}").parse().unwrap_or(f64::from(x))
}

fn values_view(values: &Values) -> ValuesView {
    ValuesView {
        embedder: values.embedder.clone(),
        watch: values.watch,
        root_mcp: values.root_mcp,
        text_limit: values.text_limit,
        max_per_document: values.search.max_per_document,
        follow_links: values.search.follow_links,
        query_log: values.query_log,
        hook: HookView {
            top_k: values.hook.top_k,
            min_score: values.hook.min_score.map(decimal),
            min_ratio: values.hook.min_ratio.map(decimal),
            max_chars: values.hook.max_chars,
            unrelated_score: None,
        },
    }
}

fn saved_view(saved: &SavedSettings) -> SavedView {
    let hook = FolderHook {
        top_k: saved.hook.top_k.map(|n| n as u64),
        min_score: saved.hook.min_score.map(decimal),
        min_ratio: saved.hook.min_ratio.map(decimal),
        max_chars: saved.hook.max_chars.map(|n| n as u64),
    };
    let any_hook =
        hook.top_k.is_some() || hook.min_score.is_some() || hook.min_ratio.is_some() || hook.max_chars.is_some();
    SavedView {
        embedder: saved.embedder.clone(),
        watch: saved.watch,
        root_mcp: saved.root_mcp,
        text_limit: saved.text_limit,
        max_per_document: saved.max_per_document,
        follow_links: saved.follow_links,
        query_log: saved.query_log,
        hook: any_hook.then_some(hook),
    }
}

/// Each folder whose `.ragdown.json` is there but not a JSON object, with why.
fn folder_errors(docs_dir: &std::path::Path) -> BTreeMap<String, String> {
    crate::folders::list(docs_dir)
        .into_iter()
        .filter_map(|folder| {
            let path = docs_dir.join(&folder.name).join(crate::settings::FOLDER_SETTINGS_FILE);
            crate::settings::file::read_object(&path).err().map(|reason| {
                (
                    folder.name,
                    format!("{}: {reason}", crate::settings::FOLDER_SETTINGS_FILE),
                )
            })
        })
        .collect()
}

/// The `settings` of `/api/status` and `PATCH /api/settings`: the values in effect (with the
/// loaded embedder's own gates where none is set), `saved`, `env`, and every known embedder's
/// floors.
pub fn settings_view(state: &AppState) -> SettingsView {
    let layered = &state.tools.layered;
    let saved = layered.saved();
    let current = layered.env().with_saved(&saved);
    let mut effective = values_view(&current);
    if let Some(engine) = state.engine() {
        let embedder = &engine.embedder;
        effective.hook.min_score = Some(decimal(current.hook.min_score.unwrap_or_else(|| embedder.min_score())));
        effective.hook.min_ratio = Some(decimal(current.hook.min_ratio.unwrap_or_else(|| embedder.min_ratio())));
        effective.hook.unrelated_score = embedder.unrelated_score().map(decimal);
    }
    SettingsView {
        effective,
        saved: saved_view(&saved),
        env: values_view(layered.env()),
        saved_error: layered.saved_error(),
        folder_errors: folder_errors(&state.config.docs_dir),
        embedders: embedders(),
    }
}

/// `GET /api/status`: answers before the model has loaded (`ready: false`, with the first
/// index's progress once it runs), with the settings in effect, saved and from the environment.
#[utoipa::path(get, path = "/api/status", tag = "status", security(()),
    responses((status = 200, body = Status)))]
pub async fn status(State(state): State<Arc<AppState>>) -> ApiResult {
    let mut out = Status {
        name: "ragdown".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ready: false,
        auth_required: state.config.token.is_some(),
        read_only: state.tools.read_only,
        error: None,
        embedder: None,
        role: None,
        watching: None,
        docs_dir: None,
        data_dir: None,
        files: None,
        chunks: None,
        syncing: None,
        progress: None,
        last_sync: None,
        language_notice: None,
        settings: settings_view(&state),
    };
    let Some(engine) = state.engine() else {
        out.error = state.load_error();
        return Ok(Json(out).into_response());
    };
    let files = engine.store().files().await?;
    let progress = engine.indexer.progress();
    out.ready = true;
    out.embedder = Some(engine.embedder.index_name().to_string());
    out.role = Some(if engine.is_primary() { "primary" } else { "reader" }.into());
    out.watching = Some(engine.is_watching());
    out.docs_dir = Some(state.config.docs_dir.display().to_string());
    out.data_dir = Some(state.config.data_dir.display().to_string());
    out.files = Some(files.len());
    out.chunks = Some(files.values().map(|f| f.chunks).sum());
    out.syncing = Some(engine.indexer.syncing());
    out.progress = Some(ProgressView {
        running: progress.running,
        files_total: progress.files_total,
        files_done: progress.files_done,
        chunks_done: progress.chunks_done,
    });
    out.last_sync = engine.indexer.last_sync().map(|last| LastSyncView {
        sync: last.report.into(),
        at: last.at,
    });
    out.language_notice = language_notice(&state, &engine);
    Ok(Json(out).into_response())
}

/// The notice for the last survey of the notes, when the embedder reads English only.
fn language_notice(state: &AppState, engine: &crate::engine::Engine) -> Option<LanguageNotice> {
    let multilingual = engine.embedder.multilingual();
    if multilingual != Some(false) {
        return None;
    }
    let mixes = state.languages.get(&state.config.docs_dir, Layout::Folders)?;
    let notice = Notice::of(&mixes, engine.embedder.index_name(), multilingual)?;
    Some(LanguageNotice {
        folders: notice
            .folders
            .iter()
            .map(|(folder, share)| FolderLanguage {
                folder: folder.clone(),
                cjk_share: (share * 100.0).round() / 100.0,
            })
            .collect(),
        embedder: notice.embedder.clone(),
        setting: language::FIX.into(),
        message: notice.message(),
    })
}

/// `GET /api/query-log`: the query log summed up for Settings → Usage.
#[utoipa::path(get, path = "/api/query-log", tag = "status",
    responses((status = 200, body = Object, description = "The summary: gaps, the hook's injection rate, reads after searches"),
        (status = 401, body = super::schema::ErrorBody)))]
pub async fn query_log(State(state): State<Arc<AppState>>) -> ApiResult {
    let engine = state.ready()?;
    let summary = tokio::task::spawn_blocking(move || engine.query_log.summary())
        .await
        .map_err(|err| ApiError::internal(err.to_string()))?;
    Ok(Json(summary).into_response())
}

/// `DELETE /api/query-log`: empties the log, read-only or not (it is the server's, not a document).
#[utoipa::path(delete, path = "/api/query-log", tag = "status",
    responses((status = 200, body = Object, description = "`{cleared: true}`"), (status = 401, body = super::schema::ErrorBody)))]
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
