//! One primary per index: an advisory lock in the data dir decides who indexes.
//!
//! The process that holds the lock on `<data dir>/primary.lock` is the primary: it syncs,
//! watches, and answers sync requests from the others on a Unix socket beside it
//! (`primary.sock`). Every other process on the same index is a reader: it searches the same
//! LanceDB table (which sees the primary's commits at once) and forwards its syncs to the primary,
//! so two processes never index the same files twice. A reader keeps a thread blocked on the lock;
//! the kernel releases it the moment the primary exits, however it exits, and that reader takes
//! over at once, binding the socket afresh (the dead primary's socket file is removed by the one
//! process that now holds the lock, so two readers never both become primary). Where the file
//! system has no locks, the socket alone decides, as before: a reader then takes over on a timer
//! or when a forwarded sync finds nobody answering. Protocol: one JSON line
//! `{"op":"sync","full":bool}`, answered by `{"ok":true,"result":SyncReport,"stages":Stages}` or
//! `{"ok":false,"error":"..."}`, then the connection closes. `{"op":"changes"}` is answered by
//! `{"ok":true}` and then, for as long as both live, one line per sync that changed documents (its
//! [`SyncChanges`]), which the reader relays to its own listeners (MCP notifications); a primary
//! from before 2026-12-05 answers it `unknown op`. The stages travel beside the report,
//! which leaves them out of its JSON (the tools' output); a reply without them (a primary from
//! before 2026-12-02) reads as zero stages.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use super::changes::SyncChanges;
use super::sync::{Indexer, SyncReport};

