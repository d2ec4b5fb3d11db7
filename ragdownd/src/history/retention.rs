//! Retention: entries older than the age limit go, then the oldest entries while the history is
//! over its size limit, then every content no entry still names. Only files inside the history
//! directory are deleted; the documents and the index are never touched.
//!
//! A pass holds the history's lock exclusively, so no recorder is between storing a content and
//! writing the entry that names it. The newest entry is kept whatever its size: the change just
//! made can always be undone.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::entry::{self, Entry};
use super::{History, blobs};

/// Temp files left by a killed writer are removed once this old.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// What a retention pass removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Pruned {
    /// Entries dropped.
    pub entries: usize,
    /// Contents deleted.
    pub contents: usize,
    /// Bytes the history takes after the pass.
    pub bytes: u64,
}

impl History {
    /// Runs retention now.
    pub fn prune(&self) -> std::io::Result<Pruned> {
        self.ensure()?;
        let _exclusive = self.lock(true)?;
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let entries_dir = self.entries_dir();
        let entries: Vec<(Entry, u64)> = entry::list(&entries_dir)
            .into_iter()
            .map(|e| {
                let size = std::fs::metadata(entries_dir.join(format!("{}.json", e.id))).map_or(0, |m| m.len());
                (e, size)
            })
            .collect();
        let stored = contents(&self.objects_dir());
        let mut refs: HashMap<&str, usize> = HashMap::new();
        for (e, _) in &entries {
            for hash in e.ops.iter().flat_map(|op| op.hashes()) {
                *refs.entry(hash).or_default() += 1;
            }
        }
        let size_of = |hash: &str| stored.get(hash).copied().unwrap_or(0);
        let mut total: u64 =
            refs.keys().map(|h| size_of(h)).sum::<u64>() + entries.iter().map(|(_, size)| size).sum::<u64>();
        let age_limit = now_ms - self.options.max_age.as_millis() as i64;
        let mut dropped = 0;
        while dropped + 1 < entries.len() {
            let (oldest, size) = &entries[dropped];
            let too_old = oldest.ms() < age_limit;
            if !(too_old || total > self.options.max_bytes) {
                break;
            }
            total -= size;
            for hash in oldest.ops.iter().flat_map(|op| op.hashes()) {
                let count = refs.get_mut(hash).expect("counted above");
                *count -= 1;
                if *count == 0 {
                    total -= size_of(hash);
                }
            }
            dropped += 1;
        }
        for (e, _) in &entries[..dropped] {
            entry::remove(&entries_dir, &e.id)?;
        }
        let mut removed = 0;
        for hash in stored.keys() {
            if refs.get(hash.as_str()).is_none_or(|count| *count == 0)
                && let Some(path) = blobs::path_of(&self.objects_dir(), hash)
            {
                std::fs::remove_file(path)?;
                removed += 1;
            }
        }
        remove_stale_temps(&self.objects_dir());
        remove_stale_temps(&entries_dir);
        Ok(Pruned {
            entries: dropped,
            contents: removed,
            bytes: total,
        })
    }

    /// Bytes the history takes on disk: contents and entries.
    pub fn size(&self) -> u64 {
        let entries: u64 = std::fs::read_dir(self.entries_dir())
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum();
        entries + contents(&self.objects_dir()).values().sum::<u64>()
    }
}

/// Every stored content's hash and size on disk.
fn contents(objects: &Path) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    let Ok(shards) = std::fs::read_dir(objects) else {
        return out;
    };
    for shard in shards.flatten() {
        let prefix = shard.file_name().to_string_lossy().into_owned();
        let Ok(files) = std::fs::read_dir(shard.path()) else {
            continue;
        };
        for file in files.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let hash = format!("{prefix}{name}");
            if blobs::path_of(objects, &hash).is_some() {
                out.insert(hash, file.metadata().map_or(0, |m| m.len()));
            }
        }
    }
    out
}

