//! The folder paths a scoped token opens (`notes`, `notes/projects/ragdown`), and the one rule that
//! says whether a root-relative path or an MCP endpoint lies inside one.
//!
//! Paths are compared segment by segment, literally, after the same clean-up the path check in
//! [`crate::documents::paths`] makes (backslashes are separators; empty and `.` segments go).
//! `notes/a` therefore opens `notes/a` and `notes/a/b`, never `notes` or `notes/ab`. A path with a
//! `..` segment is never inside anything. This module only compares strings; whether a path names
//! a real folder is [`check_exists`]'s question, asked when a token is made.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::documents::paths::is_skipped;

/// Most segments a token's folder path may have.
const MAX_DEPTH: usize = 32;

/// Why a text is not a folder path, or names no folder there is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("a folder path is needed (a folder, or folder/subfolder)")]
    Empty,
    #[error("a folder path has at most {MAX_DEPTH} segments")]
    TooDeep,
    #[error("not a folder ragdown serves: {segment:?} in {text:?}")]
    NotServed { segment: String, text: String },
    #[error("no folder named {0:?}")]
    NoFolder(String),
    #[error("no subfolder {sub:?} in the folder {folder:?}")]
    NoSubfolder { folder: String, sub: String },
}

/// A folder, or a subfolder of one, that a token opens: its first segment is the folder.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FolderPath {
    /// The segments, the folder's name first; never empty, none `.`, `..`, a dot-name or
    /// `node_modules`.
    segments: Vec<String>,
}

impl FolderPath {
    /// Parses `notes` or `notes/sub/dir` (a leading or trailing `/` and backslashes are taken);
    /// `Err` says why it is not a folder path.
    pub fn parse(text: &str) -> Result<Self, PathError> {
        let clean = text.trim().replace('\\', "/");
        let segments: Vec<String> = clean
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .map(str::to_owned)
            .collect();
        if segments.is_empty() {
            return Err(PathError::Empty);
        }
        if segments.len() > MAX_DEPTH {
            return Err(PathError::TooDeep);
        }
        if let Some(bad) = segments
            .iter()
            .find(|s| *s == ".." || is_skipped(s) || s.chars().any(char::is_control))
        {
            return Err(PathError::NotServed {
                segment: bad.clone(),
                text: text.to_string(),
            });
        }
        Ok(Self { segments })
    }

    /// The folder's name.
    pub fn folder(&self) -> &str {
        &self.segments[0]
    }

    /// The subfolder inside the folder (`sub/dir`), empty for the whole folder.
    pub fn sub(&self) -> String {
        self.segments[1..].join("/")
    }

    /// The root-relative prefix of what it opens, ending in `/` (`notes/sub/`).
    pub fn prefix(&self) -> String {
        format!("{self}/")
    }

    /// Whether `segments` (a cleaned root-relative path, split) is this folder or lies inside it.
    pub fn contains(&self, segments: &[&str]) -> bool {
        segments.len() >= self.segments.len() && self.segments.iter().zip(segments).all(|(a, b)| a == b)
    }

    /// Whether `other` lies inside this one (or is it).
    pub fn covers(&self, other: &Self) -> bool {
        let segments: Vec<&str> = other.segments.iter().map(String::as_str).collect();
        self.contains(&segments)
    }

    /// How many segments deep it is (1 for a whole folder).
    pub fn depth(&self) -> usize {
        self.segments.len()
    }
}

impl fmt::Display for FolderPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.segments.join("/"))
    }
}

impl Serialize for FolderPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FolderPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A client's root-relative path split as the path check splits it: backslashes are separators,
/// empty and `.` segments dropped. `None` when a segment is `..` (never inside a folder path).
pub fn segments(path: &str) -> Option<Vec<&str>> {
    let segments: Vec<&str> = path.split(['/', '\\']).filter(|s| !s.is_empty() && *s != ".").collect();
    (!segments.contains(&"..")).then_some(segments)
}

/// `paths` without those another of them already covers, in their order: `notes` and `notes/a`
/// is just `notes`.
pub fn minimal(paths: Vec<FolderPath>) -> Vec<FolderPath> {
    let mut out: Vec<FolderPath> = Vec::new();
    for path in paths {
        if out.iter().any(|kept| kept.covers(&path)) {
            continue;
        }
        out.retain(|kept| !path.covers(kept));
        out.push(path);
    }
    out
}

