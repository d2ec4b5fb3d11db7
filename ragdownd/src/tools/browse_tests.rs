use super::*;
use unicode_normalization::UnicodeNormalization;

/// A document with a title and a time and nothing else (also for `complete`'s tests).
pub(crate) fn doc(path: &str, title: &str, mtime_ms: f64) -> DocumentInfo {
    DocumentInfo {
        path: path.into(),
        title: title.into(),
        aliases: Vec::new(),
        tags: Vec::new(),
        mtime_ms,
        created_by: String::new(),
        session: String::new(),
        description: String::new(),
        supersedes: Vec::new(),
    }
}

fn map(docs: Vec<DocumentInfo>) -> BTreeMap<String, DocumentInfo> {
    docs.into_iter().map(|d| (d.path.clone(), d)).collect()
}

fn paths(docs: &[&DocumentInfo]) -> Vec<String> {
    docs.iter().map(|d| d.path.clone()).collect()
}

fn vault() -> BTreeMap<String, DocumentInfo> {
    let mut tagged = doc("notes/ops/backup.md", "Backups", 5.0);
    tagged.tags = vec!["ops/storage".into()];
    tagged.aliases = vec!["Restic runbook".into()];
    let mut described = doc("notes/ops/deploy.md", "Deploying", 9.0);
    described.description = "Ｒｏｌｌｉｎｇ releases".into();
    map(vec![
        tagged,
        described,
        doc("notes/ops/deep/dns.md", "DNS", 1.0),
        doc("notes/note 10.md", "Ten", 2.0),
        doc("notes/note 2.md", "Two", 3.0),
        doc("notes/a/x.md", "X", 4.0),
        doc("work/plan.md", "Backup plan", 7.0),
    ])
}

#[test]
fn a_directory_lists_its_subdirectories_with_counts_then_a_page_of_its_documents() {
    let docs = vault();
    let catalog = Catalog::new(&docs);
    let all = [String::new()];
    let top = browse(&docs, &catalog, "notes", &all, Page::new(None, None, 100));
    let dirs: Vec<(&str, usize)> = top.dirs.iter().map(|d| (d.name.as_str(), d.count)).collect();
    assert_eq!(dirs, [("a", 1), ("ops", 3)]);
    assert_eq!(top.dirs[1].path, "notes/ops");
    assert_eq!(paths(&top.docs), ["notes/note 2.md", "notes/note 10.md"]);
    assert_eq!(top.total_docs, 2);

    let second = browse(&docs, &catalog, "notes/", &all, Page::new(Some(1), Some(1), 100));
    assert_eq!(paths(&second.docs), ["notes/note 10.md"]);
    assert_eq!(second.total_docs, 2);
    assert_eq!(second.dirs.len(), 2, "every page carries the subdirectories");

    let none = browse(&docs, &catalog, "notes/missing", &all, Page::new(None, None, 100));
    assert!(none.dirs.is_empty() && none.docs.is_empty() && none.total_docs == 0);
}

#[test]
fn a_scoped_caller_sees_only_what_its_paths_open_counted_as_such() {
    let docs = vault();
    let catalog = Catalog::new(&docs);
    let opened = ["notes/ops/deep/".to_string()];
    let top = browse(&docs, &catalog, "notes", &opened, Page::new(None, None, 100));
    let dirs: Vec<(&str, usize)> = top.dirs.iter().map(|d| (d.name.as_str(), d.count)).collect();
    assert_eq!(
        dirs,
        [("ops", 1)],
        "an ancestor of the opened path counts only what is under it"
    );
    assert!(top.docs.is_empty() && top.total_docs == 0);
    let ops = browse(&docs, &catalog, "notes/ops", &opened, Page::new(None, None, 100));
    assert!(ops.docs.is_empty());
    assert_eq!(ops.dirs.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["deep"]);
    let deep = browse(&docs, &catalog, "notes/ops/deep", &opened, Page::new(None, None, 100));
    assert_eq!(paths(&deep.docs), ["notes/ops/deep/dns.md"]);
}

#[test]
fn find_folds_every_word_and_matches_tags_under_a_tag_newest_first_when_asked() {
    let docs = vault();
    let notes = ["notes/".to_string()];
    let page = Page::new(None, None, 100);
    let by = |words: &str, tag: Option<&str>, recent: bool| {
        let wanted = Wanted {
            words: super::words(words),
            tag: tag.map(str::to_string),
            recent,
        };
        let (found, total) = find(&docs, &notes, &wanted, page);
        assert_eq!(found.len(), total);
        paths(&found)
    };
    // Full-width in the description, an alias, a tag's `#`, the path inside the folder.
    assert_eq!(by("ROLLING", None, false), ["notes/ops/deploy.md"]);
    assert_eq!(by("restic", None, false), ["notes/ops/backup.md"]);
    assert_eq!(by("#ops/stor", None, false), ["notes/ops/backup.md"]);
    assert_eq!(by("ops dns", None, false), ["notes/ops/deep/dns.md"]);
    assert!(
        by("notes", None, false).is_empty(),
        "the folder's own name is not part of the path"
    );
    assert!(by("backup plan", None, false).is_empty(), "work/ is another folder");
    assert_eq!(by("", Some("ops"), false), ["notes/ops/backup.md"]);
    assert!(by("", Some("op"), false).is_empty(), "a tag matches whole segments");
    assert_eq!(
        by("", None, true),
        [
            "notes/ops/deploy.md",
            "notes/ops/backup.md",
            "notes/a/x.md",
            "notes/note 2.md",
            "notes/note 10.md",
            "notes/ops/deep/dns.md"
        ]
    );
    let wanted = Wanted {
        recent: true,
        ..Wanted::default()
    };
    let (found, total) = find(&docs, &notes, &wanted, Page::new(Some(2), Some(2), 100));
    assert_eq!(
        (paths(&found), total),
        (vec!["notes/a/x.md".to_string(), "notes/note 2.md".to_string()], 6)
    );
}

