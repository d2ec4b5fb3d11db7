//! Obsidian links: finding `[[wikilinks]]` and relative Markdown links in a document's text,
//! resolving them within one folder the way Obsidian does, rewriting them when a document or a
//! subfolder moves, and finding the section that `Note#Heading` names.
//!
//! This module owns what counts as a link and where it points; backlinks, `ragdown_read_doc`'s
//! wikilink targets, link following in search and `ragdown_move` all ask it. It is pure: it never
//! reads the file system or the index. Callers hand it text and the folder's root-relative posix
//! paths (with aliases), and get plain values back. Behaviour follows the original's
//! `src/documents/links.ts`, `headings.ts` and the rewrite half of `move.ts`.
//!
//! Text inside code is never a link: fenced blocks (the same `Fences` rule the chunker uses),
//! indented code blocks, and inline code spans.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{Fences, is_blank};

/// A Markdown document's extension, as the original's `MARKDOWN` pattern has it.
static MARKDOWN_EXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\.(md|markdown|mdx)$").expect("valid extension regex"));

/// `[[…]]` or `![[…]]`: the inside holds no bracket and no line break.
static WIKILINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"!?\[\[([^\[\]\n]+)\]\]").expect("valid wikilink regex"));

/// An ATX heading: its `#`s and its name without closing `#`s (the chunker's rule).
static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$").expect("valid heading regex"));

/// A URL scheme (`https:`, `mailto:`, `obsidian:`): such a link leaves the folder.
static SCHEME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9+.\-]*:").expect("valid scheme regex"));

/// A list item's marker at the start of a line's content.
static LIST_ITEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[-*+]|\d{1,9}[.)])(?:\s|$)").expect("valid list regex"));

/// The start of an ATX heading line, name or not.
static HEADING_START: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^#{1,6}(?:\s|$)").expect("valid heading regex"));

/// Which syntax a link was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// `[[target#heading|alias]]` or the embed `![[target]]`.
    Wiki,
    /// `[text](relative/path.md#fragment)` or the image `![alt](relative/path.png)`.
    Markdown,
}

/// One link found in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The syntax it was written in.
    pub kind: LinkKind,
    /// Where it points. A wikilink's target as written (trimmed), without `#heading` and `|alias`;
    /// a Markdown link's path percent-decoded (as written when it is not valid percent-encoding),
    /// without `#fragment`. Empty for `[[#Heading]]`, a link into the same document.
    pub target: String,
    /// The heading after `#` (a Markdown fragment percent-decoded). `None` when there is none, and
    /// for an Obsidian block reference (`#^id`), which names no heading.
    pub heading: Option<String>,
    /// A wikilink's display text after `|`; always `None` for a Markdown link.
    pub alias: Option<String>,
    /// The 1-based line the link is on. Lines end at `\r\n`, `\n` or a lone `\r`, as the chunker
    /// counts them.
    pub line: usize,
    /// Byte range of the whole link in the source, `!` included: `[[a|b]]`, `[t](a.md)`.
    pub range: Range<usize>,
    /// Byte range of the target as written in the source (still percent-encoded for a Markdown
    /// link), which is what a rewrite replaces so that heading, alias and title survive.
    pub target_range: Range<usize>,
    /// Whether it embeds rather than links: `![[…]]` or `![alt](…)`.
    pub embed: bool,
}

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
        wikilinks_in(&masked, start, index + 1, &mut links);
        let wiki: Vec<Range<usize>> = links[first..].iter().map(|link| link.range.clone()).collect();
        markdown_links_in(&masked, start, index + 1, &wiki, &mut links);
        links[first..].sort_by_key(|link| link.range.start);
    }
    links
}

/// A document as resolution needs it: root-relative posix path and aliases.
///
/// An attachment (an image, a PDF) may be passed too, with no aliases, so that `![[diagram.png]]`
/// resolves; it is matched by its whole file name.
#[derive(Debug, Clone, Copy)]
pub struct LinkTarget<'a> {
    /// Relative to the folder root, `/`-separated, e.g. `ops/backups.md`.
    pub path: &'a str,
    /// The front matter `aliases`.
    pub aliases: &'a [String],
}

