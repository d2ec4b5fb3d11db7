//! Settings → Folders: `GET/POST /api/folders`, `PATCH/DELETE /api/folders/<name>`, and
//! `DELETE /api/loose` for the Markdown files that sit outside every folder.
//!
//! Only the list is open to a scoped token, and shows it only the folders it opens (no loose
//! files); the rest is the owner's.
//!
//! Under `RAGDOWN_READ_ONLY` a folder's title, MCP switch and hook defaults may still change (they
//! are the server's settings, not documents); making, renaming and deleting are refused.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::error::{ApiError, ApiQuery, ApiResult, JsonBody};
use super::schema::{
    Confirm, ErrorBody, FolderAnswer, FolderChange, FolderDeleted, FolderHook, FolderList, FolderView, LooseDeleted,
    LooseName, NewFolder, Sync,
};
use super::{AppState, encode_segment};
use crate::access::Access;
use crate::error::Kinded;
use crate::folders::{self, Folder};
use crate::index::rows::FileState;
use crate::settings::Patch;

/// A folder as the API shows it, with its counts from the index.
fn folder_view(state: &AppState, folder: &Folder, files: &HashMap<String, FileState>) -> FolderView {
    folder_view_of(state, folder, files, &[format!("{}/", folder.name)])
}

/// As [`folder_view`], counting only the files under `prefixes` (a token's subfolders of it).
fn folder_view_of(
    state: &AppState,
    folder: &Folder,
    files: &HashMap<String, FileState>,
    prefixes: &[String],
) -> FolderView {
    let (count, chunks) = files
        .iter()
        .filter(|(path, _)| prefixes.iter().any(|prefix| path.starts_with(prefix.as_str())))
        .fold((0, 0), |(count, chunks), (_, file)| (count + 1, chunks + file.chunks));
    let settings = folders::settings_json(&state.config.docs_dir, &folder.name);
    let hook = settings
        .get("hook")
        .and_then(|hook| serde_json::from_value::<FolderHook>(hook.clone()).ok())
        .unwrap_or_default();
    FolderView {
        name: folder.name.clone(),
        title: folder.title.clone(),
        mcp: folder.mcp,
        hook,
        mcp_path: format!("/mcp/{}", encode_segment(&folder.name)),
        files: count,
        chunks,
        created_by: folder.created_by.clone(),
    }
}

/// The index's files, or none while it loads (a folder list still answers).
async fn indexed_files(state: &AppState) -> ApiResult<Arc<HashMap<String, FileState>>> {
    match state.engine() {
        Some(engine) => Ok(engine.store().files().await?),
        None => Ok(Arc::default()),
    }
}

/// `GET /api/folders`: every folder (MCP on or not) with its counts, and the loose Markdown files
/// that no folder holds and `serve` does not index.
#[utoipa::path(get, path = "/api/folders", tag = "folders",
    responses((status = 200, body = FolderList), (status = 401, body = ErrorBody)))]
pub async fn list(State(state): State<Arc<AppState>>, access: Access) -> ApiResult {
    let files = indexed_files(&state).await?;
    let docs_dir = &state.config.docs_dir;
    // A token sees the folders it opens, counted over what it opens of them.
    let folders = folders::list(docs_dir)
        .iter()
        .filter_map(|folder| match access.paths_in(&folder.name) {
            None => Some(folder_view(&state, folder, &files)),
            Some(inside) if inside.is_empty() => None,
            Some(inside) => {
                let prefixes: Vec<String> = inside.iter().map(|p| p.prefix()).collect();
                Some(folder_view_of(&state, folder, &files, &prefixes))
            }
        })
        .collect();
    let loose_files = if access.is_admin() {
        folders::loose_files(docs_dir)
    } else {
        Vec::new()
    };
    Ok(Json(FolderList { folders, loose_files }).into_response())
}

/// `POST /api/folders`: an empty folder whose `.ragdown.json` says `mcp` explicitly (off unless
/// asked), 201 with the folder.
#[utoipa::path(post, path = "/api/folders", tag = "folders", request_body = NewFolder,
    responses((status = 201, body = FolderAnswer), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    access: Access,
    JsonBody(body): JsonBody<NewFolder>,
) -> ApiResult {
    state.writable(&access)?;
    let mut settings = Map::new();
    if let Some(title) = body.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        settings.insert("title".into(), json!(title));
    }
    settings.insert("mcp".into(), json!(body.mcp.unwrap_or(false)));
    let made = folders::create(
        &state.config.docs_dir,
        &body.name,
        settings,
        &web_change(&state, "create-folder"),
    )
    .map_err(|err| match &err {
        folders::FolderError::Exists(name) => ApiError::of_kind(err.kind(), format!("already exists: {name}")),
        _ => err.into(),
    })?;
    let folder = folder_view(&state, &made, &HashMap::new());
    Ok((StatusCode::CREATED, Json(FolderAnswer { folder, sync: None })).into_response())
}

