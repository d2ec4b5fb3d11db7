//! Finding links in a source: splitting it into lines as the chunker counts them, telling code
//! (fenced, indented, inline spans) from prose, and parsing `[[wikilinks]]` and inline
//! `[text](destination "title")` links out of each prose line.
//!
//! It only finds: where a link points is [`super::resolve`]'s question.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{Link, LinkKind, SCHEME, heading_name, percent_decode};
use crate::markdown::{Fences, is_blank, mask_code_spans};

/// `[[…]]` or `![[…]]`: the inside holds no bracket and no line break.
static WIKILINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"!?\[\[([^\[\]\n]+)\]\]").expect("valid wikilink regex"));

/// A list item's marker at the start of a line's content.
static LIST_ITEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[-*+]|\d{1,9}[.)])(?:\s|$)").expect("valid list regex"));

/// The start of an ATX heading line, name or not.
static HEADING_START: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^#{1,6}(?:\s|$)").expect("valid heading regex"));

/// Every wikilink and every relative Markdown link in `source`, in order.
///
/// Links in fenced code (```` ``` ```` and `~~~`), indented code blocks and inline code spans are
/// left out, as a renderer leaves them. So are Markdown links to URLs (anything with a scheme,
/// `mailto:` included), to absolute paths, and to a bare `#anchor`. Reference-style links and
/// `<autolinks>` are not looked for.
pub fn find_links(source: &str) -> Vec<Link> {
    let mut links = Vec::new();
    let mut code = CodeBlocks::default();
    for (index, (start, line)) in source_lines(source).enumerate() {
        if code.is_code(line) {
            continue;
        }
        let masked = mask_code_spans(line);
        let first = links.len();
        wikilinks_in(line, &masked, start, index + 1, &mut links);
        let wiki: Vec<Range<usize>> = links[first..].iter().map(|link| link.range.clone()).collect();
        markdown_links_in(&masked, start, index + 1, &wiki, &mut links);
        links[first..].sort_by_key(|link| link.range.start);
    }
    links
}

/// The lines of `source` with the byte offset each starts at. A line ends at `\r\n`, `\n` or a
/// lone `\r`, as `normalise_newlines` has it, so line numbers agree with the chunker's.
fn source_lines(source: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = source.as_bytes();
    let mut start = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let line_start = start;
        match bytes[line_start..].iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(offset) => {
                let end = line_start + offset;
                let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
                start = end + if crlf { 2 } else { 1 };
                Some((line_start, &source[line_start..end]))
            }
            None => {
                done = true;
                Some((line_start, &source[line_start..]))
            }
        }
    })
}

/// Tracks which lines are code: fenced, or an indented code block.
///
/// An indented code block (four columns of indent) cannot interrupt a paragraph, and inside a
/// list indented lines are the items' content. Without those two rules a tab-indented nested
/// list, which is how Obsidian writes one, would hide its links.
#[derive(Debug, Default)]
struct CodeBlocks {
    fences: Fences,
    /// The previous non-blank line was in an indented code block.
    in_indented: bool,
    /// The previous line was paragraph (or list item) text, which indented text continues.
    in_paragraph: bool,
    /// A list has started and no unindented text after a blank line has ended it yet.
    in_list: bool,
    /// The previous line was blank.
    after_blank: bool,
}

impl CodeBlocks {
    /// Feeds the next line and says whether it is code.
    fn is_code(&mut self, line: &str) -> bool {
        if self.fences.observe(line) || self.fences.is_open() {
            self.in_indented = false;
            self.in_paragraph = false;
            self.after_blank = false;
            return true;
        }
        if is_blank(line) {
            self.in_paragraph = false;
            self.after_blank = true;
            return false;
        }
        let after_blank = std::mem::replace(&mut self.after_blank, false);
        if indent_columns(line) >= 4 {
            if self.in_indented || (!self.in_paragraph && !self.in_list) {
                self.in_indented = true;
                return true;
            }
            self.in_paragraph = true;
            return false;
        }
        self.in_indented = false;
        let content = line.trim_start();
        if LIST_ITEM.is_match(content) {
            self.in_list = true;
            self.in_paragraph = true;
        } else if HEADING_START.is_match(content) {
            self.in_list = false;
            self.in_paragraph = false;
        } else {
            if after_blank && content.len() == line.len() {
                self.in_list = false;
            }
            self.in_paragraph = true;
        }
        false
    }
}

