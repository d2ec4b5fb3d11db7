//! A vault's queries: drawn uniformly over every chunk written, real and generated, from the
//! files as written (each picked file is read back and chunked), so a query always points at a
//! chunk that is there.
//!
//! Seven in ten are `words`: 6-10 consecutive words of one prose paragraph of the chunk
//! (Markdown emphasis and code marks taken off their ends, so each is part of the chunk's text);
//! the rest `heading`: the last name of the chunk's heading path. A query's kind is drawn first,
//! then chunks until one can give that kind (a chunk without a heading cannot be a `heading`
//! query, one without a paragraph of six words a `words` one), so the mix holds whatever the
//! corpus.

use std::collections::HashMap;
use std::path::Path;

use ragdownd::markdown::{Chunk, HEADING_SEPARATOR, chunk_document};
use serde::Serialize;

use super::Files;
use super::chain::Rng;
use super::prose::prose_paragraphs;

/// Chunks drawn for one query before it is given up.
const TRIES: usize = 1000;

/// A words query longer than this (a CJK paragraph with a few spaces) is not used.
const MAX_QUERY_CHARS: usize = 200;

/// One query of `queries.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Query {
    pub query: String,
    /// `words` or `heading`.
    pub kind: &'static str,
    /// The file, relative to the vault, posix.
    pub path: String,
    /// The chunk's index in that file.
    pub chunk: usize,
}

/// 6-10 consecutive words of one of the chunk's prose paragraphs.
fn words_query(chunk: &Chunk, rng: &mut Rng) -> Option<String> {
    let mut paragraphs: Vec<Vec<&str>> = Vec::new();
    prose_paragraphs(&chunk.text, |words| {
        let words: Vec<&str> = words
            .iter()
            .map(|w| w.trim_matches(['*', '_', '`']))
            .filter(|w| !w.is_empty())
            .collect();
        if words.len() >= 6 {
            paragraphs.push(words);
        }
    });
    if paragraphs.is_empty() {
        return None;
    }
    let words = &paragraphs[rng.below(paragraphs.len())];
    let n = rng.range(6, 10).min(words.len());
    let start = rng.below(words.len() - n + 1);
    let query = words[start..start + n].join(" ");
    (query.chars().count() <= MAX_QUERY_CHARS).then_some(query)
}

/// The last name of the chunk's heading path.
fn heading_query(chunk: &Chunk) -> Option<String> {
    let last = chunk.heading.rsplit(HEADING_SEPARATOR).next()?.trim();
    (!last.is_empty()).then(|| last.to_owned())
}

/// `count` queries over the chunks of `files`, written under `out`.
pub(crate) fn draw(out: &Path, files: &Files, count: usize, rng: &mut Rng) -> anyhow::Result<Vec<Query>> {
    let mut queries = Vec::with_capacity(count);
    let total = files.chunks();
    if total == 0 {
        return Ok(queries);
    }
    let mut read: HashMap<usize, Vec<Chunk>> = HashMap::new();
    let mut given_up = 0;
    for _ in 0..count {
        let heading = !rng.chance(70);
        let mut found = None;
        for _ in 0..TRIES {
            let (file, index) = files.locate(rng.below(total));
            let path = files.path(file);
            let chunks = match read.entry(file) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let text = std::fs::read_to_string(out.join(path))?;
                    e.insert(chunk_document(path, &text).chunks)
                }
            };
            let chunk = &chunks[index];
            let query = if heading {
                heading_query(chunk)
            } else {
                words_query(chunk, rng)
            };
            if let Some(query) = query {
                found = Some(Query {
                    query,
                    kind: if heading { "heading" } else { "words" },
                    path: path.to_owned(),
                    chunk: index,
                });
                break;
            }
        }
        match found {
            Some(query) => queries.push(query),
            None => given_up += 1,
        }
    }
    if given_up > 0 {
        eprintln!("vault: {given_up} queries found no chunk of their kind in {TRIES} draws");
    }
    Ok(queries)
}
