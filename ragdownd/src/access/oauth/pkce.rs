//! PKCE (RFC 7636), the S256 method only, as OAuth 2.1 and the MCP spec require: the client sends
//! `BASE64URL(SHA256(verifier))` with its authorization request and the verifier with its token
//! request. `plain` is refused, so an intercepted authorization request gives nothing to redeem.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::Rejected;

/// Whether `text` is 43 to 128 of RFC 7636's unreserved characters: the form of both a verifier
/// and (at 43) an S256 challenge.
fn well_formed(text: &str) -> bool {
    (43..=128).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Checks an authorization request's challenge and method; `Err` says what is wrong.
pub fn check_challenge(challenge: Option<&str>, method: Option<&str>) -> Result<String, Rejected> {
    let challenge = challenge
        .filter(|c| !c.is_empty())
        .ok_or("code_challenge is required (PKCE with S256)")?;
    match method {
        Some("S256") => {}
        None => return Err("code_challenge_method must be S256 (plain is not accepted)".into()),
        Some(other) => return Err(format!("code_challenge_method {other:?} is not supported: use S256").into()),
    }
    if challenge.len() != 43 || !well_formed(challenge) {
        return Err("code_challenge must be the unpadded base64url SHA-256 of the verifier (43 characters)".into());
    }
    Ok(challenge.to_string())
}

/// Whether `verifier` is well formed and hashes to `challenge`, compared in constant time.
pub fn verifies(verifier: &str, challenge: &str) -> bool {
    if !well_formed(verifier) {
        return false;
    }
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    computed.as_bytes().ct_eq(challenge.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7636, Appendix B.
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    #[test]
    fn the_rfc_s_example_verifies() {
        assert_eq!(check_challenge(Some(CHALLENGE), Some("S256")).unwrap(), CHALLENGE);
        assert!(verifies(VERIFIER, CHALLENGE));
        assert!(!verifies(&VERIFIER.replace('d', "e"), CHALLENGE));
        assert!(!verifies("short", CHALLENGE));
        assert!(!verifies(CHALLENGE, CHALLENGE), "the challenge is not its own verifier");
    }

    #[test]
    fn only_s256_with_a_well_formed_challenge() {
        assert!(check_challenge(None, Some("S256")).is_err());
        assert!(check_challenge(Some(CHALLENGE), None).is_err());
        assert!(check_challenge(Some(CHALLENGE), Some("plain")).is_err());
        assert!(check_challenge(Some("abc"), Some("S256")).is_err());
        assert!(check_challenge(Some(&format!("{}=", &CHALLENGE[..42])), Some("S256")).is_err());
    }
}
