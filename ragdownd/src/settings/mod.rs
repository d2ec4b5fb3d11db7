//! The one settings layer. Every value that layers is owned here, most specific last:
//!
//! 1. flags and environment ([`Values`], built once by the app from the configuration);
//! 2. `.ragdown-server.json` in the docs dir, saved from Settings → Server (serve only; `stdio`
//!    reads the variables alone) — [`saved`];
//! 3. a folder's `.ragdown.json` `hook` ([`Settings::folder_hook`]);
//! 4. a call's own arguments (the hook's [`hook::Layers`]).
//!
//! Tools, the hook, HTTP and MCP read the values in effect from one shared [`Settings`], so a
//! saved change applies to the next call. The files are re-read when they change on disk (a hand
//! edit is picked up), and a broken file is reported (`/api/status`), never a crash. Nothing here
//! imports the tools, the engine or a transport.

pub mod file;
pub mod hook;
pub mod saved;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use parking_lot::Mutex;

use crate::search::SearchSettings;
pub use file::FileError;
pub use hook::{Gates, HookDefaults, HookOverrides, Layers, MAX_TOP_K};
pub use saved::{Patch, PatchError, SAVED_SETTINGS_FILE, SavedSettings};

/// A folder's settings file's name.
pub const FOLDER_SETTINGS_FILE: &str = ".ragdown.json";

/// One full set of the layered server values: what the environment says, or what is in effect.
#[derive(Debug, Clone, PartialEq)]
pub struct Values {
    /// The embedder's name; `None` for the default model.
    pub embedder: Option<String>,
    /// Whether the watcher runs.
    pub watch: bool,
    /// Whether the bare `/mcp` serves every MCP folder.
    pub root_mcp: bool,
    /// Characters per hit in text output.
    pub text_limit: usize,
    /// The per-document cap and link following.
    pub search: SearchSettings,
    /// Whether the query log is on.
    pub query_log: bool,
    /// `ragdown_context`'s defaults.
    pub hook: HookDefaults,
}

impl Values {
    /// These values with what `saved` sets laid over them.
    pub fn with_saved(&self, saved: &SavedSettings) -> Self {
        Self {
            embedder: saved.embedder.clone().or_else(|| self.embedder.clone()),
            watch: saved.watch.unwrap_or(self.watch),
            root_mcp: saved.root_mcp.unwrap_or(self.root_mcp),
            text_limit: saved.text_limit.unwrap_or(self.text_limit),
            search: SearchSettings {
                max_per_document: saved.max_per_document.unwrap_or(self.search.max_per_document),
                follow_links: saved.follow_links.unwrap_or(self.search.follow_links),
            },
            query_log: saved.query_log.unwrap_or(self.query_log),
            hook: HookDefaults {
                top_k: saved.hook.top_k.unwrap_or(self.hook.top_k),
                min_score: saved.hook.min_score.or(self.hook.min_score),
                min_ratio: saved.hook.min_ratio.or(self.hook.min_ratio),
                max_chars: saved.hook.max_chars.unwrap_or(self.hook.max_chars),
            },
        }
    }
}

/// The saved file as last read, and what identified that version on disk.
#[derive(Debug, Default)]
struct Cached {
    stamp: Option<Stamp>,
    saved: SavedSettings,
    error: Option<String>,
}

/// Modification time and length: a file whose stamp is unchanged is not read again.
type Stamp = (SystemTime, u64);

/// The server's settings: the environment's values and the saved file over them.
#[derive(Debug)]
pub struct Settings {
    env: Values,
    /// `<docs>/.ragdown-server.json` under serve; `None` under stdio.
    saved_path: Option<PathBuf>,
    cached: Mutex<Cached>,
}

impl Settings {
    /// Settings from the environment alone (stdio, tests).
    pub fn env_only(env: Values) -> Self {
        Self {
            env,
            saved_path: None,
            cached: Mutex::new(Cached::default()),
        }
    }

    /// Settings whose saved layer is `.ragdown-server.json` in `docs_dir` (serve).
    pub fn with_saved_file(env: Values, docs_dir: &Path) -> Self {
        Self {
            env,
            saved_path: Some(docs_dir.join(SAVED_SETTINGS_FILE)),
            cached: Mutex::new(Cached::default()),
        }
    }

    /// What the flags and environment say.
    pub fn env(&self) -> &Values {
        &self.env
    }

    /// The values in effect now.
    pub fn current(&self) -> Values {
        self.env.with_saved(&self.saved())
    }

    /// What is saved now (nothing under stdio, or when the file is broken).
    pub fn saved(&self) -> SavedSettings {
        self.refresh().0
    }

    /// Why the saved file cannot be read, when it cannot.
    pub fn saved_error(&self) -> Option<String> {
        self.refresh().1
    }

