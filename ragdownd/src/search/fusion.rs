//! Merging the dense and BM25 pools into one ranking, and reordering it: reciprocal rank fusion,
//! score fusion for queries that name something, the alias boost and the per-document cap.
//!
//! Pure functions over candidates; the index and the embedder are `super`'s business. Each keeps
//! ties in first-appearance order (dense first), as a stable sort does, except that
//! [`rank_fusion`] first breaks equal fused scores by [`tie_break`].

use std::collections::{HashMap, HashSet};

use super::Hit;
use crate::index::rows::Candidate;

/// The RRF constant.
pub const RRF_K: f64 = 60.0;

/// How much of a score-fused hit's score comes from BM25; the rest is dense.
pub const LEXICAL_WEIGHT: f64 = 0.8;

/// What a rank-1 hit gets from one list under RRF, and what the alias boost adds.
pub fn rank_one_share() -> f64 {
    1.0 / (RRF_K + 1.0)
}

/// The two pools of one search.
#[derive(Debug, Clone, Default)]
pub struct Pools {
    /// By cosine, best first.
    pub dense: Vec<Candidate>,
    /// By BM25, best first, each with its BM25 score.
    pub lexical: Vec<(Candidate, f32)>,
}

/// Fuses ranked lists by reciprocal rank and cuts to `limit`. Ties keep the order of first
/// appearance (dense first).
pub fn fuse(lists: Vec<(&'static str, Vec<Candidate>)>, limit: usize) -> Vec<Hit> {
    let mut merged = Merged::default();
    for (source, list) in lists {
        for (rank, candidate) in list.into_iter().enumerate() {
            merged.add(source, candidate, 1.0 / (RRF_K + rank as f64 + 1.0));
        }
    }
    let mut fused = merged.ranked();
    fused.truncate(limit);
    fused
}

/// Reciprocal rank fusion of both pools, uncut.
///
/// Equal fused scores are ordered by [`tie_break`]: when the two pools swap two chunks (dense
/// puts A first and B second, BM25 the reverse), both get `1/61 + 1/62`, and the pool that put
/// them further apart decides, rather than the dense pool winning every such tie. Chunks still
/// equal keep first-appearance order (dense first).
pub fn rank_fusion(pools: Pools) -> Vec<Hit> {
    let tie = tie_break(&pools);
    let lexical = pools.lexical.into_iter().map(|(c, _)| c).collect();
    let mut hits = fuse(vec![("dense", pools.dense), ("lexical", lexical)], usize::MAX);
    let key = |hit: &Hit| tie.get(&hit.chunk.id).copied().unwrap_or(0.0);
    // Stable, and only equal fused scores compare by the key: the ranking is RRF's.
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| key(b).total_cmp(&key(a))));
    hits
}

/// BM25's ranking, then the chunks only the dense pool found, in its order: for a query the
/// embedder cannot read (CJK text with an English-only model), whose vectors would only reorder
/// BM25's answers at random. Scores are rank shares as in RRF, so the alias boost and the
/// per-document cap work on them as on a fused ranking; a chunk both pools found lists both
/// sources but scores by its BM25 rank alone.
pub fn lexical_first(pools: Pools) -> Vec<Hit> {
    let mut merged = Merged::default();
    let found = pools.lexical.len();
    let lexical: HashSet<String> = pools.lexical.iter().map(|(c, _)| c.id.clone()).collect();
    for (rank, (candidate, _)) in pools.lexical.into_iter().enumerate() {
        merged.add("lexical", candidate, 1.0 / (RRF_K + rank as f64 + 1.0));
    }
    for (rank, candidate) in pools.dense.into_iter().enumerate() {
        let share = if lexical.contains(&candidate.id) {
            0.0
        } else {
            1.0 / (RRF_K + (found + rank) as f64 + 1.0)
        };
        merged.add("dense", candidate, share);
    }
    merged.ranked()
}

/// What breaks a tie in [`rank_fusion`]: for each chunk the sum of its min-max normalised score
/// in each pool it is in (cosine for dense, BM25 for lexical; each in [0, 1], missing counts 0).
/// Both pools weigh the same, as they do in RRF itself; unlike a rank, the sum says by how much
/// each pool preferred one chunk to the other.
pub fn tie_break(pools: &Pools) -> HashMap<String, f64> {
    let dense: Vec<f64> = pools.dense.iter().map(|c| f64::from(c.similarity)).collect();
    let lexical: Vec<f64> = pools.lexical.iter().map(|(_, s)| f64::from(*s)).collect();
    let mut sums: HashMap<String, f64> = HashMap::new();
    for (candidate, norm) in pools.dense.iter().zip(min_max(&dense)) {
        *sums.entry(candidate.id.clone()).or_default() += norm;
    }
    for ((candidate, _), norm) in pools.lexical.iter().zip(min_max(&lexical)) {
        *sums.entry(candidate.id.clone()).or_default() += norm;
    }
    sums
}

