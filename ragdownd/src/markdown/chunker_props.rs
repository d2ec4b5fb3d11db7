//! Property tests of the chunker, and the generated Markdown that the other property tests of
//! `markdown` and `documents` feed their functions too.
//!
//! The generators make three kinds of text: arbitrary strings, a soup of Markdown's syntax tokens
//! (fences, brackets, `---`, backticks, every line ending) glued together with no structure, and
//! Markdown-shaped documents: optional front matter, then headings, lists, tables, fences,
//! indented code, links and long lines, with `\n`, `\r\n` and lone `\r` endings mixed. Failing
//! inputs are saved under `proptest-regressions/` and replayed first on every run.

use proptest::prelude::*;
use proptest::sample::select;

use super::*;

/// What goes inside a line: words, unicode that is not one byte wide (a combining accent, a
/// byte-order mark, a no-break space, an emoji outside the BMP), links of both kinds, and the
/// loose punctuation that parsers trip on.
const INLINE: &[&str] = &[
    "word",
    "Ünïcödé",
    "日本語",
    "🦀",
    "e\u{301}",
    "\u{feff}",
    "\u{a0}",
    " ",
    "\t",
    "`",
    "``",
    "`code`",
    "[[",
    "]]",
    "[[Note]]",
    "[[Plan#Goals|the plan]]",
    "![[img.png]]",
    "[[#Local]]",
    "[[Note\\|shown]]",
    "[[a#^block]]",
    "[t](a.md)",
    "[t](../b.md#Sec)",
    "![alt](img/a.png)",
    "[x](<c d.md> \"title\")",
    "[x](my%20note.md)",
    "[x](bad%zz.md)",
    "[![i](a.png)](b.md)",
    "[",
    "]",
    "(",
    ")",
    "|",
    "#",
    "#tag",
    "#Tag/sub/",
    "#123",
    "\\",
    "%",
    "*",
    "_",
    ":",
    "---",
    "<",
    ">",
];

/// How a line starts: prose, ATX headings (too many `#`s, no space, indented), list items,
/// quotes, indented code, fences of both characters and several lengths, table rows, and YAML.
const PREFIXES: &[&str] = &[
    "",
    "",
    "",
    "",
    "# ",
    "## ",
    "### ",
    "###### ",
    "####### ",
    "#",
    "   # ",
    "    # ",
    "- ",
    "* ",
    "+ ",
    "1. ",
    "2) ",
    "\t- ",
    "    - ",
    "> ",
    "    ",
    "\t",
    "```",
    "```rust",
    "````",
    "~~~",
    "~~~~",
    "   ```",
    "| ",
    "|---|:-:|",
    "---",
    "...",
    "title: ",
    "tags: ",
    "aliases: ",
    "- ",
];

/// Line endings, mostly `\n`.
fn ending() -> impl Strategy<Value = &'static str> {
    prop_oneof![6 => Just("\n"), 2 => Just("\r\n"), 1 => Just("\r")]
}

/// One line of Markdown-shaped text, its ending included (or not, for the last line).
fn line() -> impl Strategy<Value = String> {
    let inline = prop::collection::vec((select(&["", " "][..]), select(INLINE)), 0..8);
    let long = (select(&["lorem ", "ü", "🦀 ", "x"][..]), 200..1_700usize);
    prop_oneof![
        8 => (select(PREFIXES), inline).prop_map(|(prefix, parts)| {
            let mut line = prefix.to_owned();
            for (gap, part) in parts {
                line.push_str(gap);
                line.push_str(part);
            }
            line
        }),
        2 => select(&["", "   ", "\t", "\u{feff}"][..]).prop_map(str::to_owned),
        1 => long.prop_map(|(word, count)| word.repeat(count)),
    ]
}

/// YAML lines for front matter: scalars, lists, maps, tags, anchors and aliases, block scalars,
/// and some that are not YAML at all.
const YAML: &[&str] = &[
    "title: Doc",
    "title: \"Quoted\"",
    "title: ''",
    "tags: [Ops, backup/]",
    "tags: one, two three",
    "tags:",
    "  - Ops",
    "  - 2024",
    "aliases: [DR, \"Disaster, recovery\"]",
    "aliases: Single",
    "description: >",
    "  folded   text",
    "description: |",
    "supersedes: ../old.md, /etc/passwd, ../../out.md",
    "supersedes: [a.md, ./b.md]",
    "created_by: ragdown ",
    "session: 1234",
    "key: {a: 1, b: [2, 3]}",
    "anchor: &a [x, y]",
    "alias: *a",
    "tagged: !!str 12",
    "tags: !custom [a]",
    "bad: [unclosed",
    ": :",
    "  indented: key",
    "- list at top",
    "\"quoted key\": 1",
    "? complex",
    "~",
    "tags: [[nested, [deeper]]]",
];

