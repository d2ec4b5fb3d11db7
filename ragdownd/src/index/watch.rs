//! Watching the docs dir: file events schedule a sync after 750 ms of quiet, of the paths the
//! events named ([`Span`]); of everything when an event names none, the watcher lost events, or
//! more paths changed than one walk of everything costs.
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

use super::span::Span;
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

/// What a scheduling event asks the sync to look at: the docs-dir-relative paths it names that
/// can hold indexed files, or everything (`None`) when it names none or the platform lost events
/// before it (an overflowed queue asks for a rescan).
pub fn event_paths(event: &notify::Event, root: &Path) -> Option<Vec<String>> {
    if event.paths.is_empty() || event.need_rescan() {
        return None;
    }
    let mut out = Vec::new();
    for path in &event.paths {
        let Ok(rel) = path.strip_prefix(root) else { continue };
        if !is_relevant(rel) {
            continue;
        }
        // A name that is not UTF-8 is never indexed; the walk of everything finds what it hides.
        out.push(super::scan::posix(rel)?);
    }
    Some(out)
}

/// The span of the events seen since the last sync: their paths, or everything.
fn widen(span: Option<Span>, paths: Option<Vec<String>>) -> Span {
    let seen = paths.map_or(Span::Whole, Span::of);
    match span {
        Some(span) => span.merge(seen),
        None => seen,
    }
}

/// What the watcher callback tells the debouncing task.
enum Signal {
    /// A scheduling event, with [`event_paths`].
    Changed(Option<Vec<String>>),
    /// The platform watcher failed.
    Failed,
}

/// Starts watching `docs_dir`, scheduling syncs on `indexer`.
pub fn watch(docs_dir: PathBuf, indexer: Indexer) -> WatchHandle {
    let (tx, mut rx) = mpsc::unbounded_channel::<Signal>();
    let root = docs_dir.clone();
    let event_tx = tx.clone();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
        Ok(event) => {
            if schedules_sync(&event, &root) {
                let _ = event_tx.send(Signal::Changed(event_paths(&event, &root)));
            }
        }
        Err(err) => {
            tracing::warn!("file watcher error: {err}");
            let _ = event_tx.send(Signal::Failed);
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
                Some(Signal::Failed) => {
                    tracing::warn!("falling back to polling every {}s", POLL_EVERY.as_secs());
                    polling = true;
                }
                Some(Signal::Changed(paths)) => {
                    let mut span = widen(None, paths);
                    // Debounce: wait until no event arrived for DEBOUNCE.
                    loop {
                        match tokio::time::timeout(DEBOUNCE, rx.recv()).await {
                            Ok(Some(Signal::Changed(paths))) => span = widen(Some(span), paths),
                            Ok(Some(Signal::Failed)) | Ok(None) => {
                                polling = true;
                                span = Span::Whole;
                                break;
                            }
                            Err(_) => break,
                        }
                    }
                    indexer.schedule_span(span);
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
    fn events_name_the_paths_to_sync_or_everything() {
        use notify::event::{CreateKind, Flag, ModifyKind, RenameMode};
        let root = Path::new("/docs");
        let event = |kind: EventKind, paths: &[&str]| {
            paths
                .iter()
                .fold(notify::Event::new(kind), |event, path| event.add_path(root.join(path)))
        };
        let renamed = event(
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
            &["ops/old.md", "ops/new.md"],
        );
        assert_eq!(
            event_paths(&renamed, root),
            Some(vec!["ops/old.md".to_string(), "ops/new.md".to_string()])
        );
        let folder = event(
            EventKind::Create(CreateKind::Folder),
            &["ops/new", "ops/.git/x", "ops/a.png"],
        );
        assert_eq!(event_paths(&folder, root), Some(vec!["ops/new".to_string()]));
        assert_eq!(event_paths(&event(EventKind::Any, &[]), root), None);
        let lost = event(EventKind::Other, &["ops/a.md"]).set_flag(Flag::Rescan);
        assert_eq!(event_paths(&lost, root), None);
        assert_eq!(
            event_paths(&event(EventKind::Any, &[""]), root),
            Some(vec![String::new()])
        );

        // What the debounce gathers: the union, and everything once anything asked for it.
        let span = widen(
            widen(None, Some(vec!["a.md".into()])).into(),
            Some(vec!["b/c.md".into()]),
        );
        assert_eq!(span, Span::of(["a.md", "b/c.md"]));
        assert_eq!(widen(Some(span), None), Span::Whole);
        assert_eq!(widen(None, Some(vec![String::new()])), Span::Whole);
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
