//! Test support: temp docs/data dirs, the golden expectations, and an MCP client over a real
//! stdio child process.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use embedd::TextKind;
use futures::future::BoxFuture;
use ragdownd::embed::hash::HashEmbedder;
use ragdownd::embed::{EmbedError, Embedder};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The hash embedder, counting the document texts it embeds and the times a sync lets it rest;
/// with a heading weight, as multilingual-e5-small's registry entry has, when one is given.
#[derive(Debug, Default)]
pub struct CountingHash {
    documents: AtomicUsize,
    rests: AtomicUsize,
    heading_weight: Option<f32>,
}

impl CountingHash {
    /// One whose sections' vectors lean toward their breadcrumbs by `weight`.
    pub fn with_heading_weight(weight: f32) -> Self {
        Self {
            heading_weight: Some(weight),
            ..Self::default()
        }
    }

    /// Document texts embedded so far (queries are not counted).
    pub fn documents(&self) -> usize {
        self.documents.load(Ordering::SeqCst)
    }

    /// Times a sync let it rest.
    pub fn rests(&self) -> usize {
        self.rests.load(Ordering::SeqCst)
    }
}

impl Embedder for CountingHash {
    fn index_name(&self) -> &str {
        HashEmbedder.index_name()
    }
    fn fingerprint(&self) -> String {
        HashEmbedder.fingerprint()
    }
    fn dim(&self) -> usize {
        HashEmbedder.dim()
    }
    fn min_score(&self) -> f32 {
        HashEmbedder.min_score()
    }
    fn unrelated_score(&self) -> Option<f32> {
        None
    }
    fn heading_weight(&self) -> Option<f32> {
        self.heading_weight
    }
    fn embed<'a>(&'a self, texts: Vec<String>, kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        if kind == TextKind::Document {
            self.documents.fetch_add(texts.len(), Ordering::SeqCst);
        }
        HashEmbedder.embed(texts, kind)
    }
    fn rest(&self) {
        self.rests.fetch_add(1, Ordering::SeqCst);
    }
}

/// The ragdown cache (models, the ONNX Runtime library), found as ragdownd finds it.
pub fn cache_dir() -> PathBuf {
    embedd::runtime::default_cache_dir(
        std::env::var_os("RAGDOWN_CACHE").map(PathBuf::from),
        std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
    .expect("HOME is set")
}

/// A fixture from `tests/data`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("tests/data")
        .join(name)
}

/// The original's test expectations.
pub fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("expected.json")).unwrap()).unwrap()
}

/// Today's UTC day, as the tools print it.
pub fn today() -> String {
    ragdownd::index::sync::iso_now()[..10].to_string()
}

/// The 12-character hash in a `ragdown_read_doc` answer (`a.md:1-3 of 3 (hash 0123456789ab)`).
pub fn printed_hash(text: &str) -> &str {
    let at = text.find("(hash ").unwrap_or_else(|| panic!("no hash in {text}")) + 6;
    &text[at..at + 12]
}

/// Writes `files` (path, content) under a new temp dir.
pub fn docs(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        write(dir.path(), path, content);
    }
    dir
}

/// [`docs`] of owned paths and texts (a generated vault).
pub fn docs_of(files: &[(String, String)]) -> tempfile::TempDir {
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    docs(&borrowed)
}

/// `count` notes `<dir>/<i>.md`, each `# Note <i>` and `body <i>`.
pub fn numbered_notes(dir: &str, count: usize) -> Vec<(String, String)> {
    (0..count)
        .map(|i| (format!("{dir}/{i}.md"), format!("# Note {i}\n\nbody {i}")))
        .collect()
}

pub fn write(root: &Path, path: &str, content: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, content).unwrap();
}

