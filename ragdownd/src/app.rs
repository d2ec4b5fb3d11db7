//! The two programs: `stdio` and `serve`, as library functions so tests run the real thing.
//!
//! This is the programs' edge: what fails here is only reported (by `main`, or in `/api/status`)
//! and ends the program, so these functions return `anyhow` errors. The library below them
//! returns typed errors.

use std::collections::HashSet;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use rmcp::ServiceExt;

use crate::config::Config;
use crate::embed::SharedEmbedder;
use crate::engine::Scope;
use crate::http::{self, AppState};
use crate::index::scan::Layout;
use crate::language::{Notice, Surveys};
use crate::launch::open_engine;
use crate::mcp::{RagdownServer, ToolFilter};
use crate::settings::Settings;
use crate::tools::ToolSettings;

/// The tools' settings and filter. Under serve the layered settings read the saved file in the
/// docs dir; under stdio the variables alone.
fn tool_settings(config: &Config) -> (ToolSettings, ToolFilter) {
    let layered = match config.layout {
        Layout::Folders => Settings::with_saved_file(config.values(), &config.docs_dir),
        Layout::Single => Settings::env_only(config.values()),
    };
    (
        ToolSettings {
            read_only: config.read_only,
            notes_dir: config.notes_dir.clone(),
            layered: Arc::new(layered),
        },
        ToolFilter {
            read_only: config.read_only,
            disabled: config.disabled_tools.iter().cloned().collect::<HashSet<_>>(),
        },
    )
}

/// `ragdownd stdio`: one folder as an MCP server on stdin/stdout until the client hangs up.
pub async fn run_stdio(config: Config) -> anyhow::Result<()> {
    let (settings, filter) = tool_settings(&config);
    // The message alone: it already ends with its causes' text, which `main`'s `{:#}` would
    // print a second time from the sources.
    let engine = open_engine(&config, &settings.current())
        .await
        .map_err(|err| anyhow::Error::msg(err.to_string()))?;
    tokio::spawn(warn_language(
        Arc::default(),
        config.docs_dir.clone(),
        Layout::Single,
        engine.embedder.clone(),
    ));
    // Writes of this connection are one session in the history unless a call names its own.
    let session = format!("stdio-{}-{}", std::process::id(), crate::index::sync::iso_now());
    let server = RagdownServer::new(Scope::root(engine), settings, filter)
        .with_notifications()
        .with_session(session);
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
    let state = Arc::new(AppState::new(config.clone(), settings, filter));
    let loader_state = state.clone();
    tokio::spawn(async move {
        let values = loader_state.tools.current();
        match open_engine(&loader_state.config, &values).await {
            Ok(engine) => {
                loader_state.set_engine(engine.clone());
                tokio::spawn(warn_language(
                    loader_state.languages.clone(),
                    loader_state.config.docs_dir.clone(),
                    Layout::Folders,
                    engine.embedder.clone(),
                ));
                http::settings::follow_hand_edits(loader_state, values);
            }
            Err(err) => {
                tracing::error!("cannot open the index: {err}");
                loader_state.set_load_error(err.to_string());
            }
        }
    });
    tracing::info!(addr = %listener.local_addr()?, docs = %config.docs_dir.display(), "serving");
    for name in crate::folders::loose_files(&config.docs_dir) {
        tracing::warn!("{name} is loose in the docs dir, outside every folder: not indexed (move it into a folder)");
    }
    let keep_alive_ms = config.keep_alive_ms;
    let closing = state.closing.clone();
    let shutdown = async move {
        shutdown.await;
        closing.cancel();
    };
    http::serve(listener, http::router(state), keep_alive_ms, shutdown).await?;
    Ok(())
}

/// Surveys the notes into `surveys` and says in the log, once at start, when a folder is notably
/// Chinese, Japanese or Korean and the embedder reads English only (`/api/status` and the web UI
/// say it too, from the same survey).
async fn warn_language(surveys: Arc<Surveys>, docs_dir: PathBuf, layout: Layout, embedder: SharedEmbedder) {
    let Some(mixes) = surveys.refresh(&docs_dir, layout).await else {
        return;
    };
    if let Some(notice) = Notice::of(&mixes, embedder.index_name(), embedder.multilingual()) {
        tracing::warn!("{}", notice.message());
    }
}
