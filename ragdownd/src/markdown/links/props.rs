//! Property tests of the links module: finding, splitting and resolving links never panics and
//! always answers inside what it was given, and a move's rewrite keeps every link pointing where
//! it pointed.
//!
//! The rewrite properties run on generated folders: a few documents (and attachments) in a few
//! directories with clashing names (`Plan` and `plan`, spaces, parentheses, `%`, a colon, unicode),
//! a valid move of one document or one directory, and a source that links to those documents in
//! every way a person writes it, with code spans and fences around some links.

use proptest::prelude::*;
use proptest::sample::{Index, select};

use super::*;
use crate::markdown::chunker::props::{any_text, line_count, markdown};

/// Directories of the generated folders. `new` is never among them: a move into it is always free.
const DIRS: &[&str] = &["", "ops", "Ops", "ops/deep", "a", "a/b", "My Notes (old)", "ü"];

/// Document names: ones that differ only in case, and ones with characters a link must encode.
const NAMES: &[&str] = &[
    "Plan", "plan", "Note", "a", "b", "x y", "Ünï", "日本", "Plan (1)", "v1.2", "100%", "re:plan", "🦀",
];

/// Where a move may go: the folder's own directories (taken or not) and fresh ones.
const TO_DIRS: &[&str] = &["", "ops", "ops/deep", "a/b", "new", "new/deeper", "archive"];

/// Heading names that generated Markdown has, and ones it may not.
const ANCHORS: &[&str] = &["word", "Ünïcödé", "Note#word", "#", "Goals", "[[Note]]"];

/// The root document that every generated folder has, and that no move touches.
const INDEX: &str = "index.md";

/// A generated folder and a move within it.
#[derive(Debug, Clone)]
struct World {
    /// The files before the move, sorted and distinct, each with its aliases.
    before: Vec<(String, Vec<String>)>,
    /// What moved: a document, or a directory when `is_dir`.
    from: String,
    /// Where it went.
    to: String,
    /// Whether `from` and `to` are directories.
    is_dir: bool,
    /// The document whose text is rewritten, as it was before the move.
    doc_path: String,
}

impl World {
    /// Where `path` is after the move, computed here independently of the module's own helper.
    fn apply(&self, path: &str) -> String {
        if path == self.from {
            return self.to.clone();
        }
        match path.strip_prefix(&self.from) {
            Some(rest) if self.is_dir && rest.starts_with('/') => format!("{}{rest}", self.to),
            _ => path.to_owned(),
        }
    }

    /// The files after the move.
    fn after(&self) -> Vec<(String, Vec<String>)> {
        self.before
            .iter()
            .map(|(path, aliases)| (self.apply(path), aliases.clone()))
            .collect()
    }
}

/// The list of targets over `entries`.
fn targets(entries: &[(String, Vec<String>)]) -> Vec<LinkTarget<'_>> {
    entries
        .iter()
        .map(|(path, aliases)| LinkTarget { path, aliases })
        .collect()
}

/// Whether `path` is taken in `paths`, as a file or as a directory above one.
fn is_taken(paths: &[(String, Vec<String>)], path: &str) -> bool {
    paths
        .iter()
        .any(|(taken, _)| taken == path || taken.starts_with(&format!("{path}/")))
}

/// The name of a path's last segment without its Markdown extension, lowercased.
fn stem(path: &str) -> String {
    strip_markdown(path.rsplit('/').next().unwrap_or_default()).to_lowercase()
}

/// One file of a generated folder: directory, name, whether it is an attachment, and an alias.
type FileChoice = (usize, usize, bool, Option<usize>);

/// The move: whether of a directory, which file it starts from, and the target's directory and
/// name.
type MoveChoice = (bool, Index, usize, usize);

/// A folder and a valid move in it. With `unique`, no two documents share a name (ignoring case,
/// before or after the move), there are no attachments and no aliases, and the rewritten
/// document is one the move leaves in place.
fn world(unique: bool) -> impl Strategy<Value = World> {
    let file = (
        0..DIRS.len(),
        0..NAMES.len(),
        any::<bool>(),
        prop::option::of(0..NAMES.len()),
    );
    (
        prop::collection::vec(file, 1..8),
        (any::<bool>(), any::<Index>(), 0..TO_DIRS.len(), 0..NAMES.len()),
        any::<Index>(),
    )
        .prop_map(move |(files, the_move, doc)| build_world(unique, &files, the_move, doc))
}

