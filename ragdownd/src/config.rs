//! Flags and environment, parsed once into a validated [`Config`]. No other module reads the
//! environment.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use clap::builder::BoolishValueParser;
use clap::{Args, Parser, Subcommand};
use sha2::{Digest, Sha256};

use embedd::LocalOptions;
use embedd::model::ModelSource;
use embedd::runtime::RuntimeOptions;

use crate::embed::select::{EmbedderChoice, Endpoints};
use crate::index::scan::Layout;
use crate::search::SearchSettings;
use crate::settings::{HookDefaults, Values};

/// Our logs at info; the storage engine's and the MCP SDK's per-query chatter only when it matters.
const DEFAULT_LOG: &str = "info,lance=warn,lance_core=warn,lance_index=warn,lance_io=warn,lance_table=warn,\
lance_file=warn,lance_encoding=warn,lance_datafusion=warn,lancedb=warn,datafusion=warn,rmcp=warn";

/// ragdownd: folders of Markdown as search tools for AI agents, over MCP.
#[derive(Debug, Parser)]
#[command(name = "ragdownd", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub options: Options,
}

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Serve one folder (RAGDOWN_DOCS_DIR) as an MCP server over stdio: what an MCP client launches.
    Stdio,
    /// Serve every folder of RAGDOWN_DOCS_DIR over HTTP: MCP at /mcp/<folder>, status at /api/status.
    Serve,
    /// Ask the server on RAGDOWN_HOST:PORT whether it answers /api/status (the Docker
    /// HEALTHCHECK); exit 0 when it does, printing the status.
    Health,
}

