//! What OAuth keeps in the token file: clients that registered themselves, and grants.
//!
//! A grant is what the owner approved on the consent page: one client, one MCP endpoint (the
//! resource, a [`FolderPath`]), read or read+write. It holds the hashes of its live access tokens
//! and of its one current refresh token, and of the refresh tokens it has already rotated past:
//! one of those presented again means a copy is in someone else's hands (OAuth 2.1 §4.3.1, RFC
//! 9700 §4.14.2), and the whole grant is revoked.
//!
//! Every change goes through [`Store::change`], so it is read afresh under the file's lock and
//! written atomically, like the scoped tokens; access tokens are checked from memory.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ACCESS_PREFIX, ACCESS_TTL_MS, REFRESH_PREFIX, REFRESH_TTL_MS, random_secret};
use crate::access::secret::{hash, same_hash};
use crate::access::store::{Store, StoreError};
use crate::access::{FolderPath, Grant, Level, Refusal};

/// Most clients kept from registration; past it the oldest without a grant goes.
pub const MAX_CLIENTS: usize = 100;

/// Most grants kept; past it a new approval is refused until the owner revokes some.
pub const MAX_GRANTS: usize = 200;

/// How many rotated refresh tokens a grant remembers, to notice one presented again.
const RETIRED_KEPT: usize = 16;

/// A client that registered itself (RFC 7591). Public: no secret, PKCE stands in for one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientRecord {
    pub client_id: String,
    pub client_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_uri: Option<String>,
    pub redirect_uris: Vec<String>,
    pub created_ms: u64,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The hash of a token and when it stops working.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenHash {
    pub hash: String,
    pub expires_ms: u64,
    /// What this token may do: its grant's level, or less when the client asked for less.
    pub access: Level,
}

/// One approval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrantRecord {
    pub id: String,
    pub client_id: String,
    /// The client's name when approved, as the consent page showed it.
    pub client_name: String,
    /// The resource as the client named it (`https://host/mcp/notes`).
    pub resource: String,
    /// The MCP endpoint it opens.
    pub path: FolderPath,
    pub access: Level,
    pub created_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used_ms: Option<u64>,
    #[serde(default)]
    pub access_tokens: Vec<TokenHash>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh: Option<TokenHash>,
    /// Refresh tokens already used (rotated past).
    #[serde(default)]
    pub retired: Vec<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl GrantRecord {
    /// When its refresh token stops working: the grant is over then.
    pub fn expires_ms(&self) -> Option<u64> {
        self.refresh.as_ref().map(|r| r.expires_ms)
    }

    /// Whether nothing of it works any more at `now`.
    fn dead(&self, now: u64) -> bool {
        self.refresh.as_ref().is_none_or(|r| r.expires_ms <= now)
            && self.access_tokens.iter().all(|t| t.expires_ms <= now)
    }

    fn as_grant(&self, level: Level) -> Grant {
        Grant {
            id: self.id.clone(),
            name: self.client_name.clone(),
            paths: vec![self.path.clone()],
            level,
            resource: Some(self.path.clone()),
        }
    }
}

/// What the owner approved, to become a grant when the client redeems its code.
#[derive(Debug, Clone)]
pub struct NewGrant {
    pub client_id: String,
    pub client_name: String,
    pub resource: String,
    pub path: FolderPath,
    pub access: Level,
}

/// Tokens just issued: their text is here and nowhere else.
#[derive(Debug)]
pub struct Issued {
    pub grant_id: String,
    pub access_token: String,
    pub refresh_token: String,
    pub access: Level,
}

/// Why a refresh was refused.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// Unknown, expired, another client's, or asking more than was granted.
    #[error("{0}")]
    Invalid(String),
    /// A refresh token already used: the grant is revoked.
    #[error(
        "this refresh token was already used, so a copy of it may be in other hands: the grant is revoked; connect again"
    )]
    Reused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn no_random(err: getrandom::Error) -> StoreError {
    StoreError::Io {
        file: "the random source".into(),
        reason: err.to_string(),
    }
}

/// A short random id after `prefix`; not a secret.
fn new_id(prefix: char) -> Result<String, StoreError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(no_random)?;
    Ok(format!("{prefix}{}", hex::encode(bytes)))
}