/// Score fusion, uncut: each side min-max normalised over its own pool, then
/// `(1 - w) * dense + w * bm25` with `w` = [`LEXICAL_WEIGHT`]. A chunk missing from a pool gets
/// that side's minimum, 0; when a pool's scores are all equal, each of them counts as its best, 1.
pub fn score_fusion(pools: Pools) -> Vec<Hit> {
    let dense: Vec<f64> = pools.dense.iter().map(|c| f64::from(c.similarity)).collect();
    let lexical: Vec<f64> = pools.lexical.iter().map(|(_, s)| f64::from(*s)).collect();
    let dense_norm = min_max(&dense);
    let lexical_norm = min_max(&lexical);
    let mut merged = Merged::default();
    for (candidate, norm) in pools.dense.into_iter().zip(dense_norm) {
        merged.add("dense", candidate, (1.0 - LEXICAL_WEIGHT) * norm);
    }
    for ((candidate, _), norm) in pools.lexical.into_iter().zip(lexical_norm) {
        merged.add("lexical", candidate, LEXICAL_WEIGHT * norm);
    }
    merged.ranked()
}

/// `(v - min) / (max - min)` for each value; 1 for each when they are all equal.
pub fn min_max(values: &[f64]) -> Vec<f64> {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    values
        .iter()
        .map(|v| if max > min { (v - min) / (max - min) } else { 1.0 })
        .collect()
}

