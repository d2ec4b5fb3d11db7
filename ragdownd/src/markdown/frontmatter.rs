//! Front matter and document metadata: where the YAML block at the top of a file ends, the
//! document's `title:`, and what the file says about itself (tags, aliases, description,
//! provenance, the documents it supersedes).
//!
//! This module only reads. It never writes front matter (provenance stamping and `remember` do)
//! and never checks that a superseded path exists: it turns what a file says into plain values.
//! Nothing here may fail or panic on a malformed file, because a file that cannot be read cannot
//! be indexed; YAML that does not parse simply yields empty metadata.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_norway::Value;

use super::links::resolve_relative;
use super::{Fences, mask_code_spans, normalise_newlines, trim_js};

/// A line that ends the front matter.
static FRONT_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(---|\.\.\.)\s*$").expect("valid front matter end regex"));

/// A `title:` line. Read by regex rather than YAML, so a title survives front matter that is
/// otherwise not valid YAML.
static TITLE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^title:\s*(.+?)\s*$").expect("valid title regex"));

/// An inline `#tag` in prose: at the start of the line, after whitespace, or after CJK
/// punctuation (`、。「」（）！，：；？`), which CJK prose never follows with a space
/// (`#バックアップ、#백업` is two tags).
static INLINE_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[\s\x{3001}-\x{3003}\x{3008}-\x{3011}\x{3014}-\x{301B}\x{FF01}\x{FF08}\x{FF09}\x{FF0C}\x{FF0E}\x{FF1A}\x{FF1B}\x{FF1F}])#([\p{L}\p{N}_\-/]+)")
        .expect("valid inline tag regex")
});

/// What a tag may consist of, after normalisation.
static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[\p{L}\p{N}_\-/]+$").expect("valid tag regex"));

/// Digits and slashes only: `#123` and `#2024/10` are issue numbers and dates, not tags.
static NUMERIC_TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[\p{N}/]+$").expect("valid numeric tag regex"));

/// The front matter block of a document, as found by [`split_frontmatter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter {
    /// The lines between the opening `---` and the closing `---` or `...`, joined with `\n`.
    pub yaml: String,
    /// The 0-based index of the first body line, which is also how many lines the front matter
    /// takes, fences included. Chunk line numbers count these lines.
    pub body_start: usize,
    /// The last `title:` line's value, unquoted; `None` when there is none or it is blank.
    pub title: Option<String>,
}

/// What a document says about itself, beside its text. Every field is empty when the document
/// does not say it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocumentMeta {
    /// Front matter `tags` then inline `#tags` from prose: lowercased, without `#` or a trailing
    /// `/`, deduplicated in first-seen order.
    pub tags: Vec<String>,
    /// Front matter `aliases` (a list, or one scalar kept whole), deduplicated.
    pub aliases: Vec<String>,
    /// Front matter `description`, folded into one line.
    pub description: String,
    /// The documents this one replaces: posix paths relative to the docs root, resolved against
    /// this document's folder. Absolute paths and ones that climb out of the root are dropped.
    pub supersedes: Vec<String>,
    /// Front matter `created_by`: the tool that says it wrote the document (a claim, not proof).
    pub created_by: String,
    /// Front matter `session`: the agent session that says it wrote the document.
    pub session: String,
}

/// Finds the front matter at the top of `lines` (already split on `\n`).
///
/// There is front matter only when the first line, trimmed, is `---` and a later line is `---`
/// or `...` (trailing whitespace allowed); otherwise the whole file is body.
pub fn split_frontmatter(lines: &[&str]) -> Option<Frontmatter> {
    if trim_js(lines.first()?) != "---" {
        return None;
    }
    let end = 1 + lines[1..].iter().position(|line| FRONT_END.is_match(line))?;
    let inner = &lines[1..end];
    Some(Frontmatter {
        yaml: inner.join("\n"),
        body_start: end + 1,
        title: read_title(inner),
    })
}

