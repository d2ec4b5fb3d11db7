//! The one error type of the HTTP API, and the one place it becomes a response: `{error}` or
//! `{error, code}` with the failure's status. [`status_of`] is the one place a domain error's
//! [`ErrorKind`] becomes an HTTP status. Request bodies are read here too, so every route answers
//! a body that is too large or not JSON alike.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::error::{ErrorKind, Kinded};
use crate::tools::ToolError;

/// The largest JSON body a route accepts: 1 MiB.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The largest document `POST /api/doc` accepts: 4 MiB.
pub const MAX_DOC_BYTES: usize = 4 << 20;

/// A failed request: the status, the message shown, and a machine-readable code when clients
/// react to it (`changed`: the file is no longer the version the caller read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    pub code: Option<&'static str>,
}

/// A route's result.
pub type ApiResult<T = Response> = Result<T, ApiError>;

impl ApiError {
    /// A failure the HTTP layer decides itself (a route or URL that names nothing, 401, 405, 413),
    /// with its status as it is.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            code: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::of_kind(ErrorKind::Invalid, message)
    }

    pub fn not_found() -> Self {
        Self::of_kind(ErrorKind::NotFound, "Not found")
    }

    pub fn unauthorized() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "Unauthorized")
    }

    pub fn read_only() -> Self {
        Self::of_kind(ErrorKind::ReadOnly, crate::tools::write::READ_ONLY)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::of_kind(ErrorKind::Internal, message)
    }

    /// The answer while the index (and its model) is still loading.
    pub fn loading() -> Self {
        Self::of_kind(ErrorKind::Unavailable, "The index is still loading; retry shortly")
    }

    /// A domain error of `kind` showing `message`, answered as [`status_of`] says.
    pub fn of_kind(kind: ErrorKind, message: impl Into<String>) -> Self {
        let (status, code) = status_of(kind);
        Self {
            status,
            message: message.into(),
            code,
        }
    }
}

/// The status, and the machine-readable code when clients react to it, that each kind of failure
/// answers with over `/api`.
pub fn status_of(kind: ErrorKind) -> (StatusCode, Option<&'static str>) {
    match kind {
        ErrorKind::Invalid => (StatusCode::BAD_REQUEST, None),
        ErrorKind::ReadOnly => (StatusCode::FORBIDDEN, None),
        ErrorKind::NotFound => (StatusCode::NOT_FOUND, None),
        ErrorKind::Conflict => (StatusCode::CONFLICT, None),
        ErrorKind::Changed => (StatusCode::CONFLICT, Some("changed")),
        ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, None),
        ErrorKind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, None),
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = match self.code {
            Some(code) => json!({ "error": self.message, "code": code }),
            None => json!({ "error": self.message }),
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<ToolError> for ApiError {
    fn from(err: ToolError) -> Self {
        Self::of_kind(err.kind(), err.message())
    }
}

/// Any domain error is answered by its kind, with its message.
impl<E: Kinded> From<E> for ApiError {
    fn from(err: E) -> Self {
        Self::of_kind(err.kind(), err.to_string())
    }
}

/// A JSON request body of at most `LIMIT` bytes ([`MAX_BODY_BYTES`] unless the route says
/// otherwise): past it a 413 `Body too large`, not JSON a 400 `Body is not valid JSON`, JSON of
/// the wrong shape a 400 that says what is wrong.
#[derive(Debug)]
pub struct JsonBody<T, const LIMIT: usize = MAX_BODY_BYTES>(pub T);

impl<S: Send + Sync, T: DeserializeOwned, const LIMIT: usize> FromRequest<S> for JsonBody<T, LIMIT> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, ApiError> {
        let bytes = read_body(request.into_body(), LIMIT).await?;
        let value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|_| ApiError::bad_request("Body is not valid JSON"))?;
        serde_json::from_value(value)
            .map(JsonBody)
            .map_err(|err| ApiError::bad_request(format!("invalid body: {err}")))
    }
}

/// How much of a body past its limit is read (and dropped) before the connection is closed, so
/// that a client still sending an oversized upload gets to read the 413 rather than a reset.
const DRAIN_BYTES: usize = 4 * MAX_DOC_BYTES;

/// A request's body, refused with 413 past `limit` bytes.
pub async fn read_body(body: axum::body::Body, limit: usize) -> Result<Bytes, ApiError> {
    use futures::StreamExt;
    let mut stream = body.into_data_stream();
    let mut body = Vec::new();
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| ApiError::bad_request("the body could not be read"))?;
        total = total.saturating_add(chunk.len());
        if total <= limit {
            body.extend_from_slice(&chunk);
        } else if total > DRAIN_BYTES {
            break;
        }
    }
    if total > limit {
        return Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "Body too large"));
    }
    Ok(Bytes::from(body))
}

/// `response`, given once the request's `body` has been read and dropped (up to [`DRAIN_BYTES`]).
/// Every refusal decided before a body is read goes through here: hyper closes a connection whose
/// request body was left unread when it had not all come with the headers, and a client that
/// reuses the connection (an OAuth client fetching the metadata a 401 points at) meets a reset.
pub async fn after_body(body: axum::body::Body, response: Response) -> Response {
    let _ = read_body(body, 0).await;
    response
}

/// A route's query string, refused with a 400 in the API's shape when it does not parse.
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> axum::extract::FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, _state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        serde_urlencoded_query(query)
            .map(ApiQuery)
            .map_err(|err| ApiError::bad_request(format!("invalid query: {err}")))
    }
}

/// Why a query string did not parse.
#[derive(Debug, thiserror::Error)]
enum QueryError {
    /// It cannot be part of a URI.
    #[error(transparent)]
    Uri(#[from] axum::http::uri::InvalidUri),
    /// It is not the route's parameters.
    #[error("{}", .0.body_text())]
    Rejected(#[source] QueryRejection),
}

fn serde_urlencoded_query<T: DeserializeOwned>(query: &str) -> Result<T, QueryError> {
    axum::extract::Query::<T>::try_from_uri(&format!("/?{query}").parse()?)
        .map(|axum::extract::Query(value)| value)
        .map_err(QueryError::Rejected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_answers_with_its_status() {
        let answers = [
            (ErrorKind::Invalid, 400, None),
            (ErrorKind::ReadOnly, 403, None),
            (ErrorKind::NotFound, 404, None),
            (ErrorKind::Conflict, 409, None),
            (ErrorKind::Changed, 409, Some("changed")),
            (ErrorKind::Unavailable, 503, None),
            (ErrorKind::Internal, 500, None),
        ];
        for (kind, status, code) in answers {
            let err = ApiError::of_kind(kind, "x");
            assert_eq!((err.status.as_u16(), err.code), (status, code), "{kind:?}");
        }
    }
}
