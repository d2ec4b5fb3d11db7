//! The content store: each distinct content once, zstd-compressed, at `objects/<2 hex>/<62 hex>`,
//! named by the SHA-256 of the uncompressed bytes (the document hash ragdown shows everywhere).
//!
//! A content is written to a temp file, flushed and renamed into place, so a name always holds the
//! whole compressed content; reading checks the hash again. Nothing here decides what is kept:
//! retention (`super::retention`) deletes.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::documents::{DocError, atomic_write, content_hash};

/// Contents up to this size are compressed harder (they are most of the notes, and small).
const SMALL: usize = 1 << 20;

/// Where the content named `hash` lives under `objects`; `None` for a name that is not a hash.
pub(super) fn path_of(objects: &Path, hash: &str) -> Option<PathBuf> {
    let valid = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    valid.then(|| objects.join(&hash[..2]).join(&hash[2..]))
}

/// Stores `bytes` unless already there; returns its hash and the bytes newly written on disk
/// (0 when it was already stored). The caller holds the history's shared lock.
pub(super) fn put(objects: &Path, bytes: &[u8]) -> std::io::Result<(String, u64)> {
    let hash = content_hash(bytes);
    let path = path_of(objects, &hash).expect("a content hash is a valid name");
    if path.is_file() {
        return Ok((hash, 0));
    }
    let level = if bytes.len() <= SMALL { 9 } else { 3 };
    let packed = zstd::bulk::compress(bytes, level)?;
    std::fs::create_dir_all(path.parent().expect("objects/<2 hex>"))?;
    atomic_write(&path, &packed)?;
    Ok((hash, packed.len() as u64))
}

/// The bytes named `hash`: 404 when the history does not hold them (never did, or retention
/// dropped them), 500 when what is stored is damaged.
pub(super) fn get(objects: &Path, hash: &str) -> Result<Vec<u8>, DocError> {
    let missing = || DocError::NotFound(format!("no version {hash} in the history"));
    let path = path_of(objects, hash).ok_or_else(missing)?;
    let packed = match std::fs::read(&path) {
        Err(err) if err.kind() == ErrorKind::NotFound => return Err(missing()),
        other => other.map_err(DocError::io(format!("could not read version {hash}")))?,
    };
    let mut bytes = Vec::new();
    zstd::stream::copy_decode(packed.as_slice(), &mut bytes)
        .map_err(DocError::io(format!("could not read version {hash}")))?;
    if content_hash(&bytes) != hash {
        return Err(DocError::Io {
            context: format!("could not read version {hash}"),
            source: std::io::Error::other("the stored content is damaged"),
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_content_is_stored_once_compressed_and_read_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let text = "# Runbook\r\n\r\nRestart the service.\r\n".repeat(200);
        let (hash, written) = put(dir.path(), text.as_bytes()).unwrap();
        assert_eq!(hash, content_hash(text.as_bytes()));
        assert!(written > 0 && written < text.len() as u64 / 4, "compressed: {written}");
        assert_eq!(
            put(dir.path(), text.as_bytes()).unwrap(),
            (hash.clone(), 0),
            "stored once"
        );
        assert_eq!(get(dir.path(), &hash).unwrap(), text.as_bytes());
        let err = get(dir.path(), &content_hash(b"other")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("no version {} in the history", content_hash(b"other"))
        );
        assert!(get(dir.path(), "../../etc/passwd").is_err());
    }

    #[test]
    fn damage_is_an_error_not_wrong_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (hash, _) = put(dir.path(), b"one").unwrap();
        let other = zstd::bulk::compress(b"two", 3).unwrap();
        std::fs::write(path_of(dir.path(), &hash).unwrap(), other).unwrap();
        assert_eq!(
            get(dir.path(), &hash).unwrap_err().to_string(),
            format!("could not read version {hash}: the stored content is damaged")
        );
    }
}
