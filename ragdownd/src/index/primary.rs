//! One primary per index: a Unix socket in the data dir decides who indexes.
//!
//! The first process to bind `<data dir>/primary.sock` is the primary: it syncs, watches, and
//! answers sync requests from the others. Every other process on the same index is a reader: it
//! searches the same LanceDB table (which sees the primary's commits at once) and forwards its syncs
//! to the primary, so two processes never index the same files twice. A socket whose owner died is
//! stale: the next process removes it and takes over. Protocol: one JSON line
//! `{"op":"sync","full":bool}`, answered by `{"ok":true,"result":SyncReport}` or
//! `{"ok":false,"error":"..."}`, then the connection closes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::sync::{Indexer, SyncReport};

/// How long a forwarded sync may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Unix socket paths longer than this do not fit `sockaddr_un` everywhere.
const MAX_SOCKET_PATH: usize = 100;

/// The lock socket's path for a data dir: in the data dir, or under the temp dir when too long.
pub fn socket_path(data_dir: &Path, temp_dir: &Path) -> PathBuf {
    let path = data_dir.join("primary.sock");
    if path.as_os_str().len() <= MAX_SOCKET_PATH {
        return path;
    }
    let digest = hex::encode(Sha256::digest(data_dir.to_string_lossy().as_bytes()));
    temp_dir.join(format!("ragdown-{}.sock", &digest[..16]))
}

#[derive(Debug, Deserialize)]
struct Request {
    op: String,
    #[serde(default)]
    full: bool,
}

#[cfg(unix)]
mod unix {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use tokio::net::{UnixListener, UnixStream};

    /// The primary's end of the socket.
    pub type Listener = UnixListener;

    /// Tries to become the primary: `Some` when this process now holds the socket.
    pub async fn claim(path: &Path) -> std::io::Result<Option<Listener>> {
        match UnixListener::bind(path) {
            Ok(listener) => return restrict(path).map(|()| Some(listener)),
            Err(err) if err.kind() != std::io::ErrorKind::AddrInUse => return Err(err),
            Err(_) => {}
        }
        if UnixStream::connect(path).await.is_ok() {
            return Ok(None);
        }
        // Nobody answers: the primary died. Take its place (losing this race makes us a reader).
        let _ = std::fs::remove_file(path);
        match UnixListener::bind(path) {
            Ok(listener) => restrict(path).map(|()| Some(listener)),
            Err(err) if err.kind() == std::io::ErrorKind::AddrInUse => Ok(None),
            Err(err) => Err(err),
        }
    }

    fn restrict(path: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
    }

    /// Answers sync requests from readers until the task is aborted.
    pub fn serve(listener: Listener, indexer: Indexer) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let indexer = indexer.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut line = String::new();
                    if BufReader::new(read).read_line(&mut line).await.is_err() {
                        return;
                    }
                    let reply = match serde_json::from_str::<Request>(&line) {
                        Ok(request) if request.op == "sync" => match indexer.sync(request.full).await {
                            Ok(report) => json!({ "ok": true, "result": report }),
                            Err(error) => json!({ "ok": false, "error": error }),
                        },
                        Ok(request) => json!({ "ok": false, "error": format!("unknown op: {}", request.op) }),
                        Err(err) => json!({ "ok": false, "error": format!("bad request: {err}") }),
                    };
                    let _ = write.write_all(format!("{reply}\n").as_bytes()).await;
                    let _ = write.shutdown().await;
                });
            }
        })
    }

    /// Asks the primary to sync and returns its report.
    pub async fn forward_sync(path: &Path, full: bool) -> Result<SyncReport, String> {
        let exchange = async {
            let mut stream = UnixStream::connect(path)
                .await
                .map_err(|e| format!("the primary is gone: {e}"))?;
            let request = json!({ "op": "sync", "full": full }).to_string() + "\n";
            stream.write_all(request.as_bytes()).await.map_err(|e| e.to_string())?;
            let mut line = String::new();
            BufReader::new(stream)
                .read_line(&mut line)
                .await
                .map_err(|e| e.to_string())?;
            let reply: serde_json::Value =
                serde_json::from_str(&line).map_err(|e| format!("the primary answered badly: {e}"))?;
            if reply["ok"] == true {
                serde_json::from_value(reply["result"].clone()).map_err(|e| e.to_string())
            } else {
                Err(reply["error"]
                    .as_str()
                    .unwrap_or("the primary's sync failed")
                    .to_string())
            }
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .map_err(|_| "the primary did not answer within 30 minutes".to_string())?
    }
}

#[cfg(unix)]
pub use unix::{Listener, claim, forward_sync, serve};

/// Without Unix sockets every process is a primary.
#[cfg(not(unix))]
pub type Listener = ();

#[cfg(not(unix))]
pub async fn claim(_path: &Path) -> std::io::Result<Option<Listener>> {
    Ok(Some(()))
}

#[cfg(not(unix))]
pub fn serve(_listener: Listener, _indexer: Indexer) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async {})
}

#[cfg(not(unix))]
pub async fn forward_sync(_path: &Path, _full: bool) -> Result<SyncReport, String> {
    Err("readers need Unix sockets".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_data_dirs_put_the_socket_in_the_temp_dir() {
        assert_eq!(
            socket_path(Path::new("/d"), Path::new("/tmp")),
            PathBuf::from("/d/primary.sock")
        );
        let long = PathBuf::from(format!("/{}", "x".repeat(120)));
        let path = socket_path(&long, Path::new("/tmp"));
        assert!(
            path.starts_with("/tmp") && path.to_string_lossy().ends_with(".sock"),
            "{path:?}"
        );
        assert_eq!(path, socket_path(&long, Path::new("/tmp")), "stable for one data dir");
    }
}
