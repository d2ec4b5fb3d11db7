//! The hook's settings and how they layer: call argument > the folder's `.ragdown.json` `hook` >
//! the server settings saved from the web UI (`.ragdown-server.json`) > `RAGDOWN_HOOK_*` > the
//! defaults, and for `min_score` last of all the embedder's own floor (docs/configuration.md).
//!
//! Files are data someone edits by hand: a value of the wrong type or out of range is ignored with
//! a warning, never an error for the hook that reads it. A call's own out-of-range argument is an
//! error, since the caller can fix it.

use serde_json::Value;

/// The server's `ragdown_context` defaults (`RAGDOWN_HOOK_*`, validated by the config).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HookDefaults {
    /// Most chunks per prompt (`RAGDOWN_HOOK_TOP_K`).
    pub top_k: usize,
    /// Lowest cosine similarity (`RAGDOWN_HOOK_MIN_SCORE`); `None` follows the embedder in use.
    pub min_score: Option<f32>,
    /// Lowest share of the best hit's similarity (`RAGDOWN_HOOK_MIN_RATIO`); 0 turns it off;
    /// `None` follows the embedder in use (0.95 unless it measured its own).
    pub min_ratio: Option<f32>,
    /// Most characters of excerpts per prompt (`RAGDOWN_HOOK_MAX_CHARS`); the first always goes in.
    pub max_chars: usize,
}

/// Most hits a search returns, and most chunks the hook injects.
pub const MAX_TOP_K: usize = 50;

/// `RAGDOWN_HOOK_TOP_K` unset.
pub const DEFAULT_TOP_K: usize = 4;
/// `RAGDOWN_HOOK_MAX_CHARS` unset.
pub const DEFAULT_MAX_CHARS: usize = 6000;

impl Default for HookDefaults {
    fn default() -> Self {
        Self {
            top_k: DEFAULT_TOP_K,
            min_score: None,
            min_ratio: None,
            max_chars: DEFAULT_MAX_CHARS,
        }
    }
}

/// One layer's own values; what it leaves out falls through to the next layer.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HookOverrides {
    pub top_k: Option<usize>,
    pub min_score: Option<f32>,
    pub min_ratio: Option<f32>,
    pub max_chars: Option<usize>,
}

impl HookOverrides {
    /// Reads a `hook` object from a settings file (`where_` names the file in warnings). Keys it
    /// does not know, values of the wrong type and values out of range are left out.
    pub fn from_json(value: Option<&Value>, where_: &str) -> Self {
        let Some(object) = value.and_then(Value::as_object) else {
            if value.is_some_and(|v| !v.is_null()) {
                tracing::warn!("ignoring {where_}: hook is not an object");
            }
            return Self::default();
        };
        let int = |key: &str, min: u64, max: u64| -> Option<usize> {
            let raw = object.get(key).filter(|v| !v.is_null())?;
            match raw.as_u64().filter(|n| (min..=max).contains(n)) {
                Some(n) => Some(n as usize),
                None => {
                    tracing::warn!(
                        "ignoring {where_}: hook.{key} must be a whole number from {min} to {max}, not {raw}"
                    );
                    None
                }
            }
        };
        let unit = |key: &str| -> Option<f32> {
            let raw = object.get(key).filter(|v| !v.is_null())?;
            match raw.as_f64().filter(|n| (0.0..=1.0).contains(n)) {
                Some(n) => Some(n as f32),
                None => {
                    tracing::warn!("ignoring {where_}: hook.{key} must be a number from 0 to 1, not {raw}");
                    None
                }
            }
        };
        Self {
            top_k: int("top_k", 1, MAX_TOP_K as u64),
            min_score: unit("min_score"),
            min_ratio: unit("min_ratio"),
            max_chars: int("max_chars", 1, u64::MAX),
        }
    }
}

/// Whether a `min_score` of `floor` is at or under `unrelated`, the similarity prompts unrelated
/// to every document reach with the embedder in use: such a floor lets the hook inject documents
/// into prompts they have nothing to do with.
pub fn floor_too_low(floor: f32, unrelated: f32) -> bool {
    floor <= unrelated
}

/// Warns about a floor [`floor_too_low`] says lets unrelated prompts through: `source` says where
/// it was set, `embedder` names the embedder it was measured against.
pub fn warn_floor_too_low(floor: f32, unrelated: f32, source: &str, embedder: &str) {
    tracing::warn!(
        "hook.min_score {floor} ({source}) is at or under what unrelated prompts reach with {embedder} ({unrelated}): \
         ragdown_context will inject documents into prompts they have nothing to do with"
    );
}

