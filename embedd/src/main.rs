//! The `embedd` binary: parse the configuration, load the model, serve until SIGINT/SIGTERM.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use embedd::config::{Cli, Command, Config};
use embedd::server::{self, ServeSettings};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.command == Some(Command::Health) {
        return health(cli.http_addr);
    }
    let config = match Config::from_cli(
        cli,
        std::env::var_os("HOME").map(PathBuf::from),
        std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from),
    ) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("embedd: {err}");
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        // Its own report of a failed write is an eprintln, which panics when stderr is closed.
        .log_internal_errors(false)
        .with_env_filter(tracing_subscriber::EnvFilter::try_new(&config.log).unwrap_or_else(|_| "info".into()))
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("embedd: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("embedd: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// `embedd health`: 0 when the local server answers `/health`, 1 with the reason otherwise.
fn health(listen: std::net::SocketAddr) -> ExitCode {
    match embedd::health::probe(
        embedd::health::local_address(listen),
        "/health",
        embedd::health::TIMEOUT,
    ) {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("embedd: unhealthy: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: Config) -> anyhow::Result<()> {
    let grpc = tokio::net::TcpListener::bind(config.grpc_addr)
        .await
        .with_context(|| format!("cannot listen on {} (EMBEDD_GRPC_ADDR)", config.grpc_addr))?;
    let http = tokio::net::TcpListener::bind(config.http_addr)
        .await
        .with_context(|| format!("cannot listen on {} (EMBEDD_HTTP_ADDR)", config.http_addr))?;
    let shutdown = shutdown_signal()?;
    let loading = config.clone();
    let embedder = tokio::task::spawn_blocking(move || loading.start_embedder()).await??;
    let info = embedder.info();
    tracing::info!(
        grpc = %grpc.local_addr()?,
        http = %http.local_addr()?,
        model = %info.fingerprint.name,
        provider = %info.provider,
        requested_provider = %info.requested_provider,
        threads = info.threads,
        auth = config.token.is_some(),
        "embedd serving"
    );
    let settings = ServeSettings { token: config.token };
    server::serve(embedder, settings, grpc, http, shutdown).await?;
    Ok(())
}

/// Listens for SIGINT and SIGTERM now (so a signal that comes right after the "serving" line is
/// not lost to the default action) and resolves on the first of them.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot listen for SIGTERM")?;
    #[cfg(unix)]
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .context("cannot listen for SIGINT")?;
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down: finishing requests in flight");
    })
}
