//! `http-load`: many MCP clients over streamable HTTP against one running `ragdownd serve`, for a
//! fixed time: `ragdown_recall`, `ragdown_context` and hash-guarded `ragdown_edit`s (each client
//! edits a document of its own, read first for its hash). Clients mix the three (`--clients`,
//! `--edit-every`), or are writers that only edit and readers that only search (`--writers`,
//! `--readers`), for an edit's latency with and without searches beside it. Reports requests per second, latency
//! percentiles per tool, errors, and the server's resident memory sampled once a second (from
//! `/proc/<pid>/status`), with its growth over the run, as one JSON object on stdout.
//!
//! Each client is a thread with one keep-alive connection, like an agent's MCP client.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{Value, json};

#[derive(Debug, Parser)]
#[command(name = "http-load", about)]
struct Cli {
    /// The folder's MCP endpoint, e.g. http://127.0.0.1:3000/mcp/runbooks.
    #[arg(long)]
    url: String,
    /// The bearer token.
    #[arg(long, env = "RAGDOWN_TOKEN")]
    token: String,
    /// Concurrent clients.
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// How long to run.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Every how many calls of a client one is an edit (the rest alternate recall and context).
    #[arg(long, default_value_t = 10)]
    edit_every: usize,
    /// Clients that only edit, instead of `--clients` mixed ones.
    #[arg(long)]
    writers: Option<usize>,
    /// Clients that only search (recall and context in turn), beside `--writers`.
    #[arg(long)]
    readers: Option<usize>,
    /// The server's PID, for its memory.
    #[arg(long)]
    pid: Option<u32>,
    /// Queries, one per line (recall and context prompts are drawn from them in turn).
    #[arg(long)]
    queries: std::path::PathBuf,
}

/// What one client saw.
#[derive(Default)]
struct Seen {
    recall: Vec<f64>,
    context: Vec<f64>,
    edit: Vec<f64>,
    errors: Vec<String>,
    refused_edits: usize,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let queries: Vec<String> = std::fs::read_to_string(&cli.queries)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    anyhow::ensure!(!queries.is_empty(), "no queries in {}", cli.queries.display());
    let queries = Arc::new(queries);
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = cli.pid.map(|pid| {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut samples = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                if let Some(kb) = rss_kb(pid) {
                    samples.push(kb as f64 / 1024.0);
                }
                std::thread::sleep(Duration::from_secs(1));
            }
            samples
        })
    });
    let roles: Vec<Role> = if cli.writers.is_some() || cli.readers.is_some() {
        let writers = std::iter::repeat_n(Role::Writer, cli.writers.unwrap_or(0));
        writers
            .chain(std::iter::repeat_n(Role::Reader, cli.readers.unwrap_or(0)))
            .collect()
    } else {
        vec![Role::Mixed(cli.edit_every.max(1)); cli.clients]
    };
    anyhow::ensure!(!roles.is_empty(), "no clients");
    let started = Instant::now();
    let clients: Vec<_> = roles
        .iter()
        .enumerate()
        .map(|(client, &role)| {
            let (url, token, queries, stop) = (cli.url.clone(), cli.token.clone(), queries.clone(), stop.clone());
            std::thread::spawn(move || run_client(client, &url, &token, &queries, role, &stop))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(cli.seconds));
    stop.store(true, Ordering::Relaxed);
    let seen: Vec<Seen> = clients
        .into_iter()
        .map(|c| c.join().expect("a client panicked"))
        .collect();
    let elapsed = started.elapsed().as_secs_f64();
    let memory = sampler
        .map(|s| s.join().expect("the sampler panicked"))
        .unwrap_or_default();

    let mut all = Seen::default();
    for s in seen {
        all.recall.extend(s.recall);
        all.context.extend(s.context);
        all.edit.extend(s.edit);
        all.errors.extend(s.errors);
        all.refused_edits += s.refused_edits;
    }
    let requests = all.recall.len() + all.context.len() + all.edit.len();
    let mut everything: Vec<f64> = all
        .recall
        .iter()
        .chain(&all.context)
        .chain(&all.edit)
        .copied()
        .collect();
    println!(
        "{}",
        json!({
            "clients": roles.len(),
            "writers": roles.iter().filter(|r| **r == Role::Writer).count(),
            "readers": roles.iter().filter(|r| **r == Role::Reader).count(),
            "seconds": elapsed,
            "requests": requests,
            "requests_per_s": requests as f64 / elapsed,
            "errors": all.errors.len(),
            "first_errors": all.errors.iter().take(5).collect::<Vec<_>>(),
            "refused_edits": all.refused_edits,
            "latency_ms": {
                "all": percentiles(&mut everything),
                "ragdown_recall": percentiles(&mut all.recall),
                "ragdown_context": percentiles(&mut all.context),
                "ragdown_edit": percentiles(&mut all.edit),
            },
            "rss_mb": memory_summary(&memory),
            "machine": bench::harness::machine(),
        })
    );
    Ok(())
}

