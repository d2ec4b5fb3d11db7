//! The hook's choice of chunks for a prompt, independent of the tool that formats them.
//!
//! Given a search's ranked hits, [`select`] decides which go into the block and why each other one
//! did not: a chunk the session was already given is skipped; the best-ranked chunk holding a name
//! the prompt quotes, and the best-ranked chunk of a document the prompt calls by an alias, go first
//! whatever their cosine (one of each at most); the rest must reach `min_score`, then a share
//! `min_ratio` of the best similarity, sorted by similarity; `top_k` caps the whole block. The
//! character budget is applied by the caller to the formatted excerpts ([`fit_budget`]). It must
//! not search, format or remember anything: the tool does that around it.
//!
//! - [`names`]: which names and aliases a prompt holds.
//! - [`memory`]: the per-endpoint session memory.
//!
//! The gates themselves come from [`crate::settings::hook`].

pub mod memory;
pub mod names;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::search::Hit;
pub use crate::settings::hook::Gates;

/// What happened to one of the search's hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Injected first: it holds a name the prompt quotes.
    Named,
    /// Injected: its document has an alias the prompt holds.
    Alias,
    /// Passed the gates.
    Passed,
    /// The session was already given it.
    Seen,
    /// Under `min_score`.
    UnderFloor,
    /// Under `min_ratio` of the best similarity.
    UnderRatio,
    /// Past `top_k`.
    OverTopK,
    /// Did not fit in `max_chars`.
    OverBudget,
}

impl Outcome {
    /// Whether the chunk goes into the block (before the budget).
    pub fn is_chosen(self) -> bool {
        matches!(self, Outcome::Named | Outcome::Alias | Outcome::Passed)
    }
}

/// What a prompt calls things by, for the injections.
#[derive(Debug, Clone, Default)]
pub struct Mentions {
    /// Strong names the prompt holds ([`names::quoted_names`]).
    pub names: Vec<String>,
    /// Root-relative paths of documents whose alias the prompt holds.
    pub aliased_paths: Vec<String>,
}

impl Mentions {
    /// The names in `prompt`, and the documents among `aliases` (path -> aliases) it calls by one.
    pub fn find(prompt: &str, aliases: &HashMap<String, Vec<String>>) -> Self {
        let mut aliased_paths: Vec<String> = aliases
            .iter()
            .filter(|(_, aliases)| names::holds_alias(prompt, aliases))
            .map(|(path, _)| path.clone())
            .collect();
        aliased_paths.sort();
        Self {
            names: names::quoted_names(prompt),
            aliased_paths,
        }
    }
}

/// The hook's decision over a search's hits.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Indexes into the hits, in block order: injected first, then by similarity.
    pub chosen: Vec<usize>,
    /// One outcome per hit, in the hits' order.
    pub outcomes: Vec<Outcome>,
}

/// Whether a chunk holds a name, in its text or its heading path.
fn holds_name(hit: &Hit, name: &str) -> bool {
    names::holds_whole(&hit.chunk.text, name) || names::holds_whole(&hit.chunk.heading, name)
}

