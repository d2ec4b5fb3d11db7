//! Property tests of the front matter reader: it never panics, whatever the file holds, and what
//! it returns has the shape its fields promise (tags normalised, paths relative and inside the
//! root, text folded or trimmed).

use proptest::prelude::*;
use proptest::sample::select;

use super::*;
use crate::markdown::chunker::props::{any_text, markdown};

/// Document paths, at the root and deeper, with the odd ones a walk can hand over.
const PATHS: &[&str] = &["x.md", "notes/x.md", "a/b/c.md", "", "/", "notes\\win.md", "../up.md"];

/// Whether `path` is root-relative and normalised: `/`-separated names, none of them empty, `.`
/// or `..`.
fn is_inside_root(path: &str) -> bool {
    !path.contains('\\') && path.split('/').all(|segment| !matches!(segment, "" | "." | ".."))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Any text reads without a panic, into metadata shaped as documented.
    #[test]
    fn metadata_is_well_formed(source in any_text(), path in select(PATHS)) {
        let meta = read_document_meta(path, &source);
        for tag in &meta.tags {
            prop_assert!(!tag.is_empty() && !tag.starts_with('#') && !tag.ends_with('/'), "tag {:?}", tag);
            prop_assert_eq!(tag, &tag.to_lowercase());
            prop_assert!(!tag.chars().all(|c| c.is_numeric() || c == '/'), "numeric tag {:?}", tag);
        }
        for supersedes in &meta.supersedes {
            prop_assert!(is_inside_root(supersedes), "supersedes {:?}", supersedes);
        }
        for alias in &meta.aliases {
            prop_assert!(!alias.is_empty() && trim_js(alias) == alias, "alias {:?}", alias);
        }
        for list in [&meta.tags, &meta.aliases, &meta.supersedes] {
            let mut sorted = list.clone();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), list.len(), "repeats in {:?}", list);
        }
        prop_assert_eq!(&meta.description, &meta.description.split_whitespace().collect::<Vec<_>>().join(" "));
        prop_assert_eq!(trim_js(&meta.created_by), meta.created_by.as_str());
        prop_assert_eq!(trim_js(&meta.session), meta.session.as_str());
    }

    /// Front matter is found only between a first line of `---` and the first later `---` or
    /// `...`, and its YAML is exactly the lines between.
    #[test]
    fn front_matter_ends_at_the_first_closer(source in markdown()) {
        let normalised = normalise_newlines(&source);
        let lines: Vec<&str> = normalised.split('\n').collect();
        let is_closer = |line: &str| matches!(line.trim_end(), "---" | "...");
        match split_frontmatter(&lines) {
            Some(front) => {
                prop_assert_eq!(trim_js(lines[0]), "---");
                prop_assert!(2 <= front.body_start && front.body_start <= lines.len());
                prop_assert!(is_closer(lines[front.body_start - 1]));
                prop_assert!(!lines[1..front.body_start - 1].iter().any(|line| is_closer(line)));
                prop_assert_eq!(front.yaml, lines[1..front.body_start - 1].join("\n"));
                if let Some(title) = front.title {
                    prop_assert!(!trim_js(&title).is_empty());
                }
            }
            None => prop_assert!(trim_js(lines[0]) != "---" || !lines[1..].iter().any(|line| is_closer(line))),
        }
    }
}