/// What a client calls.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    /// Every so many calls an edit, the rest recall and context in turn.
    Mixed(usize),
    /// Only edits.
    Writer,
    /// Only recall and context.
    Reader,
}

impl Role {
    fn edits(self, n: usize) -> bool {
        match self {
            Self::Mixed(every) => n.is_multiple_of(every),
            Self::Writer => true,
            Self::Reader => false,
        }
    }
}

fn run_client(client: usize, url: &str, token: &str, queries: &[String], role: Role, stop: &AtomicBool) -> Seen {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut seen = Seen::default();
    let path = format!("load/client-{client}.md");
    if role != Role::Reader {
        let created = call(
            &agent,
            url,
            token,
            "ragdown_write",
            json!({"path": path, "text": "# Load\n\nEND\n"}),
        );
        if let Err(err) = created
            && !err.contains("exists")
        {
            seen.errors.push(err);
        }
    }
    let mut n = client;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let query = &queries[n % queries.len()];
        let started = Instant::now();
        let (kind, result) = if role.edits(n) {
            ("edit", edit(&agent, url, token, &path, n))
        } else if n.is_multiple_of(2) {
            (
                "recall",
                call(&agent, url, token, "ragdown_recall", json!({"query": query})).map(|_| ()),
            )
        } else {
            let arguments = json!({"prompt": query, "session_id": format!("load-{client}")});
            (
                "context",
                call(&agent, url, token, "ragdown_context", arguments).map(|_| ()),
            )
        };
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok(()) => match kind {
                "edit" => seen.edit.push(ms),
                "recall" => seen.recall.push(ms),
                _ => seen.context.push(ms),
            },
            Err(err) if err.contains("was changed on disk") => seen.refused_edits += 1,
            Err(err) => seen.errors.push(err),
        }
    }
    seen
}

/// Reads the document for its hash, then adds a line to it with that hash.
fn edit(agent: &ureq::Agent, url: &str, token: &str, path: &str, n: usize) -> Result<(), String> {
    let text = call(
        agent,
        url,
        token,
        "ragdown_read_doc",
        json!({"path": path, "end_line": 1}),
    )?;
    let at = text.find("(hash ").ok_or_else(|| format!("no hash in {text}"))? + 6;
    let base = text.get(at..at + 12).ok_or("a short hash")?;
    let edits = json!([{"old_text": "END", "new_text": format!("line {n}\nEND")}]);
    call(
        agent,
        url,
        token,
        "ragdown_edit",
        json!({"path": path, "edits": edits, "base_hash": base}),
    )
    .map(|_| ())
}

/// One `tools/call`: the result's text, or why it failed.
fn call(agent: &ureq::Agent, url: &str, token: &str, name: &str, arguments: Value) -> Result<String, String> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}});
    let mut response = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", &format!("Bearer {token}"))
        .send(body.to_string())
        .map_err(|e| format!("{name}: {e}"))?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .read_to_string()
        .map_err(|e| format!("{name}: {e}"))?;
    if status != 200 {
        return Err(format!("{name}: HTTP {status}: {text}"));
    }
    let answer: Value = serde_json::from_str(&text).map_err(|e| format!("{name}: {e}: {text}"))?;
    let result = &answer["result"];
    let out = result["content"][0]["text"].as_str().unwrap_or_default().to_string();
    if result["isError"] == true || answer.get("error").is_some() {
        return Err(format!("{name}: {out}{}", answer["error"]));
    }
    Ok(out)
}

fn percentiles(values: &mut [f64]) -> Value {
    if values.is_empty() {
        return Value::Null;
    }
    values.sort_by(f64::total_cmp);
    let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize];
    json!({ "n": values.len(), "p50": at(0.5), "p95": at(0.95), "p99": at(0.99), "max": at(1.0) })
}

/// First and last minute's median, the peak, and the growth per minute between the two halves.
fn memory_summary(samples: &[f64]) -> Value {
    if samples.len() < 4 {
        return Value::Null;
    }
    let median = |part: &[f64]| {
        let mut part = part.to_vec();
        part.sort_by(f64::total_cmp);
        part[part.len() / 2]
    };
    let minute = samples.len().min(60);
    let half = samples.len() / 2;
    let (early, late) = (median(&samples[..half]), median(&samples[half..]));
    json!({
        "samples": samples.len(),
        "first_minute_median": median(&samples[..minute]),
        "last_minute_median": median(&samples[samples.len() - minute..]),
        "peak": samples.iter().copied().fold(0.0, f64::max),
        "growth_mb_per_min_between_halves": (late - early) / (half as f64 / 60.0),
    })
}

/// The resident set of a process, in KiB.
fn rss_kb(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}
