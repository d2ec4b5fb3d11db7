//! What the web UI's file list and quick switcher ask of a vault too large to send whole: one
//! directory of the tree ([`browse`]), the documents a filter, a tag or "Recently changed" picks
//! ([`find`]), the tag menu ([`tags`]) and the switcher's best matches ([`jump`]), each a page of a bounded size. The
//! matching is the browser's own (`web/src/lib/rank.ts`, `web/src/routes/folder/list/filter.ts`):
//! text folded by NFKC and lowercased, every word found in the title, path, aliases, tags or
//! description. Pure over the documents held per table version: no I/O, no transport.

use std::borrow::Cow;
use std::collections::BTreeMap;

use unicode_normalization::UnicodeNormalization;

use crate::index::catalog::Catalog;
use crate::index::reads::documents_under;
use crate::index::rows::DocumentInfo;

/// Most rows one page may hold.
pub const MAX_PAGE: usize = 2000;

/// Which rows of a list to send: `offset` first, at most `limit` (1 to [`MAX_PAGE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub limit: usize,
}

impl Page {
    /// A page from what a request asked, `limit` kept within 1 and [`MAX_PAGE`].
    pub fn new(offset: Option<usize>, limit: Option<usize>, default: usize) -> Self {
        Self {
            offset: offset.unwrap_or(0),
            limit: limit.unwrap_or(default).clamp(1, MAX_PAGE),
        }
    }

    fn of<T>(self, rows: Vec<T>) -> Vec<T> {
        rows.into_iter().skip(self.offset).take(self.limit).collect()
    }
}

/// A subdirectory as the tree shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubDir {
    pub name: String,
    /// Root-relative, no trailing `/`.
    pub path: String,
    /// Documents in it and below that the caller may see.
    pub count: usize,
}

/// One directory of the tree: its subdirectories (all of them) and a page of its documents.
#[derive(Debug)]
pub struct DirPage<'a> {
    pub dirs: Vec<SubDir>,
    pub docs: Vec<&'a DocumentInfo>,
    /// The documents directly in it that the caller may see, on every page.
    pub total_docs: usize,
}

/// What is in the root-relative directory `dir` of what `prefixes` open (root-relative, each
/// `""` or ending in `/`): its subdirectories in natural order, then a page of its documents.
/// A subdirectory above an opened path shows only what lies under that path.
pub fn browse<'a>(
    documents: &'a BTreeMap<String, DocumentInfo>,
    catalog: &Catalog,
    dir: &str,
    prefixes: &[String],
    page: Page,
) -> DirPage<'a> {
    let dir = dir.trim_matches('/');
    let Some(entry) = catalog.dir(dir) else {
        return DirPage {
            dirs: Vec::new(),
            docs: Vec::new(),
            total_docs: 0,
        };
    };
    let joined = |name: &str| {
        if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        }
    };
    let opened = |path: &str| prefixes.iter().any(|p| path.starts_with(p.as_str()));
    let dirs = entry
        .dirs
        .iter()
        .filter_map(|name| {
            let path = joined(name);
            let inside = format!("{path}/");
            let count = if opened(&inside) {
                catalog.dir(&path).map_or(0, |d| d.count)
            } else {
                // An ancestor of opened paths: what lies under them.
                prefixes
                    .iter()
                    .filter(|p| p.starts_with(&inside))
                    .filter_map(|p| catalog.dir(p))
                    .map(|d| d.count)
                    .sum()
            };
            (count > 0).then(|| SubDir {
                name: name.clone(),
                path,
                count,
            })
        })
        .collect();
    let visible: Vec<&DocumentInfo> = entry
        .docs
        .iter()
        .map(|name| joined(name))
        .filter(|path| opened(path))
        .filter_map(|path| documents.get(&path))
        .collect();
    let total_docs = visible.len();
    DirPage {
        dirs,
        docs: page.of(visible),
        total_docs,
    }
}

/// Which documents a list asks for.
#[derive(Debug, Clone, Default)]
pub struct Wanted {
    /// Every one must appear in the folded title, path inside its folder, aliases, `#tags` or
    /// description ([`words`] of what was typed).
    pub words: Vec<String>,
    /// A tag as stored; it or any tag under it.
    pub tag: Option<String>,
    /// Newest change first, not by path.
    pub recent: bool,
}

/// The documents under `prefixes` that `wanted` picks, by path or newest first, as a page, with
/// how many there are in all.
pub fn find<'a>(
    documents: &'a BTreeMap<String, DocumentInfo>,
    prefixes: &[String],
    wanted: &Wanted,
    page: Page,
) -> (Vec<&'a DocumentInfo>, usize) {
    let mut hay = String::new();
    let mut picked: Vec<&DocumentInfo> = prefixes
        .iter()
        .flat_map(|prefix| documents_under(documents, prefix))
        .filter(|doc| wanted.tag.as_deref().is_none_or(|tag| has_tag(doc, tag)))
        .filter(|doc| wanted.words.is_empty() || holds_all(filter_text(doc, &mut hay), &wanted.words))
        .collect();
    if wanted.recent {
        picked.sort_by(|a, b| newest_first(a, b));
    }
    let total = picked.len();
    (page.of(picked), total)
}

