//! Resource notifications, in both protocol eras, driven by the index's own syncs
//! ([`crate::index::changes`]), so an edit by any editor is noticed once the watcher has synced
//! it, not only ragdown's own writes:
//!
//! - 2025-11-25, on a session that lives as long as its connection (stdio after `initialize`):
//!   `resources/subscribe` and `resources/unsubscribe` ([`Notifier`]), then unsolicited
//!   `notifications/resources/updated` and `notifications/resources/list_changed`.
//! - 2026-07-28, on stdio and HTTP alike: one `subscriptions/listen` request per stream
//!   ([`accepted`], [`listen`]); the SDK acknowledges it and tags every notification with the
//!   request's id, and this module sends the ones the filter asked for until the client cancels
//!   the request (or closes its HTTP stream), the server shuts down, or the index it follows is
//!   retired (an embedder switch), when the stream ends with a graceful result.
//!
//! Bounded: a session or stream watches at most [`MAX_SUBSCRIPTIONS`] URIs. Whatever a stream has
//! not told yet is coalesced into one [`Pending`] (a flag and a set of the URIs it watches), so
//! a client that reads slowly costs no more than what it watches; while it does not read at all,
//! the sends wait on the transport's bounded queue, the sync's channel keeps a fixed number of
//! syncs, and past them the stream hears that everything it watches changed, and the list did.
//! This module only decides what to tell; the tools and the path check are elsewhere.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, RoleServer};
use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio_util::sync::CancellationToken;

use super::uri;
use crate::engine::Scope;
use crate::index::changes::SyncChanges;

/// Most URIs one session, or one `subscriptions/listen` stream, may watch.
pub const MAX_SUBSCRIPTIONS: usize = 1_000;

/// The document path (from the docs dir) that `requested` watches, when it is a URI of ours
/// naming a path in `scope` that the one path check lets through (the document may not exist
/// yet; a section URI watches its document).
fn watched_path(scope: &Scope, requested: &str) -> Option<String> {
    let parsed = uri::parse(requested).ok()?;
    if !scope.contains(&parsed.root_path) {
        return None;
    }
    scope
        .paths()
        .resolve(scope.to_scope_path(&parsed.root_path), false)
        .ok()?;
    Some(parsed.root_path)
}

/// What a stream has yet to tell, however many syncs it covers: at most one `list_changed` and
/// one `updated` per watched URI.
#[derive(Debug, Default, PartialEq, Eq)]
struct Pending {
    list_changed: bool,
    updated: BTreeSet<String>,
}

/// What one stream (or legacy session) watches: the list, and URIs with the paths they follow.
#[derive(Debug, Default, Clone)]
struct Watch {
    list: bool,
    uris: HashMap<String, String>,
}

impl Watch {
    /// Adds what `changes` (`None`: syncs that were missed, which may have changed anything)
    /// means for this watch in `scope` to `pending`.
    fn absorb(&self, in_scope: &impl Fn(&str) -> bool, changes: Option<&SyncChanges>, pending: &mut Pending) {
        let Some(changes) = changes else {
            pending.list_changed |= self.list;
            pending.updated.extend(self.uris.keys().cloned());
            return;
        };
        let (list_changed, paths) = touched(in_scope, changes);
        pending.list_changed |= self.list && list_changed;
        pending.updated.extend(
            self.uris
                .iter()
                .filter(|(_, path)| paths.contains(path.as_str()))
                .map(|(uri, _)| uri.clone()),
        );
    }
}

/// What one sync's changes mean for the paths `in_scope` takes: whether the list changed, and
/// the paths whose documents changed.
fn touched<'a>(in_scope: &impl Fn(&str) -> bool, changes: &'a SyncChanges) -> (bool, HashSet<&'a str>) {
    let list_changed = changes
        .added
        .iter()
        .chain(&changes.removed)
        .any(|p| in_scope(p.as_str()));
    let paths = changes
        .added
        .iter()
        .chain(&changes.updated)
        .chain(&changes.removed)
        .map(String::as_str)
        .filter(|p| in_scope(p))
        .collect();
    (list_changed, paths)
}

