//! Hybrid retrieval: a dense pool and a BM25 pool, merged into one ranking.
//!
//! A query that names something (a quoted command, a snake_case key, a path, a flag, ...: see
//! [`route`]) is fused by score, leaning on BM25; any other by reciprocal rank, with the heading
//! boost (a query that is a section's name) and the alias boost. Then, as configured, the per-document cap and link following. Ranking uses the fused
//! score; every gate downstream uses the cosine `similarity`, which both sides carry (the lexical
//! side computes it from the stored vector). Filters run inside LanceDB before the top-k, so a
//! filtered search still returns up to `limit` hits.

use std::collections::HashSet;
use std::sync::LazyLock;

use embedd::TextKind;
use regex::Regex;

use crate::embed::{EmbedError, Embedder};
use crate::index::filter::Filter;
use crate::index::rows::Candidate;
use crate::index::scan::Layout;
use crate::index::store::{Store, StoreError};

pub mod follow;
pub mod fusion;
pub mod route;

pub use fusion::{RRF_K, fuse};

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
    /// The query as the agent or person wrote it: embedded for the dense side, rewritten for
    /// BM25 (`index::terms::lexical_query`), and read for routing and aliases.
    pub query: &'a str,
    /// How many hits to return, after fusion, the per-document cap and link following.
    pub limit: usize,
    /// A root-relative directory prefix ending in `/`, or empty for everything.
    pub path_prefix: String,
    /// A tag; its sub-tags match too (`project` matches `project/alpha`).
    pub tag: Option<String>,
    /// Only documents an agent wrote, or only those it did not; `None` for both.
    pub written_by: Option<WrittenBy>,
    /// Root-relative prefixes (each ending in `/`) of which a path must start with one: the
    /// folders a root endpoint spans (none: nothing is found). `None` for no such limit.
    pub within: Option<Vec<String>>,
}

/// One ranked chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The section, as the index holds it, with its cosine similarity to the query.
    pub chunk: Candidate,
    /// What ranks it: a sum of RRF shares (plus the alias boost), a score-fusion value in
    /// [0, 1] for a query routed there, or for a section placed by a link the linking hit's.
    /// Not comparable across queries; gates use `chunk.similarity`.
    pub score: f64,
    /// What found it: `dense`, `lexical`, or `link` for a section placed by link following.
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

/// A search that failed is the server's failure: the query was checked before it ran.
impl crate::error::Kinded for SearchError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::Internal
    }
}

static HAS_WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\p{L}\p{N}]").expect("valid regex"));

/// How the two pools are merged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Fusion {
    /// By score for a query that names something, by rank otherwise: what the tools do.
    #[default]
    Routed,
    /// Reciprocal rank fusion for every query (with the alias boost).
    Rank,
    /// Score fusion for every query.
    Score,
    /// The dense pool alone, by cosine (benchmarks).
    DenseOnly,
    /// The BM25 pool alone (benchmarks).
    LexicalOnly,
}

/// The server's search settings (`RAGDOWN_MAX_PER_DOCUMENT`, `RAGDOWN_FOLLOW_LINKS`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchSettings {
    /// Most sections of one document ahead of other documents' (0: no cap).
    pub max_per_document: usize,
    /// How many of the best hits have their wikilinks followed (0: off).
    pub follow_links: usize,
}

/// How one search ranks, beyond what it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    pub settings: SearchSettings,
    /// Which folder a hit's links resolve in (the engine's layout).
    pub layout: Layout,
    pub fusion: Fusion,
    /// Whether a query naming a document's alias boosts that document (rank fusion only).
    pub alias_boost: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self::new(SearchSettings::default(), Layout::Single)
    }
}

impl SearchOptions {
    /// What the tools use: routed fusion, the alias boost, and the server's settings.
    pub fn new(settings: SearchSettings, layout: Layout) -> Self {
        Self {
            settings,
            layout,
            fusion: Fusion::Routed,
            alias_boost: true,
        }
    }
}

/// Normalises a tag filter as tags are stored: lowercase, no leading `#`, no trailing `/`.
pub fn normalize_tag(tag: &str) -> String {
    tag.trim().trim_start_matches('#').trim_end_matches('/').to_lowercase()
}

/// What a request lets through, with the superseded documents left out.
pub fn filter_for(request: &SearchRequest<'_>, superseded: &[String]) -> Filter {
    Filter {
        path_prefix: request.path_prefix.clone(),
        within: request.within.clone().filter(|w| !w.is_empty()),
        path: None,
        tag: request.tag.as_deref().map(normalize_tag).filter(|t| !t.is_empty()),
        by_agent: request.written_by.map(|by| by == WrittenBy::Agent),
        exclude: superseded.to_vec(),
    }
}

/// Runs a hybrid search with routed fusion and the alias boost, no cap and no link following.
pub async fn search(
    store: &Store,
    embedder: &dyn Embedder,
    request: &SearchRequest<'_>,
) -> Result<Vec<Hit>, SearchError> {
    search_with(store, embedder, request, &SearchOptions::default()).await
}

