//! Content hashes: what a read hands out as a document's version and what a write checks a
//! `base_hash` against. Pure functions; nothing here reads a file.

use sha2::{Digest, Sha256};

/// How many hex characters of a hash an agent is shown, and the shortest prefix a `base_hash`
/// may be.
pub const SHORT_HASH_CHARS: usize = 12;

/// The SHA-256 of a file's bytes, as 64 lowercase hex characters.
pub fn content_hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The first [`SHORT_HASH_CHARS`] characters of a hash: what tool results show.
pub fn short_hash(hash: &str) -> &str {
    hash.get(..SHORT_HASH_CHARS).unwrap_or(hash)
}

/// Whether `given` (a client's `base_hash`) names the version whose full hash is `full`: the whole
/// hash, as the web UI sends it, or a prefix of at least [`SHORT_HASH_CHARS`] characters, as an
/// agent copies it from a short hash. Compared without regard to case, since hex is hex.
pub fn is_version(given: &str, full: &str) -> bool {
    given.len() >= SHORT_HASH_CHARS
        && full
            .get(..given.len())
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(given))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_is_sha256_hex() {
        assert_eq!(
            content_hash(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(short_hash(&content_hash(b"abc")), "ba7816bf8f01");
        assert_eq!(short_hash("abc"), "abc");
    }

    #[test]
    fn a_version_is_the_whole_hash_or_a_long_enough_prefix() {
        let full = content_hash(b"abc");
        assert!(is_version(&full, &full));
        assert!(is_version("ba7816bf8f01", &full));
        assert!(is_version("BA7816BF8F01CF", &full));
        assert!(!is_version("ba7816bf8f0", &full), "11 characters is too short");
        assert!(!is_version("ba7816bf8f02", &full), "a different prefix");
        assert!(!is_version(&format!("{full}0"), &full), "longer than the hash");
        assert!(!is_version("", &full));
    }
}
