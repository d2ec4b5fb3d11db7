//! Where a search's time goes: the runbook corpus copied `--copies` times (210 chunks a copy),
//! indexed with an embedder (`hash` by default: no model cost), then each corpus question timed
//! stage by stage against the real store (the query's embedding, the dense pool as a search ranks
//! on it (`dense_pool`: nothing read from the table) and with every field of 2x the candidates
//! read and ranked exactly (`dense`), LanceDB's flat search (`dense_ids`), the BM25 pool, the
//! superseded map, the names for the alias boost) and whole, as `ragdown_recall` runs it.
//! Prints one JSON object with each stage's p50 / p95 in ms.
//!
//!   search-breakdown --copies 500        # 105,000 chunks

use std::time::Instant;

use bench::corpus;
use bench::harness::{embedder, machine, open_engine};
use clap::Parser;
use embedd::TextKind;
use ragdownd::search::{self, SearchOptions, SearchRequest, SearchSettings};
use serde_json::{Value, json};

#[derive(Debug, Parser)]
struct Cli {
    /// Copies of the corpus (210 chunks each).
    #[arg(long, default_value_t = 50)]
    copies: usize,
    /// The embedder.
    #[arg(long, default_value = "hash")]
    embedder: String,
    /// Times each question is run.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// A vault `ragdown-bench vault` wrote, with its first 200 queries, instead of the copies.
    /// The vector index is built (past `RAGDOWN_VECTOR_INDEX_ROWS`) before the timings.
    #[arg(long)]
    vault: Option<std::path::PathBuf>,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    (sorted[at] * 100.0).round() / 100.0
}

fn summary(mut times: Vec<f64>) -> Value {
    times.sort_by(f64::total_cmp);
    json!({ "p50": percentile(&times, 0.5), "p95": percentile(&times, 0.95), "n": times.len() })
}

fn main() -> anyhow::Result<()> {
    // SAFETY: first thing in `main`, before any thread starts.
    #[allow(unsafe_code)]
    unsafe {
        ragdownd::process::configure_lance()
    };
    let cli = Cli::parse();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(cli))
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let work = tempfile::tempdir()?;
    let generated = corpus::generate();
    let (docs, questions) = match &cli.vault {
        Some(vault) => {
            let queries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(vault.join("queries.json"))?)?;
            let queries = queries.iter().filter_map(|q| q["query"].as_str().map(str::to_owned));
            (vault.clone(), queries.take(200).collect::<Vec<_>>())
        }
        None => {
            let docs = work.path().join("docs");
            for copy in 0..cli.copies {
                corpus::write_markdown(&generated, &docs.join(format!("c{copy:04}")))?;
            }
            (docs, generated.questions.iter().map(|q| q.q.clone()).collect())
        }
    };
    let name = cli.embedder.clone();
    let embedder = tokio::task::spawn_blocking(move || embedder(&name, None, None, None)).await??;
    let engine = open_engine(&docs, &work.path().join("data"), embedder.clone()).await?;
    let started = Instant::now();
    let report = engine.indexer.sync(false).await?;
    let index_s = started.elapsed().as_secs_f64();
    let store = engine.store();
    let built = store.upkeep_vector_index().await?;
    let mode = format!("{:?}", store.dense_mode().await?);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let mut stages: Vec<(&str, Vec<f64>)> = [
        "embed",
        "dense",
        "dense_ids",
        "lexical",
        "superseded",
        "names",
        "whole",
        "dense_pool",
    ]
    .into_iter()
    .map(|s| (s, Vec::new()))
    .collect();
    let options = SearchOptions::new(SearchSettings::default(), ragdownd::index::scan::Layout::Single);
    for _ in 0..cli.reps {
        for query in &questions {
            let query = query.as_str();
            let t = Instant::now();
            let vector = embedder
                .embed(vec![query.to_string()], TextKind::Query)
                .await?
                .pop()
                .unwrap_or_default();
            stages[0].1.push(ms(t));
            let t = Instant::now();
            store.dense(&vector, &Default::default(), 32).await?;
            stages[1].1.push(ms(t));
            let t = Instant::now();
            store.dense_pool(&vector, &Default::default(), 32).await?;
            stages[7].1.push(ms(t));
            let t = Instant::now();
            store.dense_ids(&vector, 32).await?;
            stages[2].1.push(ms(t));
            let t = Instant::now();
            store.lexical(query, &Default::default(), 32).await?;
            stages[3].1.push(ms(t));
            let t = Instant::now();
            store.superseded().await?;
            stages[4].1.push(ms(t));
            let t = Instant::now();
            search::aliased_documents(store, query).await?;
            stages[5].1.push(ms(t));
            let request = SearchRequest {
                query,
                limit: 8,
                path_prefix: String::new(),
                tag: None,
                written_by: None,
                within: None,
            };
            let t = Instant::now();
            search::search_with(store, embedder.as_ref(), &request, &options).await?;
            stages[6].1.push(ms(t));
        }
    }
    let mut out = json!({
        "copies": cli.copies,
        "chunks": report.chunks,
        "embedder": cli.embedder,
        "index_s": (index_s * 10.0).round() / 10.0,
        "vector_index": serde_json::to_value(&built)?,
        "dense_mode": mode,
        "machine": machine(),
    });
    for (stage, times) in stages {
        out[stage] = summary(times);
    }
    println!("{out}");
    Ok(())
}
