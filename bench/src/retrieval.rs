//! The `retrieval` workload: how often search puts the right section first, on the generated
//! runbook corpus, with the real index and search code.
//!
//! Question sets: the 210 answerable questions of the runbook benchmark (7 kinds), 30
//! identifier questions and 30 alias questions (`bench::corpus`). Each is searched with the
//! product's ranking (`routed`: score fusion for identifier queries, rank fusion with the alias
//! boost otherwise) and, for comparison, rank fusion for every query, score fusion for every
//! query, the dense pool alone and the BM25 pool alone. A question counts as answered at rank r
//! when the r-th hit is its gold section (`path == <slug>.md`, heading `<title> › <section>`).
//! Reported: top-1, recall@5 and MRR over the top 10, overall and per kind, and the latency of
//! the product search.
//!
//! The hook's own measures (hook recall, chunks per prompt, off-topic injections, the ratio-gate
//! sweep) belong with `ragdown_context`: [`hook_metrics`] is where they plug in.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use bench::corpus::{self, Corpus, Question};
use ragdownd::engine::Engine;
use ragdownd::index::rows::Candidate;
use ragdownd::markdown::HEADING_SEPARATOR;
use ragdownd::search::{self, Fusion, SearchOptions, SearchRequest};
use serde_json::{Value, json};

/// Hits per search: MRR is over the top 10 (a question whose gold section is lower counts 0).
pub(crate) const LIMIT: usize = 10;

/// The rankings compared, by the name the results use.
const MODES: [(&str, Fusion, bool); 6] = [
    ("routed", Fusion::Routed, true),
    ("routed_no_alias_boost", Fusion::Routed, false),
    ("rank_fusion", Fusion::Rank, true),
    ("score_fusion", Fusion::Score, true),
    ("dense", Fusion::DenseOnly, false),
    ("bm25", Fusion::LexicalOnly, false),
];

/// Where one question's gold section ranked (1-based), if in the top [`LIMIT`], and the
/// `path › heading` of the first three hits.
async fn gold_rank(
    engine: &Engine,
    corpus: &Corpus,
    q: &Question,
    options: &SearchOptions,
) -> anyhow::Result<(Option<usize>, Vec<String>)> {
    let doc = corpus
        .docs
        .iter()
        .find(|d| d.slug == q.doc)
        .expect("the question's document");
    let path = format!("{}.md", doc.slug);
    let heading = format!("{}{HEADING_SEPARATOR}{}", doc.title, q.section);
    rank_of(engine, &q.q, options, |chunk| {
        chunk.path == path && chunk.heading == heading
    })
    .await
}

/// Where the first hit that `is_gold` accepts ranked (1-based) among the top [`LIMIT`] of
/// `query` searched with `options`, and the `path › heading` of the first three hits.
pub(crate) async fn rank_of(
    engine: &Engine,
    query: &str,
    options: &SearchOptions,
    is_gold: impl Fn(&Candidate) -> bool,
) -> anyhow::Result<(Option<usize>, Vec<String>)> {
    let request = SearchRequest {
        query,
        limit: LIMIT,
        ..SearchRequest::default()
    };
    let hits = search::search_with(engine.store(), engine.embedder.as_ref(), &request, options).await?;
    let rank = hits.iter().position(|h| is_gold(&h.chunk)).map(|i| i + 1);
    let top = hits
        .iter()
        .take(3)
        .map(|h| format!("{}{HEADING_SEPARATOR}{}", h.chunk.path, h.chunk.heading))
        .collect();
    Ok((rank, top))
}

/// The options that rank as the mode `name` of [`MODES`] does.
pub(crate) fn mode_options(name: &str) -> SearchOptions {
    let (_, fusion, alias_boost) = MODES
        .iter()
        .find(|(mode, ..)| *mode == name)
        .unwrap_or_else(|| panic!("no ranking mode {name}"));
    SearchOptions {
        fusion: *fusion,
        alias_boost: *alias_boost,
        ..SearchOptions::default()
    }
}

