//! `meta.json`: what the index was built with. Any difference from the running configuration
//! means the stored vectors or chunks are not comparable, and the index is rebuilt.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::markdown::chunker::CHUNKER_VERSION;

/// Bumped whenever the table's columns or their meaning change (7: tables embedded row by row).
pub const INDEX_VERSION: u32 = 7;

/// The contents of `meta.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// The embedder's index name, e.g. `hash-384`.
    pub embedder: String,
    /// Everything that makes vectors comparable (name, dim, weights hash).
    pub fingerprint: String,
    pub dim: usize,
    pub chunker_version: u32,
    pub index_version: u32,
}

impl IndexMeta {
    /// The meta the running configuration would write.
    pub fn current(embedder: &str, fingerprint: &str, dim: usize) -> Self {
        Self {
            embedder: embedder.into(),
            fingerprint: fingerprint.into(),
            dim,
            chunker_version: CHUNKER_VERSION,
            index_version: INDEX_VERSION,
        }
    }

    /// Reads `meta.json`; a missing or unreadable file is `None` (and so a rebuild).
    pub fn read(path: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes `meta.json` atomically with mode 0600.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        file.write_all(serde_json::to_string_pretty(self)?.as_bytes())?;
        file.as_file().sync_all()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            file.as_file().set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_a_corrupt_file_reads_as_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.json");
        assert_eq!(IndexMeta::read(&path), None);
        let meta = IndexMeta::current("hash-384", "hash-384", 384);
        meta.write(&path).unwrap();
        assert_eq!(IndexMeta::read(&path), Some(meta));
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(IndexMeta::read(&path), None);
    }
}
