//! The token file: what tokens exist, and checking a presented one against them.
//!
//! The file (by default `.ragdown-access.json` in the docs dir) is one JSON object:
//!
//! ```json
//! { "version": 1,
//!   "tokens": [ { "id": "t0a1b2c3d4e5f", "name": "coding agent", "hash": "sha256:…",
//!                 "scope": ["work/ragdown"], "access": "read", "created_ms": 1764892800000,
//!                 "expires_ms": 1767484800000, "last_used_ms": 1764896400000 } ] }
//! ```
//!
//! Keys this version does not know, at the top or in a token, are kept when the file is rewritten,
//! so a later version's additions (OAuth's clients and grants) survive an older server.
//!
//! Every change reads the file afresh, changes it and writes it back under the file's lock (the
//! one document writes take, across processes too), atomically and with mode 0600. Reads come
//! from memory, re-read when the file's size or modification time changes, so a token made by
//! another process sharing the docs dir, or a file edited by hand, counts at once. A file that is
//! there but cannot be read is never overwritten: every scoped token is refused (the owner's token
//! still works) and each change answers why, until someone fixes or removes it.
//!
//! The last use of a token is noted in memory on each request and written at most once a minute
//! ([`FLUSH_EVERY_MS`]), so a busy agent does not rewrite the file on every call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::oauth::{ClientRecord, GrantRecord};
use super::paths::{FolderPath, minimal};
use super::secret::{self, Secret};
use super::{Grant, Level};
use crate::documents::{atomic_write, with_path_lock};
use crate::error::{ErrorKind, Kinded};

/// The file's name in the docs dir, unless `RAGDOWN_ACCESS_FILE` says otherwise.
pub const DEFAULT_FILE_NAME: &str = ".ragdown-access.json";

/// The format this version writes.
const VERSION: u32 = 1;

/// How often at most the last uses are written.
pub const FLUSH_EVERY_MS: u64 = 60_000;

/// Most characters in a token's name.
const MAX_NAME_CHARS: usize = 100;

/// Most folder paths one token opens.
const MAX_PATHS: usize = 64;

/// One token as the file holds it: never its secret, only the secret's hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenRecord {
    /// Names the token in lists and in `DELETE /api/access/tokens/<id>`; not a secret.
    pub id: String,
    /// What the owner called it (`coding agent`).
    pub name: String,
    /// [`secret::hash`] of the token's text.
    pub hash: String,
    /// The folders and subfolders it opens, none inside another.
    pub scope: Vec<FolderPath>,
    /// Read, or read and write.
    pub access: Level,
    /// When it was made, ms since the epoch.
    pub created_ms: u64,
    /// When it stops working, ms since the epoch; `None`: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ms: Option<u64>,
    /// When it was last used (to the minute, see [`FLUSH_EVERY_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used_ms: Option<u64>,
    /// Keys a later version added, kept as they are.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl TokenRecord {
    /// Whether it has expired at `now`.
    pub fn expired(&self, now: u64) -> bool {
        self.expires_ms.is_some_and(|at| now >= at)
    }

    fn grant(&self) -> Grant {
        Grant {
            id: self.id.clone(),
            name: self.name.clone(),
            paths: self.scope.clone(),
            level: self.access,
            resource: None,
        }
    }
}

/// The whole file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct TokenFile {
    version: u32,
    #[serde(default)]
    pub(super) tokens: Vec<TokenRecord>,
    /// OAuth clients that registered themselves (RFC 7591).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) clients: Vec<ClientRecord>,
    /// What the owner approved for OAuth clients, with the hashes of their tokens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) grants: Vec<GrantRecord>,
    /// Keys a later version added, kept as they are.
    #[serde(flatten)]
    other: Map<String, Value>,
}

impl Default for TokenFile {
    fn default() -> Self {
        Self {
            version: VERSION,
            tokens: Vec::new(),
            clients: Vec::new(),
            grants: Vec::new(),
            other: Map::new(),
        }
    }
}