/// The target and heading of a wikilink written as `[[Note#Heading|shown]]`, `![[Note]]` or the
/// bare inside, `Note#Heading`: what `ragdown_read_doc` gets as a path. The heading is `None`
/// when absent, empty, or a block reference (`^id`).
pub fn split_wikilink(raw: &str) -> (&str, Option<&str>) {
    let mut text = raw.trim();
    if let Some(inner) = text.strip_prefix("!").unwrap_or(text).strip_prefix("[[")
        && let Some(inner) = inner.strip_suffix("]]")
    {
        text = inner;
    }
    let before_alias = text.split('|').next().unwrap_or_default();
    // Inside a table a wikilink is written `[[Note\|shown]]`, so the `\` belongs to the `|`.
    let before_alias = before_alias.strip_suffix('\\').unwrap_or(before_alias);
    match before_alias.split_once('#') {
        Some((target, heading)) => (target.trim(), heading_name(heading)),
        None => (before_alias.trim(), None),
    }
}

/// Resolves a wikilink target as Obsidian does, within `documents` (all Markdown docs of one
/// folder, root-relative paths), returning the document's path:
///
/// 1. an exact path: the target, or the target + `.md`, relative to the folder root, then
///    relative to the linking document's directory; case-sensitive first, then ignoring case;
/// 2. a document with that name (path without extension, or whole path, matched case-insensitively
///    on the trailing path segments, so `sub/Note` works) in the linking document's directory;
/// 3. the shortest path among those matching by name (ties: alphabetical);
/// 4. a document with an alias equal to the target, ignoring case (ties as for names).
///
/// `from` is the linking document's path. The target may also be a whole link (`Note#Heading`,
/// `[[Note|shown]]`): the heading and alias are ignored. Backslashes count as `/`, valid `%20`
/// escapes are decoded, and an empty target (`[[#Heading]]`) is `from` itself when it is among
/// `documents`. A target that climbs out of the root resolves to nothing.
pub fn resolve_wikilink<'a>(target: &str, from: &str, documents: &[LinkTarget<'a>]) -> Option<&'a str> {
    resolve_index(target, from, documents).map(|index| documents[index].path)
}