/// Options shared by both commands. Each flag falls back to its environment variable.
#[derive(Debug, Clone, Args)]
pub struct Options {
    /// For serve, the directory holding the folders; for stdio, the one folder.
    #[arg(long = "docs", env = "RAGDOWN_DOCS_DIR", global = true)]
    pub docs_dir: Option<PathBuf>,
    /// The index's directory [default: ~/.cache/ragdown/<hash of the docs dir>].
    #[arg(long = "data", env = "RAGDOWN_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Model cache, shared by every folder [default: ~/.cache/ragdown/models].
    #[arg(long, env = "RAGDOWN_MODELS", global = true)]
    pub models: Option<PathBuf>,
    /// granite-small (default), bge-small, embeddinggemma, minilm, minilm-fp32,
    /// multilingual-e5-small (Chinese, Japanese, Korean and other languages), or hash (tests only).
    #[arg(long, env = "RAGDOWN_EMBEDDER", global = true)]
    pub embedder: Option<String>,
    /// ONNX Runtime threads for the local model [default: every core].
    #[arg(long, env = "RAGDOWN_THREADS", global = true)]
    pub threads: Option<usize>,
    /// Sessions of the local model that embed side by side, sharing the threads [default: one
    /// per thread, at most two]. Each costs memory: about 30 MB with minilm-fp32, whose sessions
    /// share one copy of the weights, about 100 MB with the int8 minilm.
    #[arg(long, env = "RAGDOWN_SESSIONS", global = true)]
    pub sessions: Option<usize>,
    /// A session of its own for queries, so a search never waits behind an index batch (one more
    /// session's memory).
    #[arg(long, env = "RAGDOWN_QUERY_SESSION", global = true, default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub query_session: bool,
    /// Seconds without documents to embed after which the local model's embedding sessions give
    /// their memory back (the query session stays; the next documents make them again in about
    /// 0.3 s); 0 keeps them. A sync of 1,024 chunks or more lets them rest at once.
    #[arg(long, env = "RAGDOWN_REST_AFTER_SECS", global = true, default_value_t = embedd::local::DEFAULT_REST_AFTER_IDLE.as_secs())]
    pub rest_after_secs: u64,
    /// Watch the folder; without a watcher, sync on start and on ragdown_reindex only.
    #[arg(long, env = "RAGDOWN_WATCH", global = true, default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub watch: bool,
    /// Hide the write tools and refuse writes.
    #[arg(long, env = "RAGDOWN_READ_ONLY", global = true, default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub read_only: bool,
    /// Tools to leave out, comma-separated (e.g. ragdown_stats,ragdown_reindex).
    #[arg(long, env = "RAGDOWN_DISABLED_TOOLS", global = true, value_delimiter = ',')]
    pub disabled_tools: Vec<String>,
    /// Where ragdown_remember writes, relative to each folder.
    #[arg(long, env = "RAGDOWN_NOTES_DIR", global = true, default_value = "notes")]
    pub notes_dir: String,
    /// Characters per hit in text output.
    #[arg(long, env = "RAGDOWN_TEXT_LIMIT", global = true, default_value_t = 2000)]
    pub text_limit: usize,
    /// Log every search, hook call and ragdown_read_doc to query-log.jsonl in the data dir (queries and hit
    /// locations, never document text).
    #[arg(long, env = "RAGDOWN_QUERY_LOG", global = true, default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub query_log: bool,
    /// Most sections of one document a search returns ahead of other documents' (0: no cap).
    #[arg(long, env = "RAGDOWN_MAX_PER_DOCUMENT", global = true, default_value_t = 0)]
    pub max_per_document: usize,
    /// How many of a search's best hits have the wikilinks in their own section followed (0: off).
    #[arg(long, env = "RAGDOWN_FOLLOW_LINKS", global = true, default_value_t = 0)]
    pub follow_links: usize,
    /// ragdown_context: most sections per prompt (1 to 50).
    #[arg(long, env = "RAGDOWN_HOOK_TOP_K", global = true, default_value_t = 4)]
    pub hook_top_k: usize,
    /// ragdown_context: lowest cosine similarity returned [default: the embedder's own].
    #[arg(long, env = "RAGDOWN_HOOK_MIN_SCORE", global = true)]
    pub hook_min_score: Option<f32>,
    /// ragdown_context: lowest share of the best hit's similarity a hit may have (0 turns it off)
    /// [default: the embedder's own, 0.95 unless it measured another].
    #[arg(long, env = "RAGDOWN_HOOK_MIN_RATIO", global = true)]
    pub hook_min_ratio: Option<f32>,
    /// ragdown_context: most characters per prompt.
    #[arg(long, env = "RAGDOWN_HOOK_MAX_CHARS", global = true, default_value_t = 6000)]
    pub hook_max_chars: usize,
    /// serve only: the HTTP port.
    #[arg(long, env = "PORT", global = true, default_value_t = 3000)]
    pub port: u16,
    /// serve only: the address to listen on.
    #[arg(long, env = "RAGDOWN_HOST", global = true, default_value = "0.0.0.0")]
    pub host: IpAddr,
    /// serve only: the bearer token MCP routes require.
    #[arg(long, env = "RAGDOWN_TOKEN", global = true, hide_env_values = true)]
    pub token: Option<String>,
    /// serve only: skip the token on a trusted network.
    #[arg(long, env = "SECURE_LOCAL_NET", global = true, default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub secure_local_net: bool,
    /// serve only: host names (besides loopback) that MCP requests may address, comma-separated.
    #[arg(long, env = "RAGDOWN_ALLOWED_HOSTS", global = true, value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// serve only: the URL clients reach this server at behind a reverse proxy or tunnel
    /// (`https://notes.example.com`): OAuth's issuer and resource URIs are made from it, and its
    /// host is allowed [default: the Host each request names].
    #[arg(long, env = "RAGDOWN_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,
    /// serve only: OAuth 2.1 for MCP clients that cannot send a token (claude.ai, the Claude apps):
    /// each client is approved once by the owner in the web UI. Needs RAGDOWN_TOKEN.
    #[arg(long, env = "RAGDOWN_OAUTH", global = true, default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub oauth: bool,
    /// serve only: let OAuth clients' metadata documents come from private addresses (a client on
    /// your own network); off, only public addresses are fetched.
    #[arg(long, env = "RAGDOWN_OAUTH_PRIVATE_CLIENTS", global = true, default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub oauth_private_clients: bool,
    /// serve only: serve every folder with MCP on as one server at the bare `/mcp`.
    #[arg(long, env = "RAGDOWN_ROOT_MCP", global = true, default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub root_mcp: bool,
    /// serve only: how long an idle client connection is kept open, in ms (0: never closed).
    #[arg(long, env = "HTTP_KEEP_ALIVE_TIMEOUT_MS", global = true, default_value_t = 75_000)]
    pub keep_alive_ms: u64,
    /// serve only: serve the web UI from this built `web/dist` instead of the one compiled in.
    #[arg(long, env = "RAGDOWN_WEB_DIR", global = true)]
    pub web_dir: Option<PathBuf>,
    /// `embedd` workers (`http://host:port`, comma-separated); empty embeds in-process.
    #[arg(long, env = "RAGDOWN_EMBEDD_URL", global = true, value_delimiter = ',')]
    pub embedd_url: Vec<String>,
    /// The workers' `EMBEDD_TOKEN`.
    #[arg(long, env = "RAGDOWN_EMBEDD_TOKEN", global = true, hide_env_values = true)]
    pub embedd_token: Option<String>,
    /// How long a worker may take for one batch before it is retried elsewhere, in ms.
    #[arg(long, env = "RAGDOWN_EMBEDD_TIMEOUT_MS", global = true, default_value_t = 30_000)]
    pub embedd_timeout_ms: u64,
    /// The OpenAI-compatible endpoint of `openai:<model>`.
    #[arg(long, env = "RAGDOWN_EMBEDDING_URL", global = true, default_value = crate::embed::openai::DEFAULT_URL)]
    pub embedding_url: String,
    /// The API key of `openai:<model>`.
    #[arg(long, env = "RAGDOWN_EMBEDDING_API_KEY", global = true, hide_env_values = true)]
    pub embedding_api_key: Option<String>,
    /// The ONNX Runtime library (full file name) [default: the ragdown cache, then the system].
    #[arg(long, env = "ORT_DYLIB_PATH", global = true)]
    pub ort_library: Option<PathBuf>,
    /// The Hugging Face hub (or a mirror) models are downloaded from.
    #[arg(long, env = "HF_ENDPOINT", global = true, default_value = embedd::hub::DEFAULT_ENDPOINT)]
    pub hub_endpoint: String,
    /// The ragdown cache directory [default: $XDG_CACHE_HOME/ragdown or ~/.cache/ragdown].
    #[arg(long, env = "RAGDOWN_CACHE", global = true)]
    pub cache_dir: Option<PathBuf>,
    /// Where the history of changes made through ragdown is kept (outside the index's data dir)
    /// [default: .ragdown-history in the docs dir].
    #[arg(long, env = "RAGDOWN_HISTORY_DIR", global = true)]
    pub history_dir: Option<PathBuf>,
    /// serve only: where the scoped tokens are kept (hashes only; outside the index's data dir)
    /// [default: .ragdown-access.json in the docs dir].
    #[arg(long, env = "RAGDOWN_ACCESS_FILE", global = true)]
    pub access_file: Option<PathBuf>,
    /// Days a change stays in the history.
    #[arg(long, env = "RAGDOWN_HISTORY_DAYS", global = true, default_value_t = crate::history::DEFAULT_DAYS)]
    pub history_days: u64,
    /// Most disk the history may take (`64MB`, `500KB`, `1GB`, or bytes); past it the oldest
    /// changes go first.
    #[arg(long, env = "RAGDOWN_HISTORY_MAX_SIZE", global = true, default_value = "64MB", value_parser = crate::history::parse_size)]
    pub history_max_size: u64,
    /// Chunks from which the dense search uses a vector index (LanceDB's IVF_PQ, its candidates
    /// re-ranked exactly) instead of scanning every vector held in memory; `off` never builds one.
    #[arg(long, env = "RAGDOWN_VECTOR_INDEX_ROWS", global = true, default_value = "200000", value_parser = parse_rows)]
    pub vector_index_rows: usize,
    /// Log filter (tracing's EnvFilter syntax).
    #[arg(long, env = "RAGDOWN_LOG", global = true, default_value = DEFAULT_LOG)]
    pub log: String,
}

