//! The remote embedder: one or more `embedd` workers over gRPC, with the in-process CPU model as
//! the fallback.
//!
//! - Each batch is cut into even parts (a multiple of the healthy workers, at most 64 texts each)
//!   that go, concurrently, to the healthy worker with the least outstanding work. Queries ride
//!   the interactive lane, documents the bulk lane.
//! - A part whose worker fails or times out is retried on another worker; that worker is taken out
//!   until a health check finds it answering again. A busy worker (`RESOURCE_EXHAUSTED`) stays in,
//!   and the part waits briefly and tries again.
//! - When no worker answers, the in-process CPU model takes over, loaded on first need, and the log
//!   says so loudly; workers that come back are used again.
//! - Every answer carries the worker's model fingerprint. A worker, or a fallback, whose
//!   fingerprint differs from the one this index was built with is refused: mixing vectors of two
//!   models in one index would make every search quietly wrong.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use embedd::model::{Fingerprint, ModelSource};
use embedd::registry::{self, ModelSpec};
use embedd::{LocalEmbedder, LocalOptions, TextKind};
use futures::future::BoxFuture;
use parking_lot::Mutex;
use proto::embedd_v1::embedder_client::EmbedderClient;
use proto::embedd_v1::{self as pb, EmbedRequest, InfoRequest, Lane};
use tokio::sync::OnceCell;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};

use super::{EmbedError, Embedder};

/// Most texts one gRPC call carries; a larger batch is split so several workers share it.
pub const PART_TEXTS: usize = 64;

/// How many texts each part of an `n`-text batch carries, in order, for `workers` live workers:
/// at most [`PART_TEXTS`] each, as even as can be, and a multiple of `workers` parts, so that
/// sending each to the least busy worker leaves every worker the same share. (Cut into parts of
/// 64, 210 texts on two workers went 128 to one and 82 to the other: 143 chunks/s where one
/// worker with both threads did 170.)
fn part_sizes(n: usize, workers: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let workers = workers.max(1);
    let parts = n.div_ceil(PART_TEXTS).div_ceil(workers) * workers;
    let parts = parts.min(n);
    (0..parts).map(|i| n / parts + usize::from(i < n % parts)).collect()
}

/// How often workers that are out are checked.
const HEALTH_EVERY: Duration = Duration::from_secs(2);

/// How long a worker has to answer `Info` at start and in health checks.
const INFO_TIMEOUT: Duration = Duration::from_secs(3);

/// What the remote embedder needs besides the worker addresses.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// `http://host:port` of each worker.
    pub urls: Vec<String>,
    /// `EMBEDD_TOKEN` of the workers, sent as a bearer token.
    pub token: Option<String>,
    /// How long one call may take before it is retried elsewhere.
    pub timeout: Duration,
    /// The model to expect (`RAGDOWN_EMBEDDER`); `None` accepts the workers' model.
    pub model: Option<&'static ModelSpec>,
    /// Where the fallback's model files live.
    pub source: ModelSource,
    /// Threads and batching of the fallback.
    pub local: LocalOptions,
}

/// Adds the bearer token to every call.
#[derive(Debug, Clone)]
struct Bearer(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert("authorization", value.clone());
        }
        Ok(request)
    }
}

type Client = EmbedderClient<InterceptedService<Channel, Bearer>>;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Health {
    Up,
    /// Failed a call or a check; out until a check passes.
    Down(String),
    /// Serves another model; out until a check finds the expected one.
    Refused(String),
}

#[derive(Debug)]
struct Worker {
    url: String,
    client: Client,
    /// Texts sent and not yet answered.
    outstanding: AtomicUsize,
    health: Mutex<Health>,
}

impl Worker {
    fn health(&self) -> Health {
        self.health.lock().clone()
    }

    fn set_health(&self, health: Health) {
        let mut current = self.health.lock();
        if *current != health {
            match &health {
                Health::Up => tracing::info!(worker = %self.url, "embedd worker is answering; sending it work"),
                Health::Down(reason) => {
                    tracing::warn!(worker = %self.url, "embedd worker out: {reason}; retrying its work elsewhere")
                }
                Health::Refused(reason) => tracing::error!(worker = %self.url, "embedd worker refused: {reason}"),
            }
            *current = health;
        }
    }

