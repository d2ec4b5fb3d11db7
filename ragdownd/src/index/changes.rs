//! What each sync changed, told to whoever listens: the documents it added, updated and removed,
//! for MCP's resource notifications. The sync publishes; listeners subscribe. In a reader process
//! (another process indexes), what the primary's syncs changed is relayed here over its socket
//! ([`super::primary`]), so a reader's listeners hear every sync too.
//!
//! Bounded: the channel keeps the last [`KEPT`] syncs' changes, and a listener that falls further
//! behind is told it lagged (and should treat everything as changed) instead of holding memory for
//! it. Closed when its indexer is retired (an embedder switch hands the index to a new one), so
//! listeners learn that no more will come. This module never reads the disk or the index: the
//! sync hands it the paths.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::broadcast;

use super::rows::FileState;

/// How many syncs' changes the channel keeps for a listener that has not read them yet.
pub const KEPT: usize = 16;

/// The documents one sync changed, as paths from the docs dir.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SyncChanges {
    /// Documents the index did not hold before.
    pub added: Vec<String>,
    /// Documents whose content changed.
    pub updated: Vec<String>,
    /// Documents gone from disk.
    pub removed: Vec<String>,
}

impl SyncChanges {
    /// The changes of a sync that found `removed` gone and `changed` with new content, against
    /// what the index held before (`indexed`).
    pub fn of<'a>(
        removed: &[String],
        changed: impl IntoIterator<Item = &'a str>,
        indexed: &HashMap<String, FileState>,
    ) -> Self {
        let (updated, added): (Vec<String>, Vec<String>) = changed
            .into_iter()
            .map(str::to_string)
            .partition(|path| indexed.contains_key(path));
        Self {
            added,
            updated,
            removed: removed.to_vec(),
        }
    }

    /// Whether the sync changed nothing.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.updated.is_empty() && self.removed.is_empty()
    }
}

/// The channel the sync publishes its changes on.
#[derive(Debug)]
pub struct Changes {
    /// `None` once closed: listeners then read what is left, then hear it has closed.
    sender: Mutex<Option<broadcast::Sender<Arc<SyncChanges>>>>,
}

impl Default for Changes {
    fn default() -> Self {
        Self {
            sender: Mutex::new(Some(broadcast::channel(KEPT).0)),
        }
    }
}

impl Changes {
    /// Tells every listener what a sync changed; nothing when it changed nothing or nobody listens.
    pub fn publish(&self, changes: SyncChanges) {
        if changes.is_empty() {
            return;
        }
        if let Some(sender) = &*self.sender.lock() {
            let _ = sender.send(Arc::new(changes));
        }
    }

    /// A listener for the syncs from now on (one that hears at once that the channel closed, once
    /// it has).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<SyncChanges>> {
        match &*self.sender.lock() {
            Some(sender) => sender.subscribe(),
            None => broadcast::channel(1).1,
        }
    }

    /// No more syncs will come: every listener is told so once it has read what is left.
    pub fn close(&self) {
        self.sender.lock().take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_files_are_added_or_updated_by_what_the_index_held() {
        let state = FileState {
            file_hash: "h".into(),
            mtime_ms: 1.0,
            size: 1.0,
            chunks: 1,
        };
        let indexed = HashMap::from([("a.md".to_string(), state)]);
        let changes = SyncChanges::of(&["gone.md".to_string()], ["a.md", "new.md"], &indexed);
        assert_eq!(
            changes,
            SyncChanges {
                added: vec!["new.md".into()],
                updated: vec!["a.md".into()],
                removed: vec!["gone.md".into()],
            }
        );
        assert!(SyncChanges::of(&[], [], &indexed).is_empty());
    }

    #[tokio::test]
    async fn a_listener_that_falls_behind_is_told_it_lagged_and_memory_stays_bounded() {
        let changes = Changes::default();
        let mut listener = changes.subscribe();
        changes.publish(SyncChanges::default());
        for i in 0..KEPT + 5 {
            changes.publish(SyncChanges {
                added: vec![format!("{i}.md")],
                ..Default::default()
            });
        }
        assert!(matches!(
            listener.recv().await,
            Err(broadcast::error::RecvError::Lagged(5))
        ));
        assert_eq!(
            listener.recv().await.unwrap().added,
            ["5.md"],
            "then the last ones kept"
        );
        assert_eq!(listener.len(), KEPT - 1);
    }

    #[tokio::test]
    async fn closing_tells_listeners_after_what_is_left() {
        let changes = Changes::default();
        let mut listener = changes.subscribe();
        changes.publish(SyncChanges {
            added: vec!["a.md".into()],
            ..Default::default()
        });
        changes.close();
        changes.publish(SyncChanges {
            added: vec!["late.md".into()],
            ..Default::default()
        });
        assert_eq!(listener.recv().await.unwrap().added, ["a.md"]);
        assert!(matches!(
            listener.recv().await,
            Err(broadcast::error::RecvError::Closed)
        ));
        let mut late = changes.subscribe();
        assert!(matches!(late.recv().await, Err(broadcast::error::RecvError::Closed)));
    }
}
