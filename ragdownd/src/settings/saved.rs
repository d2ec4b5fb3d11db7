//! Server settings saved from the web UI: `.ragdown-server.json` in the docs dir (serve only).
//!
//! What is saved there wins over the environment variable of the same setting until it is cleared
//! there; the variable is what it goes back to (product page, Configuration). `stdio` reads the
//! variables alone. This module only reads the file; a missing file is "nothing saved", and an
//! unreadable one is logged and read as nothing saved, so a hand edit never stops the server.
//! It reads the settings the hook and the query log need: `hook` and `query_log`.

use std::path::Path;

use serde_json::Value;

use crate::hook::settings::HookOverrides;

/// The settings file's name, in the docs dir.
pub const SAVED_SETTINGS_FILE: &str = ".ragdown-server.json";

/// The saved settings this version reads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SavedSettings {
    /// `hook`: the saved `ragdown_context` defaults.
    pub hook: HookOverrides,
    /// `query_log`: whether the query log is on.
    pub query_log: Option<bool>,
}

impl SavedSettings {
    /// Reads `<docs_dir>/.ragdown-server.json`.
    pub fn read(docs_dir: &Path) -> Self {
        let path = docs_dir.join(SAVED_SETTINGS_FILE);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Self::default();
        };
        let value: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(err) => {
                tracing::warn!("ignoring an unreadable {}: {err}", path.display());
                return Self::default();
            }
        };
        let where_ = path.display().to_string();
        Self {
            hook: HookOverrides::from_json(value.get("hook"), &where_),
            query_log: value.get("query_log").and_then(Value::as_bool),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_settings_are_read_and_a_broken_file_is_nothing_saved() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(SavedSettings::read(dir.path()), SavedSettings::default());
        std::fs::write(
            dir.path().join(SAVED_SETTINGS_FILE),
            r#"{"embedder":"minilm","query_log":true,"hook":{"top_k":2,"min_ratio":0.5}}"#,
        )
        .unwrap();
        let saved = SavedSettings::read(dir.path());
        assert_eq!(saved.query_log, Some(true));
        assert_eq!(saved.hook.top_k, Some(2));
        assert_eq!(saved.hook.min_ratio, Some(0.5));
        assert_eq!(saved.hook.min_score, None);
        std::fs::write(dir.path().join(SAVED_SETTINGS_FILE), "{nope").unwrap();
        assert_eq!(SavedSettings::read(dir.path()), SavedSettings::default());
    }
}
