//! Token secrets: making one, and the only form in which one is kept or compared (its hash).
//!
//! A secret is `rdt_` and 32 bytes from the operating system's random source (`getrandom`, the
//! crate the `rand` family itself stands on) in unpadded base64url: 256 bits, so no guessing or
//! precomputation reaches one. The prefix lets secret scanners (GitHub's among them) and people
//! recognise a leaked ragdown token. It is stored as its SHA-256, in hex: a fast hash is right for
//! a secret with this much entropy (slow password hashes exist for low-entropy passwords; here
//! they would only slow every request). Hashes are compared in constant time ([`same_hash`]).
//!
//! Nothing here logs, and no type here prints a secret: [`Secret`]'s `Debug` hides it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// What every ragdown token starts with.
pub const PREFIX: &str = "rdt_";

/// How a stored hash names its function, so another can follow without reshaping the file.
const HASH_SCHEME: &str = "sha256:";

/// A token's text, shown once when it is made and never kept.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A fresh token from the operating system's random source.
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(Self(format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))))
    }

    /// The text to give the person who made it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What the store keeps.
    pub fn hash(&self) -> String {
        hash(&self.0)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// The stored form of a presented token: `sha256:<hex>`.
pub fn hash(token: &str) -> String {
    format!("{HASH_SCHEME}{}", hex::encode(Sha256::digest(token.as_bytes())))
}

/// Whether two stored hashes are equal, in time that does not depend on where they differ.
pub fn same_hash(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// A short random id (12 hex digits) naming a token in lists and URLs; not a secret.
pub fn new_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes)?;
    Ok(format!("t{}", hex::encode(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_the_prefix_and_256_random_bits() {
        let a = Secret::generate().unwrap();
        let b = Secret::generate().unwrap();
        assert_ne!(a, b);
        let body = a.expose().strip_prefix(PREFIX).unwrap();
        assert_eq!(URL_SAFE_NO_PAD.decode(body).unwrap().len(), 32);
        assert!(!format!("{a:?}").contains(body), "Debug must not print the secret");
    }

    #[test]
    fn the_hash_is_sha256_hex_and_compared_whole() {
        // SHA-256 of "abc", the FIPS 180-2 test vector.
        assert_eq!(
            hash("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let a = Secret::generate().unwrap();
        assert!(same_hash(&a.hash(), &hash(a.expose())));
        assert!(!same_hash(&a.hash(), &hash(&format!("{}x", a.expose()))));
        assert!(!same_hash(&a.hash(), &a.hash()[..20]));
    }

    #[test]
    fn ids_differ() {
        let (a, b) = (new_id().unwrap(), new_id().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 13);
    }
}
