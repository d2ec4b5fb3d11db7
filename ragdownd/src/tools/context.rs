//! `ragdown_context`: the `<ragdown-context>` block a prompt hook adds to an agent's prompt.
//!
//! One call is one hook firing (reference §2 "ragdown_context", §3 "Hook gates"): a search for the
//! prompt within the scope, then gates on each hit's cosine similarity (an absolute floor, a share
//! of the best hit, a count and a character budget), and a per-session memory so a conversation is
//! given each chunk once. It owns that memory; it must not filter by tag or author, re-rank, or add
//! hits the gates did not pass. Per-folder `.ragdown.json` hook settings, name and alias
//! injection and the query log are not part of it.
//!
//! Settings layer as call argument > server default ([`HookDefaults`], from `RAGDOWN_HOOK_*`) >
//! the embedder's own floor ([`crate::embed::Embedder::min_score`]) for `min_score`.

use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, Mutex, PoisonError};

use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{MAX_TOP_K, ToolError, ToolResult, ToolSettings, format_hit};
use crate::engine::Scope;
use crate::search::{self, Hit, SearchRequest};

/// A prompt shorter than this many characters after trimming gets nothing.
pub const MIN_PROMPT_CHARS: usize = 12;

/// Sessions remembered at once; the least recently used is forgotten first.
pub const MAX_SESSIONS: usize = 200;

/// The block's fixed opening lines after the `<ragdown-context>` tag (reference §2).
const INTRO: &str = "Excerpts from the user's Markdown documents that look related to this prompt, found by search, \
not chosen by the user.\nThey may be irrelevant or out of date: each says when its file last changed. Use \
ragdown_read_doc for the whole file before relying on a fragment.";

/// The server's `ragdown_context` defaults (`RAGDOWN_HOOK_*`); a call's arguments win over them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HookDefaults {
    /// Most chunks per prompt (`RAGDOWN_HOOK_TOP_K`).
    pub top_k: usize,
    /// Lowest cosine similarity (`RAGDOWN_HOOK_MIN_SCORE`); `None` follows the embedder in use.
    pub min_score: Option<f32>,
    /// Lowest share of the best hit's similarity (`RAGDOWN_HOOK_MIN_RATIO`); 0 turns it off.
    pub min_ratio: f32,
    /// Most characters of excerpts per prompt (`RAGDOWN_HOOK_MAX_CHARS`); the first always goes in.
    pub max_chars: usize,
}

impl Default for HookDefaults {
    fn default() -> Self {
        Self {
            top_k: 4,
            min_score: None,
            min_ratio: 0.95,
            max_chars: 6000,
        }
    }
}

/// Output shape of `ragdown_context`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub enum ContextFormat {
    /// The block itself.
    #[default]
    #[serde(rename = "text")]
    Text,
    /// The block as a Claude Code `UserPromptSubmit` hook's `additionalContext` JSON.
    #[serde(rename = "claude-code")]
    ClaudeCode,
}

/// Arguments of `ragdown_context`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ContextArgs {
    /// The user's prompt, verbatim.
    pub prompt: String,
    /// Stable id of the conversation; sections already returned for it are skipped.
    pub session_id: Option<String>,
    /// Forget what session_id was already given before answering (after the client compacts or clears its context).
    #[serde(default)]
    pub reset: bool,
    /// `text` (default): the block. `claude-code`: the JSON a Claude Code UserPromptSubmit hook adds to the prompt.
    #[serde(default)]
    pub format: ContextFormat,
    /// Most sections to add. Default RAGDOWN_HOOK_TOP_K.
    #[schemars(range(min = 1, max = 50))]
    pub top_k: Option<usize>,
    /// Lowest cosine similarity to include. Default RAGDOWN_HOOK_MIN_SCORE.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_score: Option<f32>,
    /// Lowest share of the best hit's similarity to include (0 turns it off). Default RAGDOWN_HOOK_MIN_RATIO.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_ratio: Option<f32>,
    /// Most characters in the block. Default RAGDOWN_HOOK_MAX_CHARS.
    #[schemars(range(min = 1))]
    pub max_chars: Option<usize>,
}