/// A fresh access token and refresh token, and what the grant keeps of them.
fn mint(access: Level, now: u64) -> Result<(String, String, TokenHash, TokenHash), StoreError> {
    let access_token = random_secret(ACCESS_PREFIX).map_err(no_random)?;
    let refresh_token = random_secret(REFRESH_PREFIX).map_err(no_random)?;
    let access_hash = TokenHash {
        hash: hash(&access_token),
        expires_ms: now + ACCESS_TTL_MS,
        access,
    };
    let refresh_hash = TokenHash {
        hash: hash(&refresh_token),
        expires_ms: now + REFRESH_TTL_MS,
        access,
    };
    Ok((access_token, refresh_token, access_hash, refresh_hash))
}

impl Store {
    /// Registers a client (the caller has checked its redirect URIs).
    pub fn register_client(
        &self,
        name: String,
        uri: Option<String>,
        redirect_uris: Vec<String>,
        now: u64,
    ) -> Result<ClientRecord, StoreError> {
        let record = ClientRecord {
            client_id: new_id('c')?,
            client_name: name,
            client_uri: uri,
            redirect_uris,
            created_ms: now,
            other: Map::new(),
        };
        let kept = record.clone();
        self.change(move |file| {
            if file.clients.len() >= MAX_CLIENTS {
                let granted = |c: &ClientRecord| file.grants.iter().any(|g| g.client_id == c.client_id);
                match file.clients.iter().position(|c| !granted(c)) {
                    Some(oldest) => {
                        file.clients.remove(oldest);
                    }
                    None => {
                        return Err(StoreError::Invalid(format!(
                            "{MAX_CLIENTS} clients are registered and connected; revoke some under Settings → Access"
                        )));
                    }
                }
            }
            file.clients.push(kept);
            Ok(())
        })?;
        Ok(record)
    }

    /// A registered client by its id.
    pub fn registered_client(&self, client_id: &str) -> Option<ClientRecord> {
        let mut loaded = self.loaded.lock();
        self.reload_if_changed(&mut loaded);
        loaded.clients.iter().find(|c| c.client_id == client_id).cloned()
    }

    /// Makes a grant and its first tokens; an earlier grant of the same client for the same
    /// endpoint is replaced (its tokens stop working).
    pub fn issue(&self, new: NewGrant, now: u64) -> Result<Issued, StoreError> {
        let (access_token, refresh_token, access_hash, refresh_hash) = mint(new.access, now)?;
        let grant = GrantRecord {
            id: new_id('g')?,
            client_id: new.client_id,
            client_name: new.client_name,
            resource: new.resource,
            path: new.path,
            access: new.access,
            created_ms: now,
            last_used_ms: None,
            access_tokens: vec![access_hash],
            refresh: Some(refresh_hash),
            retired: Vec::new(),
            other: Map::new(),
        };
        let grant_id = grant.id.clone();
        self.change(move |file| {
            file.grants.retain(|g| !g.dead(now));
            file.grants
                .retain(|g| !(g.client_id == grant.client_id && g.path == grant.path));
            if file.grants.len() >= MAX_GRANTS {
                return Err(StoreError::Invalid(format!(
                    "{MAX_GRANTS} apps are connected; revoke some under Settings → Access first"
                )));
            }
            file.grants.push(grant);
            Ok(())
        })?;
        Ok(Issued {
            grant_id,
            access_token,
            refresh_token,
            access: new.access,
        })
    }

    /// Rotates a refresh token: new access and refresh tokens, the old refresh token retired.
    /// `client_id` must be the grant's, and `resource`, when given, its endpoint; `access`, when
    /// given, may narrow the new access token.
    pub fn refresh(
        &self,
        presented: &str,
        client_id: &str,
        access: Option<Level>,
        resource: Option<&FolderPath>,
        now: u64,
    ) -> Result<Issued, RefreshError> {
        let wanted = hash(presented);
        self.change(|file| {
            let mut current = None;
            let mut reused = None;
            for (at, grant) in file.grants.iter().enumerate() {
                if grant.refresh.as_ref().is_some_and(|r| same_hash(&r.hash, &wanted)) {
                    current = Some(at);
                }
                if grant.retired.iter().any(|old| same_hash(old, &wanted)) {
                    reused = Some(at);
                }
            }
            if let Some(at) = reused {
                let grant = file.grants.remove(at);
                tracing::warn!(grant = %grant.id, client = %grant.client_name, "a used refresh token was presented again: the grant is revoked");
                return Ok(Err(RefreshError::Reused));
            }
            let Some(at) = current else {
                return Ok(Err(RefreshError::Invalid("unknown or revoked refresh token".into())));
            };
            let grant = &mut file.grants[at];
            let refresh = grant.refresh.clone().expect("found by its refresh token");
            if refresh.expires_ms <= now {
                return Ok(Err(RefreshError::Invalid("this refresh token has expired; connect again".into())));
            }
            if grant.client_id != client_id {
                return Ok(Err(RefreshError::Invalid("this refresh token was issued to another client".into())));
            }
            if resource.is_some_and(|r| *r != grant.path) {
                return Ok(Err(RefreshError::Invalid(format!(
                    "resource: this grant is for the endpoint {}",
                    grant.path
                ))));
            }
            let level = match access {
                Some(Level::Write) if grant.access == Level::Read => {
                    return Ok(Err(RefreshError::Invalid("scope: this grant is read only".into())));
                }
                Some(level) => level,
                None => grant.access,
            };
            let (access_token, refresh_token, access_hash, refresh_hash) = mint(level, now)?;
            grant.retired.push(refresh.hash);
            let excess = grant.retired.len().saturating_sub(RETIRED_KEPT);
            grant.retired.drain(..excess);
            grant.access_tokens.retain(|t| t.expires_ms > now);
            grant.access_tokens.push(access_hash);
            grant.refresh = Some(refresh_hash);
            grant.last_used_ms = Some(now);
            Ok(Ok(Issued {
                grant_id: grant.id.clone(),
                access_token,
                refresh_token,
                access: level,
            }))
        })?
    }

