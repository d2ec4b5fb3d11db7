//! embedd-load: a load generator for a running `embedd`, over gRPC.
//!
//! It sends the runbook corpus (210 chunks, embedded as ragdownd embeds them: breadcrumb + text)
//! and a 10,000-chunk corpus (copies of it) as bulk requests at a given concurrency, then measures
//! the interactive lane's latency idle and while a bulk index runs. It prints one JSON object per
//! workload on stdout: chunks/s, tokens/s, the padding share the server measured (from its
//! `/metrics`), and the padding share the same texts would have in arrival order without
//! bucketing (computed with the model's tokenizer and the server's batch limits).
//!
//!   embedd-load --grpc http://127.0.0.1:50051 --http http://127.0.0.1:8080 --concurrency 4

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use embedd::batch::{self, BatchLimits, Bucketing};
use embedd::model::{Encoder, TextKind};
use futures::StreamExt;
use proto::embedd_v1 as pb;
use proto::embedd_v1::embedder_client::EmbedderClient;
use ragdownd::index::vectors::Section;
use ragdownd::markdown::Document;
use serde_json::json;
use tonic::transport::Channel;

/// Load generator for embedd: throughput, padding and lane latency.
#[derive(Debug, Parser)]
struct Args {
    /// embedd's gRPC address.
    #[arg(long, env = "EMBEDD_GRPC_URL", default_value = "http://127.0.0.1:50051")]
    grpc: String,
    /// embedd's HTTP address (for /metrics).
    #[arg(long, env = "EMBEDD_HTTP_URL", default_value = "http://127.0.0.1:8080")]
    http: String,
    /// The bearer token, when the server wants one.
    #[arg(long, env = "EMBEDD_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Bulk requests in flight at once.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Texts per bulk request.
    #[arg(long, default_value_t = 64)]
    request_texts: usize,
    /// Chunks in the large corpus (copies of the runbook chunks).
    #[arg(long, default_value_t = 10_000)]
    large: usize,
    /// Runs of each throughput workload; the best is reported (the machines are shared).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Interactive queries per latency measurement.
    #[arg(long, default_value_t = 100)]
    queries: usize,
    /// The model directory, for the tokenizer that measures padding without bucketing
    /// [default: $RAGDOWN_MODELS/<served model>, else ~/.cache/ragdown/models/<served model>].
    #[arg(long)]
    model_dir: Option<PathBuf>,
    /// A label copied into every result line (e.g. the machine or the provider).
    #[arg(long, default_value = "")]
    label: String,
    /// Write the corpus's chunks as a JSON array of strings to this file and exit (for
    /// bench/raw_ort.py, which embeds the same texts with Python ONNX Runtime).
    #[arg(long)]
    dump_chunks: Option<PathBuf>,
    /// With --dump-chunks: also write the distinct breadcrumbs, which ragdownd embeds beside
    /// the chunks for a model with a heading weight (multilingual-e5-small), to this file.
    #[arg(long, requires = "dump_chunks")]
    dump_headings: Option<PathBuf>,
    /// Use the Markdown files under this directory (e.g. examples/vault) as the corpus instead of
    /// the generated runbooks.
    #[arg(long)]
    docs: Option<PathBuf>,
}

/// Every `.md` file under `dir`, chunked as ragdownd chunks it, in path order.
fn docs_documents(dir: &std::path::Path) -> anyhow::Result<Vec<Document>> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, &mut files).with_context(|| dir.display().to_string())?;
    files.sort();
    let mut documents = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).with_context(|| file.display().to_string())?;
        let relative = file.strip_prefix(dir).unwrap_or(&file).to_string_lossy().into_owned();
        documents.push(ragdownd::markdown::chunk_document(&relative, &text));
    }
    Ok(documents)
}

/// The runbook corpus, chunked as ragdownd chunks it.
fn runbook_documents() -> Vec<Document> {
    bench::corpus::generate()
        .docs
        .iter()
        .map(|doc| ragdownd::markdown::chunk_document(&format!("{}.md", doc.slug), &doc.markdown))
        .collect()
}

/// Each chunk as ragdownd embeds it.
fn chunk_texts(documents: &[Document]) -> Vec<String> {
    documents
        .iter()
        .flat_map(|d| d.chunks.iter().map(|c| ragdownd::markdown::embedding_text(&d.title, c)))
        .collect()
}

/// The distinct breadcrumbs a model with a heading weight also embeds, as ragdownd's
/// `index::vectors` picks them, in first-appearance order.
fn breadcrumbs(documents: &[Document]) -> Vec<String> {
    let sections: Vec<Section<'_>> = documents
        .iter()
        .flat_map(|d| d.chunks.iter().map(|c| (d.title.as_str(), c)))
        .collect();
    ragdownd::index::vectors::breadcrumbs(&sections).0
}

#[derive(Clone)]
struct Client {
    inner: EmbedderClient<Channel>,
    token: Option<Arc<str>>,
}

