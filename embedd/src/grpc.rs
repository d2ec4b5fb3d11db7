//! The gRPC transport: `embedd.v1.Embedder` over the scheduler.
//!
//! A thin adapter: it converts messages, picks the lane, and maps [`EmbedError`] to a
//! [`tonic::Status`] in one place ([`status`]). Authentication is an interceptor added by
//! [`crate::server`].

use std::pin::Pin;
use std::time::Duration;

use futures::{Stream, StreamExt};
use proto::embedd_v1 as pb;
use proto::embedd_v1::embedder_server::Embedder;
use tonic::{Request, Response, Status, Streaming};

use crate::EmbedError;
use crate::batch::Lane;
use crate::error::Class;
use crate::local::{EngineInfo, LocalEmbedder};
use crate::model::{Fingerprint, TextKind};

/// How many requests of one `EmbedStream` are in the queue at once; answers stay in order.
const STREAM_IN_FLIGHT: usize = 8;

/// The `Embedder` service.
#[derive(Debug, Clone)]
pub struct EmbedService {
    embedder: LocalEmbedder,
}

impl EmbedService {
    pub fn new(embedder: LocalEmbedder) -> Self {
        Self { embedder }
    }
}

/// The embedding layer's errors as gRPC statuses, by their [`Class`] (as HTTP maps them).
pub fn status(err: EmbedError) -> Status {
    let message = err.to_string();
    match err.class() {
        Class::Busy => Status::resource_exhausted(message),
        Class::BadRequest => Status::invalid_argument(message),
        Class::CannotServe => Status::unavailable(message),
        Class::Failed => Status::internal(message),
    }
}

/// The wire form of a fingerprint.
pub fn fingerprint(f: &Fingerprint) -> pb::Fingerprint {
    pb::Fingerprint {
        name: f.name.clone(),
        index_name: f.index_name.clone(),
        dim: f.dim as u32,
        pooling: f.pooling.clone(),
        query_prefix: f.query_prefix.clone(),
        document_prefix: f.document_prefix.clone(),
        max_tokens: f.max_tokens as u32,
        weights_sha256: f.weights_sha256.clone(),
    }
}

/// The wire form of the engine's settings.
pub fn info(info: &EngineInfo) -> pb::InfoResponse {
    pb::InfoResponse {
        fingerprint: Some(fingerprint(&info.fingerprint)),
        provider: info.provider.to_string(),
        threads: info.threads as u32,
        max_batch_tokens: info.limits.max_batch_tokens as u32,
        max_batch_size: info.limits.max_batch_size as u32,
        requested_provider: info.requested_provider.to_string(),
        bucket_step: info.bucketing.step as u32,
        pad_to_bucket: info.bucketing.pad_to_bucket,
        max_queue_tokens: info.max_queue_tokens.min(u32::MAX as usize) as u32,
        sessions: info.sessions as u32,
    }
}

/// The kind and lane a request asks for; unspecified kind is a document, unspecified lane
/// follows the kind.
fn kind_and_lane(request: &pb::EmbedRequest) -> Result<(TextKind, Lane), EmbedError> {
    let kind = match pb::TextKind::try_from(request.kind) {
        Ok(pb::TextKind::Query) => TextKind::Query,
        Ok(pb::TextKind::Document | pb::TextKind::Unspecified) => TextKind::Document,
        Err(_) => return Err(EmbedError::InvalidInput(format!("unknown text kind {}", request.kind))),
    };
    let lane = match pb::Lane::try_from(request.lane) {
        Ok(pb::Lane::Interactive) => Lane::Interactive,
        Ok(pb::Lane::Bulk) => Lane::Bulk,
        Ok(pb::Lane::Unspecified) => match kind {
            TextKind::Query => Lane::Interactive,
            TextKind::Document => Lane::Bulk,
        },
        Err(_) => return Err(EmbedError::InvalidInput(format!("unknown lane {}", request.lane))),
    };
    Ok((kind, lane))
}

fn micros(d: Duration) -> u64 {
    d.as_micros().min(u128::from(u64::MAX)) as u64
}