/// Resolves a relative Markdown link (percent-decoded) against the linking document's directory,
/// normalising `.`, `..` and repeated slashes; `None` when it climbs out of the root, is absolute,
/// or names the root itself. Whether anything is at that path is the caller's question.
pub fn resolve_relative(target: &str, from: &str) -> Option<String> {
    let target = target.replace('\\', "/");
    // Checked before joining, which would otherwise make `/etc/passwd` relative to `from`.
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for segment in dirname(from).split('/').chain(target.split('/')) {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Rewrites the links in `source`, a document that was at `doc_path` before the move, so that
/// each still points where it pointed before `moved_from` moved to `moved_to`; `None` when nothing
/// changed. With `is_dir`, `moved_from` and `moved_to` are directories and everything under them
/// moved along.
///
/// This covers links to what moved, a moved document's own relative links to what stayed, and a
/// wikilink that the move would silently retarget (a moved `Plan.md` shadowing the `Plan` it used
/// to mean). Markdown links get the relative path from the linking document's new directory,
/// percent-encoded like JavaScript's `encodeURI` plus `(`, `)` and `#`, keeping a `#fragment`
/// and a leading `./`. Wikilinks get the shortest trailing part of the new path (without `.md`
/// unless the link had it) that resolves there among `documents_after`, the folder's documents
/// after the move, keeping `#heading` and `|alias`. Links that resolved to nothing are left alone.
pub fn rewrite_for_move(
    source: &str,
    doc_path: &str,
    moved_from: &str,
    moved_to: &str,
    is_dir: bool,
    documents_after: &[LinkTarget<'_>],
) -> Option<String> {
    let the_move = Move {
        from: moved_from.trim_end_matches('/'),
        to: moved_to.trim_end_matches('/'),
        is_dir,
    };
    // The list before the move is the list after it with the move undone: nothing was at
    // `moved_to` before (a move never overwrites), so undoing it is unambiguous.
    let paths_before: Vec<Cow<'_, str>> = documents_after
        .iter()
        .map(|document| the_move.undo(document.path))
        .collect();
    let before: Vec<LinkTarget<'_>> = paths_before
        .iter()
        .zip(documents_after)
        .map(|(path, document)| LinkTarget {
            path,
            aliases: document.aliases,
        })
        .collect();
    let at = the_move.apply(doc_path);

    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for link in find_links(source) {
        let replacement = match link.kind {
            LinkKind::Wiki => {
                let Some(was) = resolve_wikilink(&link.target, doc_path, &before) else {
                    continue;
                };
                let want = the_move.apply(was);
                if resolve_wikilink(&link.target, &at, documents_after) == Some(&*want) {
                    continue;
                }
                let keep_extension = MARKDOWN_EXT.is_match(&link.target);
                shortest_wikilink(&want, keep_extension, &at, documents_after)
            }
            LinkKind::Markdown => {
                let Some(was) = resolve_relative(&link.target, doc_path) else {
                    continue;
                };
                let want = the_move.apply(&was);
                if resolve_relative(&link.target, &at).as_deref() == Some(&*want) {
                    continue;
                }
                let mut path = relative_path(dirname(&at), &want);
                if source[link.target_range.clone()].starts_with("./") && !path.starts_with("../") {
                    path.insert_str(0, "./");
                }
                encode_link_path(&path)
            }
        };
        edits.push((link.target_range, replacement));
    }

    let mut out = String::with_capacity(source.len());
    let mut copied = 0;
    for (range, text) in edits {
        // Targets of distinct links never overlap; the check only keeps a surprise from
        // corrupting the text.
        if range.start < copied {
            continue;
        }
        out.push_str(&source[copied..range.start]);
        out.push_str(&text);
        copied = range.end;
    }
    out.push_str(&source[copied..]);
    (out != source).then_some(out)
}

/// The section under a heading: `(start_line, end_line)`, 1-based and inclusive, from the heading
/// line to the line before the next heading of the same or higher level (or the last line).
///
/// Matched case-insensitively on the last `#`-separated part of `anchor`, so `A#B` names `B`.
/// Headings in fenced code do not count. `None` when no heading matches.
pub fn heading_range(lines: &[&str], anchor: &str) -> Option<(usize, usize)> {
    let wanted = anchor.rsplit('#').next().unwrap_or_default().trim().to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let mut fences = Fences::default();
    let mut open: Option<(usize, usize)> = None;
    for (index, line) in lines.iter().enumerate() {
        if fences.observe(line) || fences.is_open() {
            continue;
        }
        let Some(caps) = HEADING.captures(line) else {
            continue;
        };
        let level = caps[1].len();
        match open {
            None if caps[2].trim().to_lowercase() == wanted => open = Some((index + 1, level)),
            Some((start, open_level)) if level <= open_level => return Some((start, index)),
            _ => {}
        }
    }
    open.map(|(start, _)| (start, lines.len()))
}

/// A move of one document, or of a directory and everything under it.
struct Move<'a> {
    from: &'a str,
    to: &'a str,
    is_dir: bool,
}

impl Move<'_> {
    /// Where `path` is after the move.
    fn apply<'p>(&self, path: &'p str) -> Cow<'p, str> {
        relocate(path, self.from, self.to, self.is_dir)
    }

    /// Where `path`, a path after the move, was before it.
    fn undo<'p>(&self, path: &'p str) -> Cow<'p, str> {
        relocate(path, self.to, self.from, self.is_dir)
    }
}

/// `path` with the document `from`, or the directory prefix `from/` when `is_dir`, replaced by `to`.
fn relocate<'p>(path: &'p str, from: &str, to: &str, is_dir: bool) -> Cow<'p, str> {
    if path == from {
        return Cow::Owned(to.to_owned());
    }
    match path.strip_prefix(from).filter(|rest| is_dir && rest.starts_with('/')) {
        Some(rest) => Cow::Owned(format!("{to}{rest}")),
        None => Cow::Borrowed(path),
    }
}