/// Decides which of `hits` (in the search's ranked order) go into the block.
pub fn select(hits: &[Hit], seen: impl Fn(&str) -> bool, mentions: &Mentions, gates: &Gates) -> Selection {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; hits.len()];
    for (i, hit) in hits.iter().enumerate() {
        if seen(&hit.chunk.id) {
            outcomes[i] = Some(Outcome::Seen);
        }
    }
    let open = |outcomes: &[Option<Outcome>], i: usize| outcomes[i].is_none();
    let mut chosen = Vec::new();
    if let Some(i) =
        (0..hits.len()).find(|&i| open(&outcomes, i) && mentions.names.iter().any(|name| holds_name(&hits[i], name)))
    {
        outcomes[i] = Some(Outcome::Named);
        chosen.push(i);
    }
    if let Some(i) =
        (0..hits.len()).find(|&i| open(&outcomes, i) && mentions.aliased_paths.contains(&hits[i].chunk.path))
    {
        outcomes[i] = Some(Outcome::Alias);
        chosen.push(i);
    }
    // The ratio is taken from the best unseen chunk over the floor, injected or not.
    let best = (0..hits.len())
        .filter(|&i| outcomes[i] != Some(Outcome::Seen) && hits[i].chunk.similarity >= gates.min_score)
        .map(|i| hits[i].chunk.similarity)
        .fold(None, |best: Option<f32>, s| Some(best.map_or(s, |b| b.max(s))));
    let mut gated: Vec<usize> = Vec::new();
    for (i, hit) in hits.iter().enumerate() {
        if outcomes[i].is_some() {
            continue;
        }
        let similarity = hit.chunk.similarity;
        if similarity < gates.min_score {
            outcomes[i] = Some(Outcome::UnderFloor);
        } else if best.is_some_and(|best| similarity < best * gates.min_ratio) {
            outcomes[i] = Some(Outcome::UnderRatio);
        } else {
            gated.push(i);
        }
    }
    // Stable: equal similarities keep the fused order.
    gated.sort_by(|&a, &b| hits[b].chunk.similarity.total_cmp(&hits[a].chunk.similarity));
    for i in gated {
        if chosen.len() < gates.top_k {
            outcomes[i] = Some(Outcome::Passed);
            chosen.push(i);
        } else {
            outcomes[i] = Some(Outcome::OverTopK);
        }
    }
    // The injections count towards top_k too: it is the most sections a prompt gets.
    for &i in chosen.iter().skip(gates.top_k) {
        outcomes[i] = Some(Outcome::OverTopK);
    }
    chosen.truncate(gates.top_k);
    Selection {
        chosen,
        outcomes: outcomes.into_iter().map(|o| o.unwrap_or(Outcome::OverTopK)).collect(),
    }
}

