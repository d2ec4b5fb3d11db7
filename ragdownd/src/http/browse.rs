//! The file list of a folder too large to send whole, a page at a time: `GET /api/browse` (one
//! directory of the tree), `GET /api/find` (what the list's filter, tag or "Recently changed"
//! picks), `GET /api/tags` (the tag menu), `GET /api/jump` (the quick switcher's best
//! matches) and `GET /api/complete` (the editor's `[[` completion). Each answers from the documents held per table version ([`crate::tools::browse`]),
//! within what the caller's access opens, and sends a bounded page, where `GET /api/docs` sends
//! every document of the folder (all 150,000 of a large vault).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::docs::doc_info;
use super::error::{ApiQuery, ApiResult};
use super::schema::{DocInfo, ErrorBody};
use super::{AppState, required};
use crate::access::Access;
use crate::search::normalize_tag;
use crate::tools::browse::{self, Page, Wanted};
use crate::tools::complete;

/// Documents a page of the tree or a filtered list holds when the request names no `limit`.
const DEFAULT_PAGE: usize = 500;
/// Matches the quick switcher shows when the request names no `limit`.
const DEFAULT_JUMP: usize = 50;

/// `GET /api/browse`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BrowseQuery {
    pub folder: Option<String>,
    /// The directory inside the folder, `/`-separated; the folder's top when left out.
    pub dir: Option<String>,
    /// Documents to skip (the subdirectories come on every page).
    pub offset: Option<usize>,
    /// Most documents to send: 500 unless set, at most 2,000.
    pub limit: Option<usize>,
}

/// A subdirectory of the one listed.
#[derive(Debug, Serialize, ToSchema)]
pub struct DirInfo {
    pub name: String,
    /// Inside the folder, `/`-separated.
    pub path: String,
    /// Documents in it and below it.
    pub count: usize,
}

/// One directory of a folder's tree.
#[derive(Debug, Serialize, ToSchema)]
pub struct DirListing {
    /// Inside the folder; `""` for its top.
    pub dir: String,
    /// Every subdirectory, in natural order (case ignored, numbers as numbers).
    pub dirs: Vec<DirInfo>,
    /// The page of its documents, in the same order.
    pub docs: Vec<DocInfo>,
    /// The documents directly in it, on every page.
    pub total_docs: usize,
}

/// `GET /api/find`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FindQuery {
    pub folder: Option<String>,
    /// Words that must all appear (case, width and composition ignored) in the title, the path
    /// inside the folder, an alias, a `#tag` or the description.
    pub q: Option<String>,
    /// A tag, matching it and the tags under it.
    pub tag: Option<String>,
    /// `recent`: newest change first; by path otherwise.
    pub sort: Option<String>,
    pub offset: Option<usize>,
    /// Most documents to send: 500 unless set, at most 2,000.
    pub limit: Option<usize>,
}

/// A page of the documents a list picks.
#[derive(Debug, Serialize, ToSchema)]
pub struct Found {
    pub docs: Vec<DocInfo>,
    /// How many match, on every page.
    pub total: usize,
}

/// `GET /api/tags`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TagsQuery {
    pub folder: Option<String>,
}

/// A tag and how many documents carry it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TagCount {
    pub tag: String,
    pub count: usize,
}

/// The tags of a folder's documents.
#[derive(Debug, Serialize, ToSchema)]
pub struct TagList {
    /// By tag.
    pub tags: Vec<TagCount>,
}

/// `GET /api/complete`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CompleteQuery {
    pub folder: Option<String>,
    /// What was typed after `[[`; the most recently changed documents when blank.
    pub q: Option<String>,
    /// Most offers: 50 unless set, at most 2,000.
    pub limit: Option<usize>,
}

/// A document as `[[` completion offers it.
#[derive(Debug, Serialize, ToSchema)]
pub struct LinkOffer {
    /// What the link writes: the shortest name that finds only this document in the folder.
    pub name: String,
    pub title: String,
    /// Inside the folder.
    pub path: String,
    pub aliases: Vec<String>,
}

/// `[[` completion's offers, best first.
#[derive(Debug, Serialize, ToSchema)]
pub struct LinkOffers {
    pub offers: Vec<LinkOffer>,
}

/// `GET /api/jump`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct JumpQuery {
    /// What was typed; the most recently changed documents when blank.
    pub q: Option<String>,
    /// Only this folder's documents; every folder the caller may read when left out.
    pub folder: Option<String>,
    /// Most matches: 50 unless set, at most 2,000.
    pub limit: Option<usize>,
}

/// The quick switcher's matches, best first.
#[derive(Debug, Serialize, ToSchema)]
pub struct Jumps {
    pub docs: Vec<DocInfo>,
}

