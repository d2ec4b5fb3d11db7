//! Where a link points: a wikilink resolved as Obsidian does (exact path, name, shortest path,
//! alias), a relative Markdown link joined to the linking document's directory, and the lines of
//! the section that a `#Heading` names.
//!
//! It works on paths and lines it is handed; it never looks for links in a source.

use std::sync::LazyLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use super::{LinkTarget, MARKDOWN_EXT, dirname, heading_name, percent_decode, strip_markdown};
use crate::markdown::Fences;

/// An ATX heading: its `#`s and its name without closing `#`s (the chunker's rule).
static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$").expect("valid heading regex"));

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
/// "Ignoring case" also ignores Unicode composition (`fold`): `백업` names a file that macOS
/// wrote as `백업.md` in decomposed jamo.
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
    let mut open: Option<(usize, usize)> = None;
    for (index, level, text) in heading_lines(lines) {
        match open {
            None if text.to_lowercase() == wanted => open = Some((index + 1, level)),
            Some((start, open_level)) if level <= open_level => return Some((start, index)),
            _ => {}
        }
    }
    open.map(|(start, _)| (start, lines.len()))
}

/// The headings of a document's lines, in order, as [`heading_range`] matches them (headings in
/// fenced code left out): what a section's `#heading` may name.
pub fn headings(lines: &[&str]) -> Vec<String> {
    heading_lines(lines).map(|(_, _, text)| text.to_string()).collect()
}

/// Each heading line outside fenced code: its 0-based index, its level and its trimmed text.
fn heading_lines<'a>(lines: &'a [&'a str]) -> impl Iterator<Item = (usize, usize, &'a str)> + 'a {
    let mut fences = Fences::default();
    lines.iter().enumerate().filter_map(move |(index, line)| {
        if fences.observe(line) || fences.is_open() {
            return None;
        }
        let caps = HEADING.captures(line)?;
        let level = caps[1].len();
        Some((index, level, caps.get(2)?.as_str().trim()))
    })
}

/// The documents of a folder filed by the last path segment of each of their names, so that a
/// wikilink is resolved among the few it can point at rather than all of them: at 165,000
/// documents every link looked through every path and alias (two allocations each), which made a
/// backlink search that resolves every link of the folder run for minutes.
///
/// A document is filed under its file name and that name without its extension, and under the
/// last segment of each alias, all [`fold`]ed. Every step of [`resolve_wikilink`] matches only
/// documents filed under the last segment of the target, or of the target joined to the linking
/// document's directory, so [`resolve_wikilink`] over [`NameIndex::candidates`] answers what it
/// answers over every document (property-tested beside it).
#[derive(Debug, Default, Clone)]
pub struct NameIndex {
    by_key: std::collections::HashMap<String, Vec<u32>>,
}

/// The names a document is filed under in a [`NameIndex`]: its file name with and without its
/// extension, and the last segment of each alias, [`fold`]ed; sorted, each once. A link that
/// points at the document has one of them as its [`link_key`].
pub fn name_keys(path: &str, aliases: &[String]) -> Vec<String> {
    let name = last_segment(path);
    let mut keys = vec![fold(name), fold(strip_markdown(name))];
    keys.extend(
        aliases
            .iter()
            .map(|alias| last_segment(&fold(alias.trim())).to_string()),
    );
    keys.sort();
    keys.dedup();
    keys
}

/// What a link found in a document can point at, for finding the links to a document without
/// resolving every link there is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkKey {
    /// Only a document with this among its [`name_keys`].
    Named(String),
    /// The linking document itself (`[[#Heading]]`).
    Itself,
    /// Any document: a target ending in `..` or `/`, whose name depends on where it is resolved.
    Anywhere,
}

/// The [`LinkKey`] of a link found by [`super::find_links`].
pub fn link_key(link: &super::Link) -> LinkKey {
    let last = match link.kind {
        super::LinkKind::Wiki => {
            let target = normalise_target(split_wikilink(&link.target).0);
            if target.is_empty() {
                return LinkKey::Itself;
            }
            last_segment(&target).to_string()
        }
        super::LinkKind::Markdown => last_segment(&link.target.replace('\\', "/")).to_string(),
    };
    match last.as_str() {
        "" | "." | ".." => LinkKey::Anywhere,
        _ => LinkKey::Named(fold(&last)),
    }
}