/// A value of `RAGDOWN_VECTOR_INDEX_ROWS` that is neither a number nor `off`.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a number of rows or `off`")]
pub struct NotRows(String);

/// A row count (`_` and `,` between digits allowed), or `off` for none ever.
fn parse_rows(value: &str) -> Result<usize, NotRows> {
    match value.trim() {
        "off" => Ok(usize::MAX),
        rows => rows
            .replace(['_', ','], "")
            .parse()
            .map_err(|_| NotRows(value.to_string())),
    }
}

/// A configuration problem, reported before anything starts.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("RAGDOWN_DOCS_DIR is required (or --docs): the directory of Markdown to serve")]
    NoDocsDir,
    #[error("the docs dir {0} is not a directory")]
    DocsDirMissing(PathBuf),
    #[error("set RAGDOWN_TOKEN (openssl rand -hex 32), or SECURE_LOCAL_NET=true on a trusted network")]
    NoAuth,
    #[error("RAGDOWN_NOTES_DIR must be a relative path inside the folder, not a dot-folder: {0}")]
    NotesDir(String),
    #[error("RAGDOWN_THREADS and RAGDOWN_SESSIONS must be at least 1")]
    Threads,
    #[error("{0}")]
    Hook(&'static str),
    #[error("RAGDOWN_HISTORY_DIR must be outside the index's data dir ({0}): deleting the index must not cost history")]
    HistoryInData(PathBuf),
    #[error(
        "RAGDOWN_ACCESS_FILE must be outside the index's data dir ({0}): deleting the index must not revoke every token"
    )]
    AccessInData(PathBuf),
    #[error("cannot find the home directory; set RAGDOWN_CACHE or XDG_CACHE_HOME")]
    NoHome,
    #[error("RAGDOWN_PUBLIC_URL must be an http(s) origin with no path, like https://notes.example.com: {0}")]
    PublicUrl(String),
}