impl Client {
    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(token) = &self.token {
            let value = format!("Bearer {token}").parse().expect("a token is ASCII");
            request.metadata_mut().insert("authorization", value);
        }
        request
    }

    async fn embed(
        &mut self,
        texts: Vec<String>,
        kind: pb::TextKind,
        lane: pb::Lane,
    ) -> anyhow::Result<pb::EmbedResponse> {
        let request = self.request(pb::EmbedRequest {
            texts,
            kind: kind as i32,
            lane: lane as i32,
        });
        Ok(self.inner.embed(request).await?.into_inner())
    }
}

/// Real and padding tokens the server has computed so far, from `/metrics`.
fn padding_counters(http: &str, token: Option<&str>) -> anyhow::Result<(f64, f64)> {
    let mut request = ureq::get(&format!("{}/metrics", http.trim_end_matches('/')));
    if let Some(token) = token {
        request = request.header("authorization", &format!("Bearer {token}"));
    }
    let text = request.call()?.body_mut().read_to_string()?;
    let value = |kind: &str| -> f64 {
        let prefix = format!("embedd_tokens_total{{kind=\"{kind}\"}} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&prefix))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    };
    Ok((value("real"), value("padding")))
}

/// Sends `texts` as bulk requests of `request_texts`, `concurrency` at a time. Returns the
/// seconds it took and the tokens the server counted.
async fn index(
    client: &Client,
    texts: &[String],
    request_texts: usize,
    concurrency: usize,
) -> anyhow::Result<(f64, u64)> {
    let requests: Vec<Vec<String>> = texts.chunks(request_texts.max(1)).map(<[String]>::to_vec).collect();
    let started = Instant::now();
    let mut tokens = 0u64;
    let mut pending = futures::stream::iter(requests.into_iter().map(|texts| {
        let mut client = client.clone();
        async move { client.embed(texts, pb::TextKind::Document, pb::Lane::Bulk).await }
    }))
    .buffer_unordered(concurrency.max(1));
    while let Some(answer) = pending.next().await {
        tokens += u64::from(answer?.tokens);
    }
    Ok((started.elapsed().as_secs_f64(), tokens))
}

/// Sends `count` single-query interactive requests one after another; returns their latencies.
async fn queries(client: &Client, questions: &[String], count: usize) -> anyhow::Result<Vec<Duration>> {
    let mut client = client.clone();
    let mut latencies = Vec::with_capacity(count);
    for question in questions.iter().cycle().take(count) {
        let started = Instant::now();
        client
            .embed(vec![question.clone()], pb::TextKind::Query, pb::Lane::Interactive)
            .await?;
        latencies.push(started.elapsed());
    }
    Ok(latencies)
}

fn percentile(latencies: &mut [Duration], p: f64) -> f64 {
    if latencies.is_empty() {
        return f64::NAN;
    }
    latencies.sort_unstable();
    let rank = ((p / 100.0) * (latencies.len() - 1) as f64).round() as usize;
    (latencies[rank].as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let (corpus_name, documents) = match &args.docs {
        Some(dir) => {
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, docs_documents(dir)?)
        }
        None => ("runbooks".to_string(), runbook_documents()),
    };
    let small = chunk_texts(&documents);
    if let Some(path) = &args.dump_headings {
        std::fs::write(path, serde_json::to_string(&breadcrumbs(&documents))?)?;
    }
    if let Some(path) = &args.dump_chunks {
        std::fs::write(path, serde_json::to_string(&small)?)?;
        return Ok(());
    }
    let channel = Channel::from_shared(args.grpc.clone())?
        .connect()
        .await
        .with_context(|| format!("cannot reach embedd at {}", args.grpc))?;
    let client = Client {
        inner: EmbedderClient::new(channel).max_decoding_message_size(256 << 20),
        token: args.token.clone().map(Arc::from),
    };
    let info = client
        .inner
        .clone()
        .info(client.request(pb::InfoRequest {}))
        .await?
        .into_inner();
    let fingerprint = info.fingerprint.clone().context("Info has no fingerprint")?;
    eprintln!(
        "embedd: {} on {} (asked {}), {} threads in {} session(s), batches of at most {} tokens / {} texts",
        fingerprint.name,
        info.provider,
        info.requested_provider,
        info.threads,
        info.sessions,
        info.max_batch_tokens,
        info.max_batch_size
    );

    let large: Vec<String> = small.iter().cycle().take(args.large).cloned().collect();
    let questions: Vec<String> = bench::corpus::generate().questions.into_iter().map(|q| q.q).collect();
    if small.is_empty() || questions.is_empty() {
        bail!("the corpus is empty");
    }

    // Padding of the same texts without bucketing, from the model's own tokenizer.
    let model_dir = args.model_dir.clone().unwrap_or_else(|| {
        std::env::var_os("RAGDOWN_MODELS")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/ragdown/models")))
            .unwrap_or_default()
            .join(&fingerprint.name)
    });
    let spec = embedd::model::spec_for_dir(&model_dir)?;
    let encoder = Encoder::load(spec, &model_dir)?;
    let limits = BatchLimits {
        max_batch_tokens: info.max_batch_tokens as usize,
        max_batch_size: info.max_batch_size as usize,
    };
    let bucketing = Bucketing {
        step: info.bucket_step as usize,
        pad_to_bucket: info.pad_to_bucket,
    };
    let context = json!({
        "label": args.label,
        "model": fingerprint.name,
        "provider": info.provider,
        "threads": info.threads,
        "sessions": info.sessions,
        "corpus": corpus_name,
        "max_batch_tokens": info.max_batch_tokens,
        "concurrency": args.concurrency,
        "request_texts": args.request_texts,
        "date": chrono_free_date(),
    });

    let small_name = format!("{corpus_name}-{}", small.len());
    let large_name = format!("{corpus_name}-{}", large.len());
    for (name, texts) in [(small_name.as_str(), &small), (large_name.as_str(), &large)] {
        let lengths: Vec<usize> = texts
            .iter()
            .map(|t| encoder.tokenize(t, TextKind::Document).map(|ids| ids.len()))
            .collect::<Result<_, _>>()?;
        // Each request batched in arrival order (no bucketing) and as the scheduler drains it
        // alone; the server's own figure below also covers requests that share batches.
        let mut arrival = Vec::new();
        let mut bucketed = Vec::new();
        for (number, request) in lengths.chunks(args.request_texts.max(1)).enumerate() {
            let offset = number * args.request_texts.max(1);
            let shift = |batches: Vec<Vec<usize>>| {
                batches
                    .into_iter()
                    .map(move |b| b.into_iter().map(|i| i + offset).collect::<Vec<_>>())
            };
            arrival.extend(shift(batch::in_order(request, limits)));
            bucketed.extend(shift(batch::drain(request, limits, bucketing)));
        }
        let unbucketed = batch::padding_share(&lengths, &arrival);
        let predicted = batch::padding_share_with(&lengths, &bucketed, bucketing);
        let mut best = (f64::INFINITY, 0u64, 0.0f64);
        for run in 0..args.runs.max(1) {
            let before = padding_counters(&args.http, args.token.as_deref())?;
            let (seconds, tokens) = index(&client, texts, args.request_texts, args.concurrency).await?;
            let after = padding_counters(&args.http, args.token.as_deref())?;
            let (real, padding) = (after.0 - before.0, after.1 - before.1);
            let share = if real + padding > 0.0 {
                padding / (real + padding)
            } else {
                0.0
            };
            eprintln!(
                "{name} run {run}: {} chunks in {seconds:.2} s ({:.1} chunks/s), padding {:.1}%",
                texts.len(),
                texts.len() as f64 / seconds,
                share * 100.0
            );
            if seconds < best.0 {
                best = (seconds, tokens, share);
            }
        }
        let (seconds, tokens, share) = best;
        let mut line = context.clone();
        let fields = json!({
            "workload": name,
            "chunks": texts.len(),
            "tokens": tokens,
            "runs": args.runs,
            "best_seconds": round(seconds, 3),
            "chunks_per_s": round(texts.len() as f64 / seconds, 1),
            "tokens_per_s": round(tokens as f64 / seconds, 0),
            "padding_share_server": round(share, 4),
            "padding_share_without_bucketing": round(unbucketed, 4),
            "padding_share_bucketed_alone": round(predicted, 4),
        });
        merge(&mut line, fields);
        println!("{line}");
    }

    // Interactive latency: idle, then while a bulk index of the large corpus runs.
    let mut idle = queries(&client, &questions, args.queries).await?;
    let bulk_client = client.clone();
    let bulk_texts = large.clone();
    let (request_texts, concurrency) = (args.request_texts, args.concurrency);
    let bulk = tokio::spawn(async move { index(&bulk_client, &bulk_texts, request_texts, concurrency).await });
    // Let the bulk requests fill the queue before measuring.
    let mut busy = Vec::new();
    while !bulk.is_finished() && busy.len() < args.queries {
        busy.extend(queries(&client, &questions[busy.len() % questions.len()..], 1).await?);
    }
    let (bulk_seconds, _) = bulk.await??;
    let mut line = context.clone();
    merge(
        &mut line,
        json!({
            "workload": "interactive-latency",
            "queries_idle": idle.len(),
            "idle_p50_ms": percentile(&mut idle, 50.0),
            "idle_p99_ms": percentile(&mut idle, 99.0),
            "queries_under_bulk": busy.len(),
            "under_bulk_p50_ms": percentile(&mut busy, 50.0),
            "under_bulk_p99_ms": percentile(&mut busy, 99.0),
            "bulk_chunks": large.len(),
            "bulk_chunks_per_s": round(large.len() as f64 / bulk_seconds, 1),
        }),
    );
    println!("{line}");
    Ok(())
}

fn merge(into: &mut serde_json::Value, from: serde_json::Value) {
    if let (Some(into), serde_json::Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend(from);
    }
}

/// Today's UTC date (YYYY-MM-DD) from the system clock, without a date crate.
fn chrono_free_date() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
