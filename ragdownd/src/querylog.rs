//! The query log (`RAGDOWN_QUERY_LOG`): one JSON line per search, hook call and document read, in
//! `query-log.jsonl` in the data dir, and the summary `GET /api/query-log` answers with.
//!
//! It records queries, filters, and for each hit its path, heading, lines, similarity and score,
//! with what every hook gate did; it must never record document text. It stays on the server and
//! rotates at [`ROTATE_BYTES`] to one `.1` file (product page, Design: "The query log"). Writing
//! is best effort: a log that cannot be written is warned about and never fails the tool.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::hook::Outcome;
use crate::index::sync::utc_day;
use crate::search::Hit;

/// The log's file name in the data dir.
pub const FILE: &str = "query-log.jsonl";
/// The size at which the log is moved to `.1` and started again.
pub const ROTATE_BYTES: u64 = 10 * 1024 * 1024;
/// A read within this long after a search that showed the document counts as following it.
pub const READ_AFTER_MS: f64 = 10.0 * 60.0 * 1000.0;
/// Most gaps and documents the summary lists.
const SUMMARY_ROWS: usize = 20;

/// What a line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// `ragdown_recall`.
    Recall,
    /// `ragdown_context`.
    Context,
    /// `ragdown_read_doc`.
    Read,
    /// The web UI's search.
    WebSearch,
}

/// One hit as the log keeps it: where it is and how it scored, never its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggedHit {
    /// Root-relative path (it names the folder).
    pub path: String,
    /// The chunk's heading path.
    pub heading: String,
    /// First and last line.
    pub lines: [i32; 2],
    /// Cosine similarity to the query.
    pub similarity: f32,
    /// The fused rank score.
    pub score: f64,
    /// For the hook: what its gates did with the hit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

impl LoggedHit {
    /// A search hit, with the hook's outcome when there is one.
    pub fn new(hit: &Hit, outcome: Option<Outcome>) -> Self {
        Self {
            path: hit.chunk.path.clone(),
            heading: hit.chunk.heading.clone(),
            lines: [hit.chunk.line_start, hit.chunk.line_end],
            similarity: hit.chunk.similarity,
            score: hit.score,
            outcome,
        }
    }
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// When, in ms since the epoch.
    pub at_ms: f64,
    pub kind: Kind,
    /// The endpoint's root-relative prefix (`""` for the whole docs dir).
    pub endpoint: String,
    /// The query or prompt (searches and hook calls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The search's filters or the hook's settings in effect.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub filters: Value,
    /// The floor in effect, for telling gaps: the hook's `min_score` for this endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_score: Option<f32>,
    /// What the search found, best-ranked first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hits: Vec<LoggedHit>,
    /// Why a hook call did not search (`short`, `slash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The hook's session, when the call named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// A read's root-relative path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A read's first and last line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<[usize; 2]>,
    /// How long the call took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
}

impl Entry {
    /// An entry of `kind` for `endpoint`, stamped now, with nothing else set.
    pub fn new(kind: Kind, endpoint: &str) -> Self {
        Self {
            at_ms: now_ms(),
            kind,
            endpoint: endpoint.to_string(),
            query: None,
            filters: Value::Null,
            min_score: None,
            hits: Vec::new(),
            skipped: None,
            session: None,
            path: None,
            lines: None,
            ms: None,
        }
    }

    /// Whether the search's best hit was under the floor in effect (nothing found counts).
    pub fn is_gap(&self) -> bool {
        let Some(floor) = self.min_score else {
            return false;
        };
        self.hits.iter().map(|hit| hit.similarity).fold(f32::MIN, f32::max) < floor
    }

    /// How many hits the hook injected (0 for anything but a hook call).
    fn injected(&self) -> usize {
        self.hits
            .iter()
            .filter(|h| h.outcome.is_some_and(Outcome::is_chosen))
            .count()
    }

    /// A search or hook call that searched (not a read, not a skipped prompt).
    fn searched(&self) -> bool {
        self.kind != Kind::Read && self.skipped.is_none()
    }

    /// The paths this entry showed the client: every recall hit, and what the hook injected.
    fn shown(&self) -> impl Iterator<Item = &str> {
        self.hits
            .iter()
            .filter(|hit| hit.outcome.is_none_or(Outcome::is_chosen))
            .map(|hit| hit.path.as_str())
    }
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The query log of one data dir.
#[derive(Debug)]
pub struct QueryLog {
    path: PathBuf,
    rotate_bytes: u64,
    enabled: AtomicBool,
    /// One writer at a time, so lines never interleave and rotation is not raced.
    write: Mutex<()>,
}

impl QueryLog {
    /// The log in `data_dir`, off until [`QueryLog::set_enabled`].
    pub fn new(data_dir: &Path) -> Self {
        Self::with_rotation(data_dir, ROTATE_BYTES)
    }

