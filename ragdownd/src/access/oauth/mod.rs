//! OAuth 2.1 as the MCP authorization spec (2026-07-28) asks it of a server that is its own
//! authorization server: the rules and the records, with no HTTP in them (`http::oauth` serves
//! them, `http::consent` is the owner's side).
//!
//! - [`redirect`]: which redirect URIs a client may register, and matching one exactly.
//! - [`pkce`]: PKCE, S256 only.
//! - [`metadata`]: client ID metadata documents, fetched with a size and time limit and never from a
//!   private address unless the owner allows it.
//! - [`flow`]: what lives minutes at most, in memory: authorization requests waiting for the owner,
//!   and authorization codes.
//! - [`records`]: what lasts, in the token file beside the scoped tokens: registered clients, and
//!   grants (one client, one MCP endpoint, read or read+write) with the hashes of their tokens.
//!
//! Tokens are opaque: `rda_` (access, an hour) and `rdr_` (refresh, rotated on every use, 30 days
//! idle at most), each 256 random bits kept only as its SHA-256 (as the scoped tokens are, see
//! [`super::secret`]). An access token opens the one MCP endpoint its grant was issued for
//! ([`super::Grant::resource`]); revoking the grant ends both at once.

pub mod flow;
pub mod metadata;
pub mod pkce;
pub mod records;
pub mod redirect;

pub use records::{ClientRecord, GrantRecord, Issued};

/// Why an OAuth request, client or metadata document is refused, in words for the person
/// connecting (the page that shows it) or for the client (an `error_description`). Which OAuth
/// error code it goes out as is the endpoint's to say: the same reason is `invalid_scope` at the
/// token endpoint and a redirect back at the authorization endpoint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Rejected(String);

impl From<String> for Rejected {
    fn from(why: String) -> Self {
        Self(why)
    }
}

impl From<&str> for Rejected {
    fn from(why: &str) -> Self {
        Self(why.to_string())
    }
}

/// How long an access token works.
pub const ACCESS_TTL_MS: u64 = 60 * 60 * 1000;

/// How long a refresh token works unused; each use gives a new one with a fresh 30 days.
pub const REFRESH_TTL_MS: u64 = 30 * 24 * 60 * 60 * 1000;

/// How long an authorization request waits for the owner's answer.
pub const REQUEST_TTL_MS: u64 = 10 * 60 * 1000;

/// How long an authorization code may be exchanged (OAuth 2.1 recommends at most ten minutes;
/// a client exchanges it at once).
pub const CODE_TTL_MS: u64 = 60 * 1000;

/// The scopes: `read` (search and read tools) and `write` (all tools; it includes `read`).
pub const SCOPES: [&str; 2] = ["read", "write"];

/// What an access token starts with.
pub const ACCESS_PREFIX: &str = "rda_";

/// What a refresh token starts with.
pub const REFRESH_PREFIX: &str = "rdr_";

use super::Level;

/// The scope string of a level: `read`, or `read write`.
pub fn scope_of(level: Level) -> &'static str {
    match level {
        Level::Read => "read",
        Level::Write => "read write",
    }
}

/// The level a requested scope asks for: `write` in it asks read+write, `read` alone asks read, and
/// no scope at all asks what the 401 challenge offers, read+write. `offline_access` (a client
/// asking for refresh tokens) is allowed and changes nothing: refresh tokens are always issued.
/// `Err` for a scope this server does not grant.
pub fn level_of(scope: Option<&str>) -> Result<Level, Rejected> {
    let mut level = None;
    for word in scope.unwrap_or_default().split(' ').filter(|w| !w.is_empty()) {
        match word {
            "read" => level = level.or(Some(Level::Read)),
            "write" => level = Some(Level::Write),
            "offline_access" => {}
            other => return Err(format!("unknown scope {other:?}: this server grants read and write").into()),
        }
    }
    Ok(level.unwrap_or(Level::Write))
}

/// A client's name as the consent page and Settings show it: control characters dropped, at most
/// 100 characters, trimmed; `None` when nothing is left. Whichever way a client came (a metadata
/// document, a registration), its name is its own claim and is cleaned the same way.
pub fn client_name(raw: Option<&str>) -> Option<String> {
    let name: String = raw?.chars().filter(|c| !c.is_control()).take(100).collect();
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

/// A client's home page, kept only when it is `https` and at most 2,000 characters.
pub fn client_uri(raw: Option<String>) -> Option<String> {
    raw.filter(|u| u.starts_with("https://") && u.len() <= 2_000)
}

/// Checks the grant types a client says it uses: only `authorization_code` and `refresh_token`.
pub fn check_grant_types(types: &[String]) -> Result<(), Rejected> {
    if types.iter().any(|t| t != "authorization_code" && t != "refresh_token") {
        return Err("grant_types may hold only authorization_code and refresh_token".into());
    }
    Ok(())
}

/// 32 bytes from the operating system's random source, in unpadded base64url, after `prefix`.
pub fn random_secret(prefix: &str) -> Result<String, getrandom::Error> {
    use base64::Engine;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!(
        "{prefix}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_name_a_level() {
        assert_eq!(level_of(Some("read")), Ok(Level::Read));
        assert_eq!(level_of(Some("read write")), Ok(Level::Write));
        assert_eq!(level_of(Some("write")), Ok(Level::Write));
        assert_eq!(level_of(Some("read offline_access")), Ok(Level::Read));
        assert_eq!(level_of(None), Ok(Level::Write));
        assert_eq!(level_of(Some("")), Ok(Level::Write));
        assert!(level_of(Some("read admin")).is_err());
        assert_eq!(scope_of(Level::Read), "read");
        assert_eq!(scope_of(Level::Write), "read write");
    }

    #[test]
    fn client_names_and_uris_are_cleaned_alike() {
        assert_eq!(client_name(Some("  My\u{7}App \n")), Some("MyApp".into()));
        assert_eq!(client_name(Some(" \t ")), None);
        assert_eq!(client_name(None), None);
        assert_eq!(client_name(Some(&"x".repeat(300))).unwrap().len(), 100);
        assert_eq!(
            client_uri(Some("https://app.example".into())),
            Some("https://app.example".into())
        );
        assert_eq!(client_uri(Some("http://app.example".into())), None);
        assert_eq!(client_uri(Some(format!("https://{}", "a".repeat(2_000)))), None);
        assert!(check_grant_types(&["authorization_code".into(), "refresh_token".into()]).is_ok());
        assert!(check_grant_types(&["client_credentials".into()]).is_err());
    }

    #[test]
    fn secrets_are_random_and_prefixed() {
        let a = random_secret(ACCESS_PREFIX).unwrap();
        assert!(a.starts_with("rda_") && a.len() == 4 + 43);
        assert_ne!(a, random_secret(ACCESS_PREFIX).unwrap());
    }
}
