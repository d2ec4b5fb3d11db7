//! Resource notifications, on a session that can carry them (stdio after `initialize`):
//! `resources/subscribe` and `resources/unsubscribe`, and the `notifications/resources/updated` and
//! `notifications/resources/list_changed` that the index's own syncs drive
//! ([`crate::index::changes`]), so an edit by any editor is noticed once the watcher has synced
//! it, not only ragdown's own writes.
//!
//! Bounded: a session holds at most [`MAX_SUBSCRIPTIONS`] URIs; the sync's channel keeps a fixed
//! number of syncs for a session that does not keep up (after which it tells everything subscribed
//! that it changed, and that the list did); and a client that never reads its stream blocks the
//! sends on the transport's bounded queue rather than piling them up. This module only decides
//! what to tell; the tools and the path check are elsewhere.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleServer};
use tokio::sync::broadcast::error::RecvError;

use super::uri;
use crate::engine::Scope;
use crate::index::changes::SyncChanges;

/// Most URIs one session may subscribe to.
pub const MAX_SUBSCRIPTIONS: usize = 1_000;

/// One session's subscriptions, and whether its notifying task runs.
#[derive(Debug, Default)]
pub struct Notifier {
    /// Subscribed URI, as the client sent it, to the document's path from the docs dir.
    subscribed: Mutex<HashMap<String, String>>,
    started: AtomicBool,
}

impl Notifier {
    /// `resources/subscribe`: the URI must name a path in `scope` that the one path check lets
    /// through (the document may not exist yet).
    pub fn subscribe(&self, scope: &Scope, requested: &str) -> Result<(), ErrorData> {
        let parsed = uri::parse(requested).map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        let refused = || ErrorData::resource_not_found(format!("no such resource: {requested}"), None);
        if !scope.contains(&parsed.root_path) {
            return Err(refused());
        }
        scope
            .paths()
            .resolve(scope.to_scope_path(&parsed.root_path), false)
            .map_err(|_| refused())?;
        let mut subscribed = self.subscribed.lock();
        if subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains_key(requested) {
            return Err(ErrorData::invalid_params(
                format!("at most {MAX_SUBSCRIPTIONS} subscriptions per session"),
                None,
            ));
        }
        subscribed.insert(requested.to_string(), parsed.root_path);
        Ok(())
    }

    /// `resources/unsubscribe`.
    pub fn unsubscribe(&self, requested: &str) {
        self.subscribed.lock().remove(requested);
    }

    /// Starts telling `peer` what the syncs of `scope`'s index change, once per session.
    pub fn start(self: &Arc<Self>, scope: Scope, peer: Peer<RoleServer>) {
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let changes = scope.engine.indexer.changes();
        tokio::spawn(run(self.clone(), scope, peer, changes));
    }

    /// The subscribed URIs whose documents are among `paths`.
    fn touched(&self, paths: &HashSet<&str>) -> Vec<String> {
        let subscribed = self.subscribed.lock();
        let mut uris: Vec<String> = subscribed
            .iter()
            .filter(|(_, path)| paths.contains(path.as_str()))
            .map(|(uri, _)| uri.clone())
            .collect();
        uris.sort();
        uris
    }
}

/// What to tell about one sync's changes in `scope`: whether the list changed, and the paths
/// whose documents changed.
fn in_scope<'a>(scope: &Scope, changes: &'a SyncChanges) -> (bool, HashSet<&'a str>) {
    let list_changed = changes.added.iter().chain(&changes.removed).any(|p| scope.contains(p));
    let paths = changes
        .added
        .iter()
        .chain(&changes.updated)
        .chain(&changes.removed)
        .filter(|p| scope.contains(p))
        .map(String::as_str)
        .collect();
    (list_changed, paths)
}

async fn run(
    notifier: Arc<Notifier>,
    scope: Scope,
    peer: Peer<RoleServer>,
    mut changes: tokio::sync::broadcast::Receiver<Arc<SyncChanges>>,
) {
    loop {
        let (list_changed, uris) = match changes.recv().await {
            Ok(changes) => {
                let (list_changed, paths) = in_scope(&scope, &changes);
                (list_changed, notifier.touched(&paths))
            }
            // Fell behind: whatever was missed may have changed anything.
            Err(RecvError::Lagged(_)) => (true, notifier.subscribed.lock().keys().cloned().collect()),
            Err(RecvError::Closed) => return,
        };
        // A send fails once the client has gone: nothing more to tell.
        if list_changed && peer.notify_resource_list_changed().await.is_err() {
            return;
        }
        for uri in uris {
            let params = ResourceUpdatedNotificationParam::new(uri);
            if peer.notify_resource_updated(params).await.is_err() {
                return;
            }
        }
    }
}