/// Leading indent in columns, a tab reaching the next multiple of four.
fn indent_columns(line: &str) -> usize {
    let mut columns = 0;
    for byte in line.bytes() {
        match byte {
            b' ' => columns += 1,
            b'\t' => columns += 4 - columns % 4,
            _ => break,
        }
    }
    columns
}

/// Pushes the wikilinks of one line that starts at byte `offset`: found in `masked`, the line with
/// its code spans blanked, and read from `written`, the line itself.
///
/// A code span inside a wikilink (``[[a `b` c]]``) is part of its target as written, not blanks:
/// `masked` and `written` have the same length, and a wikilink's brackets, being outside spans,
/// are on character boundaries of both.
fn wikilinks_in(written: &str, masked: &str, offset: usize, line: usize, out: &mut Vec<Link>) {
    for caps in WIKILINK.captures_iter(masked) {
        let (Some(whole), Some(inner)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        let text = &written[inner.range()];
        let (before_alias, alias) = match text.split_once('|') {
            Some((before, alias)) => (before, Some(alias.trim()).filter(|alias| !alias.is_empty())),
            None => (text, None),
        };
        let before_alias = before_alias.strip_suffix('\\').unwrap_or(before_alias);
        let (raw_target, heading) = match before_alias.split_once('#') {
            Some((target, heading)) => (target, heading_name(heading)),
            None => (before_alias, None),
        };
        let target = raw_target.trim();
        let target_start = offset + inner.start() + (raw_target.len() - raw_target.trim_start().len());
        out.push(Link {
            kind: LinkKind::Wiki,
            target: target.to_owned(),
            heading: heading.map(str::to_owned),
            alias: alias.map(str::to_owned),
            line,
            range: offset + whole.start()..offset + whole.end(),
            target_range: target_start..target_start + target.len(),
            embed: whole.as_str().starts_with('!'),
        });
    }
}

/// Pushes the relative Markdown links of one line (code spans masked) that starts at byte
/// `offset`, skipping any that start inside one of the line's wikilinks (`wiki`, source offsets,
/// in order).
fn markdown_links_in(masked: &str, offset: usize, line: usize, wiki: &[Range<usize>], out: &mut Vec<Link>) {
    let bytes = masked.as_bytes();
    let mut wiki = wiki.iter().peekable();
    for (open, close) in bracket_pairs(bytes) {
        while wiki.next_if(|range| range.end <= offset + open).is_some() {}
        if wiki.peek().is_some_and(|range| range.start <= offset + open) {
            continue;
        }
        let Some((destination, end)) = inline_link_rest(bytes, close) else {
            continue;
        };
        let raw = &masked[destination.clone()];
        if raw.starts_with(['#', '/', '\\']) || SCHEME.is_match(raw) {
            continue;
        }
        let (path, fragment) = raw.split_once('#').unwrap_or((raw, ""));
        let embed = open > 0 && bytes[open - 1] == b'!';
        let start = if embed { open - 1 } else { open };
        out.push(Link {
            kind: LinkKind::Markdown,
            target: percent_decode(path).unwrap_or_else(|| path.to_owned()),
            heading: heading_name(fragment).map(|name| percent_decode(name).unwrap_or_else(|| name.to_owned())),
            alias: None,
            line,
            range: offset + start..offset + end,
            target_range: offset + destination.start..offset + destination.start + path.len(),
            embed,
        });
    }
}

/// Each `[` of the line with its matching `]`, in order of the `[`; backslash-escaped brackets
/// do not count. Pairing them in one pass keeps a line full of brackets linear, and lets link
/// text hold balanced brackets (`[![img](a.png)](b.md)`), as CommonMark allows.
fn bracket_pairs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut open = Vec::new();
    let mut pairs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => open.push(i),
            b']' => {
                if let Some(start) = open.pop() {
                    pairs.push((start, i));
                }
            }
            _ => {}
        }
        i += 1;
    }
    pairs.sort_unstable();
    pairs
}