/// What a new token is to open, as the owner asked.
#[derive(Debug, Clone)]
pub struct NewToken {
    pub name: String,
    pub scope: Vec<FolderPath>,
    pub access: Level,
    pub expires_ms: Option<u64>,
}

/// Why a presented token opens nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No token has this secret: never made, revoked, or mistyped (or the file is unreadable).
    Unknown,
    /// It was made, and its time is up.
    Expired,
}

/// Why the token file could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The request itself is wrong (a name, a path, an expiry).
    #[error("{0}")]
    Invalid(String),
    /// No token has that id.
    #[error("no token with the id {0:?}")]
    NotFound(String),
    /// The file is there and is not a token file; writing would lose what it holds.
    #[error("{file} cannot be read ({reason}); fix or remove it first")]
    Broken { file: String, reason: String },
    /// The file system or the random source failed.
    #[error("cannot write {file}: {reason}")]
    Io { file: String, reason: String },
}

impl Kinded for StoreError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Invalid(_) => ErrorKind::Invalid,
            Self::NotFound(_) => ErrorKind::NotFound,
            Self::Broken { .. } => ErrorKind::Conflict,
            Self::Io { .. } => ErrorKind::Internal,
        }
    }
}

/// What the file looked like when last read: its size and modification time, or nothing there.
type Stamp = Option<(u64, Option<SystemTime>)>;

/// The file as last read, and the uses noted since it was last written.
#[derive(Debug, Default)]
pub(super) struct Loaded {
    tokens: Vec<TokenRecord>,
    pub(super) clients: Vec<ClientRecord>,
    pub(super) grants: Vec<GrantRecord>,
    stamp: Stamp,
    /// Whether the file has been looked at yet.
    read: bool,
    /// Why the file could not be read, when it could not.
    pub(super) broken: Option<String>,
    /// Last uses newer than the file's, by token or grant id.
    pub(super) used: HashMap<String, u64>,
    /// When last uses were last written (or a write of them was started).
    flushed_ms: u64,
}

impl Loaded {
    /// The later of `was` (the file's last use of the token or grant `id`) and the use noted in
    /// memory since.
    pub(super) fn last_used(&self, id: &str, was: Option<u64>) -> Option<u64> {
        match (was, self.used.get(id)) {
            (Some(was), Some(&at)) => Some(was.max(at)),
            (was, at) => was.or(at.copied()),
        }
    }
}

/// The tokens of one server.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    pub(super) loaded: Mutex<Loaded>,
}

/// Milliseconds since the epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn stamp_of(path: &Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|meta| (meta.len(), meta.modified().ok()))
}

/// Why the token file cannot be read.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("format version {0} is newer than this server's ({VERSION})")]
    Newer(u32),
}

/// The file at `path`: `Ok(None)` when there is none, `Err` with why when it cannot be read.
fn read_file(path: &Path) -> Result<Option<TokenFile>, ReadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    let file: TokenFile = serde_json::from_str(&text)?;
    if file.version > VERSION {
        return Err(ReadError::Newer(file.version));
    }
    Ok(Some(file))
}

/// Writes `file` to `path` atomically with mode 0600 (a new file is made 0600 first, and the
/// atomic write keeps a replaced file's mode).
fn write_file(path: &Path, file: &TokenFile) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
        {
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
            }
            Err(err) => return Err(err),
        }
    }
    let mut text = serde_json::to_string_pretty(file).map_err(std::io::Error::other)?;
    text.push('\n');
    atomic_write(path, text.as_bytes())
}

impl Store {
    /// The tokens in `path`, read now (a missing file is no tokens).
    pub fn open(path: PathBuf) -> Self {
        let store = Self {
            path,
            loaded: Mutex::default(),
        };
        store.reload_if_changed(&mut store.loaded.lock());
        store
    }