    async fn info(&self) -> Result<Fingerprint, InfoError> {
        let mut client = self.client.clone();
        let call = client.info(InfoRequest {});
        match tokio::time::timeout(INFO_TIMEOUT, call).await {
            Ok(Ok(answer)) => answer
                .into_inner()
                .fingerprint
                .map(from_wire)
                .ok_or(InfoError::NoFingerprint),
            Ok(Err(status)) => Err(InfoError::Status(status)),
            Err(_) => Err(InfoError::Timeout),
        }
    }
}

/// Why a worker's `Info` gave no fingerprint.
#[derive(Debug, thiserror::Error)]
enum InfoError {
    #[error("Info carried no fingerprint")]
    NoFingerprint,
    #[error("{}", describe(.0))]
    Status(#[source] tonic::Status),
    #[error("no answer to Info within {INFO_TIMEOUT:?}")]
    Timeout,
}

/// A fingerprint as it travels.
fn from_wire(f: pb::Fingerprint) -> Fingerprint {
    Fingerprint {
        name: f.name,
        index_name: f.index_name,
        dim: f.dim as usize,
        pooling: f.pooling,
        query_prefix: f.query_prefix,
        document_prefix: f.document_prefix,
        max_tokens: f.max_tokens as usize,
        weights_sha256: f.weights_sha256,
    }
}

fn describe(status: &tonic::Status) -> String {
    format!("{:?}: {}", status.code(), status.message())
}

/// Why two fingerprints differ, for the log; `None` when they are equal.
fn mismatch(expected: &Fingerprint, got: &Fingerprint) -> Option<String> {
    (expected != got).then(|| {
        format!(
            "it serves {} (weights {}), but this index holds vectors of {} (weights {})",
            got.index_name,
            short(&got.weights_sha256),
            expected.index_name,
            short(&expected.weights_sha256)
        )
    })
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

struct Inner {
    workers: Vec<Arc<Worker>>,
    expected: Fingerprint,
    key: String,
    spec: Option<&'static ModelSpec>,
    timeout: Duration,
    /// The in-process model, loaded on first need (or at start when no worker answered).
    fallback: OnceCell<LocalEmbedder>,
    source: ModelSource,
    local: LocalOptions,
    /// Whether the last part went to the fallback (for logging the switch once each way).
    on_fallback: AtomicBool,
    /// Where the least-outstanding choice starts looking, so ties rotate.
    next: AtomicUsize,
}

/// One or more `embedd` workers behind the [`Embedder`] trait.
#[derive(Clone)]
pub struct RemoteEmbedder {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for RemoteEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteEmbedder")
            .field(
                "workers",
                &self.inner.workers.iter().map(|w| &w.url).collect::<Vec<_>>(),
            )
            .field("model", &self.inner.expected.index_name)
            .finish()
    }
}

impl RemoteEmbedder {
    /// Connects to the workers and agrees on the model. A worker that does not answer now is
    /// checked again later; with none answering, the in-process model is loaded at once, and its
    /// fingerprint is the one workers must match.
    pub async fn connect(options: RemoteOptions) -> Result<Self, EmbedError> {
        let workers = workers(&options)?;
        let answers = futures::future::join_all(workers.iter().map(|w| w.info())).await;
        let fallback = OnceCell::new();
        let expected = match agreed_model(&options, &answers) {
            Some(expected) => expected,
            None => {
                let embedder = start_fallback(&options).await?;
                let expected = embedder.fingerprint().clone();
                let _ = fallback.set(embedder);
                expected
            }
        };
        for (worker, answer) in workers.iter().zip(answers) {
            worker.set_health(match answer {
                Ok(got) => match mismatch(&expected, &got) {
                    None => Health::Up,
                    Some(reason) => Health::Refused(reason),
                },
                Err(reason) => Health::Down(reason.to_string()),
            });
        }
        let spec = registry::find(&expected.name);
        let inner = Arc::new(Inner {
            workers,
            key: super::fingerprint_key(&expected),
            expected,
            spec,
            timeout: options.timeout,
            on_fallback: AtomicBool::new(fallback.initialized()),
            fallback,
            source: options.source,
            local: options.local,
            next: AtomicUsize::new(0),
        });
        tokio::spawn(check_health(Arc::downgrade(&inner)));
        Ok(Self { inner })
    }

