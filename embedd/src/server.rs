//! The embedd server: gRPC (with reflection) and HTTP over one scheduler, until shutdown.
//!
//! [`serve`] takes listeners that are already bound, so tests run the real server in-process on
//! `127.0.0.1:0`; `main` binds the configured addresses and passes SIGINT/SIGTERM as `shutdown`.

use std::future::Future;
use std::sync::Arc;

use proto::embedd_v1::embedder_server::EmbedderServer;
use tokio::net::TcpListener;

use crate::auth::authorized;
use crate::grpc::EmbedService;
use crate::local::LocalEmbedder;

/// Largest gRPC request accepted: a bulk request of a few thousand long chunks.
const MAX_REQUEST_BYTES: usize = 64 << 20;

/// What the transports need beyond the embedder.
#[derive(Debug, Clone, Default)]
pub struct ServeSettings {
    /// The bearer token every request must carry; `None` serves without one.
    pub token: Option<String>,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The gRPC server failed.
    #[error("gRPC server: {0}")]
    Grpc(#[from] tonic::transport::Error),
    /// The HTTP server failed.
    #[error("HTTP server: {0}")]
    Http(#[from] std::io::Error),
    /// The reflection service could not read the embedded descriptors.
    #[error("gRPC reflection: {0}")]
    Reflection(#[source] tonic_reflection::server::Error),
}

/// Serves gRPC on `grpc` and HTTP on `http` until `shutdown` resolves, then lets requests in
/// flight finish.
pub async fn serve(
    embedder: LocalEmbedder,
    settings: ServeSettings,
    grpc: TcpListener,
    http: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let token: Option<Arc<str>> = settings.token.filter(|t| !t.is_empty()).map(Arc::from);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop.send(true);
    });
    let signal = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    };

    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(ServeError::Reflection)?;
    let grpc_token = token.clone();
    let service = tonic::service::interceptor::InterceptedService::new(
        EmbedderServer::new(EmbedService::new(embedder.clone())).max_decoding_message_size(MAX_REQUEST_BYTES),
        move |request: tonic::Request<()>| {
            let given = request.metadata().get("authorization").map(|v| v.as_bytes());
            if authorized(grpc_token.as_deref(), given) {
                Ok(request)
            } else {
                Err(tonic::Status::unauthenticated(
                    "missing or wrong bearer token: send metadata authorization: Bearer <EMBEDD_TOKEN>",
                ))
            }
        },
    );
    let grpc_server = tonic::transport::Server::builder()
        .add_service(reflection)
        .add_service(service)
        .serve_with_incoming_shutdown(
            // Without TCP_NODELAY a small answer waits for the client's delayed ACK (~40 ms).
            tonic::transport::server::TcpIncoming::from(grpc).with_nodelay(Some(true)),
            signal(stopped.clone()),
        );

    let app = crate::http::router(embedder, token);
    let http = axum::serve::ListenerExt::tap_io(http, |tcp| {
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::warn!("cannot set TCP_NODELAY: {err}");
        }
    });
    let http_server = axum::serve(http, app).with_graceful_shutdown(signal(stopped));

    let (grpc_result, http_result) = tokio::join!(grpc_server, async { http_server.await });
    grpc_result?;
    http_result?;
    tracing::info!("embedd stopped");
    Ok(())
}
