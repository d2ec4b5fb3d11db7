//! What an authorization lives on for minutes, in memory: requests waiting for the owner's Allow
//! or Deny, and codes waiting to be exchanged. A restart forgets them; the client starts again.
//!
//! Both are bounded ([`MAX_REQUESTS`], [`MAX_CODES`]) and expire ([`super::REQUEST_TTL_MS`],
//! [`super::CODE_TTL_MS`]), so nobody can grow them by asking. A request carries a CSRF secret
//! that only the owner's signed-in page reads; an answer without it changes nothing. A code is
//! kept by its hash, is good once, and a second try at it revokes what the first one got (OAuth
//! 2.1 §4.1.3: a code presented twice was intercepted).

use std::collections::HashMap;

use parking_lot::Mutex;

use super::records::NewGrant;
use super::{CODE_TTL_MS, REQUEST_TTL_MS, random_secret};
use crate::access::secret::{hash, same_hash};

/// Most authorization requests waiting at once; past it the oldest goes.
pub const MAX_REQUESTS: usize = 64;

/// Most codes waiting (or remembered as used) at once.
pub const MAX_CODES: usize = 256;

/// How a client is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClientKind {
    /// Its `client_id` is the https URL of its metadata document.
    MetadataDocument,
    /// It registered here (RFC 7591) and got a `client_id`.
    Registered,
}

/// A client as the consent page shows it.
#[derive(Debug, Clone)]
pub struct Client {
    pub id: String,
    pub name: String,
    pub uri: Option<String>,
    pub kind: ClientKind,
    pub redirect_uris: Vec<String>,
}

/// An authorization request waiting for the owner.
#[derive(Debug, Clone)]
pub struct Pending {
    pub id: String,
    pub client: Client,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub challenge: String,
    /// What it would grant: the client, the endpoint, the level.
    pub grant: NewGrant,
    pub csrf: String,
    pub expires_ms: u64,
}

/// A code's promise.
#[derive(Debug, Clone)]
pub struct Code {
    pub client_id: String,
    pub redirect_uri: String,
    pub challenge: String,
    pub grant: NewGrant,
    pub expires_ms: u64,
    /// The grant it was exchanged for, once it was.
    pub redeemed: Option<String>,
}

/// Why a request could not be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// No such request: expired, answered, or never made.
    Unknown,
    /// The CSRF secret is missing or wrong; the request still waits.
    Forged,
}

/// What presenting a code found.
#[derive(Debug)]
pub enum Redeem {
    Fresh(Code),
    /// Unknown or expired.
    Unknown,
    /// Already exchanged, for the grant named (to be revoked).
    Again(Option<String>),
}

/// The requests and codes of one server.
#[derive(Debug, Default)]
pub struct Flows {
    requests: Mutex<HashMap<String, Pending>>,
    codes: Mutex<HashMap<String, Code>>,
}

impl Flows {
    /// Keeps a request (its `id`, `csrf` and `expires_ms` are set here); the id comes back.
    pub fn add(&self, mut pending: Pending, now: u64) -> Result<String, getrandom::Error> {
        pending.id = random_secret("")?;
        pending.csrf = random_secret("")?;
        pending.expires_ms = now + REQUEST_TTL_MS;
        let id = pending.id.clone();
        let mut requests = self.requests.lock();
        requests.retain(|_, p| p.expires_ms > now);
        if requests.len() >= MAX_REQUESTS
            && let Some(oldest) = requests.values().min_by_key(|p| p.expires_ms).map(|p| p.id.clone())
        {
            requests.remove(&oldest);
        }
        requests.insert(id.clone(), pending);
        Ok(id)
    }

    /// A waiting request, for the owner's page.
    pub fn get(&self, id: &str, now: u64) -> Option<Pending> {
        self.requests.lock().get(id).filter(|p| p.expires_ms > now).cloned()
    }

    /// Takes a request off the list to answer it, when `csrf` is its secret.
    pub fn answer(&self, id: &str, csrf: &str, now: u64) -> Result<Pending, Answer> {
        let mut requests = self.requests.lock();
        let pending = requests.get(id).filter(|p| p.expires_ms > now).ok_or(Answer::Unknown)?;
        if csrf.is_empty() || !same_hash(&pending.csrf, csrf) {
            return Err(Answer::Forged);
        }
        Ok(requests.remove(id).expect("found above"))
    }