/// The gates of one call, after layering.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Gates {
    top_k: usize,
    min_score: f32,
    min_ratio: f32,
    max_chars: usize,
}

impl Gates {
    /// Call arguments > server defaults > the embedder's floor; refuses out-of-range arguments.
    fn resolve(args: &ContextArgs, defaults: &HookDefaults, embedder_min_score: f32) -> Result<Self, ToolError> {
        if args.top_k.is_some_and(|k| !(1..=MAX_TOP_K).contains(&k)) {
            return Err(ToolError::new(format!("top_k must be between 1 and {MAX_TOP_K}")));
        }
        for (name, value) in [("min_score", args.min_score), ("min_ratio", args.min_ratio)] {
            if value.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Err(ToolError::new(format!("{name} must be between 0 and 1")));
            }
        }
        if args.max_chars == Some(0) {
            return Err(ToolError::new("max_chars must be at least 1"));
        }
        Ok(Self {
            top_k: args.top_k.unwrap_or(defaults.top_k),
            min_score: args.min_score.or(defaults.min_score).unwrap_or(embedder_min_score),
            min_ratio: args.min_ratio.unwrap_or(defaults.min_ratio),
            max_chars: args.max_chars.unwrap_or(defaults.max_chars),
        })
    }
}

/// Which chunk ids each session was already given: an LRU of [`MAX_SESSIONS`] sessions.
#[derive(Debug)]
pub struct SessionMemory {
    capacity: usize,
    /// Key -> (last use, chunk ids given).
    sessions: HashMap<String, (u64, HashSet<String>)>,
    /// Counts uses, so the smallest stamp is the least recently used session.
    clock: u64,
}

impl SessionMemory {
    /// An empty memory of at most `capacity` sessions.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            sessions: HashMap::new(),
            clock: 0,
        }
    }

    /// The key of one endpoint's session: endpoints never share memory (reference §3).
    pub fn key(scope: &Scope, session_id: &str) -> String {
        format!("{}\0{session_id}", scope.dir().to_string_lossy())
    }

    /// Forgets a session.
    pub fn forget(&mut self, key: &str) {
        self.sessions.remove(key);
    }

    /// The chunk ids a session was given, marking it used.
    pub fn seen(&mut self, key: &str) -> Option<&HashSet<String>> {
        self.clock += 1;
        let now = self.clock;
        self.sessions.get_mut(key).map(|(used, seen)| {
            *used = now;
            &*seen
        })
    }

    /// Records chunk ids as given, evicting the least recently used session past the capacity.
    pub fn remember(&mut self, key: &str, ids: impl IntoIterator<Item = String>) {
        self.clock += 1;
        let now = self.clock;
        let (used, seen) = self.sessions.entry(key.to_string()).or_default();
        *used = now;
        seen.extend(ids);
        if self.sessions.len() > self.capacity
            && let Some(oldest) = self
                .sessions
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(key, _)| key.clone())
        {
            self.sessions.remove(&oldest);
        }
    }

    /// Sessions held.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session is held.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

/// The process's session memory.
///
/// It belongs in the [`crate::engine::Engine`] and will move there; until then one process-wide
/// memory serves every endpoint of the process, which is equivalent because the key starts with the
/// scope's absolute directory, so two endpoints (or two engines) never share a session.
static SESSIONS: LazyLock<Mutex<SessionMemory>> = LazyLock::new(|| Mutex::new(SessionMemory::new(MAX_SESSIONS)));

/// The hits that pass the gates, best first: similarity floor, not yet seen, ratio of the best, top_k.
fn gate(mut hits: Vec<Hit>, seen: impl Fn(&str) -> bool, gates: &Gates) -> Vec<Hit> {
    hits.retain(|hit| hit.chunk.similarity >= gates.min_score && !seen(&hit.chunk.id));
    // Stable, as the original's sort: equal similarities keep the fused order.
    hits.sort_by(|a, b| b.chunk.similarity.total_cmp(&a.chunk.similarity));
    if let Some(best) = hits.first().map(|hit| hit.chunk.similarity) {
        let floor = best * gates.min_ratio;
        hits.retain(|hit| hit.chunk.similarity >= floor);
    }
    hits.truncate(gates.top_k);
    hits
}

