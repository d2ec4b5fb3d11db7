//! The chunker: a Markdown document as heading-scoped chunks with 1-based line ranges in the
//! original file, plus the breadcrumb and embedding text built from them.
//!
//! This module owns chunk boundaries, so any change to what it produces must bump
//! [`CHUNKER_VERSION`], which makes existing indexes rebuild instead of mixing two kinds of
//! chunk. It must not read files or know about the index: it maps text to values.
//!
//! One change was made without a bump: a line longer than [`MAX_CHUNK_CHARS`] is now cut at a
//! sentence end (`cut_point`; CJK `。！？` included) instead of at exactly that many characters.
//! It touches only files holding such a line, a file's chunks are always cut by one rule (a file
//! is re-chunked whole when it changes), and both rules give whole, correctly numbered sections,
//! so an index holding both is as correct as either; a bump would have re-embedded every index
//! for it.
//!
//! Lengths are counted in Unicode scalar values (`chars().count()`), not UTF-16 code units as a
//! JavaScript chunker would, so the two differ only for characters outside the Basic Multilingual
//! Plane (emoji, some CJK), where a chunk here may hold a few more of them; strings are only ever
//! cut between characters.

use std::sync::LazyLock;

use regex::Regex;

use super::cjk;
use super::frontmatter::{self, DocumentMeta, split_frontmatter};
use super::{Fences, is_blank, normalise_newlines, trim_js};

/// The version of the chunking rules, recorded in the index's `meta.json`.
pub const CHUNKER_VERSION: u32 = 2;

/// The most characters a chunk's text holds.
pub const MAX_CHUNK_CHARS: usize = 1500;

/// Joins heading names into a heading path, and a title to a heading path: U+203A with spaces.
pub const HEADING_SEPARATOR: &str = " \u{203a} ";

/// An ATX heading outside fenced code: its `#`s and its name without closing `#`s.
static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$").expect("valid heading regex"));

/// One heading-scoped piece of a document: what is embedded, stored and returned by a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Position within the document, from 0.
    pub index: usize,
    /// The heading path, e.g. `Backups › Restore`; empty for text before the first heading.
    pub heading: String,
    /// The chunk's text as written in the file (line endings normalised to `\n`).
    pub text: String,
    /// First line, 1-based, counted in the original file (front matter included).
    pub line_start: usize,
    /// Last line, 1-based and inclusive.
    pub line_end: usize,
}

/// A chunked document: its title, its chunks (never empty) and its metadata.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Document {
    /// Front matter `title`, else the first H1, else the file name without its extension.
    pub title: String,
    /// The chunks in file order; a document always has at least one.
    pub chunks: Vec<Chunk>,
    /// What the front matter and inline tags say about the document.
    pub meta: DocumentMeta,
}

/// Chunks a document. `path` is its posix path relative to the docs root, used for the title
/// when the document names none and to resolve `supersedes`.
pub fn chunk_document(path: &str, source: &str) -> Document {
    let source = normalise_newlines(source);
    let lines: Vec<&str> = source.split('\n').collect();
    let front = split_frontmatter(&lines);
    let body_start = front.as_ref().map_or(0, |front| front.body_start);
    let meta = frontmatter::document_meta(path, &lines, front.as_ref());
    let outline = Outline::scan(&lines, body_start);

    let title = front
        .and_then(|front| front.title)
        .or(outline.first_h1)
        .unwrap_or_else(|| file_stem(path));

    let mut chunks = Vec::new();
    for section in &outline.sections {
        for piece in split_section(section, MAX_CHUNK_CHARS) {
            chunks.push(Chunk {
                index: chunks.len(),
                heading: section.heading.clone(),
                text: piece.text,
                line_start: piece.line_start,
                line_end: piece.line_end,
            });
        }
    }
    if chunks.is_empty() {
        chunks.push(fallback_chunk(&lines, body_start, &title));
    }
    Document { title, chunks, meta }
}

