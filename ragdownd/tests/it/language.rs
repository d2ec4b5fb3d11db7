//! The English-only-model notice: a `serve` whose folder is notably Chinese, Japanese or Korean
//! says so in `/api/status` with the one setting that fixes it, with the real minilm model (which
//! reads English only), and says nothing for an English folder or the hash embedder. Needs the
//! model that `scripts/install-model.sh minilm` installs (the test command does).

use serde_json::Value;

use crate::api::Api;
use crate::api_settings::status_until;
use crate::support::{cache_dir, write};

fn cjk_and_english_folders() -> (tempfile::TempDir, tempfile::TempDir) {
    let docs = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let zh = "# 数据库备份\n\n每天凌晨两点做一次全量备份，WAL 日志持续归档到对象存储，备份保留十四天。\n";
    for i in 0..20 {
        write(docs.path(), &format!("zh/note-{i}.md"), zh);
    }
    write(
        docs.path(),
        "en/backups.md",
        "# Backups\n\nA full backup runs nightly at two.\n",
    );
    (docs, data)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_english_only_model_over_cjk_notes_says_which_setting_fixes_it() {
    let (docs, data) = cjk_and_english_folders();
    let cache = cache_dir().to_string_lossy().to_string();
    let args = [
        "ragdownd",
        "serve",
        "--docs",
        docs.path().to_str().unwrap(),
        "--data",
        data.path().to_str().unwrap(),
        "--embedder",
        "minilm",
        "--cache-dir",
        cache.as_str(),
        "--watch",
        "false",
        "--token",
        "language-token",
    ];
    let (base, _stop) = crate::support::serve_args(&args, data.path()).await;
    let api = Api::at(&base);
    let now = status_until(&api, "the notice appears", |s| s["language_notice"].is_object()).await;
    let notice = &now["language_notice"];
    let folders: Vec<&Value> = notice["folders"].as_array().unwrap().iter().collect();
    assert_eq!(folders.len(), 1, "only the Chinese folder: {notice}");
    assert_eq!(folders[0]["folder"], "zh");
    assert!(folders[0]["cjk_share"].as_f64().unwrap() > 0.9, "{notice}");
    assert_eq!(notice["embedder"], "all-MiniLM-L6-v2-q8");
    assert_eq!(notice["setting"], "RAGDOWN_EMBEDDER=multilingual-e5-small");
    assert!(notice["message"].as_str().unwrap().contains("folder zh"), "{notice}");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_notice_when_the_embedders_languages_are_not_known() {
    let (docs, data) = cjk_and_english_folders();
    let (base, _stop) = crate::support::serve(docs.path(), data.path(), "t", &[]).await;
    let api = Api::at(&base);
    // Two statuses after ready: the first starts the survey, the second would carry its notice.
    status_until(&api, "ready", |s| s["ready"] == true && s["syncing"] == false).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let now = status_until(&api, "ready", |s| s["ready"] == true).await;
    assert!(now.get("language_notice").is_none(), "the hash embedder: {now}");
}
