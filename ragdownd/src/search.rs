//! Hybrid retrieval: a dense pool and a BM25 pool, fused by reciprocal rank.
//!
//! Ranking uses the fused score; every gate downstream uses the cosine `similarity`, which both
//! sides carry (the lexical side computes it from the stored vector). Filters run inside LanceDB
//! before the top-k, so a filtered search still returns up to `limit` hits.

use std::collections::HashMap;
use std::sync::LazyLock;

use embedd::TextKind;
use regex::Regex;

use crate::embed::{EmbedError, Embedder};
use crate::index::store::{Candidate, Store, StoreError, quote};

/// The RRF constant.
pub const RRF_K: f64 = 60.0;

/// Who wrote a document, by its `created_by` front matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, rmcp::schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum WrittenBy {
    /// Documents with a `created_by` (written through a tool).
    Agent,
    /// Documents without one.
    User,
}

/// A search.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest<'a> {
    pub query: &'a str,
    pub limit: usize,
    /// A root-relative directory prefix ending in `/`, or empty for everything.
    pub path_prefix: String,
    /// A tag; its sub-tags match too (`project` matches `project/alpha`).
    pub tag: Option<String>,
    pub written_by: Option<WrittenBy>,
    /// Root-relative prefixes (each ending in `/`) of which a path must start with one: the
    /// folders a root endpoint spans (none: nothing is found). `None` for no such limit.
    pub within: Option<Vec<String>>,
}

/// One ranked chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub chunk: Candidate,
    /// The fused rank score.
    pub score: f64,
    /// Which pools found it: `dense`, `lexical`.
    pub sources: Vec<&'static str>,
}

/// Search failures.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
}

static HAS_WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\p{L}\p{N}]").expect("valid regex"));

/// Normalises a tag filter as tags are stored: lowercase, no leading `#`, no trailing `/`.
pub fn normalize_tag(tag: &str) -> String {
    tag.trim().trim_start_matches('#').trim_end_matches('/').to_lowercase()
}

/// The WHERE clause for a request, or `None` when nothing filters.
pub fn filter_clause(request: &SearchRequest<'_>, superseded: &[String]) -> Option<String> {
    let mut clauses = Vec::new();
    if !request.path_prefix.is_empty() {
        clauses.push(format!("starts_with(path, {})", quote(&request.path_prefix)));
    }
    if let Some(within) = request.within.as_ref().filter(|w| !w.is_empty()) {
        let any = within
            .iter()
            .map(|prefix| format!("starts_with(path, {})", quote(prefix)))
            .collect::<Vec<_>>()
            .join(" OR ");
        clauses.push(format!("({any})"));
    }
    if let Some(tag) = request.tag.as_deref().map(normalize_tag).filter(|t| !t.is_empty()) {
        clauses.push(format!(
            "(strpos(tags, {}) > 0 OR strpos(tags, {}) > 0)",
            quote(&format!(" {tag} ")),
            quote(&format!(" {tag}/"))
        ));
    }
    match request.written_by {
        Some(WrittenBy::Agent) => clauses.push("created_by <> ''".into()),
        Some(WrittenBy::User) => clauses.push("created_by = ''".into()),
        None => {}
    }
    if !superseded.is_empty() {
        let list = superseded.iter().map(|p| quote(p)).collect::<Vec<_>>().join(", ");
        clauses.push(format!("path NOT IN ({list})"));
    }
    (!clauses.is_empty()).then(|| clauses.join(" AND "))
}