/// The title and heading path as one line, without repeating the title when the heading path
/// already starts with it (it usually does: the H1 is both).
pub fn breadcrumb(title: &str, heading: &str) -> String {
    if heading.is_empty() || heading == title {
        return title.to_owned();
    }
    let repeats_title = heading
        .strip_prefix(title)
        .is_some_and(|rest| rest.starts_with(HEADING_SEPARATOR));
    if repeats_title {
        heading.to_owned()
    } else {
        format!("{title}{HEADING_SEPARATOR}{heading}")
    }
}

/// The text given to the embedder (and, with more, to the full-text index): the breadcrumb first,
/// so a chunk that says "run it twice" under `Backups › Restore` is found by a question about
/// restoring backups, then the chunk's text with its tables read out row by row
/// ([`super::tables`]). The reference embeds the text as written; the rows are this port's own
/// (measured in `bench/results/README.md`).
pub fn embedding_text(title: &str, chunk: &Chunk) -> String {
    format!(
        "{}\n\n{}",
        breadcrumb(title, &chunk.heading),
        super::tables::linearize_tables(&chunk.text)
    )
}

/// The one chunk of a document with no text under any heading (headings only, or empty).
///
/// A file with no rows is unknown to the index, so every sync would count it as new; and a stub
/// of headings is still findable by its title.
fn fallback_chunk(lines: &[&str], body_start: usize, title: &str) -> Chunk {
    let body = lines[body_start..].join("\n");
    let body = trim_js(&body);
    Chunk {
        index: 0,
        heading: String::new(),
        text: if body.is_empty() { title } else { body }.to_owned(),
        // Front matter with no line after it leaves no body line: its last line stands in.
        line_start: (body_start + 1).min(lines.len()),
        line_end: lines.len(),
    }
}

/// The file name without its extension, as Node's `basename(p, extname(p))` gives it: a leading
/// dot is part of the name, not an extension.
fn file_stem(path: &str) -> String {
    let name = path.trim_end_matches('/').rsplit('/').next().unwrap_or_default();
    match name.rfind('.') {
        Some(dot) if dot > 0 => name[..dot].to_owned(),
        _ => name.to_owned(),
    }
}

/// The run of lines under one heading (or before the first), up to the next heading.
struct Section<'a> {
    /// The heading path, empty before the first heading.
    heading: String,
    /// The section's own lines: the heading line itself is not among them.
    lines: &'a [&'a str],
    /// The 1-based file line of `lines[0]`.
    line_start: usize,
}

/// A document's body cut into sections at its headings.
struct Outline<'a> {
    sections: Vec<Section<'a>>,
    first_h1: Option<String>,
}

impl<'a> Outline<'a> {
    fn scan(lines: &'a [&'a str], body_start: usize) -> Self {
        let mut sections = Vec::new();
        let mut first_h1 = None;
        // Heading names by level; a skipped level leaves an empty name, which the path omits.
        let mut stack: Vec<String> = Vec::new();
        let mut fences = Fences::default();
        let mut heading = String::new();
        let mut first = body_start;

        for (i, line) in lines.iter().enumerate().skip(body_start) {
            fences.observe(line);
            if fences.is_open() {
                continue;
            }
            let Some((level, name)) = parse_heading(line) else {
                continue;
            };
            sections.push(Section {
                heading: std::mem::take(&mut heading),
                lines: &lines[first..i],
                line_start: first + 1,
            });
            if level == 1 && first_h1.is_none() {
                first_h1 = Some(name.to_owned());
            }
            stack.resize(level - 1, String::new());
            stack.push(name.to_owned());
            heading = heading_path(&stack);
            first = i + 1;
        }
        sections.push(Section {
            heading,
            lines: &lines[first..],
            line_start: first + 1,
        });
        Outline { sections, first_h1 }
    }
}

/// A heading line's level and name.
fn parse_heading(line: &str) -> Option<(usize, &str)> {
    let caps = HEADING.captures(line)?;
    Some((caps.get(1)?.len(), caps.get(2)?.as_str()))
}

fn heading_path(stack: &[String]) -> String {
    let names: Vec<&str> = stack
        .iter()
        .map(String::as_str)
        .filter(|name| !name.is_empty())
        .collect();
    names.join(HEADING_SEPARATOR)
}

