//! `hook-bench`: `ragdown_context` on the generated runbook corpus, as the product page measures
//! the ratio gate (Design, "A second, relative gate"): for each of the 210 answerable questions,
//! whether the hook injects the section that answers it (hook recall), how many chunks it injects
//! per prompt, and how many it injects for the ten off-topic prompts, at the shipped defaults and
//! over a sweep of min_ratio, min_score and top_k.
//!
//! It runs the library's own hook code: `context::candidates` (the search, names and aliases) once
//! per prompt and `top_k`, then `context::choose` (the gates and the character budget) for every
//! setting of the sweep, with no session memory. The shipped defaults are also run through the
//! whole tool path (`context::run`), and the two must agree. Prints one JSON object, and writes it
//! to `--out` when given.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use bench::corpus::{self, Corpus, Question};
use bench::harness::{embedder, machine, open_engine};
use clap::Parser;
use ragdownd::engine::Scope;
use ragdownd::hook::{Gates, Outcome};
use ragdownd::search::Hit;
use ragdownd::settings::{HookOverrides, Values};
use ragdownd::tools::ToolSettings;
use ragdownd::tools::context::{self, Candidates, ContextArgs, HookDefaults};
use serde_json::{Value, json};

/// ragdown_context's hook recall, chunks per prompt and off-topic injections on the runbook corpus.
#[derive(Debug, Parser)]
#[command(name = "hook-bench", about)]
struct Cli {
    /// The embedder: minilm, hash, ...
    #[arg(long, default_value = "minilm")]
    embedder: String,
    /// min_ratio values to sweep (0 turns the gate off).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1.0,0.98,0.96,0.95,0.94,0.92,0.9,0.88,0.85,0.8,0"
    )]
    ratios: Vec<f32>,
    /// min_score values to sweep [default: the embedder's own floor only].
    #[arg(long, value_delimiter = ',')]
    min_scores: Vec<f32>,
    /// top_k values to sweep.
    #[arg(long, value_delimiter = ',', default_value = "4")]
    top_ks: Vec<usize>,
    /// Also write the result here.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// One prompt of the benchmark.
struct Prompt<'a> {
    text: &'a str,
    /// The answering section as `(path, heading)`; `None` for an off-topic prompt.
    gold: Option<(String, String)>,
    question: Option<&'a Question>,
}

fn is_gold(hit: &Hit, gold: &(String, String)) -> bool {
    hit.chunk.path == gold.0 && hit.chunk.heading == gold.1
}

/// The totals of one setting.
#[derive(Debug, Default, Clone)]
struct Tally {
    questions: usize,
    found: usize,
    chunks: usize,
    named_or_alias: usize,
    off_topic_prompts: usize,
    off_topic_chunks: usize,
    off_topic_injected_prompts: usize,
    by_type: HashMap<String, (usize, usize)>,
    /// What the hook did with the answering section: an outcome, or `not_a_candidate`.
    gold_outcomes: HashMap<String, usize>,
}

impl Tally {
    fn add(&mut self, prompt: &Prompt<'_>, hits: &[Hit], outcomes: &[Outcome], injected: &[usize], injections: usize) {
        match &prompt.gold {
            Some(gold) => {
                let what = match hits.iter().position(|hit| is_gold(hit, gold)) {
                    Some(i) => serde_json::to_value(outcomes[i])
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    None => "not_a_candidate".to_string(),
                };
                *self.gold_outcomes.entry(what).or_default() += 1;
                let found = injected.iter().any(|&i| is_gold(&hits[i], gold));
                self.questions += 1;
                self.chunks += injected.len();
                self.named_or_alias += injections;
                self.found += usize::from(found);
                if let Some(question) = prompt.question {
                    let entry = self.by_type.entry(question.kind.clone()).or_default();
                    entry.0 += 1;
                    entry.1 += usize::from(found);
                }
            }
            None => {
                self.off_topic_prompts += 1;
                self.off_topic_chunks += injected.len();
                self.off_topic_injected_prompts += usize::from(!injected.is_empty());
            }
        }
    }