/// Removes temp files (dot-named) older than [`STALE_TEMP`] under `dir`, one level of shards deep.
fn remove_stale_temps(dir: &Path) {
    let walker = walkdir::WalkDir::new(dir).max_depth(2).into_iter().flatten();
    for item in walker.filter(|i| i.file_type().is_file() && i.file_name().to_string_lossy().starts_with('.')) {
        let stale = item
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        if stale {
            let _ = std::fs::remove_file(item.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::history::{HistoryOptions, Who};

    /// Text that does not compress much, so sizes are predictable.
    fn noise(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b'a' + (x % 26) as u8
            })
            .collect()
    }

    fn backdate(history: &History, by_ms: i64) {
        // Entries are named by time: rename them into the past (the content keeps the name).
        for mut e in history.entries() {
            let old = e.id.clone();
            let rest = old.split_once('-').unwrap().1;
            e.id = format!("{:013}-{rest}", e.ms() - by_ms);
            entry::write(&history.entries_dir(), &e).unwrap();
            entry::remove(&history.entries_dir(), &old).unwrap();
        }
    }

    #[test]
    fn past_the_size_limit_the_oldest_go_first_and_their_contents_with_them() {
        let docs = tempfile::tempdir().unwrap();
        let options = HistoryOptions {
            max_bytes: 12_000,
            ..HistoryOptions::default()
        };
        let history = Arc::new(History::new(docs.path(), &options));
        let abs = docs.path().join("a.md");
        let versions: Vec<Vec<u8>> = (0..8).map(|i| noise(i, 4_000)).collect();
        // An index beside the history, as a data dir in the docs dir would be.
        std::fs::create_dir_all(docs.path().join("data/chunks.lance")).unwrap();
        std::fs::write(docs.path().join("data/chunks.lance/0.lance"), noise(99, 50_000)).unwrap();
        std::fs::write(docs.path().join("data/meta.json"), "{}").unwrap();
        for pair in versions.windows(2) {
            history
                .begin(Who::web(), "save")
                .file(&abs, Some(&pair[0]), Some(&pair[1]))
                .unwrap();
        }
        let index = |dir: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
            walkdir::WalkDir::new(dir.join("data"))
                .sort_by_file_name()
                .into_iter()
                .flatten()
                .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap_or_default()))
                .collect()
        };
        let before = index(docs.path());
        history.prune().unwrap();
        assert_eq!(index(docs.path()), before, "the index is never touched");
        let kept = history.entries();
        assert!(!kept.is_empty() && kept.len() < 7, "{} kept", kept.len());
        assert!(history.size() <= 12_000, "{} bytes", history.size());
        let befores: Vec<String> = kept
            .iter()
            .map(|e| match &e.ops[0] {
                crate::history::Op::File { before, .. } => before.clone().unwrap(),
                other => panic!("{other:?}"),
            })
            .collect();
        let newest: Vec<String> = versions[7 - kept.len()..7]
            .iter()
            .map(|v| crate::documents::content_hash(v))
            .collect();
        assert_eq!(befores, newest, "the newest are kept, the oldest went first");
        assert!(
            history.content(&crate::documents::content_hash(&versions[0])).is_err(),
            "oldest gone"
        );
        assert_eq!(
            history.content(&crate::documents::content_hash(&versions[7])).unwrap(),
            versions[7]
        );
    }

    #[test]
    fn past_the_age_limit_entries_go_but_never_the_newest() {
        let docs = tempfile::tempdir().unwrap();
        let options = HistoryOptions {
            max_age: Duration::from_secs(3600),
            ..HistoryOptions::default()
        };
        let history = Arc::new(History::new(docs.path(), &options));
        for i in 0..3 {
            let abs = docs.path().join(format!("{i}.md"));
            history.begin(Who::web(), "save").file(&abs, None, Some(b"x")).unwrap();
        }
        backdate(&history, 7_200_000);
        assert_eq!(history.prune().unwrap().entries, 2);
        assert_eq!(history.entries().len(), 1);
        assert_eq!(history.content(&crate::documents::content_hash(b"x")).unwrap(), b"x");
    }
}