/// Text with its line range, on its way to becoming a chunk.
#[derive(Debug, Clone, PartialEq, Default)]
struct Piece {
    text: String,
    /// `text.chars().count()`, kept so packing does not recount.
    chars: usize,
    line_start: usize,
    line_end: usize,
}

impl Piece {
    fn new(text: String, line_start: usize, line_end: usize) -> Self {
        let chars = text.chars().count();
        Piece {
            text,
            chars,
            line_start,
            line_end,
        }
    }

    fn append(&mut self, next: Piece) {
        self.text.push_str("\n\n");
        self.text.push_str(&next.text);
        self.chars += 2 + next.chars;
        self.line_end = next.line_end;
    }
}

/// A section's chunks: its paragraphs, each cut down to `max_chars`, packed greedily.
fn split_section(section: &Section<'_>, max_chars: usize) -> Vec<Piece> {
    let mut packed: Vec<Piece> = Vec::new();
    let mut open: Option<Piece> = None;
    let pieces = paragraphs(section)
        .into_iter()
        .flat_map(|paragraph| hard_split(paragraph, max_chars));
    for piece in pieces {
        match open.as_mut() {
            Some(current) if current.chars + 2 + piece.chars <= max_chars => current.append(piece),
            _ => packed.extend(open.replace(piece)),
        }
    }
    packed.extend(open);
    packed
}

/// A section's paragraphs: runs of lines between blank lines.
///
/// A fenced block is one paragraph however many blank lines it holds: cutting a code sample in
/// half ruins both halves.
fn paragraphs(section: &Section<'_>) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut fences = Fences::default();
    let mut start: Option<usize> = None;
    for (i, line) in section.lines.iter().enumerate() {
        fences.observe(line);
        if is_blank(line) && !fences.is_open() {
            out.extend(start.take().map(|s| paragraph(section, s, i)));
        } else {
            start.get_or_insert(i);
        }
    }
    out.extend(start.map(|s| paragraph(section, s, section.lines.len())));
    out
}

/// The paragraph made of `section.lines[start..end]`.
fn paragraph(section: &Section<'_>, start: usize, end: usize) -> Piece {
    Piece::new(
        section.lines[start..end].join("\n"),
        section.line_start + start,
        section.line_start + end - 1,
    )
}

/// Cuts a paragraph longer than `max_chars` at line boundaries, and a single line longer than
/// `max_chars` at sentence ends where it can be ([`cut_point`]), its pieces all on that one line.
///
/// A fenced block is a paragraph like any other here: one longer than `max_chars` is cut too,
/// at its line boundaries where it can be, because an oversized chunk would be truncated by the
/// embedder anyway.
fn hard_split(paragraph: Piece, max_chars: usize) -> Vec<Piece> {
    if paragraph.chars <= max_chars {
        return vec![paragraph];
    }
    let mut out = Vec::new();
    let mut open = Piece::default();
    for (offset, line) in paragraph.text.split('\n').enumerate() {
        let line_no = paragraph.line_start + offset;
        let line_chars = line.chars().count();
        if !open.text.is_empty() && open.chars + 1 + line_chars > max_chars {
            open.line_end = line_no - 1;
            out.push(std::mem::take(&mut open));
        }
        if open.text.is_empty() {
            // A blank line cannot lead a piece: the next line starts it instead, as in the
            // original.
            open.line_start = line_no;
            push_cut_line(&mut out, &mut open, line, line_chars, max_chars);
        } else {
            open.text.push('\n');
            open.text.push_str(line);
            open.chars += 1 + line_chars;
        }
    }
    if !open.text.is_empty() {
        open.line_end = paragraph.line_end;
        out.push(open);
    }
    out
}

/// Starts the empty `open` piece with `line`, first emitting cuts of at most `max_chars` while it
/// is too long to fit whole, each at the best place [`cut_point`] finds.
fn push_cut_line(out: &mut Vec<Piece>, open: &mut Piece, mut line: &str, mut line_chars: usize, max_chars: usize) {
    while line_chars > max_chars {
        let (cut, chars) = cut_point(line, max_chars);
        out.push(Piece {
            text: line[..cut].to_owned(),
            chars,
            line_start: open.line_start,
            line_end: open.line_start,
        });
        line = &line[cut..];
        line_chars -= chars;
    }
    open.text.push_str(line);
    open.chars = line_chars;
}

