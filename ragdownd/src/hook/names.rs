//! Which names a prompt calls something by: the quoted names and aliases that let a chunk past the
//! hook's cosine gates (product page, Design: "A quoted name passes both gates", "An alias passes
//! both gates too").
//!
//! Pure functions of text. A name counts only when it is strong: a span in backticks or double
//! quotes that holds an identifier or, in backticks, a command of several words; or an unquoted
//! identifier (a snake_case key, a flag, a camelCase name, a dotted or slashed path, a word mixing
//! letters and digits). A plain word in backticks (`typescript`) and an unquoted version number
//! (`1.2.3`) do not count: they are everywhere, and would push unrelated chunks into the prompt.

use std::sync::LazyLock;

use regex::Regex;

use crate::markdown::cjk;

/// Shortest alias that counts, in characters.
pub const MIN_ALIAS_CHARS: usize = 3;

/// Shortest name that counts, in characters.
const MIN_NAME_CHARS: usize = 3;

static BACKTICKED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`\n]+)`").expect("valid regex"));
static DOUBLE_QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""([^"\n]+)"|“([^”\n]+)”"#).expect("valid regex"));
static SNAKE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\p{L}\p{N}]_[\p{L}\p{N}]").expect("valid regex"));
static FLAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^--?\p{L}[\p{L}\p{N}_-]+$").expect("valid regex"));
static CAMEL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\p{Ll}\p{Lu}").expect("valid regex"));
static DOTTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\p{L}\p{N}_-]+(\.[\p{L}\p{N}_-]+)+$").expect("valid regex"));
static SLASHED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[\p{L}\p{N}_.-]/[\p{L}\p{N}_.-]").expect("valid regex"));
static VERSION: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[vV]?\d+(\.\d+)+$").expect("valid regex"));
/// Numbers with a unit or an ordinal suffix (`3rd`, `10ms`, `40mb`): prose, not names.
static NUMBER_WITH_SUFFIX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\d+\p{L}{1,3}$").expect("valid regex"));

/// Whether one token looks like an identifier. Version numbers do not: see [`quoted_names`].
fn is_identifier(token: &str) -> bool {
    if token.chars().count() < MIN_NAME_CHARS || VERSION.is_match(token) {
        return false;
    }
    let has_letter = token.chars().any(char::is_alphabetic);
    if !has_letter {
        return false;
    }
    if SNAKE.is_match(token) || FLAG.is_match(token) || CAMEL.is_match(token) {
        return true;
    }
    // `config.yaml` but not `e.g` or `U.S`: some part of a dotted name is longer than a letter.
    if DOTTED.is_match(token) && token.split('.').any(|part| part.chars().count() > 1) {
        return true;
    }
    if SLASHED.is_match(token) {
        return true;
    }
    // A word mixing letters and digits (`ipv6`, `x86_64`), but not a number with a unit.
    token.chars().all(|c| c.is_alphanumeric() || c == '-')
        && token.chars().any(|c| c.is_ascii_digit())
        && !NUMBER_WITH_SUFFIX.is_match(token)
}

/// Punctuation around a word in prose that is not part of the name (CJK punctuation too).
fn trim_prose(token: &str) -> &str {
    token
        .trim_start_matches(['(', '[', '{', '\'', '"', '“', '‘', '<', '（', '「', '『'])
        .trim_end_matches([
            ')', ']', '}', '\'', '"', '”', '’', '>', ',', ';', ':', '!', '?', '.', '）', '」', '』', '，', '；', '：',
            '！', '？', '。', '、',
        ])
}

