//! Text rules the harvest, the chain and the queries share: the whitespace-normalised fingerprint
//! two chunks are told apart by, and what counts as a chunk's prose (read with ragdownd's own
//! fence rule, [`Fences`]).

use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;

use ragdownd::markdown::Fences;

/// Chunks are kept only when their whitespace-normalised text has at least this many characters.
pub(crate) const MIN_CHUNK_CHARS: usize = 80;

/// The fingerprint of a text with its whitespace normalised (runs of whitespace read as one
/// space, none at either end), and the normalised text's length in characters.
///
/// 128 bits from two keyed SipHash runs, so a million chunks cost 16 bytes each in the
/// [`Distinct`] set instead of their text, and a false collision is out of reach.
pub(crate) fn fingerprint(text: &str) -> (u128, usize) {
    let mut a = DefaultHasher::new();
    let mut b = DefaultHasher::new();
    b.write_u64(0x9e37_79b9_7f4a_7c15);
    let mut chars = 0;
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            a.write_u8(b' ');
            b.write_u8(b' ');
            chars += 1;
        }
        a.write(word.as_bytes());
        b.write(word.as_bytes());
        chars += word.chars().count();
    }
    ((u128::from(a.finish()) << 64) | u128::from(b.finish()), chars)
}

/// The fingerprints of every chunk written so far, real and generated.
#[derive(Debug, Default)]
pub(crate) struct Distinct(HashSet<u128>);

impl Distinct {
    pub(crate) fn contains(&self, print: u128) -> bool {
        self.0.contains(&print)
    }

    /// Adds a fingerprint; false when it was there already.
    pub(crate) fn insert(&mut self, print: u128) -> bool {
        self.0.insert(print)
    }
}

/// Whether a chunk's text closes every fence it opens: a chunk cut out of a long code block does
/// not, and written into a file it would swallow the sections after it.
pub(crate) fn fences_balanced(text: &str) -> bool {
    let mut fences = Fences::default();
    text.split('\n').for_each(|line| {
        fences.observe(line);
    });
    !fences.is_open()
}

/// Whether a trimmed line is not prose: a table row, HTML, a heading, or links alone.
fn is_markup(line: &str) -> bool {
    let bytes = line.as_bytes();
    let (first, last) = (bytes[0], bytes[bytes.len() - 1]);
    let link_only = (line.starts_with('[') || line.starts_with("![")) && (last == b')' || last == b']')
        || line.starts_with('[') && line.contains("]: ");
    first == b'|' || last == b'|' || first == b'<' || first == b'#' || link_only
}

/// A line with its list marker (`- `, `* `, `+ `, `1. `, `1) `) or quote marks taken off.
fn strip_markers(mut line: &str) -> &str {
    while let Some(rest) = line.strip_prefix('>') {
        line = rest.trim_start();
    }
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 4 {
        let rest = &line[digits..];
        if let Some(rest) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return rest.trim_start();
        }
    }
    line
}

/// Calls `each` with the words of every prose paragraph of a chunk's text, in order: runs of
/// lines outside fenced code that are neither blank, indented code, table rows, HTML, headings
/// nor lines of links alone, with list markers and quote marks taken off. Words are split at
/// whitespace and kept as written.
pub(crate) fn prose_paragraphs<'t>(text: &'t str, mut each: impl FnMut(&[&'t str])) {
    let mut fences = Fences::default();
    let mut words: Vec<&str> = Vec::new();
    let mut flush = |words: &mut Vec<&'t str>| {
        if !words.is_empty() {
            each(words);
            words.clear();
        }
    };
    for line in text.split('\n') {
        if fences.observe(line) || fences.is_open() {
            flush(&mut words);
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || line.starts_with('\t') || line.starts_with("    ") || is_markup(trimmed) {
            flush(&mut words);
            continue;
        }
        words.extend(strip_markers(trimmed).split_whitespace());
    }
    flush(&mut words);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vault_fingerprint_ignores_whitespace_runs() {
        let (a, chars) = fingerprint("  one\ttwo\n\nthree ");
        assert_eq!(chars, "one two three".len());
        assert_eq!(a, fingerprint("one two three").0);
        assert_ne!(a, fingerprint("one two thre e").0);
    }

    #[test]
    fn vault_fences_follow_the_chunker() {
        assert!(fences_balanced("```sh\necho\n```\ntext"));
        assert!(!fences_balanced("```sh\necho"));
        assert!(!fences_balanced("````\n```\n"), "a shorter marker does not close");
        assert!(fences_balanced("   ~~~\nx\n~~~~ trailing"));
        assert!(fences_balanced("    ```\nindented four: not a fence"));
    }

    #[test]
    fn vault_prose_skips_code_tables_html_and_links() {
        let text = "Intro line one\ncontinues here.\n\n```\ncode here\n```\n| a | b |\n<div>\n\
                    [link](http://x)\n# Heading\n- item words\n    indented code\n> quoted text";
        let mut paragraphs = Vec::new();
        prose_paragraphs(text, |words| paragraphs.push(words.join(" ")));
        assert_eq!(
            paragraphs,
            ["Intro line one continues here.", "item words", "quoted text"]
        );
    }
}
