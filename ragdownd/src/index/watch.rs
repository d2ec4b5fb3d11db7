//! Watching the docs dir: file events schedule a sync after 750 ms of quiet.
//!
//! Only events that can change what is indexed count: creating, changing, renaming or removing
//! an entry. Access events (a file or folder opened, read, or closed without a write) are ignored,
//! so the sync's own reads never wake the watcher again. Events under dot-directories are ignored
//! too; Markdown names, extensionless names (directories) and events without a path schedule a sync. When the platform watcher cannot start or fails,
//! a poll every 60 s takes over, so edits are still picked up, only later.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, MetadataKind, ModifyKind};
use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::sync::Indexer;
use crate::markdown::is_markdown;

/// Quiet time before a sync runs.
pub const DEBOUNCE: Duration = Duration::from_millis(750);
/// The polling fallback's period.
pub const POLL_EVERY: Duration = Duration::from_secs(60);

/// Keeps the watcher alive; dropping it stops watching.
pub struct WatchHandle {
    _watcher: Option<notify::RecommendedWatcher>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for WatchHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchHandle")
            .field("native", &self._watcher.is_some())
            .finish()
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Whether an event on `path` (relative to the docs dir) should schedule a sync.
pub fn is_relevant(rel: &Path) -> bool {
    let mut components = rel.components().peekable();
    if components.peek().is_none() {
        return true;
    }
    if rel
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
    {
        return false;
    }
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    is_markdown(&name) || rel.extension().is_none()
}

/// Whether an event of this kind can change what is on disk: not an open, a read or a close
/// without a write, and not a bare access-time update.
pub fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        _ => true,
    }
}

/// Whether `event` (paths absolute, under `root`) should schedule a sync.
pub fn schedules_sync(event: &notify::Event, root: &Path) -> bool {
    changes_content(&event.kind)
        && (event.paths.is_empty()
            || event
                .paths
                .iter()
                .any(|p| p.strip_prefix(root).map(is_relevant).unwrap_or(false)))
}

/// Starts watching `docs_dir`, scheduling syncs on `indexer`.
pub fn watch(docs_dir: PathBuf, indexer: Indexer) -> WatchHandle {
    let (tx, mut rx) = mpsc::unbounded_channel::<bool>();
    let root = docs_dir.clone();
    let event_tx = tx.clone();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
        Ok(event) => {
            if schedules_sync(&event, &root) {
                let _ = event_tx.send(true);
            }
        }
        Err(err) => {
            tracing::warn!("file watcher error: {err}");
            let _ = event_tx.send(false);
        }
    })
    .and_then(|mut watcher| watcher.watch(&docs_dir, RecursiveMode::Recursive).map(|()| watcher));
    let native = match watcher {
        Ok(watcher) => Some(watcher),
        Err(err) => {
            tracing::warn!(
                "cannot watch {}: {err}; polling every {}s instead",
                docs_dir.display(),
                POLL_EVERY.as_secs()
            );
            None
        }
    };
    let mut polling = native.is_none();
    let task = tokio::spawn(async move {
        loop {
            if polling {
                tokio::time::sleep(POLL_EVERY).await;
                indexer.schedule();
                continue;
            }
            match rx.recv().await {
                None => polling = true,
                Some(false) => {
                    tracing::warn!("falling back to polling every {}s", POLL_EVERY.as_secs());
                    polling = true;
                }
                Some(true) => {
                    // Debounce: wait until no event arrived for DEBOUNCE.
                    loop {
                        match tokio::time::timeout(DEBOUNCE, rx.recv()).await {
                            Ok(Some(true)) => continue,
                            Ok(Some(false)) | Ok(None) => {
                                polling = true;
                                break;
                            }
                            Err(_) => break,
                        }
                    }
                    indexer.schedule();
                }
            }
        }
    });
    WatchHandle { _watcher: native, task }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relevant_events() {
        assert!(is_relevant(Path::new("ops/backups.md")));
        assert!(is_relevant(Path::new("ops")));
        assert!(is_relevant(Path::new("")));
        assert!(!is_relevant(Path::new(".obsidian/workspace.json")));
        assert!(!is_relevant(Path::new("ops/.backups.md.swp")));
        assert!(!is_relevant(Path::new("ops/image.png")));
    }

    #[test]
    fn reads_and_opens_do_not_schedule_a_sync() {
        use notify::event::{AccessKind, CreateKind, RemoveKind, RenameMode};
        let root = Path::new("/docs");
        let event = |kind: EventKind, path: &str| notify::Event::new(kind).add_path(root.join(path));
        for kind in [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Access(AccessKind::Read),
            EventKind::Access(AccessKind::Any),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)),
        ] {
            assert!(!schedules_sync(&event(kind, "ops/a.md"), root), "{kind:?}");
            assert!(!schedules_sync(&event(kind, "ops"), root), "{kind:?} on a folder");
        }
        for kind in [
            EventKind::Create(CreateKind::File),
            EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any)),
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::WriteTime)),
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Remove(RemoveKind::Folder),
            EventKind::Any,
        ] {
            assert!(schedules_sync(&event(kind, "ops/a.md"), root), "{kind:?}");
        }
        assert!(!schedules_sync(
            &event(EventKind::Create(CreateKind::File), "ops/.ragdown-x.tmp"),
            root
        ));
    }
}
