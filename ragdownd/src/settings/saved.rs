//! `.ragdown-server.json` in the docs dir: the server settings saved from the web UI (serve only).
//!
//! What is saved wins over the environment variable of the same setting until it is cleared there;
//! the variable is what it goes back to (product page, Configuration). The file is read as data
//! someone may have edited by hand: a value of the wrong type or out of range is left out with a
//! warning, never an error. A change ([`Patch`]) is checked whole before anything is written.

use serde_json::{Map, Value};

use super::hook::{HookOverrides, MAX_TOP_K};
use crate::error::{ErrorKind, Kinded};

/// The settings file's name, in the docs dir.
pub const SAVED_SETTINGS_FILE: &str = ".ragdown-server.json";

/// The keys Settings → Server saves, in the order `/api/status` shows them.
pub const KEYS: [&str; 8] = [
    "embedder",
    "watch",
    "root_mcp",
    "text_limit",
    "max_per_document",
    "follow_links",
    "query_log",
    "hook",
];

/// The keys of `hook`.
pub const HOOK_KEYS: [&str; 4] = ["top_k", "min_score", "min_ratio", "max_chars"];

/// The saved values this version reads; `None` falls through to the environment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SavedSettings {
    pub embedder: Option<String>,
    pub watch: Option<bool>,
    pub root_mcp: Option<bool>,
    pub text_limit: Option<usize>,
    pub max_per_document: Option<usize>,
    pub follow_links: Option<usize>,
    pub query_log: Option<bool>,
    pub hook: HookOverrides,
}

impl SavedSettings {
    /// The valid values of a saved object (`where_` names the file in warnings).
    pub fn from_object(object: &Map<String, Value>, where_: &str) -> Self {
        let warn = |key: &str, want: &str, raw: &Value| {
            tracing::warn!("ignoring {where_}: {key} must be {want}, not {raw}");
        };
        let get = |key: &str| object.get(key).filter(|v| !v.is_null());
        let flag = |key: &str| {
            let raw = get(key)?;
            raw.as_bool().or_else(|| {
                warn(key, "true or false", raw);
                None
            })
        };
        let count = |key: &str| {
            let raw = get(key)?;
            raw.as_u64().and_then(|n| usize::try_from(n).ok()).or_else(|| {
                warn(key, "a whole number", raw);
                None
            })
        };
        let embedder = get("embedder").and_then(|raw| match raw.as_str().map(str::trim) {
            Some(name) if !name.is_empty() => Some(name.to_string()),
            _ => {
                warn("embedder", "an embedder's name", raw);
                None
            }
        });
        Self {
            embedder,
            watch: flag("watch"),
            root_mcp: flag("root_mcp"),
            text_limit: count("text_limit"),
            max_per_document: count("max_per_document"),
            follow_links: count("follow_links"),
            query_log: flag("query_log"),
            hook: HookOverrides::from_json(object.get("hook"), where_),
        }
    }
}

/// A checked change to the saved settings: each entry sets a key (`Some`) or removes it (`None`,
/// from a `null`, so the setting goes back to its variable). `hook` entries are `hook.<key>`;
/// `hook: null` removes the whole object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Patch {
    pub entries: Vec<(String, Option<Value>)>,
}

/// Why a `PATCH /api/settings` body is refused; the message says which key and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    #[error("the body must be a JSON object of settings")]
    NotAnObject,
    #[error("hook must be an object or null")]
    HookNotAnObject,
    #[error("unknown setting: {0} (known: {keys})", keys = KEYS.join(", "))]
    Unknown(String),
    #[error("unknown hook setting: {0} (known: {keys})", keys = HOOK_KEYS.join(", "))]
    UnknownHook(String),
    /// A known key with a value it cannot take (`want` says what it can).
    #[error("{key} must be {want} or null, not {value}")]
    Wrong { key: String, want: String, value: Value },
}

impl Kinded for PatchError {
    /// What kind of failure this is: every refusal is of the body the caller sent.
    fn kind(&self) -> ErrorKind {
        match self {
            Self::NotAnObject
            | Self::HookNotAnObject
            | Self::Unknown(_)
            | Self::UnknownHook(_)
            | Self::Wrong { .. } => ErrorKind::Invalid,
        }
    }
}

impl Patch {
    /// Checks a `PATCH /api/settings` body. Anything unknown, of the wrong type or out of range
    /// refuses the whole body with a message that says which key and why.
    pub fn parse(body: &Value) -> Result<Self, PatchError> {
        let Some(object) = body.as_object() else {
            return Err(PatchError::NotAnObject);
        };
        let mut entries = Vec::new();
        for (key, value) in object {
            match key.as_str() {
                "hook" => match value {
                    Value::Null => entries.push(("hook".to_string(), None)),
                    Value::Object(hook) => {
                        for (name, value) in hook {
                            let checked = check_hook(name, value)?;
                            entries.push((format!("hook.{name}"), checked));
                        }
                    }
                    _ => return Err(PatchError::HookNotAnObject),
                },
                _ if KEYS.contains(&key.as_str()) => entries.push((key.clone(), check(key, value)?)),
                _ => return Err(PatchError::Unknown(key.clone())),
            }
        }
        Ok(Self { entries })
    }

    /// The embedder this patch sets (`Some(None)`: back to the variable), if it names one.
    pub fn embedder(&self) -> Option<Option<&str>> {
        self.entries
            .iter()
            .find(|(key, _)| key == "embedder")
            .map(|(_, value)| value.as_ref().and_then(Value::as_str))
    }

