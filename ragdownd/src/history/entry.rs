//! One entry of the history: a change as a list of operations on paths (relative to the docs
//! dir), in the order they were made, with who made it and when. Stored as `entries/<id>.json`,
//! where an id sorts by time; written whole and renamed into place, so an entry on disk is always
//! one that parses.

use std::io::ErrorKind;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::documents::{DocError, atomic_write};

/// Where a change came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// An MCP tool call.
    Mcp,
    /// The web UI or another `/api` client.
    Web,
}

/// Who made a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Who {
    pub via: Via,
    /// The MCP tool (`ragdown_write`); `None` for the web UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The agent's session: its `session_id` argument, else the MCP connection's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The scoped token the change was made with (its name); `None` for the owner's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl Who {
    /// The web UI or an `/api` client.
    pub fn web() -> Self {
        Self {
            via: Via::Web,
            tool: None,
            session: None,
            token: None,
        }
    }

    /// An MCP tool call, in `session` when known.
    pub fn mcp(tool: &str, session: Option<String>) -> Self {
        Self {
            via: Via::Mcp,
            tool: Some(tool.to_string()),
            session: session.filter(|s| !s.trim().is_empty()),
            token: None,
        }
    }

    /// The same, made with the scoped token named `token` (`None`: the owner's).
    pub fn with_token(mut self, token: Option<String>) -> Self {
        self.token = token;
        self
    }
}

/// One step of a change. Hashes are SHA-256 of the whole file; `None` is "no file".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Op {
    /// A file created (`before: None`), replaced, or deleted (`after: None`).
    File {
        path: String,
        before: Option<String>,
        after: Option<String>,
    },
    /// A document or folder renamed without replacing anything. `hash`: a document's content.
    Rename {
        from: String,
        to: String,
        dir: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hash: Option<String>,
    },
    /// An empty folder made.
    Mkdir { path: String },
    /// An empty folder removed (the last step of deleting a folder, after its files).
    Rmdir { path: String },
    /// A symbolic link removed with the folder it was in (`target`: what it pointed at).
    Unlink { path: String, target: String },
    /// A symbolic link made (the undo of an [`Op::Unlink`]).
    Link { path: String, target: String },
}

impl Op {
    /// The paths the operation touches.
    pub fn paths(&self) -> Vec<&str> {
        match self {
            Self::File { path, .. }
            | Self::Mkdir { path }
            | Self::Rmdir { path }
            | Self::Unlink { path, .. }
            | Self::Link { path, .. } => vec![path],
            Self::Rename { from, to, .. } => vec![from, to],
        }
    }

    /// The contents it names, to keep while the entry is kept.
    pub fn hashes(&self) -> Vec<&str> {
        match self {
            Self::File { before, after, .. } => before.iter().chain(after).map(String::as_str).collect(),
            Self::Rename { hash, .. } => hash.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }
}

/// One change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Entry {
    /// Sorts by time: `<ms since the epoch, 13 digits>-<8 hex>`.
    pub id: String,
    /// When it was recorded, ISO-8601 UTC.
    pub at: String,
    pub who: Who,
    /// What was asked: `write`, `append`, `edit`, `remember`, `move`, `delete`, `save`,
    /// `create-folder`, `rename-folder`, `delete-folder`, `restore`, `undo`.
    pub action: String,
    /// For an undo: the entry it undid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// The steps, in the order they were made.
    pub ops: Vec<Op>,
}

impl Entry {
    /// A new entry, stamped now.
    pub(super) fn new(who: Who, action: &str) -> Self {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Self {
            id: new_id(ms),
            at: crate::index::sync::iso_from_ms(ms),
            who,
            action: action.to_string(),
            undoes: None,
            ops: Vec::new(),
        }
    }

    /// Milliseconds since the epoch, from the id.
    pub fn ms(&self) -> i64 {
        self.id.split('-').next().and_then(|ms| ms.parse().ok()).unwrap_or(0)
    }