/// Top-1, recall@5 and MRR of a list of ranks.
pub(crate) fn scores(ranks: &[Option<usize>]) -> Value {
    let n = ranks.len().max(1) as f64;
    let top1 = ranks.iter().filter(|r| **r == Some(1)).count() as f64 / n;
    let recall5 = ranks.iter().filter(|r| r.is_some_and(|r| r <= 5)).count() as f64 / n;
    let mrr = ranks.iter().map(|r| r.map_or(0.0, |r| 1.0 / r as f64)).sum::<f64>() / n;
    json!({
        "n": ranks.len(),
        "top1": round(top1),
        "recall5": round(recall5),
        "mrr": round(mrr),
    })
}

fn round(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

/// Every mode's scores over `questions`, overall and per kind, and the questions the first mode
/// did not answer first (with its top three hits).
async fn measure(
    engine: &Engine,
    corpus: &Corpus,
    questions: &[&Question],
    modes: &[&str],
    misses: &mut Vec<Value>,
) -> anyhow::Result<Value> {
    let mut out = serde_json::Map::new();
    for (name, ..) in MODES.iter().filter(|(name, ..)| modes.contains(name)) {
        let options = mode_options(name);
        let mut all = Vec::new();
        let mut by_kind: BTreeMap<&str, Vec<Option<usize>>> = BTreeMap::new();
        for q in questions {
            let (rank, top) = gold_rank(engine, corpus, q, &options).await?;
            if rank != Some(1) && Some(name) == modes.first() {
                misses
                    .push(json!({"mode": name, "id": q.id, "q": q.q, "section": q.section, "rank": rank, "top": top}));
            }
            all.push(rank);
            by_kind.entry(q.kind.as_str()).or_default().push(rank);
        }
        let kinds: serde_json::Map<String, Value> = by_kind
            .iter()
            .map(|(kind, ranks)| (kind.to_string(), scores(ranks)))
            .collect();
        out.insert(name.to_string(), json!({"overall": scores(&all), "per_kind": kinds}));
    }
    Ok(Value::Object(out))
}

/// The product search's latency over `questions`, after one warm-up pass: p50 and p95 in ms.
async fn latency(engine: &Engine, questions: &[&Question]) -> anyhow::Result<Value> {
    let options = SearchOptions::default();
    let mut times = Vec::new();
    for pass in 0..2 {
        for q in questions {
            let request = SearchRequest {
                query: &q.q,
                limit: LIMIT,
                ..SearchRequest::default()
            };
            let started = Instant::now();
            search::search_with(engine.store(), engine.embedder.as_ref(), &request, &options).await?;
            if pass == 1 {
                times.push(started.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    let round2 = |v: f64| (v * 100.0).round() / 100.0;
    Ok(json!({
        "searches": times.len(),
        "p50_ms": round2(crate::percentile(&mut times, 50.0)),
        "p95_ms": round2(crate::percentile(&mut times, 95.0)),
    }))
}

/// Hook point for the hook's measures on the same corpus and index (hook recall, chunks per
/// prompt, off-topic injections, the ratio-gate sweep): `ragdown_context`'s gates live in
/// `ragdownd::tools::context`, and whoever measures them fills this in. `None` leaves them out
/// of the results.
pub async fn hook_metrics(_corpus: &Corpus, _engine: &Engine) -> anyhow::Result<Option<Value>> {
    Ok(None)
}

/// Whether the product page's targets hold, with the figures they are about.
fn targets(answerable: &Value, identifier: &Value) -> Value {
    let get = |v: &Value, mode: &str, what: &str| v[mode]["overall"][what].as_f64().unwrap_or(0.0);
    let top1 = get(answerable, "routed", "top1");
    let recall5 = get(answerable, "routed", "recall5");
    let mrr = get(answerable, "routed", "mrr");
    let dense = get(answerable, "dense", "top1");
    let bm25 = get(answerable, "bm25", "top1");
    let identifier_top1 = get(identifier, "routed", "top1");
    json!({
        "top1_above_0.829": {"value": top1, "met": top1 > 0.829},
        "recall5_at_least_0.99": {"value": recall5, "met": recall5 >= 0.99},
        "mrr_above_0.89": {"value": mrr, "met": mrr > 0.89},
        "fused_top1_above_dense_and_bm25": {"value": [top1, dense, bm25], "met": top1 > dense && top1 > bm25},
        "identifier_top1_at_least_0.80": {"value": identifier_top1, "met": identifier_top1 >= 0.80},
    })
}

/// Indexes `dir` into a fresh data dir under `work`; returns the engine and the index time.
pub(crate) async fn index(
    dir: &Path,
    work: &Path,
    name: &str,
    embedder: ragdownd::embed::SharedEmbedder,
) -> anyhow::Result<(std::sync::Arc<Engine>, f64)> {
    let engine = bench::harness::open_engine(dir, &work.join(format!("data-{name}")), embedder).await?;
    let started = Instant::now();
    engine.indexer.sync(false).await?;
    Ok((engine, started.elapsed().as_secs_f64() * 1000.0))
}

/// Runs the workload with `embedder_name` and returns its results. With `misses`, the questions
/// the product search did not answer first are written there, one JSON object a line.
pub async fn run(embedder_name: String, misses_out: Option<&Path>) -> anyhow::Result<Value> {
    let mut misses = Vec::new();
    let corpus = corpus::generate();
    let work = tempfile::tempdir()?;
    let plain = work.path().join("runbooks");
    let aliased = work.path().join("runbooks-aliased");
    corpus::write_markdown(&corpus, &plain)?;
    corpus::write_aliased_markdown(&corpus, &aliased)?;
    let name = embedder_name.clone();
    let embedder = tokio::task::spawn_blocking(move || bench::harness::embedder(&name, None, None, None)).await??;

    let (engine, index_ms) = index(&plain, work.path(), "plain", embedder.clone()).await?;
    let answerable: Vec<&Question> = corpus.questions.iter().filter(|q| !q.section.is_empty()).collect();
    let identifier: Vec<&Question> = corpus.identifier_questions.iter().collect();
    let compared = ["routed", "rank_fusion", "score_fusion", "dense", "bm25"];
    eprintln!("{} answerable questions", answerable.len());
    let answerable_scores = measure(&engine, &corpus, &answerable, &compared, &mut misses).await?;
    eprintln!("{} identifier questions", identifier.len());
    let identifier_scores = measure(&engine, &corpus, &identifier, &compared, &mut misses).await?;
    let mut everything = answerable.clone();
    everything.extend(identifier.iter().copied());
    let latency = latency(&engine, &everything).await?;
    let hook = hook_metrics(&corpus, &engine).await?;
    let chunks = engine.store().count().await?;
    drop(engine);

    // The alias questions need the aliases in the front matter; the 210 are asked again there to
    // show that an alias in the index changes nothing for questions by title.
    let (engine, _) = index(&aliased, work.path(), "aliased", embedder.clone()).await?;
    let alias: Vec<&Question> = corpus.alias_questions.iter().collect();
    eprintln!("{} alias questions", alias.len());
    let alias_scores = measure(
        &engine,
        &corpus,
        &alias,
        &["routed", "routed_no_alias_boost", "dense", "bm25"],
        &mut misses,
    )
    .await?;
    let answerable_aliased = measure(&engine, &corpus, &answerable, &["routed"], &mut Vec::new()).await?;
    if let Some(path) = misses_out {
        let lines: Vec<String> = misses.iter().map(Value::to_string).collect();
        std::fs::write(path, lines.join("\n") + "\n")?;
    }

    Ok(json!({
        "workload": "retrieval",
        "embedder": embedder.index_name(),
        "corpus": {"documents": corpus.docs.len(), "chunks": chunks},
        "index_ms": index_ms.round(),
        "limit": LIMIT,
        "targets": targets(&answerable_scores, &identifier_scores),
        "answerable": answerable_scores,
        "identifier": identifier_scores,
        "alias": alias_scores,
        "answerable_with_aliases_indexed": answerable_aliased,
        "latency": latency,
        "hook": hook,
        "machine": bench::harness::machine(),
    }))
}
