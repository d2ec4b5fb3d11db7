//! Which writing systems a docs dir's notes are written in, so that a server whose embedding model
//! reads English only can say so when a real share of a folder is Chinese, Japanese or Korean, and
//! name the one setting that fixes it (`RAGDOWN_EMBEDDER=multilingual-e5-small`).
//!
//! The survey reads the notes themselves, not the index: an index built before the check existed,
//! or opened by a process that did not index it, is surveyed the same way. It is bounded (at most
//! [`FILES_PER_FOLDER`] files of a folder, the first [`BYTES_PER_FILE`] bytes of each), so a large
//! vault costs a few megabytes of reading, once at start and again when asked after
//! [`STALE_AFTER`].

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::documents::paths::is_skipped;
use crate::index::scan::Layout;
use crate::markdown::cjk::Mix;
use crate::markdown::is_markdown;

/// Files read per folder, at most.
pub const FILES_PER_FOLDER: usize = 400;
/// Bytes read per file, at most.
pub const BYTES_PER_FILE: u64 = 32 * 1024;
/// A survey older than this is redone when next asked for.
pub const STALE_AFTER: Duration = Duration::from_secs(300);
/// The share of a folder's letters that must be CJK for the notice: a tenth of the letters is
/// about a third of the words (a CJK character carries about what an English word of five letters
/// does).
pub const NOTICE_SHARE: f64 = 0.10;
/// And at least this many CJK characters, so that one quoted name in an English vault says nothing.
pub const NOTICE_MIN_CHARS: u64 = 200;
/// The embedder that reads Chinese, Japanese and Korean, as the setting that chooses it.
pub const FIX: &str = "RAGDOWN_EMBEDDER=multilingual-e5-small";

/// Whether this much CJK is worth a multilingual model: [`NOTICE_SHARE`] of the letters and at
/// least [`NOTICE_MIN_CHARS`] of them.
pub fn is_notable(mix: &Mix) -> bool {
    mix.cjk >= NOTICE_MIN_CHARS && mix.share() >= NOTICE_SHARE
}