impl NameIndex {
    /// Files each document, numbered in the order given, by its [`name_keys`].
    pub fn new<'a>(documents: impl IntoIterator<Item = (&'a str, &'a [String])>) -> Self {
        let mut by_key: std::collections::HashMap<String, Vec<u32>> = std::collections::HashMap::new();
        for (index, (path, aliases)) in documents.into_iter().enumerate() {
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            for key in name_keys(path, aliases) {
                by_key.entry(key).or_default().push(index);
            }
        }
        Self { by_key }
    }

    /// The numbers of the documents filed under `key` (one of their [`name_keys`]), in order.
    pub fn filed(&self, key: &str) -> &[u32] {
        self.by_key.get(key).map_or(&[], Vec::as_slice)
    }

    /// The numbers of the documents `raw`, written in the document at `from`, can resolve to:
    /// sorted, each once. `from` must be given as [`resolve_wikilink`] will get it (relative to the
    /// same folder root).
    pub fn candidates(&self, raw: &str, from: &str) -> Vec<usize> {
        let target = normalise_target(split_wikilink(raw).0);
        let mut keys = Vec::new();
        if target.is_empty() {
            // `[[#Heading]]` is the linking document itself.
            keys.push(fold(last_segment(from)));
        } else {
            keys.push(last_segment(&fold(&target)).to_string());
            let from_dir = dirname(from);
            if !from_dir.is_empty() {
                keys.push(last_segment(&fold(&normalise_path(&format!("{from_dir}/{target}")))).to_string());
            }
        }
        let mut out: Vec<usize> = keys
            .iter()
            .filter_map(|key| self.by_key.get(key))
            .flatten()
            .map(|&index| index as usize)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The key a document is filed under by its file name without its extension (among its
/// [`name_keys`]): where the documents a name could also find are.
pub fn stem_key(path: &str) -> String {
    fold(strip_markdown(last_segment(path)))
}

/// The shortest name a `[[wikilink]]` can use for the document at `path` (inside its folder):
/// the file name without its extension when no other document's path ends with it, else with as
/// many parent directories as it takes to tell it apart, compared as [`resolve_wikilink`]
/// compares names (a `/`-separated suffix of the path without extension, case and composition
/// ignored). `namesakes` are the folder's documents filed under its [`stem_key`] (paths inside
/// the folder; the document itself may be among them). A document every suffix of whose path
/// also finds another (`x.md` beside `a/x.md`) gets its whole path, which resolves exactly.
pub fn shortest_name<'a>(path: &str, namesakes: impl Iterator<Item = &'a str>) -> String {
    let target = strip_markdown(path);
    let others: Vec<String> = namesakes
        .filter(|other| *other != path)
        .map(|other| fold(strip_markdown(other)))
        .collect();
    let parts: Vec<&str> = target.split('/').collect();
    for start in (0..parts.len()).rev() {
        let suffix = parts[start..].join("/");
        let key = fold(&suffix);
        let clash = others
            .iter()
            .any(|other| other == &key || other.strip_suffix(key.as_str()).is_some_and(|head| head.ends_with('/')));
        if !clash {
            return suffix;
        }
    }
    target.to_string()
}

/// The part of a `/`-separated path after its last `/`.
fn last_segment(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
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
        let path = fold(path);
        let found = documents
            .iter()
            .enumerate()
            .filter(|(_, document)| fold(document.path) == path)
            .min_by_key(|(_, document)| document.path);
        if let Some((index, _)) = found {
            return Some(index);
        }
    }

    let needle = fold(&target);
    let suffix = format!("/{needle}");
    let names = |name: &str| {
        let name = fold(name);
        name == needle || name.ends_with(&suffix)
    };
    let by_name = documents
        .iter()
        .enumerate()
        .filter(|(_, document)| names(strip_markdown(document.path)) || names(document.path));
    if let Some(index) = nearest(by_name, from_dir) {
        return Some(index);
    }
    let by_alias = documents
        .iter()
        .enumerate()
        .filter(|(_, document)| document.aliases.iter().any(|alias| fold(alias.trim()) == needle));
    nearest(by_alias, from_dir)
}

/// A name as the case-insensitive steps compare it: lowercased and in Unicode's composed form
/// (NFC), so a Korean or accented name that a macOS file system wrote decomposed (NFD) is the name
/// a link types composed.
fn fold(name: &str) -> String {
    name.nfc().collect::<String>().to_lowercase()
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::links::fixtures::{docs, plain};

    #[test]
    fn cjk_wikilinks_resolve_by_path_name_and_alias() {
        let nfd: String = "백업.md".nfd().collect();
        let entries = vec![
            ("zh/数据库备份.md", Vec::new()),
            ("ja/障害対応.md", vec!["障害手順".to_owned()]),
            (nfd.as_str(), Vec::new()),
            ("ops.md", vec!["备份手册".to_owned()]),
        ];
        let documents = docs(&entries);
        let resolve = |target: &str, from: &str| resolve_wikilink(target, from, &documents);
        assert_eq!(resolve("数据库备份", "x.md"), Some("zh/数据库备份.md"));
        assert_eq!(resolve("[[ja/障害対応|表示]]", "zh/a.md"), Some("ja/障害対応.md"));
        assert_eq!(resolve("障害対応#手順", "x.md"), Some("ja/障害対応.md"));
        assert_eq!(resolve("障害手順", "x.md"), Some("ja/障害対応.md"));
        assert_eq!(resolve("备份手册", "x.md"), Some("ops.md"));
        assert_eq!(resolve("%E5%A4%87%E4%BB%BD%E6%89%8B%E5%86%8C", "x.md"), Some("ops.md"));
        // A Korean name as macOS file systems write it (decomposed) is the same name.
        assert_eq!(resolve("백업", "x.md"), Some(nfd.as_str()));
        assert_eq!(resolve("백업.md", "x.md"), Some(nfd.as_str()));
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
        assert_eq!(
            headings(&lines),
            ["Doc", "Restore", "Detail", "Next"],
            "fenced ones left out"
        );
        let crlf: Vec<&str> = "## A ##\nx\n# B".split('\n').collect();
        assert_eq!(headings(&crlf), ["A", "B"]);
    }
}