/// Keeps blocks while they fit in `max_chars` characters; the first always goes in, and a block
/// that does not fit is skipped, not cut, so a later, shorter one may still go in. Returns which
/// were kept.
pub fn fit_budget(blocks: &[String], max_chars: usize) -> Vec<bool> {
    let mut used = 0;
    let mut any = false;
    blocks
        .iter()
        .map(|block| {
            let len = block.chars().count();
            if any && used + len > max_chars {
                return false;
            }
            any = true;
            used += len;
            true
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::rows::Candidate;

    fn hit(id: &str, similarity: f32) -> Hit {
        Hit {
            chunk: Candidate::for_test(id, similarity),
            score: 0.0,
            sources: vec!["dense"],
        }
    }

    fn with_text(id: &str, similarity: f32, text: &str) -> Hit {
        let mut hit = hit(id, similarity);
        hit.chunk.text = text.to_string();
        hit
    }

    fn chosen<'a>(hits: &'a [Hit], selection: &Selection) -> Vec<&'a str> {
        selection.chosen.iter().map(|&i| hits[i].chunk.id.as_str()).collect()
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
        let none = Mentions::default();
        let selection = select(&hits, |id| id == "seen", &none, &OPEN);
        assert_eq!(chosen(&hits, &selection), ["b", "c", "a"]);
        assert_eq!(
            selection.outcomes,
            [
                Outcome::Passed,
                Outcome::Passed,
                Outcome::UnderFloor,
                Outcome::Seen,
                Outcome::Passed
            ]
        );
        let two = Gates { top_k: 2, ..OPEN };
        let selection = select(&hits, |_| false, &none, &two);
        assert_eq!(chosen(&hits, &selection), ["seen", "b"]);
        assert_eq!(selection.outcomes[4], Outcome::OverTopK);
    }

    #[test]
    fn ratio_gate_is_relative_to_the_best_unseen_hit() {
        let hits = vec![hit("a", 0.80), hit("b", 0.76), hit("c", 0.75), hit("best", 0.9)];
        let ratio = Gates {
            min_ratio: 0.95,
            ..OPEN
        };
        let none = Mentions::default();
        let selection = select(&hits, |_| false, &none, &ratio);
        assert_eq!(chosen(&hits, &selection), ["best"]);
        assert_eq!(selection.outcomes[0], Outcome::UnderRatio);
        // With the best already given, the ratio is taken from the next one.
        assert_eq!(
            chosen(&hits, &select(&hits, |id| id == "best", &none, &ratio)),
            ["a", "b"]
        );
    }

    #[test]
    fn a_quoted_name_injects_its_best_ranked_chunk_first_whatever_its_cosine() {
        let hits = vec![
            with_text("prose", 0.9, "Restoring is described below."),
            with_text("deep", 0.1, "Then run pg_restore --clean twice."),
            with_text("also", 0.05, "pg_restore is also here."),
            with_text("partial", 0.95, "pg_restore_all is a different tool."),
        ];
        let mentions = Mentions {
            names: vec!["pg_restore".into()],
            ..Default::default()
        };
        let selection = select(&hits, |_| false, &mentions, &OPEN);
        assert_eq!(chosen(&hits, &selection), ["deep", "partial", "prose"]);
        assert_eq!(selection.outcomes[1], Outcome::Named);
        assert_eq!(
            selection.outcomes[2],
            Outcome::UnderFloor,
            "only one chunk is injected per name"
        );
        // A chunk the session already has is not injected again: the next one holding it is.
        let selection = select(&hits, |id| id == "deep", &mentions, &OPEN);
        assert_eq!(chosen(&hits, &selection), ["also", "partial", "prose"]);
        // The injection counts towards top_k.
        let one = Gates { top_k: 1, ..OPEN };
        let selection = select(&hits, |_| false, &mentions, &one);
        assert_eq!(chosen(&hits, &selection), ["deep"]);
        assert_eq!(selection.outcomes[3], Outcome::OverTopK);
    }

    #[test]
    fn an_alias_injects_its_documents_best_ranked_chunk() {
        let hits = vec![hit("a", 0.9), hit("bluejay-1", 0.1), hit("bluejay-0", 0.2)];
        let mentions = Mentions {
            names: Vec::new(),
            aliased_paths: vec!["bluejay-1.md".into(), "bluejay-0.md".into()],
        };
        let selection = select(&hits, |_| false, &mentions, &OPEN);
        assert_eq!(chosen(&hits, &selection), ["bluejay-1", "a"]);
        assert_eq!(
            selection.outcomes,
            [Outcome::Passed, Outcome::Alias, Outcome::UnderFloor]
        );
        let aliases = HashMap::from([
            ("x.md".to_string(), vec!["Bluejay".to_string()]),
            ("y.md".to_string(), vec!["Crow".to_string()]),
        ]);
        assert_eq!(
            Mentions::find("what does bluejay deploy first?", &aliases).aliased_paths,
            ["x.md"]
        );
    }

    #[test]
    fn budget_always_takes_the_first_block_and_skips_what_does_not_fit() {
        let kept = |lens: &[usize], max| fit_budget(&lens.iter().map(|n| "x".repeat(*n)).collect::<Vec<_>>(), max);
        assert_eq!(kept(&[50, 10], 20), [true, false]);
        assert_eq!(kept(&[10, 10, 1], 20), [true, true, false]);
        assert_eq!(kept(&[10, 11, 10], 20), [true, false, true]);
        // Characters, not bytes.
        assert_eq!(fit_budget(&["é".repeat(10), "é".repeat(10)], 20), [true, true]);
        // CJK letters count one character each, not three bytes.
        assert_eq!(
            fit_budget(&["备".repeat(10), "份".repeat(10), "x".to_string()], 20),
            [true, true, false]
        );
    }
}