    /// The model every worker must serve.
    pub fn expected(&self) -> &Fingerprint {
        &self.inner.expected
    }

    /// How many workers are taking work now.
    pub fn workers_up(&self) -> usize {
        self.inner.workers.iter().filter(|w| w.health() == Health::Up).count()
    }
}

/// A worker per URL, each on a lazily connected channel (one that is down now is only found out
/// by the first call), sending the bearer token when there is one.
fn workers(options: &RemoteOptions) -> Result<Vec<Arc<Worker>>, EmbedError> {
    let refused = |reason: String| EmbedError::Load {
        name: "embedd".into(),
        reason,
    };
    if options.urls.is_empty() {
        return Err(refused("RAGDOWN_EMBEDD_URL names no worker".into()));
    }
    let bearer = match &options.token {
        Some(token) => Some(
            format!("Bearer {token}")
                .parse()
                .map_err(|_| refused("the embedd token holds characters a header cannot carry".into()))?,
        ),
        None => None,
    };
    let mut workers = Vec::new();
    for url in &options.urls {
        let endpoint = Endpoint::from_shared(url.clone())
            .map_err(|err| refused(format!("not a worker address: {url:?} ({err}); use http://host:port")))?
            .connect_timeout(Duration::from_secs(2))
            .timeout(options.timeout)
            .tcp_nodelay(true);
        let channel = endpoint.connect_lazy();
        workers.push(Arc::new(Worker {
            url: url.clone(),
            client: EmbedderClient::with_interceptor(channel, Bearer(bearer.clone()))
                .max_decoding_message_size(64 << 20)
                .max_encoding_message_size(64 << 20),
            outstanding: AtomicUsize::new(0),
            health: Mutex::new(Health::Down("not checked yet".into())),
        }));
    }
    Ok(workers)
}

/// The model to agree on: the one asked for, else the first answering worker's; `None` when no
/// worker answers with it.
fn agreed_model(options: &RemoteOptions, answers: &[Result<Fingerprint, InfoError>]) -> Option<Fingerprint> {
    answers
        .iter()
        .flatten()
        .find(|fingerprint| options.model.is_none_or(|spec| spec.name == fingerprint.name))
        .cloned()
}

/// The in-process model, started when no worker answers with the model: the one asked for, else
/// (no worker answered at all) the default. Its fingerprint is then the one workers must match.
async fn start_fallback(options: &RemoteOptions) -> Result<LocalEmbedder, EmbedError> {
    let spec = options
        .model
        .unwrap_or_else(|| registry::find(registry::DEFAULT_MODEL).expect("the default model is known"));
    tracing::warn!(
        "!!! no embedd worker answers with {}; embedding in-process on the CPU until one does",
        spec.name
    );
    let (source, local) = (options.source.clone(), options.local.clone());
    tokio::task::spawn_blocking(move || LocalEmbedder::start(spec, &source, &local))
        .await
        .map_err(|err| EmbedError::Inference(err.to_string()))?
}

/// Brings workers that are out back in once they answer with the expected model.
async fn check_health(inner: Weak<Inner>) {
    loop {
        tokio::time::sleep(HEALTH_EVERY).await;
        let Some(inner) = inner.upgrade() else { return };
        let out: Vec<Arc<Worker>> = inner
            .workers
            .iter()
            .filter(|w| w.health() != Health::Up)
            .cloned()
            .collect();
        for worker in out {
            match worker.info().await {
                Ok(got) => worker.set_health(match mismatch(&inner.expected, &got) {
                    None => Health::Up,
                    Some(reason) => Health::Refused(reason),
                }),
                Err(reason) => worker.set_health(Health::Down(reason.to_string())),
            }
        }
    }
}

/// What one attempt at a part came to.
enum Attempt {
    Done(Vec<Vec<f32>>),
    /// The worker is busy (backpressure); it stays in.
    Busy,
    /// The worker failed; it is out.
    Failed,
}

impl Inner {
    /// The healthy worker with the least outstanding work that `tried` does not hold.
    fn pick(&self, tried: &[usize]) -> Option<usize> {
        let count = self.workers.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..count)
            .map(|offset| (start + offset) % count)
            .filter(|i| !tried.contains(i) && self.workers[*i].health() == Health::Up)
            .min_by_key(|i| self.workers[*i].outstanding.load(Ordering::Relaxed))
    }