/// `GET /api/browse?folder=&dir=&offset=&limit=`: one directory of a folder's tree: every
/// subdirectory with its document count, then a page of its documents.
#[utoipa::path(get, path = "/api/browse", tag = "documents", params(BrowseQuery),
    responses((status = 200, body = DirListing), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn browse(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<BrowseQuery>,
) -> ApiResult {
    let folder = required(&query.folder, "folder")?;
    let prefixes = state.listable(&access, Some(folder))?;
    let inside = query.dir.as_deref().unwrap_or_default().trim_matches('/');
    let name = folder.split('/').next().unwrap_or(folder);
    let dir = if inside.is_empty() {
        name.to_string()
    } else {
        format!("{name}/{inside}")
    };
    let ready = state.ready()?;
    let store = ready.store();
    let (documents, catalog) = (store.document_map().await?, store.catalog().await?);
    let listed = browse::browse(
        &documents,
        &catalog,
        &dir,
        &prefixes,
        Page::new(query.offset, query.limit, DEFAULT_PAGE),
    );
    let (files, superseded) = (store.files().await?, store.superseded().await?);
    let strip = |path: &str| {
        path.strip_prefix(name)
            .unwrap_or(path)
            .trim_start_matches('/')
            .to_string()
    };
    Ok(Json(DirListing {
        dir: inside.to_string(),
        dirs: listed
            .dirs
            .into_iter()
            .map(|d| DirInfo {
                path: strip(&d.path),
                name: d.name,
                count: d.count,
            })
            .collect(),
        docs: listed
            .docs
            .iter()
            .map(|doc| doc_info(doc, &files, &superseded))
            .collect(),
        total_docs: listed.total_docs,
    })
    .into_response())
}

/// `GET /api/find?folder=&q=&tag=&sort=&offset=&limit=`: the folder's documents that hold every
/// word and carry the tag, by path or newest first, a page at a time.
#[utoipa::path(get, path = "/api/find", tag = "documents", params(FindQuery),
    responses((status = 200, body = Found), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn find(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<FindQuery>,
) -> ApiResult {
    let folder = required(&query.folder, "folder")?;
    let prefixes = state.listable(&access, Some(folder))?;
    let wanted = Wanted {
        words: browse::words(query.q.as_deref().unwrap_or_default()),
        tag: query.tag.as_deref().map(normalize_tag).filter(|t| !t.is_empty()),
        recent: query.sort.as_deref() == Some("recent"),
    };
    let ready = state.ready()?;
    let store = ready.store();
    let documents = store.document_map().await?;
    let (docs, total) = browse::find(
        &documents,
        &prefixes,
        &wanted,
        Page::new(query.offset, query.limit, DEFAULT_PAGE),
    );
    let (files, superseded) = (store.files().await?, store.superseded().await?);
    let docs = docs.iter().map(|doc| doc_info(doc, &files, &superseded)).collect();
    Ok(Json(Found { docs, total }).into_response())
}

/// `GET /api/tags?folder=`: every tag the folder's documents carry (that the caller may read),
/// with how many carry each.
#[utoipa::path(get, path = "/api/tags", tag = "documents", params(TagsQuery),
    responses((status = 200, body = TagList), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn tags(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<TagsQuery>,
) -> ApiResult {
    let folder = required(&query.folder, "folder")?;
    let prefixes = state.listable(&access, Some(folder))?;
    let documents = state.ready()?.store().document_map().await?;
    let tags = browse::tags(&documents, &prefixes)
        .into_iter()
        .map(|(tag, count)| TagCount { tag, count })
        .collect();
    Ok(Json(TagList { tags }).into_response())
}

/// `GET /api/complete?folder=&q=&limit=`: the editor's `[[` completion: the folder's documents
/// whose title, path or an alias hold every word, best first, each with the shortest name a
/// wikilink can use for it.
#[utoipa::path(get, path = "/api/complete", tag = "documents", params(CompleteQuery),
    responses((status = 200, body = LinkOffers), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn complete(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<CompleteQuery>,
) -> ApiResult {
    let folder = required(&query.folder, "folder")?;
    let prefixes = state.listable(&access, Some(folder))?;
    let name = folder.split('/').next().unwrap_or(folder);
    let ready = state.ready()?;
    let store = ready.store();
    let (documents, names) = (store.document_map().await?, store.names().await?);
    let limit = Page::new(None, query.limit, DEFAULT_JUMP).limit;
    let query = query.q.as_deref().unwrap_or_default();
    let offers = complete::complete(&documents, &names, name, &prefixes, query, limit)
        .into_iter()
        .map(|offer| LinkOffer {
            name: offer.name,
            title: offer.doc.title.clone(),
            path: offer
                .doc
                .path
                .strip_prefix(name)
                .unwrap_or(&offer.doc.path)
                .trim_start_matches('/')
                .to_string(),
            aliases: offer.doc.aliases.clone(),
        })
        .collect();
    Ok(Json(LinkOffers { offers }).into_response())
}

/// `GET /api/jump?q=&folder=&limit=`: documents whose title, path or an alias holds every word,
/// best first; with nothing typed, the most recently changed.
#[utoipa::path(get, path = "/api/jump", tag = "documents", params(JumpQuery),
    responses((status = 200, body = Jumps), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn jump(
    State(state): State<Arc<AppState>>,
    access: Access,
    ApiQuery(query): ApiQuery<JumpQuery>,
) -> ApiResult {
    let folder = query.folder.as_deref().filter(|f| !f.is_empty());
    let prefixes = state.listable(&access, folder)?;
    let ready = state.ready()?;
    let store = ready.store();
    let documents = store.document_map().await?;
    let limit = Page::new(None, query.limit, DEFAULT_JUMP).limit;
    let docs = browse::jump(&documents, &prefixes, query.q.as_deref().unwrap_or_default(), limit);
    let (files, superseded) = (store.files().await?, store.superseded().await?);
    let docs = docs.iter().map(|doc| doc_info(doc, &files, &superseded)).collect();
    Ok(Json(Jumps { docs }).into_response())
}