/// The folder the choices describe; see [`world`]. A move whose target is taken goes under `new/`
/// instead, which nothing in the folder is.
fn build_world(unique: bool, files: &[FileChoice], the_move: MoveChoice, doc: Index) -> World {
    let join = |dir: &str, name: &str| {
        if dir.is_empty() {
            name.to_owned()
        } else {
            format!("{dir}/{name}")
        }
    };
    let mut before: Vec<(String, Vec<String>)> = vec![(INDEX.to_owned(), Vec::new())];
    for &(dir, name, attachment, alias) in files {
        let (attachment, alias) = if unique { (false, None) } else { (attachment, alias) };
        let path = join(
            DIRS[dir],
            &format!("{}{}", NAMES[name], if attachment { ".png" } else { ".md" }),
        );
        let clash = |(taken, _): &(String, Vec<String>)| *taken == path || (unique && stem(taken) == stem(&path));
        if !before.iter().any(clash) {
            before.push((
                path,
                alias.map(|alias| vec![NAMES[alias].to_owned()]).unwrap_or_default(),
            ));
        }
    }
    before.sort();

    let (is_dir, which, to_dir, to_name) = the_move;
    let movable: Vec<&String> = before
        .iter()
        .map(|(path, _)| path)
        .filter(|path| *path != INDEX)
        .collect();
    let moved = movable.get(which.index(movable.len().max(1))).map(|path| path.as_str());
    let (from, to, is_dir) = match moved {
        None => (INDEX.to_owned(), "new/index.md".to_owned(), false),
        Some(path) if is_dir && !dirname(path).is_empty() => {
            let from = dirname(path).to_owned();
            let mut to = TO_DIRS[to_dir].to_owned();
            let bad = to.is_empty() || to == from || to.starts_with(&format!("{from}/")) || is_taken(&before, &to);
            if bad {
                to = format!("new/{}", from.replace('/', "-"));
            }
            (from, to, true)
        }
        Some(path) => {
            let own = path.rsplit('/').next().unwrap_or_default();
            let name = if unique {
                let fresh = format!("{}.md", NAMES[to_name]);
                let clashes = before
                    .iter()
                    .any(|(taken, _)| taken != path && stem(taken) == stem(&fresh));
                if clashes { own.to_owned() } else { fresh }
            } else {
                format!("{}.md", NAMES[to_name])
            };
            let mut to = join(TO_DIRS[to_dir], &name);
            if to == path || is_taken(&before, &to) {
                to = format!("new/{to}");
            }
            (path.to_owned(), to, false)
        }
    };
    let mut world = World {
        before,
        from,
        to,
        is_dir,
        doc_path: String::new(),
    };
    let documents: Vec<&String> = world
        .before
        .iter()
        .map(|(path, _)| path)
        .filter(|path| MARKDOWN_EXT.is_match(path) && (!unique || world.apply(path) == **path))
        .collect();
    world.doc_path = documents
        .get(doc.index(documents.len().max(1)))
        .map_or_else(|| INDEX.to_owned(), |path| (*path).clone());
    world
}

/// The path from directory `from_dir` to `to`, for writing the generated links.
fn relative(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|part| !part.is_empty()).collect();
    let to: Vec<&str> = to.split('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts = vec![".."; from.len() - common];
    parts.extend(&to[common..]);
    parts.join("/")
}

/// One piece of a generated source: what it is, the file it links to, and how it is written.
type Piece = (u8, Index, u8);

/// A source for `world`'s document: prose and links to the folder's files.
fn render(world: &World, pieces: &[Piece]) -> String {
    let dir = dirname(&world.doc_path);
    let mut out = String::new();
    for &(kind, file, style) in pieces {
        let (path, aliases) = &world.before[file.index(world.before.len())];
        let wiki = {
            let bare = if style & 8 == 0 {
                strip_markdown(path)
            } else {
                path.as_str()
            };
            let mut target = match style % 8 {
                0 => bare.rsplit('/').next().unwrap_or_default().to_owned(),
                1 => bare.to_owned(),
                2 => relative(dir, bare),
                3 => bare.rsplit('/').next().unwrap_or_default().to_lowercase(),
                4 => aliases.first().cloned().unwrap_or_else(|| bare.to_owned()),
                5 => NAMES[usize::from(style) % NAMES.len()].to_owned(),
                6 => String::new(),
                _ => format!("./{}", relative(dir, bare)),
            };
            if style & 16 != 0 {
                target.push_str("#Sec");
            }
            if style & 32 != 0 {
                target.push_str("|shown");
            }
            target
        };
        let markdown = {
            let mut target = relative(dir, path).replace(' ', "%20");
            if style & 1 != 0 && !target.starts_with("../") {
                target.insert_str(0, "./");
            }
            if style & 2 != 0 {
                target.push_str("#Sec%20two");
            }
            if style & 4 != 0 {
                format!("<{}>", target.replace("%20", " "))
            } else {
                target
            }
        };
        let piece = match kind % 10 {
            0 => format!("[[{wiki}]]"),
            1 => format!("![[{wiki}]]"),
            2 => format!("[text]({markdown})"),
            3 => format!("![alt]({markdown} \"title\")"),
            4 => format!("[![img]({markdown})]({})", relative(dir, &world.before[0].0)),
            5 => format!("`[[{wiki}]]` ``[x]({markdown})``"),
            6 => format!("\n```\n[[{wiki}]]\n```\n"),
            7 => "\n\n".to_owned(),
            8 => "\r\n- item ".to_owned(),
            _ => " and ".to_owned(),
        };
        out.push_str(&piece);
    }
    out
}

