//! Following links (`RAGDOWN_FOLLOW_LINKS`): the wikilinks in the own section of a search's best
//! hits are resolved within the hit's folder, and each linked document's two sections closest to
//! the query are placed right after the hit, with that hit's score and their own cosine.
//!
//! What counts as a link and where it points is `markdown::links`'s; this module only asks the
//! index for the linked sections, under the search's own filter, and splices them in.

use super::{Hit, SearchError};
use crate::index::filter::Filter;
use crate::index::rows::Names;
use crate::index::scan::Layout;
use crate::index::store::Store;
use crate::markdown::links::{self, LinkKind};

/// How many sections of each linked document are placed after the hit that links it.
pub const SECTIONS_PER_LINK: usize = 2;

/// The `sources` entry of a section placed by a link.
pub const LINK_SOURCE: &str = "link";

/// The root-relative folder a path belongs to (`work/` under serve, `` under stdio): links
/// resolve inside it.
pub fn folder_of(path: &str, layout: Layout) -> &str {
    match layout {
        Layout::Single => "",
        Layout::Folders => path.find('/').map_or("", |slash| &path[..=slash]),
    }
}

/// The documents the wikilinks in `text` (a section of the document at `from`) resolve to within
/// its folder, in link order, each once, never `from` itself.
pub fn linked_documents(text: &str, from: &str, layout: Layout, names: &Names) -> Vec<String> {
    let folder = folder_of(from, layout);
    let from_in_folder = from.strip_prefix(folder).unwrap_or(from);
    let mut out: Vec<String> = Vec::new();
    for link in links::find_links(text).into_iter().filter(|l| l.kind == LinkKind::Wiki) {
        if let Some(path) = names.resolve(&link.target, from_in_folder, folder)
            && path != from
            && !out.iter().any(|p| p == path)
        {
            out.push(path.to_string());
        }
    }
    out
}

/// Places the linked sections of the first `follow` hits right after each of them. A section
/// already ranked above the place it would go is left where it is; one ranked below moves up.
pub async fn follow_links(
    store: &Store,
    query_vector: &[f32],
    filter: &Filter,
    hits: Vec<Hit>,
    follow: usize,
    layout: Layout,
) -> Result<Vec<Hit>, SearchError> {
    if follow == 0 || hits.is_empty() {
        return Ok(hits);
    }
    let names = store.names().await?;
    let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
    let mut rest = hits;
    let mut followed = 0;
    while !rest.is_empty() {
        let hit = rest.remove(0);
        let linked = if followed < follow {
            followed += 1;
            linked_documents(&hit.chunk.text, &hit.chunk.path, layout, &names)
        } else {
            Vec::new()
        };
        let score = hit.score;
        out.push(hit);
        for path in linked {
            for section in store
                .dense(query_vector, &filter.and_path(&path), SECTIONS_PER_LINK)
                .await?
            {
                if out.iter().any(|h| h.chunk.id == section.id) {
                    continue;
                }
                rest.retain(|h| h.chunk.id != section.id);
                out.push(Hit {
                    chunk: section,
                    score,
                    sources: vec![LINK_SOURCE],
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::index::rows::DocumentNames;

    fn names(paths: &[(&str, &[&str])]) -> Names {
        Names::new(
            paths
                .iter()
                .map(|(path, aliases)| DocumentNames {
                    path: path.to_string(),
                    aliases: aliases.iter().map(|a| a.to_string()).collect(),
                })
                .collect(),
        )
    }

    #[test]
    fn links_resolve_within_the_hits_folder() {
        let docs = names(&[
            ("work/incident.md", &[]),
            ("work/procedures/failover.md", &["Plan B"]),
            ("home/failover.md", &[]),
            ("home/incident.md", &[]),
        ]);
        let text = "Recovered with [[failover]], see [[Plan B]] and [[incident]]; `[[not-a-link]]`.";
        assert_eq!(
            linked_documents(text, "work/incident.md", Layout::Folders, &docs),
            ["work/procedures/failover.md"],
            "once each, never the hit's own document, never another folder's"
        );
        assert_eq!(
            linked_documents("[[failover]]", "home/incident.md", Layout::Folders, &docs),
            ["home/failover.md"]
        );
        // Under stdio the whole docs dir is one folder: the shortest path wins.
        assert_eq!(
            linked_documents("[[failover]]", "work/incident.md", Layout::Single, &docs),
            ["home/failover.md"]
        );
        assert!(
            linked_documents(
                "[[nowhere]] and [text](failover.md)",
                "work/incident.md",
                Layout::Folders,
                &docs
            )
            .is_empty()
        );
    }

    #[test]
    fn a_paths_folder_follows_the_layout() {
        assert_eq!(folder_of("work/a/b.md", Layout::Folders), "work/");
        assert_eq!(folder_of("work/a/b.md", Layout::Single), "");
        assert_eq!(folder_of("loose.md", Layout::Folders), "");
    }
}