/// The wikilink target for `want` as seen from `from`: its shortest trailing path that resolves
/// there, falling back to the whole path.
fn shortest_wikilink(want: &str, keep_extension: bool, from: &str, documents: &[LinkTarget<'_>]) -> String {
    let bare = if MARKDOWN_EXT.is_match(want) && !keep_extension {
        strip_markdown(want)
    } else {
        want
    };
    let segments: Vec<&str> = bare.split('/').collect();
    (1..=segments.len())
        .map(|k| segments[segments.len() - k..].join("/"))
        .find(|candidate| resolve_wikilink(candidate, from, documents) == Some(want))
        .unwrap_or_else(|| bare.to_owned())
}

/// The index in `documents` that `raw` resolves to; see [`resolve_wikilink`].
fn resolve_index(raw: &str, from: &str, documents: &[LinkTarget<'_>]) -> Option<usize> {
    let target = normalise_target(split_wikilink(raw).0);
    if target.is_empty() {
        return documents.iter().position(|document| document.path == from);
    }
    let from_dir = dirname(from);

    let mut wanted = vec![target.clone()];
    if !from_dir.is_empty() {
        wanted.push(normalise_path(&format!("{from_dir}/{target}")));
    }
    let exact: Vec<String> = wanted
        .iter()
        .flat_map(|path| {
            if MARKDOWN_EXT.is_match(path) {
                vec![path.clone()]
            } else {
                vec![path.clone(), format!("{path}.md")]
            }
        })
        .collect();
    for path in &exact {
        if let Some(index) = documents.iter().position(|document| document.path == path) {
            return Some(index);
        }
    }
    for path in &exact {
        let path = path.to_lowercase();
        let found = documents
            .iter()
            .enumerate()
            .filter(|(_, document)| document.path.to_lowercase() == path)
            .min_by_key(|(_, document)| document.path);
        if let Some((index, _)) = found {
            return Some(index);
        }
    }

    let needle = target.to_lowercase();
    let suffix = format!("/{needle}");
    let names = |name: &str| {
        let name = name.to_lowercase();
        name == needle || name.ends_with(&suffix)
    };
    let by_name = documents
        .iter()
        .enumerate()
        .filter(|(_, document)| names(strip_markdown(document.path)) || names(document.path));
    if let Some(index) = nearest(by_name, from_dir) {
        return Some(index);
    }
    let by_alias = documents.iter().enumerate().filter(|(_, document)| {
        document
            .aliases
            .iter()
            .any(|alias| alias.trim().to_lowercase() == needle)
    });
    nearest(by_alias, from_dir)
}

/// Of several matches, the one in `from_dir`, else the shortest path, else the first
/// alphabetically.
fn nearest<'d, 'a: 'd>(matches: impl Iterator<Item = (usize, &'d LinkTarget<'a>)>, from_dir: &str) -> Option<usize> {
    matches
        .min_by(|(_, a), (_, b)| {
            let key = |path: &str| (dirname(path) != from_dir, path.chars().count());
            key(a.path).cmp(&key(b.path)).then_with(|| a.path.cmp(b.path))
        })
        .map(|(index, _)| index)
}

/// A wikilink target as a root-relative path: `/`-separated, valid `%xx` escapes decoded,
/// `.` and `..` folded, without a leading `/` or `./`.
fn normalise_target(target: &str) -> String {
    let slashed = target.trim().replace('\\', "/");
    let decoded = percent_decode(&slashed).unwrap_or(slashed);
    normalise_path(&decoded)
}

/// `path` with empty and `.` segments dropped and `..` folded where it can be; a `..` that climbs
/// above the start is kept, so such a path matches no document.
fn normalise_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            name => parts.push(name),
        }
    }
    parts.join("/")
}