/// Where to cut a line longer than `max_chars`: the byte offset and the characters before it. The
/// last sentence end in the first `max_chars` characters (`. ` `! ` `? `, or CJK `。．｡！？；`,
/// which need no space: [`cjk::ends_sentence`]), with the spaces and closing quotes after it;
/// else the last clause mark (`、，､,`); else the last space; else `max_chars` characters, which
/// only text without spaces or punctuation, such as a very long CJK sentence, comes to. A cut
/// point in the first half of the window is passed over for the next kind, so pieces stay long.
fn cut_point(line: &str, max_chars: usize) -> (usize, usize) {
    let hard = line.char_indices().nth(max_chars).map_or(line.len(), |(at, _)| at);
    // (byte offset, characters) after the last sentence end, clause mark and space.
    let (mut sentence, mut clause, mut space) = (None, None, None);
    let mut previous_ends = false;
    for (count, (at, c)) in line[..hard].char_indices().enumerate() {
        let after = Some((at + c.len_utf8(), count + 1));
        let ascii_end = matches!(c, '.' | '!' | '?') && line[at + 1..].starts_with(char::is_whitespace);
        let closing = matches!(c, '」' | '』' | '）' | '"' | '\'' | '”' | '’' | ')');
        if cjk::ends_sentence(c) || ascii_end || (previous_ends && (c.is_whitespace() || closing)) {
            sentence = after;
            previous_ends = true;
            continue;
        }
        previous_ends = false;
        if matches!(c, '、' | '，' | '､' | ',') {
            clause = after;
        } else if c.is_whitespace() {
            space = after;
        }
    }
    let long_enough = |cut: &Option<(usize, usize)>| cut.is_some_and(|(_, chars)| chars >= max_chars / 2);
    [sentence, clause, space]
        .into_iter()
        .find(long_enough)
        .flatten()
        .unwrap_or((hard, max_chars))
}

#[cfg(test)]
#[path = "chunker_props.rs"]
pub(crate) mod props;

#[cfg(test)]
mod tests {
    use super::*;

    const BACKUPS: &str = include_str!("../../tests/data/chunker/chunk-backups.md");
    const BACKUPS_EXPECTED: &str = include_str!("../../tests/data/chunker/chunk-backups.expected.json");

    /// `(heading, text, line_start, line_end)` for each chunk.
    fn rows(doc: &Document) -> Vec<(&str, &str, usize, usize)> {
        doc.chunks
            .iter()
            .map(|c| (c.heading.as_str(), c.text.as_str(), c.line_start, c.line_end))
            .collect()
    }

    fn lines_of(doc: &Document) -> Vec<(usize, usize)> {
        doc.chunks.iter().map(|c| (c.line_start, c.line_end)).collect()
    }

    fn chars(text: &str) -> usize {
        text.chars().count()
    }

    #[test]
    fn golden_backups_fixture() {
        let doc = chunk_document("ops/backups.md", BACKUPS);
        let expected: Vec<(String, String, usize, usize)> =
            serde_json::from_str(BACKUPS_EXPECTED).expect("fixture is valid JSON");
        let got: Vec<(String, String, usize, usize)> = doc
            .chunks
            .iter()
            .map(|c| {
                let crumb = breadcrumb(&doc.title, &c.heading);
                (crumb, c.text.clone(), c.line_start, c.line_end)
            })
            .collect();
        assert_eq!(got, expected);
        assert_eq!(doc.title, "Backups");
        let headings: Vec<&str> = doc.chunks.iter().map(|c| c.heading.as_str()).collect();
        assert_eq!(
            headings,
            ["Backups", "Backups › Restore", "Backups › Restore › Replication"]
        );
        let indices: Vec<usize> = doc.chunks.iter().map(|c| c.index).collect();
        assert_eq!(indices, [0, 1, 2]);
    }