    /// As [`QueryLog::new`], rotating at `rotate_bytes` (tests use a small size).
    pub fn with_rotation(data_dir: &Path, rotate_bytes: u64) -> Self {
        Self {
            path: data_dir.join(FILE),
            rotate_bytes,
            enabled: AtomicBool::new(false),
            write: Mutex::new(()),
        }
    }

    /// The current file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The rotated file.
    pub fn rotated_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".1");
        PathBuf::from(name)
    }

    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::Release);
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// Appends an entry when the log is on.
    pub fn record(&self, entry: &Entry) {
        if !self.is_enabled() {
            return;
        }
        if let Err(err) = self.append(entry) {
            tracing::warn!("cannot write the query log {}: {err}", self.path.display());
        }
    }

    fn append(&self, entry: &Entry) -> std::io::Result<()> {
        let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        line.push('\n');
        let _guard = self.write.lock();
        let size = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        if size > 0 && size + line.len() as u64 > self.rotate_bytes {
            std::fs::rename(&self.path, self.rotated_path())?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        options.open(&self.path)?.write_all(line.as_bytes())
    }

    /// Every entry, oldest first (the rotated file, then the current one). Lines that do not
    /// parse are skipped.
    pub fn entries(&self) -> Vec<Entry> {
        let _guard = self.write.lock();
        [self.rotated_path(), self.path.clone()]
            .iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .flat_map(|text| {
                text.lines()
                    .filter_map(|line| serde_json::from_str::<Entry>(line).ok())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Empties the log, rotated file included.
    pub fn clear(&self) -> std::io::Result<()> {
        let _guard = self.write.lock();
        for path in [self.rotated_path(), self.path.clone()] {
            match std::fs::remove_file(&path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
                _ => {}
            }
        }
        Ok(())
    }

    /// The log summed up for Settings → Usage.
    pub fn summary(&self) -> Value {
        let mut value = summarize(&self.entries());
        value["enabled"] = json!(self.is_enabled());
        value
    }
}

fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| (part as f64 / whole as f64 * 1000.0).round() / 1000.0)
}

/// The summary of `entries` (oldest first): searches, gaps, the hook's injection rate, and the
/// documents read most with how many of those reads followed a search that showed them.
pub fn summarize(entries: &[Entry]) -> Value {
    let count = |kind: Kind| entries.iter().filter(|e| e.kind == kind).count();
    let searched: Vec<&Entry> = entries.iter().filter(|e| e.searched()).collect();
    let gaps: Vec<&Entry> = searched.iter().copied().filter(|e| e.is_gap()).collect();
    let recent_gaps: Vec<Value> = gaps
        .iter()
        .rev()
        .take(SUMMARY_ROWS)
        .map(|e| {
            json!({
                "kind": e.kind,
                "query": e.query,
                "best": e.hits.iter().map(|h| h.similarity).reduce(f32::max),
                "min_score": e.min_score,
                "at_ms": e.at_ms,
            })
        })
        .collect();

    let prompts: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.kind == Kind::Context && e.skipped.is_none())
        .collect();
    let injected_counts: Vec<usize> = prompts.iter().map(|e| e.injected()).collect();
    let injected = injected_counts.iter().filter(|&&n| n > 0).count();
    let chunks: usize = injected_counts.iter().sum();

    // Reads, and whether a search in the window before each showed the same document.
    let mut documents: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut after_search = 0;
    for (i, read) in entries.iter().enumerate().filter(|(_, e)| e.kind == Kind::Read) {
        let Some(path) = read.path.as_deref() else { continue };
        let followed = entries[..i]
            .iter()
            .rev()
            .any(|e| e.kind != Kind::Read && read.at_ms - e.at_ms <= READ_AFTER_MS && e.shown().any(|p| p == path));
        let counts = documents.entry(path).or_default();
        counts.0 += 1;
        if followed {
            counts.1 += 1;
            after_search += 1;
        }
    }
    let reads = count(Kind::Read);
    let mut most_read: Vec<(&str, (usize, usize))> = documents.into_iter().collect();
    most_read.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
    let most_read: Vec<Value> = most_read
        .into_iter()
        .take(SUMMARY_ROWS)
        .map(|(path, (reads, after))| json!({"path": path, "reads": reads, "after_search": after}))
        .collect();

    json!({
        "entries": entries.len(),
        "searches": {
            "recall": count(Kind::Recall),
            "context": count(Kind::Context),
            "web_search": count(Kind::WebSearch),
        },
        "gaps": {
            "count": gaps.len(),
            "share": share(gaps.len(), searched.len()),
            "recent": recent_gaps,
        },
        "hook": {
            "calls": count(Kind::Context),
            "prompts": prompts.len(),
            "skipped": count(Kind::Context) - prompts.len(),
            "injected": injected,
            "injection_rate": share(injected, prompts.len()),
            "chunks_injected": chunks,
            "chunks_per_injected_prompt": (injected > 0).then(|| (chunks as f64 / injected as f64 * 100.0).round() / 100.0),
        },
        "reads": {
            "total": reads,
            "after_search": after_search,
            "share_after_search": share(after_search, reads),
            "documents": most_read,
        },
        "days": days(entries),
    })
}