    fn json(&self, gates: &Gates) -> Value {
        let ratio = |a: usize, b: usize| ((a as f64 / b.max(1) as f64) * 1000.0).round() / 1000.0;
        json!({
            "top_k": gates.top_k,
            "min_score": (f64::from(gates.min_score) * 1000.0).round() / 1000.0,
            "min_ratio": (f64::from(gates.min_ratio) * 1000.0).round() / 1000.0,
            "max_chars": gates.max_chars,
            "hook_recall": ratio(self.found, self.questions),
            "chunks_per_prompt": ((self.chunks as f64 / self.questions.max(1) as f64) * 100.0).round() / 100.0,
            "noise_per_prompt": (((self.chunks - self.found) as f64 / self.questions.max(1) as f64) * 100.0).round() / 100.0,
            "name_or_alias_injections": self.named_or_alias,
            "off_topic_chunks": self.off_topic_chunks,
            "off_topic_prompts_injected": self.off_topic_injected_prompts,
            "answer_section": self.gold_outcomes,
        })
    }
}

fn prompts<'a>(corpus: &'a Corpus, off_topic: &'a [String]) -> Vec<Prompt<'a>> {
    let titles: HashMap<&str, &str> = corpus
        .docs
        .iter()
        .map(|doc| (doc.slug.as_str(), doc.title.as_str()))
        .collect();
    let mut out: Vec<Prompt<'a>> = corpus
        .questions
        .iter()
        .filter(|q| !q.section.is_empty())
        .map(|q| Prompt {
            text: &q.q,
            gold: Some((
                format!("{}.md", q.doc),
                format!(
                    "{}{}{}",
                    titles[q.doc.as_str()],
                    ragdownd::markdown::HEADING_SEPARATOR,
                    q.section
                ),
            )),
            question: Some(q),
        })
        .collect();
    out.extend(off_topic.iter().map(|text| Prompt {
        text,
        gold: None,
        question: None,
    }));
    out
}