/// Parses the rest of an inline link `[text](destination "title")` whose text ends with the `]`
/// at `close`: the destination's byte range (inside `<…>` when bracketed) and the end of the link
/// (after `)`). A bare destination may hold balanced parentheses; nothing spans lines.
fn inline_link_rest(bytes: &[u8], close: usize) -> Option<(Range<usize>, usize)> {
    let mut i = close + 1;
    if *bytes.get(i)? != b'(' {
        return None;
    }
    i = skip_spaces(bytes, i + 1);
    let destination = if *bytes.get(i)? == b'<' {
        let start = i + 1;
        i = start;
        loop {
            match *bytes.get(i)? {
                b'>' => break,
                b'<' => return None,
                b'\\' => i += 1,
                _ => {}
            }
            i += 1;
        }
        i += 1;
        start..i - 1
    } else {
        let start = i;
        let mut parens = 0;
        while let Some(&byte) = bytes.get(i) {
            match byte {
                b'\\' => i += 1,
                b'(' => parens += 1,
                b')' if parens == 0 => break,
                b')' => parens -= 1,
                byte if byte.is_ascii_whitespace() || byte.is_ascii_control() => break,
                _ => {}
            }
            i += 1;
        }
        if i > bytes.len() {
            return None;
        }
        start..i
    };
    if destination.is_empty() {
        return None;
    }
    let destination_end = i;
    i = skip_spaces(bytes, i);
    // A title must be set off from the destination by whitespace.
    if i > destination_end {
        let close = match bytes.get(i) {
            Some(b'"') => Some(b'"'),
            Some(b'\'') => Some(b'\''),
            Some(b'(') => Some(b')'),
            _ => None,
        };
        if let Some(close) = close {
            i += 1;
            loop {
                match *bytes.get(i)? {
                    b'\\' => i += 1,
                    byte if byte == close => break,
                    _ => {}
                }
                i += 1;
            }
            i = skip_spaces(bytes, i + 1);
        }
    }
    (*bytes.get(i)? == b')').then_some((destination, i + 1))
}

/// The first position at or after `i` that is not a space or a tab.
fn skip_spaces(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}
#[cfg(test)]
mod tests {
    use super::*;

    /// (kind, target, heading, alias, line, embed) of a link.
    type Summary = (LinkKind, String, Option<String>, Option<String>, usize, bool);

    fn summary(source: &str) -> Vec<Summary> {
        find_links(source)
            .into_iter()
            .map(|link| (link.kind, link.target, link.heading, link.alias, link.line, link.embed))
            .collect()
    }

    fn targets(source: &str) -> Vec<String> {
        find_links(source).into_iter().map(|link| link.target).collect()
    }

    #[test]
    fn cjk_wikilinks_are_found_with_their_parts() {
        let source = "另见[[数据库备份]]和 [[ja/障害対応#手順|表示]]。\n詳しくは![[図.png]]を参照。";
        assert_eq!(
            summary(source),
            [
                (LinkKind::Wiki, "数据库备份".into(), None, None, 1, false),
                (
                    LinkKind::Wiki,
                    "ja/障害対応".into(),
                    Some("手順".into()),
                    Some("表示".into()),
                    1,
                    false
                ),
                (LinkKind::Wiki, "図.png".into(), None, None, 2, true),
            ]
        );
        let link = &find_links(source)[0];
        assert_eq!(&source[link.range.clone()], "[[数据库备份]]");
        assert_eq!(&source[link.target_range.clone()], "数据库备份");
    }

    #[test]
    fn wikilink_parts_and_ranges() {
        let source = "See [[Plan#Goals|the plan]] and ![[image.png]] and [[ Spaced ]] and [[#Local]].";
        let links = find_links(source);
        assert_eq!(
            summary(source),
            [
                (
                    LinkKind::Wiki,
                    "Plan".into(),
                    Some("Goals".into()),
                    Some("the plan".into()),
                    1,
                    false
                ),
                (LinkKind::Wiki, "image.png".into(), None, None, 1, true),
                (LinkKind::Wiki, "Spaced".into(), None, None, 1, false),
                (LinkKind::Wiki, String::new(), Some("Local".into()), None, 1, false),
            ]
        );
        assert_eq!(&source[links[0].range.clone()], "[[Plan#Goals|the plan]]");
        assert_eq!(&source[links[0].target_range.clone()], "Plan");
        assert_eq!(&source[links[1].range.clone()], "![[image.png]]");
        assert_eq!(&source[links[2].target_range.clone()], "Spaced");
        assert!(links[3].target_range.is_empty());
    }

    #[test]
    fn table_escaped_pipe_and_block_references() {
        let links = find_links("| [[Note\\|shown]] | [[Other#^abc123]] |");
        assert_eq!(links[0].target, "Note");
        assert_eq!(links[0].alias.as_deref(), Some("shown"));
        assert_eq!(links[1].target, "Other");
        assert_eq!(links[1].heading, None);
    }