/// The validated configuration: what the flags and environment say, checked and with defaults
/// filled in. Under `serve`, saved settings (`settings/`) may override some of it at run time;
/// [`Config::values`] is the layer they start from.
#[derive(Debug, Clone)]
pub struct Config {
    /// What to run: `stdio` (one folder), `serve` (folders over HTTP) or `health`.
    pub command: Command,
    /// The docs dir, absolute and canonical: the one folder (`stdio`) or the folders' parent.
    pub docs_dir: PathBuf,
    /// The index's directory (`RAGDOWN_DATA_DIR`, else a per-docs-dir name in the cache).
    pub data_dir: PathBuf,
    /// Whether the docs dir is one folder or a directory of folders, from the command.
    pub layout: Layout,
    /// Follow the folder with a file watcher (`RAGDOWN_WATCH`).
    pub watch: bool,
    /// Hide the write tools and refuse writes (`RAGDOWN_READ_ONLY`).
    pub read_only: bool,
    /// Tool names left out of `tools/list` (`RAGDOWN_DISABLED_TOOLS`), trimmed, none empty.
    pub disabled_tools: Vec<String>,
    /// Characters per hit in text output (`RAGDOWN_TEXT_LIMIT`).
    pub text_limit: usize,
    /// Where `ragdown_remember` writes, relative to each folder (`RAGDOWN_NOTES_DIR`), checked.
    pub notes_dir: String,
    /// The per-document cap and link following.
    pub search: SearchSettings,
    /// ragdown_context's defaults.
    pub hook: HookDefaults,
    /// `RAGDOWN_QUERY_LOG` (under serve, a saved `query_log` wins over it).
    pub query_log: bool,
    /// `serve`'s address (`RAGDOWN_HOST`, `PORT`).
    pub listen: std::net::SocketAddr,
    /// The bearer token `serve` requires; `None` only with `SECURE_LOCAL_NET` (or under `stdio`).
    pub token: Option<String>,
    /// Host names besides loopback that MCP requests may address (`RAGDOWN_ALLOWED_HOSTS`).
    pub allowed_hosts: Vec<String>,
    /// How long an idle HTTP connection is kept open, in ms (0: never closed).
    pub keep_alive_ms: u64,
    /// `RAGDOWN_WEB_DIR`: the web UI from disk rather than the compiled-in build.
    pub web_dir: Option<PathBuf>,
    /// `RAGDOWN_ROOT_MCP`.
    pub root_mcp: bool,
    /// Which embedder, where its model comes from, and how the in-process one runs.
    pub embedder: EmbedderChoice,
    /// Chunks from which the dense search uses a vector index (`RAGDOWN_VECTOR_INDEX_ROWS`;
    /// `usize::MAX`: never).
    pub vector_index_rows: usize,
    /// `embedd` workers and the `openai:` endpoint.
    pub endpoints: Endpoints,
    /// The log filter (`RAGDOWN_LOG`, tracing's EnvFilter syntax).
    pub log: String,
    /// Where the history of changes lives and how much of it is kept.
    pub history: crate::history::HistoryOptions,
    /// The scoped tokens' file (`RAGDOWN_ACCESS_FILE`, else `.ragdown-access.json` in the docs
    /// dir), never inside the data dir.
    pub access_file: PathBuf,
    /// OAuth for MCP clients.
    pub oauth: OAuthOptions,
}