/// The settings one call runs with, after layering.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gates {
    /// Most chunks in the block.
    pub top_k: usize,
    /// Lowest cosine similarity a chunk may have, unless a name or alias injects it.
    pub min_score: f32,
    /// Lowest share of the best hit's similarity; 0 turns the gate off.
    pub min_ratio: f32,
    /// Most characters of excerpts; the first always goes in.
    pub max_chars: usize,
}

/// The layers of one call, most specific first.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layers {
    /// The call's own arguments (already validated).
    pub call: HookOverrides,
    /// The folder's `.ragdown.json` `hook`.
    pub folder: HookOverrides,
    /// The saved server settings' `hook` (serve only).
    pub saved: HookOverrides,
}

impl Layers {
    /// Call > folder > saved > env (or its default) > the embedder's own `min_score` and
    /// `min_ratio`.
    pub fn resolve(&self, env: &HookDefaults, embedder_min_score: f32, embedder_min_ratio: f32) -> Gates {
        let [call, folder, saved] = [self.call, self.folder, self.saved];
        Gates {
            top_k: call.top_k.or(folder.top_k).or(saved.top_k).unwrap_or(env.top_k),
            min_score: call
                .min_score
                .or(folder.min_score)
                .or(saved.min_score)
                .or(env.min_score)
                .unwrap_or(embedder_min_score),
            min_ratio: call
                .min_ratio
                .or(folder.min_ratio)
                .or(saved.min_ratio)
                .or(env.min_ratio)
                .unwrap_or(embedder_min_ratio),
            max_chars: call
                .max_chars
                .or(folder.max_chars)
                .or(saved.max_chars)
                .unwrap_or(env.max_chars),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_layer_wins_over_the_ones_below_it_per_setting() {
        let env = HookDefaults {
            top_k: 5,
            min_score: None,
            min_ratio: None,
            max_chars: 1000,
        };
        // With nothing set, both gates follow the embedder.
        assert_eq!(
            (
                Layers::default().resolve(&env, 0.4, 0.76).min_score,
                Layers::default().resolve(&env, 0.4, 0.76).min_ratio
            ),
            (0.4, 0.76)
        );
        let env = HookDefaults {
            min_ratio: Some(0.9),
            ..env
        };
        let mut layers = Layers::default();
        assert_eq!(
            layers.resolve(&env, 0.8, 0.95),
            Gates {
                top_k: 5,
                min_score: 0.8,
                min_ratio: 0.9,
                max_chars: 1000
            }
        );
        let env_floor = HookDefaults {
            min_score: Some(0.5),
            ..env
        };
        assert_eq!(layers.resolve(&env_floor, 0.8, 0.95).min_score, 0.5);
        layers.saved = HookOverrides {
            top_k: Some(3),
            min_score: Some(0.6),
            ..Default::default()
        };
        layers.folder = HookOverrides {
            top_k: Some(2),
            min_ratio: Some(0.5),
            ..Default::default()
        };
        layers.call = HookOverrides {
            max_chars: Some(10),
            ..Default::default()
        };
        assert_eq!(
            layers.resolve(&env_floor, 0.8, 0.95),
            Gates {
                top_k: 2,
                min_score: 0.6,
                min_ratio: 0.5,
                max_chars: 10
            }
        );
        layers.call.top_k = Some(7);
        assert_eq!(layers.resolve(&env_floor, 0.8, 0.95).top_k, 7);
    }

    #[test]
    fn settings_files_give_only_their_valid_values() {
        let hook = json!({"top_k": 6, "min_score": 0.75, "min_ratio": null, "max_chars": 0, "extra": 1});
        assert_eq!(
            HookOverrides::from_json(Some(&hook), "test"),
            HookOverrides {
                top_k: Some(6),
                min_score: Some(0.75),
                min_ratio: None,
                max_chars: None
            }
        );
        let bad = json!({"top_k": 51, "min_score": 2, "min_ratio": "0.5", "max_chars": 3000});
        assert_eq!(
            HookOverrides::from_json(Some(&bad), "test"),
            HookOverrides {
                max_chars: Some(3000),
                ..Default::default()
            }
        );
        assert_eq!(
            HookOverrides::from_json(Some(&json!(7)), "test"),
            HookOverrides::default()
        );
        assert_eq!(HookOverrides::from_json(None, "test"), HookOverrides::default());
    }
}
