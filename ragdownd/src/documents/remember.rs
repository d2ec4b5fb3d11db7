//! `ragdown_remember`: a new document with front matter, written under a name that is free, never
//! over an existing file (`name.md`, then `name-2.md`, `name-3.md` …).
//!
//! This module names, formats and creates the file and checks `supersedes`; choosing the folder
//! (the notes dir or a subfolder scope) and syncing the index are the caller's.

use std::fs;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::Record;
use super::paths::Root;
use super::paths::is_skipped;
use super::write::create_new;
use super::{DocError, json_quote};
use crate::markdown::trim_js;

/// The longest slug, in characters.
const SLUG_CHARS: usize = 60;

/// The most `-n` suffixes tried before giving up on a name.
const MAX_SUFFIX: usize = 10_000;

/// A run of anything that is not a letter or a digit: one `-` in a slug.
static NOT_WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[^\p{L}\p{N}]+").expect("valid slug regex"));

/// A file name made from a title: lowercased, accents folded off, every run of characters that are
/// not letters or digits turned into one `-`, no `-` at either end, at most 60 characters; `note`
/// when nothing is left.
pub fn slug(title: &str) -> String {
    // Folded before lowercasing, so `№` (NFKD `No`) comes out lowercase too.
    let folded = fold(title).to_lowercase();
    let dashed = NOT_WORD.replace_all(&folded, "-");
    // Cut after trimming `-` from both ends, then trimmed again so a cut never ends in `-`.
    let cut: String = dashed.trim_matches('-').chars().take(SLUG_CHARS).collect();
    match cut.trim_end_matches('-') {
        "" => "note".to_owned(),
        slug => slug.to_owned(),
    }
}

/// Compatibility decomposition (NFKD) with the combining marks it splits off dropped, so `Café`
/// slugs as `cafe` and `ﬁle` as `file`, then composed again (NFC). The Kana voicing marks stay
/// (`バックアップ` would lose them and become `ハックアッフ`), and composing again puts Hangul
/// syllables, which NFKD splits into jamo, back together (`백업`, not `백업`).
fn fold(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    text.nfkd()
        .filter(|&c| !unicode_normalization::char::is_combining_mark(c) || matches!(c, '\u{3099}' | '\u{309A}'))
        .nfc()
        .collect()
}

/// The front matter of a remembered document, ending with the closing `---` and its line break:
///
/// ```text
/// ---
/// title: "<JSON-quoted>"
/// date: YYYY-MM-DD
/// tags: ["a", "b"]            (only with tags)
/// supersedes: ["../x.md"]     (only with supersedes: paths relative to the document's folder)
/// created_by: ragdown_remember
/// session: "<JSON-quoted>"    (only with a non-empty session)
/// ---
/// ```
pub fn remember_frontmatter(
    title: &str,
    date: &str,
    tags: &[String],
    supersedes: &[String],
    session: Option<&str>,
) -> String {
    let list = |items: &[String]| items.iter().map(|item| json_quote(item)).collect::<Vec<_>>().join(", ");
    let mut lines = vec![
        "---".to_owned(),
        format!("title: {}", json_quote(title)),
        format!("date: {date}"),
    ];
    if !tags.is_empty() {
        lines.push(format!("tags: [{}]", list(tags)));
    }
    if !supersedes.is_empty() {
        lines.push(format!("supersedes: [{}]", list(supersedes)));
    }
    // Provenance: a document an agent wrote is not one the user wrote, and whoever reads it later
    // should be able to tell which one they hold.
    lines.push("created_by: ragdown_remember".to_owned());
    if let Some(session) = session.filter(|session| !session.is_empty()) {
        lines.push(format!("session: {}", json_quote(session)));
    }
    lines.push("---\n".to_owned());
    lines.join("\n")
}

/// A remembered document's whole text: its front matter, then `content` with trailing whitespace
/// trimmed and one line break.
pub fn remember_text(frontmatter: &str, content: &str) -> String {
    let content = content.trim_end_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    format!("{frontmatter}{content}\n")
}