/// The env the original's tests run under.
pub fn test_env(docs: &Path, data: &Path) -> Vec<(String, String)> {
    [
        ("RAGDOWN_DOCS_DIR", docs.to_str().unwrap()),
        ("RAGDOWN_DATA_DIR", data.to_str().unwrap()),
        ("RAGDOWN_EMBEDDER", "hash"),
        ("RAGDOWN_WATCH", "false"),
        ("RAGDOWN_HOOK_MIN_SCORE", "0.2"),
        ("RAGDOWN_HOOK_MIN_RATIO", "0"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// `ragdownd stdio` over `examples/vault` with the real minilm model, indexed, and its data dir
/// (which lives as long as the returned guard). Needs what `scripts/install-model.sh minilm`
/// installs.
pub async fn example_vault_with_minilm() -> (StdioClient, tempfile::TempDir) {
    let vault = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../examples/vault");
    let data = tempfile::tempdir().unwrap();
    let env: Vec<(String, String)> = [
        ("RAGDOWN_DOCS_DIR", vault.to_str().unwrap()),
        ("RAGDOWN_DATA_DIR", data.path().to_str().unwrap()),
        ("RAGDOWN_EMBEDDER", "minilm"),
        ("RAGDOWN_WATCH", "false"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let mut client = StdioClient::start(&env).await;
    client.ok("ragdown_reindex", json!({})).await;
    (client, data)
}

/// `ragdownd serve` on `docs` (hash embedder, no watcher, bearer `token`, data in `data`, plus
/// `extra` arguments) on a free local port: its base URL, and the sender that stops it.
pub async fn serve(
    docs: &Path,
    data: &Path,
    token: &str,
    extra: &[&str],
) -> (String, tokio::sync::oneshot::Sender<()>) {
    let mut args = vec![
        "ragdownd",
        "serve",
        "--docs",
        docs.to_str().unwrap(),
        "--data",
        data.to_str().unwrap(),
        "--embedder",
        "hash",
        "--watch",
        "false",
        "--token",
        token,
    ];
    args.extend_from_slice(extra);
    serve_args(&args, data).await
}

/// `ragdownd <args>` (a `serve` command line) on a free local port, with the ragdown cache (the
/// installed models and ONNX Runtime) as `xdg_cache` says: its base URL, and the sender that
/// stops it.
pub async fn serve_args(args: &[&str], xdg_cache: &Path) -> (String, tokio::sync::oneshot::Sender<()>) {
    let cli = <ragdownd::config::Cli as clap::Parser>::try_parse_from(args).unwrap();
    let config = ragdownd::config::Config::from_cli(cli, None, Some(xdg_cache.to_path_buf())).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(ragdownd::app::run_serve(config, listener, async move {
        let _ = stopped.await;
    }));
    (base, stop)
}

/// An MCP client speaking newline-delimited JSON-RPC to `ragdownd stdio`.
pub struct StdioClient {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    /// Responses read while waiting for another one.
    early: std::collections::HashMap<u64, Value>,
    /// Notifications read while waiting for a response, oldest first.
    notes: std::collections::VecDeque<Value>,
}

impl StdioClient {
    /// Starts `ragdownd stdio` with exactly `env` (plus PATH and HOME) and initializes a session.
    pub async fn start(env: &[(String, String)]) -> Self {
        let mut client = Self::start_stateless(env).await;
        let init = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "ragdown-tests", "version": "0"}
                }),
            )
            .await;
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    /// Starts `ragdownd stdio` as [`StdioClient::start`] does, without `initialize`: for the
    /// 2026-07-28 protocol, whose requests each carry their version in `_meta`.
    pub async fn start_stateless(env: &[(String, String)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ragdownd"));
        command
            .arg("stdio")
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for key in ["PATH", "HOME", "RAGDOWN_CACHE", "ORT_DYLIB_PATH", "RAGDOWN_MODELS"] {
            if let Some(value) = std::env::var_os(key)
                && !env.iter().any(|(k, _)| k == key)
            {
                command.env(key, value);
            }
        }
        let mut child = command.spawn().expect("spawn ragdownd");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            stdout,
            next_id: 1,
            early: Default::default(),
            notes: Default::default(),
        }
    }

    /// Writes one JSON-RPC message (a notification, say) to the server's stdin.
    pub async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Sends a request without waiting for its answer; returns its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Reads messages until the response to `id` arrives.
    pub async fn response(&mut self, id: u64) -> Value {
        if let Some(message) = self.early.remove(&id) {
            return message;
        }
        // A hang detector, not a speed test: the hostile-files test's first reindex (a 100 MB
        // nested list, 77,000 chunks, debug build) took 111-115 s with the rest of the suite and
        // other builds running on 2 cores, and 120 s failed it.
        let deadline = Duration::from_secs(300);
        loop {
            let line = tokio::time::timeout(deadline, self.stdout.next_line())
                .await
                .expect("no answer from ragdownd within the deadline")
                .unwrap()
                .expect("ragdownd closed stdout");
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            match message.get("id").and_then(Value::as_u64) {
                Some(got) if got == id => return message,
                Some(other) => {
                    self.early.insert(other, message);
                }
                None => self.notes.push_back(message),
            }
        }
    }

    /// The notifications read so far and not taken yet, then the next ones, up to and including
    /// the first whose method is `method`; panics if none comes within `within`.
    pub async fn notifications_until(&mut self, method: &str, within: Duration) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + within;
        let mut taken = Vec::new();
        loop {
            while let Some(note) = self.notes.pop_front() {
                let done = note["method"] == method;
                taken.push(note);
                if done {
                    return taken;
                }
            }
            let line = tokio::time::timeout_at(deadline, self.stdout.next_line())
                .await
                .unwrap_or_else(|_| panic!("no {method} within {within:?}; got {taken:?}"))
                .unwrap()
                .expect("ragdownd closed stdout");
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            match message.get("id").and_then(Value::as_u64) {
                Some(id) => {
                    self.early.insert(id, message);
                }
                None => self.notes.push_back(message),
            }
        }
    }

    /// Sends a request and returns the whole response (result or error).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// Lists tool names, sorted.
    pub async fn tool_names(&mut self) -> Vec<String> {
        let response = self.request("tools/list", json!({})).await;
        let mut names: Vec<String> = response["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    }

    /// Calls a tool; returns its text and whether it is an error result.
    pub async fn call(&mut self, name: &str, arguments: Value) -> (String, bool) {
        let response = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await;
        let result = response
            .get("result")
            .unwrap_or_else(|| panic!("{name} failed at the protocol level: {response}"));
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_string();
        (text, result["isError"].as_bool().unwrap_or(false))
    }

    /// Calls a tool that must succeed.
    pub async fn ok(&mut self, name: &str, arguments: Value) -> String {
        let (text, is_error) = self.call(name, arguments).await;
        assert!(!is_error, "{name} failed: {text}");
        text
    }
}

impl StdioClient {
    /// Writes `bytes` to the server's stdin as they are, then a line break: for garbage.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Kills the process at once (SIGKILL): no clean-up of any kind runs.
    pub async fn kill(&mut self) {
        self.child.kill().await.unwrap();
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// An engine over `docs` that syncs only when the test asks (no watcher, no sync on open).
pub async fn open_engine(
    docs: &Path,
    data: &Path,
    layout: ragdownd::index::scan::Layout,
    embedder: ragdownd::embed::SharedEmbedder,
) -> std::sync::Arc<ragdownd::engine::Engine> {
    open_engine_as(docs, data, layout, embedder, |_| {}).await
}

/// An engine as a server opens one over `docs` (one folder, syncing at once), watching or not.
pub async fn open_serving(
    docs: &Path,
    data: &Path,
    embedder: ragdownd::embed::SharedEmbedder,
    watch: bool,
    takeover_every: Duration,
) -> std::sync::Arc<ragdownd::engine::Engine> {
    open_engine_as(docs, data, ragdownd::index::scan::Layout::Single, embedder, |options| {
        options.watch = watch;
        options.sync_on_open = true;
        options.takeover_every = takeover_every;
    })
    .await
}

/// [`open_engine`]'s options, changed by `change` first.
async fn open_engine_as(
    docs: &Path,
    data: &Path,
    layout: ragdownd::index::scan::Layout,
    embedder: ragdownd::embed::SharedEmbedder,
    change: impl FnOnce(&mut ragdownd::engine::EngineOptions),
) -> std::sync::Arc<ragdownd::engine::Engine> {
    let mut options = ragdownd::engine::EngineOptions {
        docs_dir: docs.to_path_buf(),
        data_dir: data.to_path_buf(),
        layout,
        watch: false,
        sync_on_open: false,
        takeover_every: ragdownd::engine::TAKEOVER_EVERY,
        history: Default::default(),
        vector_index_rows: ragdownd::index::ann::DEFAULT_MIN_ROWS,
    };
    change(&mut options);
    ragdownd::engine::Engine::open(options, embedder).await.unwrap()
}