    #[test]
    fn frontmatter_lines_count_in_line_numbers() {
        let source = "---\ntitle: \"Runbook\"\ntags: [ops]\n---\nIntro text.";
        let doc = chunk_document("x.md", source);
        assert_eq!(doc.title, "Runbook");
        assert_eq!(rows(&doc), [("", "Intro text.", 5, 5)]);
        assert_eq!(doc.meta.tags, ["ops"]);
    }

    #[test]
    fn three_dots_end_frontmatter() {
        let doc = chunk_document("x.md", "---\ntitle: Dots\n...\n\nBody.");
        assert_eq!(doc.title, "Dots");
        assert_eq!(rows(&doc), [("", "Body.", 5, 5)]);
    }

    #[test]
    fn no_frontmatter_unless_the_first_line_is_dashes() {
        let doc = chunk_document("note.md", "\n---\ntitle: X\n---\nBody");
        assert_eq!(doc.title, "note");
        assert_eq!(rows(&doc), [("", "---\ntitle: X\n---\nBody", 2, 5)]);

        // An opener with no closer is not front matter either.
        let doc = chunk_document("note.md", "---\ntitle: X\nBody");
        assert_eq!(doc.title, "note");
        assert_eq!(rows(&doc), [("", "---\ntitle: X\nBody", 1, 3)]);
    }

    #[test]
    fn a_fence_is_one_paragraph_and_hides_headings() {
        let source = "## Script\n```sh\n# not a heading\n\necho hi\n```";
        let doc = chunk_document("x.md", source);
        assert_eq!(rows(&doc), [("Script", "```sh\n# not a heading\n\necho hi\n```", 2, 6)]);
        assert_eq!(doc.title, "x", "a `#` line in a fence is not the first H1");
    }

    #[test]
    fn tilde_fences_ignore_backtick_markers() {
        let source = "~~~\n```\n# inside\n\n~~~~\n# Real heading\nafter";
        let doc = chunk_document("x.md", source);
        assert_eq!(
            rows(&doc),
            [
                ("", "~~~\n```\n# inside\n\n~~~~", 1, 5),
                ("Real heading", "after", 7, 7),
            ]
        );
        assert_eq!(doc.title, "Real heading");
    }

    #[test]
    fn a_shorter_marker_does_not_close_a_longer_fence() {
        let source = "````\n```\n# inside\n\n````\n# Out\nx";
        let doc = chunk_document("x.md", source);
        assert_eq!(
            rows(&doc),
            [("", "````\n```\n# inside\n\n````", 1, 5), ("Out", "x", 7, 7)]
        );
    }

    #[test]
    fn a_fence_longer_than_the_limit_is_cut_at_line_boundaries() {
        let mut lines = vec!["```".to_owned()];
        for i in 0..40 {
            // A blank line early on must stay inside the first piece, not end a paragraph.
            lines.push(if i == 5 {
                String::new()
            } else {
                format!("{i:02}{}", "x".repeat(47))
            });
        }
        lines.push("```".to_owned());
        let source = lines.join("\n");
        let doc = chunk_document("x.md", &source);

        assert_eq!(doc.chunks.len(), 2);
        assert!(doc.chunks[0].text.contains("\n\n"));
        assert_eq!(doc.chunks[0].line_start, 1);
        assert_eq!(doc.chunks[1].line_start, doc.chunks[0].line_end + 1);
        assert_eq!(doc.chunks[1].line_end, lines.len());
        for chunk in &doc.chunks {
            assert!(chars(&chunk.text) <= MAX_CHUNK_CHARS);
            let whole_lines = lines[chunk.line_start - 1..chunk.line_end].join("\n");
            assert_eq!(chunk.text, whole_lines, "cut only between lines");
        }
    }

    #[test]
    fn paragraphs_pack_with_blank_line_joins_up_to_the_limit() {
        let (a, b, c) = ("a".repeat(700), "b".repeat(700), "c".repeat(200));
        let doc = chunk_document("x.md", &format!("{a}\n\n{b}\n\n{c}"));
        assert_eq!(
            rows(&doc),
            [("", format!("{a}\n\n{b}").as_str(), 1, 3), ("", c.as_str(), 5, 5)]
        );
    }

