//! `ragdown_context`: the `<ragdown-context>` block a prompt hook adds to an agent's prompt.
//!
//! One call is one hook firing (docs/tools.md; the Claude Code hook in docs/deployment.md): skip
//! short prompts and slash commands, search the prompt within the scope, let
//! [`crate::hook::select`] choose (session memory, name and alias injection, the cosine floor, the
//! ratio of the best, top_k), fit the excerpts into the character budget, remember what the session
//! was given, and log the call. Settings layer as [`crate::settings`] says, with the folder's
//! `.ragdown.json` and the saved server settings re-read on every call.

use std::path::PathBuf;
use std::time::Instant;

use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{MAX_TOP_K, ToolError, ToolResult, ToolSettings, format_hit};
use crate::engine::Scope;
use crate::hook::memory::SessionMemory;
use crate::hook::{self, Gates, Mentions, Outcome};
use crate::index::scan::Layout;
use crate::querylog::{Entry, Kind, LoggedHit};
use crate::search::{self, Hit, SearchRequest};
use crate::settings::hook::{floor_too_low, warn_floor_too_low};
use crate::settings::{FOLDER_SETTINGS_FILE, HookOverrides, SAVED_SETTINGS_FILE};

pub use crate::hook::memory::MAX_SESSIONS;
pub use crate::settings::HookDefaults;

/// A prompt that holds less than this many characters' worth after trimming gets nothing
/// ([`is_short`]).
pub const MIN_PROMPT_CHARS: usize = 12;

/// Whether a trimmed prompt is too short to search: it weighs less than [`MIN_PROMPT_CHARS`],
/// counting each Chinese, Japanese or Korean letter as two characters and anything else as one
/// ([`crate::markdown::cjk::weight`]). A CJK word is two letters where an English one is five or
/// six, so counting characters alone dropped real questions (`怎么恢复备份？`, 7 characters);
/// a prompt without CJK letters is gated on its length exactly as before.
pub fn is_short(prompt: &str) -> bool {
    crate::markdown::cjk::weight(prompt) < MIN_PROMPT_CHARS
}

/// The block's fixed opening lines after the `<ragdown-context>` tag: what the excerpts are and how
/// far to trust them. Agents read it every turn, so it changes only with care.
const INTRO: &str = "Excerpts from the user's Markdown documents that look related to this prompt, found by search, \
not chosen by the user.\nThey may be irrelevant or out of date: each says when its file last changed. Use \
ragdown_read_doc for the whole file before relying on a fragment.";

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

impl ContextArgs {
    /// The call's own settings layer; refuses out-of-range arguments.
    fn overrides(&self) -> Result<HookOverrides, ToolError> {
        if self.top_k.is_some_and(|k| !(1..=MAX_TOP_K).contains(&k)) {
            return Err(ToolError::new(format!("top_k must be between 1 and {MAX_TOP_K}")));
        }
        for (name, value) in [("min_score", self.min_score), ("min_ratio", self.min_ratio)] {
            if value.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Err(ToolError::new(format!("{name} must be between 0 and 1")));
            }
        }
        if self.max_chars == Some(0) {
            return Err(ToolError::new("max_chars must be at least 1"));
        }
        Ok(HookOverrides {
            top_k: self.top_k,
            min_score: self.min_score,
            min_ratio: self.min_ratio,
            max_chars: self.max_chars,
        })
    }
}

/// Where a scope's folder keeps its `.ragdown.json`: the folder under serve (none for the root
/// `/mcp` when a call names no folder), the docs dir itself under stdio, which serves it as one
/// folder.
fn folder_dir(scope: &Scope) -> Option<PathBuf> {
    let engine = &scope.engine;
    match engine.layout {
        Layout::Single => Some(engine.docs_dir.clone()),
        Layout::Folders => scope.folder.as_ref().map(|folder| engine.docs_dir.join(folder)),
    }
}

/// The settings a call runs with: its arguments > the folder's `.ragdown.json` > the saved server
/// settings (serve only) > `RAGDOWN_HOOK_*` > the embedder's floor. Both files are read now, so an
/// edit applies to the next prompt; a floor they set at or under the embedder's unrelated score is
/// warned about once per value.
pub fn gates(scope: &Scope, settings: &ToolSettings, call: HookOverrides) -> Gates {
    let engine = &scope.engine;
    let folder = folder_dir(scope);
    let layers = settings.layered.hook_layers(folder.as_deref(), call);
    if let Some(unrelated) = engine.embedder.unrelated_score() {
        let sources = [
            (
                folder.map(|dir| dir.join(FOLDER_SETTINGS_FILE)),
                layers.folder.min_score,
            ),
            (Some(engine.docs_dir.join(SAVED_SETTINGS_FILE)), layers.saved.min_score),
        ];
        for (source, floor) in sources {
            if let (Some(source), Some(floor)) = (source, floor)
                && floor_too_low(floor, unrelated)
                && engine.hook.first_warning(&source.to_string_lossy(), floor)
            {
                let source = format!("in {}", source.display());
                warn_floor_too_low(floor, unrelated, &source, engine.embedder.index_name());
            }
        }
    }
    // The saved layer is in `layers`, so it resolves over the environment's defaults.
    layers.resolve(
        &settings.layered.env().hook,
        engine.embedder.min_score(),
        engine.embedder.min_ratio(),
    )
}

