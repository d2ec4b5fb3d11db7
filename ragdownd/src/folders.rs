//! Folders under `serve`: each top-level directory of the docs dir, with its `.ragdown.json`.
//!
//! `.ragdown.json` holds `title`, `mcp` (serve this folder at `/mcp/<name>`) and `hook`; keys this
//! version does not know are kept by whoever rewrites the file. A missing or unreadable file means
//! the defaults: titled by its name, MCP off (folders are for humans until their owner opts in).

use std::path::Path;

use serde::Deserialize;

use crate::hook::settings::HookOverrides;
use crate::index::sync::is_skipped;

/// The settings file's name.
pub const SETTINGS_FILE: &str = ".ragdown.json";

/// One folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// The directory's name, also its URL segment.
    pub name: String,
    /// Shown to people and agents; the name when unset.
    pub title: String,
    /// Whether `/mcp/<name>` serves it.
    pub mcp: bool,
}

#[derive(Debug, Default, Deserialize)]
struct SettingsFile {
    title: Option<String>,
    mcp: Option<bool>,
}

/// Reads one folder; `None` when `name` is not a folder (missing, a file, a dot or skipped name,
/// or a symlink).
pub fn get(docs_dir: &Path, name: &str) -> Option<Folder> {
    if name.is_empty() || is_skipped(name) || name.contains(['/', '\\']) {
        return None;
    }
    let dir = docs_dir.join(name);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let settings: SettingsFile = std::fs::read_to_string(dir.join(SETTINGS_FILE))
        .ok()
        .and_then(|text| match serde_json::from_str(&text) {
            Ok(settings) => Some(settings),
            Err(err) => {
                tracing::warn!(folder = name, "ignoring an unreadable {SETTINGS_FILE}: {err}");
                None
            }
        })
        .unwrap_or_default();
    Some(Folder {
        name: name.to_string(),
        title: settings
            .title
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| name.to_string()),
        mcp: settings.mcp.unwrap_or(false),
    })
}

/// A folder's own `ragdown_context` defaults: the `hook` object of the `.ragdown.json` in `dir`
/// (a folder's directory, or the docs dir under stdio). Read on each call, so an edit applies
/// without a restart; a missing or unreadable file gives none.
pub fn hook_settings(dir: &Path) -> HookOverrides {
    let path = dir.join(SETTINGS_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return HookOverrides::default();
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value) => HookOverrides::from_json(value.get("hook"), &path.display().to_string()),
        Err(err) => {
            tracing::warn!("ignoring an unreadable {}: {err}", path.display());
            HookOverrides::default()
        }
    }
}

/// Every folder, sorted by name.
pub fn list(docs_dir: &Path) -> Vec<Folder> {
    let Ok(entries) = std::fs::read_dir(docs_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    names.iter().filter_map(|name| get(docs_dir, name)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_read_their_settings_and_skip_files_and_dot_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("ops")).unwrap();
        std::fs::write(
            root.join("ops").join(SETTINGS_FILE),
            r#"{"title":"Operations","mcp":true,"extra":1}"#,
        )
        .unwrap();
        std::fs::create_dir_all(root.join("private")).unwrap();
        std::fs::create_dir_all(root.join("broken")).unwrap();
        std::fs::write(root.join("broken").join(SETTINGS_FILE), "{nope").unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("loose.md"), "# x").unwrap();
        let folders = list(root);
        assert_eq!(
            folders,
            vec![
                Folder {
                    name: "broken".into(),
                    title: "broken".into(),
                    mcp: false
                },
                Folder {
                    name: "ops".into(),
                    title: "Operations".into(),
                    mcp: true
                },
                Folder {
                    name: "private".into(),
                    title: "private".into(),
                    mcp: false
                },
            ]
        );
        assert_eq!(get(root, "../ops"), None);
        assert_eq!(get(root, ".git"), None);
        assert_eq!(get(root, "loose.md"), None);
    }

    #[test]
    fn a_folders_hook_settings_come_from_its_settings_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(hook_settings(dir.path()), HookOverrides::default());
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            r#"{"mcp":true,"hook":{"top_k":6,"min_score":0.75}}"#,
        )
        .unwrap();
        let hook = hook_settings(dir.path());
        assert_eq!(
            (hook.top_k, hook.min_score, hook.min_ratio),
            (Some(6), Some(0.75), None)
        );
        std::fs::write(dir.path().join(SETTINGS_FILE), "{nope").unwrap();
        assert_eq!(hook_settings(dir.path()), HookOverrides::default());
    }
}