    /// Where the tokens are kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the file again when its size or modification time differs from the last read.
    pub(super) fn reload_if_changed(&self, loaded: &mut Loaded) {
        let stamp = stamp_of(&self.path);
        if loaded.read && stamp == loaded.stamp {
            return;
        }
        loaded.read = true;
        loaded.stamp = stamp;
        match read_file(&self.path) {
            Ok(file) => {
                let file = file.unwrap_or_default();
                loaded.tokens = file.tokens;
                loaded.clients = file.clients;
                loaded.grants = file.grants;
                loaded.broken = None;
            }
            Err(reason) => {
                let reason = reason.to_string();
                if loaded.broken.as_deref() != Some(reason.as_str()) {
                    tracing::warn!(file = %self.path.display(), %reason, "cannot read the token file: every scoped token is refused until it is fixed");
                }
                loaded.tokens.clear();
                loaded.clients.clear();
                loaded.grants.clear();
                loaded.broken = Some(reason);
            }
        }
    }

    /// The grant of the token whose text is `presented`. Every stored hash is compared, in
    /// constant time, whatever matches. Notes the use.
    pub fn verify(&self, presented: &str, now: u64) -> Result<Grant, Refusal> {
        let wanted = secret::hash(presented);
        let mut loaded = self.loaded.lock();
        self.reload_if_changed(&mut loaded);
        let mut found = None;
        for record in &loaded.tokens {
            if secret::same_hash(&record.hash, &wanted) {
                found = Some(record);
            }
        }
        let record = found.ok_or(Refusal::Unknown)?;
        if record.expired(now) {
            return Err(Refusal::Expired);
        }
        let grant = record.grant();
        loaded.used.insert(grant.id.clone(), now);
        Ok(grant)
    }

    /// Whether last uses wait to be written and the last write of them is a minute old; when so,
    /// the caller is to call [`Store::flush`] (off the async threads), and the next minute starts.
    pub fn flush_due(&self, now: u64) -> bool {
        let mut loaded = self.loaded.lock();
        if loaded.used.is_empty() || now.saturating_sub(loaded.flushed_ms) < FLUSH_EVERY_MS {
            return false;
        }
        loaded.flushed_ms = now;
        true
    }

    /// Writes the last uses noted in memory.
    pub fn flush(&self) -> Result<(), StoreError> {
        if self.loaded.lock().used.is_empty() {
            return Ok(());
        }
        self.change(|_| Ok(()))
    }

