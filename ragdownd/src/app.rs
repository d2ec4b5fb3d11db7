//! The two programs: `stdio` and `serve`, as library functions so tests run the real thing.

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use rmcp::ServiceExt;
use serde_json::json;

use crate::config::Config;
use crate::embed::select;
use crate::engine::{Engine, EngineOptions, Scope};
use crate::http::{self, AppState};
use crate::index::sync::Layout;
use crate::mcp::{RagdownServer, ToolFilter};
use crate::settings::SavedSettings;
use crate::tools::ToolSettings;

fn tool_settings(config: &Config) -> (ToolSettings, ToolFilter) {
    (
        ToolSettings {
            text_limit: config.text_limit,
            read_only: config.read_only,
            notes_dir: config.notes_dir.clone(),
            search: config.search,
            hook: config.hook,
        },
        ToolFilter {
            read_only: config.read_only,
            disabled: config.disabled_tools.iter().cloned().collect::<HashSet<_>>(),
        },
    )
}

/// Loads the embedder (blocking work) and opens the index.
pub async fn open_engine(config: &Config) -> anyhow::Result<Arc<Engine>> {
    let embedder = select::open(&config.embedder, &config.endpoints).await?;
    if let (Some(floor), Some(unrelated)) = (config.hook.min_score, embedder.unrelated_score())
        && floor <= unrelated
    {
        tracing::warn!(
            "RAGDOWN_HOOK_MIN_SCORE={floor} is at or under what unrelated prompts reach with {} ({unrelated}): \
             ragdown_context will inject documents into prompts they have nothing to do with",
            embedder.index_name()
        );
    }
    let engine = Engine::open(
        EngineOptions {
            docs_dir: config.docs_dir.clone(),
            data_dir: config.data_dir.clone(),
            layout: config.layout,
            watch: config.watch,
            sync_on_open: true,
            takeover_every: crate::engine::TAKEOVER_EVERY,
        },
        embedder,
    )
    .await?;
    // Under serve a saved setting wins over the variable; stdio reads the variables alone.
    let query_log = match config.layout {
        Layout::Folders => SavedSettings::read(&config.docs_dir)
            .query_log
            .unwrap_or(config.query_log),
        Layout::Single => config.query_log,
    };
    engine.query_log.set_enabled(query_log);
    if query_log {
        tracing::info!(file = %engine.query_log.path().display(), "logging queries");
    }
    Ok(engine)
}

/// `ragdownd stdio`: one folder as an MCP server on stdin/stdout until the client hangs up.
pub async fn run_stdio(config: Config) -> anyhow::Result<()> {
    let engine = open_engine(&config).await?;
    let (settings, filter) = tool_settings(&config);
    let server = RagdownServer::new(Scope::root(engine), settings, filter);
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

/// `ragdownd serve`: HTTP on `listener` until `shutdown` resolves. The index loads in the
/// background; `/api/status` answers at once.
pub async fn run_serve(
    config: Config,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (settings, filter) = tool_settings(&config);
    let state = Arc::new(AppState {
        engine: OnceLock::new(),
        docs_dir: config.docs_dir.clone(),
        settings,
        filter,
        token: config.token.clone(),
        allowed_hosts: config.allowed_hosts.clone(),
        keep_alive_ms: config.keep_alive_ms,
        root_mcp: config.root_mcp,
        public_settings: json!({
            "embedder": config.embedder.name,
            "watch": config.watch,
            "text_limit": config.text_limit,
            "root_mcp": config.root_mcp,
            "query_log": config.query_log,
            "max_per_document": config.search.max_per_document,
            "follow_links": config.search.follow_links,
        }),
        load_error: OnceLock::new(),
    });
    let loader_state = state.clone();
    let loader_config = config.clone();
    tokio::spawn(async move {
        match open_engine(&loader_config).await {
            Ok(engine) => {
                let _ = loader_state.engine.set(engine);
            }
            Err(err) => {
                tracing::error!("cannot open the index: {err:#}");
                let _ = loader_state.load_error.set(format!("{err:#}"));
            }
        }
    });
    tracing::info!(addr = %listener.local_addr()?, docs = %config.docs_dir.display(), "serving");
    for name in crate::folders::loose_files(&config.docs_dir) {
        tracing::warn!("{name} is loose in the docs dir, outside every folder: not indexed (move it into a folder)");
    }
    let keep_alive_ms = state.keep_alive_ms;
    http::serve(listener, http::router(state), keep_alive_ms, shutdown).await?;
    Ok(())
}
