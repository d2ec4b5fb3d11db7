//! What a query is, before it is searched: whether it names something (and so is fused by score,
//! leaning on BM25), which of its parts must match as phrases, and which documents it calls by an
//! alias.
//!
//! Pure functions of the query text; no index, no embedder. The rules are the product page's
//! ("Design", hybrid retrieval): a quoted command, a snake_case key, a dotted or slashed path, a
//! flag, a camelCase name or a word mixing letters and digits routes a query; plain prose
//! (`up-to-date`, `e.g.`, `10:30`) does not.

use std::sync::LazyLock;

use regex::Regex;

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid regex")
}

/// A command or name in backticks.
static BACKTICKS: LazyLock<Regex> = LazyLock::new(|| regex(r"`([^`\n]+)`"));
/// `max_batch_tokens`, `RAGDOWN_TEXT_LIMIT`: letters or digits on both sides of an underscore.
static SNAKE: LazyLock<Regex> = LazyLock::new(|| regex(r"[\p{L}\p{N}]_[\p{L}\p{N}]"));
/// `pg_hba.conf`, `db.m5.large`, `index.html`: two dot-separated parts of two characters or more
/// that start with a letter. `e.g.` and `i.e.` have one-letter parts; `3.8` has no letter.
static DOTTED: LazyLock<Regex> = LazyLock::new(|| regex(r"(?:^|[^\w.])\p{L}[\w-]+\.\p{L}[\w-]+"));
/// A path from the root, home or here: `/etc/hosts`, `~/notes`, `./run.sh`.
static ROOTED: LazyLock<Regex> = LazyLock::new(|| regex(r"(?:^|[\s(\[{'\x22=])(?:~|\.{1,2})?/[\w.-]*\p{L}"));
/// A run of path characters holding a slash, to be judged by [`is_slashed_path`].
static SLASHED: LazyLock<Regex> = LazyLock::new(|| regex(r"[\w.-]+(?:/[\w.-]+)+"));
/// `--force`, `--max-batch-tokens`, or a short `-v` standing alone.
static FLAG: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:^|[\s(\[{'\x22`=])(?:--\p{L}[\w-]*|-\p{L}{1,2}(?:$|[\s=)\]}'\x22`,;]))"));
/// `maxBatchSize`, `getElementById`, and PascalCase with a capital after a lowercase letter
/// (`LanceDB`, `PostgreSQL`). All capitals (`HTTP`) and title case (`Backups`) are prose.
static CAMEL: LazyLock<Regex> = LazyLock::new(|| regex(r"\b\p{L}\p{Ll}*\p{Ll}\p{Lu}"));
/// A word of letters, digits and underscores.
static WORD: LazyLock<Regex> = LazyLock::new(|| regex(r"[\p{L}\p{N}_]+"));
/// Numbers with an English suffix, which prose writes: `3rd`, `10am`, `1990s`.
static NUMBER_WORD: LazyLock<Regex> = LazyLock::new(|| regex(r"^\d+(?:st|nd|rd|th|am|pm|s)$"));
/// A whitespace-separated word holding `.`, `/`, `-`, `:` or `=` between word characters.
static JOINED: LazyLock<Regex> = LazyLock::new(|| regex(r"[\w./:=-]*\w[./:=-]+\w[\w./:=-]*"));

/// Whether `query` names something and so is fused by score rather than by rank.
pub fn is_identifier_query(query: &str) -> bool {
    BACKTICKS.is_match(query)
        || SNAKE.is_match(query)
        || DOTTED.is_match(query)
        || ROOTED.is_match(query)
        || SLASHED.find_iter(query).any(|m| is_slashed_path(m.as_str()))
        || FLAG.is_match(query)
        || CAMEL.is_match(query)
        || WORD.find_iter(query).any(|m| mixes_letters_and_digits(m.as_str()))
}

/// `a/b/c`, `deploy/kestrel-ingest`, `docs/readme.md`: two slashes, or a part that is more than
/// a plain word. `and/or`, `async/await` and `24/7` are prose.
fn is_slashed_path(run: &str) -> bool {
    let parts: Vec<&str> = run.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() < 2 || !run.chars().any(char::is_alphabetic) {
        return false;
    }
    parts.len() >= 3
        || parts
            .iter()
            .any(|p| p.contains(['.', '_', '-']) || mixes_letters_and_digits(p))
}

fn mixes_letters_and_digits(word: &str) -> bool {
    word.chars().any(char::is_alphabetic) && word.chars().any(|c| c.is_ascii_digit()) && !NUMBER_WORD.is_match(word)
}

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

/// Whether `alias` occurs in `query` as a whole word (not inside a longer word), ignoring case.
/// Aliases under three characters never match: too many words would.
pub fn names_alias(query: &str, alias: &str) -> bool {
    let alias = alias.trim().to_lowercase();
    if alias.chars().count() < 3 {
        return false;
    }
    let query = query.to_lowercase();
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    query.match_indices(&alias).any(|(at, _)| {
        let before = query[..at].chars().next_back();
        let after = query[at + alias.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_queries_are_routed() {
        for query in [
            "In the staging deployment of Kestrel Ingest, which step number runs `veltra build kestrel-ingest`?",
            "what does `typescript` do here",
            "raise max_batch_tokens",
            "where is RAGDOWN_TEXT_LIMIT read",
            "open pg_hba.conf",
            "which instance uses db.m5.large",
            "what is in /etc/hosts",
            "run ./scripts/install.sh",
            "edit ~/notes",
            "kubectl logs deploy/kestrel-ingest",
            "see docs/runbooks/backups",
            "what does --force do",
            "pass -v to see more",
            "call maxBatchSize",
            "is LanceDB local",
            "the H200 machine",
            "upgrade to pg14",
        ] {
            assert!(is_identifier_query(query), "{query:?} should be routed");
        }
    }

    #[test]
    fn prose_is_not_routed() {
        for query in [
            "is the index up-to-date",
            "use a hash embedder, e.g. in tests",
            "the meeting at 10:30",
            "Which team owns Kestrel Ingest?",
            "Which service had an outage caused by a slow memory leak after the 3.8 upgrade?",
            "Which service had an outage caused by a DNS resolver timeout on the us-east workers?",
            "refactor this function to async/await",
            "cats and/or dogs, 24/7",
            "what is the 3rd step, at 10am",
            "What is the HTTP API of the Backups service?",
            "who won the world cup in 1998",
            "a self-hosted server - not a cloud one",
            "What is the production memory limit for Kestrel Ingest?",
        ] {
            assert!(!is_identifier_query(query), "{query:?} should not be routed");
        }
    }

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
    fn aliases_match_whole_words_ignoring_case() {
        assert!(names_alias("Which team owns QUARTZ?", "Quartz"));
        assert!(names_alias("quartz", "Quartz"));
        assert!(names_alias("what is Project Quartz's window", "project quartz"));
        assert!(
            !names_alias("Which team owns Quartzite?", "Quartz"),
            "inside a longer word"
        );
        assert!(!names_alias("the quartz_key setting", "Quartz"), "inside an identifier");
        assert!(!names_alias("Who owns DB?", "DB"), "under three characters");
        assert!(names_alias("Who owns Ops?", " ops "), "trimmed, three characters");
    }
}
