//! `meta.json`: what the index was built with. A difference from the running configuration in
//! the embedder, the vectors' recipe ([`super::vectors`]), the chunker or the index version means
//! the stored vectors or chunks are not comparable, and the index is rebuilt; a difference in the
//! text rule alone means only `search_text` and the full-text index are out of date, and they are
//! rewritten without re-embedding ([`super::retext`]).

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::terms::TEXT_RULE;
use crate::embed::Embedder;
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
    /// The rule `search_text` and the full-text index were built with
    /// ([`super::terms::TEXT_RULE`]); 0 in a `meta.json` written before there was one.
    #[serde(default)]
    pub text_rule: u32,
    /// How the vectors were made ([`super::vectors::recipe`]); empty, and left out of the file,
    /// for the text's embedding alone, as every index before there was a choice.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub vectors: String,
}

impl IndexMeta {
    /// The meta the running configuration would write.
    pub fn current(embedder: &dyn Embedder) -> Self {
        Self {
            embedder: embedder.index_name().into(),
            fingerprint: embedder.fingerprint(),
            dim: embedder.dim(),
            chunker_version: CHUNKER_VERSION,
            index_version: INDEX_VERSION,
            text_rule: TEXT_RULE,
            vectors: super::vectors::recipe(embedder.heading_weight()),
        }
    }

    /// Whether an index built as `self` says holds vectors and chunks comparable to `other`'s:
    /// everything but the text rule is the same.
    pub fn same_vectors(&self, other: &Self) -> bool {
        Self {
            text_rule: other.text_rule,
            ..self.clone()
        } == *other
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
    use crate::embed::hash::HashEmbedder;
    use crate::index::vectors::tests::Weighted;

    #[test]
    fn round_trips_and_a_corrupt_file_reads_as_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.json");
        assert_eq!(IndexMeta::read(&path), None);
        let meta = IndexMeta::current(&HashEmbedder);
        meta.write(&path).unwrap();
        assert_eq!(IndexMeta::read(&path), Some(meta));
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(IndexMeta::read(&path), None);
    }

    #[test]
    fn a_meta_from_before_the_text_rule_reads_as_rule_0_with_the_same_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.json");
        let current = IndexMeta::current(&HashEmbedder);
        let mut old = serde_json::to_value(&current).unwrap();
        old.as_object_mut().unwrap().remove("text_rule");
        std::fs::write(&path, old.to_string()).unwrap();
        let read = IndexMeta::read(&path).unwrap();
        assert_eq!(read.text_rule, 0);
        assert_ne!(read, current);
        assert!(read.same_vectors(&current));
        let other = IndexMeta {
            embedder: "tiny-8".into(),
            fingerprint: "tiny-8".into(),
            dim: 8,
            ..current.clone()
        };
        assert!(!read.same_vectors(&other));
    }

    #[test]
    fn vectors_made_with_a_heading_weight_are_not_the_texts_alone() {
        let plain = IndexMeta::current(&HashEmbedder);
        assert_eq!(plain.vectors, "");
        let text = serde_json::to_string(&plain).unwrap();
        assert!(
            !text.contains("vectors"),
            "left out when empty, as before there was a choice: {text}"
        );
        let weighted = IndexMeta::current(&Weighted {
            weight: Some(0.5),
            ..Weighted::default()
        });
        assert_eq!(weighted.vectors, "text+0.5*heading");
        assert!(!plain.same_vectors(&weighted), "an index of the text alone is rebuilt");
        let half = IndexMeta {
            vectors: "text+1*heading".into(),
            ..weighted.clone()
        };
        assert!(!half.same_vectors(&weighted), "and one made with another weight");
    }
}
