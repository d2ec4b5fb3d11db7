//! Folders under `serve`: each top-level directory of the docs dir, with its `.ragdown.json`.
//!
//! `.ragdown.json` holds `title`, `mcp` (serve this folder at `/mcp/<name>`) and `hook`; keys this
//! version does not know are kept by whoever rewrites the file. A missing or unreadable file means
//! the defaults: titled by its name, MCP off (folders are for humans until their owner opts in).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::documents::DocError;
use crate::documents::paths::is_skipped;
use crate::documents::write::atomic_write;
use crate::error::{ErrorKind, Kinded};
use crate::history::Change;
use crate::markdown::is_markdown;
use crate::settings::file::{self, FileError};

/// The settings file's name.
pub const SETTINGS_FILE: &str = crate::settings::FOLDER_SETTINGS_FILE;

/// One folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// The directory's name, also its URL segment.
    pub name: String,
    /// Shown to people and agents; the name when unset.
    pub title: String,
    /// Whether `/mcp/<name>` serves it.
    pub mcp: bool,
    /// Which tool made it, when an agent did (`ragdown_create_folder`).
    pub created_by: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct SettingsFile {
    title: Option<String>,
    mcp: Option<bool>,
    created_by: Option<String>,
}

/// Why a folder could not be made or its settings written.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error(
        "not a valid folder name: {0:?} (1-64 letters, digits, spaces, '_', '.' or '-', starting with a letter, digit \
         or '_')"
    )]
    BadName(String),
    #[error("a folder named {0:?} already exists")]
    Exists(String),
    #[error("no folder named {0:?}")]
    Missing(String),
    #[error("{SETTINGS_FILE} of {0:?} is not a JSON object; fix or remove it first")]
    Unreadable(String),
    #[error("cannot write folder {0:?}: {1}")]
    Io(String, #[source] std::io::Error),
}

impl Kinded for FolderError {
    /// What kind of failure this is.
    fn kind(&self) -> ErrorKind {
        match self {
            Self::BadName(_) => ErrorKind::Invalid,
            Self::Missing(_) => ErrorKind::NotFound,
            Self::Exists(_) | Self::Unreadable(_) => ErrorKind::Conflict,
            Self::Io(..) => ErrorKind::Internal,
        }
    }
}

static NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_][A-Za-z0-9 _.-]{0,63}$").expect("valid regex"));

/// Whether `name` may name a new folder: the web UI's rule, which keeps names usable as one URL
/// segment and one directory on every platform.
pub fn valid_name(name: &str) -> bool {
    NAME.is_match(name) && name.trim() == name && name != "node_modules" && !is_skipped(name)
}

/// Makes an empty folder with `settings` as its `.ragdown.json`. Never overwrites: an existing
/// entry of that name, folder or file, is an error and nothing changes.
pub fn create(
    docs_dir: &Path,
    name: &str,
    settings: Map<String, Value>,
    change: &Change,
) -> Result<Folder, FolderError> {
    if !valid_name(name) {
        return Err(FolderError::BadName(name.to_string()));
    }
    let dir = docs_dir.join(name);
    if std::fs::symlink_metadata(&dir).is_ok() {
        return Err(FolderError::Exists(name.to_string()));
    }
    let recorded = |err: DocError| FolderError::Io(name.to_string(), std::io::Error::other(err.to_string()));
    change.mkdir(&dir).map_err(recorded)?;
    if let Err(err) = std::fs::create_dir(&dir) {
        change.forget_last();
        return Err(match err.kind() {
            std::io::ErrorKind::AlreadyExists => FolderError::Exists(name.to_string()),
            _ => FolderError::Io(name.to_string(), err),
        });
    }
    let text = format!("{:#}\n", Value::Object(settings));
    change
        .file(&dir.join(SETTINGS_FILE), None, Some(text.as_bytes()))
        .map_err(recorded)?;
    if let Err(err) = atomic_write(&dir.join(SETTINGS_FILE), text.as_bytes()) {
        // The directory is ours and empty: leave nothing half made.
        let _ = std::fs::remove_dir_all(&dir);
        return Err(FolderError::Io(name.to_string(), err));
    }
    get(docs_dir, name).ok_or_else(|| FolderError::Missing(name.to_string()))
}