/// A folder's `hook` change, checked as the saved server settings' are and applied the same way
/// (`null` drops a value, an emptied `hook` goes).
fn hook_patch(hook: &Map<String, Value>) -> ApiResult<Patch> {
    Patch::parse(&json!({ "hook": hook })).map_err(ApiError::from)
}

/// `PATCH /api/folders/<name>`: title, MCP switch, hook defaults (unknown keys of `.ragdown.json`
/// kept), and a rename, which the index follows before the answer.
#[utoipa::path(patch, path = "/api/folders/{name}", tag = "folders", request_body = FolderChange,
    params(("name" = String, Path, description = "The folder")),
    responses((status = 200, body = FolderAnswer), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn update(
    State(state): State<Arc<AppState>>,
    access: Access,
    Path(name): Path<String>,
    JsonBody(change): JsonBody<FolderChange>,
) -> ApiResult {
    let docs_dir = &state.config.docs_dir;
    if folders::get(docs_dir, &name).is_none() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no folder named {name:?}"),
        ));
    }
    let rename = change.name.as_deref().map(str::trim).filter(|new| *new != name);
    if rename.is_some() {
        state.writable(&access)?;
    }
    let hook = change.hook.as_ref().map(hook_patch).transpose()?;
    if let Some(title) = &change.title
        && title.chars().count() > 200
    {
        return Err(ApiError::bad_request("title must be at most 200 characters"));
    }
    let touches_settings = change.title.is_some() || change.mcp.is_some() || change.hook.is_some();
    if touches_settings {
        folders::update_settings(docs_dir, &name, |settings| {
            if let Some(title) = &change.title {
                match title.trim() {
                    "" => settings.remove("title"),
                    title => settings.insert("title".into(), json!(title)),
                };
            }
            if let Some(mcp) = change.mcp {
                settings.insert("mcp".into(), json!(mcp));
            }
            if let Some(hook) = &hook {
                hook.apply(settings);
            }
        })?;
    }
    let mut current = name.clone();
    let mut sync = None;
    if let Some(new_name) = rename {
        folders::rename(docs_dir, &name, new_name, &web_change(&state, "rename-folder"))?;
        current = new_name.to_string();
        sync = sync_now(&state).await?;
    }
    let folder = folders::get(docs_dir, &current).ok_or_else(ApiError::not_found)?;
    let files = indexed_files(&state).await?;
    let folder = folder_view(&state, &folder, &files);
    Ok(Json(FolderAnswer { folder, sync }).into_response())
}

/// Syncs the index now, when it is open.
async fn sync_now(state: &AppState) -> ApiResult<Option<Sync>> {
    match state.engine() {
        Some(engine) => Ok(Some(engine.sync(false).await?.into())),
        None => Ok(None),
    }
}

/// `DELETE /api/folders/<name>?confirm=<name>`: the folder and everything in it, then the index.
#[utoipa::path(delete, path = "/api/folders/{name}", tag = "folders",
    params(("name" = String, Path, description = "The folder"), Confirm),
    responses((status = 200, body = FolderDeleted), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn remove(
    State(state): State<Arc<AppState>>,
    access: Access,
    Path(name): Path<String>,
    ApiQuery(query): ApiQuery<Confirm>,
) -> ApiResult {
    state.writable(&access)?;
    if query.confirm.as_deref() != Some(name.as_str()) {
        return Err(ApiError::bad_request(
            "confirm must repeat the folder's name: this deletes every file in it",
        ));
    }
    folders::delete(&state.config.docs_dir, &name, &web_change(&state, "delete-folder"))?;
    let sync = sync_now(&state).await?;
    Ok(Json(FolderDeleted { name, sync }).into_response())
}

/// `DELETE /api/loose?name=`: a Markdown file directly in the docs dir; 404 for anything else.
#[utoipa::path(delete, path = "/api/loose", tag = "folders", params(LooseName),
    responses((status = 200, body = LooseDeleted), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn remove_loose(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<LooseName>,
) -> Response {
    if let Err(err) = state.writable(&access) {
        return err.into_response();
    }
    let name = query.name.unwrap_or_default();
    match folders::delete_loose(&state.config.docs_dir, &name, &web_change(&state, "delete")) {
        None => ApiError::new(StatusCode::NOT_FOUND, "no such file outside a folder").into_response(),
        Some(Err(err)) => ApiError::internal(format!("could not delete {name}: {err}")).into_response(),
        Some(Ok(())) => Json(LooseDeleted { name }).into_response(),
    }
}

/// A change made from the web UI, recorded in the history.
fn web_change(state: &AppState, action: &str) -> crate::history::Change {
    state.history.begin(crate::history::Who::web(), action)
}