    #[test]
    fn packing_allows_exactly_the_limit() {
        let (a, b) = ("a".repeat(749), "b".repeat(749));
        let doc = chunk_document("x.md", &format!("{a}\n\n{b}"));
        assert_eq!(doc.chunks.len(), 1);
        assert_eq!(chars(&doc.chunks[0].text), MAX_CHUNK_CHARS);

        let doc = chunk_document("x.md", &format!("{a}\n\n{b}b"));
        assert_eq!(lines_of(&doc), [(1, 1), (3, 3)]);
    }

    #[test]
    fn a_long_paragraph_is_cut_at_line_boundaries() {
        let lines: Vec<String> = (0..30).map(|i| format!("{i:02}{}", "y".repeat(97))).collect();
        let doc = chunk_document("x.md", &lines.join("\n"));
        assert_eq!(lines_of(&doc), [(1, 15), (16, 30)]);
        assert_eq!(doc.chunks[0].text, lines[..15].join("\n"));
        assert_eq!(doc.chunks[1].text, lines[15..].join("\n"));
    }

    #[test]
    fn a_long_line_is_cut_by_characters_on_its_own_line() {
        // Two-byte characters: a byte-length cut would give 750-character pieces, or panic.
        let long = "é".repeat(4000);
        let doc = chunk_document("x.md", &format!("intro\n\n{long}"));
        let sizes: Vec<usize> = doc.chunks.iter().map(|c| chars(&c.text)).collect();
        assert_eq!(sizes, [5, 1500, 1500, 1000]);
        assert_eq!(lines_of(&doc), [(1, 1), (3, 3), (3, 3), (3, 3)]);
        let rejoined: String = doc.chunks[1..].iter().map(|c| c.text.as_str()).collect();
        assert_eq!(rejoined, long);
    }

    #[test]
    fn a_long_cjk_line_is_cut_at_sentence_ends() {
        // Issue 25: 60 sentences of 29 letters and a full stop, on one line, no spaces anywhere.
        let sentence = |i: usize| format!("第{i:02}数据库备份每天凌晨三点开始并在完成后检查校验和是否一。");
        let line: String = (0..60).map(sentence).collect();
        assert_eq!(chars(&sentence(0)), 30);
        let doc = chunk_document("x.md", &line);
        let sizes: Vec<usize> = doc.chunks.iter().map(|c| chars(&c.text)).collect();
        assert_eq!(sizes, [1500, 300], "50 whole sentences fit in 1,500 characters");
        for chunk in &doc.chunks {
            assert!(
                chunk.text.starts_with('第') && chunk.text.ends_with('。'),
                "{}",
                chunk.text
            );
        }
        let rejoined: String = doc.chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(rejoined, line);

        // Sentences of 31 characters: 48 fit, and the cut comes after the 48th sentence's marks,
        // not at the 1,500th character inside the 49th sentence.
        let line: String = (0..60)
            .map(|i| format!("第{i:02}数据库备份每天凌晨三点开始并在完成后检查校验和是否一！？"))
            .collect();
        let doc = chunk_document("x.md", &line);
        let sizes: Vec<usize> = doc.chunks.iter().map(|c| chars(&c.text)).collect();
        assert_eq!(sizes, [31 * 48, 31 * 12]);
        assert!(doc.chunks[0].text.ends_with("！？"));
    }

