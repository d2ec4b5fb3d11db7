//! Finding and loading the ONNX Runtime shared library.
//!
//! The build never downloads ONNX Runtime (`ort` with `load-dynamic`): the library is found at run
//! time, in this order: an explicit path (`ORT_DYLIB_PATH` or `RAGDOWN_ORT_LIB`, passed in by the
//! caller's config), the cache that `scripts/install-ort.sh` fills
//! (`<cache>/onnxruntime/<version>/lib/`), then the system's library directories. ONNX Runtime
//! allows one environment per process, so the first successful load is kept for the process's
//! life and later calls reuse it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::EmbedError;

/// Where to look for the library.
#[derive(Debug, Clone, Default)]
pub struct RuntimeOptions {
    /// A path the user set explicitly; when set, nothing else is tried.
    pub explicit: Option<PathBuf>,
    /// The ragdown cache directory (`~/.cache/ragdown`), holding `onnxruntime/<version>/lib/`.
    pub cache_dir: Option<PathBuf>,
}

/// The ragdown cache directory: `RAGDOWN_CACHE` when set, else `$XDG_CACHE_HOME/ragdown`, else
/// `~/.cache/ragdown`. Callers pass the variables in; this crate never reads the environment.
pub fn default_cache_dir(
    ragdown_cache: Option<PathBuf>,
    xdg_cache_home: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    ragdown_cache
        .or_else(|| xdg_cache_home.map(|x| x.join("ragdown")))
        .or_else(|| home.map(|h| h.join(".cache/ragdown")))
}

/// The library file name on this platform.
#[cfg(target_os = "macos")]
const LIB_STEM: &str = "libonnxruntime";
#[cfg(target_os = "macos")]
const LIB_EXT: &str = "dylib";
#[cfg(target_os = "windows")]
const LIB_STEM: &str = "onnxruntime";
#[cfg(target_os = "windows")]
const LIB_EXT: &str = "dll";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const LIB_STEM: &str = "libonnxruntime";
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
const LIB_EXT: &str = "so";

/// System directories searched last.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/local/lib",
    "/usr/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/opt/homebrew/lib",
];

struct Loaded {
    path: PathBuf,
    env: ort::environment::Environment,
}

static LOADED: OnceLock<Loaded> = OnceLock::new();
static LOADING: Mutex<()> = Mutex::new(());

/// Loads ONNX Runtime once per process and returns its environment, which sessions are built on.
pub fn ensure_loaded(options: &RuntimeOptions) -> Result<&'static ort::environment::Environment, EmbedError> {
    if let Some(loaded) = LOADED.get() {
        return Ok(&loaded.env);
    }
    let _guard = LOADING.lock();
    if let Some(loaded) = LOADED.get() {
        return Ok(&loaded.env);
    }
    let (path, env) = search(options)?;
    tracing::info!(library = %path.display(), "loaded ONNX Runtime");
    Ok(&LOADED.get_or_init(|| Loaded { path, env }).env)
}

/// Tries each candidate in order and loads the first that works.
fn search(options: &RuntimeOptions) -> Result<(PathBuf, ort::environment::Environment), EmbedError> {
    let mut tried = Vec::new();
    for path in candidates(options) {
        if !path.is_file() {
            tried.push(format!("{} (not found)", path.display()));
            continue;
        }
        match load(&path) {
            Ok(env) => return Ok((path, env)),
            Err(reason) => tried.push(format!("{} ({reason})", path.display())),
        }
        if options.explicit.is_some() {
            break;
        }
    }
    Err(EmbedError::Runtime(format!(
        "cannot load the ONNX Runtime library. Tried:\n  {}\nFix: run scripts/install-ort.sh (it installs PyPI's onnxruntime library into the ragdown cache), \
         or set ORT_DYLIB_PATH to the full path of {LIB_STEM}.{LIB_EXT}* (version 1.22 or newer)",
        tried.join("\n  ")
    )))
}

/// The path of the loaded library, if one was loaded.
pub fn loaded_path() -> Option<&'static Path> {
    LOADED.get().map(|loaded| loaded.path.as_path())
}