/// A world and a source for its document.
fn world_and_source(unique: bool) -> impl Strategy<Value = (World, String)> {
    (
        world(unique),
        prop::collection::vec((any::<u8>(), any::<Index>(), any::<u8>()), 0..12),
    )
        .prop_map(|(world, pieces)| {
            let source = render(&world, &pieces);
            (world, source)
        })
}

/// The source with every link's target cut out: what a rewrite must leave as it was.
fn around_targets<'s>(source: &'s str, links: &[Link]) -> Vec<&'s str> {
    // An image inside a link's text comes after the link but its target before the link's.
    let mut ranges: Vec<_> = links.iter().map(|link| link.target_range.clone()).collect();
    ranges.sort_by_key(|range| range.start);
    let mut pieces = Vec::new();
    let mut at = 0;
    for range in ranges {
        pieces.push(&source[at..range.start]);
        at = range.end;
    }
    pieces.push(&source[at..]);
    pieces
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Every link found lies on its line, inside the source, and reads back as its fields say.
    #[test]
    fn found_links_lie_inside_the_source(source in any_text()) {
        let lines = line_count(&source);
        let mut previous = 0;
        for link in find_links(&source) {
            prop_assert!(1 <= link.line && link.line <= lines, "line {} of {}", link.line, lines);
            prop_assert!(previous <= link.range.start, "out of order");
            previous = link.range.start;
            let whole = source.get(link.range.clone());
            let target = source.get(link.target_range.clone());
            let (Some(whole), Some(target)) = (whole, target) else {
                return Err(TestCaseError::fail(format!("off the source or a char boundary: {link:?}")));
            };
            prop_assert!(link.range.start <= link.target_range.start && link.target_range.end <= link.range.end);
            prop_assert!(!whole.contains(['\n', '\r']), "a link spans lines: {:?}", whole);
            prop_assert_eq!(line_count(&source[..link.range.start]), link.line);
            prop_assert_eq!(link.embed, whole.starts_with('!'));
            match link.kind {
                LinkKind::Wiki => {
                    let brackets = whole.trim_start_matches('!').starts_with("[[") && whole.ends_with("]]");
                    prop_assert!(brackets, "{:?}", whole);
                    prop_assert_eq!(target, link.target.as_str());
                    prop_assert!(link.alias.as_ref().is_none_or(|alias| !alias.is_empty()));
                }
                LinkKind::Markdown => {
                    let brackets = whole.trim_start_matches('!').starts_with('[') && whole.ends_with(')');
                    prop_assert!(brackets, "{:?}", whole);
                    let decoded = target == link.target || target.contains('%');
                    prop_assert!(decoded, "{:?} read as {:?}", target, link.target);
                    prop_assert!(!link.target.is_empty() && link.alias.is_none());
                }
            }
            let heading = link.heading.as_deref();
            prop_assert!(heading.is_none_or(|heading| !heading.is_empty() && !heading.starts_with('^')));
        }
    }

    /// A link's parts are pieces of what was written.
    #[test]
    fn split_wikilink_returns_parts_of_its_input(raw in any_text()) {
        let (target, heading) = split_wikilink(&raw);
        prop_assert!(raw.contains(target) && target == target.trim());
        if let Some(heading) = heading {
            prop_assert!(raw.contains(heading) && !heading.is_empty() && !heading.starts_with('^'));
        }
    }

    /// Resolving answers with one of the documents or nothing; a path resolves to itself from
    /// anywhere; a name that only one document has resolves to it.
    #[test]
    fn resolution_answers_with_a_document(
        world in world(false),
        target in prop_oneof![any_text(), select(NAMES).prop_map(str::to_owned)],
        from in any_text(),
    ) {
        let documents = targets(&world.before);
        let found = resolve_wikilink(&target, &from, &documents);
        prop_assert!(found.is_none_or(|found| world.before.iter().any(|(path, _)| path == found)));
        for (path, _) in &world.before {
            prop_assert_eq!(resolve_wikilink(path, &world.doc_path, &documents), Some(path.as_str()));
            // Names are matched before aliases, so only other names can take this one's.
            let named = world.before.iter().filter(|(other, _)| stem(other) == stem(path)).count();
            if MARKDOWN_EXT.is_match(path) && named == 1 {
                let name = strip_markdown(path.rsplit('/').next().unwrap_or_default());
                let found = resolve_wikilink(name, &world.doc_path, &documents);
                prop_assert_eq!(found, Some(path.as_str()), "[[{}]]", name);
            }
        }
    }

    /// Resolving among a [`NameIndex`]'s candidates answers what resolving among every document
    /// does, for any link from anywhere: names, paths, aliases, other cases, `..`, `#heading`,
    /// escapes, and every document's own path and name.
    #[test]
    fn resolving_among_the_name_index_candidates_is_resolving_among_all(
        world in world(false),
        target in prop_oneof![
            any_text(),
            select(NAMES).prop_map(str::to_owned),
            select(NAMES).prop_map(|name| name.to_uppercase()),
            select(&[
                "", "#Goals", "..", "../Plan", "./a", "ops/Plan", "Ops/deep/Plan.md", "PLAN.MD", "a/b/x y",
                "deep/../Plan", "%E6%97%A5%E6%9C%AC", "Plan (1)|shown", "![[Note#Goals]]", "ops\\deep\\a",
            ][..]).prop_map(str::to_owned),
        ],
        from in prop_oneof![any_text(), select(DIRS).prop_map(|dir| format!("{dir}/x.md"))],
    ) {
        let documents = targets(&world.before);
        let index = NameIndex::new(world.before.iter().map(|(path, aliases)| (path.as_str(), aliases.as_slice())));
        let mut links = vec![target];
        for (path, aliases) in &world.before {
            links.push(path.clone());
            links.push(strip_markdown(path.rsplit('/').next().unwrap_or_default()).to_lowercase());
            links.extend(aliases.iter().cloned());
        }
        for from in [from.as_str(), world.doc_path.as_str()] {
            for link in &links {
                let among: Vec<LinkTarget<'_>> =
                    index.candidates(link, from).into_iter().map(|i| documents[i]).collect();
                prop_assert_eq!(
                    resolve_wikilink(link, from, &among),
                    resolve_wikilink(link, from, &documents),
                    "[[{}]] from {}", link, from
                );
            }
        }
    }

    /// The name `[[` completion writes for a document ([`shortest_name`], from the documents filed
    /// under its [`stem_key`]) resolves to that document, from anywhere in the folder.
    #[test]
    fn a_documents_shortest_name_resolves_to_it_from_anywhere(
        world in world(false),
        from in select(DIRS).prop_map(|dir| format!("{dir}/x.md")),
    ) {
        let documents = targets(&world.before);
        let index = NameIndex::new(world.before.iter().map(|(path, aliases)| (path.as_str(), aliases.as_slice())));
        for (path, _) in &world.before {
            let namesakes = index.filed(&stem_key(path)).iter().map(|&i| world.before[i as usize].0.as_str());
            let name = shortest_name(path, namesakes);
            prop_assert_eq!(resolve_wikilink(&name, &from, &documents), Some(path.as_str()), "[[{}]] from {}", name, from);
        }
    }

    /// Every link that points at a document has a key that document is filed under (or is the
    /// linking document itself, or may point anywhere): the backlink search that looks only at
    /// links with a document's keys misses none.
    #[test]
    fn a_link_to_a_document_has_one_of_its_name_keys(
        (world, rendered) in world_and_source(false),
        noise in any_text(),
    ) {
        let documents = targets(&world.before);
        let from = world.doc_path.as_str();
        for source in [rendered, noise] {
            for link in find_links(&source) {
                let found = match link.kind {
                    LinkKind::Wiki => resolve_wikilink(&link.target, from, &documents).map(str::to_owned),
                    LinkKind::Markdown => resolve_relative(&link.target, from),
                };
                let Some((path, aliases)) = found.and_then(|found| world.before.iter().find(|(path, _)| *path == found))
                else {
                    continue;
                };
                match link_key(&link) {
                    LinkKey::Named(key) => prop_assert!(
                        name_keys(path, aliases).contains(&key),
                        "{:?} -> {} filed as {:?}", link, path, name_keys(path, aliases)
                    ),
                    LinkKey::Itself => prop_assert_eq!(path.as_str(), from),
                    LinkKey::Anywhere => {}
                }
            }
        }
    }

    /// A relative link resolves to a normalised root-relative path, which resolves to itself.
    /// `from` is a posix path, as every caller passes it: a `\` in it would be part of a name.
    #[test]
    fn relative_links_resolve_inside_the_root(
        target in any_text(),
        from in any_text().prop_map(|from| from.replace('\\', "/")),
    ) {
        if let Some(path) = resolve_relative(&target, &from) {
            prop_assert!(!path.starts_with('/') && !path.contains('\\'));
            let normalised = path.split('/').all(|segment| !matches!(segment, "" | "." | ".."));
            prop_assert!(normalised, "{:?}", path);
            prop_assert_eq!(resolve_relative(&path, "x.md"), Some(path.clone()));
        }
    }

    /// A heading's section lies inside the lines it was found in.
    #[test]
    fn heading_ranges_lie_inside_the_lines(
        source in markdown(),
        anchor in prop_oneof![any_text(), select(ANCHORS).prop_map(str::to_owned)],
    ) {
        let lines: Vec<&str> = source.lines().collect();
        if let Some((start, end)) = heading_range(&lines, &anchor) {
            let inside = 1 <= start && start <= end && end <= lines.len();
            prop_assert!(inside, "{}-{} of {}", start, end, lines.len());
        }
    }

    /// Rewriting for any move never panics on any text.
    #[test]
    fn rewriting_never_panics(world in world(false), source in any_text()) {
        let after = world.after();
        let after = targets(&after);
        let _ = rewrite_for_move(&source, &world.doc_path, &world.from, &world.to, world.is_dir, &after);
    }

    /// After the rewrite each link is still there, in the same place with the same heading and
    /// alias, and every one that pointed somewhere before the move points, from the document's
    /// new place, where the move took that. Nothing but link targets changes.
    #[test]
    fn a_rewrite_keeps_every_link_pointing_where_it_pointed((world, source) in world_and_source(false)) {
        let before = targets(&world.before);
        let after_entries = world.after();
        let after = targets(&after_entries);
        let at = world.apply(&world.doc_path);
        let rewritten = rewrite_for_move(&source, &world.doc_path, &world.from, &world.to, world.is_dir, &after);
        prop_assert!(rewritten.as_deref() != Some(source.as_str()), "Some means changed");
        let rewritten = rewritten.unwrap_or_else(|| source.clone());

        let old = find_links(&source);
        let new = find_links(&rewritten);
        prop_assert_eq!(old.len(), new.len(), "links came or went: {:?}", rewritten);
        prop_assert_eq!(around_targets(&source, &old), around_targets(&rewritten, &new));
        for (old, new) in old.iter().zip(&new) {
            prop_assert_eq!(
                (old.kind, &old.heading, &old.alias, old.line, old.embed),
                (new.kind, &new.heading, &new.alias, new.line, new.embed)
            );
            let (was, now) = match old.kind {
                LinkKind::Wiki => (
                    resolve_wikilink(&old.target, &world.doc_path, &before).map(str::to_owned),
                    resolve_wikilink(&new.target, &at, &after).map(str::to_owned),
                ),
                LinkKind::Markdown => (
                    resolve_relative(&old.target, &world.doc_path),
                    resolve_relative(&new.target, &at),
                ),
            };
            if let Some(was) = was {
                let want = Some(world.apply(&was));
                prop_assert_eq!(now, want, "{:?} became {:?} in {:?}", old.target, new.target, rewritten);
            }
        }
    }

    /// Rewriting the rewritten text for the same move changes nothing, for a document the move
    /// leaves in place in a folder where no two documents share a name.
    ///
    /// The rewrite reads its input as the text of before the move, so the second pass reads links
    /// that were written for the folder after it; the two conditions are where both readings
    /// agree. A moved document's `[s](../sibling.md)`, written for its new directory, means
    /// another file from the old one; and a `[[c/Plan]]` written for the new `c/Plan.md` means
    /// `z/c/Plan.md` before the move, when only that one had the name. In both cases a second pass
    /// rewrites again, as it should for text that really was written before the move.
    #[test]
    fn rewriting_twice_changes_nothing((world, source) in world_and_source(true)) {
        let after_entries = world.after();
        let after = targets(&after_entries);
        let rewrite = |text: &str| {
            rewrite_for_move(text, &world.doc_path, &world.from, &world.to, world.is_dir, &after)
        };
        let once = rewrite(&source).unwrap_or(source);
        prop_assert_eq!(rewrite(&once), None, "{:?} was rewritten again", once);
    }
}