/// One call's result: the block and every hit with what the hook did with it.
#[derive(Debug, Clone, Default)]
pub struct ContextRun {
    /// The `<ragdown-context>` block, or empty.
    pub block: String,
    /// The search's hits, best-ranked first.
    pub hits: Vec<Hit>,
    /// One outcome per hit.
    pub outcomes: Vec<Outcome>,
    /// Indexes of the hits in the block, in block order.
    pub injected: Vec<usize>,
    /// The settings in effect; `None` when the prompt was skipped.
    pub gates: Option<Gates>,
    /// Why the prompt was not searched: `short` or `slash`.
    pub skipped: Option<&'static str>,
}

/// What the hook chooses from: a search's hits and what the prompt calls things by.
#[derive(Debug, Clone)]
pub struct Candidates {
    /// The search's hits, best-ranked first (`top_k` times two, within the scope).
    pub hits: Vec<Hit>,
    /// The names and aliased documents the prompt holds.
    pub mentions: Mentions,
}

/// Searches a (trimmed, not skipped) prompt as the hook does: within the scope, no other filter,
/// twice `top_k` hits; and finds the names it quotes and the documents among the hits it calls by
/// an alias.
pub async fn candidates(scope: &Scope, prompt: &str, top_k: usize) -> Result<Candidates, ToolError> {
    let engine = &scope.engine;
    let request = SearchRequest {
        query: prompt,
        limit: top_k * 2,
        path_prefix: scope.prefix.clone(),
        tag: None,
        written_by: None,
        within: scope.span_prefixes(),
    };
    let hits = search::search(engine.store(), engine.embedder.as_ref(), &request).await?;
    let mut paths: Vec<String> = hits.iter().map(|hit| hit.chunk.path.clone()).collect();
    paths.sort();
    paths.dedup();
    let mentions = Mentions::find(prompt, &engine.store().aliases(&paths).await?);
    Ok(Candidates { hits, mentions })
}

/// The hook's choice among candidates, after the character budget.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// One outcome per hit.
    pub outcomes: Vec<Outcome>,
    /// Indexes of the hits in the block, in block order.
    pub injected: Vec<usize>,
    /// Their excerpts as the block shows them.
    pub shown: Vec<String>,
}

/// Chooses among candidates with the gates and the session's `seen` set, then fits the excerpts
/// into `max_chars`.
pub fn choose(
    scope: &Scope,
    settings: &ToolSettings,
    hits: &[Hit],
    mentions: &Mentions,
    gates: &Gates,
    seen: impl Fn(&str) -> bool,
) -> Chosen {
    let selection = hook::select(hits, seen, mentions, gates);
    let mut outcomes = selection.outcomes;
    // The smaller of the two, so a text limit of 0 (never clip) stays 0 whatever max_chars is.
    let clip_at = settings.current().text_limit.min(gates.max_chars);
    let blocks: Vec<String> = selection
        .chosen
        .iter()
        .map(|&i| format_hit(scope, &hits[i], clip_at))
        .collect();
    let kept = hook::fit_budget(&blocks, gates.max_chars);
    let mut injected = Vec::new();
    let mut shown = Vec::new();
    for ((&i, block), keep) in selection.chosen.iter().zip(blocks).zip(kept) {
        if keep {
            injected.push(i);
            shown.push(block);
        } else {
            outcomes[i] = Outcome::OverBudget;
        }
    }
    Chosen {
        outcomes,
        injected,
        shown,
    }
}

