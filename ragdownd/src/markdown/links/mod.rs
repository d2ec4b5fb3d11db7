//! Obsidian links: finding `[[wikilinks]]` and relative Markdown links in a document's text,
//! resolving them within one folder the way Obsidian does, rewriting them when a document or a
//! subfolder moves, and finding the section that `Note#Heading` names.
//!
//! This module owns what counts as a link and where it points; backlinks, `ragdown_read_doc`'s
//! wikilink targets, link following in search and `ragdown_move` all ask it. It is pure: it never
//! reads the file system or the index. Callers hand it text and the folder's root-relative posix
//! paths (with aliases), and get plain values back.
//!
//! Text inside code is never a link: fenced blocks (the same `Fences` rule the chunker uses),
//! indented code blocks, and inline code spans.
//!
//! - `find`: the links written in a source, with their lines and byte ranges ([`find_links`]);
//! - `resolve`: where a wikilink or a relative link points, and the lines a heading spans
//!   ([`resolve_wikilink`], [`resolve_relative`], [`split_wikilink`], [`heading_range`]);
//! - `rewrite`: a document's links rewritten after a move ([`rewrite_for_move`]).
//!
//! This file holds the types they share and the path and escape helpers more than one of them
//! needs; callers use the re-exports here, never the submodules.

mod find;
mod resolve;
mod rewrite;

pub use find::find_links;
pub use resolve::{
    LinkKey, NameIndex, heading_range, headings, link_key, name_keys, resolve_relative, resolve_wikilink,
    shortest_name, split_wikilink, stem_key,
};
pub use rewrite::rewrite_for_move;

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// A Markdown document's extension: `.md`, `.markdown` or `.mdx`, in any case.
static MARKDOWN_EXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\.(md|markdown|mdx)$").expect("valid extension regex"));

/// A URL scheme (`https:`, `mailto:`, `obsidian:`): such a link leaves the folder.
static SCHEME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9+.\-]*:").expect("valid scheme regex"));

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

/// The directory part of a root-relative path; empty at the root.
fn dirname(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The path without its Markdown extension.
fn strip_markdown(path: &str) -> &str {
    MARKDOWN_EXT.find(path).map_or(path, |ext| &path[..ext.start()])
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

/// Test helpers shared by the submodules' tests.
#[cfg(test)]
mod fixtures {
    use super::LinkTarget;

    pub(super) fn docs<'a>(entries: &'a [(&'a str, Vec<String>)]) -> Vec<LinkTarget<'a>> {
        entries
            .iter()
            .map(|(path, aliases)| LinkTarget { path, aliases })
            .collect()
    }

    pub(super) fn plain(paths: &[&'static str]) -> Vec<(&'static str, Vec<String>)> {
        paths.iter().map(|path| (*path, Vec::new())).collect()
    }
}

#[cfg(test)]
mod props;

#[cfg(test)]
mod tests {
    use super::fixtures::docs;
    use super::*;

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
}