    #[test]
    fn long_lines_are_cut_after_a_sentence_then_a_clause_then_a_space() {
        // English: after ". ", so the next piece starts with its sentence.
        let line = "Restore the nightly backup first. ".repeat(60);
        let doc = chunk_document("x.md", line.trim_end());
        assert!(doc.chunks.len() > 1);
        assert!(doc.chunks[0].text.ends_with("first. ") && doc.chunks[1].text.starts_with("Restore"));
        // A Japanese sentence with only commas (、) is cut after one.
        let line = "バックアップを確認し、".repeat(200);
        let doc = chunk_document("x.md", &line);
        assert!(doc.chunks[0].text.ends_with('、') && chars(&doc.chunks[0].text) <= MAX_CHUNK_CHARS);
        // Words without punctuation: after the last space.
        let line = "backup restore verify ".repeat(100);
        let doc = chunk_document("x.md", &line);
        assert!(doc.chunks[0].text.ends_with("verify "));
        // A cut point in the first half is passed over for the next kind.
        let line = format!("Short. {}", "word ".repeat(400));
        let doc = chunk_document("x.md", &line);
        assert!(chars(&doc.chunks[0].text) > 1400, "{}", chars(&doc.chunks[0].text));
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        // 1000 two-byte characters: 2000 bytes, but within the limit, so not cut.
        let wide = "é".repeat(1000);
        let doc = chunk_document("x.md", &format!("{wide}\n{wide}"));
        assert_eq!(lines_of(&doc), [(1, 1), (2, 2)]);
        assert_eq!(doc.chunks[0].text, wide);

        // 700 + 2 + 700 characters pack into one chunk although that is 2802 bytes.
        let (a, b) = ("é".repeat(700), "ü".repeat(700));
        let doc = chunk_document("x.md", &format!("{a}\n\n{b}"));
        assert_eq!(rows(&doc), [("", format!("{a}\n\n{b}").as_str(), 1, 3)]);
    }

    #[test]
    fn a_long_line_after_a_short_one_starts_its_own_pieces() {
        let long = "z".repeat(3100);
        let doc = chunk_document("x.md", &format!("short\n{long}\ntail"));
        let sizes: Vec<usize> = doc.chunks.iter().map(|c| chars(&c.text)).collect();
        // "short" cannot take "\n" + 3100 characters; the line's last 100 join "tail".
        assert_eq!(sizes, [5, 1500, 1500, 105]);
        assert_eq!(lines_of(&doc), [(1, 1), (2, 2), (2, 2), (2, 3)]);
    }

    #[test]
    fn empty_sections_survive_only_in_breadcrumbs() {
        let doc = chunk_document("x.md", "# A\n## B\nbody");
        assert_eq!(rows(&doc), [("A › B", "body", 3, 3)]);

        // A skipped level leaves no empty name in the path, and a shallower heading pops.
        let doc = chunk_document("x.md", "# A\n### C\nx\n### E\ny\n## D\nz");
        let headings: Vec<&str> = doc.chunks.iter().map(|c| c.heading.as_str()).collect();
        assert_eq!(headings, ["A › C", "A › E", "A › D"]);
    }

    #[test]
    fn text_before_the_first_heading_has_no_heading() {
        let doc = chunk_document("x.md", "Intro\n# T\nbody");
        assert_eq!(rows(&doc), [("", "Intro", 1, 1), ("T", "body", 3, 3)]);
        assert_eq!(breadcrumb(&doc.title, &doc.chunks[0].heading), "T");
    }

    #[test]
    fn heading_syntax() {
        let source = "#nospace\n####### seven\n    # indented\n   ### Three ###\nx";
        let doc = chunk_document("x.md", source);
        assert_eq!(
            rows(&doc),
            [
                ("", "#nospace\n####### seven\n    # indented", 1, 3),
                ("Three", "x", 5, 5),
            ]
        );
    }

    #[test]
    fn a_document_without_text_is_one_chunk() {
        let doc = chunk_document("stub.md", "# Stub\n## Todo");
        assert_eq!(doc.title, "Stub");
        assert_eq!(
            doc.chunks,
            [Chunk {
                index: 0,
                heading: String::new(),
                text: "# Stub\n## Todo".to_owned(),
                line_start: 1,
                line_end: 2,
            }]
        );

        let doc = chunk_document("notes/empty.md", "");
        assert_eq!(rows(&doc), [("", "empty", 1, 1)]);

        // The body after the front matter is empty, so the title stands in for it.
        let doc = chunk_document("x.md", "---\ntitle: Only\n---\n");
        assert_eq!(rows(&doc), [("", "Only", 4, 4)]);
        // With no line after the front matter, the range is its closing line.
        let doc = chunk_document("x.md", "---\ntitle: Only\n---");
        assert_eq!(rows(&doc), [("", "Only", 3, 3)]);
    }

