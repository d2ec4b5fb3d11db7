//! `ragdown-bench ann`: the vector index's parameters chosen from measurements. A vault is indexed
//! once into `--data` (kept, so its vectors are embedded once and reused by the next run), its
//! queries embedded, and their exact dense top 10 taken from the resident vectors' exact scan.
//! Then for each index kind and partition size LanceDB's index is built on that table, and for
//! each `nprobes` and refine factor the dense pool a search uses (32 candidates) is timed and its
//! top 10 compared with the exact one. Prints one JSON line per setting.
//!
//!   ragdown-bench ann --docs VAULT --data ~/.cache/ragdown/bench/ann-200k --embedder minilm-fp32

use std::path::PathBuf;
use std::time::Instant;

use embedd::TextKind;
use ragdownd::index::ann::{AnnParams, IndexKind, VectorIndex};
use ragdownd::index::filter::Filter;
use ragdownd::index::store::Store;
use serde_json::{Value, json};

use bench::harness::{embedder, machine, open_engine_with_rows};

/// The `ann` command's settings.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The vault to index (what `ragdown-bench vault` writes; its `queries.json` is read).
    #[arg(long)]
    pub docs: PathBuf,
    /// The index's data dir, kept between runs: a second run embeds nothing.
    #[arg(long)]
    pub data: PathBuf,
    /// The embedder.
    #[arg(long, default_value = "minilm-fp32")]
    pub embedder: String,
    /// Queries used, the first of `queries.json`.
    #[arg(long, default_value_t = 300)]
    pub queries: usize,
    /// Index kinds: ivf_pq, ivf_sq, ivf_flat, ivf_hnsw_sq.
    #[arg(long, value_delimiter = ',', default_value = "ivf_pq,ivf_hnsw_sq")]
    pub kinds: Vec<String>,
    /// Rows per IVF partition.
    #[arg(long, value_delimiter = ',', default_value = "1000")]
    pub rows_per_partition: Vec<usize>,
    /// Partitions searched at the least.
    #[arg(long, value_delimiter = ',', default_value = "10,20,40")]
    pub nprobes: Vec<usize>,
    /// Refine factors (0: no refine step).
    #[arg(long, value_delimiter = ',', default_value = "0,2,4,10")]
    pub refine: Vec<u32>,
    /// Times each query is run for the timings.
    #[arg(long, default_value_t = 2)]
    pub reps: usize,
}

fn kind(name: &str) -> anyhow::Result<IndexKind> {
    Ok(serde_json::from_value(Value::String(name.to_owned()))?)
}

fn summary(mut times: Vec<f64>) -> Value {
    times.sort_by(f64::total_cmp);
    let at = |p: f64| {
        let i = ((times.len() as f64 * p).ceil() as usize).clamp(1, times.len()) - 1;
        (times[i] * 100.0).round() / 100.0
    };
    json!({ "p50": at(0.5), "p95": at(0.95), "n": times.len() })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Times the dense pool over `queries` (`reps` times) and the share of each exact top 10 that
/// the store's top 10 holds.
async fn measure(store: &Store, queries: &[(Vec<f32>, Vec<String>)], reps: usize) -> anyhow::Result<Value> {
    let mut times = Vec::new();
    for _ in 0..reps {
        for (vector, _) in queries {
            let t = Instant::now();
            store.dense_pool(vector, &Filter::default(), 32).await?;
            times.push(ms(t));
        }
    }
    let (mut found, mut total) = (0usize, 0usize);
    for (vector, exact) in queries {
        let got = store.dense(vector, &Filter::default(), 10).await?;
        found += exact.iter().filter(|id| got.iter().any(|c| &c.id == *id)).count();
        total += exact.len();
    }
    Ok(json!({
        "dense_pool_ms": summary(times),
        "overlap_at_10": (found as f64 / total.max(1) as f64 * 1000.0).round() / 1000.0,
    }))
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let name = args.embedder.clone();
    let model = tokio::task::spawn_blocking(move || embedder(&name, None, None, None)).await??;
    let engine = open_engine_with_rows(&args.docs, &args.data, model.clone(), usize::MAX).await?;
    let started = Instant::now();
    let report = engine.indexer.sync(false).await?;
    let index_s = started.elapsed().as_secs_f64();
    let store = engine.store();
    let rows = store.count().await?;
    let texts: Vec<String> =
        serde_json::from_str::<Vec<Value>>(&std::fs::read_to_string(args.docs.join("queries.json"))?)?
            .into_iter()
            .filter_map(|q| q["query"].as_str().map(str::to_owned))
            .take(args.queries)
            .collect();
    let vectors = model.embed(texts, TextKind::Query).await?;
    let mut queries = Vec::new();
    for vector in vectors {
        let exact = store.dense(&vector, &Filter::default(), 10).await?;
        queries.push((vector, exact.into_iter().map(|c| c.id).collect::<Vec<_>>()));
    }
    let base = json!({
        "workload": "ann",
        "embedder": args.embedder,
        "rows": rows,
        "queries": queries.len(),
        "machine": machine(),
    });
    let mut exact = base.clone();
    exact["setting"] = json!("resident exact scan");
    exact["index_s"] = json!((index_s * 10.0).round() / 10.0);
    exact["embedded_now"] = json!(report.chunks);
    exact["measured"] = measure(store, &queries, args.reps).await?;
    println!("{exact}");
    let lance = args.data.join("lance");
    for kind_name in &args.kinds {
        for &rows_per_partition in &args.rows_per_partition {
            let params = AnnParams {
                kind: kind(kind_name)?,
                rows_per_partition,
                ..AnnParams::default()
            };
            let policy = |params: AnnParams| VectorIndex {
                min_rows: 0,
                embedder: model.fingerprint(),
                params,
            };
            let builder = Store::open(&lance, store.dim(), false)
                .await?
                .with_vector_index(policy(params.clone()));
            let before = dir_bytes(&lance);
            let t = Instant::now();
            builder.build_vector_index(rows).await?;
            let build_s = t.elapsed().as_secs_f64();
            let index_mb = (dir_bytes(&lance).saturating_sub(before)) as f64 / 1e6;
            for &nprobes in &args.nprobes {
                for &refine in &args.refine {
                    let params = AnnParams {
                        nprobes,
                        refine_factor: (refine > 0).then_some(refine),
                        ..params.clone()
                    };
                    let searcher = Store::open(&lance, store.dim(), false)
                        .await?
                        .with_vector_index(policy(params.clone()));
                    let mut line = base.clone();
                    line["setting"] = serde_json::to_value(&params)?;
                    line["partitions"] = json!(params.partitions(rows));
                    line["build_s"] = json!((build_s * 10.0).round() / 10.0);
                    line["index_mb"] = json!((index_mb * 10.0).round() / 10.0);
                    line["measured"] = measure(&searcher, &queries, args.reps).await?;
                    println!("{line}");
                }
            }
            builder.drop_vector_index().await?;
        }
    }
    Ok(())
}

/// Bytes of the files under `dir`.
fn dir_bytes(dir: &std::path::Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.metadata().ok())
        .filter(|meta| meta.is_file())
        .map(|meta| meta.len())
        .sum()
}
