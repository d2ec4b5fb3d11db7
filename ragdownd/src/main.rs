//! The `ragdownd` binary: parse the configuration, set up logging, run a command.

use std::process::ExitCode;

use clap::Parser;
use ragdownd::config::{Cli, Command, Config};

fn main() -> ExitCode {
    // SAFETY: first thing in `main`, before any thread starts.
    #[allow(unsafe_code)]
    unsafe {
        ragdownd::process::configure_lance()
    };
    let cli = Cli::parse();
    if cli.command == Some(Command::Health) {
        // Before the configuration: a probe needs only the address, not the docs or a token.
        return health(std::net::SocketAddr::new(cli.options.host, cli.options.port));
    }
    let home = std::env::var_os("HOME").map(Into::into);
    let xdg_cache = std::env::var_os("XDG_CACHE_HOME").map(Into::into);
    let config = match Config::from_cli(cli, home, xdg_cache) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("ragdownd: {err}");
            return ExitCode::from(2);
        }
    };
    // Logs go to stderr: under stdio, stdout carries the protocol.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_new(&config.log).unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("ragdownd: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match config.command {
            Command::Stdio => ragdownd::app::run_stdio(config).await,
            Command::Health => unreachable!("answered before the configuration"),
            Command::Serve => {
                let listener = tokio::net::TcpListener::bind(config.listen)
                    .await
                    .map_err(|err| anyhow::anyhow!("cannot listen on {} (RAGDOWN_HOST, PORT): {err}", config.listen))?;
                ragdownd::app::run_serve(config, listener, shutdown_signal()).await
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("ragdownd: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// `ragdownd health`: 0 with `/api/status` on stdout when the server answers, 1 otherwise.
fn health(listen: std::net::SocketAddr) -> ExitCode {
    use embedd::health;
    match health::probe(health::local_address(listen), "/api/status", health::TIMEOUT) {
        Ok(status) => {
            println!("{status}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("ragdownd: unhealthy: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => {
                let _ = ctrl_c.await;
                return;
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
