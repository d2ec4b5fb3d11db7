//! `[[` completion answered by the server, so an editor in a folder of 150,000 documents neither
//! loads them all nor matches them all on each keystroke: the folder's documents whose title, path
//! or an alias hold every typed word, the best `limit` of them, each with the shortest name a
//! wikilink can use for it ([`shortest_name`], unique in the whole folder, since a link resolves
//! there whatever the caller may read). Pure over the documents and names held per table version.

use std::collections::BTreeMap;

use super::browse::{Folded, best, folded, holds_all, newest_first, words};
use crate::index::catalog::natural;
use crate::index::reads::documents_under;
use crate::index::rows::{DocumentInfo, Names};
use crate::markdown::links::{shortest_name, stem_key};

/// One document as `[[` offers it.
#[derive(Debug)]
pub struct Offer<'a> {
    /// What the link writes: the shortest name that finds only this document.
    pub name: String,
    pub doc: &'a DocumentInfo,
}

/// The best `limit` documents under `prefixes` (inside the folder `folder`) for what was typed
/// after `[[`: every word in the title, the path inside the folder or an alias; a title or file
/// name starting with the query first, then an alias starting with it, then the rest, shorter
/// paths first within each. With nothing typed, the most recently changed.
pub fn complete<'a>(
    documents: &'a BTreeMap<String, DocumentInfo>,
    names: &Names,
    folder: &str,
    prefixes: &[String],
    query: &str,
    limit: usize,
) -> Vec<Offer<'a>> {
    let inside = |doc: &'a DocumentInfo| {
        doc.path
            .strip_prefix(folder)
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(&doc.path)
    };
    let want = words(query);
    let whole = want.join(" ");
    let mut hay = String::new();
    let mut scored: Vec<(u8, &DocumentInfo)> = prefixes
        .iter()
        .flat_map(|prefix| documents_under(documents, prefix))
        .filter_map(|doc| {
            let Folded { title, path, aliases } = folded(doc, inside(doc), &mut hay);
            if !holds_all(&hay, &want) {
                return None;
            }
            let file = path.rsplit('/').next().unwrap_or(&path);
            let rank = if title.starts_with(&whole) || file.starts_with(&whole) {
                0
            } else if aliases.iter().any(|a| a.starts_with(&whole)) {
                1
            } else {
                2
            };
            Some((rank, doc))
        })
        .collect();
    let order = |a: &(u8, &DocumentInfo), b: &(u8, &DocumentInfo)| {
        if want.is_empty() {
            return newest_first(a.1, b.1);
        }
        a.0.cmp(&b.0)
            .then_with(|| a.1.path.len().cmp(&b.1.path.len()))
            .then_with(|| natural(&a.1.path, &b.1.path))
    };
    best(&mut scored, limit, order);
    let within = format!("{folder}/");
    scored
        .into_iter()
        .map(|(_, doc)| {
            let namesakes = names
                .filed_under(&stem_key(&doc.path))
                .filter_map(|other| other.path.strip_prefix(within.as_str()));
            Offer {
                name: shortest_name(inside(doc), namesakes),
                doc,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::rows::DocumentNames;
    use crate::tools::browse::tests::doc;

    fn vault() -> (BTreeMap<String, DocumentInfo>, Names) {
        let mut kafka = doc("notes/ops/kafka.md", "Kafka operations", 1.0);
        kafka.aliases = vec!["Event bus".into()];
        let documents: BTreeMap<String, DocumentInfo> = [
            kafka,
            doc("notes/x.md", "X at the top", 2.0),
            doc("notes/a/x.md", "X in a", 3.0),
            doc("notes/b/x.md", "X in b", 4.0),
            doc("notes/ideas/kafka-ideas.md", "Ideas", 5.0),
            doc("work/x.md", "Work's own X", 6.0),
            doc("notes/cjk/数据库备份.md", "数据库备份", 7.0),
        ]
        .into_iter()
        .map(|d| (d.path.clone(), d))
        .collect();
        let names = Names::new(
            documents
                .values()
                .map(|d| DocumentNames {
                    path: d.path.clone(),
                    aliases: d.aliases.clone(),
                })
                .collect(),
        );
        (documents, names)
    }

    fn offered(query: &str, prefixes: &[&str]) -> Vec<(String, String)> {
        let (documents, names) = vault();
        let prefixes: Vec<String> = prefixes.iter().map(|p| p.to_string()).collect();
        complete(&documents, &names, "notes", &prefixes, query, 10)
            .into_iter()
            .map(|o| (o.name, o.doc.path.clone()))
            .collect()
    }

    #[test]
    fn each_offer_has_the_shortest_name_unique_in_its_folder() {
        let all = offered("x", &["notes/"]);
        let name = |path: &str| all.iter().find(|(_, p)| p == path).map(|(n, _)| n.clone());
        // Another folder's x.md does not count: links resolve within the folder.
        assert_eq!(name("notes/a/x.md").as_deref(), Some("a/x"));
        assert_eq!(name("notes/b/x.md").as_deref(), Some("b/x"));
        assert_eq!(
            name("notes/x.md").as_deref(),
            Some("x"),
            "its whole path, which resolves exactly"
        );
        assert_eq!(
            offered("kafka op", &["notes/"]),
            [("kafka".to_string(), "notes/ops/kafka.md".to_string())]
        );
    }

    /// The cases the browser's own `shortestNames` was held to, before the server named links.
    #[test]
    fn a_name_takes_as_many_parent_directories_as_tell_it_apart_ignoring_case() {
        let names =
            |paths: &[&str]| -> Vec<String> { paths.iter().map(|p| shortest_name(p, paths.iter().copied())).collect() };
        assert_eq!(
            names(&["kafka.md", "guides/deploy.md", "a/b/c/runbook.markdown"]),
            ["kafka", "deploy", "runbook"]
        );
        assert_eq!(
            names(&["ops/db/backup.md", "dev/db/backup.md", "notes/backup-old.md"]),
            ["ops/db/backup", "dev/db/backup", "backup-old"]
        );
        assert_eq!(names(&["a/x.md", "b/x.md", "b/y.md"]), ["a/x", "b/x", "y"]);
        assert_eq!(names(&["Notes/Todo.md", "work/todo.md"]), ["Notes/Todo", "work/todo"]);
        assert_eq!(names(&["x.md", "a/x.md"]), ["x", "a/x"]);
        assert_eq!(names(&["kafka/overview.md", "kafka.md"]), ["overview", "kafka"]);
    }

    #[test]
    fn a_title_or_file_name_starting_with_the_query_comes_first_then_an_alias() {
        let paths = |q: &str| offered(q, &["notes/"]).into_iter().map(|(_, p)| p).collect::<Vec<_>>();
        assert_eq!(paths("kafka"), ["notes/ops/kafka.md", "notes/ideas/kafka-ideas.md"]);
        assert_eq!(paths("idea"), ["notes/ideas/kafka-ideas.md"]);
        assert_eq!(paths("event"), ["notes/ops/kafka.md"]);
        assert_eq!(paths("备份"), ["notes/cjk/数据库备份.md"]);
        assert_eq!(paths("ＫＡＦＫＡ ops"), ["notes/ops/kafka.md"]);
        // Nothing typed: the newest first.
        assert_eq!(
            paths("")[..2],
            ["notes/cjk/数据库备份.md", "notes/ideas/kafka-ideas.md"]
        );
    }

    #[test]
    fn a_scoped_caller_is_offered_only_what_it_may_read_but_named_over_the_folder() {
        assert_eq!(
            offered("x", &["notes/a/"]),
            [("a/x".to_string(), "notes/a/x.md".to_string())]
        );
    }
}
