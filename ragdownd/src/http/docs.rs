//! Documents for the people who own them: `GET /api/docs` (a folder's list), `GET/POST/DELETE
//! /api/doc` (one document: read, save with `base_hash`, delete) and `GET /api/file` (raw bytes
//! of a document or attachment, for previews and images).
//!
//! Paths are root-relative (`<folder>/<path>`); each goes to its folder's scope and from there
//! through the same path check, write and delete code as the tools, so nothing here can reach
//! outside the docs dir, through a symlink, or into a dot folder.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde_json::Value;

use super::error::{ApiError, ApiQuery, ApiResult, JsonBody, MAX_DOC_BYTES};
use super::schema::{Deleted, Doc, DocInfo, DocList, DocsQuery, ErrorBody, PathQuery, SaveBody, Saved};
use super::{AppState, required};
use crate::access::Access;
use crate::documents::content_hash;
use crate::documents::paths::is_skipped;
use crate::index::rows::{DocumentInfo, FileState, Superseded};
use crate::tools;

/// `GET /api/docs?folder=`: the indexed documents of a folder (of every folder without one), with
/// their front matter, size, chunk count and what supersedes them.
#[utoipa::path(get, path = "/api/docs", tag = "documents", params(DocsQuery),
    responses((status = 200, body = DocList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn list(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<DocsQuery>,
) -> ApiResult {
    let engine = state.ready()?;
    let folder = query.folder.as_deref().filter(|f| !f.is_empty());
    let store = engine.store();
    let mut documents = Vec::new();
    for prefix in state.listable(&access, folder)? {
        documents.extend(store.documents(&prefix).await?);
    }
    let files = store.files().await?;
    let superseded = store.superseded().await?;
    let docs = documents.iter().map(|doc| doc_info(doc, &files, &superseded)).collect();
    Ok(Json(DocList { docs }).into_response())
}

/// A document as the API lists it: its front matter from the index, its size and chunk count
/// from `files`, and the documents that supersede it.
pub fn doc_info(doc: &DocumentInfo, files: &HashMap<String, FileState>, superseded: &Superseded) -> DocInfo {
    let file = files.get(&doc.path);
    let nonempty = |text: &str| (!text.is_empty()).then(|| text.to_string());
    DocInfo {
        path: doc.path.clone(),
        folder: doc.path.split('/').next().unwrap_or_default().to_string(),
        title: doc.title.clone(),
        mtime_ms: doc.mtime_ms,
        size: file.map(|f| f.size).unwrap_or_default(),
        chunks: file.map(|f| f.chunks).unwrap_or_default(),
        tags: doc.tags.clone(),
        aliases: doc.aliases.clone(),
        superseded_by: superseded.get(&doc.path).cloned().unwrap_or_default(),
        description: nonempty(&doc.description),
        created_by: nonempty(&doc.created_by),
        session: nonempty(&doc.session),
    }
}

/// `GET /api/doc?path=`: the whole document from disk with its full hash, and its tags, aliases
/// and replacements from the index.
#[utoipa::path(get, path = "/api/doc", tag = "documents", params(PathQuery),
    responses((status = 200, body = Doc), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<PathQuery>,
) -> ApiResult {
    let path = required(&query.path, "path")?;
    let (scope, rel) = state.existing_in_folder(&access, path)?;
    let read_scope = scope.clone();
    let inner = rel.clone();
    let bytes = tokio::task::spawn_blocking(move || tools::read_file(&read_scope, &inner))
        .await
        .map_err(|err| ApiError::internal(err.to_string()))??;
    let root_path = scope.to_root_path(&tools::write::shown(&rel));
    // Lines joined with `\n` whatever the file's endings; `hash` stays that of the bytes on disk,
    // and a save with it keeps the file's CRLF.
    let text = tools::split_lines(&String::from_utf8_lossy(&bytes)).join("\n");
    let total = text.split('\n').count();
    let store = scope.engine.store();
    let documents = store.document_map().await?;
    let meta = documents.get(&root_path);
    let superseded = store.superseded().await?;
    let superseded_by = superseded.get(&root_path).cloned();
    let (tags, aliases) = meta.map(|m| (m.tags.clone(), m.aliases.clone())).unwrap_or_default();
    let info = match meta {
        Some(doc) => Some(doc_info(doc, &*store.files().await?, &superseded)),
        None => None,
    };
    let titles = superseded_by
        .iter()
        .flatten()
        .filter_map(|path| Some((path.clone(), documents.get(path)?.title.clone())))
        .collect();
    Ok(Json(Doc {
        path: root_path,
        start_line: 1,
        end_line: total,
        total_lines: total,
        hash: content_hash(&bytes),
        text,
        tags,
        aliases,
        indexed: meta.is_some(),
        superseded_by,
        info,
        titles,
    })
    .into_response())
}

/// `POST /api/doc {path, text, overwrite?, base_hash?}`: 201 when created, 200 when replaced; a
/// `base_hash` that is not the file's version now is a 409 `changed` and the file is untouched.
/// Line endings follow the file's (a CRLF file stays CRLF).
#[utoipa::path(post, path = "/api/doc", tag = "documents", request_body = SaveBody,
    responses((status = 201, body = Saved, description = "Created"), (status = 200, body = Saved, description = "Replaced"),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "Exists, or `code: changed`: not the version read"),
        (status = 413, body = ErrorBody)))]