    /// The grant an access token opens, at its token's level; every stored hash is compared in
    /// constant time, whatever matches. Notes the use.
    pub fn verify_access(&self, presented: &str, now: u64) -> Result<Grant, Refusal> {
        let wanted = hash(presented);
        let mut loaded = self.loaded.lock();
        self.reload_if_changed(&mut loaded);
        let mut found = None;
        for grant in &loaded.grants {
            for token in &grant.access_tokens {
                if same_hash(&token.hash, &wanted) {
                    found = Some((grant, token));
                }
            }
        }
        let (grant, token) = found.ok_or(Refusal::Unknown)?;
        if token.expires_ms <= now {
            return Err(Refusal::Expired);
        }
        let out = grant.as_grant(token.access);
        loaded.used.insert(out.id.clone(), now);
        Ok(out)
    }

    /// Every grant still alive, oldest first, with its last use as noted now.
    pub fn grants(&self, now: u64) -> Result<Vec<GrantRecord>, StoreError> {
        let mut loaded = self.loaded.lock();
        self.reload_if_changed(&mut loaded);
        if let Some(reason) = &loaded.broken {
            return Err(self.broken(reason.clone()));
        }
        let mut grants: Vec<GrantRecord> = loaded.grants.iter().filter(|g| !g.dead(now)).cloned().collect();
        for grant in &mut grants {
            grant.last_used_ms = loaded.last_used(&grant.id, grant.last_used_ms);
        }
        Ok(grants)
    }

    /// Revokes a grant: its access and refresh tokens stop working from the next request on.
    pub fn revoke_grant(&self, id: &str) -> Result<GrantRecord, StoreError> {
        self.change(|file| {
            let at = file
                .grants
                .iter()
                .position(|g| g.id == id)
                .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            Ok(file.grants.remove(at))
        })
    }