/// The mix of each folder of `docs_dir` (one folder, named `""`, for [`Layout::Single`]), from at
/// most [`FILES_PER_FOLDER`] Markdown files of each (the first ones by path). Unreadable files and
/// dot-directories are passed over, as the index passes them over.
pub fn survey(docs_dir: &Path, layout: Layout) -> BTreeMap<String, Mix> {
    let mut out: BTreeMap<String, Mix> = BTreeMap::new();
    let mut files: BTreeMap<String, usize> = BTreeMap::new();
    let walker = walkdir::WalkDir::new(docs_dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_skipped(&e.file_name().to_string_lossy()));
    for entry in walker.filter_map(Result::ok) {
        if !entry.file_type().is_file() || !is_markdown(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(docs_dir) else {
            continue;
        };
        let folder = match layout {
            Layout::Single => String::new(),
            // Loose files directly in the docs dir are not indexed, so not surveyed.
            Layout::Folders if rel.components().count() < 2 => continue,
            Layout::Folders => rel
                .components()
                .next()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let seen = files.entry(folder.clone()).or_default();
        if *seen >= FILES_PER_FOLDER {
            continue;
        }
        *seen += 1;
        let mut head = Vec::new();
        let read = std::fs::File::open(entry.path()).and_then(|f| f.take(BYTES_PER_FILE).read_to_end(&mut head));
        if read.is_ok() {
            out.entry(folder)
                .or_default()
                .add(Mix::of(&String::from_utf8_lossy(&head)));
        }
    }
    out
}

/// What to tell the owner: the folders with a notable CJK share, read by an English-only model.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// Each such folder with its CJK share of letters (`""` for a stdio server's one folder).
    pub folders: Vec<(String, f64)>,
    /// The embedder in use (its index name).
    pub embedder: String,
}

impl Notice {
    /// The notice for `mixes` read by `embedder`, when it reads English only (`multilingual` is
    /// `Some(false)`) and some folder is notably CJK. An embedder whose languages are not known
    /// (the hash embedder, an OpenAI-compatible one) gets none.
    pub fn of(mixes: &BTreeMap<String, Mix>, embedder: &str, multilingual: Option<bool>) -> Option<Self> {
        if multilingual != Some(false) {
            return None;
        }
        let folders: Vec<(String, f64)> = mixes
            .iter()
            .filter(|(_, mix)| is_notable(mix))
            .map(|(name, mix)| (name.clone(), mix.share()))
            .collect();
        (!folders.is_empty()).then(|| Notice {
            folders,
            embedder: embedder.to_string(),
        })
    }

    /// One line for the log.
    pub fn message(&self) -> String {
        let folders: Vec<String> = self
            .folders
            .iter()
            .map(|(name, share)| {
                let name = if name.is_empty() {
                    "the folder".to_string()
                } else {
                    format!("folder {name}")
                };
                format!("{name} ({:.0}% of its letters)", share * 100.0)
            })
            .collect();
        format!(
            "Chinese, Japanese or Korean notes in {}, but the embedder {} reads English only: their meaning \
             is searched poorly (keywords still work). Set {FIX} (or Settings → Server → Embedder) to search them well.",
            folders.join(", "),
            self.embedder
        )
    }
}

/// Each folder's mix, by folder name.
pub type Mixes = BTreeMap<String, Mix>;

/// The last survey of a docs dir, redone in the background when older than [`STALE_AFTER`].
#[derive(Debug, Default)]
pub struct Surveys {
    last: Mutex<Option<(Instant, Arc<Mixes>)>>,
    running: AtomicBool,
}

impl Surveys {
    /// The last survey (`None` before the first one ends); starts [`Surveys::refresh`] in the
    /// background when there is none or it is stale.
    pub fn get(self: &Arc<Self>, docs_dir: &Path, layout: Layout) -> Option<Arc<Mixes>> {
        let last = self.last.lock().clone();
        let fresh = last.as_ref().is_some_and(|(at, _)| at.elapsed() < STALE_AFTER);
        if !fresh && !self.running.load(Ordering::Acquire) {
            let this = self.clone();
            let docs_dir = docs_dir.to_path_buf();
            tokio::spawn(async move { this.refresh(&docs_dir, layout).await });
        }
        last.map(|(_, mixes)| mixes)
    }

    /// Surveys `docs_dir` now, on a blocking thread, and keeps the result; `None` when a survey is
    /// already running (its result is kept when it ends), so two never read the notes at once.
    pub async fn refresh(self: &Arc<Self>, docs_dir: &Path, layout: Layout) -> Option<Arc<Mixes>> {
        if self.running.swap(true, Ordering::AcqRel) {
            return None;
        }
        let this = self.clone();
        let docs_dir = docs_dir.to_path_buf();
        let mixes = tokio::task::spawn_blocking(move || this.record(survey(&docs_dir, layout))).await;
        self.running.store(false, Ordering::Release);
        mixes.ok()
    }

    /// Keeps `mixes` as the latest survey and returns it.
    pub fn record(&self, mixes: Mixes) -> Arc<Mixes> {
        let mixes = Arc::new(mixes);
        *self.last.lock() = Some((Instant::now(), mixes.clone()));
        mixes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notable_share_needs_both_the_share_and_enough_characters() {
        let english = "word ".repeat(1000);
        let one_name = format!("{english} 数据库");
        assert!(!is_notable(&Mix::of(&one_name)), "one quoted name in an English vault");
        let a_fifth = format!("{} {}", "word ".repeat(200), "备份".repeat(150));
        assert!(is_notable(&Mix::of(&a_fifth)), "{:?}", Mix::of(&a_fifth));
        assert!(!is_notable(&Mix::of("备份")), "too few characters to judge");
    }

    #[test]
    fn the_survey_counts_each_folder_and_passes_over_loose_and_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("zh/a.md", &"数据库备份".repeat(100));
        write("zh/sub/b.md", "恢复");
        write("zh/.hidden/c.md", &"隐藏".repeat(500));
        write("zh/notes.txt", &"文本".repeat(500));
        write("en/a.md", "restore the backup");
        write("loose.md", &"散".repeat(500));
        let mixes = survey(dir.path(), Layout::Folders);
        assert_eq!(mixes.keys().collect::<Vec<_>>(), ["en", "zh"]);
        assert_eq!(mixes["zh"], Mix { cjk: 502, letters: 502 });
        assert_eq!(mixes["en"], Mix { cjk: 0, letters: 16 });
        let single = survey(&dir.path().join("zh"), Layout::Single);
        assert_eq!(single[""], Mix { cjk: 502, letters: 502 });
    }

    #[test]
    fn the_notice_is_for_english_only_models_and_names_the_fix() {
        let mixes: BTreeMap<String, Mix> = [
            (
                "notes".to_string(),
                Mix {
                    cjk: 900,
                    letters: 1000,
                },
            ),
            ("work".to_string(), Mix { cjk: 0, letters: 5000 }),
        ]
        .into();
        let notice = Notice::of(&mixes, "all-MiniLM-L6-v2-q8", Some(false)).unwrap();
        assert_eq!(notice.folders, [("notes".to_string(), 0.9)]);
        let message = notice.message();
        assert!(message.contains("folder notes (90% of its letters)"), "{message}");
        assert!(
            message.contains(FIX) && message.contains("all-MiniLM-L6-v2-q8"),
            "{message}"
        );
        assert_eq!(Notice::of(&mixes, "multilingual-e5-small", Some(true)), None);
        assert_eq!(
            Notice::of(&mixes, "hash-384", None),
            None,
            "languages unknown: no advice"
        );
        let english: BTreeMap<String, Mix> = [("work".to_string(), Mix { cjk: 0, letters: 5000 })].into();
        assert_eq!(Notice::of(&english, "all-MiniLM-L6-v2-q8", Some(false)), None);
    }
}
