//! The terms the full-text index holds beyond what its tokenizer makes of a chunk, and the query
//! text that matches them: the index side (`sync`, adding terms to a chunk's `search_text`) and
//! the query side (`search`, rewriting a query for BM25) read the same rule here, so a term added
//! at index time is always the term a query asks for.

use std::sync::LazyLock;

use regex::Regex;

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

/// The text BM25 searches for `query`: each word the tokenizer would split is replaced by its
/// [`joined_terms`], so `db.m5.large` matches the chunks holding it whole, not every chunk that
/// says `db` or `large` often. The dense side still finds text that spells it differently.
pub fn lexical_query(query: &str) -> String {
    JOINED
        .replace_all(query, |word: &regex::Captures<'_>| {
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
}
