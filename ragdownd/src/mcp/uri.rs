//! Resource URIs: `ragdown:///<path>`, where `<path>` is the file's path from the docs dir
//! (`ops/backups.md` under `serve`, the same under `stdio` over the same docs dir), each byte
//! outside the unreserved set percent-encoded, and `#<heading>` for a section.
//!
//! The path is the docs dir's, not the endpoint's, so a document has one URI whichever endpoint or
//! transport lists it, and across restarts. This module only writes and parses URIs: whether a
//! parsed path is inside an endpoint's scope, and whether the one path check
//! ([`crate::documents::Root::resolve`]) lets it through, is its caller's business.

/// What every resource URI starts with (an empty authority, as `file:///`).
pub const PREFIX: &str = "ragdown:///";

/// A URI's path from the docs dir, decoded, and the heading it names, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The path from the docs dir, percent-decoded (not yet checked in any way).
    pub root_path: String,
    /// The decoded fragment: the heading of a section; `None` for a whole file.
    pub heading: Option<String>,
}

/// Why a URI is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    /// Another scheme, or an authority after `ragdown://`.
    #[error("not a ragdown resource URI (ragdown:///<path>): {0}")]
    Foreign(String),
    /// A query, a bad `%` escape, or bytes that are not UTF-8 once decoded.
    #[error("malformed resource URI: {0}")]
    Malformed(String),
}

/// The URI of the file at `root_path` (a path from the docs dir, `/`-separated).
pub fn for_path(root_path: &str) -> String {
    format!("{PREFIX}{}", encode(root_path, true))
}

/// `text` percent-encoded: every byte but the unreserved ones (and `/` when `keep_slash`).
pub fn encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(byte as char),
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Reads a resource URI. The scheme is matched without regard to case; characters a client left
/// unencoded (a space, a CJK letter) are taken as they are.
pub fn parse(uri: &str) -> Result<Parsed, UriError> {
    let foreign = || UriError::Foreign(uri.to_string());
    let malformed = || UriError::Malformed(uri.to_string());
    let scheme = uri.get(..PREFIX.len()).ok_or_else(foreign)?;
    if !scheme.eq_ignore_ascii_case(PREFIX) {
        return Err(foreign());
    }
    let rest = &uri[PREFIX.len()..];
    let (path, fragment) = match rest.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (rest, None),
    };
    if path.contains('?') {
        return Err(malformed());
    }
    let root_path = decode(path).ok_or_else(malformed)?;
    let heading = match fragment {
        Some(fragment) => Some(decode(fragment).ok_or_else(malformed)?).filter(|h| !h.trim().is_empty()),
        None => None,
    };
    Ok(Parsed { root_path, heading })
}

/// `text` with its `%XX` escapes decoded; `None` for a bad escape or bytes that are not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_through_their_uris() {
        for path in [
            "ops/backups.md",
            "notes/cjk/数据库备份.md",
            "notes/백업 절차.md",
            "a/100% done #1?.md",
            "img/diagram.png",
        ] {
            let uri = for_path(path);
            assert!(uri.starts_with(PREFIX), "{uri}");
            assert!(!uri[PREFIX.len()..].contains([' ', '#', '?']), "{uri}");
            assert_eq!(
                parse(&uri).unwrap(),
                Parsed {
                    root_path: path.to_string(),
                    heading: None
                }
            );
        }
        assert_eq!(
            for_path("notes/백업 절차.md"),
            "ragdown:///notes/%EB%B0%B1%EC%97%85%20%EC%A0%88%EC%B0%A8.md"
        );
    }

    #[test]
    fn a_fragment_names_a_heading() {
        let parsed = parse("ragdown:///ops/backups.md#Restore%20drill").unwrap();
        assert_eq!(parsed.root_path, "ops/backups.md");
        assert_eq!(parsed.heading.as_deref(), Some("Restore drill"));
        // Left unencoded by the client, and an empty fragment is the whole file.
        assert_eq!(
            parse("RAGDOWN:///ops/a b.md#Two words").unwrap().heading.as_deref(),
            Some("Two words")
        );
        assert_eq!(parse("ragdown:///ops/a.md#").unwrap().heading, None);
    }

    #[test]
    fn decoding_happens_before_any_check_so_encoded_traversal_stays_visible() {
        // The caller's path check sees the `..` that the escapes spelled.
        assert_eq!(
            parse("ragdown:///ops/%2e%2e/notes/x.md").unwrap().root_path,
            "ops/../notes/x.md"
        );
        assert_eq!(
            parse("ragdown:///ops%2F..%2F..%2Fetc%2Fpasswd").unwrap().root_path,
            "ops/../../etc/passwd"
        );
    }

    #[test]
    fn other_schemes_authorities_queries_and_bad_escapes_are_refused() {
        for uri in [
            "file:///etc/passwd",
            "ragdown://ops/backups.md",
            "ragdown:ops/a.md",
            "ragdown:/",
            "",
        ] {
            assert_eq!(parse(uri), Err(UriError::Foreign(uri.to_string())), "{uri}");
        }
        for uri in [
            "ragdown:///a.md?x=1",
            "ragdown:///a%2",
            "ragdown:///a%zz.md",
            "ragdown:///%FF.md",
            "ragdown:///a.md#%C3",
        ] {
            assert_eq!(parse(uri), Err(UriError::Malformed(uri.to_string())), "{uri}");
        }
    }
}