#[test]
fn jump_ranks_a_title_that_starts_with_the_query_first_then_newer() {
    let docs = vault();
    let all = [String::new()];
    assert_eq!(
        paths(&jump(&docs, &all, "backup", 10)),
        ["work/plan.md", "notes/ops/backup.md"]
    );
    assert_eq!(paths(&jump(&docs, &all, "Backups", 10)), ["notes/ops/backup.md"]);
    assert_eq!(paths(&jump(&docs, &all, "restic run", 10)), ["notes/ops/backup.md"]);
    // "ops" is only in paths: the newest first.
    assert_eq!(
        paths(&jump(&docs, &all, "ops", 2)),
        ["notes/ops/deploy.md", "notes/ops/backup.md"]
    );
    assert_eq!(
        paths(&jump(&docs, &all, "", 3)),
        ["notes/ops/deploy.md", "work/plan.md", "notes/ops/backup.md"]
    );
    assert_eq!(paths(&jump(&docs, &["work/".to_string()], "", 10)), ["work/plan.md"]);
    assert!(jump(&docs, &all, "nothing here", 10).is_empty());
}

#[test]
fn fold_is_nfkc_then_lowercase_and_leaves_plain_ascii_alone() {
    assert!(matches!(fold("plain"), Cow::Borrowed("plain")));
    assert_eq!(fold("MiXed"), "mixed");
    assert_eq!(fold("ＡＢＣ１"), "abc1");
    assert_eq!(fold("ﾊﾞｯｸｱｯﾌﾟ"), "バックアップ");
    assert_eq!(fold("Cafe\u{301}"), "café");
}

#[test]
fn a_page_keeps_its_limit_between_one_and_the_most() {
    assert_eq!(Page::new(None, Some(0), 10).limit, 1);
    assert_eq!(Page::new(None, Some(1_000_000), 10).limit, MAX_PAGE);
    assert_eq!(Page::new(Some(3), None, 10), Page { offset: 3, limit: 10 });
}

#[test]
fn jump_finds_a_word_inside_a_cjk_title_in_any_width_or_composition() {
    let mut ja = doc("notes/cjk/ja.md", "障害対応手順", 6.0);
    ja.aliases = vec!["再起動の手順".into()];
    // A file name written on macOS: decomposed (NFD) Hangul.
    let korean: String = "notes/cjk/백업-절차.md".nfd().collect();
    let docs = map(vec![
        doc("notes/cjk/zh.md", "数据库备份", 5.0),
        doc("notes/cjk/policy.md", "备份策略", 1.0),
        ja,
        doc("notes/cjk/backup-ja.md", "バックアップ", 7.0),
        doc(&korean, "Korean backups", 8.0),
        doc("notes/api.md", "API reference", 2.0),
    ]);
    let all = [String::new()];
    let found = |q: &str| paths(&jump(&docs, &all, q, 10));
    assert_eq!(found("备份"), ["notes/cjk/policy.md", "notes/cjk/zh.md"]);
    assert_eq!(found("障害"), ["notes/cjk/ja.md"]);
    assert_eq!(found("再起動"), ["notes/cjk/ja.md"]);
    assert_eq!(found("ＡＰＩ"), ["notes/api.md"]);
    assert_eq!(found("ﾊﾞｯｸｱｯﾌﾟ"), ["notes/cjk/backup-ja.md"]);
    assert_eq!(found("백업"), std::slice::from_ref(&korean));
    assert_eq!(found("절차"), [korean]);
}

#[test]
fn tags_counts_each_tag_once_per_document_under_the_prefixes() {
    let mut docs = vault();
    docs.get_mut("work/plan.md").unwrap().tags = vec!["ops/storage".into(), "plans".into()];
    let all = [String::new()];
    assert_eq!(
        tags(&docs, &all),
        [("ops/storage".to_string(), 2), ("plans".to_string(), 1)]
    );
    assert_eq!(tags(&docs, &["notes/".to_string()]), [("ops/storage".to_string(), 1)]);
}

#[test]
fn find_finds_a_word_inside_a_cjk_title_and_folds_both_sides() {
    let nfd = |text: &str| text.nfd().collect::<String>();
    let docs = map(vec![
        doc("runbooks/zh.md", "数据库备份", 1.0),
        doc("runbooks/ja.md", "障害対応手順", 2.0),
        doc("runbooks/ko.md", "백업 절차", 3.0),
        doc("runbooks/api.md", "ＡＰＩ reference", 4.0),
        doc("runbooks/kana.md", "バックアップ手順", 5.0),
        doc(&nfd("runbooks/한글.md"), "Korean", 6.0),
    ]);
    let all = ["runbooks/".to_string()];
    let by = |q: &str| {
        let wanted = Wanted {
            words: words(q),
            ..Wanted::default()
        };
        paths(&find(&docs, &all, &wanted, Page::new(None, None, 100)).0)
    };
    assert_eq!(by("备份"), ["runbooks/zh.md"]);
    assert_eq!(by("障害"), ["runbooks/ja.md"]);
    assert_eq!(by("백업"), ["runbooks/ko.md"]);
    assert!(by("监控").is_empty());
    assert_eq!(by("api"), ["runbooks/api.md"]);
    assert_eq!(by("ﾊﾞｯｸｱｯﾌﾟ"), ["runbooks/kana.md"]);
    assert_eq!(by("한글"), [nfd("runbooks/한글.md")]);
}