/// Changes a folder's `.ragdown.json` through `change`, keeping every key it does not touch,
/// including ones this version does not know. A file that is not a JSON object is refused rather
/// than replaced.
pub fn update_settings(
    docs_dir: &Path,
    name: &str,
    change: impl FnOnce(&mut Map<String, Value>),
) -> Result<Folder, FolderError> {
    if get(docs_dir, name).is_none() {
        return Err(FolderError::Missing(name.to_string()));
    }
    let path = docs_dir.join(name).join(SETTINGS_FILE);
    file::update_object(&path, false, |settings| {
        change(settings);
        Ok(())
    })
    .map_err(|err| match err {
        FileError::Io { source, .. } => FolderError::Io(name.to_string(), source),
        FileError::Broken { .. } | FileError::Refused(_) => FolderError::Unreadable(name.to_string()),
    })?;
    get(docs_dir, name).ok_or_else(|| FolderError::Missing(name.to_string()))
}

/// Renames a folder, never over anything: a folder or file of the new name is a 409 and nothing
/// changes. The index follows on the next sync (its paths carry the folder's name).
pub fn rename(docs_dir: &Path, name: &str, new_name: &str, change: &Change) -> Result<Folder, FolderError> {
    if get(docs_dir, name).is_none() {
        return Err(FolderError::Missing(name.to_string()));
    }
    if !valid_name(new_name) {
        return Err(FolderError::BadName(new_name.to_string()));
    }
    let (from, to) = (docs_dir.join(name), docs_dir.join(new_name));
    change
        .renamed(&from, &to, true, None)
        .map_err(|err| FolderError::Io(name.to_string(), std::io::Error::other(err.to_string())))?;
    crate::documents::rename_dir_no_clobber(&from, &to).map_err(|err| {
        change.forget_last();
        match err.kind() {
            std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::DirectoryNotEmpty => {
                FolderError::Exists(new_name.to_string())
            }
            _ => FolderError::Io(name.to_string(), err),
        }
    })?;
    get(docs_dir, new_name).ok_or_else(|| FolderError::Missing(new_name.to_string()))
}

/// Deletes a folder with everything in it. Only a real folder of the docs dir (never a symlink,
/// a dot entry or a file) can be named.
pub fn delete(docs_dir: &Path, name: &str, change: &Change) -> Result<(), FolderError> {
    if get(docs_dir, name).is_none() {
        return Err(FolderError::Missing(name.to_string()));
    }
    change
        .removing_tree(&docs_dir.join(name))
        .map_err(|err| FolderError::Io(name.to_string(), std::io::Error::other(err.to_string())))?;
    std::fs::remove_dir_all(docs_dir.join(name)).map_err(|err| FolderError::Io(name.to_string(), err))
}

/// Deletes a loose Markdown file, one directly in the docs dir; `None` when `name` is no such
/// file (a folder, a symlink, a path, anything not Markdown).
pub fn delete_loose(docs_dir: &Path, name: &str, change: &Change) -> Option<std::io::Result<()>> {
    if !loose_files(docs_dir).iter().any(|loose| loose == name) {
        return None;
    }
    let path = docs_dir.join(name);
    let recorded = std::fs::read(&path).and_then(|bytes| {
        change
            .file(&path, Some(&bytes), None)
            .map_err(|err| std::io::Error::other(err.to_string()))
    });
    Some(recorded.and_then(|()| std::fs::remove_file(&path)))
}