    /// Keeps a code; its text comes back, for the redirect.
    pub fn add_code(&self, mut code: Code, now: u64) -> Result<String, getrandom::Error> {
        let text = random_secret("")?;
        code.expires_ms = now + CODE_TTL_MS;
        code.redeemed = None;
        let mut codes = self.codes.lock();
        // A used code is remembered for ten minutes, to notice it presented again.
        codes.retain(|_, c| c.expires_ms > now || (c.redeemed.is_some() && c.expires_ms + REQUEST_TTL_MS > now));
        if codes.len() >= MAX_CODES
            && let Some(oldest) = codes.iter().min_by_key(|(_, c)| c.expires_ms).map(|(k, _)| k.clone())
        {
            codes.remove(&oldest);
        }
        codes.insert(hash(&text), code);
        Ok(text)
    }

    /// Presents a code. A fresh one is marked used at once (the caller names the grant with
    /// [`Flows::redeemed`]), so two exchanges racing cannot both win.
    pub fn redeem(&self, text: &str, now: u64) -> Redeem {
        let mut codes = self.codes.lock();
        let Some(code) = codes.get_mut(&hash(text)) else {
            return Redeem::Unknown;
        };
        if code.redeemed.is_some() {
            return Redeem::Again(code.redeemed.clone().filter(|g| !g.is_empty()));
        }
        if code.expires_ms <= now {
            return Redeem::Unknown;
        }
        code.redeemed = Some(String::new());
        Redeem::Fresh(code.clone())
    }

    /// Notes the grant a code was exchanged for.
    pub fn redeemed(&self, text: &str, grant_id: &str) {
        if let Some(code) = self.codes.lock().get_mut(&hash(text)) {
            code.redeemed = Some(grant_id.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{FolderPath, Level};

    fn grant() -> NewGrant {
        NewGrant {
            client_id: "c1".into(),
            client_name: "app".into(),
            resource: "http://localhost/mcp/notes".into(),
            path: FolderPath::parse("notes").unwrap(),
            access: Level::Write,
        }
    }

    fn pending() -> Pending {
        Pending {
            id: String::new(),
            client: Client {
                id: "c1".into(),
                name: "app".into(),
                uri: None,
                kind: ClientKind::Registered,
                redirect_uris: vec!["http://localhost/cb".into()],
            },
            redirect_uri: "http://localhost/cb".into(),
            state: Some("s".into()),
            challenge: "x".into(),
            grant: grant(),
            csrf: String::new(),
            expires_ms: 0,
        }
    }

    #[test]
    fn a_request_is_answered_once_and_only_with_its_csrf_secret() {
        let flows = Flows::default();
        let id = flows.add(pending(), 1_000).unwrap();
        let csrf = flows.get(&id, 1_001).unwrap().csrf;
        assert_eq!(flows.answer(&id, "", 1_002).unwrap_err(), Answer::Forged);
        assert_eq!(flows.answer(&id, "guess", 1_002).unwrap_err(), Answer::Forged);
        assert!(flows.get(&id, 1_003).is_some(), "a forged answer changes nothing");
        assert_eq!(flows.answer(&id, &csrf, 1_004).unwrap().id, id);
        assert_eq!(flows.answer(&id, &csrf, 1_005).unwrap_err(), Answer::Unknown);
        let late = flows.add(pending(), 1_000).unwrap();
        let csrf = flows.get(&late, 1_000).unwrap().csrf;
        assert_eq!(
            flows.answer(&late, &csrf, 1_000 + REQUEST_TTL_MS).unwrap_err(),
            Answer::Unknown
        );
    }

    #[test]
    fn requests_are_bounded() {
        let flows = Flows::default();
        let first = flows.add(pending(), 1_000).unwrap();
        for i in 0..MAX_REQUESTS {
            flows.add(pending(), 1_001 + i as u64).unwrap();
        }
        assert!(flows.get(&first, 2_000).is_none(), "the oldest made room");
        assert_eq!(flows.requests.lock().len(), MAX_REQUESTS);
    }

    #[test]
    fn a_code_is_good_once_and_a_second_try_names_the_grant_it_got() {
        let flows = Flows::default();
        let code = Code {
            client_id: "c1".into(),
            redirect_uri: "http://localhost/cb".into(),
            challenge: "x".into(),
            grant: grant(),
            expires_ms: 0,
            redeemed: None,
        };
        let text = flows.add_code(code.clone(), 1_000).unwrap();
        assert!(matches!(flows.redeem("wrong", 1_001), Redeem::Unknown));
        assert!(matches!(flows.redeem(&text, 1_001), Redeem::Fresh(_)));
        flows.redeemed(&text, "g1");
        assert!(matches!(flows.redeem(&text, 1_002), Redeem::Again(Some(g)) if g == "g1"));
        let late = flows.add_code(code, 1_000).unwrap();
        assert!(matches!(flows.redeem(&late, 1_000 + CODE_TTL_MS), Redeem::Unknown));
    }
}
