//! What the chunk table holds and what reading it gives back: a row as the sync writes it, a
//! search's candidates and BM25 matches, the documents and files the tools and the sync list.
//! Plain data: [`super::store`] writes it, [`super::reads`] and [`super::dense`] read it.

use std::collections::HashMap;

use crate::markdown::links::{LinkTarget, NameIndex, resolve_wikilink};

/// One chunk as stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkRow {
    /// `<path>#<chunk index>@<file hash prefix>`.
    pub id: String,
    pub path: String,
    pub file_hash: String,
    pub mtime_ms: f64,
    pub size: f64,
    pub chunk_index: i32,
    pub title: String,
    pub heading: String,
    pub text: String,
    pub search_text: String,
    /// Superseded paths, `\n`-separated.
    pub supersedes: String,
    /// Tags as `" a b/c "`: a space at each end, so a tag matches as ` t ` or ` t/`.
    pub tags: String,
    /// Aliases, `\n`-separated.
    pub aliases: String,
    pub description: String,
    pub created_by: String,
    pub session: String,
    pub line_start: i32,
    pub line_end: i32,
    pub vector: Vec<f32>,
}

/// Superseded path -> the documents that name it in `supersedes`, sorted.
pub type Superseded = HashMap<String, Vec<String>>;

/// A document's path and front-matter aliases: what wikilinks and the alias boost resolve against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentNames {
    pub path: String,
    pub aliases: Vec<String>,
}

/// Every document's path and aliases, sorted by path, with the [`NameIndex`] that finds the few
/// a wikilink can point at: what link following, backlinks and `ragdown_read_doc` resolve against.
/// The index is made at the first resolution, so a version that resolves no link never pays for
/// it.
#[derive(Debug, Default)]
pub struct Names {
    pub documents: Vec<DocumentNames>,
    index: std::sync::OnceLock<NameIndex>,
}

impl Names {
    pub fn new(documents: Vec<DocumentNames>) -> Self {
        Self {
            documents,
            index: std::sync::OnceLock::new(),
        }
    }

    /// The documents filed under `key` in the name index (a [`crate::markdown::links::stem_key`]
    /// or another of their `name_keys`).
    pub fn filed_under<'s>(&'s self, key: &str) -> impl Iterator<Item = &'s DocumentNames> + use<'s> {
        self.index()
            .filed(key)
            .iter()
            .filter_map(|&i| self.documents.get(i as usize))
    }

    fn index(&self) -> &NameIndex {
        self.index.get_or_init(|| {
            NameIndex::new(
                self.documents
                    .iter()
                    .map(|doc| (doc.path.as_str(), doc.aliases.as_slice())),
            )
        })
    }

    /// The root-relative path of the document the wikilink `raw`, written in the document at
    /// `from` (relative to `folder`, a root-relative prefix such as `work/`, or empty), resolves
    /// to among the documents of that folder, as [`resolve_wikilink`] resolves it there.
    pub fn resolve(&self, raw: &str, from: &str, folder: &str) -> Option<&str> {
        let among: Vec<(LinkTarget<'_>, &str)> = self
            .index()
            .candidates(raw, from)
            .into_iter()
            .filter_map(|i| self.documents.get(i))
            .filter_map(|doc| {
                let path = doc.path.strip_prefix(folder)?;
                Some((
                    LinkTarget {
                        path,
                        aliases: &doc.aliases,
                    },
                    doc.path.as_str(),
                ))
            })
            .collect();
        let targets: Vec<LinkTarget<'_>> = among.iter().map(|(target, _)| *target).collect();
        let found = resolve_wikilink(raw, from, &targets)?;
        among
            .iter()
            .find(|(target, _)| target.path == found)
            .map(|(_, root)| *root)
    }
}

/// What a search returns for one chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub path: String,
    pub title: String,
    pub heading: String,
    pub text: String,
    pub tags: String,
    pub created_by: String,
    pub mtime_ms: f64,
    pub line_start: i32,
    pub line_end: i32,
    /// Cosine similarity to the query.
    pub similarity: f32,
    /// Whether the fields past `id`, `path` and `similarity` were read. The dense pool reads only
    /// those three for its candidates ([`Store::dense_pool`](super::store::Store::dense_pool)); [`Store::load`](super::store::Store::load) reads the rest
    /// for the few that become hits.
    pub loaded: bool,
}

impl Candidate {
    /// A candidate of which only its id, path and similarity are known yet.
    pub fn unloaded(id: &str, path: &str, similarity: f32) -> Self {
        Self {
            id: id.into(),
            path: path.into(),
            title: String::new(),
            heading: String::new(),
            text: String::new(),
            tags: String::new(),
            created_by: String::new(),
            mtime_ms: 0.0,
            line_start: 0,
            line_end: 0,
            similarity,
            loaded: false,
        }
    }
}

#[cfg(test)]
impl Candidate {
    /// A bare chunk `<id>.md`, lines 1-1, for tests of ranking and gating.
    pub(crate) fn for_test(id: &str, similarity: f32) -> Self {
        Self {
            line_start: 1,
            line_end: 1,
            loaded: true,
            ..Self::unloaded(id, &format!("{id}.md"), similarity)
        }
    }
}

/// A BM25 match: the chunk, its BM25 score, and its stored vector.
#[derive(Debug, Clone)]
pub struct Lexical {
    pub candidate: Candidate,
    pub score: f32,
    pub vector: Vec<f32>,
}

impl Lexical {
    /// The candidate with its cosine similarity to `query_vector` (both unit length), and its
    /// BM25 score.
    pub fn with_similarity(self, query_vector: &[f32]) -> (Candidate, f32) {
        let similarity = self.vector.iter().zip(query_vector).map(|(a, b)| a * b).sum();
        (
            Candidate {
                similarity,
                ..self.candidate
            },
            self.score,
        )
    }
}

/// An indexed document and its front matter.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentInfo {
    pub path: String,
    pub title: String,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub mtime_ms: f64,
    pub created_by: String,
    pub session: String,
    pub description: String,
    /// The paths its front matter says it supersedes, root-relative.
    pub supersedes: Vec<String>,
}

impl DocumentInfo {
    /// The document whose first chunk `row` is, as [`Store::documents`](super::store::Store::documents) reads it back.
    pub fn of(row: &ChunkRow) -> Self {
        Self {
            path: row.path.clone(),
            title: row.title.clone(),
            aliases: lines(&row.aliases),
            tags: row.tags.split_whitespace().map(str::to_string).collect(),
            mtime_ms: row.mtime_ms,
            created_by: row.created_by.clone(),
            session: row.session.clone(),
            description: row.description.clone(),
            supersedes: lines(&row.supersedes),
        }
    }
}

/// The non-empty lines of a `\n`-separated column (aliases, superseded paths).
pub fn lines(value: &str) -> Vec<String> {
    value
        .split('\n')
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .collect()
}

/// What the sync needs to know about an indexed file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileState {
    pub file_hash: String,
    pub mtime_ms: f64,
    pub size: f64,
    pub chunks: usize,
}

/// Counts one more chunk of the file at `path` in `files`, the file's state as given when it is
/// the first.
pub(super) fn count_chunk(
    files: &mut std::collections::HashMap<String, FileState>,
    path: &str,
    file_hash: &str,
    mtime_ms: f64,
    size: f64,
) {
    files
        .entry(path.to_string())
        .and_modify(|state| state.chunks += 1)
        .or_insert_with(|| FileState {
            file_hash: file_hash.to_string(),
            mtime_ms,
            size,
            chunks: 1,
        });
}