/// OAuth's settings.
#[derive(Debug, Clone, Default)]
pub struct OAuthOptions {
    /// On: `RAGDOWN_OAUTH` and an owner's token to approve clients with.
    pub enabled: bool,
    /// `RAGDOWN_PUBLIC_URL` as an origin without a trailing slash (`https://notes.example.com`).
    pub public_url: Option<String>,
    /// `RAGDOWN_OAUTH_PRIVATE_CLIENTS`.
    pub private_clients: bool,
}

/// `RAGDOWN_PUBLIC_URL` checked: an http(s) origin, no path, query or fragment; its ASCII
/// serialisation, and its host.
fn public_url(text: &str) -> Result<(String, String), ConfigError> {
    let bad = || ConfigError::PublicUrl(text.to_string());
    let url = url::Url::parse(text.trim()).map_err(|_| bad())?;
    let plain = matches!(url.scheme(), "http" | "https")
        && url.host_str().is_some()
        && url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    if !plain {
        return Err(bad());
    }
    let host = url.host_str().unwrap_or_default().trim_matches(['[', ']']).to_string();
    Ok((url.origin().ascii_serialization(), host))
}

impl Config {
    /// The layered settings' bottom layer: what the flags and environment say.
    pub fn values(&self) -> Values {
        Values {
            embedder: self.embedder.name.clone(),
            watch: self.watch,
            root_mcp: self.root_mcp,
            text_limit: self.text_limit,
            search: self.search,
            query_log: self.query_log,
            hook: self.hook,
        }
    }

    /// Validates parsed flags. `home` and `xdg_cache` come from the environment via `main`.
    pub fn from_cli(cli: Cli, home: Option<PathBuf>, xdg_cache: Option<PathBuf>) -> Result<Self, ConfigError> {
        let command = cli.command.unwrap_or(Command::Stdio);
        let o = cli.options;
        let docs_dir = existing_dir(o.docs_dir.clone().ok_or(ConfigError::NoDocsDir)?)?;
        let token = bearer_token(&o, command)?;
        let public = o
            .public_url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
            .map(public_url)
            .transpose()?;
        if o.threads == Some(0) || o.sessions == Some(0) {
            return Err(ConfigError::Threads);
        }
        let hook = hook_defaults(o.hook_top_k, o.hook_min_score, o.hook_min_ratio, o.hook_max_chars)?;
        let cache_dir =
            embedd::runtime::default_cache_dir(o.cache_dir.clone(), xdg_cache, home).ok_or(ConfigError::NoHome)?;
        let layout = match command {
            Command::Stdio => Layout::Single,
            Command::Serve | Command::Health => Layout::Folders,
        };
        let data_dir = o
            .data_dir
            .clone()
            .unwrap_or_else(|| cache_dir.join(default_data_name(&docs_dir, layout)));
        let history = crate::history::HistoryOptions {
            dir: o.history_dir.clone().filter(|d| !d.as_os_str().is_empty()),
            max_age: std::time::Duration::from_secs(o.history_days.saturating_mul(24 * 3600)),
            max_bytes: o.history_max_size,
        };
        if let Some(dir) = &history.dir
            && (dir.starts_with(&data_dir) || data_dir.starts_with(dir))
        {
            return Err(ConfigError::HistoryInData(data_dir));
        }
        let access_file = o
            .access_file
            .clone()
            .filter(|f| !f.as_os_str().is_empty())
            .unwrap_or_else(|| docs_dir.join(crate::access::store::DEFAULT_FILE_NAME));
        if access_file.starts_with(&data_dir) {
            return Err(ConfigError::AccessInData(data_dir));
        }
        Ok(Self {
            history,
            access_file,
            command,
            docs_dir,
            data_dir,
            layout,
            watch: o.watch,
            read_only: o.read_only,
            disabled_tools: trimmed(&o.disabled_tools),
            text_limit: o.text_limit,
            vector_index_rows: o.vector_index_rows,
            notes_dir: notes_dir(&o.notes_dir)?,
            search: SearchSettings {
                max_per_document: o.max_per_document,
                follow_links: o.follow_links,
            },
            hook,
            query_log: o.query_log,
            listen: std::net::SocketAddr::new(o.host, o.port),
            oauth: OAuthOptions {
                enabled: o.oauth && token.is_some(),
                public_url: public.as_ref().map(|(origin, _)| origin.clone()),
                private_clients: o.oauth_private_clients,
            },
            token,
            allowed_hosts: o
                .allowed_hosts
                .iter()
                .filter(|h| !h.is_empty())
                .cloned()
                .chain(public.map(|(_, host)| host))
                .collect(),
            keep_alive_ms: o.keep_alive_ms,
            web_dir: o.web_dir.clone().filter(|d| !d.as_os_str().is_empty()),
            root_mcp: o.root_mcp,
            embedder: embedder_choice(&o, cache_dir),
            endpoints: endpoints(&o),
            log: o.log,
        })
    }
}