/// The first of `dir/name.md`, `dir/name-2.md`, `dir/name-3.md` … that does not exist. Only a
/// guess for display: [`create_unique`] is what claims a name without a race.
pub fn unique_path(dir: &Path, name: &str) -> PathBuf {
    (1..=MAX_SUFFIX)
        .map(|n| candidate(dir, name, n))
        .find(|path| matches!(fs::symlink_metadata(path), Err(err) if err.kind() == ErrorKind::NotFound))
        .unwrap_or_else(|| candidate(dir, name, MAX_SUFFIX + 1))
}

/// Creates a new document `<name>.md` in the folder `notes` holding `text`, or `name-2.md`,
/// `name-3.md` … when that is taken, and returns its path. Never replaces a file: each name is
/// claimed atomically, so two callers with one name get two files. `name` may hold `/` for a
/// subfolder (created as needed), but no `..`, no absolute path and nothing the index skips; the
/// path is checked from the docs dir down ([`Root::resolve`]), so a symlinked notes folder or
/// subfolder cannot lead the note out.
pub fn create_unique(notes: &Root, name: &str, text: &str, change: &dyn Record) -> Result<PathBuf, DocError> {
    check_name(name)?;
    let first = notes.resolve(&format!("{name}.md"), true)?;
    change.mkdirs(&first)?;
    notes.create_parent_dirs(&first)?;
    let dir = first.parent().unwrap_or(notes.docs_dir()).to_path_buf();
    let base = name.replace('\\', "/");
    let stem = base.rsplit('/').next().unwrap_or(&base);
    for n in 1..=MAX_SUFFIX {
        let path = candidate(&dir, stem, n);
        if fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        change.file(&path, None, Some(text.as_bytes()))?;
        match create_new(&path, text.as_bytes()) {
            Ok(()) => return Ok(path),
            Err(err) if err.kind() == ErrorKind::AlreadyExists => change.forget_last(),
            Err(err) => {
                change.forget_last();
                return Err(DocError::io(format!("could not write {}", path.display()))(err));
            }
        }
    }
    Err(DocError::conflict(format!(
        "every name from {name}.md to {name}-{MAX_SUFFIX}.md is taken"
    )))
}

/// Checks each `supersedes` entry, a path relative to `root` (the scope), and returns the files they
/// name. Refused with a 400 for a path outside `root` (or through a symlink) and a 404 for one that
/// is not a file, so an agent that got a path wrong hears so rather than believing it replaced a
/// document.
pub fn resolve_supersedes(root: &Root, entries: &[String]) -> Result<Vec<PathBuf>, DocError> {
    let dir = root.dir();
    entries
        .iter()
        .map(|entry| {
            let outside = || DocError::BadRequest(format!("supersedes is outside the documents folder: {entry}"));
            let joined = lexical_join(&dir, entry).ok_or_else(outside)?;
            let rel = joined.strip_prefix(&dir).map_err(|_| outside())?;
            let target = root.resolve(&rel.to_string_lossy(), false)?;
            if !fs::symlink_metadata(&target).is_ok_and(|meta| meta.is_file()) {
                return Err(DocError::NotFound(format!(
                    "supersedes names no document in this folder: {entry}"
                )));
            }
            Ok(target)
        })
        .collect()
}

/// `target` relative to the folder `from`, with `/` separators: how a document's `supersedes`
/// names another, and how the index reads it back. Both must be under one root, without `..`.
pub fn relative_posix(from: &Path, target: &Path) -> String {
    let from: Vec<Component> = from.components().collect();
    let target: Vec<Component> = target.components().collect();
    let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let ups = std::iter::repeat_n("..".to_owned(), from.len() - common);
    let downs = target[common..]
        .iter()
        .map(|part| part.as_os_str().to_string_lossy().into_owned());
    ups.chain(downs).collect::<Vec<_>>().join("/")
}

/// `root` joined with `rel` with `.` and `..` resolved as text, or `None` when that leaves `root`.
/// `..` that stays inside (`a/../b.md`) is fine, and an absolute path is taken as it is and must
/// itself be inside.
fn lexical_join(root: &Path, rel: &str) -> Option<PathBuf> {
    let joined = root.join(rel.replace('\\', "/"));
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    (out.starts_with(root) && out != root).then_some(out)
}

