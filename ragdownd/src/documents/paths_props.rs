//! Property tests of the one path check: whatever a client sends, a path [`Root::resolve`]
//! accepts lies under the folder, climbs nowhere, and reaches it through real folders only, never
//! through a symlink; and it never panics.

use std::path::Component;

use proptest::prelude::*;

use super::*;

/// Segments that try every way out and every way to hide, with ordinary names among them.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(
            &[
                "..",
                ".",
                "",
                "ops",
                "a.md",
                "link",
                "file.md",
                "deep",
                ".git",
                "node_modules",
                "C:",
                "c:",
                "\\",
                "..\\..",
                "%2e%2e",
                "\u{ff0e}\u{ff0e}",
                "\u{2025}",
                "\u{0}",
                "x\u{0}.md",
                "~",
                "notes",
            ][..]
        )
        .prop_map(str::to_owned),
        "[a-z.\\\\/:]{0,6}",
        any::<String>(),
    ]
}

/// A client path: segments joined by `/` or `\`, sometimes absolute, sometimes Markdown.
fn client_path() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec((segment(), any::<bool>()), 0..6),
        prop_oneof![Just(""), Just("/"), Just("\\"), Just("C:/"), Just("./")],
        prop_oneof![Just(""), Just(".md"), Just("/x.md")],
    )
        .prop_map(|(segments, start, end)| {
            let mut path = start.to_owned();
            for (i, (segment, backslash)) in segments.iter().enumerate() {
                if i > 0 {
                    path.push(if *backslash { '\\' } else { '/' });
                }
                path.push_str(segment);
            }
            path.push_str(end);
            path
        })
}

/// `docs/` with `ops/a.md`, `file.md`, `team/real/`, and `link` and `team/link` leading outside.
fn tree() -> (tempfile::TempDir, tempfile::TempDir) {
    let docs = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir_all(docs.path().join("ops")).unwrap();
    fs::create_dir_all(docs.path().join("team/real")).unwrap();
    fs::write(docs.path().join("ops/a.md"), "a").unwrap();
    fs::write(docs.path().join("file.md"), "f").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), docs.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), docs.path().join("team/link")).unwrap();
    }
    (docs, outside)
}

/// What an accepted path must be: under the folder, no `..` or `.`, and every part of it that
/// exists a real folder (or, last, anything but a symlink).
fn assert_inside(root: &Root, rel: &str, full: &Path) {
    let dir = root.dir();
    let below = full
        .strip_prefix(&dir)
        .unwrap_or_else(|_| panic!("{rel:?} resolved to {full:?}, outside {dir:?}"));
    assert!(
        below.components().all(|c| matches!(c, Component::Normal(_))),
        "{rel:?} resolved to {full:?}"
    );
    assert!(!below.as_os_str().is_empty(), "{rel:?} named the folder itself");
    let mut current = root.docs_dir().to_path_buf();
    let parts: Vec<_> = full.strip_prefix(root.docs_dir()).unwrap().components().collect();
    for (i, part) in parts.iter().enumerate() {
        current.push(part);
        let Ok(meta) = fs::symlink_metadata(&current) else {
            break;
        };
        assert!(
            !meta.file_type().is_symlink(),
            "{rel:?} goes through the symlink {current:?}"
        );
        assert!(
            i + 1 == parts.len() || meta.is_dir(),
            "{rel:?} goes through the file {current:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn an_accepted_path_never_leaves_the_folder(rel in client_path(), markdown_only in any::<bool>()) {
        let (docs, outside) = tree();
        for prefix in ["", "ops", "team", "team/real"] {
            let root = Root::new(docs.path(), prefix);
            if let Ok(full) = root.resolve(&rel, markdown_only) {
                assert_inside(&root, &rel, &full);
                if markdown_only {
                    prop_assert!(is_markdown(&full.file_name().unwrap().to_string_lossy()));
                }
                // What resolve accepted, creating its folders accepts too (a name too long for the
                // file system is an I/O error, not a refusal).
                let created = root.create_parent_dirs(&full);
                prop_assert!(!matches!(created, Err(DocError::BadRequest(_))), "{:?}", created);
            }
            if let Ok(sub) = root.join(&rel) {
                prop_assert!(sub.dir().starts_with(root.dir()));
                if sub.exists_as_dir() {
                    assert_inside(&root, &rel, &sub.dir());
                }
            }
        }
        prop_assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0, "nothing was made outside");
    }
}
