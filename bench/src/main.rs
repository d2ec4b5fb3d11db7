//! `ragdown-bench`: end-to-end workloads with their numbers, run against the real library code.
//!
//! `retrieval` measures ranking quality on the generated runbook corpus (see `retrieval.rs`),
//! `multilingual` on real Chinese, Japanese and Korean documentation (`multilingual.rs`).
//! `vault` writes a vault of N distinct chunks to measure search at scale (`bench::vault`).
//! `index` times a full first index of a docs dir (fresh data dir each run), a no-op re-sync, and
//! the search path behind `ragdown_recall` (query embedding + dense + BM25 + fusion), and reports
//! medians over runs with the machine it ran on. Results are printed as one JSON object; commit
//! them under `bench/results/` with the command that made them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use ragdownd::engine::Engine;
use ragdownd::search::{self, SearchRequest};
use serde_json::{Value, json};

use bench::harness::{embedder, machine, open_engine};

mod ann;
mod multilingual;
mod retrieval;

#[derive(Debug, Parser)]
#[command(name = "ragdown-bench", about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Write the generated runbook corpus (30 documents, 210 sections) and its questions.
    Corpus {
        /// Directory for the Markdown files; `questions.json` goes beside them.
        #[arg(long)]
        out: PathBuf,
    },
    /// The hook's score floor for a model: best-hit cosine of the runbook questions (10th
    /// percentile) against the strongest off-topic prompt, as the product page measures it.
    Calibrate {
        /// The embedder to calibrate.
        #[arg(long, default_value = "minilm")]
        embedder: String,
    },
    /// First index, no-op re-sync and search latency over a docs dir.
    Index(IndexArgs),
    /// Ranking quality on the runbook corpus: top-1, recall@5 and MRR of the product search
    /// against rank fusion, score fusion, dense and BM25 alone; identifier and alias questions;
    /// search latency.
    Retrieval {
        /// The embedder: minilm, hash, ...
        #[arg(long, default_value = "minilm")]
        embedder: String,
        /// Where to write the JSON [default: bench/results/<UTC day>-retrieval-<embedder>.json].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also write the questions the product search did not answer first (JSON lines).
        #[arg(long)]
        misses: Option<PathBuf>,
    },
    /// Ranking quality on real Chinese, Japanese and Korean documentation with questions in
    /// those languages and English: top-1, recall@5 and MRR per language and kind, hybrid
    /// against dense and BM25 alone. Writes the JSON to --out and prints a Markdown table.
    Multilingual(multilingual::Args),
    /// The vector index's parameters measured: for each kind, partition size, nprobes and refine
    /// factor, the dense pool's time and its overlap with the exact top 10, on a vault indexed once
    /// into a kept data dir.
    Ann(ann::Args),
    /// Write a vault of exactly --chunks distinct chunks for search at scale: real Markdown first
    /// (under real/: the crates this workspace downloads, web/node_modules, ../shared/data/corpora,
    /// or the --source dirs), each chunk kept once, then seeded notes of Markov text trained on its
    /// prose (under gen/), with queries.json and the manifest vault.json, which is also printed.
    Vault(bench::vault::Args),
}

/// The `index` workload's settings.
#[derive(Debug, clap::Args)]
struct IndexArgs {
    /// The Markdown to index (every file under it, as `stdio` does).
    #[arg(long)]
    docs: PathBuf,
    /// The embedder: minilm, hash, ...
    #[arg(long, default_value = "minilm")]
    embedder: String,
    /// Full index runs (each into a fresh data dir); the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// A file of queries, one per line [default: a built-in set for the example vault].
    #[arg(long)]
    queries: Option<PathBuf>,
    /// Times each query is run.
    #[arg(long, default_value_t = 5)]
    query_reps: usize,
    /// ONNX Runtime threads [default: every core].
    #[arg(long)]
    threads: Option<usize>,
    /// Sessions running batches side by side, sharing the threads [default: embedd's, one per
    /// thread up to two].
    #[arg(long)]
    sessions: Option<usize>,
    /// Padded tokens per batch [default: embedd's default].
    #[arg(long)]
    max_batch_tokens: Option<usize>,
    /// Also copy the docs this many times (into subdirectories) to make a bigger corpus.
    #[arg(long, default_value_t = 1)]
    copies: usize,
    /// Embed through these `embedd` workers (comma-separated, as `RAGDOWN_EMBEDD_URL`) instead
    /// of in-process; --threads, --sessions and --max-batch-tokens are then the workers' own.
    #[arg(long, value_delimiter = ',')]
    embedd_url: Vec<String>,
}