/// Refuses a document name that would leave the notes folder or that the index would skip.
fn check_name(name: &str) -> Result<(), DocError> {
    let posix = name.replace('\\', "/");
    let segments: Vec<&str> = posix.split('/').collect();
    let escapes = trim_js(name).is_empty()
        || posix.starts_with('/')
        || matches!(posix.as_bytes(), [drive, b':', ..] if drive.is_ascii_alphabetic())
        || segments.iter().any(|s| s.is_empty() || *s == "." || *s == "..");
    if escapes {
        return Err(DocError::BadRequest(format!(
            "document name escapes the documents folder: {name}"
        )));
    }
    if segments.iter().any(|s| is_skipped(s) || s.contains('\0')) {
        return Err(DocError::BadRequest(format!(
            "path names a folder or file the index skips: {name}"
        )));
    }
    Ok(())
}

/// `dir/name.md` for `n == 1`, else `dir/name-n.md`.
fn candidate(dir: &Path, name: &str, n: usize) -> PathBuf {
    let name = name.replace('\\', "/");
    if n == 1 {
        dir.join(format!("{name}.md"))
    } else {
        dir.join(format!("{name}-{n}.md"))
    }
}

#[cfg(test)]
mod tests {
    use crate::documents::record::Unrecorded;
    use regex::Regex;

    use super::*;
    use crate::documents::golden;
    use crate::error::ErrorKind as Kind;
    use crate::error::Kinded;

    #[test]
    fn slugs_are_lowercase_words_joined_by_dashes() {
        assert_eq!(slug("Kafka retention"), "kafka-retention");
        assert_eq!(slug("  What's up?! (v2) "), "what-s-up-v2");
        assert_eq!(slug("日本語 メモ"), "日本語-メモ");
        // Issue 25: voiced Kana keep their marks, Hangul stays syllables, half-width Kana widen.
        assert_eq!(slug("バックアップ 手順"), "バックアップ-手順");
        assert_eq!(slug("ﾊﾞｯｸｱｯﾌﾟ"), "バックアップ");
        assert_eq!(slug("백업 복원"), "백업-복원");
        assert_eq!(slug("数据库备份：步骤"), "数据库备份-步骤");
        assert_eq!(slug("!!!"), "note");
        assert_eq!(slug(""), "note");
        let long = slug(&"word ".repeat(30));
        assert!(long.chars().count() <= 60 && !long.ends_with('-'), "{long}");
        assert_eq!(long, format!("{}word", "word-".repeat(11)));
    }

    #[test]
    fn slugs_fold_accents_and_compatibility_forms() {
        assert_eq!(slug("Café Résumé"), "cafe-resume");
        assert_eq!(slug("ﬁle №5"), "file-no5");
    }

    #[test]
    fn front_matter_matches_the_golden() {
        let text = remember_text(
            &remember_frontmatter("Kafka retention", "2026-01-02", &["ops".to_owned()], &[], None),
            "Retention is seven days.\n\n",
        );
        assert!(
            Regex::new(golden("remember_file_regex").as_str().unwrap())
                .unwrap()
                .is_match(&text),
            "{text}"
        );

        let full = remember_frontmatter(
            "A \"quoted\" title",
            "2026-01-02",
            &["a".to_owned(), "b/c".to_owned()],
            &["../ops/old.md".to_owned()],
            Some("s1"),
        );
        assert_eq!(
            full,
            "---\ntitle: \"A \\\"quoted\\\" title\"\ndate: 2026-01-02\ntags: [\"a\", \"b/c\"]\nsupersedes: [\"../ops/old.md\"]\ncreated_by: ragdown_remember\nsession: \"s1\"\n---\n"
        );
        assert!(!remember_frontmatter("T", "2026-01-02", &[], &[], Some("")).contains("session"));
    }