/// The directory part of a root-relative path; empty at the root.
fn dirname(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The path without its Markdown extension.
fn strip_markdown(path: &str) -> &str {
    MARKDOWN_EXT.find(path).map_or(path, |ext| &path[..ext.start()])
}

/// The path from directory `from_dir` to `to`, as Node's `path.posix.relative` gives it.
fn relative_path(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|part| !part.is_empty()).collect();
    let to: Vec<&str> = to.split('/').filter(|part| !part.is_empty()).collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts = vec![".."; from.len() - common];
    parts.extend(&to[common..]);
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Percent-encodes a path for a Markdown link like JavaScript's `encodeURI`, plus `(` and `)`,
/// which would end the link, and `#`, which would start a fragment.
fn encode_link_path(path: &str) -> String {
    const KEPT: &[u8] = b"-_.!~*';,/?:@&=+$";
    let mut out = String::with_capacity(path.len());
    for &byte in path.as_bytes() {
        if byte.is_ascii_alphanumeric() || KEPT.contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// Decodes `%xx` escapes like JavaScript's `decodeURIComponent`: `None` when an escape is
/// malformed or the bytes are not UTF-8, in which case the `%` was part of a name.
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A heading after `#`, trimmed; `None` when empty or a block reference.
fn heading_name(text: &str) -> Option<&str> {
    let text = text.trim();
    (!text.is_empty() && !text.starts_with('^')).then_some(text)
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

/// The line with each inline code span blanked to spaces, byte for byte, so offsets still hold.
///
/// Spans follow CommonMark: a run of `n` backticks opens one, the next run of exactly `n` closes
/// it, and a run with no closer is literal. The original's regex, ``/(`+)[^`]*?\1/g``, misses a
/// span that holds a shorter backtick run (two backticks, `a`, one backtick, `b`, two backticks)
/// and so would find links inside it. Spans do not continue onto the next line here.
fn mask_code_spans(line: &str) -> Cow<'_, str> {
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

/// Pushes the wikilinks of one line (code spans masked) that starts at byte `offset`.
fn wikilinks_in(masked: &str, offset: usize, line: usize, out: &mut Vec<Link>) {
    for caps in WIKILINK.captures_iter(masked) {
        let (Some(whole), Some(inner)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        let text = inner.as_str();
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

    fn docs<'a>(entries: &'a [(&'a str, Vec<String>)]) -> Vec<LinkTarget<'a>> {
        entries
            .iter()
            .map(|(path, aliases)| LinkTarget { path, aliases })
            .collect()
    }

    fn plain(paths: &[&'static str]) -> Vec<(&'static str, Vec<String>)> {
        paths.iter().map(|path| (*path, Vec::new())).collect()
    }

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

    /// The `backlinks_json` case of `expected.json`: what links to `ops/restore.md`, by line.
    #[test]
    fn backlinks_fixture() {
        let a = "# A\n\nSee [[restore]].\n\nAnd [[DR|disaster recovery]].\n";
        let b = "# B\n\n[steps](ops/restore.md) but `[[restore]]` is code.\n";
        let entries = vec![
            ("a.md", Vec::new()),
            ("b.md", Vec::new()),
            ("ops/restore.md", vec!["DR".to_owned()]),
            ("ops/backups.md", Vec::new()),
        ];
        let documents = docs(&entries);
        let backlinks = |path: &str, source: &str| -> Vec<(usize, String, LinkKind)> {
            let lines: Vec<&str> = source.lines().collect();
            find_links(source)
                .into_iter()
                .filter(|link| {
                    let resolved = match link.kind {
                        LinkKind::Wiki => resolve_wikilink(&link.target, path, &documents).map(str::to_owned),
                        LinkKind::Markdown => resolve_relative(&link.target, path),
                    };
                    resolved.as_deref() == Some("ops/restore.md")
                })
                .map(|link| (link.line, lines[link.line - 1].trim().to_owned(), link.kind))
                .collect()
        };
        assert_eq!(
            backlinks("a.md", a),
            [
                (3, "See [[restore]].".to_owned(), LinkKind::Wiki),
                (5, "And [[DR|disaster recovery]].".to_owned(), LinkKind::Wiki),
            ]
        );
        assert_eq!(
            backlinks("b.md", b),
            [(
                3,
                "[steps](ops/restore.md) but `[[restore]]` is code.".to_owned(),
                LinkKind::Markdown
            )]
        );
        let dr = &find_links(a)[1];
        assert_eq!(
            (dr.target.as_str(), dr.alias.as_deref()),
            ("DR", Some("disaster recovery"))
        );
    }

    /// `move_results` and `move_rewritten_index`: `ops/backups.md` → `ops/snapshots.md`, then the
    /// directory `ops` → `infra/db`; `index.md` is rewritten by both.
    #[test]
    fn move_rewritten_index_golden() {
        let index = "# Index\n\nSee [[backups#Restore]] and [backups](ops/backups.md).";
        let after_file = plain(&["index.md", "ops/snapshots.md", "ops/restore.md"]);
        let once = rewrite_for_move(
            index,
            "index.md",
            "ops/backups.md",
            "ops/snapshots.md",
            false,
            &docs(&after_file),
        )
        .expect("the file move rewrites index.md");
        assert_eq!(
            once,
            "# Index\n\nSee [[snapshots#Restore]] and [backups](ops/snapshots.md)."
        );

        let after_dir = plain(&["index.md", "infra/db/snapshots.md", "infra/db/restore.md"]);
        let twice = rewrite_for_move(&once, "index.md", "ops", "infra/db", true, &docs(&after_dir))
            .expect("the directory move rewrites index.md");
        assert_eq!(
            twice,
            "# Index\n\nSee [[snapshots#Restore]] and [backups](infra/db/snapshots.md)."
        );
    }

    #[test]
    fn a_document_without_affected_links_is_not_rewritten() {
        let after = plain(&["index.md", "ops/snapshots.md", "ops/restore.md"]);
        let source = "See [[restore]] and `[[backups]]` and [x](ops/restore.md).\n\n```\n[[backups]]\n```\n";
        assert_eq!(
            rewrite_for_move(
                source,
                "index.md",
                "ops/backups.md",
                "ops/snapshots.md",
                false,
                &docs(&after)
            ),
            None
        );
    }

    #[test]
    fn resolution_order() {
        let entries = vec![
            ("Note.md", Vec::new()),
            ("sub/Note.md", Vec::new()),
            ("a/Plan.md", Vec::new()),
            ("b/Plan.md", Vec::new()),
            ("deep/er/Plan.md", Vec::new()),
            ("a/er/Plan.md", Vec::new()),
            ("Case.md", Vec::new()),
            ("case.md", Vec::new()),
            ("k/Streams.md", Vec::new()),
            ("notes/Kafka.md", vec!["Streams".to_owned(), "Event Log".to_owned()]),
            ("projects/alpha/Goal.md", Vec::new()),
            ("projects/beta/Goal.md", Vec::new()),
            ("file with space.md", Vec::new()),
            ("Home.md", Vec::new()),
        ];
        let documents = docs(&entries);
        let resolve = |target: &str, from: &str| resolve_wikilink(target, from, &documents);

        // An exact path from the root beats a same-named document beside the linking one.
        assert_eq!(resolve("Note", "sub/x.md"), Some("Note.md"));
        assert_eq!(resolve("sub/Note", "x.md"), Some("sub/Note.md"));
        assert_eq!(
            resolve("home.md", "x.md"),
            Some("Home.md"),
            "exact paths fall back to ignoring case"
        );
        assert_eq!(
            resolve("case", "x.md"),
            Some("case.md"),
            "but a same-case path comes first"
        );
        assert_eq!(resolve("Case", "x.md"), Some("Case.md"));
        assert_eq!(
            resolve("plan", "deep/er/x.md"),
            Some("deep/er/Plan.md"),
            "a path beside the linking one"
        );
        // A name beside the linking document beats a shorter path elsewhere.
        assert_eq!(resolve("er/Plan", "deep/er/x.md"), Some("deep/er/Plan.md"));
        assert_eq!(resolve("er/Plan", "x.md"), Some("a/er/Plan.md"));
        // Else the shortest path, ties alphabetical.
        assert_eq!(resolve("Plan", "x.md"), Some("a/Plan.md"));
        assert_eq!(resolve("Plan", "c/x.md"), Some("a/Plan.md"));
        // Trailing path segments narrow the name.
        assert_eq!(resolve("beta/Goal", "x.md"), Some("projects/beta/Goal.md"));
        assert_eq!(resolve("alpha/goal", "x.md"), Some("projects/alpha/Goal.md"));
        // A name beats an alias; an alias matches ignoring case.
        assert_eq!(resolve("streams", "x.md"), Some("k/Streams.md"));
        assert_eq!(resolve("event log", "x.md"), Some("notes/Kafka.md"));
        // Heading, alias, brackets and escapes do not get in the way.
        assert_eq!(resolve("Event Log#Retention|logs", "x.md"), Some("notes/Kafka.md"));
        assert_eq!(resolve("![[Kafka#Setup]]", "x.md"), Some("notes/Kafka.md"));
        assert_eq!(resolve("file%20with%20space", "x.md"), Some("file with space.md"));
        assert_eq!(
            resolve("../Note", "sub/x.md"),
            Some("Note.md"),
            "relative to the linking document"
        );
        // Nothing else.
        assert_eq!(resolve("Missing", "x.md"), None);
        assert_eq!(resolve("../outside", "x.md"), None);
        assert_eq!(resolve("../../Note", "sub/x.md"), None);
        assert_eq!(
            resolve("#Top", "Home.md"),
            Some("Home.md"),
            "a heading of the same document"
        );
        assert_eq!(resolve("#Top", "gone.md"), None);
    }

    #[test]
    fn split_wikilink_cases() {
        assert_eq!(split_wikilink("Note#Heading"), ("Note", Some("Heading")));
        assert_eq!(split_wikilink("![[sub/Note#H|shown]]"), ("sub/Note", Some("H")));
        assert_eq!(split_wikilink("Note#^block"), ("Note", None));
        assert_eq!(split_wikilink("Note\\|shown"), ("Note", None));
        assert_eq!(split_wikilink("!important"), ("!important", None));
    }

    #[test]
    fn attachments_resolve_by_whole_name() {
        let entries = plain(&[
            "assets/diagram.png",
            "projects/alpha/diagram.png",
            "projects/alpha/Plan.md",
        ]);
        let documents = docs(&entries);
        assert_eq!(
            resolve_wikilink("diagram.png", "projects/alpha/Plan.md", &documents),
            Some("projects/alpha/diagram.png")
        );
        assert_eq!(
            resolve_wikilink("diagram.png", "x.md", &documents),
            Some("assets/diagram.png")
        );
        assert_eq!(resolve_wikilink("diagram", "x.md", &documents), None);
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

    #[test]
    fn crlf_survives_a_rewrite() {
        let source = "# T\r\n\r\nSee [[old]] and [o](old.md).\r\n";
        let after = plain(&["index.md", "new.md"]);
        assert_eq!(
            rewrite_for_move(source, "index.md", "old.md", "new.md", false, &docs(&after)).as_deref(),
            Some("# T\r\n\r\nSee [[new]] and [o](new.md).\r\n")
        );
    }

    #[test]
    fn resolve_relative_cases() {
        assert_eq!(
            resolve_relative("../notes/Kafka.md", "projects/x.md").as_deref(),
            Some("notes/Kafka.md")
        );
        assert_eq!(resolve_relative("./a/../b.md", "d/x.md").as_deref(), Some("d/b.md"));
        assert_eq!(resolve_relative("a//b.md", "x.md").as_deref(), Some("a/b.md"));
        assert_eq!(resolve_relative("..\\c.md", "d/x.md").as_deref(), Some("c.md"));
        assert_eq!(resolve_relative("../x.md", "x.md"), None, "climbs out of the root");
        assert_eq!(resolve_relative("../../x.md", "a/b.md"), None);
        assert_eq!(resolve_relative("/etc/passwd", "a/b.md"), None);
        assert_eq!(resolve_relative("..", "a/b.md"), None, "the root itself");
    }

    #[test]
    fn rewrites_percent_encode_spaces_and_parentheses() {
        let source = "[a](a.md#Sec) and [[a|shown]]";
        let to = "My Notes (old)/a b.md";
        let after = plain(&["index.md", to]);
        assert_eq!(
            rewrite_for_move(source, "index.md", "a.md", to, false, &docs(&after)).as_deref(),
            Some("[a](My%20Notes%20%28old%29/a%20b.md#Sec) and [[a b|shown]]")
        );
        let back = find_links("[a](My%20Notes%20%28old%29/a%20b.md#Sec)");
        assert_eq!(back[0].target, to, "the rewritten link reads back as the new path");
        assert_eq!(back[0].heading.as_deref(), Some("Sec"));
    }

    #[test]
    fn a_hash_in_a_file_name_is_encoded_so_it_is_not_a_fragment() {
        let to = "x/a#1.md";
        let after = plain(&["index.md", to]);
        let rewritten =
            rewrite_for_move("[a](a.md)", "index.md", "a.md", to, false, &docs(&after)).expect("the link moves");
        assert_eq!(rewritten, "[a](x/a%231.md)");
        assert_eq!(find_links(&rewritten)[0].target, to);
    }

    #[test]
    fn a_moved_document_keeps_its_own_links() {
        let source = "[r](../readme.md), [s](./sibling.md), [[sibling]], [self](#top) and [[#Top]].";
        // Seen from ops/deep/, `sibling` alone would mean the shorter ab/sibling.md.
        let after = plain(&["readme.md", "ops/sibling.md", "ops/deep/x.md", "ab/sibling.md"]);
        assert_eq!(
            rewrite_for_move(source, "ops/x.md", "ops/x.md", "ops/deep/x.md", false, &docs(&after)).as_deref(),
            Some("[r](../../readme.md), [s](../sibling.md), [[ops/sibling]], [self](#top) and [[#Top]].")
        );
    }

    #[test]
    fn wikilinks_get_the_shortest_path_that_still_resolves() {
        // `[[Plan]]` meant a/Plan.md (shortest, then alphabetical); moved to c/, `Plan` alone
        // would now mean b/Plan.md.
        let after = plain(&["x.md", "b/Plan.md", "c/Plan.md"]);
        let source = "[[Plan#Goals|plan]], [[Plan.md]], [[a/Plan]] and [[b/Plan]]";
        assert_eq!(
            rewrite_for_move(source, "x.md", "a/Plan.md", "c/Plan.md", false, &docs(&after)).as_deref(),
            Some("[[c/Plan#Goals|plan]], [[c/Plan.md]], [[c/Plan]] and [[b/Plan]]")
        );
    }

    #[test]
    fn a_link_the_move_would_retarget_is_pinned() {
        // `[[Plan]]` meant deep/Plan.md; a Plan.md arriving at the root would take it over.
        let after = plain(&["x.md", "Plan.md", "deep/Plan.md"]);
        assert_eq!(
            rewrite_for_move("[[Plan]]", "x.md", "other/Plan.md", "Plan.md", false, &docs(&after)).as_deref(),
            Some("[[deep/Plan]]")
        );
    }

    #[test]
    fn a_directory_move_rewrites_links_into_and_out_of_it() {
        let after = plain(&["index.md", "infra/db/backups.md", "infra/db/restore.md", "readme.md"]);
        let outside = "[b](ops/backups.md) [[ops/backups]] [r](opsx/other.md) [d](./ops/restore.md)";
        assert_eq!(
            rewrite_for_move(outside, "index.md", "ops", "infra/db", true, &docs(&after)).as_deref(),
            Some("[b](infra/db/backups.md) [[backups]] [r](opsx/other.md) [d](./infra/db/restore.md)")
        );
        let inside = "[r](restore.md) [up](../readme.md) [[restore]]";
        assert_eq!(
            rewrite_for_move(inside, "ops/backups.md", "ops", "infra/db", true, &docs(&after)).as_deref(),
            Some("[r](restore.md) [up](../../readme.md) [[restore]]")
        );
    }

    #[test]
    fn unresolved_and_code_links_are_left_alone() {
        let after = plain(&["index.md", "new.md"]);
        let source = "[[missing]] `[o](old.md)`\n\n    [[old]]\n";
        assert_eq!(
            rewrite_for_move(source, "index.md", "old.md", "new.md", false, &docs(&after)),
            None
        );
    }

    #[test]
    fn encode_like_encode_uri() {
        assert_eq!(
            encode_link_path("a b/ü(1)#2%;,?:@&=+$!~*'"),
            "a%20b/%C3%BC%281%29%232%25;,?:@&=+$!~*'"
        );
        assert_eq!(relative_path("a/b", "a/c/d.md"), "../c/d.md");
        assert_eq!(relative_path("", "d.md"), "d.md");
        assert_eq!(relative_path("a", "a/d.md"), "d.md");
    }

    #[test]
    fn heading_ranges() {
        let text =
            "# Doc\n\nintro\n\n## Restore\n\nRun it.\n\n```\n# not a heading\n```\n\n### Detail\n\nx\n\n## Next\n\ny";
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(heading_range(&lines, "restore"), Some((5, 16)));
        assert_eq!(
            heading_range(&lines, "Doc#Restore"),
            Some((5, 16)),
            "only the last part is matched"
        );
        assert_eq!(heading_range(&lines, "Detail"), Some((13, 16)));
        assert_eq!(
            heading_range(&lines, "next"),
            Some((17, 19)),
            "to the end of the document"
        );
        assert_eq!(heading_range(&lines, "doc"), Some((1, 19)));
        assert_eq!(
            heading_range(&lines, "not a heading"),
            None,
            "headings in fences do not count"
        );
        assert_eq!(heading_range(&lines, "Missing"), None);
        assert_eq!(heading_range(&lines, ""), None);
        let crlf: Vec<&str> = "## A ##\r\nx\r\n# B\r".split('\n').collect();
        assert_eq!(heading_range(&crlf, "a"), Some((1, 2)));
    }
}