/// Fuses ranked lists by reciprocal rank. Ties keep the order of first appearance (dense first).
pub fn fuse(lists: Vec<(&'static str, Vec<Candidate>)>, limit: usize) -> Vec<Hit> {
    let mut order: Vec<String> = Vec::new();
    let mut hits: HashMap<String, Hit> = HashMap::new();
    for (source, list) in lists {
        for (rank, candidate) in list.into_iter().enumerate() {
            let share = 1.0 / (RRF_K + rank as f64 + 1.0);
            match hits.get_mut(&candidate.id) {
                Some(hit) => {
                    hit.score += share;
                    hit.sources.push(source);
                }
                None => {
                    order.push(candidate.id.clone());
                    hits.insert(
                        candidate.id.clone(),
                        Hit {
                            chunk: candidate,
                            score: share,
                            sources: vec![source],
                        },
                    );
                }
            }
        }
    }
    let mut fused: Vec<Hit> = order.into_iter().filter_map(|id| hits.remove(&id)).collect();
    // A stable sort: equal scores keep first-appearance order.
    fused.sort_by(|a, b| b.score.total_cmp(&a.score));
    fused.truncate(limit);
    fused
}

/// Runs a hybrid search.
pub async fn search(
    store: &Store,
    embedder: &dyn Embedder,
    request: &SearchRequest<'_>,
) -> Result<Vec<Hit>, SearchError> {
    if request.within.as_ref().is_some_and(Vec::is_empty) {
        return Ok(Vec::new());
    }
    let query_vector = embedder
        .embed(vec![request.query.to_string()], TextKind::Query)
        .await?
        .pop()
        .unwrap_or_default();
    let pool = (request.limit * 4).max(20);
    let mut superseded: Vec<String> = store.superseded().await?.keys().cloned().collect();
    superseded.sort();
    let filter = filter_clause(request, &superseded);
    let dense = store.dense(&query_vector, filter.as_deref(), pool).await?;
    let mut lists = vec![("dense", dense)];
    if HAS_WORD.is_match(request.query) {
        match store
            .lexical(request.query, &query_vector, filter.as_deref(), pool)
            .await
        {
            Ok(lexical) => lists.push(("lexical", lexical)),
            Err(err) => tracing::warn!("full-text search failed, answering from vectors alone: {err}"),
        }
    }
    Ok(fuse(lists, request.limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(id: &str) -> Candidate {
        Candidate::for_test(id, 0.5)
    }

    #[test]
    fn rrf_adds_shares_and_records_sources() {
        let dense = vec![candidate("a"), candidate("b"), candidate("c")];
        let lexical = vec![candidate("c"), candidate("d")];
        let hits = fuse(vec![("dense", dense), ("lexical", lexical)], 10);
        let ids: Vec<&str> = hits.iter().map(|h| h.chunk.id.as_str()).collect();
        // c: 1/63 + 1/61 beats a: 1/61; b (1/62) and d (1/62) tie, b first (dense first).
        assert_eq!(ids, ["c", "a", "b", "d"]);
        assert!((hits[0].score - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-12);
        assert_eq!(hits[0].sources, ["dense", "lexical"]);
        assert_eq!(hits[3].sources, ["lexical"]);
        assert_eq!(fuse(vec![("dense", vec![candidate("x"), candidate("y")])], 1).len(), 1);
    }

    #[test]
    fn filters_build_the_reference_where_clause() {
        let request = SearchRequest {
            query: "q",
            limit: 8,
            path_prefix: "ops/".into(),
            tag: Some("#Project/".into()),
            written_by: Some(WrittenBy::Agent),
            within: None,
        };
        assert_eq!(
            filter_clause(&request, &["old's.md".to_string()]).unwrap(),
            "starts_with(path, 'ops/') AND (strpos(tags, ' project ') > 0 OR strpos(tags, ' project/') > 0) \
             AND created_by <> '' AND path NOT IN ('old''s.md')"
        );
        let spanning = SearchRequest {
            within: Some(vec!["ops/".into(), "work/".into()]),
            ..SearchRequest::default()
        };
        assert_eq!(
            filter_clause(&spanning, &[]).unwrap(),
            "(starts_with(path, 'ops/') OR starts_with(path, 'work/'))"
        );
        assert_eq!(filter_clause(&SearchRequest::default(), &[]), None);
    }
}