/// Reads a document's metadata from its root-relative posix `path` and its text.
pub fn read_document_meta(path: &str, source: &str) -> DocumentMeta {
    let source = normalise_newlines(source);
    let lines: Vec<&str> = source.split('\n').collect();
    let front = split_frontmatter(&lines);
    document_meta(path, &lines, front.as_ref())
}

/// [`read_document_meta`] for a caller that has already split the lines and found the front
/// matter, so the chunker reads each file once.
pub(crate) fn document_meta(path: &str, lines: &[&str], front: Option<&Frontmatter>) -> DocumentMeta {
    let yaml = front.map_or(Value::Null, |front| parse_yaml(path, &front.yaml));
    let body = lines
        .get(front.map_or(0, |front| front.body_start)..)
        .unwrap_or_default();

    let front_tags = yaml.get("tags").map(tag_entries).unwrap_or_default();
    let tags = front_tags
        .into_iter()
        .chain(inline_tags(body))
        .filter_map(|raw| normalise_tag(&raw));
    // `supersedes` entries resolve the way a relative Markdown link in this document does.
    let from = path.replace('\\', "/");
    let supersedes = list_entries(yaml.get("supersedes"), Some(','))
        .into_iter()
        .filter_map(|entry| resolve_relative(&entry, &from));

    DocumentMeta {
        tags: unique(tags),
        aliases: unique(list_entries(yaml.get("aliases"), None)),
        description: scalar(yaml.get("description"))
            .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default(),
        supersedes: unique(supersedes),
        created_by: trimmed_scalar(yaml.get("created_by")),
        session: trimmed_scalar(yaml.get("session")),
    }
}

/// The value of the last non-blank `title:` line, unquoted.
///
/// A blank title (`title: ""`) counts as none, so the first H1 or the file name takes over; the
/// original kept an empty title there, which no listing can show.
fn read_title(front: &[&str]) -> Option<String> {
    front
        .iter()
        .rev()
        .filter_map(|line| TITLE.captures(line))
        .map(|caps| unquote(&caps[1]).to_owned())
        .find(|title| !trim_js(title).is_empty())
}

/// Strips one pair of matching single or double quotes around the whole value.
fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|rest| rest.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}

/// The front matter as YAML, or `Null` when it does not parse: malformed front matter costs the
/// document its metadata, never its place in the index.
fn parse_yaml(path: &str, yaml: &str) -> Value {
    serde_norway::from_str(yaml).unwrap_or_else(|error| {
        tracing::debug!(path, %error, "front matter is not valid YAML; its metadata is ignored");
        Value::Null
    })
}

/// A YAML scalar as text. Numbers and booleans count (`aliases: [2024]`); lists, maps and null
/// do not.
fn scalar(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Tagged(tagged) => scalar(Some(&tagged.value)),
        Value::Null | Value::Sequence(_) | Value::Mapping(_) => None,
    }
}

fn trimmed_scalar(value: Option<&Value>) -> String {
    scalar(value).map(|text| trim_js(&text).to_owned()).unwrap_or_default()
}