/// The docs dir, canonical, or why it cannot be used.
fn existing_dir(docs: PathBuf) -> Result<PathBuf, ConfigError> {
    let docs_dir = docs
        .canonicalize()
        .map_err(|_| ConfigError::DocsDirMissing(docs.clone()))?;
    if !docs_dir.is_dir() {
        return Err(ConfigError::DocsDirMissing(docs));
    }
    Ok(docs_dir)
}

/// The bearer token in force: a blank one counts as none, `serve` refuses to run without one
/// unless `SECURE_LOCAL_NET` says the network is trusted, and then none is asked for.
fn bearer_token(o: &Options, command: Command) -> Result<Option<String>, ConfigError> {
    let token = o.token.clone().filter(|t| !t.trim().is_empty());
    if command == Command::Serve && token.is_none() && !o.secure_local_net {
        return Err(ConfigError::NoAuth);
    }
    Ok(token)
}

/// Each entry trimmed, the empty ones dropped.
fn trimmed(entries: &[String]) -> Vec<String> {
    entries
        .iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// The embedder by name (none: the default), its model's source under `cache_dir`, and the
/// in-process embedder's threads and sessions.
fn embedder_choice(o: &Options, cache_dir: PathBuf) -> EmbedderChoice {
    let defaults = LocalOptions::default();
    let local = LocalOptions {
        threads: o.threads.unwrap_or(defaults.threads),
        sessions: o.sessions.unwrap_or(0),
        interactive_session: o.query_session,
        rest_after_idle: embedd::local::rest_after_secs(o.rest_after_secs),
        ..defaults
    };
    EmbedderChoice {
        name: o
            .embedder
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_string),
        source: ModelSource {
            models_dir: o.models.clone().unwrap_or_else(|| cache_dir.join("models")),
            hub_endpoint: o.hub_endpoint.clone(),
            allow_download: true,
            runtime: RuntimeOptions {
                explicit: o.ort_library.clone(),
                cache_dir: Some(cache_dir),
            },
        },
        local,
    }
}

/// Where remote embedders are: `embedd` workers and the `openai:` endpoint.
fn endpoints(o: &Options) -> Endpoints {
    Endpoints {
        embedd_urls: trimmed(&o.embedd_url),
        embedd_token: o.embedd_token.clone().filter(|t| !t.is_empty()),
        embedd_timeout: std::time::Duration::from_millis(o.embedd_timeout_ms.max(1)),
        embedding_url: o.embedding_url.clone(),
        api_key: o.embedding_api_key.clone(),
    }
}

