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

use unicode_normalization::UnicodeNormalization;

use crate::markdown::{HEADING_SEPARATOR, cjk};

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

/// Whether at least half of `query`'s letters are Chinese, Japanese or Korean: such a query is
/// ranked by BM25 first when the embedder reads English only (its vectors of CJK text are near
/// noise), and by the usual fusion otherwise.
pub fn is_mostly_cjk(query: &str) -> bool {
    let mix = cjk::Mix::of(query);
    mix.cjk > 0 && mix.cjk * 2 >= mix.letters
}

/// Whether `query` names something and so is fused by score rather than by rank. A flag, a rooted
/// path and a word mixing letters and digits are looked for with CJK letters read as spaces
/// ([`without_cjk`]), so `用--force参数` holds a flag and `第3章` is prose.
pub fn is_identifier_query(query: &str) -> bool {
    let spaced = without_cjk(query);
    BACKTICKS.is_match(query)
        || SNAKE.is_match(query)
        || DOTTED.is_match(query)
        || ROOTED.is_match(&spaced)
        || SLASHED.find_iter(query).any(|m| is_slashed_path(m.as_str()))
        || FLAG.is_match(&spaced)
        || CAMEL.is_match(query)
        || WORD.find_iter(&spaced).any(|m| mixes_letters_and_digits(m.as_str()))
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

/// `query` with its CJK letters as spaces: CJK prose has no spaces, so `第3章` or `2024年` would
/// otherwise read as a word mixing letters and digits, and `ipv6の設定` would hide `ipv6`.
fn without_cjk(query: &str) -> String {
    query.chars().map(|c| if cjk::is_cjk(c) { ' ' } else { c }).collect()
}

fn mixes_letters_and_digits(word: &str) -> bool {
    word.chars().any(char::is_alphabetic) && word.chars().any(|c| c.is_ascii_digit()) && !NUMBER_WORD.is_match(word)
}

/// How much of a section's own heading `query` spells, when it spells it whole: `Some(share)`,
/// the query's [`cjk::weight`] over the heading's, for a query of weight 3 or more (two CJK
/// letters, three Latin ones) found inside the heading's last part, both NFKC- and case-folded,
/// with Markdown heading anchors (`{#id}`, `{/*id*/}`) and end punctuation dropped. A keyword
/// typed alone (`临时表`, `트레이트 바운드`) is most often the name of the section about it; BM25
/// sees the heading only as words of the breadcrumb every chunk of the document repeats, so it
/// ranks a section that says the word often above the one named by it.
pub fn names_heading(query: &str, heading: &str) -> Option<f64> {
    HeadingQuery::new(query)?.share_of(heading)
}

/// A query folded once for [`names_heading`]'s comparison, to hold against many headings.
pub struct HeadingQuery {
    folded: String,
    weight: usize,
}

impl HeadingQuery {
    /// The folded query, or `None` when it is too short to name a heading.
    pub fn new(query: &str) -> Option<Self> {
        let folded = heading_form(query);
        let weight = cjk::weight(&folded);
        (weight >= 3).then_some(Self { folded, weight })
    }

    /// As [`names_heading`], for this query.
    pub fn share_of(&self, heading: &str) -> Option<f64> {
        let own = heading.rsplit(HEADING_SEPARATOR).next().unwrap_or(heading);
        let own = heading_form(own);
        own.contains(&self.folded)
            .then(|| self.weight as f64 / cjk::weight(&own).max(1) as f64)
    }
}

/// Markdown heading anchors: `{#event-modifiers}` (VitePress, Pandoc) and `{/*memo*/}` (MDX).
static ANCHOR: LazyLock<Regex> = LazyLock::new(|| regex(r"\{#[^}]*\}|\{/\*.*?\*/\}"));

/// A query or a heading as [`names_heading`] compares them.
fn heading_form(text: &str) -> String {
    let folded: String = text.nfkc().collect::<String>().to_lowercase();
    let bare = ANCHOR.replace_all(&folded, " ");
    let trimmed = bare
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || "。？！，、：".contains(c));
    trimmed.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `alias` occurs in `query` as a whole word (not inside a longer word), ignoring case;
/// next to a CJK letter any position is a word's end ([`cjk::is_word_boundary`]). Aliases under
/// three characters' worth never match, too many words would; a CJK letter counts 2
/// ([`cjk::weight`]), so `备份` does and `库` does not.
pub fn names_alias(query: &str, alias: &str) -> bool {
    let alias = alias.trim().to_lowercase();
    let (Some(first), Some(last)) = (alias.chars().next(), alias.chars().next_back()) else {
        return false;
    };
    if cjk::weight(&alias) < 3 {
        return false;
    }
    let query = query.to_lowercase();
    query.match_indices(&alias).any(|(at, _)| {
        let before = query[..at].chars().next_back();
        let after = query[at + alias.len()..].chars().next();
        cjk::is_word_boundary(first, before) && cjk::is_word_boundary(last, after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mostly_cjk_queries_are_told_apart() {
        for query in [
            "数据库备份",
            "バックアップの復元手順",
            "백업 절차",
            "怎么用 TiDB 做备份",
            "ﾊﾞｯｸｱｯﾌﾟ",
        ] {
            assert!(is_mostly_cjk(query), "{query}");
        }
        for query in ["restore the backup", "how do I use 备份 in TiDB", "", "123"] {
            assert!(!is_mostly_cjk(query), "{query}");
        }
    }

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
            "ipv6の設定",
            "用pg_restore恢复",
            "用--force参数是什么",
            "打开~/notes目录",
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
            // Issue 25: CJK numbers and counters are prose.
            "第3章的内容是什么",
            "2024年3月的备份在哪里",
            "3つの手順",
        ] {
            assert!(!is_identifier_query(query), "{query:?} should not be routed");
        }
    }

    #[test]
    fn a_query_names_the_heading_it_is_part_of() {
        // The whole of a section's own heading, or part of it, by how much of it.
        assert_eq!(names_heading("临时表", "临时表"), Some(1.0));
        assert_eq!(names_heading("临时表", "临时表 › 本地临时表"), Some(0.6));
        assert_eq!(
            names_heading(
                "트레이트 바운드",
                "트레이트로 공통된 동작을 정의하기 › 트레이트 바운드 문법"
            ),
            Some(0.75)
        );
        // Anchors, case, width and end punctuation do not count.
        assert_eq!(
            names_heading(
                "ライブラリーモード",
                "本番環境用のビルド › ライブラリーモード {#library-mode}"
            ),
            Some(1.0)
        );
        assert_eq!(names_heading("Memo?", "メモ化 › memo {/*memo*/}"), Some(1.0));
        assert_eq!(names_heading("ﾌﾟﾛｷｼ", "プロキシ"), Some(1.0));
        // Only the section's own heading: a title above it is every section's.
        assert_eq!(names_heading("临时表", "临时表 › 限制"), None);
        // Too short to name anything, or not in the heading at all.
        assert_eq!(names_heading("表", "临时表"), None);
        assert_eq!(names_heading("db", "db"), None);
        assert_eq!(names_heading("restore the backup", "Backups"), None);
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
        assert!(!names_alias("the x.net site", ".net"), "a word goes on before it");
    }

    #[test]
    fn cjk_aliases_are_named_inside_a_sentence() {
        // Issue 25: CJK text has no spaces, so the letters around an alias are no longer word.
        assert!(names_alias("怎么做数据库备份？", "数据库备份"));
        assert!(names_alias("备份手册在哪里", "备份手册"));
        assert!(names_alias("Bluejay的部署在哪里", "bluejay"));
        assert!(names_alias("障害対応手順を教えて", "障害対応手順"));
        assert!(
            names_alias("백업을 어떻게 복원하나요", "백업"),
            "two Hangul letters are enough"
        );
        assert!(!names_alias("数据库在哪", "库"), "one CJK letter is too few");
        assert!(!names_alias("我的bluejays", "bluejay"), "a Latin word goes on after it");
    }
}