    /// Applies the patch to a saved object; an emptied `hook` is removed.
    pub fn apply(&self, object: &mut Map<String, Value>) {
        for (key, value) in &self.entries {
            match (key.strip_prefix("hook."), value) {
                (Some(name), value) => {
                    if !object.get("hook").is_some_and(Value::is_object) {
                        object.insert("hook".into(), Value::Object(Map::new()));
                    }
                    if let Some(Value::Object(hook)) = object.get_mut("hook") {
                        match value {
                            Some(value) => hook.insert(name.into(), value.clone()),
                            None => hook.remove(name),
                        };
                    }
                }
                (None, Some(value)) => {
                    object.insert(key.clone(), value.clone());
                }
                (None, None) => {
                    object.remove(key);
                }
            }
        }
        if object.get("hook").and_then(Value::as_object).is_some_and(Map::is_empty) {
            object.remove("hook");
        }
    }
}

fn check(key: &str, value: &Value) -> Result<Option<Value>, PatchError> {
    if value.is_null() {
        return Ok(None);
    }
    let ok = match key {
        "embedder" => value
            .as_str()
            .is_some_and(|name| !name.trim().is_empty() && name.trim() == name),
        "watch" | "root_mcp" | "query_log" => value.is_boolean(),
        "text_limit" | "max_per_document" | "follow_links" => value.as_u64().is_some_and(|n| n <= u32::MAX as u64),
        _ => false,
    };
    if ok {
        return Ok(Some(value.clone()));
    }
    let want = match key {
        "embedder" => "an embedder's name",
        "watch" | "root_mcp" | "query_log" => "true or false",
        _ => "a whole number from 0",
    };
    Err(PatchError::Wrong {
        key: key.to_string(),
        want: want.to_string(),
        value: value.clone(),
    })
}

fn check_hook(name: &str, value: &Value) -> Result<Option<Value>, PatchError> {
    if value.is_null() {
        return Ok(None);
    }
    let ok = match name {
        "top_k" => value.as_u64().is_some_and(|n| (1..=MAX_TOP_K as u64).contains(&n)),
        "min_score" | "min_ratio" => value.as_f64().is_some_and(|n| (0.0..=1.0).contains(&n)),
        "max_chars" => value.as_u64().is_some_and(|n| n >= 1),
        _ => return Err(PatchError::UnknownHook(name.to_string())),
    };
    if ok {
        return Ok(Some(value.clone()));
    }
    let want = match name {
        "top_k" => format!("a whole number from 1 to {MAX_TOP_K}"),
        "max_chars" => "a whole number from 1".into(),
        _ => "a number from 0 to 1".into(),
    };
    Err(PatchError::Wrong {
        key: format!("hook.{name}"),
        want,
        value: value.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn saved_values_of_the_wrong_type_are_left_out() {
        let object = json!({
            "embedder": "minilm", "watch": "yes", "root_mcp": true, "text_limit": -1,
            "max_per_document": 3, "follow_links": "two", "query_log": true, "hook": {"top_k": 2, "min_ratio": 0.5}, "extra": 1
        });
        let saved = SavedSettings::from_object(object.as_object().unwrap(), "test");
        assert_eq!(saved.embedder.as_deref(), Some("minilm"));
        assert_eq!(
            (saved.watch, saved.root_mcp, saved.text_limit),
            (None, Some(true), None)
        );
        assert_eq!((saved.max_per_document, saved.query_log), (Some(3), Some(true)));
        assert_eq!(saved.follow_links, None);
        assert_eq!((saved.hook.top_k, saved.hook.min_ratio), (Some(2), Some(0.5)));
    }

    #[test]
    fn a_patch_is_checked_whole_and_null_removes() {
        for (bad, says) in [
            (json!([1]), "must be a JSON object"),
            (json!({"colour": "teal"}), "unknown setting: colour"),
            (json!({"watch": 1}), "watch must be true or false"),
            (json!({"text_limit": -5}), "text_limit must be a whole number"),
            (json!({"follow_links": 1.5}), "follow_links must be a whole number"),
            (json!({"embedder": ""}), "embedder must be an embedder's name"),
            (
                json!({"hook": {"top_k": 51}}),
                "hook.top_k must be a whole number from 1 to 50",
            ),
            (
                json!({"hook": {"min_score": 1.5}}),
                "hook.min_score must be a number from 0 to 1",
            ),
            (json!({"hook": {"nope": 1}}), "unknown hook setting: nope"),
            (json!({"hook": 3}), "hook must be an object or null"),
        ] {
            let err = Patch::parse(&bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let mut object = json!({"watch": false, "hook": {"top_k": 3}, "keep": "me"})
            .as_object()
            .unwrap()
            .clone();
        let patch = Patch::parse(&json!({"watch": null, "text_limit": 500, "hook": {"top_k": null}})).unwrap();
        assert_eq!(patch.embedder(), None);
        patch.apply(&mut object);
        assert_eq!(Value::Object(object.clone()), json!({"text_limit": 500, "keep": "me"}));
        Patch::parse(&json!({"hook": {"min_ratio": 0.5}}))
            .unwrap()
            .apply(&mut object);
        assert_eq!(object["hook"], json!({"min_ratio": 0.5}));
        Patch::parse(&json!({"hook": null})).unwrap().apply(&mut object);
        assert!(!object.contains_key("hook"));
        assert_eq!(Patch::parse(&json!({"embedder": null})).unwrap().embedder(), Some(None));
    }
}
