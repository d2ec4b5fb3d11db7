//! What one sync looks at: every file of the docs dir, or only some paths (the files a tool
//! wrote, the ones the watcher saw change). A tool's write at a million chunks waited 2.1 s for
//! a sync that listed all 165,000 files to find the one it had just written (2026-12-07); a sync
//! of that one path lists one file.
//!
//! A sync of some paths makes the index match the disk under those paths exactly as a sync of
//! everything would ([`super::scan::list_markdown_under`] lists what the whole walk would list
//! there), and leaves every other row alone.

use std::collections::BTreeSet;

/// Most paths one sync of some paths names; more (a big checkout, a folder moved in) are
/// cheaper as one walk of everything.
pub const MAX_PATHS: usize = 512;

/// The part of the docs dir a sync compares with the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    /// Every file.
    Whole,
    /// These docs-dir-relative paths (`/`-separated), each a file or a folder with everything
    /// under it.
    Paths(BTreeSet<String>),
}

impl Span {
    /// A sync of `paths`; of everything when there are more than [`MAX_PATHS`], or one of them is
    /// the docs dir itself or climbs (`..`).
    pub fn of<I, S>(paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut set = BTreeSet::new();
        for path in paths {
            let clean = clean(path.as_ref());
            if clean.is_empty() || clean.split('/').any(|s| s == "..") || set.len() == MAX_PATHS {
                return Self::Whole;
            }
            set.insert(clean);
        }
        Self::Paths(set)
    }

    /// The span that answers both `self` and `other`: one sync for requests that waited together.
    pub fn merge(self, other: Self) -> Self {
        match (self, other) {
            (Self::Paths(mut a), Self::Paths(b)) => {
                a.extend(b);
                if a.len() > MAX_PATHS {
                    Self::Whole
                } else {
                    Self::Paths(a)
                }
            }
            _ => Self::Whole,
        }
    }

    /// Whether the indexed file at `path` is one this span compares: `path` is one of its paths
    /// or inside one. Looked up by each of `path`'s folders, not by each of the span's paths, since
    /// a sync asks this of every indexed file.
    pub fn covers(&self, path: &str) -> bool {
        match self {
            Self::Whole => true,
            Self::Paths(paths) => {
                paths.contains(path) || path.match_indices('/').any(|(slash, _)| paths.contains(&path[..slash]))
            }
        }
    }
}

/// A path as the index writes it: `/`-separated, without empty or `.` segments.
fn clean(path: &str) -> String {
    path.replace('\\', "/")
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_covers_its_files_and_folders_and_nothing_beside_them() {
        let span = Span::of(["ops/a.md", "./notes/", "x\\y"]);
        assert_eq!(
            span,
            Span::Paths(["notes", "ops/a.md", "x/y"].into_iter().map(String::from).collect())
        );
        for inside in ["ops/a.md", "notes/n.md", "notes/deep/n.md", "x/y/z.md", "x/y"] {
            assert!(span.covers(inside), "{inside}");
        }
        for beside in [
            "ops/a.md.bak",
            "ops/ab.md",
            "notes.md",
            "notesx/n.md",
            "x/yz.md",
            "ops/b.md",
        ] {
            assert!(!span.covers(beside), "{beside}");
        }
        assert!(Span::Whole.covers("anything.md"));
    }

    #[test]
    fn the_docs_dir_or_too_many_paths_is_everything() {
        assert_eq!(Span::of(["a.md", "."]), Span::Whole);
        assert_eq!(Span::of([""]), Span::Whole);
        assert_eq!(Span::of(["a/../b.md"]), Span::Whole);
        assert_eq!(Span::of((0..=MAX_PATHS).map(|i| format!("n{i}.md"))), Span::Whole);
        assert!(matches!(
            Span::of((0..MAX_PATHS).map(|i| format!("n{i}.md"))),
            Span::Paths(_)
        ));
        assert_eq!(Span::of(Vec::<String>::new()), Span::Paths(BTreeSet::new()));
    }

    #[test]
    fn merging_unites_paths_and_anything_whole_is_whole() {
        let merged = Span::of(["a.md"]).merge(Span::of(["b/c.md", "a.md"]));
        assert_eq!(merged, Span::of(["a.md", "b/c.md"]));
        assert_eq!(Span::of(["a.md"]).merge(Span::Whole), Span::Whole);
        assert_eq!(Span::Whole.merge(Span::of(["a.md"])), Span::Whole);
        let big = Span::of((0..MAX_PATHS).map(|i| format!("n{i}.md")));
        assert_eq!(big.merge(Span::of(["extra.md"])), Span::Whole);
    }
}