/// Runs the hook for a prompt without formatting its output or logging it.
pub async fn run(scope: &Scope, settings: &ToolSettings, args: &ContextArgs) -> Result<ContextRun, ToolError> {
    let call = args.overrides()?;
    let engine = &scope.engine;
    let key = args
        .session_id
        .as_deref()
        .filter(|id| !id.is_empty())
        .map(|id| SessionMemory::key(&scope.prefix, id));
    if args.reset
        && let Some(key) = &key
    {
        engine.hook.sessions().forget(key);
    }
    // JavaScript's trim() also strips a byte-order mark, which `char::is_whitespace` does not.
    let prompt = args.prompt.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if is_short(prompt) {
        return Ok(ContextRun {
            skipped: Some("short"),
            ..ContextRun::default()
        });
    }
    if prompt.starts_with('/') {
        return Ok(ContextRun {
            skipped: Some("slash"),
            ..ContextRun::default()
        });
    }
    let gates = gates(scope, settings, call);
    let Candidates { hits, mentions } = candidates(scope, prompt, gates.top_k).await?;

    // One lock from reading the seen set to recording what is given, so two concurrent calls of a
    // session never both give the same chunk.
    let mut sessions = engine.hook.sessions();
    let seen = key.as_deref().and_then(|key| sessions.seen(key));
    let Chosen {
        outcomes,
        injected,
        shown,
    } = choose(scope, settings, &hits, &mentions, &gates, |id| {
        seen.is_some_and(|seen| seen.contains(id))
    });
    if let Some(key) = &key
        && !injected.is_empty()
    {
        sessions.remember(key, injected.iter().map(|&i| hits[i].chunk.id.clone()));
    }
    drop(sessions);

    let block = if shown.is_empty() {
        String::new()
    } else {
        format!(
            "<ragdown-context source=\"{}\">\n{INTRO}\n\n{}\n</ragdown-context>",
            scope.dir().to_string_lossy(),
            shown.join("\n\n")
        )
    };
    Ok(ContextRun {
        block,
        hits,
        outcomes,
        injected,
        gates: Some(gates),
        skipped: None,
    })
}

/// `ragdown_context`: related excerpts for a prompt as a `<ragdown-context>` block, or `""` when
/// there is nothing to add.
pub async fn context(scope: &Scope, settings: &ToolSettings, args: ContextArgs) -> ToolResult {
    let started = Instant::now();
    let run = run(scope, settings, &args).await?;
    let log = &scope.engine.query_log;
    if log.is_enabled() && !args.prompt.trim().is_empty() {
        let mut entry = Entry::new(Kind::Context, &scope.prefix);
        entry.query = Some(args.prompt.clone());
        entry.session = args.session_id.clone().filter(|s| !s.is_empty());
        entry.skipped = run.skipped.map(str::to_string);
        if let Some(gates) = run.gates {
            entry.filters = json!({
                "top_k": gates.top_k,
                "min_score": gates.min_score,
                "min_ratio": gates.min_ratio,
                "max_chars": gates.max_chars,
            });
            entry.min_score = Some(gates.min_score);
        }
        entry.hits = run
            .hits
            .iter()
            .zip(&run.outcomes)
            .map(|(hit, outcome)| LoggedHit::new(hit, Some(*outcome)))
            .collect();
        entry.ms = Some(started.elapsed().as_secs_f64() * 1000.0);
        log.record(&entry);
    }
    if run.block.is_empty() {
        return Ok(String::new());
    }
    Ok(match args.format {
        ContextFormat::Text => run.block,
        ContextFormat::ClaudeCode => json!({
            "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": run.block}
        })
        .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_cjk_questions_pass_the_gate_as_english_ones_do() {
        // Issue 25: six CJK letters are a real question.
        for question in [
            "怎么恢复备份？",
            "バックアップ復元",
            "백업 복원 방법",
            "恢复数据库备份",
            "where are backups",
        ] {
            assert!(!is_short(question), "{question}");
        }
        for short in ["你好", "谢谢你！", "ありがとう", "hello there", "ok thanks!", "备份？"] {
            assert!(is_short(short), "{short}");
        }
        // English is gated on characters, as before: 11 is short, 12 is not.
        assert!(is_short("abcdefghijk"));
        assert!(!is_short("abcdefghijkl"));
    }

    fn args(value: serde_json::Value) -> ContextArgs {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn arguments_are_validated_and_become_the_top_layer() {
        let call = args(json!({"prompt": "p", "top_k": 2, "min_score": 0.5}))
            .overrides()
            .unwrap();
        assert_eq!(
            call,
            HookOverrides {
                top_k: Some(2),
                min_score: Some(0.5),
                ..Default::default()
            }
        );
        for bad in [
            json!({"prompt": "p", "top_k": 0}),
            json!({"prompt": "p", "top_k": 51}),
            json!({"prompt": "p", "min_score": 1.5}),
            json!({"prompt": "p", "min_ratio": -0.1}),
            json!({"prompt": "p", "max_chars": 0}),
        ] {
            assert!(args(bad.clone()).overrides().is_err(), "{bad}");
        }
        let claude = args(json!({"prompt": "", "format": "claude-code"}));
        assert_eq!(claude.format, ContextFormat::ClaudeCode);
        assert!(serde_json::from_value::<ContextArgs>(json!({"prompt": "", "query": "x"})).is_err());
    }
}