/// One UTC day's counts, for the Usage charts.
#[derive(Debug, Default, Serialize)]
struct Day {
    recall: usize,
    context: usize,
    web_search: usize,
    reads: usize,
    /// Hook calls that searched (not skipped as short or a slash command).
    prompts: usize,
    /// Of those, the ones the hook injected at least one section into.
    injected: usize,
    /// Searches and hook calls whose best hit was under the floor.
    gaps: usize,
}

/// The entries counted per UTC day (`YYYY-MM-DD`), oldest first; days with no entry are left out.
fn days(entries: &[Entry]) -> Vec<Value> {
    let mut days: BTreeMap<String, Day> = BTreeMap::new();
    for e in entries {
        let day = days.entry(utc_day(e.at_ms)).or_default();
        match e.kind {
            Kind::Recall => day.recall += 1,
            Kind::Context => day.context += 1,
            Kind::WebSearch => day.web_search += 1,
            Kind::Read => day.reads += 1,
        }
        if e.kind == Kind::Context && e.skipped.is_none() {
            day.prompts += 1;
            day.injected += usize::from(e.injected() > 0);
        }
        day.gaps += usize::from(e.searched() && e.is_gap());
    }
    days.into_iter()
        .map(|(day, counts)| {
            let mut value = json!(counts);
            value["day"] = json!(day);
            value
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logged(path: &str, similarity: f32, outcome: Option<Outcome>) -> LoggedHit {
        LoggedHit {
            path: path.into(),
            heading: "H".into(),
            lines: [1, 2],
            similarity,
            score: 0.01,
            outcome,
        }
    }

    fn entry(kind: Kind, at_ms: f64) -> Entry {
        Entry {
            at_ms,
            ..Entry::new(kind, "")
        }
    }

    #[test]
    fn the_summary_counts_gaps_injections_and_reads_after_a_search() {
        let minute = 60_000.0;
        let mut recall = entry(Kind::Recall, 0.0);
        recall.query = Some("restore".into());
        recall.min_score = Some(0.5);
        recall.hits = vec![logged("ops/a.md", 0.7, None), logged("ops/b.md", 0.6, None)];
        let mut gap = entry(Kind::Recall, minute);
        gap.query = Some("weather".into());
        gap.min_score = Some(0.5);
        gap.hits = vec![logged("ops/a.md", 0.2, None)];
        let mut hook = entry(Kind::Context, 2.0 * minute);
        hook.query = Some("how do I restore it".into());
        hook.min_score = Some(0.5);
        hook.hits = vec![
            logged("ops/c.md", 0.8, Some(Outcome::Passed)),
            logged("ops/d.md", 0.3, Some(Outcome::UnderFloor)),
        ];
        let mut empty_hook = entry(Kind::Context, 3.0 * minute);
        empty_hook.min_score = Some(0.5);
        empty_hook.hits = vec![logged("ops/d.md", 0.3, Some(Outcome::UnderFloor))];
        let mut short = entry(Kind::Context, 3.0 * minute);
        short.skipped = Some("short".into());
        let read = |path: &str, at: f64| {
            let mut read = entry(Kind::Read, at);
            read.path = Some(path.into());
            read
        };
        let entries = vec![
            recall,
            gap,
            hook,
            empty_hook,
            short,
            read("ops/a.md", 5.0 * minute),  // shown by the recall 5 minutes before
            read("ops/c.md", 6.0 * minute),  // injected by the hook
            read("ops/d.md", 6.0 * minute),  // dropped by the hook: not shown
            read("ops/b.md", 11.0 * minute), // shown 11 minutes before: too long ago
            read("ops/a.md", 20.0 * minute), // too long ago too
        ];
        let summary = summarize(&entries);
        assert_eq!(summary["searches"], json!({"recall": 2, "context": 3, "web_search": 0}));
        assert_eq!(summary["gaps"]["count"], 2, "the weather query and the empty hook call");
        assert_eq!(summary["gaps"]["recent"][0]["query"], Value::Null);
        assert_eq!(summary["gaps"]["recent"][1]["query"], "weather");
        assert_eq!(summary["hook"]["prompts"], 2);
        assert_eq!(summary["hook"]["skipped"], 1);
        assert_eq!(summary["hook"]["injected"], 1);
        assert_eq!(summary["hook"]["injection_rate"], 0.5);
        assert_eq!(summary["reads"]["total"], 5);
        assert_eq!(summary["reads"]["after_search"], 2);
        assert_eq!(
            summary["reads"]["documents"][0],
            json!({"path": "ops/a.md", "reads": 2, "after_search": 1})
        );
        assert_eq!(
            summary["days"],
            json!([{"day": "1970-01-01", "recall": 2, "context": 3, "web_search": 0, "reads": 5,
                "prompts": 2, "injected": 1, "gaps": 2}])
        );
    }

    #[test]
    fn the_summary_counts_each_utc_day_oldest_first() {
        let day: f64 = 86_400_000.0;
        // 2026-11-30T07:28:50Z, and the same day's last millisecond.
        let monday: f64 = 1_796_023_730_123.0;
        let end_of_monday = (monday / day).floor() * day + day - 1.0;
        let hook = |at: f64, injected: bool| {
            let mut e = entry(Kind::Context, at);
            e.min_score = Some(0.5);
            let outcome = if injected { Outcome::Passed } else { Outcome::UnderFloor };
            e.hits = vec![logged("ops/a.md", if injected { 0.8 } else { 0.3 }, Some(outcome))];
            e
        };
        let mut web = entry(Kind::WebSearch, end_of_monday);
        web.min_score = Some(0.5);
        web.hits = vec![logged("ops/a.md", 0.9, None)];
        let mut skipped = entry(Kind::Context, monday + 2.0 * day);
        skipped.skipped = Some("slash".into());
        // Out of order on purpose: the days still come oldest first.
        let entries = vec![
            hook(monday + 2.0 * day, true),
            hook(monday, true),
            web,
            hook(end_of_monday, false),
            skipped,
            entry(Kind::Read, monday + 2.0 * day),
        ];
        let summary = summarize(&entries);
        assert_eq!(
            summary["days"],
            json!([
                {"day": "2026-11-30", "recall": 0, "context": 2, "web_search": 1, "reads": 0,
                    "prompts": 2, "injected": 1, "gaps": 1},
                {"day": "2026-12-02", "recall": 0, "context": 2, "web_search": 0, "reads": 1,
                    "prompts": 1, "injected": 1, "gaps": 0},
            ])
        );
        assert_eq!(summarize(&[])["days"], json!([]));
    }

    #[test]
    fn the_log_appends_only_when_on_and_rotates_to_one_older_file() {
        let dir = tempfile::tempdir().unwrap();
        let log = QueryLog::with_rotation(dir.path(), 400);
        let mut e = entry(Kind::Recall, 1.0);
        e.query = Some("x".repeat(120));
        log.record(&e);
        assert!(!log.path().exists(), "off by default");
        log.set_enabled(true);
        log.record(&e);
        log.record(&e);
        assert_eq!(log.entries().len(), 2);
        assert!(!log.rotated_path().exists());
        // The third line would pass 400 bytes: the two move to .1 and the third starts a new file.
        log.record(&e);
        assert_eq!(std::fs::read_to_string(log.rotated_path()).unwrap().lines().count(), 2);
        assert_eq!(std::fs::read_to_string(log.path()).unwrap().lines().count(), 1);
        assert_eq!(log.entries().len(), 3);
        // A second rotation replaces the older file: there is only ever one.
        log.record(&e);
        log.record(&e);
        assert_eq!(std::fs::read_to_string(log.rotated_path()).unwrap().lines().count(), 2);
        assert_eq!(log.entries().len(), 3);
        log.clear().unwrap();
        assert!(log.entries().is_empty() && !log.rotated_path().exists());
        assert_eq!(log.summary()["enabled"], true);
    }
}