/// Queries for the example vault: paraphrases and identifiers.
const VAULT_QUERIES: &[&str] = &[
    "How do I undo a release that broke production?",
    "bring the database back to how it was at a certain moment yesterday",
    "consumers are falling behind and messages pile up",
    "how often do we change passwords and access keys?",
    "pg_stat_archiver",
    "kafka-consumer-groups.sh",
    "who decides the severity of an incident",
    "why did we stop using nightly pg_dump",
    "max_batch_tokens",
    "what did the platform team discuss about Black Friday",
];

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.saturating_sub(1).min(values.len() - 1)]
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn copy_docs(from: &Path, to: &Path, copies: usize) -> anyhow::Result<()> {
    for copy in 0..copies {
        let target = if copies == 1 {
            to.to_path_buf()
        } else {
            to.join(format!("copy-{copy:04}"))
        };
        for entry in walkdir::WalkDir::new(from).into_iter().flatten() {
            let rel = entry.path().strip_prefix(from)?;
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(target.join(rel))?;
            } else if entry.file_type().is_file() {
                std::fs::copy(entry.path(), target.join(rel))?;
            }
        }
    }
    Ok(())
}

async fn bench_index(args: IndexArgs) -> anyhow::Result<serde_json::Value> {
    let IndexArgs {
        docs,
        embedder: embedder_name,
        runs,
        queries,
        query_reps,
        threads,
        sessions,
        max_batch_tokens,
        copies,
        embedd_url,
    } = args;
    let queries: Vec<String> = match queries {
        Some(path) => std::fs::read_to_string(&path)
            .with_context(|| path.display().to_string())?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        None => VAULT_QUERIES.iter().map(|q| q.to_string()).collect(),
    };
    let work = tempfile::tempdir()?;
    let corpus = work.path().join("docs");
    copy_docs(&docs, &corpus, copies.max(1))?;

    let loading = Instant::now();
    let name = embedder_name.clone();
    let embedder = if !embedd_url.is_empty() {
        bench::harness::remote_embedder(&name, embedd_url.clone()).await?
    } else {
        tokio::task::spawn_blocking(move || embedder(&name, threads, sessions, max_batch_tokens)).await??
    };
    let load_ms = loading.elapsed().as_secs_f64() * 1000.0;

    let mut index_ms = Vec::new();
    let mut chunks_per_s = Vec::new();
    let mut noop_ms = Vec::new();
    let mut chunks = 0;
    let mut files = 0;
    let mut last_engine: Option<Arc<Engine>> = None;
    let mut stages = serde_json::Value::Null;
    let mut noop_stages = serde_json::Value::Null;
    for run in 0..runs.max(1) {
        let data = work.path().join(format!("data-{run}"));
        let engine = open_engine(&corpus, &data, embedder.clone()).await?;
        let started = Instant::now();
        let report = engine.indexer.sync(false).await?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        chunks = report.chunks;
        files = report.added;
        stages = serde_json::to_value(&report.stages)?;
        index_ms.push(ms);
        chunks_per_s.push(report.chunks as f64 / (ms / 1000.0));
        let started = Instant::now();
        let noop = engine.indexer.sync(false).await?;
        anyhow::ensure!(
            noop.chunks == 0 && noop.unchanged == files,
            "the re-sync was not a no-op: {noop:?}"
        );
        noop_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        noop_stages = serde_json::to_value(&noop.stages)?;
        eprintln!(
            "run {run}: {chunks} chunks in {ms:.0} ms ({:.1} chunks/s)",
            chunks_per_s.last().unwrap()
        );
        last_engine = Some(engine);
    }

    let engine = last_engine.expect("at least one run");
    let mut latencies = Vec::new();
    // One warm-up pass: the first query loads index files from disk.
    for query in &queries {
        let request = SearchRequest {
            query,
            limit: 8,
            ..SearchRequest::default()
        };
        search::search(engine.store(), engine.embedder.as_ref(), &request).await?;
    }
    for _ in 0..query_reps.max(1) {
        for query in &queries {
            let request = SearchRequest {
                query,
                limit: 8,
                ..SearchRequest::default()
            };
            let started = Instant::now();
            search::search(engine.store(), engine.embedder.as_ref(), &request).await?;
            latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    Ok(json!({
        "workload": "index",
        "docs": docs.display().to_string(),
        "copies": copies,
        "embedder": embedder.index_name(),
        "files": files,
        "chunks": chunks,
        "runs": runs,
        "threads": threads,
        "sessions": sessions,
        "embedd_url": embedd_url,
        "embedder_load_ms": load_ms.round(),
        "index_ms_median": median(&mut index_ms).round(),
        "index_stages_ms_last": stages,
        "index_chunks_per_s_median": (median(&mut chunks_per_s) * 10.0).round() / 10.0,
        "noop_resync_ms_median": (median(&mut noop_ms) * 10.0).round() / 10.0,
        "noop_stages_ms_last": noop_stages,
        "queries": queries.len() * query_reps.max(1),
        "recall_ms_p50": (percentile(&mut latencies, 50.0) * 100.0).round() / 100.0,
        "recall_ms_p95": (percentile(&mut latencies, 95.0) * 100.0).round() / 100.0,
        "peak_rss_mb": peak_rss_mb().map(f64::round),
        "machine": machine(),
    }))
}

/// The best similarity among the hits the hook would consider for `prompt` (its default top_k 4,
/// searched at twice that).
async fn best_similarity(engine: &Engine, prompt: &str) -> anyhow::Result<f32> {
    let request = SearchRequest {
        query: prompt,
        limit: 8,
        ..SearchRequest::default()
    };
    let hits = search::search(engine.store(), engine.embedder.as_ref(), &request).await?;
    Ok(hits.iter().map(|h| h.chunk.similarity).fold(f32::MIN, f32::max))
}

async fn calibrate(embedder_name: String) -> anyhow::Result<serde_json::Value> {
    let work = tempfile::tempdir()?;
    let corpus = bench::corpus::generate();
    let docs = work.path().join("runbooks");
    bench::corpus::write_markdown(&corpus, &docs)?;
    let name = embedder_name.clone();
    let embedder = tokio::task::spawn_blocking(move || embedder(&name, None, None, None)).await??;
    let engine = open_engine(&docs, &work.path().join("data"), embedder.clone()).await?;
    engine.indexer.sync(false).await?;
    let mut on_topic = Vec::new();
    for question in corpus.questions.iter().filter(|q| !q.section.is_empty()) {
        on_topic.push(f64::from(best_similarity(&engine, &question.q).await?));
    }
    let mut off_topic = Vec::new();
    for prompt in bench::corpus::off_topic_prompts() {
        off_topic.push(f64::from(best_similarity(&engine, &prompt).await?));
    }
    let p10 = percentile(&mut on_topic, 10.0);
    let worst_unrelated = off_topic.iter().copied().fold(f64::MIN, f64::max);
    let round = |v: f64| (v * 1000.0).round() / 1000.0;
    Ok(json!({
        "workload": "calibrate",
        "embedder": embedder.index_name(),
        "on_topic_questions": on_topic.len(),
        "on_topic_p10": round(p10),
        "on_topic_median": round(median(&mut on_topic)),
        "off_topic_prompts": off_topic.len(),
        "off_topic_max": round(worst_unrelated),
        "off_topic_median": round(median(&mut off_topic)),
        "separated": p10 > worst_unrelated,
        "machine": machine(),
    }))
}

/// The `vault` command: writes the vault, says how long it took, and returns the manifest.
fn run_vault(args: &bench::vault::Args) -> anyhow::Result<Value> {
    let started = Instant::now();
    let manifest = bench::vault::run(args)?;
    eprintln!(
        "vault: {} chunks in {} files written to {} in {:.1} s",
        manifest["chunks"],
        manifest["files"],
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(manifest)
}

fn main() -> anyhow::Result<()> {
    // SAFETY: first thing in `main`, before any thread starts.
    #[allow(unsafe_code)]
    unsafe {
        ragdownd::process::configure_lance()
    };
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(async move {
        match cli.command {
            Cmd::Corpus { out } => {
                let corpus = bench::corpus::generate();
                bench::corpus::write_markdown(&corpus, &out)?;
                let questions = out.join("questions.json");
                std::fs::write(&questions, serde_json::to_string_pretty(&corpus.questions)?)?;
                Ok(
                    json!({"workload": "corpus", "docs": corpus.docs.len(), "questions": corpus.questions.len(),
                    "out": out.display().to_string()}),
                )
            }
            Cmd::Calibrate { embedder } => calibrate(embedder).await,
            Cmd::Vault(args) => run_vault(&args),
            Cmd::Ann(args) => ann::run(args).await.map(|()| Value::Null),
            Cmd::Index(args) => bench_index(args).await,
            Cmd::Multilingual(args) => {
                let day = ragdownd::index::sync::iso_now()[..10].to_string();
                let out = args.out.clone().unwrap_or_else(|| {
                    Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("results")
                        .join(format!("{day}-multilingual-{}.json", args.embedder))
                });
                let mut result = multilingual::run(&args).await?;
                result["date"] = json!(day);
                result["command"] = json!(format!(
                    "ragdown-bench {}",
                    std::env::args().skip(1).collect::<Vec<_>>().join(" ")
                ));
                std::fs::write(&out, serde_json::to_string_pretty(&result)? + "\n")
                    .with_context(|| out.display().to_string())?;
                eprintln!("written to {}", out.display());
                // The JSON is in the file; what a person reads is the table.
                println!("{}", multilingual::table(&result));
                Ok(Value::Null)
            }
            Cmd::Retrieval { embedder, out, misses } => {
                let day = ragdownd::index::sync::iso_now()[..10].to_string();
                let out = out.unwrap_or_else(|| {
                    Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("results")
                        .join(format!("{day}-retrieval-{embedder}.json"))
                });
                let mut result = retrieval::run(embedder.clone(), misses.as_deref()).await?;
                result["date"] = json!(day);
                result["command"] = json!(format!("ragdown-bench retrieval --embedder {embedder}"));
                std::fs::write(&out, serde_json::to_string_pretty(&result)? + "\n")
                    .with_context(|| out.display().to_string())?;
                eprintln!("written to {}", out.display());
                Ok(result)
            }
        }
    })?;
    if !result.is_null() {
        println!("{}", serde_json::to_string_pretty(&result)?);
    }
    // Leave room for the worker threads to wind down cleanly.
    std::thread::sleep(Duration::from_millis(10));
    Ok(())
}