/// Why a sync forwarded to the primary gave no report.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    /// Nobody listens on the primary's socket.
    #[error("the primary is gone: {0}")]
    Gone(#[source] std::io::Error),
    /// The exchange broke off.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The answer is not JSON.
    #[error("the primary answered badly: {0}")]
    BadAnswer(#[source] serde_json::Error),
    /// The answer's report is not a sync report.
    #[error(transparent)]
    BadReport(#[from] serde_json::Error),
    /// The primary's sync failed; its message, as the primary words it.
    #[error("{0}")]
    Failed(String),
    /// No answer within [`REQUEST_TIMEOUT`].
    #[error("the primary did not answer within 30 minutes")]
    Timeout,
    /// This platform has no Unix sockets to forward over.
    #[error("readers need Unix sockets")]
    Unsupported,
}

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

/// The primary's hold on an index: the locked `primary.lock`. Dropping it (or the process ending)
/// lets a reader take over.
#[derive(Debug)]
pub struct PrimaryLock(#[allow(dead_code)] File);

/// What [`claim`] found.
#[derive(Debug)]
pub enum Claim {
    /// This process is the primary: it holds the lock (`None` where locks are not supported) and
    /// the socket.
    Primary(Listener, Option<PrimaryLock>),
    /// Another process is: wait on this lock file to take over ([`wait_for_lock`]), or, `None`
    /// where locks are not supported, retry [`claim`] now and then.
    Reader(Option<File>),
}

/// Tries to become the primary of the index in `data_dir`, whose socket is `socket`.
pub async fn claim(data_dir: &Path, socket: &Path) -> std::io::Result<Claim> {
    let file = open_lock(data_dir)?;
    match file.try_lock() {
        Ok(()) => Ok(Claim::Primary(bind_fresh(socket)?, Some(PrimaryLock(file)))),
        Err(TryLockError::WouldBlock) => Ok(Claim::Reader(Some(file))),
        Err(TryLockError::Error(err)) => {
            tracing::warn!(dir = %data_dir.display(), %err, "cannot lock the index; the socket alone decides who indexes");
            Ok(match claim_socket(socket).await? {
                Some(listener) => Claim::Primary(listener, None),
                None => Claim::Reader(None),
            })
        }
    }
}

/// Tries to become the primary by the socket alone (for file systems without locks): `Some` when
/// this process now holds it.
pub async fn claim_socket(socket: &Path) -> std::io::Result<Option<Listener>> {
    unix::claim(socket).await
}

/// Waits, on a thread of its own, for the lock on `file` to be free, and sends it once this process
/// holds it. A plain thread rather than a blocking task, so a runtime shutting down never waits on
/// it; if nobody listens any more when the lock comes, it is dropped again at once.
pub fn wait_for_lock(file: File) -> oneshot::Receiver<PrimaryLock> {
    let (tx, rx) = oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("ragdown-takeover".into())
        .spawn(move || match file.lock() {
            Ok(()) => {
                let _ = tx.send(PrimaryLock(file));
            }
            Err(err) => tracing::warn!(%err, "cannot wait for the primary's lock"),
        });
    if let Err(err) = spawned {
        tracing::warn!(%err, "cannot start the thread that waits to take over");
    }
    rx
}

/// Binds the socket as the lock's new holder: a socket file left there is a dead primary's.
pub fn bind_fresh(socket: &Path) -> std::io::Result<Listener> {
    match std::fs::remove_file(socket) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
        _ => {}
    }
    unix::bind(socket)
}

fn open_lock(data_dir: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(data_dir.join("primary.lock"))
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

    /// Binds the socket, readable by this user only.
    pub fn bind(path: &Path) -> std::io::Result<Listener> {
        let listener = UnixListener::bind(path)?;
        restrict(path)?;
        Ok(listener)
    }

    /// Tries to become the primary by the socket alone: `Some` when this process now holds it.
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

    /// Answers sync requests from readers, and streams its syncs' changes to the readers that
    /// follow them, until the task is aborted.
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
                    let request = serde_json::from_str::<Request>(&line);
                    if request.as_ref().is_ok_and(|r| r.op == "changes") {
                        return stream_changes(&indexer, &mut write).await;
                    }
                    let reply = match request {
                        Ok(request) if request.op == "sync" => match indexer.sync(request.full).await {
                            Ok(report) => json!({ "ok": true, "result": report, "stages": report.stages }),
                            Err(error) => json!({ "ok": false, "error": error.to_string() }),
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

    /// Writes each sync's changes to a following reader, one JSON line each, until the reader
    /// goes or the indexer is retired. Like any listener, one that falls more than the channel
    /// keeps behind loses the oldest (the reader's own listeners then hear of the later ones).
    async fn stream_changes(indexer: &Indexer, write: &mut tokio::net::unix::OwnedWriteHalf) {
        use tokio::sync::broadcast::error::RecvError;
        let mut listener = indexer.changes();
        if write.write_all(b"{\"ok\":true}\n").await.is_err() {
            return;
        }
        loop {
            let changes = match listener.recv().await {
                Ok(changes) => changes,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            let Ok(line) = serde_json::to_string(&*changes) else {
                continue;
            };
            if write.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                return;
            }
        }
    }

    /// Follows the primary's syncs: relays each one's changes to this process's listeners until
    /// the primary goes (`Ok`) or refuses (an older primary: `Failed`).
    pub async fn follow_changes(path: &Path, indexer: &Indexer) -> Result<(), ForwardError> {
        let stream = UnixStream::connect(path).await.map_err(ForwardError::Gone)?;
        let (read, mut write) = stream.into_split();
        write.write_all(b"{\"op\":\"changes\"}\n").await?;
        let mut lines = BufReader::new(read).lines();
        let first = lines.next_line().await?.unwrap_or_default();
        let ack: serde_json::Value = serde_json::from_str(&first).map_err(ForwardError::BadAnswer)?;
        if ack["ok"] != true {
            let why = ack["error"]
                .as_str()
                .unwrap_or("the primary does not stream its changes");
            return Err(ForwardError::Failed(why.to_string()));
        }
        while let Some(line) = lines.next_line().await? {
            match serde_json::from_str::<SyncChanges>(&line) {
                Ok(changes) => indexer.relay(changes),
                Err(err) => tracing::warn!(%err, "the primary sent changes this process cannot read"),
            }
        }
        Ok(())
    }

    /// Asks the primary to sync and returns its report.
    pub async fn forward_sync(path: &Path, full: bool) -> Result<SyncReport, ForwardError> {
        let exchange = async {
            let mut stream = UnixStream::connect(path).await.map_err(ForwardError::Gone)?;
            let request = json!({ "op": "sync", "full": full }).to_string() + "\n";
            stream.write_all(request.as_bytes()).await?;
            let mut line = String::new();
            BufReader::new(stream).read_line(&mut line).await?;
            let reply: serde_json::Value = serde_json::from_str(&line).map_err(ForwardError::BadAnswer)?;
            if reply["ok"] == true {
                let mut report: SyncReport = serde_json::from_value(reply["result"].clone())?;
                if let Some(stages) = reply.get("stages") {
                    report.stages = serde_json::from_value(stages.clone())?;
                }
                Ok(report)
            } else {
                Err(ForwardError::Failed(
                    reply["error"]
                        .as_str()
                        .unwrap_or("the primary's sync failed")
                        .to_string(),
                ))
            }
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .map_err(|_| ForwardError::Timeout)?
    }
}

#[cfg(unix)]
pub use unix::{Listener, follow_changes, forward_sync, serve};

/// Without Unix sockets every process is a primary.
#[cfg(not(unix))]
mod unix {
    use super::*;

    pub type Listener = ();

    pub fn bind(_path: &Path) -> std::io::Result<Listener> {
        Ok(())
    }

    pub async fn claim(_path: &Path) -> std::io::Result<Option<Listener>> {
        Ok(Some(()))
    }

    pub fn serve(_listener: Listener, _indexer: Indexer) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async {})
    }

    pub async fn forward_sync(_path: &Path, _full: bool) -> Result<SyncReport, ForwardError> {
        Err(ForwardError::Unsupported)
    }

    pub async fn follow_changes(_path: &Path, _indexer: &Indexer) -> Result<(), ForwardError> {
        Err(ForwardError::Unsupported)
    }
}

#[cfg(not(unix))]
pub use unix::{Listener, follow_changes, forward_sync, serve};

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

    #[tokio::test]
    async fn one_primary_and_the_reader_takes_over_the_moment_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("primary.sock");
        let Claim::Primary(listener, Some(lock)) = claim(dir.path(), &socket).await.unwrap() else {
            panic!("the first claim makes a primary with the lock");
        };
        let Claim::Reader(Some(file)) = claim(dir.path(), &socket).await.unwrap() else {
            panic!("a second claim makes a reader");
        };
        let mut waiting = wait_for_lock(file);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(waiting.try_recv().is_err(), "no takeover while the primary lives");
        drop((listener, lock));
        let lock = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the takeover comes at once")
            .unwrap();
        // The new holder binds over the dead primary's socket file.
        assert!(socket.exists());
        let _listener = bind_fresh(&socket).unwrap();
        assert!(matches!(
            claim(dir.path(), &socket).await.unwrap(),
            Claim::Reader(Some(_))
        ));
        drop(lock);
    }
}