async fn embed_one(embedder: &LocalEmbedder, request: pb::EmbedRequest) -> Result<pb::EmbedResponse, Status> {
    let (kind, lane) = kind_and_lane(&request).map_err(status)?;
    let embedded = embedder.embed_in(request.texts, kind, lane).await.map_err(status)?;
    Ok(pb::EmbedResponse {
        vectors: embedded
            .vectors
            .into_iter()
            .map(|values| pb::Vector { values })
            .collect(),
        fingerprint: Some(fingerprint(embedder.fingerprint())),
        timings: Some(pb::Timings {
            tokenize_us: micros(embedded.timings.tokenize),
            queue_us: micros(embedded.timings.queue),
            inference_us: micros(embedded.timings.inference),
        }),
        tokens: embedded.tokens.min(u32::MAX as usize) as u32,
    })
}

#[tonic::async_trait]
impl Embedder for EmbedService {
    async fn embed(&self, request: Request<pb::EmbedRequest>) -> Result<Response<pb::EmbedResponse>, Status> {
        Ok(Response::new(embed_one(&self.embedder, request.into_inner()).await?))
    }

    type EmbedStreamStream = Pin<Box<dyn Stream<Item = Result<pb::EmbedResponse, Status>> + Send + 'static>>;

    async fn embed_stream(
        &self,
        request: Request<Streaming<pb::EmbedRequest>>,
    ) -> Result<Response<Self::EmbedStreamStream>, Status> {
        let embedder = self.embedder.clone();
        let answers = request
            .into_inner()
            .map(move |message| {
                let embedder = embedder.clone();
                async move { embed_one(&embedder, message?).await }
            })
            .buffered(STREAM_IN_FLIGHT);
        Ok(Response::new(Box::pin(answers)))
    }

    async fn info(&self, _: Request<pb::InfoRequest>) -> Result<Response<pb::InfoResponse>, Status> {
        Ok(Response::new(info(self.embedder.info())))
    }

    async fn health(&self, _: Request<pb::HealthRequest>) -> Result<Response<pb::HealthResponse>, Status> {
        let [interactive, bulk] = self.embedder.depth();
        Ok(Response::new(pb::HealthResponse {
            serving: true,
            queue_depth: (interactive.texts + bulk.texts) as u32,
            interactive_queued: interactive.texts as u32,
            bulk_queued: bulk.texts as u32,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(kind: i32, lane: i32) -> pb::EmbedRequest {
        pb::EmbedRequest {
            texts: vec![],
            kind,
            lane,
        }
    }

    #[test]
    fn unspecified_lane_follows_the_kind_and_unknown_values_are_refused() {
        let query = pb::TextKind::Query as i32;
        let document = pb::TextKind::Document as i32;
        assert_eq!(
            kind_and_lane(&request(query, 0)).unwrap(),
            (TextKind::Query, Lane::Interactive)
        );
        assert_eq!(kind_and_lane(&request(0, 0)).unwrap(), (TextKind::Document, Lane::Bulk));
        assert_eq!(
            kind_and_lane(&request(document, pb::Lane::Interactive as i32)).unwrap(),
            (TextKind::Document, Lane::Interactive)
        );
        assert!(matches!(
            kind_and_lane(&request(9, 0)),
            Err(EmbedError::InvalidInput(_))
        ));
        assert!(matches!(
            kind_and_lane(&request(0, 9)),
            Err(EmbedError::InvalidInput(_))
        ));
    }

    #[test]
    fn overload_is_resource_exhausted_and_a_dead_worker_unavailable() {
        let full = EmbedError::Overloaded {
            lane: "bulk",
            queued: 10,
            capacity: 10,
            asked: 5,
        };
        assert_eq!(status(full).code(), tonic::Code::ResourceExhausted);
        assert_eq!(status(EmbedError::WorkerGone).code(), tonic::Code::Unavailable);
        assert_eq!(
            status(EmbedError::InvalidInput("x".into())).code(),
            tonic::Code::InvalidArgument
        );
    }
}
