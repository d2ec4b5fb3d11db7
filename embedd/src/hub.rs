//! Downloading model files from the Hugging Face hub into the model cache.
//!
//! Files are fetched from `<endpoint>/<repo>/resolve/main/<file>`, the hub's public layout, so a
//! mirror or a local stand-in works by changing the endpoint. A download lands in a temporary
//! directory beside the target and is renamed into place only when every file is complete: an
//! interrupted download never leaves a half model that a later start would trust.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use crate::registry::ModelSpec;

/// The public hub.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// The ONNX weights' file name inside a model directory.
pub const ONNX_FILE: &str = "model.onnx";
/// The tokenizer's file name inside a model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// Fetches `spec`'s files from `endpoint` into `dest` (created; must not exist yet).
pub fn download(endpoint: &str, spec: &ModelSpec, dest: &Path) -> Result<(), String> {
    let parent = dest
        .parent()
        .ok_or_else(|| format!("{} has no parent directory", dest.display()))?;
    std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".download-")
        .tempdir_in(parent)
        .map_err(|e| format!("cannot create a temporary directory in {}: {e}", parent.display()))?;
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
    std::fs::rename(staging.path(), dest)
        .map_err(|e| format!("cannot move the download into {}: {e}", dest.display()))?;
    // The directory was renamed away: keep TempDir from trying to delete it.
    let _ = staging.keep();
    Ok(())
}

fn fetch(agent: &ureq::Agent, url: &str, to: &Path) -> Result<(), String> {
    let mut response = agent.get(url).call().map_err(|e| format!("{url}: {e}"))?;
    let mut reader = response.body_mut().with_config().limit(4 << 30).reader();
    let mut file = std::fs::File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    std::io::copy(&mut reader, &mut file).map_err(|e| format!("{url}: {e}"))?;
    file.flush()
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("{}: {e}", to.display()))?;
    Ok(())
}