/// Keeps blocks while they fit in `max_chars` characters; the first always goes in, and a block
/// that does not fit is skipped, not cut (reference §3 "Budget").
fn fit_budget<T>(blocks: Vec<(T, String)>, max_chars: usize) -> Vec<(T, String)> {
    let mut used = 0;
    let mut kept = Vec::new();
    for (item, block) in blocks {
        let len = block.chars().count();
        if !kept.is_empty() && used + len > max_chars {
            continue;
        }
        used += len;
        kept.push((item, block));
    }
    kept
}

/// `ragdown_context`: related excerpts for a prompt as a `<ragdown-context>` block, or `""` when
/// there is nothing to add.
pub async fn context(scope: &Scope, settings: &ToolSettings, args: ContextArgs) -> ToolResult {
    let gates = Gates::resolve(&args, &settings.hook, scope.engine.embedder.min_score())?;
    let key = args
        .session_id
        .as_deref()
        .filter(|id| !id.is_empty())
        .map(|id| SessionMemory::key(scope, id));
    if args.reset
        && let Some(key) = &key
    {
        memory().forget(key);
    }
    // JavaScript's trim() also strips a byte-order mark, which `char::is_whitespace` does not.
    let prompt = args.prompt.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if prompt.chars().count() < MIN_PROMPT_CHARS || prompt.starts_with('/') {
        return Ok(String::new());
    }
    let request = SearchRequest {
        query: prompt,
        limit: gates.top_k * 2,
        path_prefix: scope.prefix.clone(),
        tag: None,
        written_by: None,
        within: scope.span_prefixes(),
    };
    let engine = &scope.engine;
    let hits = search::search(engine.store(), engine.embedder.as_ref(), &request).await?;

    // One lock from reading the seen set to recording what is given, so two concurrent calls of a
    // session never both give the same chunk.
    let mut sessions = memory();
    let seen = key.as_deref().and_then(|key| sessions.seen(key));
    let passed = gate(hits, |id| seen.is_some_and(|seen| seen.contains(id)), &gates);
    // As the original's Math.min: a text limit of 0 (never clip) stays 0 whatever max_chars is.
    let clip_at = settings.text_limit.min(gates.max_chars);
    let blocks: Vec<(String, String)> = passed
        .iter()
        .map(|hit| (hit.chunk.id.clone(), format_hit(scope, hit, clip_at)))
        .collect();
    let (ids, blocks): (Vec<String>, Vec<String>) = fit_budget(blocks, gates.max_chars).into_iter().unzip();
    if blocks.is_empty() {
        return Ok(String::new());
    }
    if let Some(key) = &key {
        sessions.remember(key, ids);
    }
    drop(sessions);

    let block = format!(
        "<ragdown-context source=\"{}\">\n{INTRO}\n\n{}\n</ragdown-context>",
        scope.dir().to_string_lossy(),
        blocks.join("\n\n")
    );
    Ok(match args.format {
        ContextFormat::Text => block,
        ContextFormat::ClaudeCode => json!({
            "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": block}
        })
        .to_string(),
    })
}