    /// Every token, oldest first, with its last use as noted now.
    pub fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
        let mut loaded = self.loaded.lock();
        self.reload_if_changed(&mut loaded);
        if let Some(reason) = &loaded.broken {
            return Err(self.broken(reason.clone()));
        }
        let mut tokens = loaded.tokens.clone();
        for token in &mut tokens {
            token.last_used_ms = loaded.last_used(&token.id, token.last_used_ms);
        }
        Ok(tokens)
    }

    /// Makes a token; its text is in the answer and nowhere else.
    pub fn create(&self, new: NewToken, now: u64) -> Result<(TokenRecord, Secret), StoreError> {
        let name = new.name.trim().to_string();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(StoreError::Invalid(format!(
                "name must be 1 to {MAX_NAME_CHARS} characters, on one line"
            )));
        }
        let scope = minimal(new.scope);
        if scope.is_empty() || scope.len() > MAX_PATHS {
            return Err(StoreError::Invalid(format!(
                "scope must name 1 to {MAX_PATHS} folders or subfolders"
            )));
        }
        if new.expires_ms.is_some_and(|at| at <= now) {
            return Err(StoreError::Invalid("expires_ms must be in the future".into()));
        }
        let io = |err: getrandom::Error| StoreError::Io {
            file: self.path.display().to_string(),
            reason: format!("no random bytes: {err}"),
        };
        let secret = Secret::generate().map_err(io)?;
        let record = TokenRecord {
            id: secret::new_id().map_err(io)?,
            name,
            hash: secret.hash(),
            scope,
            access: new.access,
            created_ms: now,
            expires_ms: new.expires_ms,
            last_used_ms: None,
            other: Map::new(),
        };
        let kept = record.clone();
        self.change(move |file| {
            file.tokens.push(kept);
            Ok(())
        })?;
        Ok((record, secret))
    }

    /// Revokes a token: it is removed from the file, and refused from the next request on.
    pub fn revoke(&self, id: &str) -> Result<TokenRecord, StoreError> {
        self.change(|file| {
            let at = file
                .tokens
                .iter()
                .position(|token| token.id == id)
                .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            Ok(file.tokens.remove(at))
        })
    }

    pub(super) fn broken(&self, reason: String) -> StoreError {
        StoreError::Broken {
            file: self.path.display().to_string(),
            reason,
        }
    }

    /// Reads the file afresh under its lock, writes the noted last uses into it, applies `change`
    /// and writes it back; what is in memory is then what was written.
    pub(super) fn change<T>(
        &self,
        change: impl FnOnce(&mut TokenFile) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        with_path_lock(&self.path, || {
            let mut file = read_file(&self.path)
                .map_err(|reason| self.broken(reason.to_string()))?
                .unwrap_or_default();
            let mut loaded = self.loaded.lock();
            for token in &mut file.tokens {
                token.last_used_ms = loaded.last_used(&token.id, token.last_used_ms);
            }
            for grant in &mut file.grants {
                grant.last_used_ms = loaded.last_used(&grant.id, grant.last_used_ms);
            }
            let out = change(&mut file)?;
            file.version = VERSION;
            write_file(&self.path, &file).map_err(|err| StoreError::Io {
                file: self.path.display().to_string(),
                reason: err.to_string(),
            })?;
            loaded.tokens = file.tokens;
            loaded.clients = file.clients;
            loaded.grants = file.grants;
            loaded.stamp = stamp_of(&self.path);
            loaded.read = true;
            loaded.broken = None;
            loaded.used.clear();
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(name: &str, scope: &[&str], access: Level) -> NewToken {
        NewToken {
            name: name.into(),
            scope: scope.iter().map(|p| FolderPath::parse(p).unwrap()).collect(),
            access,
            expires_ms: None,
        }
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join(DEFAULT_FILE_NAME));
        (dir, store)
    }

    #[test]
    fn a_made_token_opens_its_grant_and_the_file_holds_only_its_hash() {
        let (_dir, store) = store();
        let (record, secret) = store
            .create(new("agent", &["notes/a", "notes"], Level::Read), 1_000)
            .unwrap();
        let grant = store.verify(secret.expose(), 2_000).unwrap();
        assert_eq!(grant.id, record.id);
        assert_eq!(grant.level, Level::Read);
        assert_eq!(
            grant.paths,
            vec![FolderPath::parse("notes").unwrap()],
            "notes/a is inside notes"
        );
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert!(!text.contains(secret.expose()), "plaintext token in the file: {text}");
        let body = secret.expose().strip_prefix(secret::PREFIX).unwrap();
        assert!(!text.contains(body));
        assert!(text.contains(&secret::hash(secret.expose())));
        assert_eq!(store.verify("rdt_wrong", 2_000), Err(Refusal::Unknown));
        assert_eq!(
            store.verify(&format!("{} ", secret.expose()), 2_000),
            Err(Refusal::Unknown)
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_private_to_its_owner() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, store) = store();
        store.create(new("agent", &["notes"], Level::Read), 1_000).unwrap();
        let mode = std::fs::metadata(store.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        std::fs::set_permissions(store.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        store.create(new("other", &["notes"], Level::Read), 1_000).unwrap();
        let mode = std::fs::metadata(store.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "a rewrite narrows a widened file again");
    }

    #[test]
    fn expired_and_revoked_tokens_are_refused() {
        let (_dir, store) = store();
        let mut ask = new("short", &["notes"], Level::Write);
        ask.expires_ms = Some(5_000);
        let (_, short) = store.create(ask, 1_000).unwrap();
        assert!(store.verify(short.expose(), 4_999).is_ok());
        assert_eq!(store.verify(short.expose(), 5_000), Err(Refusal::Expired));
        let (record, revoked) = store.create(new("gone", &["notes"], Level::Write), 1_000).unwrap();
        assert!(store.verify(revoked.expose(), 2_000).is_ok());
        store.revoke(&record.id).unwrap();
        assert_eq!(store.verify(revoked.expose(), 2_000), Err(Refusal::Unknown));
        assert!(matches!(store.revoke(&record.id), Err(StoreError::NotFound(_))));
        let mut past = new("past", &["notes"], Level::Read);
        past.expires_ms = Some(999);
        assert!(matches!(store.create(past, 1_000), Err(StoreError::Invalid(_))));
    }

    #[test]
    fn bad_requests_make_nothing() {
        let (_dir, store) = store();
        for bad in [
            new("", &["notes"], Level::Read),
            new("a\nb", &["notes"], Level::Read),
            new("x", &[], Level::Read),
        ] {
            assert!(matches!(store.create(bad, 1_000), Err(StoreError::Invalid(_))));
        }
        assert!(!store.path().exists());
    }

    #[test]
    fn another_process_s_changes_count_at_once() {
        let (_dir, store) = store();
        let other = Store::open(store.path().to_path_buf());
        let (record, secret) = other
            .create(new("made elsewhere", &["notes"], Level::Read), 1_000)
            .unwrap();
        assert!(store.verify(secret.expose(), 2_000).is_ok());
        other.revoke(&record.id).unwrap();
        assert_eq!(store.verify(secret.expose(), 2_000), Err(Refusal::Unknown));
    }

    #[test]
    fn last_use_is_noted_at_once_and_written_at_most_once_a_minute() {
        let (_dir, store) = store();
        let (record, secret) = store.create(new("agent", &["notes"], Level::Read), 1_000).unwrap();
        let start = now_ms();
        store.verify(secret.expose(), start).unwrap();
        assert_eq!(store.list().unwrap()[0].last_used_ms, Some(start));
        assert!(store.flush_due(start), "nothing written yet");
        assert!(!store.flush_due(start + 1), "a write was just started");
        store.flush().unwrap();
        let on_disk = Store::open(store.path().to_path_buf()).list().unwrap();
        assert_eq!(on_disk[0].id, record.id);
        assert_eq!(on_disk[0].last_used_ms, Some(start));
        store.verify(secret.expose(), start + 10).unwrap();
        assert!(!store.flush_due(start + 10));
        assert!(store.flush_due(start + FLUSH_EVERY_MS));
    }

    #[test]
    fn keys_of_a_later_version_survive_a_rewrite() {
        let (_dir, store) = store();
        let (_, secret) = store.create(new("agent", &["notes"], Level::Read), 1_000).unwrap();
        let mut value: Value = serde_json::from_str(&std::fs::read_to_string(store.path()).unwrap()).unwrap();
        value["devices"] = serde_json::json!([{"name": "phone"}]);
        value["tokens"][0]["grant"] = serde_json::json!("g1");
        std::fs::write(store.path(), value.to_string()).unwrap();
        assert!(store.verify(secret.expose(), 2_000).is_ok());
        store.create(new("second", &["work"], Level::Write), 1_000).unwrap();
        let value: Value = serde_json::from_str(&std::fs::read_to_string(store.path()).unwrap()).unwrap();
        assert_eq!(value["devices"][0]["name"], "phone");
        assert_eq!(value["tokens"][0]["grant"], "g1");
        assert_eq!(value["tokens"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn a_broken_file_refuses_every_token_and_is_never_overwritten() {
        let (_dir, store) = store();
        let (_, secret) = store.create(new("agent", &["notes"], Level::Read), 1_000).unwrap();
        std::fs::write(store.path(), "{ not json").unwrap();
        assert_eq!(store.verify(secret.expose(), 2_000), Err(Refusal::Unknown));
        assert!(matches!(store.list(), Err(StoreError::Broken { .. })));
        assert!(matches!(
            store.create(new("x", &["notes"], Level::Read), 1_000),
            Err(StoreError::Broken { .. })
        ));
        assert_eq!(std::fs::read_to_string(store.path()).unwrap(), "{ not json");
    }
}