pub async fn save(
    State(state): State<Arc<AppState>>,
    access: Access,
    JsonBody(body): JsonBody<SaveBody, MAX_DOC_BYTES>,
) -> ApiResult {
    state.writable(&access)?;
    let (Some(Value::String(path)), Some(Value::String(text))) = (&body.path, &body.text) else {
        return Err(ApiError::bad_request("path and text are required strings"));
    };
    if let Some(base) = &body.base_hash
        && !(base.len() >= 12 && base.len() <= 64 && base.chars().all(|c| c.is_ascii_hexdigit()))
    {
        return Err(ApiError::bad_request(
            "base_hash must be the document's hash: 12 to 64 hexadecimal characters",
        ));
    }
    let (scope, rel) = state.in_folder(&access, path)?;
    let saved = tools::write::save(&scope, &rel, text.clone(), body.base_hash.clone(), body.overwrite).await?;
    let status = if saved.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let body = Saved {
        path: scope.to_root_path(&saved.path),
        created: saved.created,
        hash: saved.hash,
        sync: saved.sync.into(),
    };
    Ok((status, Json(body)).into_response())
}

/// `DELETE /api/doc?path=[&base_hash=]`: one document (a folder's subfolders are `ragdown_delete`'s).
#[utoipa::path(delete, path = "/api/doc", tag = "documents", params(PathQuery),
    responses((status = 200, body = Deleted), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn remove(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<PathQuery>,
) -> ApiResult {
    state.writable(&access)?;
    let path = required(&query.path, "path")?;
    // A path no folder could hold (`../../etc/passwd.md`) is refused as the original refuses it,
    // before asking which folder it is in; an absolute one gets the routes' own 400 below.
    if !crate::documents::paths::is_absolute(path.trim()) {
        crate::documents::paths::check_client_path(path)?;
    }
    let (scope, rel) = state.existing_in_folder(&access, path)?;
    if !crate::markdown::is_markdown(&rel) {
        return Err(ApiError::bad_request(format!(
            "not a Markdown file (.md, .markdown, .mdx): {path}"
        )));
    }
    let sync = tools::write::delete_path(&scope, &rel, false, query.base_hash.clone()).await?;
    let root_path = scope.to_root_path(&tools::write::shown(&rel));
    Ok(Json(Deleted {
        path: root_path,
        sync: sync.into(),
    })
    .into_response())
}

/// The content type of a file by its extension; what a browser may show inline is limited by
/// the sandboxing headers, whatever this says.
fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase());
    let types: HashMap<&str, &'static str> = HashMap::from([
        ("md", "text/markdown; charset=utf-8"),
        ("markdown", "text/markdown; charset=utf-8"),
        ("mdx", "text/markdown; charset=utf-8"),
        ("txt", "text/plain; charset=utf-8"),
        ("png", "image/png"),
        ("jpg", "image/jpeg"),
        ("jpeg", "image/jpeg"),
        ("gif", "image/gif"),
        ("webp", "image/webp"),
        ("avif", "image/avif"),
        ("svg", "image/svg+xml"),
        ("bmp", "image/bmp"),
        ("ico", "image/x-icon"),
        ("pdf", "application/pdf"),
        ("mp3", "audio/mpeg"),
        ("wav", "audio/wav"),
        ("ogg", "audio/ogg"),
        ("mp4", "video/mp4"),
        ("webm", "video/webm"),
        ("json", "application/json"),
        ("csv", "text/csv; charset=utf-8"),
    ]);
    ext.and_then(|ext| types.get(ext.as_str()).copied())
        .unwrap_or("application/octet-stream")
}

/// The largest file `GET /api/file` sends.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// `GET /api/file?path=`: a file's raw bytes (a document or an attachment such as an image), with
/// `x-content-type-options: nosniff`, `content-security-policy: sandbox` and `cache-control:
/// no-cache`. No dot paths, no symlinks, nothing outside the docs dir; 404 otherwise.
#[utoipa::path(get, path = "/api/file", tag = "documents", params(PathQuery),
    responses((status = 200, description = "The file's bytes", content_type = "application/octet-stream"),
        (status = 404, body = ErrorBody)))]
pub async fn file(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<PathQuery>,
) -> ApiResult {
    let path = required(&query.path, "path")?;
    let (scope, rel) = state.existing_in_folder(&access, path)?;
    if rel.split('/').any(is_skipped) {
        return Err(ApiError::not_found());
    }
    let abs = scope.paths().resolve(&rel, false).map_err(|_| ApiError::not_found())?;
    let bytes = tokio::task::spawn_blocking(move || -> Result<Vec<u8>, ApiError> {
        let meta = std::fs::symlink_metadata(&abs).map_err(|_| ApiError::not_found())?;
        if !meta.is_file() {
            return Err(ApiError::not_found());
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "File too large to send"));
        }
        std::fs::read(&abs).map_err(|_| ApiError::not_found())
    })
    .await
    .map_err(|err| ApiError::internal(err.to_string()))??;
    Ok((
        [
            (header::CONTENT_TYPE, content_type(&rel)),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CONTENT_SECURITY_POLICY, "sandbox"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from(bytes),
    )
        .into_response())
}