    #[test]
    fn names_are_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes");
        let root = Root::new(dir.path(), "notes");
        assert_eq!(unique_path(&notes, "kafka"), notes.join("kafka.md"));
        let first = create_unique(&root, "kafka", "one", &Unrecorded).unwrap();
        let second = create_unique(&root, "kafka", "two", &Unrecorded).unwrap();
        assert_eq!(
            (first, second.clone()),
            (notes.join("kafka.md"), notes.join("kafka-2.md"))
        );
        assert_eq!(fs::read_to_string(notes.join("kafka.md")).unwrap(), "one");
        assert_eq!(fs::read_to_string(second).unwrap(), "two");
        assert_eq!(unique_path(&notes, "kafka"), notes.join("kafka-3.md"));
        assert_eq!(
            create_unique(&root, "sub/deep", "x", &Unrecorded).unwrap(),
            notes.join("sub/deep.md")
        );
        assert_eq!(
            create_unique(&root, "sub/deep", "y", &Unrecorded).unwrap(),
            notes.join("sub/deep-2.md")
        );
    }

    #[test]
    fn names_that_escape_or_hide_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["../../outside", "/abs", "a/../b", "", "C:x"] {
            let err = create_unique(&Root::new(dir.path(), ""), name, "x", &Unrecorded).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("document name escapes the documents folder: {name}")
            );
        }
        let err = create_unique(&Root::new(dir.path(), ""), ".hidden", "x", &Unrecorded).unwrap_err();
        assert_eq!(err.to_string(), "path names a folder or file the index skips: .hidden");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "nothing was written");
    }

    #[test]
    fn supersedes_must_name_a_document_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let scope = Root::new(root, "");
        fs::create_dir(root.join("ops")).unwrap();
        fs::write(root.join("ops/old.md"), "old").unwrap();
        assert_eq!(
            resolve_supersedes(&scope, &["ops/old.md".to_owned(), "ops/x/../old.md".to_owned()]).unwrap(),
            vec![root.join("ops/old.md"), root.join("ops/old.md")]
        );
        let err = resolve_supersedes(&scope, &["../elsewhere.md".to_owned()]).unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (
                Kind::Invalid,
                "supersedes is outside the documents folder: ../elsewhere.md"
            )
        );
        let err = resolve_supersedes(&scope, &["ops/gone.md".to_owned()]).unwrap_err();
        assert_eq!(
            (err.kind(), err.to_string().as_str()),
            (
                Kind::NotFound,
                "supersedes names no document in this folder: ops/gone.md"
            )
        );
        let err = resolve_supersedes(&scope, &["ops".to_owned()]).unwrap_err();
        assert_eq!(err.kind(), Kind::NotFound, "a folder is not a document");
    }

    #[cfg(unix)]
    #[test]
    fn notes_never_land_through_a_symlinked_folder() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "secret").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("notes")).unwrap();
        fs::create_dir(dir.path().join("ops")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("ops/link")).unwrap();

        let notes = Root::new(dir.path(), "notes");
        for name in ["escape", "deep/escape"] {
            let err = create_unique(&notes, name, "x", &Unrecorded).unwrap_err();
            assert_eq!(err.kind(), Kind::Invalid, "{name}: {err}");
        }
        let err = create_unique(&Root::new(dir.path(), "ops"), "link/escape", "x", &Unrecorded).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a folder on the path is a file or a symlink: link/escape.md"
        );
        let err = resolve_supersedes(&Root::new(dir.path(), "ops"), &["link/secret.md".to_owned()]).unwrap_err();
        assert_eq!(err.kind(), Kind::Invalid, "{err}");
        let names: Vec<_> = fs::read_dir(outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("secret.md")],
            "nothing was written outside"
        );
    }

    #[test]
    fn supersedes_paths_are_relative_to_the_documents_folder() {
        let root = Path::new("/docs");
        assert_eq!(
            relative_posix(&root.join("notes"), &root.join("ops/old.md")),
            "../ops/old.md"
        );
        assert_eq!(relative_posix(&root.join("notes"), &root.join("notes/a.md")), "a.md");
        assert_eq!(relative_posix(root, &root.join("ops/a/b.md")), "ops/a/b.md");
        assert_eq!(relative_posix(&root.join("a/b"), &root.join("c.md")), "../../c.md");
    }
}