/// A folder's `.ragdown.json` as a JSON object, every key kept; empty when missing or unreadable.
pub fn settings_json(docs_dir: &Path, name: &str) -> Map<String, Value> {
    file::read_object(&docs_dir.join(name).join(SETTINGS_FILE))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Markdown files directly in the docs dir, outside every folder: `serve` lists them but does not
/// index them.
pub fn loose_files(docs_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(docs_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|name| !is_skipped(name) && is_markdown(name))
        .collect();
    names.sort();
    names
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
        created_by: settings.created_by.filter(|c| !c.is_empty()),
    })
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
                    mcp: false,
                    created_by: None,
                },
                Folder {
                    name: "ops".into(),
                    title: "Operations".into(),
                    mcp: true,
                    created_by: None,
                },
                Folder {
                    name: "private".into(),
                    title: "private".into(),
                    mcp: false,
                    created_by: None,
                },
            ]
        );
        assert_eq!(get(root, "../ops"), None);
        assert_eq!(get(root, ".git"), None);
        assert_eq!(get(root, "loose.md"), None);
        assert_eq!(loose_files(root), ["loose.md"]);
    }

    #[test]
    fn names_follow_the_web_ui_rule() {
        for good in ["work", "Work notes", "a.b-c_d", "_x", "9"] {
            assert!(valid_name(good), "{good}");
        }
        let long = "a".repeat(65);
        for bad in [
            "",
            " work",
            "work ",
            ".hidden",
            "-x",
            "a/b",
            "..",
            "node_modules",
            "é",
            long.as_str(),
        ] {
            assert!(!valid_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn create_never_overwrites_and_update_keeps_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut settings = Map::new();
        settings.insert("title".into(), "Work".into());
        settings.insert("mcp".into(), true.into());
        settings.insert("created_by".into(), "ragdown_create_folder".into());
        let made = create(root, "work", settings.clone(), &Change::untracked()).unwrap();
        assert_eq!(made.title, "Work");
        assert!(made.mcp);
        assert_eq!(made.created_by.as_deref(), Some("ragdown_create_folder"));

        // A second create of the same name, or over a file, changes nothing.
        std::fs::write(root.join("work").join("keep.md"), "# keep").unwrap();
        assert!(matches!(
            create(root, "work", Map::new(), &Change::untracked()),
            Err(FolderError::Exists(_))
        ));
        std::fs::write(root.join("file"), "x").unwrap();
        assert!(matches!(
            create(root, "file", Map::new(), &Change::untracked()),
            Err(FolderError::Exists(_))
        ));
        assert_eq!(std::fs::read_to_string(root.join("file")).unwrap(), "x");
        assert!(root.join("work").join("keep.md").exists());
        assert!(matches!(
            create(root, "../x", Map::new(), &Change::untracked()),
            Err(FolderError::BadName(_))
        ));

        std::fs::write(
            root.join("work").join(SETTINGS_FILE),
            r#"{"title":"Work","mcp":true,"color":"teal","hook":{"top_k":6}}"#,
        )
        .unwrap();
        let updated = update_settings(root, "work", |s| {
            s.insert("title".into(), "Work notes".into());
        })
        .unwrap();
        assert_eq!(updated.title, "Work notes");
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("work").join(SETTINGS_FILE)).unwrap()).unwrap();
        assert_eq!(saved["color"], "teal");
        assert_eq!(saved["hook"]["top_k"], 6);
        assert_eq!(saved["mcp"], true);

        std::fs::write(root.join("work").join(SETTINGS_FILE), "[1]").unwrap();
        assert!(matches!(
            update_settings(root, "work", |_| {}),
            Err(FolderError::Unreadable(_))
        ));
        assert_eq!(
            std::fs::read_to_string(root.join("work").join(SETTINGS_FILE)).unwrap(),
            "[1]"
        );
        assert!(matches!(
            update_settings(root, "nope", |_| {}),
            Err(FolderError::Missing(_))
        ));
    }

    #[test]
    fn rename_and_delete_touch_only_real_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/x.md"), "# x").unwrap();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("b/y.md"), "# y").unwrap();
        assert!(matches!(
            rename(root, "a", "b", &Change::untracked()),
            Err(FolderError::Exists(_))
        ));
        assert!(matches!(
            rename(root, "a", "../c", &Change::untracked()),
            Err(FolderError::BadName(_))
        ));
        assert!(matches!(
            rename(root, "nope", "c", &Change::untracked()),
            Err(FolderError::Missing(_))
        ));
        assert_eq!(std::fs::read_to_string(root.join("b/y.md")).unwrap(), "# y");
        assert_eq!(rename(root, "a", "c", &Change::untracked()).unwrap().name, "c");
        assert_eq!(std::fs::read_to_string(root.join("c/x.md")).unwrap(), "# x");
        assert!(!root.join("a").exists());

        std::fs::write(root.join("loose.md"), "# l").unwrap();
        assert!(matches!(
            delete(root, "loose.md", &Change::untracked()),
            Err(FolderError::Missing(_))
        ));
        assert!(matches!(
            delete(root, "..", &Change::untracked()),
            Err(FolderError::Missing(_))
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("c"), root.join("link")).unwrap();
            assert!(matches!(
                delete(root, "link", &Change::untracked()),
                Err(FolderError::Missing(_))
            ));
            assert!(root.join("c/x.md").exists());
        }
        delete(root, "c", &Change::untracked()).unwrap();
        assert!(!root.join("c").exists());

        assert!(delete_loose(root, "b", &Change::untracked()).is_none());
        assert!(delete_loose(root, "b/y.md", &Change::untracked()).is_none());
        assert!(delete_loose(root, "nope.md", &Change::untracked()).is_none());
        delete_loose(root, "loose.md", &Change::untracked()).unwrap().unwrap();
        assert!(!root.join("loose.md").exists());
    }
}
