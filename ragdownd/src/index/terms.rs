//! The text the full-text index holds for a chunk (`search_text`) and the query text that matches
//! it: the index side (`sync`, and the start-up upgrade in [`super::retext`]) and the query side
//! (`search`, rewriting a query for BM25) read the same rule here, so a term added at index time
//! is always the term a query asks for. [`TEXT_RULE`] names the rule; an index built under another
//! one has its `search_text` rewritten and its full-text index rebuilt at start, without
//! re-embedding.
//!
//! Two rewrites, in this order, on both sides:
//!
//! 1. **CJK bigrams** ([`crate::markdown::cjk::bigrams`]): LanceDB's `code` tokenizer keeps a run
//!    of Chinese, Japanese or Korean letters as one token (there are no spaces) and drops a run of
//!    14 letters or more (its 40-byte token limit), so BM25 never matched a word inside a CJK
//!    sentence. Each run is replaced by its overlapping bigrams, as Elasticsearch's `cjk` analyzer
//!    does; a query for a 2-4 letter word is then 1-3 bigrams that the sections holding it hold.
//!    The bigrams *replace* the run rather than being appended to it: the run as one token is a
//!    term no query holds (a query is bigrammed too), so keeping it only lengthens the chunk,
//!    and BM25 ranks a longer chunk lower (length normalisation), and a long run would be
//!    dropped anyway. Replaced, a CJK chunk's length is one term per letter, which is what the
//!    bigrams weigh; their document frequencies are those of the words they come from (a common
//!    bigram like `数据` is common and weighs little, a rare one like `备份` weighs much).
//!    Text without CJK letters is left byte for byte as it was, so English and code rank exactly
//!    as before (`ragdown-bench retrieval`, minilm and hash: every figure the same).
//!
//!    Measured (2026-12-03) on the CJK documentation corpus of issue 25 (60 files, 858 chunks), with
//!    107 keyword queries made from it (a 2-4 letter CJK substring of a chunk found in at most 3
//!    chunks; a hit is right when it holds the substring): BM25 top-1 went from 0.11 to 0.94 in
//!    Chinese, 0.00 to 1.00 in Japanese, 0.41 to 0.91 in Korean. LanceDB's own `ngram` tokenizer
//!    would bigram CJK alike, but it cuts all text, English too: with it (min = max = 2) BM25 alone
//!    put the right runbook section first for 70.0% of the 210 questions, against 78.1% with the
//!    `code` tokenizer and this rule, and 93.3% of identifier questions against 100%. jieba and
//!    lindera need a dictionary on disk (`LANCE_LANGUAGE_MODEL_HOME`), which nothing may
//!    download at run time.
//! 2. **Joined identifiers** ([`joined_terms`]), looked for in the bigrammed text, so an
//!    identifier glued to CJK text (`db.m5.large的配置`) is found as `db_m5_large`.

use std::sync::LazyLock;

use regex::Regex;

use crate::markdown::cjk;

/// The version of the rule that turns a chunk into `search_text` and a query into BM25 text,
/// together with the full-text index's tokenizer settings (`Store::ensure_indices`); recorded in
/// `meta.json` (0 when absent: the rule before CJK bigrams). Bump it when either changes: an
/// index built under another rule is rewritten at start ([`super::retext`]).
pub const TEXT_RULE: u32 = 1;

/// A chunk's `search_text`: its embedding text (breadcrumb and text), the document's aliases on
/// its first chunk, CJK runs as bigrams, then the [`joined_terms`] of all that.
pub fn search_text(embedding_text: &str, aliases: &[&str]) -> String {
    let body = if aliases.is_empty() {
        cjk::bigrams(embedding_text)
    } else {
        cjk::bigrams(&format!("{embedding_text}\n\n{}", aliases.join("\n")))
    };
    let terms = joined_terms(&body);
    if terms.is_empty() {
        body
    } else {
        format!("{body}\n\n{}", terms.join(" "))
    }
}

/// A word of letters, digits and underscores: one part of a joined identifier.
static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\p{L}\p{N}_]+").expect("valid word regex"));
/// A whitespace-separated word holding `.`, `/`, `-`, `:` or `=` between word characters.
static JOINED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[\w./:=-]*\w[./:=-]+\w[\w./:=-]*").expect("valid joined-word regex"));