/// Why one candidate library did not load.
#[derive(Debug, thiserror::Error)]
enum LoadError {
    /// The file is not an ONNX Runtime library this build can use (or not a library at all).
    #[error(transparent)]
    Library(#[from] ort::LoadDynamicError),
    /// The library loaded but refused to make an environment.
    #[error(transparent)]
    Environment(#[from] ort::Error),
}

fn load(path: &Path) -> Result<ort::environment::Environment, LoadError> {
    let builder = ort::init_from(path)?;
    Ok(builder.with_name("ragdown").build()?)
}

/// Every place to try, in order. An explicit path is the only candidate when set.
fn candidates(options: &RuntimeOptions) -> Vec<PathBuf> {
    if let Some(explicit) = &options.explicit {
        return vec![explicit.clone()];
    }
    let mut out = Vec::new();
    if let Some(cache) = &options.cache_dir {
        // Newest installed version first: directory names are versions.
        let root = cache.join("onnxruntime");
        let mut versions: Vec<PathBuf> = std::fs::read_dir(&root)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        versions.sort_by_key(|dir| std::cmp::Reverse(version_key(dir)));
        if versions.is_empty() {
            out.push(root.join("<version>/lib").join(format!("{LIB_STEM}.{LIB_EXT}")));
        }
        for dir in versions {
            out.extend(library_files(&dir.join("lib")));
        }
    }
    for dir in SYSTEM_DIRS {
        let found = library_files(Path::new(dir));
        if found.is_empty() {
            out.push(Path::new(dir).join(format!("{LIB_STEM}.{LIB_EXT}")));
        }
        out.extend(found);
    }
    out
}

/// Library files in a directory: the unversioned name first, then versioned ones (the PyPI wheel
/// ships only `libonnxruntime.so.1.xx.y`, and `ort` needs the full file name).
fn library_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let exact = format!("{LIB_STEM}.{LIB_EXT}");
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n == exact
                    || (n.starts_with(&exact) && n[exact.len()..].starts_with('.'))
                    || (cfg!(target_os = "macos") && n.starts_with(LIB_STEM) && n.ends_with(LIB_EXT))
            })
        })
        .collect();
    files.sort_by_key(|p| (p.file_name().map(|n| n.len()).unwrap_or(0), p.clone()));
    files
}

fn version_key(path: &Path) -> Vec<u64> {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.split('.').map(|part| part.parse().unwrap_or(0)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_dir_prefers_ragdown_cache_then_xdg_then_home() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(default_cache_dir(p("/r"), p("/x"), p("/h")), p("/r"));
        assert_eq!(default_cache_dir(None, p("/x"), p("/h")), p("/x/ragdown"));
        assert_eq!(default_cache_dir(None, None, p("/h")), p("/h/.cache/ragdown"));
        assert_eq!(default_cache_dir(None, None, None), None);
    }

    #[test]
    fn explicit_path_is_the_only_candidate() {
        let options = RuntimeOptions {
            explicit: Some(PathBuf::from("/x/libonnxruntime.so.1.2.3")),
            cache_dir: Some(PathBuf::from("/cache")),
        };
        assert_eq!(candidates(&options), vec![PathBuf::from("/x/libonnxruntime.so.1.2.3")]);
    }

    #[test]
    fn cache_versions_are_tried_newest_first_with_versioned_names() {
        let dir = tempfile::tempdir().unwrap();
        for version in ["1.22.0", "1.32.0", "1.4.0"] {
            let lib = dir.path().join("onnxruntime").join(version).join("lib");
            std::fs::create_dir_all(&lib).unwrap();
            std::fs::write(lib.join(format!("{LIB_STEM}.{LIB_EXT}.{version}")), b"").unwrap();
            std::fs::write(lib.join("unrelated.txt"), b"").unwrap();
        }
        let options = RuntimeOptions {
            explicit: None,
            cache_dir: Some(dir.path().to_path_buf()),
        };
        let found = candidates(&options);
        let names: Vec<String> = found
            .iter()
            .take(3)
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                format!("{LIB_STEM}.{LIB_EXT}.1.32.0"),
                format!("{LIB_STEM}.{LIB_EXT}.1.22.0"),
                format!("{LIB_STEM}.{LIB_EXT}.1.4.0")
            ]
        );
    }

    #[test]
    fn a_missing_library_names_every_place_tried_and_the_fix() {
        let options = RuntimeOptions {
            explicit: Some(PathBuf::from("/definitely/not/here/libonnxruntime.so")),
            cache_dir: None,
        };
        let err = search(&options).err().unwrap().to_string();
        assert!(
            err.contains("/definitely/not/here/libonnxruntime.so (not found)"),
            "{err}"
        );
        assert!(err.contains("ORT_DYLIB_PATH"), "{err}");
        assert!(err.contains("install-ort.sh"), "{err}");
    }
}
