//! The HTTP transport: an OpenAI-compatible `POST /v1/embeddings` and Prometheus `/metrics`.
//!
//! A thin adapter over the scheduler; [`ApiError`] is the one mapping from [`EmbedError`] to an
//! HTTP status with an OpenAI-style `{"error": {...}}` body. Every route but `/health` takes the
//! bearer token when one is set.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

use crate::EmbedError;
use crate::batch::Lane;
use crate::local::LocalEmbedder;
use crate::model::TextKind;

/// Largest request body: a bulk request of a few thousand long chunks (as for gRPC).
const MAX_BODY_BYTES: usize = 64 << 20;

/// The HTTP routes.
pub fn router(embedder: LocalEmbedder, token: Option<Arc<str>>) -> Router {
    let protected = Router::new()
        .route(
            "/v1/embeddings",
            post(embeddings).layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES)),
        )
        .route("/metrics", get(metrics))
        .route_layer(middleware::from_fn_with_state(token, require_token));
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(protected)
        .with_state(embedder)
}

async fn require_token(State(token): State<Option<Arc<str>>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|value| value.as_bytes());
    if crate::auth::authorized(token.as_deref(), given) {
        next.run(request).await
    } else {
        ApiError {
            status: StatusCode::UNAUTHORIZED,
            kind: "authentication_error",
            message: "missing or wrong bearer token: send Authorization: Bearer <EMBEDD_TOKEN>".into(),
        }
        .into_response()
    }
}

/// `input` is one string or an array of strings (token-id arrays are not supported).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Input {
    One(String),
    Many(Vec<String>),
}

/// The OpenAI embeddings request, plus two optional fields of ours. Its `model` field is not
/// read: the answer names the served model, since clients often hardcode an OpenAI model name.
#[derive(Debug, Deserialize)]
struct EmbeddingsRequest {
    input: Input,
    /// Only `float` is supported.
    #[serde(default)]
    encoding_format: Option<String>,
    /// `query` or `document` (default): models with prefixes treat them differently.
    #[serde(default)]
    kind: Option<String>,
    /// `interactive` or `bulk`; default: interactive for one string, bulk for an array.
    #[serde(default)]
    lane: Option<String>,
}

#[derive(Debug, Serialize)]
struct EmbeddingsResponse {
    object: &'static str,
    data: Vec<EmbeddingData>,
    model: String,
    usage: Usage,
}

#[derive(Debug, Serialize)]
struct EmbeddingData {
    object: &'static str,
    index: usize,
    embedding: Vec<f32>,
}

#[derive(Debug, Serialize)]
struct Usage {
    prompt_tokens: usize,
    total_tokens: usize,
}

async fn embeddings(
    State(embedder): State<LocalEmbedder>,
    body: Result<Json<EmbeddingsRequest>, JsonRejection>,
) -> Result<Json<EmbeddingsResponse>, ApiError> {
    let Json(request) = body.map_err(|rejection| ApiError {
        status: StatusCode::BAD_REQUEST,
        kind: "invalid_request_error",
        message: rejection.body_text(),
    })?;
    if let Some(format) = request.encoding_format.as_deref().filter(|f| *f != "float") {
        return Err(
            EmbedError::InvalidInput(format!("encoding_format {format:?} is not supported; use \"float\"")).into(),
        );
    }
    let kind = match request.kind.as_deref() {
        None | Some("document") => TextKind::Document,
        Some("query") => TextKind::Query,
        Some(other) => return Err(EmbedError::InvalidInput(format!("kind {other:?} is not query or document")).into()),
    };
    let (texts, default_lane) = match request.input {
        Input::One(text) => (vec![text], Lane::Interactive),
        Input::Many(texts) => (texts, Lane::Bulk),
    };
    let lane = match request.lane.as_deref() {
        None => default_lane,
        Some("interactive") => Lane::Interactive,
        Some("bulk") => Lane::Bulk,
        Some(other) => {
            return Err(EmbedError::InvalidInput(format!("lane {other:?} is not interactive or bulk")).into());
        }
    };
    let embedded = embedder.embed_in(texts, kind, lane).await?;
    Ok(Json(EmbeddingsResponse {
        object: "list",
        data: embedded
            .vectors
            .into_iter()
            .enumerate()
            .map(|(index, embedding)| EmbeddingData {
                object: "embedding",
                index,
                embedding,
            })
            .collect(),
        model: embedder.fingerprint().name.clone(),
        usage: Usage {
            prompt_tokens: embedded.tokens,
            total_tokens: embedded.tokens,
        },
    }))
}

async fn metrics(State(embedder): State<LocalEmbedder>) -> impl IntoResponse {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    (headers, embedder.metrics().render())
}

/// An HTTP error with an OpenAI-style body. Its `From<EmbedError>` names every error, as
/// [`crate::grpc::status`] does, so a new one must be given its HTTP status here.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl From<EmbedError> for ApiError {
    fn from(err: EmbedError) -> Self {
        let (status, kind) = match &err {
            EmbedError::Overloaded { .. } => (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error"),
            EmbedError::InvalidInput(_) => (StatusCode::BAD_REQUEST, "invalid_request_error"),
            EmbedError::WorkerGone => (StatusCode::SERVICE_UNAVAILABLE, "server_error"),
            EmbedError::Inference(_)
            | EmbedError::Runtime(_)
            | EmbedError::UnknownModel { .. }
            | EmbedError::Unavailable { .. }
            | EmbedError::Load { .. }
            | EmbedError::Provider { .. } => (StatusCode::INTERNAL_SERVER_ERROR, "server_error"),
        };
        Self {
            status,
            kind,
            message: err.to_string(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "error": { "message": self.message, "type": self.kind, "code": self.status.as_u16() }
        });
        (self.status, Json(body)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapped(err: EmbedError) -> (StatusCode, &'static str) {
        let api = ApiError::from(err);
        (api.status, api.kind)
    }

    #[test]
    fn overload_is_429_bad_input_400_a_dead_worker_503_and_the_rest_500() {
        let full = EmbedError::Overloaded {
            lane: "bulk",
            queued: 10,
            capacity: 10,
            asked: 5,
        };
        assert_eq!(mapped(full), (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error"));
        assert_eq!(
            mapped(EmbedError::InvalidInput("x".into())),
            (StatusCode::BAD_REQUEST, "invalid_request_error")
        );
        assert_eq!(
            mapped(EmbedError::WorkerGone),
            (StatusCode::SERVICE_UNAVAILABLE, "server_error")
        );
        let failed = EmbedError::Inference("x".into());
        assert_eq!(mapped(failed), (StatusCode::INTERNAL_SERVER_ERROR, "server_error"));
        let load = EmbedError::Load {
            name: "m".into(),
            reason: "r".into(),
        };
        assert_eq!(mapped(load), (StatusCode::INTERNAL_SERVER_ERROR, "server_error"));
    }
}