/// Identifiers that the full-text tokenizer would split, each as one extra term: `db.m5.large`
/// as `db_m5_large`, `--max-batch-tokens` as `max_batch_tokens`, `deploy/kestrel-ingest` as
/// `deploy_kestrel_ingest` and `kestrel_ingest`. LanceDB's `code` tokenizer keeps `_` inside a
/// token but splits on `.`, `/`, `-`, `:` and `=`, so these terms, added to a chunk's indexed
/// text and to a query, make such an identifier findable whole: one rare term, which outweighs
/// its common pieces. Lowercase, deduplicated, in order.
pub fn joined_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |word: &str| {
        let parts: Vec<&str> = WORD.find_iter(word).map(|m| m.as_str()).collect();
        if parts.len() >= 2 {
            let term = parts.join("_").to_lowercase();
            if !out.contains(&term) {
                out.push(term);
            }
        }
    };
    for word in JOINED.find_iter(text) {
        add(word.as_str());
        if word.as_str().contains('/') {
            word.as_str().split('/').for_each(&mut add);
        }
    }
    out
}

/// The text BM25 searches for `query`: CJK runs as bigrams, as [`search_text`] writes them, and
/// each word the tokenizer would split replaced by its [`joined_terms`], so `db.m5.large` matches
/// the chunks holding it whole, not every chunk that says `db` or `large` often. The dense side
/// still finds text that spells it differently.
pub fn lexical_query(query: &str) -> String {
    let query = cjk::bigrams(query);
    JOINED
        .replace_all(&query, |word: &regex::Captures<'_>| {
            let terms = joined_terms(&word[0]);
            if terms.is_empty() {
                word[0].to_string()
            } else {
                terms.join(" ")
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_identifiers_become_one_term_each() {
        assert_eq!(
            joined_terms("which step runs `veltra cordon kestrel-ingest` on db.m5.large, and --max-batch-tokens?"),
            ["kestrel_ingest", "db_m5_large", "max_batch_tokens"]
        );
        assert_eq!(
            joined_terms("kubectl logs deploy/Kestrel-Ingest at http://localhost:8123/healthz"),
            [
                "deploy_kestrel_ingest",
                "kestrel_ingest",
                "http_localhost_8123_healthz",
                "localhost_8123"
            ]
        );
        assert!(joined_terms("Which team owns Kestrel Ingest? It's pg_restore.").is_empty());
        assert_eq!(
            lexical_query("set db.m5.large via `kubectl logs deploy/kestrel-ingest`?"),
            "set db_m5_large via `kubectl logs deploy_kestrel_ingest kestrel_ingest`?"
        );
        assert_eq!(lexical_query("restore backups"), "restore backups");
    }

    #[test]
    fn search_text_without_cjk_is_what_it_was_before_the_cjk_rule() {
        // The rule before TEXT_RULE 1, spelled out: English and code must index exactly as before.
        let old = |body: &str, aliases: &[&str]| {
            let mut text = match aliases.is_empty() {
                true => body.to_string(),
                false => format!("{body}\n\n{}", aliases.join("\n")),
            };
            let terms = joined_terms(&text);
            if !terms.is_empty() {
                text = format!("{text}\n\n{}", terms.join(" "));
            }
            text
        };
        for (body, aliases) in [
            (
                "Backups › Restore\n\nRun `pg_restore` on db.m5.large  twice.",
                &["Bluejay", "ops"][..],
            ),
            ("Title\n\nplain words only", &[][..]),
            ("T\n\nkubectl logs deploy/kestrel-ingest", &[][..]),
        ] {
            assert_eq!(search_text(body, aliases), old(body, aliases));
        }
        assert_eq!(
            lexical_query("Which team owns Kestrel Ingest?"),
            "Which team owns Kestrel Ingest?"
        );
    }

    #[test]
    fn cjk_runs_are_bigrams_on_both_sides() {
        assert_eq!(
            search_text("数据库备份\n\n使用pg_restore恢复。", &["备份手册"]),
            "数据 据库 库备 备份 \n\n使用 pg_restore 恢复 。\n\n备份 份手 手册 "
        );
        assert_eq!(lexical_query("数据库"), "数据 据库 ");
        assert_eq!(
            lexical_query("怎么用 db.m5.large恢复备份？"),
            "怎么 么用 db_m5_large 恢复 复备 备份 ？"
        );
    }
}