/// Waits for the next sync's changes, then folds in every one already waiting, so a stream that
/// fell behind tells each thing once. `None` once the index's channel has closed (its indexer
/// was retired) and nothing is left to tell.
async fn next_pending(
    changes: &mut Receiver<Arc<SyncChanges>>,
    in_scope: &impl Fn(&str) -> bool,
    watch: impl Fn() -> Watch,
) -> Option<Pending> {
    let mut pending = Pending::default();
    let first = match changes.recv().await {
        Ok(first) => Some(first),
        Err(RecvError::Lagged(_)) => None,
        Err(RecvError::Closed) => return None,
    };
    let watch = watch();
    watch.absorb(in_scope, first.as_deref(), &mut pending);
    loop {
        match changes.try_recv() {
            Ok(more) => watch.absorb(in_scope, Some(more.as_ref()), &mut pending),
            Err(TryRecvError::Lagged(_)) => watch.absorb(in_scope, None, &mut pending),
            Err(TryRecvError::Empty | TryRecvError::Closed) => return Some(pending),
        }
    }
}

/// Where a stream's notifications go.
enum Sink {
    /// The 2025-11-25 session's peer: unsolicited notifications.
    Session(Peer<RoleServer>),
    /// A `subscriptions/listen` stream: the SDK checks each against the accepted filter and tags
    /// it with the subscription's id.
    Listen(SubscriptionSink),
}

impl Sink {
    /// Tells `pending`; `false` once the client has gone (nothing more to tell it).
    async fn tell(&self, pending: Pending) -> bool {
        if pending.list_changed {
            let sent = match self {
                Sink::Session(peer) => peer.notify_resource_list_changed().await.is_ok(),
                Sink::Listen(sink) => sink.notify_resource_list_changed().await.is_ok(),
            };
            if !sent {
                return false;
            }
        }
        for uri in pending.updated {
            let sent = match self {
                Sink::Session(peer) => peer
                    .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                    .await
                    .is_ok(),
                Sink::Listen(sink) => sink.notify_resource_updated(uri).await.is_ok(),
            };
            if !sent {
                return false;
            }
        }
        true
    }
}

/// Tells `sink` what the syncs of `scope`'s index change for `watch`, until the client goes or
/// the index's channel closes.
async fn run(scope: Scope, mut changes: Receiver<Arc<SyncChanges>>, sink: Sink, watch: impl Fn() -> Watch) {
    let in_scope = |path: &str| scope.contains(path);
    while let Some(pending) = next_pending(&mut changes, &in_scope, &watch).await {
        if pending != Pending::default() && !sink.tell(pending).await {
            return;
        }
    }
}

/// The part of a `subscriptions/listen` filter this endpoint honours: the resource list's
/// changes, and each requested URI that names a path in `scope` the one path check lets through
/// (the first [`MAX_SUBSCRIPTIONS`] of them). Anything else is left out of the acknowledgment,
/// as the protocol asks, rather than refused.
pub fn accepted(scope: &Scope, requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut filter = SubscriptionFilter::new();
    filter.resources_list_changed = requested.resources_list_changed.filter(|&on| on);
    filter.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        let mut seen = HashSet::new();
        uris.iter()
            .filter(|uri| watched_path(scope, uri).is_some() && seen.insert(uri.as_str()))
            .take(MAX_SUBSCRIPTIONS)
            .cloned()
            .collect()
    });
    filter
}

/// Runs one `subscriptions/listen` stream in `scope` until the client cancels it (the SDK's
/// token), `closing` is cancelled (the server shuts down), or the index is retired; the last two
/// end it gracefully, which the SDK answers with the request's final result.
pub async fn listen(scope: Scope, context: SubscriptionContext, closing: Option<CancellationToken>) {
    let accepted = context.accepted();
    let watch = Watch {
        list: accepted.resources_list_changed == Some(true),
        uris: accepted
            .resource_subscriptions
            .iter()
            .flatten()
            .filter_map(|uri| Some((uri.clone(), watched_path(&scope, uri)?)))
            .collect(),
    };
    let changes = scope.engine.indexer.changes();
    let closing = closing.unwrap_or_default();
    let sink = Sink::Listen(context.sink().clone());
    tokio::select! {
        () = context.cancelled() => {}
        () = closing.cancelled() => {}
        () = run(scope, changes, sink, || watch.clone()) => {}
    }
}

