//! The bearer token both of embedd's servers (gRPC and HTTP) check.

use subtle::ConstantTimeEq;

/// Whether an `authorization` header value carries the expected bearer token. Constant-time in
/// the token's bytes; with no token expected, everything passes.
pub fn authorized(expected: Option<&str>, header: Option<&[u8]>) -> bool {
    let Some(expected) = expected else {
        return true;
    };
    let Some(given) = header.and_then(|h| h.strip_prefix(b"Bearer ")) else {
        return false;
    };
    bool::from(given.ct_eq(expected.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::authorized;

    #[test]
    fn only_the_exact_bearer_token_passes() {
        assert!(authorized(None, None));
        assert!(authorized(Some("s3cret"), Some(b"Bearer s3cret")));
        assert!(!authorized(Some("s3cret"), None));
        assert!(!authorized(Some("s3cret"), Some(b"Bearer s3cre")));
        assert!(!authorized(Some("s3cret"), Some(b"Bearer s3cretx")));
        assert!(!authorized(Some("s3cret"), Some(b"s3cret")));
        assert!(!authorized(Some("s3cret"), Some(b"Basic s3cret")));
    }
}