    /// Found by `chunker::props`: the one chunk of a file that is front matter alone said lines
    /// 4-4 of a 3-line file.
    #[test]
    fn a_file_of_front_matter_alone_has_its_chunk_inside_it() {
        let doc = chunk_document("notes/x.md", "---\n\n---");
        assert_eq!(rows(&doc), [("", "x", 3, 3)]);
    }

    #[test]
    fn crlf_and_cr_chunk_like_lf() {
        let lf = chunk_document("ops/backups.md", BACKUPS);
        let crlf = chunk_document("ops/backups.md", &BACKUPS.replace('\n', "\r\n"));
        let cr = chunk_document("ops/backups.md", &BACKUPS.replace('\n', "\r"));
        assert_eq!(crlf, lf);
        assert_eq!(cr, lf);

        let source = "---\ntitle: T\ntags: [a]\n---\n\nText.\n";
        let lf = chunk_document("x.md", source);
        assert_eq!(chunk_document("x.md", &source.replace('\n', "\r\n")), lf);
        assert_eq!(rows(&lf), [("", "Text.", 6, 6)]);
    }

    #[test]
    fn title_precedence() {
        let title = |path: &str, source: &str| chunk_document(path, source).title;
        assert_eq!(title("x.md", "---\ntitle: 'Single'\n---\n# H1\nx"), "Single");
        assert_eq!(title("x.md", "---\ntitle: \"Double\"\n---\n# H1\nx"), "Double");
        assert_eq!(title("x.md", "---\ntitle:  Plain words  \n---\n# H1\nx"), "Plain words");
        assert_eq!(title("x.md", "---\ntitle: \"\"\n---\n# H1\nx"), "H1");
        assert_eq!(title("x.md", "---\ntags: [a]\n---\n## Sub\n# First\n# Second"), "First");
        assert_eq!(title("notes/todo-list.md", "Just text."), "todo-list");
        assert_eq!(title("a.tar.md", "x"), "a.tar");
        assert_eq!(title("dir/.hidden", "x"), ".hidden");
        // Read by regex, so a title survives YAML that does not parse.
        assert_eq!(title("x.md", "---\ntitle: Broken\ntags: [a\n---\n# H1"), "Broken");
    }

    #[test]
    fn breadcrumb_cases() {
        assert_eq!(breadcrumb("Backups", ""), "Backups");
        assert_eq!(breadcrumb("Backups", "Backups"), "Backups");
        assert_eq!(breadcrumb("Backups", "Backups › Restore"), "Backups › Restore");
        assert_eq!(breadcrumb("Runbook", "Restore"), "Runbook › Restore");
        assert_eq!(breadcrumb("Back", "Backups › Restore"), "Back › Backups › Restore");
    }

    #[test]
    fn embedding_text_leads_with_the_breadcrumb() {
        let chunk = Chunk {
            index: 0,
            heading: "T › H".to_owned(),
            text: "body".to_owned(),
            line_start: 1,
            line_end: 1,
        };
        assert_eq!(embedding_text("T", &chunk), "T › H\n\nbody");
        assert_eq!(embedding_text("Doc", &chunk), "Doc › T › H\n\nbody");
    }

    #[test]
    fn document_meta_is_the_same_as_read_document_meta() {
        let source = "---\ntags: [Ops]\nsupersedes: old.md\n---\n# T\n\nText #inline.";
        let doc = chunk_document("notes/new.md", source);
        assert_eq!(doc.meta, frontmatter::read_document_meta("notes/new.md", source));
        assert_eq!(doc.meta.tags, ["ops", "inline"]);
        assert_eq!(doc.meta.supersedes, ["notes/old.md"]);
    }

    #[test]
    fn malformed_yaml_still_chunks() {
        let doc = chunk_document("x.md", "---\ntags: [a\n: :\n---\n# H\n\nText.");
        assert_eq!(doc.title, "H");
        assert_eq!(rows(&doc), [("H", "Text.", 7, 7)]);
        assert!(doc.meta.tags.is_empty());
    }
}
