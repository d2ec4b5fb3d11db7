//! A document's links rewritten after a move, so each still points where it pointed: links to
//! what moved, a moved document's own links to what stayed, and wikilinks the move would
//! otherwise retarget. Markdown link paths are written percent-encoded; wikilinks get the
//! shortest name that still resolves.
//!
//! It changes only link targets, byte for byte around them, and leaves the writing of files to
//! `ragdown_move`.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use super::{
    LinkKind, LinkTarget, MARKDOWN_EXT, SCHEME, dirname, find_links, resolve_relative, resolve_wikilink, strip_markdown,
};

/// Rewrites the links in `source`, a document that was at `doc_path` before the move, so that
/// each still points where it pointed before `moved_from` moved to `moved_to`; `None` when nothing
/// changed. With `is_dir`, `moved_from` and `moved_to` are directories and everything under them
/// moved along.
///
/// This covers links to what moved, a moved document's own relative links to what stayed, and a
/// wikilink that the move would silently retarget (a moved `Plan.md` shadowing the `Plan` it used
/// to mean). Markdown links get the relative path from the linking document's new directory,
/// percent-encoded like JavaScript's `encodeURI` plus `(`, `)` and `#`, keeping a `#fragment`
/// and a leading `./` (and starting with `./` where it would read as a URL scheme, `re:plan.md`).
/// Wikilinks get the shortest trailing part of the new path (without `.md`
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
                let path = relative_path(dirname(&at), &want);
                let mut encoded = encode_link_path(&path);
                let keeps_dot = source[link.target_range.clone()].starts_with("./") && !path.starts_with("../");
                // `re:plan.md` would read as a URL with the scheme `re:`, and no longer as a link.
                if keeps_dot || SCHEME.is_match(&encoded) {
                    encoded.insert_str(0, "./");
                }
                encoded
            }
        };
        edits.push((link.target_range, replacement));
    }
    // Links come in the order they start, but an image in a link's text (`[![i](a.png)](b.md)`)
    // starts after the link and has its target before the link's.
    edits.sort_by_key(|(range, _)| range.start);

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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::links::fixtures::{docs, plain};

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
    fn crlf_survives_a_rewrite() {
        let source = "# T\r\n\r\nSee [[old]] and [o](old.md).\r\n";
        let after = plain(&["index.md", "new.md"]);
        assert_eq!(
            rewrite_for_move(source, "index.md", "old.md", "new.md", false, &docs(&after)).as_deref(),
            Some("# T\r\n\r\nSee [[new]] and [o](new.md).\r\n")
        );
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

    /// Found by `links::props`: the image's edit came after the link's, whose target ends later,
    /// and was dropped as an overlap.
    #[test]
    fn an_image_inside_a_link_is_rewritten_too() {
        let after = plain(&["index.md", "Plan.md"]);
        assert_eq!(
            rewrite_for_move(
                "[![img](Ops/Plan.md)](Ops/Plan.md)",
                "index.md",
                "Ops/Plan.md",
                "Plan.md",
                false,
                &docs(&after)
            )
            .as_deref(),
            Some("[![img](Plan.md)](Plan.md)")
        );
    }

    /// Found by `links::props`: the new path began like a URL scheme, so the rewritten link was
    /// no longer a link.
    #[test]
    fn a_path_that_looks_like_a_scheme_is_written_with_a_dot() {
        let after = plain(&["index.md", "re:plan.md"]);
        let rewritten = rewrite_for_move(
            "[t](Plan.md)",
            "index.md",
            "Plan.md",
            "re:plan.md",
            false,
            &docs(&after),
        )
        .expect("the link moves");
        assert_eq!(rewritten, "[t](./re:plan.md)");
        assert_eq!(find_links(&rewritten)[0].target, "./re:plan.md");
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
}