/// Adds one rank-1 RRF share to every hit from one of `paths` (documents the query calls by an
/// alias) and re-sorts, keeping ties in their previous order.
pub fn boost_aliases(hits: &mut [Hit], paths: &HashSet<String>) {
    if paths.is_empty() {
        return;
    }
    for hit in hits.iter_mut().filter(|h| paths.contains(&h.chunk.path)) {
        hit.score += rank_one_share();
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// Adds up to one rank-1 RRF share to each hit whose own heading the query spells
/// ([`super::route::names_heading`]: the share times how much of the heading the query is), and
/// re-sorts, keeping ties in their previous order. Only hits with their fields read have a
/// heading to compare; a heading that holds the query's words is in the BM25 pool, whose
/// candidates are read. Measured on the CJK documentation set (`ragdown-bench multilingual`):
/// keyword questions' top-1 0.79 → 0.93 with minilm, 0.86 → 0.96 with multilingual-e5-small;
/// the runbook set's questions are sentences no heading holds, and every figure stays.
pub fn boost_headings(hits: &mut [Hit], query: &str) {
    let Some(query) = super::route::HeadingQuery::new(query) else {
        return;
    };
    let mut boosted = false;
    for hit in hits.iter_mut().filter(|h| h.chunk.loaded) {
        if let Some(share) = query.share_of(&hit.chunk.heading) {
            hit.score += rank_one_share() * share;
            boosted = true;
        }
    }
    if boosted {
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
}

/// At most `cap` hits of one document ahead of every other document's: the rest move behind,
/// in their order, so a short result fills from the next-best documents and a corpus with too
/// few still fills it. 0 is no cap.
pub fn cap_per_document(hits: Vec<Hit>, cap: usize) -> Vec<Hit> {
    if cap == 0 {
        return hits;
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    let (mut kept, mut moved) = (Vec::with_capacity(hits.len()), Vec::new());
    for hit in hits {
        let count = seen.entry(hit.chunk.path.clone()).or_default();
        *count += 1;
        if *count <= cap {
            kept.push(hit);
        } else {
            moved.push(hit);
        }
    }
    kept.extend(moved);
    kept
}

/// Hits by chunk id in first-appearance order, their scores summed.
#[derive(Default)]
struct Merged {
    order: Vec<String>,
    hits: HashMap<String, Hit>,
}

impl Merged {
    fn add(&mut self, source: &'static str, candidate: Candidate, share: f64) {
        match self.hits.get_mut(&candidate.id) {
            Some(hit) => {
                hit.score += share;
                hit.sources.push(source);
            }
            None => {
                self.order.push(candidate.id.clone());
                self.hits.insert(
                    candidate.id.clone(),
                    Hit {
                        chunk: candidate,
                        score: share,
                        sources: vec![source],
                    },
                );
            }
        }
    }

    /// Best first; a stable sort, so equal scores keep first-appearance order.
    fn ranked(mut self) -> Vec<Hit> {
        let mut out: Vec<Hit> = self.order.iter().filter_map(|id| self.hits.remove(id)).collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(id: &str) -> Candidate {
        Candidate::for_test(id, 0.5)
    }

    fn with_similarity(id: &str, similarity: f32) -> Candidate {
        Candidate::for_test(id, similarity)
    }

    fn ids(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|h| h.chunk.id.as_str()).collect()
    }

    /// A hit at `score` on a section headed `heading`, its fields read or not.
    fn headed(id: &str, heading: &str, score: f64, loaded: bool) -> Hit {
        let mut chunk = candidate(id);
        chunk.heading = heading.into();
        chunk.loaded = loaded;
        Hit {
            chunk,
            score,
            sources: vec!["lexical"],
        }
    }

    #[test]
    fn the_section_a_query_names_rises_by_how_much_of_its_heading_the_query_is() {
        let share = |rank: f64| 1.0 / (RRF_K + rank);
        let mut hits = vec![
            headed("usage", "临时表 › 使用方式", share(1.0), true),
            headed("local", "临时表 › 本地临时表", share(2.0), true),
            headed("named", "临时表", share(3.0), true),
            headed("unread", "临时表", share(4.0), false),
        ];
        boost_headings(&mut hits, "临时表");
        // The section named by the query first, then one whose heading holds it among more.
        assert_eq!(ids(&hits), ["named", "local", "usage", "unread"]);
        assert!((hits[0].score - (share(3.0) + share(1.0))).abs() < 1e-12);
        assert!((hits[1].score - (share(2.0) + 0.6 * share(1.0))).abs() < 1e-12);

        let mut prose = vec![
            headed("a", "Backups", share(1.0), true),
            headed("b", "Restore", share(2.0), true),
        ];
        boost_headings(&mut prose, "how do I restore the backups");
        assert_eq!(ids(&prose), ["a", "b"], "a sentence names no heading");
        assert_eq!(prose[0].score, share(1.0));
    }

    /// A hit of document `path` with chunk id `id`.
    fn hit(id: &str, path: &str, score: f64) -> Hit {
        let mut chunk = candidate(id);
        chunk.path = path.into();
        Hit {
            chunk,
            score,
            sources: vec!["dense"],
        }
    }

    #[test]
    fn rrf_adds_shares_and_records_sources() {
        let dense = vec![candidate("a"), candidate("b"), candidate("c")];
        let lexical = vec![candidate("c"), candidate("d")];
        let hits = fuse(vec![("dense", dense), ("lexical", lexical)], 10);
        // c: 1/63 + 1/61 beats a: 1/61; b (1/62) and d (1/62) tie, b first (dense first).
        assert_eq!(ids(&hits), ["c", "a", "b", "d"]);
        assert!((hits[0].score - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-12);
        assert_eq!(hits[0].sources, ["dense", "lexical"]);
        assert_eq!(hits[3].sources, ["lexical"]);
        assert_eq!(fuse(vec![("dense", vec![candidate("x"), candidate("y")])], 1).len(), 1);
    }

    #[test]
    fn score_fusion_normalises_each_pool_and_weights_bm25() {
        let pools = Pools {
            // Cosine 0.9 (best, 1.0), 0.7 (0.5), 0.5 (worst, 0.0).
            dense: vec![
                with_similarity("topic", 0.9),
                with_similarity("both", 0.7),
                with_similarity("far", 0.5),
            ],
            // BM25 12 (best, 1.0), 9 (0.5), 6 (worst, 0.0).
            lexical: vec![
                (with_similarity("name", 0.2), 12.0),
                (with_similarity("both", 0.7), 9.0),
                (with_similarity("weak", 0.1), 6.0),
            ],
        };
        let hits = score_fusion(pools);
        let scores: Vec<(&str, f64)> = hits.iter().map(|h| (h.chunk.id.as_str(), h.score)).collect();
        // name 0.8*1; both 0.2*0.5 + 0.8*0.5; topic 0.2*1; far and weak 0, dense first.
        let expected = [
            ("name", 0.8),
            ("both", 0.5),
            ("topic", 0.2),
            ("far", 0.0),
            ("weak", 0.0),
        ];
        assert_eq!(scores.len(), expected.len());
        for ((id, score), (want_id, want)) in scores.iter().zip(expected) {
            assert_eq!(*id, want_id);
            assert!((score - want).abs() < 1e-6, "{id}: {score} != {want}");
        }
        assert_eq!(hits[1].sources, ["dense", "lexical"]);
        // Under RRF the dense side's topic chunk would beat the one holding the name.
        let rrf = rank_fusion(Pools {
            dense: vec![candidate("topic"), candidate("both")],
            lexical: vec![(candidate("name"), 12.0)],
        });
        assert_eq!(ids(&rrf)[..2], ["topic", "name"]);
    }

    #[test]
    fn lexical_first_keeps_bm25s_order_and_puts_dense_only_chunks_after() {
        // The dense pool's order is noise: it must not reorder BM25's.
        let pools = || Pools {
            dense: ["second", "noise", "other", "more", "first"].map(candidate).to_vec(),
            lexical: vec![(candidate("first"), 9.0), (candidate("second"), 3.0)],
        };
        let hits = lexical_first(pools());
        assert_eq!(ids(&hits), ["first", "second", "noise", "other", "more"]);
        assert_eq!(hits[0].sources, ["lexical", "dense"]);
        assert_eq!(hits[2].sources, ["dense"]);
        assert!(hits[1].score > hits[2].score);
        // Rank fusion of the same pools lets the dense order win.
        assert_eq!(ids(&rank_fusion(pools()))[..2], ["second", "first"]);
    }

    #[test]
    fn rank_fusion_breaks_a_swap_by_the_larger_margin() {
        // Dense: a (0.80) just ahead of b (0.79); BM25: b (10) far ahead of a (2). Both get
        // 1/61 + 1/62; b's normalised sum (0.9 + 1) beats a's (1 + 0.11), so b is first; c and d
        // tie at 0 and keep first appearance.
        let pools = Pools {
            dense: vec![
                with_similarity("a", 0.80),
                with_similarity("b", 0.79),
                with_similarity("c", 0.70),
            ],
            lexical: vec![
                (with_similarity("b", 0.79), 10.0),
                (with_similarity("a", 0.80), 2.0),
                (with_similarity("d", 0.10), 1.0),
            ],
        };
        let hits = rank_fusion(pools);
        assert_eq!(ids(&hits), ["b", "a", "c", "d"]);
        assert_eq!(hits[0].score, hits[1].score, "the fused scores are untouched");

        // The same swap with the margins the other way round: dense decides.
        let pools = Pools {
            dense: vec![with_similarity("a", 0.90), with_similarity("b", 0.50)],
            lexical: vec![
                (with_similarity("b", 0.50), 10.0),
                (with_similarity("a", 0.90), 9.5),
                (with_similarity("d", 0.10), 1.0),
            ],
        };
        assert_eq!(ids(&rank_fusion(pools))[..2], ["a", "b"]);

        // A tie-break never overrides a fused score: c (dense rank 1 only) stays behind the
        // chunk both pools found, whatever the margins.
        let pools = Pools {
            dense: vec![with_similarity("c", 0.99), with_similarity("both", 0.20)],
            lexical: vec![(with_similarity("both", 0.20), 1.0)],
        };
        assert_eq!(ids(&rank_fusion(pools)), ["both", "c"]);
    }

    #[test]
    fn min_max_maps_a_pool_onto_zero_to_one() {
        assert_eq!(min_max(&[4.0, 3.0, 2.0]), [1.0, 0.5, 0.0]);
        assert_eq!(min_max(&[7.0, 7.0]), [1.0, 1.0], "all equal: each is the best");
        assert!(min_max(&[]).is_empty());
    }

    #[test]
    fn the_alias_boost_is_one_rank_one_share_for_every_hit_of_the_document() {
        let mut hits = vec![
            hit("a#0", "a.md", 1.0 / 61.0 + 1.0 / 63.0),
            hit("b#0", "b.md", 1.0 / 62.0),
            hit("c#0", "c.md", 1.0 / 63.0),
            hit("b#1", "b.md", 1.0 / 64.0),
        ];
        boost_aliases(&mut hits, &HashSet::from(["b.md".to_string()]));
        // b#0 (1/62 + 1/61) passes a#0 (1/61 + 1/63); b#1 (1/64 + 1/61) passes c#0 but not a#0.
        assert_eq!(ids(&hits), ["b#0", "a#0", "b#1", "c#0"]);
        assert!((hits[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-12);
        assert!((hits[2].score - (1.0 / 64.0 + 1.0 / 61.0)).abs() < 1e-12);
        assert!(
            (hits[1].score - (1.0 / 61.0 + 1.0 / 63.0)).abs() < 1e-12,
            "others unchanged"
        );
        let before = ids(&hits).iter().map(|s| s.to_string()).collect::<Vec<_>>();
        boost_aliases(&mut hits, &HashSet::new());
        assert_eq!(ids(&hits), before, "no alias named, nothing moves");
    }

    #[test]
    fn the_cap_moves_a_documents_extra_sections_behind_the_others() {
        let hits = vec![
            hit("a#0", "a.md", 0.9),
            hit("a#1", "a.md", 0.8),
            hit("a#2", "a.md", 0.7),
            hit("b#0", "b.md", 0.6),
            hit("a#3", "a.md", 0.5),
            hit("c#0", "c.md", 0.4),
        ];
        let capped = cap_per_document(hits.clone(), 2);
        assert_eq!(ids(&capped), ["a#0", "a#1", "b#0", "c#0", "a#2", "a#3"]);
        assert_eq!(ids(&cap_per_document(hits.clone(), 0)), ids(&hits), "0 is no cap");
        assert_eq!(ids(&cap_per_document(hits, 1))[..3], ["a#0", "b#0", "c#0"]);
    }
}