/// Validates the `RAGDOWN_HOOK_*` defaults.
fn hook_defaults(
    top_k: usize,
    min_score: Option<f32>,
    min_ratio: Option<f32>,
    max_chars: usize,
) -> Result<HookDefaults, ConfigError> {
    if !(1..=50).contains(&top_k) {
        return Err(ConfigError::Hook("RAGDOWN_HOOK_TOP_K must be between 1 and 50"));
    }
    if min_score.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
        return Err(ConfigError::Hook("RAGDOWN_HOOK_MIN_SCORE must be between 0 and 1"));
    }
    if min_ratio.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
        return Err(ConfigError::Hook("RAGDOWN_HOOK_MIN_RATIO must be between 0 and 1"));
    }
    if max_chars == 0 {
        return Err(ConfigError::Hook("RAGDOWN_HOOK_MAX_CHARS must be at least 1"));
    }
    Ok(HookDefaults {
        top_k,
        min_score,
        min_ratio,
        max_chars,
    })
}

/// Validates `RAGDOWN_NOTES_DIR`: relative, inside the folder, no dot-folder.
fn notes_dir(raw: &str) -> Result<String, ConfigError> {
    let clean = raw.trim().trim_matches('/');
    let segments: Vec<&str> = clean.split('/').collect();
    if clean.is_empty()
        || segments
            .iter()
            .any(|s| s.is_empty() || s.starts_with('.') || *s == "node_modules")
    {
        return Err(ConfigError::NotesDir(raw.to_string()));
    }
    Ok(clean.to_string())
}