    fn refresh(&self) -> (SavedSettings, Option<String>) {
        let Some(path) = &self.saved_path else {
            return (SavedSettings::default(), None);
        };
        let stamp = std::fs::metadata(path)
            .ok()
            .map(|meta| (meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), meta.len()));
        let mut cached = self.cached.lock();
        if cached.stamp != stamp {
            let where_ = path.display().to_string();
            let (saved, error) = match file::read_object(path) {
                Ok(object) => (
                    object
                        .map(|o| SavedSettings::from_object(&o, &where_))
                        .unwrap_or_default(),
                    None,
                ),
                Err(reason) => {
                    tracing::warn!("ignoring an unreadable {where_}: {reason}");
                    (
                        SavedSettings::default(),
                        Some(format!("{SAVED_SETTINGS_FILE}: {reason}")),
                    )
                }
            };
            *cached = Cached { stamp, saved, error };
        }
        (cached.saved.clone(), cached.error.clone())
    }

    /// Saves a checked patch (keeping every key it does not touch; an empty object removes the
    /// file) and returns the values in effect afterwards. Under stdio there is no file to save to.
    pub fn save(&self, patch: &Patch) -> Result<Values, FileError> {
        let Some(path) = &self.saved_path else {
            return Err(FileError::Refused("settings are saved under serve only".into()));
        };
        file::update_object(path, true, |object| {
            patch.apply(object);
            Ok(())
        })?;
        // Read back through the cache, as a hand edit would be.
        *self.cached.lock() = Cached::default();
        Ok(self.current())
    }

    /// A folder's own `ragdown_context` defaults: the `hook` of the `.ragdown.json` in `dir` (a
    /// folder's directory, or the docs dir under stdio). Read on each call, so an edit applies
    /// without a restart; a missing or unreadable file gives none.
    pub fn folder_hook(dir: &Path) -> HookOverrides {
        let path = dir.join(FOLDER_SETTINGS_FILE);
        match file::read_object(&path) {
            Ok(Some(object)) => HookOverrides::from_json(object.get("hook"), &path.display().to_string()),
            Ok(None) => HookOverrides::default(),
            Err(reason) => {
                tracing::warn!("ignoring an unreadable {}: {reason}", path.display());
                HookOverrides::default()
            }
        }
    }

    /// The hook layers of one call: its own arguments, the folder in `folder_dir` (if any), and
    /// what is saved.
    pub fn hook_layers(&self, folder_dir: Option<&Path>, call: HookOverrides) -> Layers {
        Layers {
            call,
            folder: folder_dir.map(Self::folder_hook).unwrap_or_default(),
            saved: self.saved().hook,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn env() -> Values {
        Values {
            embedder: None,
            watch: true,
            root_mcp: false,
            text_limit: 2000,
            search: SearchSettings::default(),
            query_log: false,
            hook: HookDefaults::default(),
        }
    }

    #[test]
    fn saved_values_win_until_cleared_and_a_hand_edit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings::with_saved_file(env(), dir.path());
        assert_eq!(settings.current(), env());
        let patch = Patch::parse(&json!({"text_limit": 300, "hook": {"top_k": 2}, "watch": false})).unwrap();
        let now = settings.save(&patch).unwrap();
        assert_eq!((now.text_limit, now.hook.top_k, now.watch), (300, 2, false));
        // A hand edit, keeping an unknown key.
        std::fs::write(
            dir.path().join(SAVED_SETTINGS_FILE),
            r#"{"text_limit": 400, "colour": "teal"}"#,
        )
        .unwrap();
        let now = settings.current();
        assert_eq!((now.text_limit, now.hook.top_k, now.watch), (400, 4, true));
        settings
            .save(&Patch::parse(&json!({"text_limit": null})).unwrap())
            .unwrap();
        assert_eq!(settings.current().text_limit, 2000);
        let left: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(SAVED_SETTINGS_FILE)).unwrap()).unwrap();
        assert_eq!(left, json!({"colour": "teal"}));
        settings
            .save(&Patch {
                entries: vec![("colour".into(), None)],
            })
            .unwrap();
        assert!(!dir.path().join(SAVED_SETTINGS_FILE).exists());
    }

    #[test]
    fn a_broken_file_is_reported_and_read_as_nothing_saved() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings::with_saved_file(env(), dir.path());
        std::fs::write(dir.path().join(SAVED_SETTINGS_FILE), "{nope").unwrap();
        assert_eq!(settings.current(), env());
        assert!(settings.saved_error().unwrap().contains(SAVED_SETTINGS_FILE));
        assert!(settings.save(&Patch::parse(&json!({"watch": false})).unwrap()).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join(SAVED_SETTINGS_FILE)).unwrap(),
            "{nope"
        );
        std::fs::remove_file(dir.path().join(SAVED_SETTINGS_FILE)).unwrap();
        assert_eq!(settings.saved_error(), None);
        let stdio = Settings::env_only(env());
        assert!(stdio.save(&Patch::default()).is_err());
    }

    #[test]
    fn a_folders_hook_comes_from_its_settings_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::folder_hook(dir.path()), HookOverrides::default());
        std::fs::write(
            dir.path().join(FOLDER_SETTINGS_FILE),
            r#"{"mcp":true,"hook":{"top_k":6,"min_score":0.75}}"#,
        )
        .unwrap();
        let hook = Settings::folder_hook(dir.path());
        assert_eq!(
            (hook.top_k, hook.min_score, hook.min_ratio),
            (Some(6), Some(0.75), None)
        );
        std::fs::write(dir.path().join(FOLDER_SETTINGS_FILE), "{nope").unwrap();
        assert_eq!(Settings::folder_hook(dir.path()), HookOverrides::default());
    }
}