    /// Whether any operation touches `path`: the path itself, a folder it is in (a folder's
    /// rename or delete), or with `prefix` anything under it (`""`: everything).
    pub fn touches(&self, path: &str, prefix: bool) -> bool {
        let path = path.trim_end_matches('/');
        let under = |a: &str, b: &str| a.len() > b.len() && a.starts_with(b) && a.as_bytes()[b.len()] == b'/';
        self.ops
            .iter()
            .flat_map(Op::paths)
            .any(|p| p == path || (prefix && path.is_empty()) || under(path, p) || (prefix && under(p, path)))
    }
}

/// A fresh id: the time, then 8 hex of the process, a counter and the clock's nanoseconds, so two
/// processes recording in one millisecond still differ.
fn new_id(ms: i64) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!(
        "{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let digest = Sha256::digest(seed.as_bytes());
    format!("{ms:013}-{}", hex::encode(&digest[..4]))
}

fn valid_id(id: &str) -> bool {
    id.len() == 22 && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// Writes `entry` whole over `entries/<id>.json`; returns the bytes written.
pub(super) fn write(entries: &Path, entry: &Entry) -> std::io::Result<u64> {
    let text = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
    atomic_write(&entries.join(format!("{}.json", entry.id)), &text)?;
    Ok(text.len() as u64)
}

/// Removes an entry (nothing of it was made).
pub(super) fn remove(entries: &Path, id: &str) -> std::io::Result<()> {
    match std::fs::remove_file(entries.join(format!("{id}.json"))) {
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// One entry by id, or 404.
pub(super) fn read(entries: &Path, id: &str) -> Result<Entry, DocError> {
    let missing = || DocError::NotFound(format!("no entry {id} in the history"));
    if !valid_id(id) {
        return Err(missing());
    }
    let bytes = match std::fs::read(entries.join(format!("{id}.json"))) {
        Err(err) if err.kind() == ErrorKind::NotFound => return Err(missing()),
        other => other.map_err(DocError::io(format!("could not read entry {id}")))?,
    };
    serde_json::from_slice(&bytes).map_err(|err| DocError::Io {
        context: format!("could not read entry {id}"),
        source: std::io::Error::other(err),
    })
}

/// Every entry's id, oldest first.
pub(super) fn ids(entries: &Path) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(entries) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
        .filter(|id| valid_id(id))
        .collect();
    ids.sort();
    ids
}

/// Every entry, oldest first; one that cannot be read is left out with a warning.
pub(super) fn list(entries: &Path) -> Vec<Entry> {
    ids(entries)
        .into_iter()
        .filter_map(|id| match read(entries, &id) {
            Ok(entry) => Some(entry),
            Err(DocError::NotFound(_)) => None,
            Err(err) => {
                tracing::warn!(%err, "a history entry cannot be read");
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_time_and_differ() {
        let a = new_id(1_700_000_000_000);
        let b = new_id(1_700_000_000_000);
        assert_ne!(a, b);
        assert!(valid_id(&a), "{a}");
        assert!(new_id(999) < a);
        assert!(!valid_id("../../x"));
    }

    #[test]
    fn an_entry_round_trips_and_says_what_it_touches() {
        let dir = tempfile::tempdir().unwrap();
        let mut entry = Entry::new(Who::mcp("ragdown_move", Some("s1".into())), "move");
        entry.ops.push(Op::Rename {
            from: "ops/a.md".into(),
            to: "db/a.md".into(),
            dir: false,
            hash: None,
        });
        write(dir.path(), &entry).unwrap();
        assert_eq!(read(dir.path(), &entry.id).unwrap(), entry);
        assert_eq!(list(dir.path()), vec![entry.clone()]);
        assert!(entry.touches("ops/a.md", false) && entry.touches("db", true) && entry.touches("", true));
        assert!(!entry.touches("ops/a", false) && !entry.touches("op", true));
        remove(dir.path(), &entry.id).unwrap();
        assert!(matches!(read(dir.path(), &entry.id), Err(DocError::NotFound(_))));
    }
}