/// `<sha256(mode == folders ? "folders\0" + docsDir : docsDir)[0:16]>`: the name mcp-ragdown
/// gives the same docs dir's index, so both find the same default data dir.
fn default_data_name(docs_dir: &Path, layout: Layout) -> String {
    let docs = docs_dir.to_string_lossy();
    let key = match layout {
        Layout::Folders => format!("folders\0{docs}"),
        Layout::Single => docs.into_owned(),
    };
    hex::encode(Sha256::digest(key.as_bytes()))[..16].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(args).unwrap()
    }

    #[test]
    fn the_public_url_is_an_origin_whose_host_is_allowed_and_oauth_needs_the_owner_s_token() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().to_str().unwrap();
        let home = Some(dir.path().to_path_buf());
        let serve = |extra: &[&str]| {
            let mut args = vec!["ragdownd", "serve", "--docs", docs];
            args.extend_from_slice(extra);
            Config::from_cli(parse(&args), home.clone(), None)
        };
        let config = serve(&["--token", "t", "--public-url", "HTTPS://Notes.Example.com/"]).unwrap();
        assert_eq!(config.oauth.public_url.as_deref(), Some("https://notes.example.com"));
        assert!(config.oauth.enabled);
        assert!(config.allowed_hosts.contains(&"notes.example.com".to_string()));
        for bad in [
            "https://notes.example.com/ragdown",
            "notes.example.com",
            "ftp://x.example",
            "https://x.example/?a=1",
        ] {
            assert!(
                matches!(
                    serve(&["--token", "t", "--public-url", bad]),
                    Err(ConfigError::PublicUrl(_))
                ),
                "{bad}"
            );
        }
        assert!(
            !serve(&["--secure-local-net", "true"]).unwrap().oauth.enabled,
            "no owner to approve"
        );
        assert!(!serve(&["--token", "t", "--oauth", "false"]).unwrap().oauth.enabled);
    }

    #[test]
    fn serve_refuses_to_start_without_a_token_or_secure_local_net() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().to_str().unwrap();
        let cli = parse(&["ragdownd", "serve", "--docs", docs]);
        let err = Config::from_cli(cli, Some(dir.path().into()), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "set RAGDOWN_TOKEN (openssl rand -hex 32), or SECURE_LOCAL_NET=true on a trusted network"
        );
        let cli = parse(&["ragdownd", "serve", "--docs", docs, "--secure-local-net", "true"]);
        assert!(Config::from_cli(cli, Some(dir.path().into()), None).is_ok());
    }

    #[test]
    fn the_token_file_is_in_the_docs_dir_and_never_in_the_index_s_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().to_str().unwrap();
        let serve = |extra: &[&str]| {
            let mut args = vec![
                "ragdownd",
                "serve",
                "--docs",
                docs,
                "--token",
                "t",
                "--data",
                "/data/ragdown",
            ];
            args.extend_from_slice(extra);
            Config::from_cli(parse(&args), None, Some("/c".into()))
        };
        let config = serve(&[]).unwrap();
        assert_eq!(config.access_file, config.docs_dir.join(".ragdown-access.json"));
        let config = serve(&["--access-file", "/etc/ragdown/access.json"]).unwrap();
        assert_eq!(config.access_file, PathBuf::from("/etc/ragdown/access.json"));
        let err = serve(&["--access-file", "/data/ragdown/access.json"]).unwrap_err();
        assert!(matches!(err, ConfigError::AccessInData(_)), "{err}");
    }

    #[test]
    fn stdio_and_serve_keep_separate_default_data_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().to_str().unwrap();
        let stdio = Config::from_cli(parse(&["ragdownd", "stdio", "--docs", docs]), None, Some("/c".into())).unwrap();
        let serve = Config::from_cli(
            parse(&["ragdownd", "serve", "--docs", docs, "--token", "t"]),
            None,
            Some("/c".into()),
        )
        .unwrap();
        assert!(stdio.data_dir.starts_with("/c/ragdown"));
        assert_ne!(stdio.data_dir, serve.data_dir);
        assert_eq!(stdio.data_dir.file_name().unwrap().len(), 16);
        assert_eq!(stdio.embedder.source.models_dir, PathBuf::from("/c/ragdown/models"));
    }

    #[test]
    fn the_vector_index_rows_take_a_number_or_off() {
        assert_eq!(parse_rows("200_000").unwrap(), 200_000);
        assert_eq!(parse_rows(" 1,000 ").unwrap(), 1_000);
        assert_eq!(parse_rows("off").unwrap(), usize::MAX);
        assert_eq!(
            parse_rows("lots").unwrap_err().to_string(),
            "\"lots\" is not a number of rows or `off`"
        );
    }

    #[test]
    fn model_sessions_follow_their_flags() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().to_str().unwrap();
        let config = Config::from_cli(parse(&["ragdownd", "stdio", "--docs", docs]), None, Some("/c".into())).unwrap();
        assert_eq!(config.embedder.local.sessions, 0, "auto");
        assert!(config.embedder.local.interactive_session);
        let cli = parse(&[
            "ragdownd",
            "stdio",
            "--docs",
            docs,
            "--sessions",
            "1",
            "--query-session",
            "false",
        ]);
        let config = Config::from_cli(cli, None, Some("/c".into())).unwrap();
        assert_eq!(config.embedder.local.sessions, 1);
        assert!(!config.embedder.local.interactive_session);
        assert_eq!(
            config.embedder.local.rest_after_idle,
            Some(std::time::Duration::from_secs(60))
        );
        let keep = parse(&["ragdownd", "stdio", "--docs", docs, "--rest-after-secs", "0"]);
        let keep = Config::from_cli(keep, None, Some("/c".into())).unwrap();
        assert_eq!(keep.embedder.local.rest_after_idle, None, "0 keeps the sessions");
        let zero = parse(&["ragdownd", "stdio", "--docs", docs, "--sessions", "0"]);
        assert_eq!(
            Config::from_cli(zero, None, Some("/c".into())).unwrap_err().to_string(),
            "RAGDOWN_THREADS and RAGDOWN_SESSIONS must be at least 1"
        );
    }

    #[test]
    fn search_settings_default_off_and_read_their_flags() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().to_str().unwrap();
        let config = Config::from_cli(parse(&["ragdownd", "stdio", "--docs", docs]), None, Some("/c".into())).unwrap();
        assert_eq!(config.search, SearchSettings::default());
        let cli = parse(&[
            "ragdownd",
            "stdio",
            "--docs",
            docs,
            "--max-per-document",
            "2",
            "--follow-links",
            "1",
        ]);
        let config = Config::from_cli(cli, None, Some("/c".into())).unwrap();
        assert_eq!(
            config.search,
            SearchSettings {
                max_per_document: 2,
                follow_links: 1
            }
        );
    }

    #[test]
    fn missing_docs_dir_is_a_clear_error() {
        let err = Config::from_cli(parse(&["ragdownd", "stdio"]), None, Some("/c".into())).unwrap_err();
        assert!(err.to_string().contains("RAGDOWN_DOCS_DIR is required"));
        let err = Config::from_cli(
            parse(&["ragdownd", "stdio", "--docs", "/no/such/dir"]),
            None,
            Some("/c".into()),
        )
        .unwrap_err();
        assert!(err.to_string().contains("/no/such/dir"));
    }
}