    async fn attempt(&self, index: usize, texts: &[String], kind: TextKind) -> Attempt {
        let worker = &self.workers[index];
        let request = EmbedRequest {
            texts: texts.to_vec(),
            kind: match kind {
                TextKind::Query => pb::TextKind::Query,
                TextKind::Document => pb::TextKind::Document,
            } as i32,
            lane: match kind {
                TextKind::Query => Lane::Interactive,
                TextKind::Document => Lane::Bulk,
            } as i32,
        };
        worker.outstanding.fetch_add(texts.len(), Ordering::Relaxed);
        let mut client = worker.client.clone();
        let answer = tokio::time::timeout(self.timeout, client.embed(request)).await;
        worker.outstanding.fetch_sub(texts.len(), Ordering::Relaxed);
        let answer = match answer {
            Ok(Ok(answer)) => answer.into_inner(),
            Ok(Err(status)) if status.code() == tonic::Code::ResourceExhausted => return Attempt::Busy,
            Ok(Err(status)) => {
                worker.set_health(Health::Down(describe(&status)));
                return Attempt::Failed;
            }
            Err(_) => {
                worker.set_health(Health::Down(format!("no answer within {:?}", self.timeout)));
                return Attempt::Failed;
            }
        };
        let got = answer.fingerprint.map(from_wire);
        if let Some(reason) = got.as_ref().and_then(|got| mismatch(&self.expected, got)) {
            worker.set_health(Health::Refused(reason));
            return Attempt::Failed;
        }
        let vectors: Vec<Vec<f32>> = answer.vectors.into_iter().map(|v| v.values).collect();
        if vectors.len() != texts.len() || vectors.iter().any(|v| v.len() != self.expected.dim) {
            worker.set_health(Health::Down(format!(
                "answered {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
            return Attempt::Failed;
        }
        Attempt::Done(vectors)
    }

    /// One part: workers first, then the fallback.
    async fn embed_part(&self, texts: Vec<String>, kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let deadline = Instant::now() + self.timeout;
        let mut tried = Vec::new();
        let mut busy = false;
        loop {
            let Some(index) = self.pick(&tried) else {
                // Every worker was tried. Busy ones get another round after a short wait; failed
                // ones are out until a health check.
                if busy && Instant::now() < deadline {
                    tried.clear();
                    busy = false;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
                break;
            };
            tried.push(index);
            match self.attempt(index, &texts, kind).await {
                Attempt::Done(vectors) => {
                    if self.on_fallback.swap(false, Ordering::Relaxed) {
                        tracing::info!("embedd workers answer again; the in-process fallback is idle");
                    }
                    return Ok(vectors);
                }
                Attempt::Busy => busy = true,
                Attempt::Failed => {}
            }
        }
        self.embed_locally(texts, kind).await
    }

    async fn embed_locally(&self, texts: Vec<String>, kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let fallback = self
            .fallback
            .get_or_try_init(|| async {
                let spec = self.spec.ok_or_else(|| {
                    EmbedError::Inference(format!(
                        "no embedd worker answers, and {} is not a model this build can load in-process",
                        self.expected.name
                    ))
                })?;
                let (source, local) = (self.source.clone(), self.local.clone());
                let embedder = tokio::task::spawn_blocking(move || LocalEmbedder::start(spec, &source, &local))
                    .await
                    .map_err(|err| EmbedError::Inference(err.to_string()))?
                    .map_err(|err| {
                        EmbedError::Inference(format!(
                            "no embedd worker answers, and the in-process fallback cannot load: {err}"
                        ))
                    })?;
                Ok::<_, EmbedError>(embedder)
            })
            .await?;
        if let Some(reason) = mismatch(&self.expected, fallback.fingerprint()) {
            return Err(EmbedError::Inference(format!(
                "no embedd worker answers, and the in-process fallback is refused: {reason}"
            )));
        }
        if !self.on_fallback.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "!!! no embedd worker answers; embedding in-process on the CPU with {} until one does",
                self.expected.index_name
            );
        }
        fallback.embed(texts, kind).await
    }
}

impl Embedder for RemoteEmbedder {
    fn index_name(&self) -> &str {
        &self.inner.expected.index_name
    }

    fn fingerprint(&self) -> String {
        self.inner.key.clone()
    }

    fn dim(&self) -> usize {
        self.inner.expected.dim
    }

    fn min_score(&self) -> f32 {
        self.inner
            .spec
            .and_then(|spec| spec.min_score)
            .unwrap_or(registry::DEFAULT_MIN_SCORE)
    }

    fn unrelated_score(&self) -> Option<f32> {
        self.inner.spec.and_then(|spec| spec.unrelated_score)
    }

    fn multilingual(&self) -> Option<bool> {
        self.inner.spec.map(|spec| spec.multilingual)
    }

    fn heading_weight(&self) -> Option<f32> {
        self.inner.spec.and_then(|spec| spec.heading_weight)
    }

    fn embed<'a>(&'a self, texts: Vec<String>, kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(async move {
            let live = self.inner.workers.iter().filter(|w| w.health() == Health::Up).count();
            let mut rest = texts.as_slice();
            let mut parts = Vec::new();
            for size in part_sizes(texts.len(), live) {
                let (part, tail) = rest.split_at(size);
                parts.push(self.inner.embed_part(part.to_vec(), kind));
                rest = tail;
            }
            let answers = futures::future::try_join_all(parts).await?;
            Ok(answers.concat())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(sha: &str) -> Fingerprint {
        Fingerprint {
            name: "minilm".into(),
            index_name: "all-MiniLM-L6-v2-q8".into(),
            dim: 384,
            pooling: "mean".into(),
            query_prefix: String::new(),
            document_prefix: String::new(),
            max_tokens: 256,
            weights_sha256: sha.into(),
        }
    }

    #[test]
    fn parts_share_a_batch_evenly_among_the_workers() {
        assert_eq!(part_sizes(210, 2), [53, 53, 52, 52]);
        assert_eq!(part_sizes(210, 1), [53, 53, 52, 52]);
        assert_eq!(part_sizes(210, 3), [35; 6]);
        assert_eq!(part_sizes(64, 1), [64]);
        assert_eq!(part_sizes(65, 1), [33, 32]);
        assert_eq!(part_sizes(3, 4), [1, 1, 1], "never an empty part");
        assert_eq!(part_sizes(1, 0), [1], "no live worker: one part, for the fallback");
        assert!(part_sizes(0, 2).is_empty());
        for (n, workers) in [(1000, 2), (257, 3), (10, 2)] {
            let sizes = part_sizes(n, workers);
            assert_eq!(sizes.iter().sum::<usize>(), n);
            assert!(sizes.iter().all(|&s| (1..=PART_TEXTS).contains(&s)), "{sizes:?}");
            assert_eq!(sizes.len() % workers, 0, "{sizes:?}");
        }
    }

    #[test]
    fn fingerprints_must_match_in_every_field() {
        let a = fingerprint("8199be6f699a395f99f89df973f9dc52");
        assert_eq!(mismatch(&a, &a.clone()), None);
        let reason = mismatch(&a, &fingerprint("0000000000000000")).unwrap();
        assert!(reason.contains("weights 000000000000"), "{reason}");
        assert!(reason.contains("weights 8199be6f699a"), "{reason}");
        let mut prefixed = a.clone();
        prefixed.query_prefix = "query: ".into();
        assert!(mismatch(&a, &prefixed).is_some());
    }

    #[test]
    fn wire_fingerprints_keep_every_field() {
        let wire = pb::Fingerprint {
            name: "minilm".into(),
            index_name: "all-MiniLM-L6-v2-q8".into(),
            dim: 384,
            pooling: "mean".into(),
            query_prefix: String::new(),
            document_prefix: String::new(),
            max_tokens: 256,
            weights_sha256: "abc".into(),
        };
        assert_eq!(from_wire(wire), fingerprint("abc"));
    }
}