/// The session memory, even after a panic elsewhere poisoned its lock: every state it can be left
/// in is a valid memory.
fn memory() -> std::sync::MutexGuard<'static, SessionMemory> {
    SESSIONS.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::store::Candidate;

    fn hit(id: &str, similarity: f32) -> Hit {
        Hit {
            chunk: Candidate::for_test(id, similarity),
            score: 0.0,
            sources: vec!["dense"],
        }
    }

    fn ids(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|hit| hit.chunk.id.as_str()).collect()
    }

    const OPEN: Gates = Gates {
        top_k: 4,
        min_score: 0.5,
        min_ratio: 0.0,
        max_chars: 6000,
    };

    #[test]
    fn gates_floor_skip_seen_sort_by_similarity_then_take_top_k() {
        let hits = vec![
            hit("a", 0.6),
            hit("b", 0.9),
            hit("low", 0.49),
            hit("seen", 0.95),
            hit("c", 0.7),
        ];
        let passed = gate(hits.clone(), |id| id == "seen", &OPEN);
        assert_eq!(ids(&passed), ["b", "c", "a"]);
        let two = Gates { top_k: 2, ..OPEN };
        assert_eq!(ids(&gate(hits, |_| false, &two)), ["seen", "b"]);
    }

    #[test]
    fn ratio_gate_is_relative_to_the_best_unseen_hit() {
        let hits = vec![hit("a", 0.80), hit("b", 0.76), hit("c", 0.75), hit("best", 0.9)];
        let ratio = Gates {
            min_ratio: 0.95,
            ..OPEN
        };
        assert_eq!(ids(&gate(hits.clone(), |_| false, &ratio)), ["best"]);
        // With the best already given, the ratio is taken from the next one.
        assert_eq!(ids(&gate(hits, |id| id == "best", &ratio)), ["a", "b"]);
    }

    #[test]
    fn budget_always_takes_the_first_block_and_skips_what_does_not_fit() {
        let blocks = |lens: &[usize]| -> Vec<(usize, String)> {
            lens.iter().enumerate().map(|(i, n)| (i, "x".repeat(*n))).collect()
        };
        let kept =
            |lens: &[usize], max| -> Vec<usize> { fit_budget(blocks(lens), max).into_iter().map(|(i, _)| i).collect() };
        assert_eq!(kept(&[50, 10], 20), [0]);
        assert_eq!(kept(&[10, 10, 1], 20), [0, 1]);
        assert_eq!(kept(&[10, 11, 10], 20), [0, 2]);
        // Characters, not bytes.
        assert_eq!(fit_budget(vec![(0, "é".repeat(10)), (1, "é".repeat(10))], 20).len(), 2);
    }

    #[test]
    fn arguments_win_over_defaults_which_win_over_the_embedder() {
        let args: ContextArgs = serde_json::from_value(json!({"prompt": "p", "top_k": 2})).unwrap();
        let defaults = HookDefaults::default();
        assert_eq!(
            Gates::resolve(&args, &defaults, 0.8).unwrap(),
            Gates {
                top_k: 2,
                min_score: 0.8,
                min_ratio: 0.95,
                max_chars: 6000
            }
        );
        let env = HookDefaults {
            min_score: Some(0.2),
            ..defaults
        };
        assert_eq!(Gates::resolve(&args, &env, 0.8).unwrap().min_score, 0.2);
        let args: ContextArgs = serde_json::from_value(json!({"prompt": "p", "min_score": 0.5})).unwrap();
        assert_eq!(Gates::resolve(&args, &env, 0.8).unwrap().min_score, 0.5);
        for bad in [
            json!({"prompt": "p", "top_k": 0}),
            json!({"prompt": "p", "top_k": 51}),
            json!({"prompt": "p", "min_score": 1.5}),
            json!({"prompt": "p", "min_ratio": -0.1}),
            json!({"prompt": "p", "max_chars": 0}),
        ] {
            let args: ContextArgs = serde_json::from_value(bad.clone()).unwrap();
            assert!(Gates::resolve(&args, &defaults, 0.8).is_err(), "{bad}");
        }
        let claude: ContextArgs = serde_json::from_value(json!({"prompt": "", "format": "claude-code"})).unwrap();
        assert_eq!(claude.format, ContextFormat::ClaudeCode);
        assert!(serde_json::from_value::<ContextArgs>(json!({"prompt": "", "query": "x"})).is_err());
    }

    #[test]
    fn memory_forgets_the_least_recently_used_session_past_its_capacity() {
        let mut memory = SessionMemory::new(2);
        memory.remember("a", ["1".to_string()]);
        memory.remember("b", ["2".to_string()]);
        assert!(memory.seen("a").is_some_and(|seen| seen.contains("1")));
        memory.remember("c", ["3".to_string()]);
        assert_eq!(memory.len(), 2);
        assert!(memory.seen("b").is_none(), "b was the least recently used");
        assert!(memory.seen("a").is_some() && memory.seen("c").is_some());
        memory.remember("a", ["4".to_string()]);
        assert_eq!(memory.seen("a").map(HashSet::len), Some(2));
        memory.forget("a");
        assert!(memory.seen("a").is_none());
    }
}