/// One 2025-11-25 session's subscriptions, and whether its notifying task runs.
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
        uri::parse(requested).map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        let Some(path) = watched_path(scope, requested) else {
            return Err(ErrorData::resource_not_found(
                format!("no such resource: {requested}"),
                None,
            ));
        };
        let mut subscribed = self.subscribed.lock();
        if subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains_key(requested) {
            return Err(ErrorData::invalid_params(
                format!("at most {MAX_SUBSCRIPTIONS} subscriptions per session"),
                None,
            ));
        }
        subscribed.insert(requested.to_string(), path);
        Ok(())
    }

    /// `resources/unsubscribe`.
    pub fn unsubscribe(&self, requested: &str) {
        self.subscribed.lock().remove(requested);
    }

    /// Starts telling `peer` what the syncs of `scope`'s index change, once per session: the
    /// list always (the session's capabilities claim `listChanged`), and the subscribed URIs as
    /// they stand at each sync.
    pub fn start(self: &Arc<Self>, scope: Scope, peer: Peer<RoleServer>) {
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let changes = scope.engine.indexer.changes();
        let notifier = self.clone();
        let watch = move || Watch {
            list: true,
            uris: notifier.subscribed.lock().clone(),
        };
        tokio::spawn(run(scope, changes, Sink::Session(peer), watch));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::changes::{Changes, KEPT};

    /// A scope holding every path but those under `private/`.
    fn in_scope(path: &str) -> bool {
        !path.starts_with("private/")
    }

    fn watching(uris: &[(&str, &str)]) -> Watch {
        Watch {
            list: true,
            uris: uris.iter().map(|(u, p)| (u.to_string(), p.to_string())).collect(),
        }
    }

    #[tokio::test]
    async fn a_stream_that_falls_behind_tells_each_thing_once() {
        let changes = Changes::default();
        let mut listener = changes.subscribe();
        let watch = watching(&[("ragdown:///a.md", "a.md"), ("ragdown:///a.md#Top", "a.md")]);
        // Many syncs while the client reads nothing: each edits a.md and adds a document.
        for i in 0..KEPT - 1 {
            changes.publish(SyncChanges {
                added: vec![format!("n{i}.md")],
                updated: vec!["a.md".into()],
                ..Default::default()
            });
        }
        let pending = next_pending(&mut listener, &in_scope, || watch.clone()).await.unwrap();
        assert_eq!(
            pending,
            Pending {
                list_changed: true,
                updated: ["ragdown:///a.md".to_string(), "ragdown:///a.md#Top".to_string()].into(),
            },
            "one list_changed and one update per watched URI, however many syncs"
        );
        assert!(listener.is_empty());
    }

    #[tokio::test]
    async fn past_the_kept_syncs_everything_watched_changed_and_memory_stays_bounded() {
        let changes = Changes::default();
        let mut listener = changes.subscribe();
        let watch = watching(&[("ragdown:///a.md", "a.md"), ("ragdown:///b.md", "b.md")]);
        for i in 0..KEPT * 10 {
            changes.publish(SyncChanges {
                updated: vec![format!("other{i}.md")],
                ..Default::default()
            });
        }
        let pending = next_pending(&mut listener, &in_scope, || watch.clone()).await.unwrap();
        assert_eq!(
            pending,
            Pending {
                list_changed: true,
                updated: ["ragdown:///a.md".to_string(), "ragdown:///b.md".to_string()].into(),
            }
        );
        assert!(listener.is_empty(), "what was kept is folded in too");
    }

    #[tokio::test]
    async fn what_is_not_watched_or_out_of_scope_is_not_told() {
        let changes = Changes::default();
        let mut listener = changes.subscribe();
        let watch = watching(&[("ragdown:///a.md", "a.md"), ("ragdown:///private/p.md", "private/p.md")]);
        changes.publish(SyncChanges {
            added: vec!["private/new.md".into()],
            updated: vec!["b.md".into(), "private/p.md".into()],
            ..Default::default()
        });
        let pending = next_pending(&mut listener, &in_scope, || watch.clone()).await.unwrap();
        assert_eq!(pending, Pending::default());
        let not_the_list = Watch {
            list: false,
            ..watch.clone()
        };
        changes.publish(SyncChanges {
            added: vec!["new.md".into()],
            ..Default::default()
        });
        let pending = next_pending(&mut listener, &in_scope, || not_the_list.clone())
            .await
            .unwrap();
        assert_eq!(pending, Pending::default());
    }

    #[tokio::test]
    async fn a_retired_index_ends_the_stream() {
        let changes = Changes::default();
        let mut listener = changes.subscribe();
        changes.close();
        assert_eq!(next_pending(&mut listener, &in_scope, Watch::default).await, None);
    }
}
