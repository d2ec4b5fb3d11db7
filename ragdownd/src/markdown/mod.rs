//! Markdown as the index sees it: a document's front matter, its metadata, and its heading-scoped
//! chunks.
//!
//! This module owns reading Markdown text. It never touches the file system, the index or the
//! embedder: callers hand it a root-relative path and the file's text, and get plain values back.
//! Chunk boundaries, line numbers and breadcrumbs are those of mcp-ragdown's chunker
//! (CHUNKER_VERSION 2), which this server replaces, so hits point at the same sections; the
//! golden tests in `chunker.rs` pin them.
//!
//! The line-level rules that the chunker and the tag scanner must agree on (line endings, blank
//! lines, fenced code) live here, so the two can never disagree about what is code.

pub mod chunker;
pub mod cjk;
pub mod frontmatter;
pub mod links;
pub mod tables;

pub use chunker::{
    CHUNKER_VERSION, Chunk, Document, HEADING_SEPARATOR, MAX_CHUNK_CHARS, breadcrumb, chunk_document, embedding_text,
};
pub use frontmatter::{DocumentMeta, Frontmatter, read_document_meta, split_frontmatter};

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// A fence opener or closer: up to three leading spaces, then three or more backticks or tildes.
static FENCE_MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s{0,3}(`{3,}|~{3,})").expect("valid fence regex"));

/// The text with `\r\n` and lone `\r` turned into `\n`, so CRLF files chunk exactly like LF ones.
pub(crate) fn normalise_newlines(source: &str) -> Cow<'_, str> {
    if source.contains('\r') {
        Cow::Owned(source.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(source)
    }
}

/// Trims the way JavaScript's `String.prototype.trim` does, which also strips a byte-order mark
/// (U+FEFF); Rust's `str::trim` keeps it, and a BOM before `---` must not hide front matter.
pub(crate) fn trim_js(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// Whether a line holds nothing but whitespace: the paragraph separator.
pub(crate) fn is_blank(line: &str) -> bool {
    trim_js(line).is_empty()
}

/// Whether a file name is Markdown that ragdown indexes: `.md`, `.markdown` or `.mdx`, in any
/// case.
pub fn is_markdown(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".mdx")
}

/// Tracks whether the lines seen so far leave a fenced code block open.
///
/// A fence closes only on a marker of the same character that is at least as long as the opener.
/// Any such marker closes it, even one followed by an info string (CommonMark would not close
/// there; the chunker and the tag and link scanners all follow this one rule).
#[derive(Debug, Default)]
pub struct Fences {
    /// The open fence's character (`` ` `` or `~`) and length, or `None` outside code.
    open: Option<(u8, usize)>,
}

impl Fences {
    /// Feeds the next line and says whether it was a fence marker (an opener, a closer, or a
    /// marker inside a fence that does not close it).
    pub fn observe(&mut self, line: &str) -> bool {
        let Some(marker) = FENCE_MARKER.captures(line).and_then(|c| c.get(1)) else {
            return false;
        };
        // The marker is ASCII backticks or tildes, so its byte length is its character count.
        let marker = (marker.as_str().as_bytes()[0], marker.len());
        match self.open {
            None => self.open = Some(marker),
            Some((ch, len)) if marker.0 == ch && marker.1 >= len => self.open = None,
            Some(_) => {}
        }
        true
    }

    /// Whether the current line is inside fenced code.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }
}

/// The line with each inline code span blanked to spaces, byte for byte, so offsets still hold.
///
/// Spans follow CommonMark: a run of `n` backticks opens one, the next run of exactly `n` closes
/// it, and a run with no closer is literal, so a span may hold a shorter backtick run (two
/// backticks, `a`, one backtick, `b`, two backticks). Spans do not continue onto the next line
/// here. Links and inline tags both look past code with this one rule, so they never disagree
/// about what on a line is code.
pub(crate) fn mask_code_spans(line: &str) -> Cow<'_, str> {
    if !line.contains('`') {
        return Cow::Borrowed(line);
    }
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let (mut copied, mut pos) = (0, 0);
    while pos < bytes.len() {
        if bytes[pos] != b'`' {
            pos += 1;
            continue;
        }
        let run = backtick_run(bytes, pos);
        match closing_run(bytes, pos + run, run) {
            // Spans start and end on ASCII backticks, so these slices are on char boundaries.
            Some(end) => {
                out.push_str(&line[copied..pos]);
                out.extend(std::iter::repeat_n(' ', end - pos));
                (copied, pos) = (end, end);
            }
            None => pos += run,
        }
    }
    out.push_str(&line[copied..]);
    Cow::Owned(out)
}

/// The end (exclusive) of the first run of exactly `n` backticks at or after `from`.
fn closing_run(bytes: &[u8], mut from: usize, n: usize) -> Option<usize> {
    while from < bytes.len() {
        if bytes[from] == b'`' {
            let run = backtick_run(bytes, from);
            if run == n {
                return Some(from + n);
            }
            from += run;
        } else {
            from += 1;
        }
    }
    None
}

/// How many backticks start at byte `at`.
fn backtick_run(bytes: &[u8], at: usize) -> usize {
    bytes[at..].iter().take_while(|&&b| b == b'`').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_normalise_crlf_and_lone_cr() {
        assert_eq!(normalise_newlines("a\r\nb\rc\r\r\nd"), "a\nb\nc\n\nd");
        assert!(matches!(normalise_newlines("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn trim_js_strips_a_byte_order_mark() {
        assert_eq!(trim_js("\u{feff}--- \t"), "---");
        assert!(is_blank(" \t\u{a0}"));
        assert!(!is_blank(" x "));
    }

    #[test]
    fn code_spans_are_blanked_by_commonmark_rules() {
        assert_eq!(mask_code_spans("a `x #y` b"), "a        b");
        assert_eq!(mask_code_spans("``#x``"), "      ");
        assert_eq!(
            mask_code_spans("`` a ` b ``"),
            "           ",
            "a shorter run inside a span is content"
        );
        assert_eq!(mask_code_spans("`` `"), "`` `", "runs of different lengths never pair");
        assert_eq!(mask_code_spans("`#open #tag"), "`#open #tag");
        assert_eq!(mask_code_spans("é`#x`é"), "é    é");
        assert!(matches!(mask_code_spans("no code"), Cow::Borrowed("no code")));
    }

    #[test]
    fn fences_close_only_on_the_same_character_and_no_shorter() {
        let mut fences = Fences::default();
        assert!(fences.observe("````js"));
        assert!(fences.is_open());
        assert!(fences.observe("```"), "a shorter marker is still a marker line");
        assert!(fences.is_open(), "but it does not close a longer fence");
        assert!(fences.observe("~~~~~"));
        assert!(fences.is_open(), "tildes never close a backtick fence");
        assert!(fences.observe("   `````"));
        assert!(!fences.is_open());
        assert!(!fences.observe("    ```"), "four spaces of indent is not a fence");
        assert!(!fences.observe("``"));
        assert!(!fences.is_open());
    }
}
