//! The indexed documents as directories: for each directory of the docs dir that holds a
//! document, its subdirectories and files in natural order and how many documents lie under it.
//! Made from [`Store::document_map`](super::store::Store::document_map) once per table version
//! ([`Store::catalog`](super::store::Store::catalog)), so the web UI's tree lists one directory
//! of a 150,000-file vault without the whole list crossing the wire. It holds names, not
//! documents: the front matter stays in the document map.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use super::rows::DocumentInfo;

/// One directory: what is directly in it and how many documents are in it and below.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Dir {
    /// Its subdirectories' names, in [`natural`] order.
    pub dirs: Vec<String>,
    /// Its documents' file names, in [`natural`] order.
    pub docs: Vec<String>,
    /// Documents in it and in every directory below it.
    pub count: usize,
}

/// Every directory that holds a document, by root-relative path (`""` is the docs dir itself).
#[derive(Debug, Default)]
pub struct Catalog {
    dirs: HashMap<String, Dir>,
}

impl Catalog {
    /// The directories of `documents` (root-relative paths).
    pub fn new(documents: &BTreeMap<String, DocumentInfo>) -> Self {
        let mut dirs: HashMap<String, Dir> = HashMap::new();
        for path in documents.keys() {
            let (dir, name) = split(path);
            // Count it in its directory and every one above, adding each new one to its parent.
            let mut at = dir;
            loop {
                // Counted for the first time: not yet among its parent's subdirectories (an entry
                // made by a subdirectory naming it as its parent has counted nothing yet).
                let entry = dirs.entry(at.to_string()).or_default();
                let new = entry.count == 0;
                entry.count += 1;
                if at.is_empty() {
                    break;
                }
                let (parent, name) = split(at);
                if new {
                    dirs.entry(parent.to_string()).or_default().dirs.push(name.to_string());
                }
                at = parent;
            }
            dirs.entry(dir.to_string()).or_default().docs.push(name.to_string());
        }
        for dir in dirs.values_mut() {
            dir.dirs.sort_by(|a, b| natural(a, b));
            dir.docs.sort_by(|a, b| natural(a, b));
        }
        Self { dirs }
    }

    /// The directory at the root-relative `path` (`""` for the docs dir), if a document is in or under it.
    pub fn dir(&self, path: &str) -> Option<&Dir> {
        self.dirs.get(path.trim_end_matches('/'))
    }

    /// How many directories hold a document.
    pub fn len(&self) -> usize {
        self.dirs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }
}

/// A path's directory and last segment: `a/b/c.md` → (`a/b`, `c.md`), `c.md` → (``, `c.md`).
fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// File names as people sort them, as the web UI's tree does (`Intl.Collator` with `numeric` and
/// base sensitivity): case ignored, runs of digits compared as numbers (`note 2` before
/// `Note 10`), and the names themselves last, so the order is total. Written here rather than
/// taken from a crate: the crates that do this either keep case (`natord`'s default,
/// `alphanumeric-sort`) or bring ICU's collation tables into a binary being cut down
/// (`icu_collator`), and the tree needs only these two rules.
pub fn natural(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (m, n) = (digits(&mut x), digits(&mut y));
                let (m, n) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                let order = m.len().cmp(&n.len()).then_with(|| m.cmp(n));
                if order != Ordering::Equal {
                    return order;
                }
            }
            (Some(c), Some(d)) => {
                let order = c.to_lowercase().cmp(d.to_lowercase());
                if order != Ordering::Equal {
                    return order;
                }
                x.next();
                y.next();
            }
        }
    }
}

/// The run of ASCII digits at the front of `chars`, taken off it.
fn digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut run = String::new();
    while let Some(c) = chars.next_if(char::is_ascii_digit) {
        run.push(c);
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn documents(paths: &[&str]) -> BTreeMap<String, DocumentInfo> {
        paths
            .iter()
            .map(|path| {
                let doc = DocumentInfo {
                    path: path.to_string(),
                    title: String::new(),
                    aliases: Vec::new(),
                    tags: Vec::new(),
                    mtime_ms: 0.0,
                    created_by: String::new(),
                    session: String::new(),
                    description: String::new(),
                    supersedes: Vec::new(),
                };
                (path.to_string(), doc)
            })
            .collect()
    }

    #[test]
    fn each_directory_lists_what_is_directly_in_it_and_counts_what_is_below() {
        let catalog = Catalog::new(&documents(&[
            "notes/a.md",
            "notes/sub/deep/x.md",
            "notes/sub/y.md",
            "notes/Sub2/z.md",
            "work/b.md",
            "loose.md",
        ]));
        let root = catalog.dir("").unwrap();
        assert_eq!(root.dirs, ["notes", "work"]);
        assert_eq!(root.docs, ["loose.md"]);
        assert_eq!(root.count, 6);
        let notes = catalog.dir("notes").unwrap();
        assert_eq!(notes.dirs, ["sub", "Sub2"]);
        assert_eq!(notes.docs, ["a.md"]);
        assert_eq!(notes.count, 4);
        assert_eq!(catalog.dir("notes/sub/").unwrap().count, 2);
        assert_eq!(catalog.dir("notes/sub/deep").unwrap().docs, ["x.md"]);
        assert!(catalog.dir("notes/none").is_none());
        assert_eq!(catalog.len(), 6);
    }

    #[test]
    fn natural_order_ignores_case_and_reads_numbers_as_numbers() {
        let mut names = vec![
            "Note 10.md",
            "note 2.md",
            "b.md",
            "A.md",
            "note 02.md",
            "a.md",
            "x9",
            "x10",
            "x",
        ];
        names.sort_by(|a, b| natural(a, b));
        assert_eq!(
            names,
            [
                "A.md",
                "a.md",
                "b.md",
                "note 02.md",
                "note 2.md",
                "Note 10.md",
                "x",
                "x9",
                "x10"
            ]
        );
        assert_eq!(natural("same", "same"), Ordering::Equal);
    }
}