/// The strong names a prompt holds, in the order they appear, without repeats (compared
/// case-insensitively).
pub fn quoted_names(prompt: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut push = |name: &str| {
        let name = name.trim();
        if !names.iter().any(|n| n.to_lowercase() == name.to_lowercase()) {
            names.push(name.to_string());
        }
    };
    let mut unquoted = prompt.to_string();
    for caps in BACKTICKED.captures_iter(prompt) {
        let span = caps[1].trim();
        let words: Vec<&str> = span.split_whitespace().collect();
        let strong = (words.len() > 1 && span.chars().count() >= MIN_NAME_CHARS)
            || words.iter().any(|w| is_identifier(trim_prose(w)))
            || VERSION.is_match(span);
        if strong {
            push(span);
        }
        unquoted = unquoted.replace(&caps[0], " ");
    }
    for caps in DOUBLE_QUOTED.captures_iter(prompt) {
        let span = caps.get(1).or(caps.get(2)).map_or("", |m| m.as_str()).trim();
        let strong = span.split_whitespace().any(|w| is_identifier(trim_prose(w))) || VERSION.is_match(span);
        if strong {
            push(span);
        }
        unquoted = unquoted.replace(&caps[0], " ");
    }
    // CJK prose has no spaces: its letters part words too, so `用pg_restore恢复` names
    // `pg_restore`, and `2024年的备份` is no word mixing letters and digits.
    for word in unquoted.split(|c: char| c.is_whitespace() || cjk::is_cjk(c)) {
        let word = trim_prose(word);
        if is_identifier(word) {
            push(word);
        }
    }
    names
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `haystack` holds `needle` whole, case-insensitively: not as part of a longer word
/// (next to a CJK letter any position ends a word: [`cjk::is_word_boundary`]).
pub fn holds_whole(haystack: &str, needle: &str) -> bool {
    let needle = needle.trim().to_lowercase();
    if needle.is_empty() {
        return false;
    }
    let haystack = haystack.to_lowercase();
    let (Some(first), Some(last)) = (needle.chars().next(), needle.chars().next_back()) else {
        return false;
    };
    let mut from = 0;
    while let Some(found) = haystack[from..].find(&needle) {
        let start = from + found;
        let end = start + needle.len();
        let before_ok = !is_word_char(first) || cjk::is_word_boundary(first, haystack[..start].chars().next_back());
        let after_ok = !is_word_char(last) || cjk::is_word_boundary(last, haystack[end..].chars().next());
        if before_ok && after_ok {
            return true;
        }
        from = start + needle.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Whether a prompt calls a document by one of its aliases: whole, case-insensitively, and only
/// aliases of [`MIN_ALIAS_CHARS`] characters' worth or more (a CJK letter counts 2:
/// [`cjk::weight`]).
pub fn holds_alias(prompt: &str, aliases: &[String]) -> bool {
    aliases
        .iter()
        .map(|alias| alias.trim())
        .filter(|alias| cjk::weight(alias) >= MIN_ALIAS_CHARS)
        .any(|alias| holds_whole(prompt, alias))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_quoted_names_count_and_plain_words_and_versions_do_not() {
        assert_eq!(
            quoted_names("what does `veltra rollout pause` do after `pg_restore`?"),
            ["veltra rollout pause", "pg_restore"]
        );
        assert_eq!(quoted_names("why `typescript` and not rust"), Vec::<String>::new());
        assert_eq!(quoted_names("upgrade to 1.2.3 or v2.0.1 first"), Vec::<String>::new());
        // Quoted, a version number is a name someone is looking for.
        assert_eq!(quoted_names("which service pins `1.2.3`"), ["1.2.3"]);
        assert_eq!(quoted_names(r#"what is "the best way" to do it"#), Vec::<String>::new());
        assert_eq!(
            quoted_names(r#"run "kubectl --context prod" now"#),
            ["kubectl --context prod"]
        );
    }

    #[test]
    fn unquoted_identifiers_count_and_prose_does_not() {
        assert_eq!(
            quoted_names(
                "set max_batch_size, pass --dry-run, read config.yaml and maxBatchSize in src/main.rs on ipv6"
            ),
            [
                "max_batch_size",
                "--dry-run",
                "config.yaml",
                "maxBatchSize",
                "src/main.rs",
                "ipv6"
            ]
        );
        for prose in [
            "an up-to-date plan, e.g. at 10:30",
            "the 3rd step takes 10ms",
            "who won the world cup in 1998",
            "convert 40 degrees celsius to fahrenheit",
            "what is the weather in Paris tomorrow?",
        ] {
            assert_eq!(quoted_names(prose), Vec::<String>::new(), "{prose}");
        }
    }

    #[test]
    fn names_in_cjk_prose_are_the_identifiers_glued_to_it() {
        // Issue 25: the whole sentence was one "word", and a name if it held `_` or a digit.
        assert_eq!(quoted_names("用pg_restore恢复数据库"), ["pg_restore"]);
        assert_eq!(quoted_names("config.yamlの設定を変更するには？"), ["config.yaml"]);
        assert_eq!(quoted_names("怎么恢复2024年的备份？"), Vec::<String>::new());
        assert_eq!(quoted_names("ipv6설정（max_batch_size）"), ["ipv6", "max_batch_size"]);
    }

    #[test]
    fn names_match_whole_and_case_insensitively() {
        assert!(holds_whole("Run PG_RESTORE twice.", "pg_restore"));
        assert!(!holds_whole("Run pg_restore_all twice.", "pg_restore"));
        assert!(!holds_whole("xpg_restore", "pg_restore"));
        assert!(holds_whole("pass --dry-run first", "--dry-run"));
        assert!(holds_whole("then `veltra rollout pause`.", "veltra rollout pause"));
        assert!(!holds_whole("anything", ""));
        // Unicode lowercasing keeps positions consistent.
        assert!(holds_whole("İstanbul ÉTÉ config", "été"));
    }

    #[test]
    fn aliases_need_three_characters_and_a_whole_match() {
        let aliases = vec!["Bluejay".to_string(), "QA".to_string()];
        assert!(holds_alias("what does bluejay deploy?", &aliases));
        assert!(!holds_alias("what does bluejays deploy?", &aliases));
        assert!(!holds_alias("ask qa about it", &aliases), "two characters are too few");
    }

    #[test]
    fn cjk_names_and_aliases_are_found_inside_a_sentence() {
        // Issue 25: CJK text has no spaces between words.
        let aliases = vec!["备份手册".to_string(), "库".to_string()];
        assert!(holds_alias("备份手册在哪里？", &aliases));
        assert!(holds_alias("请看备份手册", &aliases));
        assert!(!holds_alias("数据库在哪里", &aliases), "one CJK letter is too few");
        assert!(holds_whole("每天用pg_restore恢复", "pg_restore"));
        assert!(!holds_whole("每天用pg_restore_all恢复", "pg_restore"));
    }
}
