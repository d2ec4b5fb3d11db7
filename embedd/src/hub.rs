//! Downloading model files from the Hugging Face hub into the model cache.
//!
//! Files are fetched from `<endpoint>/<repo>/resolve/main/<file>`, the hub's public layout, so a
//! mirror or a local stand-in works by changing the endpoint. A download lands in a temporary
//! directory beside the target and is renamed into place only when every file is complete: an
//! interrupted download never leaves a half model that a later start would trust.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::registry::ModelSpec;

/// The public hub.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// The ONNX weights' file name inside a model directory.
pub const ONNX_FILE: &str = "model.onnx";
/// The tokenizer's file name inside a model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// Why a download failed. Each message names the path or URL it failed on.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// The destination is a root, with no directory to download beside.
    #[error("{} has no parent directory", .0.display())]
    NoParent(PathBuf),
    /// The destination's parent directory could not be made.
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The staging directory beside the destination could not be made.
    #[error("cannot create a temporary directory in {}: {source}", dir.display())]
    Staging {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The hub did not answer a file's URL with the file (a 404 included).
    #[error("{url}: {source}")]
    Request {
        url: String,
        #[source]
        source: ureq::Error,
    },
    /// A file's bytes stopped coming (or could not be written on their way).
    #[error("{url}: {source}")]
    Transfer {
        url: String,
        #[source]
        source: std::io::Error,
    },
    /// A downloaded file could not be created or synced to disk.
    #[error("{}: {source}", path.display())]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The complete download could not be renamed into place.
    #[error("cannot move the download into {}: {source}", dest.display())]
    Rename {
        dest: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Fetches `spec`'s files from `endpoint` into `dest` (created; must not exist yet).
pub fn download(endpoint: &str, spec: &ModelSpec, dest: &Path) -> Result<(), DownloadError> {
    let parent = dest
        .parent()
        .ok_or_else(|| DownloadError::NoParent(dest.to_path_buf()))?;
    std::fs::create_dir_all(parent).map_err(|source| DownloadError::CreateDir {
        dir: parent.to_path_buf(),
        source,
    })?;
    let staging = tempfile::Builder::new()
        .prefix(".download-")
        .tempdir_in(parent)
        .map_err(|source| DownloadError::Staging {
            dir: parent.to_path_buf(),
            source,
        })?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_global(Some(Duration::from_secs(30 * 60)))
        .build()
        .into();
    let endpoint = endpoint.trim_end_matches('/');
    for (remote, local) in [(spec.hf_onnx_file, ONNX_FILE), ("tokenizer.json", TOKENIZER_FILE)] {
        let url = format!("{endpoint}/{}/resolve/main/{remote}", spec.hf_repo);
        tracing::info!(%url, "downloading");
        fetch(&agent, &url, &staging.path().join(local))?;
    }
    std::fs::rename(staging.path(), dest).map_err(|source| DownloadError::Rename {
        dest: dest.to_path_buf(),
        source,
    })?;
    // The directory was renamed away: keep TempDir from trying to delete it.
    let _ = staging.keep();
    Ok(())
}

fn fetch(agent: &ureq::Agent, url: &str, to: &Path) -> Result<(), DownloadError> {
    let file_failed = |source| DownloadError::File {
        path: to.to_path_buf(),
        source,
    };
    let mut response = agent.get(url).call().map_err(|source| DownloadError::Request {
        url: url.into(),
        source,
    })?;
    let mut reader = response.body_mut().with_config().limit(4 << 30).reader();
    let mut file = std::fs::File::create(to).map_err(file_failed)?;
    std::io::copy(&mut reader, &mut file).map_err(|source| DownloadError::Transfer {
        url: url.into(),
        source,
    })?;
    file.flush().and_then(|()| file.sync_all()).map_err(file_failed)?;
    Ok(())
}