/// The quick switcher's matches under `prefixes`: documents whose title, path or an alias holds
/// every word of `query`, best first (the title starting with the query, then holding it whole,
/// then an alias starting with it, then the rest; newer first within each), at most `limit`.
/// With nothing typed, the most recently changed.
pub fn jump<'a>(
    documents: &'a BTreeMap<String, DocumentInfo>,
    prefixes: &[String],
    query: &str,
    limit: usize,
) -> Vec<&'a DocumentInfo> {
    let want = words(query);
    let whole = want.join(" ");
    let mut hay = String::new();
    let mut scored: Vec<(u8, &DocumentInfo)> = prefixes
        .iter()
        .flat_map(|prefix| documents_under(documents, prefix))
        .filter_map(|doc| {
            let Folded { title, aliases, .. } = folded(doc, &doc.path, &mut hay);
            if !holds_all(&hay, &want) {
                return None;
            }
            let score = if title.starts_with(&whole) {
                0
            } else if title.contains(&whole) {
                1
            } else if aliases.iter().any(|a| a.starts_with(&whole)) {
                2
            } else {
                3
            };
            Some((score, doc))
        })
        .collect();
    best(&mut scored, limit, |a, b| {
        a.0.cmp(&b.0).then_with(|| newest_first(a.1, b.1))
    });
    scored.into_iter().take(limit).map(|(_, doc)| doc).collect()
}

/// Every tag the documents under `prefixes` carry, by tag, with how many carry it.
pub fn tags(documents: &BTreeMap<String, DocumentInfo>, prefixes: &[String]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for doc in prefixes.iter().flat_map(|prefix| documents_under(documents, prefix)) {
        for tag in &doc.tags {
            *counts.entry(tag.as_str()).or_default() += 1;
        }
    }
    counts.into_iter().map(|(tag, n)| (tag.to_string(), n)).collect()
}

/// A document's title, a path of it and its aliases, folded ([`fold`]).
pub struct Folded<'d> {
    pub title: Cow<'d, str>,
    pub path: Cow<'d, str>,
    pub aliases: Vec<Cow<'d, str>>,
}

/// `doc`'s title, `path` (its path, or its path inside its folder) and aliases folded, and all of
/// them in `hay`, a line each, for [`holds_all`].
pub fn folded<'d>(doc: &'d DocumentInfo, path: &'d str, hay: &mut String) -> Folded<'d> {
    let found = Folded {
        title: fold(&doc.title),
        path: fold(path),
        aliases: doc.aliases.iter().map(|a| fold(a)).collect(),
    };
    hay.clear();
    hay.push_str(&found.title);
    hay.push('\n');
    hay.push_str(&found.path);
    for alias in &found.aliases {
        hay.push('\n');
        hay.push_str(alias);
    }
    found
}

/// Keeps the best `limit` of `rows` by `order`, sorted (all of them when `limit` is 0).
pub fn best<T>(rows: &mut Vec<T>, limit: usize, order: impl Fn(&T, &T) -> std::cmp::Ordering) {
    if limit > 0 && rows.len() > limit {
        rows.select_nth_unstable_by(limit - 1, &order);
        rows.truncate(limit);
    }
    rows.sort_by(order);
}

/// The words of what was typed, folded ([`fold`]); none for blank input.
pub fn words(query: &str) -> Vec<String> {
    fold(query).split_whitespace().map(str::to_string).collect()
}

/// Text as it is compared: NFKC, then lowercased, as `web/src/lib/fold.ts` folds it. ASCII is
/// only lowercased (NFKC leaves it as it is), which keeps a filter over 150,000 documents' titles
/// and paths within a few tens of milliseconds.
pub fn fold(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(text.to_ascii_lowercase())
        } else {
            Cow::Borrowed(text)
        }
    } else {
        Cow::Owned(text.nfkc().collect::<String>().to_lowercase())
    }
}

/// Whether `text` holds every one of `words`.
pub fn holds_all(text: &str, words: &[String]) -> bool {
    words.iter().all(|w| text.contains(w.as_str()))
}

/// What the list's filter reads of a document, folded, in `buf`: its title, its path inside its
/// folder, aliases, `#tags` and description, a line each.
fn filter_text<'b>(doc: &DocumentInfo, buf: &'b mut String) -> &'b str {
    buf.clear();
    let inside = doc.path.split_once('/').map_or(doc.path.as_str(), |(_, rest)| rest);
    let mut add = |text: &str| {
        if !buf.is_empty() {
            buf.push('\n');
        }
        buf.push_str(&fold(text));
    };
    add(&doc.title);
    add(inside);
    doc.aliases.iter().for_each(|a| add(a));
    doc.tags.iter().for_each(|t| add(&format!("#{t}")));
    add(&doc.description);
    buf
}

fn has_tag(doc: &DocumentInfo, tag: &str) -> bool {
    doc.tags
        .iter()
        .any(|t| t == tag || t.strip_prefix(tag).is_some_and(|rest| rest.starts_with('/')))
}

/// Newer change first, then by path.
pub fn newest_first(a: &DocumentInfo, b: &DocumentInfo) -> std::cmp::Ordering {
    b.mtime_ms.total_cmp(&a.mtime_ms).then_with(|| a.path.cmp(&b.path))
}

#[cfg(test)]
#[path = "browse_tests.rs"]
pub(crate) mod tests;
