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
use crate::error::Class;
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

/// An HTTP error with an OpenAI-style body. An [`EmbedError`] is mapped by its [`Class`], as
/// [`crate::grpc::status`] maps it.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl From<EmbedError> for ApiError {
    fn from(err: EmbedError) -> Self {
        let (status, kind) = match err.class() {
            Class::Busy => (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error"),
            Class::BadRequest => (StatusCode::BAD_REQUEST, "invalid_request_error"),
            Class::CannotServe => (StatusCode::SERVICE_UNAVAILABLE, "server_error"),
            Class::Failed => (StatusCode::INTERNAL_SERVER_ERROR, "server_error"),
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
    use tonic::Code;

    use super::*;

    fn every_error() -> Vec<EmbedError> {
        vec![
            EmbedError::Runtime("no libonnxruntime.so".into()),
            EmbedError::UnknownModel {
                name: "m".into(),
                known: "minilm".into(),
            },
            EmbedError::Unavailable {
                name: "m".into(),
                dir: "/nowhere".into(),
                reason: "offline".into(),
            },
            EmbedError::Load {
                name: "m".into(),
                reason: "r".into(),
            },
            EmbedError::Inference("x".into()),
            EmbedError::WorkerGone,
            EmbedError::Provider {
                provider: "cuda".into(),
                reason: "no driver".into(),
            },
            EmbedError::Overloaded {
                lane: "bulk",
                queued: 10,
                capacity: 10,
                asked: 5,
            },
            EmbedError::InvalidInput("x".into()),
        ]
    }

    /// HTTP's and gRPC's answers to one error: status, type, code and both messages.
    fn both(err: impl Fn() -> EmbedError) -> (StatusCode, &'static str, Code, String, String) {
        let api = ApiError::from(err());
        let grpc = crate::grpc::status(err());
        (
            api.status,
            api.kind,
            grpc.code(),
            api.message,
            grpc.message().to_owned(),
        )
    }

    #[test]
    fn every_error_gets_the_same_answer_over_http_and_grpc() {
        for k in 0..every_error().len() {
            let (http, kind, grpc, http_message, grpc_message) = both(|| every_error().swap_remove(k));
            let pair = match grpc {
                Code::ResourceExhausted => (StatusCode::TOO_MANY_REQUESTS, "rate_limit_error"),
                Code::InvalidArgument => (StatusCode::BAD_REQUEST, "invalid_request_error"),
                Code::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "server_error"),
                Code::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "server_error"),
                other => panic!("error {k} is {other:?} over gRPC, which has no HTTP pair here"),
            };
            assert_eq!((http, kind), pair, "error {k}: {http_message}");
            assert_eq!(http_message, grpc_message);
        }
    }

    #[test]
    fn overload_is_429_bad_input_400_a_model_that_cannot_load_503_and_a_failed_run_500() {
        // In every_error's order: runtime, unknown model, unavailable, load, inference, worker
        // gone, provider, overloaded, invalid input.
        let got: Vec<u16> = every_error()
            .into_iter()
            .map(|e| ApiError::from(e).status.as_u16())
            .collect();
        assert_eq!(got, [503, 503, 503, 503, 500, 503, 503, 429, 400]);
    }
}