    #[test]
    fn markdown_links_relative_only() {
        let source = "Also [kafka](../notes/Kafka.md#Set%20up), [web](https://x.test/a.md), \
                      [mail](mailto:a@b.c), [top](#top), [abs](/etc/passwd.md), [](), \
                      [sp](my%20note.md \"title\"), [ang](<other note.md>) and ![alt](img/a.png).";
        let links = find_links(source);
        assert_eq!(
            summary(source),
            [
                (
                    LinkKind::Markdown,
                    "../notes/Kafka.md".into(),
                    Some("Set up".into()),
                    None,
                    1,
                    false
                ),
                (LinkKind::Markdown, "my note.md".into(), None, None, 1, false),
                (LinkKind::Markdown, "other note.md".into(), None, None, 1, false),
                (LinkKind::Markdown, "img/a.png".into(), None, None, 1, true),
            ]
        );
        assert_eq!(&source[links[0].range.clone()], "[kafka](../notes/Kafka.md#Set%20up)");
        assert_eq!(&source[links[0].target_range.clone()], "../notes/Kafka.md");
        assert_eq!(&source[links[1].target_range.clone()], "my%20note.md");
        assert_eq!(&source[links[1].range.clone()], "[sp](my%20note.md \"title\")");
        assert_eq!(&source[links[3].range.clone()], "![alt](img/a.png)");
    }

    #[test]
    fn markdown_link_syntax_edges() {
        assert_eq!(
            targets("[![img](a.png)](b.md)"),
            ["b.md", "a.png"],
            "the outer link starts first"
        );
        assert_eq!(targets("[x](Note(1).md)"), ["Note(1).md"]);
        assert_eq!(targets("\\[x](a.md) and [x] (b.md) and [x](c.md"), Vec::<String>::new());
        assert_eq!(
            targets("\\\\[x](a.md)"),
            ["a.md"],
            "an escaped backslash does not escape the bracket"
        );
        assert_eq!(
            targets("[x](bad%zz.md)"),
            ["bad%zz.md"],
            "an invalid escape is kept as written"
        );
        assert_eq!(
            targets("[[a]](b.md)"),
            ["a"],
            "the wikilink, and no Markdown link inside it"
        );
    }

    #[test]
    fn a_line_of_brackets_stays_linear() {
        // Scanning from every `[` to the end of the line, as a naive parser does, takes minutes.
        let line = format!("{}x](a.md)", "[".repeat(200_000));
        let started = std::time::Instant::now();
        assert_eq!(targets(&line), ["a.md"]);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn links_in_code_are_not_links() {
        let source = [
            "`[[span]]` and ``[x](double.md) ` `` and [[real]] and ``` [[unclosed]] ``",
            "```",
            "[[fenced]]",
            "```",
            "~~~~",
            "[[tilde]]",
            "```",
            "[[still tilde]]",
            "~~~~",
            "",
            "    [[indented]] [x](indented.md)",
            "\t[[tab indented]]",
            "",
            "Paragraph",
            "    [[continuation]]",
            "",
            "- item",
            "\t- [[nested]]",
            "",
            "    [[list paragraph]]",
            "",
            "After",
            "",
            "    [[code again]]",
            "# Heading",
            "    [[code after heading]]",
        ]
        .join("\n");
        assert_eq!(
            targets(&source),
            ["real", "unclosed", "continuation", "nested", "list paragraph"]
        );
    }

    /// Found by `links::props`: the target was read from the masked line, as `(     (`.
    #[test]
    fn a_code_span_inside_a_wikilink_is_part_of_its_target() {
        let source = "#[[(`~~~`(]] and [[Note `v2`#Goals]]";
        let links = find_links(source);
        assert_eq!(targets(source), ["(`~~~`(", "Note `v2`"]);
        assert_eq!(&source[links[0].target_range.clone()], "(`~~~`(");
        assert_eq!(links[1].heading.as_deref(), Some("Goals"));
    }

    #[test]
    fn crlf_and_lone_cr_lines() {
        let source = "# T\r\n\r\nSee [[a]]\r\n```\r\n[[b]]\r\n```\r\n[x](c.md)\rlast [[d]]";
        let links = find_links(source);
        let lines: Vec<usize> = links.iter().map(|link| link.line).collect();
        assert_eq!(lines, [3, 7, 8]);
        assert_eq!(&source[links[0].range.clone()], "[[a]]");
        assert_eq!(&source[links[1].range.clone()], "[x](c.md)");
        assert_eq!(&source[links[2].range.clone()], "[[d]]");
    }
}