/// A Markdown-shaped document: front matter (closed, or left open) about half the time, then
/// Markdown-shaped lines.
pub(crate) fn markdown() -> impl Strategy<Value = String> {
    let front = prop::option::of((
        prop::collection::vec((select(YAML), ending()), 0..8),
        select(&["---", "...", "--- ", ""][..]),
        ending(),
    ));
    let lines = prop::collection::vec((line(), ending()), 0..40);
    (front, lines, any::<bool>()).prop_map(|(front, lines, last_ending)| {
        let mut text = String::new();
        if let Some((yaml, close, close_ending)) = front {
            text.push_str("---\n");
            for (line, end) in yaml {
                text.push_str(line);
                text.push_str(end);
            }
            text.push_str(close);
            text.push_str(close_ending);
        }
        let count = lines.len();
        for (index, (line, end)) in lines.into_iter().enumerate() {
            text.push_str(&line);
            if index + 1 < count || last_ending {
                text.push_str(end);
            }
        }
        text
    })
}

/// Markdown's tokens with no structure at all: what a parser meets when a file is cut short,
/// two files are concatenated, or someone types at random.
pub(crate) fn token_soup() -> impl Strategy<Value = String> {
    const SOUP: &[&str] = &[
        "\n", "\n", "\r\n", "\r", "---", "...", "```", "~~~", "    ", "\t", "#", "# ", "[[", "]]", "[", "]", "(", ")",
        "<", ">", "!", "|", "\\", "`", "%", "%2", "%20", "^", "-", "* ", "1. ", "a", "b.md", "../", "./", "/", ":",
        "title: ", "tags: ", "\u{feff}", "ü", "🦀", "e\u{301}", " ", "\"", "'",
    ];
    prop::collection::vec(select(SOUP), 0..200).prop_map(|tokens| tokens.concat())
}

/// Any of the three kinds of text.
pub(crate) fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), token_soup(), markdown()]
}

/// How many lines `source` has when lines end at `\r\n`, `\n` or a lone `\r`: one more than it
/// has line endings, so a text that ends with a newline has an empty last line.
pub(crate) fn line_count(source: &str) -> usize {
    source.replace("\r\n", "\n").split(['\n', '\r']).count()
}

/// Whether the lines of `text` are each part of a line of `lines`, in order, each of a different
/// line: what a chunk's text must be, since it is cut from the lines its range names.
fn drawn_in_order_from(text: &str, lines: &[&str]) -> bool {
    let mut rest = lines.iter();
    text.split('\n').all(|part| rest.any(|line| line.contains(part)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Every chunk's lines lie inside the file, the chunks come in file order with their indexes,
    /// and each chunk's text is cut from the lines its range names.
    #[test]
    fn chunks_stay_inside_the_file(source in any_text(), path in select(&["notes/x.md", "x", ".hidden", ""][..])) {
        let doc = chunk_document(path, &source);
        let normalised = source.replace("\r\n", "\n");
        let lines: Vec<&str> = normalised.split(['\n', '\r']).collect();
        prop_assert!(!doc.chunks.is_empty());
        let mut previous_end = 1;
        for (index, chunk) in doc.chunks.iter().enumerate() {
            prop_assert_eq!(chunk.index, index);
            prop_assert!(
                1 <= chunk.line_start && chunk.line_start <= chunk.line_end && chunk.line_end <= lines.len(),
                "chunk {} has lines {}-{} in a file of {} lines", index, chunk.line_start, chunk.line_end, lines.len()
            );
            prop_assert!(previous_end <= chunk.line_start, "chunk {} starts before the one before it ends", index);
            previous_end = chunk.line_end;
            // A document with no text under any heading is one chunk that holds its title.
            let stands_in_for_nothing = doc.chunks.len() == 1 && chunk.text == doc.title;
            if !stands_in_for_nothing {
                let range = &lines[chunk.line_start - 1..chunk.line_end];
                prop_assert!(
                    drawn_in_order_from(&chunk.text, range),
                    "chunk {} text {:?} is not drawn from its lines {:?}", index, chunk.text, range
                );
            }
        }
    }

    /// The line ending never matters: CRLF and lone CR chunk exactly like LF.
    #[test]
    fn line_endings_do_not_change_the_chunks(source in markdown()) {
        let lf = source.replace("\r\n", "\n").replace('\r', "\n");
        let expected = chunk_document("x.md", &lf);
        prop_assert_eq!(chunk_document("x.md", &lf.replace('\n', "\r\n")), expected.clone());
        prop_assert_eq!(chunk_document("x.md", &source), expected);
    }
}