async fn run(cli: Cli) -> anyhow::Result<Value> {
    let work = tempfile::tempdir()?;
    let corpus = corpus::generate();
    let docs = work.path().join("runbooks");
    corpus::write_markdown(&corpus, &docs)?;
    let name = cli.embedder.clone();
    let embedder = tokio::task::spawn_blocking(move || embedder(&name, None, None, None)).await??;
    let engine = open_engine(&docs, &work.path().join("data"), embedder.clone()).await?;
    let report = engine.indexer.sync(false).await?;
    let scope = Scope::root(engine.clone());
    let settings = ToolSettings::from_values(
        true,
        "notes",
        Values {
            embedder: None,
            watch: false,
            root_mcp: false,
            text_limit: 2000,
            search: Default::default(),
            query_log: false,
            hook: HookDefaults::default(),
        },
    );
    let off_topic = corpus::off_topic_prompts();
    let prompts = prompts(&corpus, &off_topic);
    let shipped = context::gates(&scope, &settings, HookOverrides::default());

    // The shipped defaults through the whole tool path.
    let mut tool = Tally::default();
    for prompt in &prompts {
        let args: ContextArgs = serde_json::from_value(json!({ "prompt": prompt.text }))?;
        let run = context::run(&scope, &settings, &args).await?;
        let injections = run
            .injected
            .iter()
            .filter(|&&i| !matches!(run.outcomes[i], Outcome::Passed))
            .count();
        tool.add(prompt, &run.hits, &run.outcomes, &run.injected, injections);
    }

    // The sweep: one search per prompt and top_k, every gate setting over it.
    let min_scores = if cli.min_scores.is_empty() {
        vec![shipped.min_score]
    } else {
        cli.min_scores.clone()
    };
    let mut sweep = Vec::new();
    let mut at_shipped: Option<Tally> = None;
    for &top_k in &cli.top_ks {
        anyhow::ensure!((1..=50).contains(&top_k), "top_k must be between 1 and 50");
        let mut candidates: Vec<Candidates> = Vec::with_capacity(prompts.len());
        for prompt in &prompts {
            candidates.push(context::candidates(&scope, prompt.text, top_k).await?);
        }
        for &min_score in &min_scores {
            for &min_ratio in &cli.ratios {
                let gates = Gates {
                    top_k,
                    min_score,
                    min_ratio,
                    max_chars: shipped.max_chars,
                };
                let mut tally = Tally::default();
                for (prompt, found) in prompts.iter().zip(&candidates) {
                    let chosen = context::choose(&scope, &settings, &found.hits, &found.mentions, &gates, |_| false);
                    let injections = chosen
                        .injected
                        .iter()
                        .filter(|&&i| !matches!(chosen.outcomes[i], Outcome::Passed))
                        .count();
                    tally.add(prompt, &found.hits, &chosen.outcomes, &chosen.injected, injections);
                }
                if gates == shipped {
                    at_shipped = Some(tally.clone());
                }
                sweep.push(tally.json(&gates));
            }
        }
    }
    if let Some(swept) = &at_shipped {
        anyhow::ensure!(
            (swept.found, swept.chunks, swept.off_topic_chunks) == (tool.found, tool.chunks, tool.off_topic_chunks),
            "the sweep at the shipped defaults disagrees with the tool path"
        );
    }
    let mut by_type: Vec<(String, (usize, usize))> = tool.by_type.clone().into_iter().collect();
    by_type.sort();
    let by_type: serde_json::Map<String, Value> = by_type
        .into_iter()
        .map(|(kind, (n, found))| {
            (
                kind,
                json!({"questions": n, "hook_recall": ((found as f64 / n as f64) * 1000.0).round() / 1000.0}),
            )
        })
        .collect();
    Ok(json!({
        "workload": "hook",
        "embedder": embedder.index_name(),
        "corpus": {
            "documents": corpus.docs.len(),
            "chunks": report.chunks,
            "answerable_questions": tool.questions,
            "off_topic_prompts": tool.off_topic_prompts,
        },
        "shipped_defaults": tool.json(&shipped),
        "shipped_defaults_by_type": by_type,
        "sweep": sweep,
        "machine": machine(),
        "command": std::env::args()
            .enumerate()
            .map(|(i, arg)| if i == 0 { "hook-bench".to_string() } else { arg })
            .collect::<Vec<_>>()
            .join(" "),
    }))
}

/// Pretty JSON with one line per sweep row, so a results file stays readable in a diff.
fn render(result: &Value) -> anyhow::Result<String> {
    let mut head = result.clone();
    let rows = head
        .as_object_mut()
        .and_then(|object| object.remove("sweep"))
        .unwrap_or_default();
    let mut text = serde_json::to_string_pretty(&head)?;
    let closing = text.rfind('}').context("an object")?;
    text.truncate(closing);
    let rows: Vec<String> = rows
        .as_array()
        .map(|rows| rows.iter().map(|row| format!("    {row}")).collect())
        .unwrap_or_default();
    text = format!("{},\n  \"sweep\": [\n{}\n  ]\n}}", text.trim_end(), rows.join(",\n"));
    serde_json::from_str::<Value>(&text).context("the rendering is valid JSON")?;
    Ok(text)
}

fn main() -> anyhow::Result<()> {
    // SAFETY: first thing in `main`, before any thread starts.
    #[allow(unsafe_code)]
    unsafe {
        ragdownd::process::configure_lance()
    };
    let cli = Cli::parse();
    let out = cli.out.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = runtime.block_on(run(cli))?;
    let text = render(&result)?;
    println!("{text}");
    if let Some(out) = out {
        std::fs::write(&out, format!("{text}\n")).with_context(|| out.display().to_string())?;
    }
    Ok(())
}