    /// RFC 7009: revokes the grant whose access or refresh token `presented` is; `false` when
    /// it is none of them (the endpoint answers alike either way).
    pub fn revoke_token(&self, presented: &str) -> Result<bool, StoreError> {
        let wanted = hash(presented);
        self.change(|file| {
            let before = file.grants.len();
            file.grants.retain(|g| {
                let is_it = g.access_tokens.iter().any(|t| same_hash(&t.hash, &wanted))
                    || g.refresh.as_ref().is_some_and(|r| same_hash(&r.hash, &wanted));
                !is_it
            });
            Ok(file.grants.len() != before)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::store::DEFAULT_FILE_NAME;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join(DEFAULT_FILE_NAME));
        (dir, store)
    }

    fn approval(client: &str, path: &str, access: Level) -> NewGrant {
        NewGrant {
            client_id: client.into(),
            client_name: "Test app".into(),
            resource: format!("http://127.0.0.1:3000/mcp/{path}"),
            path: FolderPath::parse(path).unwrap(),
            access,
        }
    }

    #[test]
    fn an_issued_access_token_opens_its_endpoint_at_its_level_until_it_expires() {
        let (_dir, store) = store();
        let issued = store.issue(approval("c1", "notes", Level::Read), 1_000).unwrap();
        let grant = store.verify_access(&issued.access_token, 2_000).unwrap();
        assert_eq!(grant.level, Level::Read);
        assert_eq!(grant.resource, Some(FolderPath::parse("notes").unwrap()));
        assert_eq!(
            store.verify_access(&issued.access_token, 1_000 + ACCESS_TTL_MS),
            Err(Refusal::Expired)
        );
        assert_eq!(store.verify_access(&issued.refresh_token, 2_000), Err(Refusal::Unknown));
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert!(!text.contains(&issued.access_token) && !text.contains(&issued.refresh_token));
        assert!(!text.contains(&issued.access_token[4..]));
    }

    #[test]
    fn refresh_rotates_and_a_reused_refresh_token_revokes_the_grant() {
        let (_dir, store) = store();
        let first = store.issue(approval("c1", "notes", Level::Write), 1_000).unwrap();
        assert!(matches!(
            store.refresh(&first.refresh_token, "c2", None, None, 2_000),
            Err(RefreshError::Invalid(_))
        ));
        let second = store.refresh(&first.refresh_token, "c1", None, None, 2_000).unwrap();
        assert_ne!(second.refresh_token, first.refresh_token);
        assert!(store.verify_access(&second.access_token, 2_001).is_ok());
        assert!(
            store.verify_access(&first.access_token, 2_001).is_ok(),
            "the old access token runs out its hour"
        );
        let narrowed = store
            .refresh(&second.refresh_token, "c1", Some(Level::Read), None, 3_000)
            .unwrap();
        assert_eq!(
            store.verify_access(&narrowed.access_token, 3_001).unwrap().level,
            Level::Read
        );
        // The first refresh token again: someone else has a copy. Everything of the grant ends.
        assert!(matches!(
            store.refresh(&first.refresh_token, "c1", None, None, 4_000),
            Err(RefreshError::Reused)
        ));
        assert_eq!(
            store.verify_access(&narrowed.access_token, 4_001),
            Err(Refusal::Unknown)
        );
        assert!(store.refresh(&narrowed.refresh_token, "c1", None, None, 4_002).is_err());
        assert!(store.grants(4_003).unwrap().is_empty());
    }

    #[test]
    fn a_read_grant_cannot_be_refreshed_into_write_and_expired_refresh_tokens_are_refused() {
        let (_dir, store) = store();
        let issued = store.issue(approval("c1", "notes", Level::Read), 1_000).unwrap();
        assert!(matches!(
            store.refresh(&issued.refresh_token, "c1", Some(Level::Write), None, 2_000),
            Err(RefreshError::Invalid(_))
        ));
        assert!(matches!(
            store.refresh(&issued.refresh_token, "c1", None, None, 1_000 + REFRESH_TTL_MS),
            Err(RefreshError::Invalid(_))
        ));
    }

    #[test]
    fn revoking_ends_both_tokens_and_a_new_approval_replaces_the_old() {
        let (_dir, store) = store();
        let issued = store.issue(approval("c1", "notes", Level::Write), 1_000).unwrap();
        let again = store.issue(approval("c1", "notes", Level::Read), 1_500).unwrap();
        assert_eq!(store.verify_access(&issued.access_token, 2_000), Err(Refusal::Unknown));
        assert_eq!(store.grants(2_000).unwrap().len(), 1);
        let other = store.issue(approval("c1", "work", Level::Read), 1_500).unwrap();
        store.revoke_grant(&again.grant_id).unwrap();
        assert_eq!(store.verify_access(&again.access_token, 2_000), Err(Refusal::Unknown));
        assert!(store.refresh(&again.refresh_token, "c1", None, None, 2_000).is_err());
        assert!(store.revoke_token(&other.refresh_token).unwrap());
        assert!(!store.revoke_token(&other.refresh_token).unwrap());
        assert_eq!(store.verify_access(&other.access_token, 2_000), Err(Refusal::Unknown));
    }

    #[test]
    fn registered_clients_are_kept_and_the_oldest_unconnected_make_room() {
        let (_dir, store) = store();
        let first = store
            .register_client("first".into(), None, vec!["http://localhost/cb".into()], 1)
            .unwrap();
        store
            .issue(approval(&first.client_id, "notes", Level::Read), 2)
            .unwrap();
        let second = store
            .register_client("second".into(), None, vec!["http://localhost/cb".into()], 3)
            .unwrap();
        for i in 0..MAX_CLIENTS - 1 {
            store
                .register_client(format!("c{i}"), None, vec!["http://localhost/cb".into()], 4)
                .unwrap();
        }
        assert!(store.registered_client(&first.client_id).is_some(), "connected: kept");
        assert!(
            store.registered_client(&second.client_id).is_none(),
            "oldest unconnected: gone"
        );
    }
}