/// Runs a search as `options` say.
pub async fn search_with(
    store: &Store,
    embedder: &dyn Embedder,
    request: &SearchRequest<'_>,
    options: &SearchOptions,
) -> Result<Vec<Hit>, SearchError> {
    if request.within.as_ref().is_some_and(Vec::is_empty) {
        return Ok(Vec::new());
    }
    let pool = (request.limit * 4).max(20);
    let mut superseded: Vec<String> = store.superseded().await?.keys().cloned().collect();
    superseded.sort();
    let filter = filter_for(request, &superseded);
    let (query_vector, pools) = pools(store, embedder, request.query, &filter, pool, options.fusion).await?;
    let mut hits = match options.fusion {
        Fusion::DenseOnly => fuse(vec![("dense", pools.dense)], usize::MAX),
        Fusion::LexicalOnly => {
            let lexical = pools.lexical.into_iter().map(|(c, _)| c).collect();
            fuse(vec![("lexical", lexical)], usize::MAX)
        }
        Fusion::Score => fusion::score_fusion(pools),
        Fusion::Routed if route::is_identifier_query(request.query) => fusion::score_fusion(pools),
        Fusion::Routed | Fusion::Rank => {
            let unreadable = options.fusion == Fusion::Routed
                && embedder.multilingual() == Some(false)
                && route::is_mostly_cjk(request.query);
            let mut hits = if unreadable {
                fusion::lexical_first(pools)
            } else {
                fusion::rank_fusion(pools)
            };
            if options.fusion == Fusion::Routed {
                fusion::boost_headings(&mut hits, request.query);
            }
            if options.alias_boost {
                let named = aliased_documents(store, request.query).await?;
                fusion::boost_aliases(&mut hits, &named);
            }
            hits
        }
    };
    hits = fusion::cap_per_document(hits, options.settings.max_per_document);
    hits.truncate(request.limit);
    store
        .load(&query_vector, hits.iter_mut().map(|hit| &mut hit.chunk))
        .await?;
    hits.retain(|hit| hit.chunk.loaded);
    let mut hits = follow::follow_links(
        store,
        &query_vector,
        &filter,
        hits,
        options.settings.follow_links,
        options.layout,
    )
    .await?;
    hits.truncate(request.limit);
    Ok(hits)
}

/// The query's vector, and its dense and BM25 pools (only those `fusion` uses). The BM25 search
/// runs while the query is embedded and the vectors searched, and its candidates get their cosine
/// once the vector is there. A BM25 failure is logged and leaves the lexical pool empty, so the
/// search answers from vectors alone.
async fn pools(
    store: &Store,
    embedder: &dyn Embedder,
    query: &str,
    filter: &Filter,
    pool: usize,
    fusion: Fusion,
) -> Result<(Vec<f32>, fusion::Pools), SearchError> {
    let dense = async {
        let query_vector = embedder
            .embed(vec![query.to_string()], TextKind::Query)
            .await?
            .pop()
            .unwrap_or_default();
        let dense = match fusion {
            Fusion::LexicalOnly => Vec::new(),
            _ => store.dense_pool(&query_vector, filter, pool).await?,
        };
        Ok::<_, SearchError>((query_vector, dense))
    };
    let lexical_query = crate::index::terms::lexical_query(query);
    let lexical = async {
        if fusion == Fusion::DenseOnly || !HAS_WORD.is_match(query) {
            return Vec::new();
        }
        match store.lexical(&lexical_query, filter, pool).await {
            Ok(lexical) => lexical,
            Err(err) => {
                tracing::warn!("full-text search failed, answering from vectors alone: {err}");
                Vec::new()
            }
        }
    };
    let (dense, lexical) = futures::join!(dense, lexical);
    let (query_vector, mut dense) = dense?;
    let lexical: Vec<(Candidate, f32)> = lexical
        .into_iter()
        .map(|found| found.with_similarity(&query_vector))
        .collect();
    // A chunk both pools found needs no second read: BM25's copy has every field.
    for candidate in dense.iter_mut().filter(|c| !c.loaded) {
        if let Some((full, _)) = lexical.iter().find(|(l, _)| l.id == candidate.id) {
            *candidate = Candidate {
                similarity: candidate.similarity,
                ..full.clone()
            };
        }
    }
    Ok((query_vector, fusion::Pools { dense, lexical }))
}

/// The documents `query` calls by one of their aliases (whole word, ignoring case, 3+ characters):
/// the ones the alias boost lifts, and whose best-ranked hit the hook injects whatever its cosine.
pub async fn aliased_documents(store: &Store, query: &str) -> Result<HashSet<String>, SearchError> {
    Ok(store
        .document_map()
        .await?
        .values()
        .filter(|doc| doc.aliases.iter().any(|alias| route::names_alias(query, alias)))
        .map(|doc| doc.path.clone())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            filter_for(&request, &["old's.md".to_string()]).to_sql().unwrap(),
            "starts_with(path, 'ops/') AND (strpos(tags, ' project ') > 0 OR strpos(tags, ' project/') > 0) \
             AND created_by <> '' AND path NOT IN ('old''s.md')"
        );
        let spanning = SearchRequest {
            within: Some(vec!["ops/".into(), "work/".into()]),
            ..SearchRequest::default()
        };
        assert_eq!(
            filter_for(&spanning, &[]).to_sql().unwrap(),
            "(starts_with(path, 'ops/') OR starts_with(path, 'work/'))"
        );
        assert_eq!(filter_for(&SearchRequest::default(), &[]).to_sql(), None);
    }
}