/// Whether `path` names a folder of `docs_dir` (a real one, reached through real folders, as the
/// path check requires); `Err` says what is missing.
pub fn check_exists(docs_dir: &Path, path: &FolderPath) -> Result<(), PathError> {
    if crate::folders::get(docs_dir, path.folder()).is_none() {
        return Err(PathError::NoFolder(path.folder().to_string()));
    }
    let sub = path.sub();
    if sub.is_empty() {
        return Ok(());
    }
    let exists = crate::documents::Root::new(docs_dir, path.folder())
        .join(&sub)
        .is_ok_and(|root| root.exists_as_dir());
    if exists {
        Ok(())
    } else {
        Err(PathError::NoSubfolder {
            folder: path.folder().to_string(),
            sub,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> FolderPath {
        FolderPath::parse(text).unwrap()
    }

    #[test]
    fn a_path_opens_itself_and_what_is_under_it_only() {
        let sub = path("notes/a");
        assert!(sub.contains(&["notes", "a"]));
        assert!(sub.contains(&["notes", "a", "b", "c.md"]));
        for outside in [
            &["notes"][..],
            &["notes", "ab"],
            &["notes", "b", "a"],
            &["work", "a"],
            &[],
        ] {
            assert!(!sub.contains(outside), "{outside:?}");
        }
        let folder = path("notes");
        assert!(folder.contains(&["notes", "a"]));
        assert!(!folder.contains(&["notes2", "a"]));
    }

    #[test]
    fn parsing_cleans_and_refuses_what_the_path_check_refuses() {
        assert_eq!(path("/notes//a/./b/").to_string(), "notes/a/b");
        assert_eq!(path("notes\\a").to_string(), "notes/a");
        assert_eq!(path("notes/a").folder(), "notes");
        assert_eq!(path("notes/a/b").sub(), "a/b");
        assert_eq!(path("notes").sub(), "");
        assert_eq!(path("notes/a").prefix(), "notes/a/");
        for bad in [
            "",
            "/",
            ".",
            "notes/../work",
            "..",
            ".git",
            "notes/.obsidian",
            "notes/node_modules",
            "a\u{0}b",
        ] {
            assert!(FolderPath::parse(bad).is_err(), "{bad:?}");
        }
        let deep = vec!["d"; MAX_DEPTH + 1].join("/");
        assert!(FolderPath::parse(&deep).is_err());
    }

    #[test]
    fn segments_are_split_as_the_path_check_splits_them_and_dot_dot_is_never_inside() {
        assert_eq!(segments("notes//a/./b.md"), Some(vec!["notes", "a", "b.md"]));
        assert_eq!(segments("notes\\a\\b.md"), Some(vec!["notes", "a", "b.md"]));
        assert_eq!(segments("notes/a/../../work/x.md"), None);
    }

    #[test]
    fn minimal_drops_paths_another_covers() {
        let kept = minimal(vec![
            path("notes/a"),
            path("work"),
            path("notes"),
            path("work/x"),
            path("notes/ab"),
        ]);
        let kept: Vec<String> = kept.iter().map(ToString::to_string).collect();
        assert_eq!(kept, ["work", "notes"]);
    }

    #[test]
    fn paths_are_strings_on_the_wire_and_checked_when_read() {
        let json = serde_json::to_string(&path("notes/a")).unwrap();
        assert_eq!(json, r#""notes/a""#);
        assert_eq!(serde_json::from_str::<FolderPath>(&json).unwrap(), path("notes/a"));
        assert!(serde_json::from_str::<FolderPath>(r#""notes/../x""#).is_err());
    }

    #[test]
    fn only_real_folders_and_subfolders_exist() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("notes/a")).unwrap();
        std::fs::write(dir.path().join("notes/file.md"), "x").unwrap();
        assert!(check_exists(dir.path(), &path("notes")).is_ok());
        assert!(check_exists(dir.path(), &path("notes/a")).is_ok());
        assert!(check_exists(dir.path(), &path("notes/b")).is_err());
        assert!(check_exists(dir.path(), &path("notes/file.md")).is_err());
        assert!(check_exists(dir.path(), &path("work")).is_err());
    }
}