/// A key that holds a list or a single scalar, as trimmed non-empty strings. A scalar is split on
/// `split` when given (`supersedes: a.md, b.md`) and kept whole otherwise (an alias may hold a
/// comma).
fn list_entries(value: Option<&Value>, split: Option<char>) -> Vec<String> {
    let raw: Vec<String> = match value {
        Some(Value::Sequence(items)) => items.iter().filter_map(|v| scalar(Some(v))).collect(),
        Some(Value::Tagged(tagged)) => return list_entries(Some(&tagged.value), split),
        other => match (scalar(other), split) {
            (Some(text), Some(sep)) => text.split(sep).map(str::to_owned).collect(),
            (Some(text), None) => vec![text],
            (None, _) => Vec::new(),
        },
    };
    raw.iter()
        .map(|entry| trim_js(entry))
        .filter(|entry| !entry.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Front matter `tags`: list items are taken whole, a scalar is split on whitespace and commas
/// (`tags: one, two three`).
fn tag_entries(value: &Value) -> Vec<String> {
    match value {
        Value::Sequence(items) => items.iter().filter_map(|v| scalar(Some(v))).collect(),
        Value::Tagged(tagged) => tag_entries(&tagged.value),
        other => scalar(Some(other))
            .map(|text| {
                text.split(|c: char| c.is_whitespace() || c == ',')
                    .filter(|part| !part.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// A tag in its stored form, or `None` when it is not a tag.
fn normalise_tag(raw: &str) -> Option<String> {
    let tag = trim_js(raw)
        .trim_start_matches('#')
        .trim_end_matches('/')
        .to_lowercase();
    (TAG.is_match(&tag) && !NUMERIC_TAG.is_match(&tag)).then_some(tag)
}

/// The raw inline `#tags` of the body's prose. Fenced code, indented code (four spaces or a tab)
/// and inline code spans are not prose: `#include` in a code sample is not a tag.
fn inline_tags(body: &[&str]) -> Vec<String> {
    let mut fences = Fences::default();
    let mut found = Vec::new();
    for line in body {
        let is_code = fences.observe(line) || fences.is_open() || line.starts_with("    ") || line.starts_with('\t');
        if is_code {
            continue;
        }
        let prose = mask_code_spans(line);
        found.extend(INLINE_TAG.captures_iter(&prose).map(|caps| caps[1].to_owned()));
    }
    found
}

/// The items in first-seen order, without repeats.
fn unique(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    items.into_iter().filter(|item| seen.insert(item.clone())).collect()
}

#[cfg(test)]
#[path = "frontmatter_props.rs"]
mod props;

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(source: &str) -> DocumentMeta {
        read_document_meta("notes/new.md", source)
    }

    fn tags(source: &str) -> Vec<String> {
        meta(source).tags
    }

    fn supersedes(path: &str, value: &str) -> Vec<String> {
        read_document_meta(path, &format!("---\ntitle: New\n{value}\n---\n\n# New\n\nText.")).supersedes
    }

    #[test]
    fn split_counts_the_front_matter_lines_and_reads_the_title() {
        let lines = ["---", "title: \"Runbook\"", "tags: [ops]", "---", "Body"];
        assert_eq!(
            split_frontmatter(&lines),
            Some(Frontmatter {
                yaml: "title: \"Runbook\"\ntags: [ops]".to_owned(),
                body_start: 4,
                title: Some("Runbook".to_owned()),
            })
        );
    }

    #[test]
    fn split_ends_at_three_dots_or_dashes_with_trailing_space() {
        let front = split_frontmatter(&["---", "a: 1", "...", "x"]).expect("front matter");
        assert_eq!((front.body_start, front.title), (3, None));
        let front = split_frontmatter(&["---", "a: 1", "--- x", "---  ", "x"]).expect("front matter");
        assert_eq!(front.body_start, 4, "`--- x` does not close it");
        assert!(split_frontmatter(&["\u{feff}---", "title: B", "---"]).is_some());
    }

    #[test]
    fn split_finds_nothing_without_an_opening_and_closing_line() {
        assert_eq!(split_frontmatter(&["# x", "---", "a: 1", "---"]), None);
        assert_eq!(split_frontmatter(&["", "---", "a: 1", "---"]), None);
        assert_eq!(split_frontmatter(&["---", "a: 1"]), None);
        assert_eq!(split_frontmatter(&[]), None);
    }

    #[test]
    fn the_last_top_level_title_wins() {
        let front = split_frontmatter(&["---", "title: One", "  title: Nested", "title: 'Two'", "---"]);
        assert_eq!(front.and_then(|f| f.title).as_deref(), Some("Two"));
    }

    #[test]
    fn tags_from_a_block_list_an_inline_list_and_a_scalar() {
        assert_eq!(
            tags("---\ntags:\n  - Ops\n  - '#infra/db/'\n---\n"),
            ["ops", "infra/db"]
        );
        assert_eq!(tags("---\ntags: [B, a]\n---\n"), ["b", "a"]);
        assert_eq!(tags("---\ntags: one, two three\n---\n"), ["one", "two", "three"]);
        assert_eq!(tags("---\ntags: \"#x #y\"\n---\n"), ["x", "y"]);
    }

    #[test]
    fn inline_tags_come_from_prose_only() {
        let source = [
            "---",
            "tags: [Ops, '#infra/db']",
            "---",
            "# Postgres #heading-tag",
            "",
            "Vacuum nightly #maintenance but not a#b, `#code`, `sh #spanned` or ``x #double``.",
            "",
            "```",
            "#include <stdio.h>",
            "```",
            "~~~",
            "#tilde-fenced",
            "~~~",
            "See https://example.com/#anchor and #nested/child/.",
            "    #indented",
            "\t#tabbed",
            "Upper #CamelCase, again #Ops, and #v2.",
        ]
        .join("\n");
        assert_eq!(
            tags(&source),
            [
                "ops",
                "infra/db",
                "heading-tag",
                "maintenance",
                "nested/child",
                "camelcase",
                "v2"
            ]
        );
    }

    #[test]
    fn cjk_tags_and_aliases() {
        let doc = meta(
            "---\ntags: [运维, 数据库/备份]\naliases: [备份手册, バックアップ手順]\n---\n\
             监控磁盘空间。 #监控\n毎朝確認する #バックアップ、#백업\u{3000}#障害対応。\n`#不是标签`",
        );
        assert_eq!(
            doc.tags,
            ["运维", "数据库/备份", "监控", "バックアップ", "백업", "障害対応"]
        );
        assert_eq!(doc.aliases, ["备份手册", "バックアップ手順"]);
    }

    #[test]
    fn digit_only_tags_are_rejected() {
        assert_eq!(tags("#123 #2024/10 #1a #٣"), ["1a"]);
        assert!(tags("---\ntags: [2024, '42', 2024/10]\n---\n").is_empty());
    }

    #[test]
    fn tag_normalisation() {
        assert_eq!(normalise_tag("##Project/Alpha//").as_deref(), Some("project/alpha"));
        assert_eq!(normalise_tag(" Ünïcödé ").as_deref(), Some("ünïcödé"));
        assert_eq!(normalise_tag("has space"), None);
        assert_eq!(normalise_tag("dot.ted"), None);
        assert_eq!(normalise_tag("#"), None);
        assert_eq!(normalise_tag("///"), None);
    }

    #[test]
    fn inline_code_hides_tags_by_the_rule_links_use() {
        let tags = |line: &str| inline_tags(&[line]);
        assert_eq!(tags("a `x #y` b #z"), ["z"]);
        assert_eq!(
            tags("`` a ` #inside ``  #outside"),
            ["outside"],
            "a shorter run is span content"
        );
        assert_eq!(tags("`#open #tag"), ["tag"], "an unclosed backtick is literal");
        assert_eq!(tags("é`#x`é"), Vec::<String>::new());
    }

    #[test]
    fn aliases_from_a_list_or_one_whole_scalar() {
        let source = "---\naliases:\n  - Elephant\n  - \"The DB\"\n  - Elephant\n  - ''\n---\n";
        assert_eq!(meta(source).aliases, ["Elephant", "The DB"]);
        assert_eq!(meta("---\naliases: Big, Old Name\n---\n").aliases, ["Big, Old Name"]);
        assert_eq!(meta("---\naliases: [2024]\n---\n").aliases, ["2024"]);
        // A custom YAML tag does not hide the value under it.
        assert_eq!(meta("---\naliases: !old [A]\n---\n").aliases, ["A"]);
        assert_eq!(meta("---\ntags: !t x, y\n---\n").tags, ["x", "y"]);
        assert_eq!(meta("aliases: [not front matter]").aliases, Vec::<String>::new());
    }

    #[test]
    fn description_is_one_line() {
        assert_eq!(meta("---\ndescription: One   line.\n---\n").description, "One line.");
        let folded = "---\ndescription: >\n  First part\n  second part.\n\n  After a gap.\ntags: [a]\n---\n";
        assert_eq!(meta(folded).description, "First part second part. After a gap.");
        let literal = "---\ndescription: |\n  Line one\n  line two\n---\n";
        assert_eq!(meta(literal).description, "Line one line two");
        assert_eq!(meta("---\ndescription: [a, b]\n---\n").description, "");
    }

    #[test]
    fn provenance_fields() {
        let source = "---\ncreated_by: ragdown_remember\nsession: \"min-agent:7\"\n---\ncreated_by: not this";
        let found = meta(source);
        assert_eq!(found.created_by, "ragdown_remember");
        assert_eq!(found.session, "min-agent:7");

        let empty = meta("---\ncreated_by:\nsession: ''\n---\nx");
        assert_eq!((empty.created_by.as_str(), empty.session.as_str()), ("", ""));
    }

    #[test]
    fn supersedes_forms() {
        assert_eq!(supersedes("notes/new.md", "supersedes: old.md"), ["notes/old.md"]);
        assert_eq!(
            supersedes("notes/new.md", "supersedes: [old.md, \"older.md\"]"),
            ["notes/old.md", "notes/older.md"]
        );
        assert_eq!(
            supersedes("new.md", "supersedes:\n  - old.md\n  - older.md\ntags: [a]"),
            ["old.md", "older.md"]
        );
        assert_eq!(
            supersedes("notes/new.md", "supersedes: a.md, b.md"),
            ["notes/a.md", "notes/b.md"]
        );
    }

    #[test]
    fn supersedes_resolves_against_the_documents_folder() {
        let resolve = |value: &str| supersedes("notes/new.md", &format!("supersedes: {value}"));
        assert_eq!(resolve("../ops/old.md"), ["ops/old.md"]);
        assert_eq!(resolve("./same.md"), ["notes/same.md"]);
        assert_eq!(resolve("sub/../x.md"), ["notes/x.md"]);
        assert_eq!(resolve("sub//deep/./y.md"), ["notes/sub/deep/y.md"]);
        assert_eq!(resolve("'..\\ops\\win.md'"), ["ops/win.md"]);
    }

    #[test]
    fn supersedes_drops_paths_that_escape_the_root() {
        let resolve = |value: &str| supersedes("notes/new.md", &format!("supersedes: {value}"));
        assert!(resolve("../../escape.md").is_empty());
        assert!(resolve("/etc/passwd").is_empty());
        assert!(resolve("..").is_empty());
        assert!(resolve("../other/../../x.md").is_empty());
        assert!(supersedes("new.md", "supersedes: .").is_empty());
        assert_eq!(
            supersedes("new.md", "supersedes: [../x.md, kept.md, /abs.md]"),
            ["kept.md"]
        );
        assert!(
            read_document_meta("new.md", "# New\n\nsupersedes: old.md")
                .supersedes
                .is_empty()
        );
    }

    #[test]
    fn malformed_yaml_gives_empty_metadata_without_panicking() {
        let broken = [
            "---\ntags: [a\ndescription: x\n---\n#inline",
            "---\n: :\n  - [\n---\n#inline",
            "---\ncreated_by: 'unterminated\n---\n#inline",
            "---\n\t- tab\n---\n#inline",
            "---\na: 1\na: 2\ntags: [dup]\n---\n#inline",
            "---\n*undefined\n---\n#inline",
            "---\n- a\n- b\n---\n#inline",
        ];
        for source in broken {
            let found = meta(source);
            assert_eq!(found.tags, ["inline"], "{source:?}: body tags are still read");
            assert_eq!(
                DocumentMeta {
                    tags: Vec::new(),
                    ..found
                },
                DocumentMeta::default(),
                "{source:?}"
            );
        }
    }

    #[test]
    fn a_plain_note_says_nothing() {
        assert_eq!(meta("# Title\n\nText."), DocumentMeta::default());
    }
}
