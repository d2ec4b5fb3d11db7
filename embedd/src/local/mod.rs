//! The scheduler: model workers that own the session, behind a cloneable async handle.
//!
//! Callers tokenize on their own task (or a blocking thread for big requests), then put their
//! texts in one of two queues ([`Lane`], [`queue`]) and await the answer on a oneshot channel. A
//! worker thread ([`worker`]) owns a session of the [`Model`]; it takes the next batch with
//! [`crate::batch::next_lane`] and [`crate::batch::pick`] (interactive first, one length bucket under the token
//! budget), runs it and hands each vector back to its request. A full queue refuses new work
//! instead of growing. When bulk work is done for a while ([`LocalEmbedder::rest`], or
//! [`LocalOptions::rest_after_idle`] without any), the bulk sessions give their memory back and
//! are made again by the next bulk batch.
//!
//! This is both `ragdownd`'s in-process embedder and the core the `embedd` server's transports
//! share. It must not know about transports: gRPC and HTTP map its errors at their edge.

mod queue;
mod worker;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use tokio::sync::oneshot;

use self::queue::{Queue, Shared};
use self::worker::{Session, lower_this_threads_priority};
use crate::EmbedError;
use crate::batch::{BatchLimits, Bucketing, Lane};
use crate::metrics::Metrics;
use crate::model::{self, Encoder, Fingerprint, Model, ModelSource, SessionMaker, TextKind};
use crate::provider::Provider;
use crate::registry::ModelSpec;
use crate::runtime::RuntimeOptions;

/// How the embedder runs.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// ONNX Runtime intra-op threads, shared out among the sessions.
    pub threads: usize,
    /// Sessions that run batches side by side (data parallel), each with its share of
    /// `threads`; 0 picks [`auto_sessions`]. GPU providers always run one.
    pub sessions: usize,
    /// Batch limits for the length-bucketing policy.
    pub limits: BatchLimits,
    /// The execution provider; `auto` tries the GPU providers first and falls back to CPU.
    pub provider: Provider,
    /// Length buckets; `None` picks [`Bucketing::GPU`] or [`Bucketing::CPU`] by the provider
    /// that really runs.
    pub bucketing: Option<Bucketing>,
    /// Most tokens one lane may hold queued. A request that would go past it is refused with
    /// [`EmbedError::Overloaded`]; a request into an empty lane is always taken, however big.
    pub max_queue_tokens: usize,
    /// Start with the worker paused until [`LocalEmbedder::resume`], to fill the queues first
    /// (tests use it to make lane order and backpressure deterministic).
    pub start_paused: bool,
    /// A second session, with one thread, that serves only the interactive lane, so a query
    /// never waits for the bulk batch already running (one more copy of the weights in memory).
    pub interactive_session: bool,
    /// How long the bulk lane stays idle before the bulk sessions rest on their own (as after
    /// [`LocalEmbedder::rest`]); `None`: only when told.
    pub rest_after_idle: Option<Duration>,
}

/// The bulk sessions rest after this long without bulk work, unless told otherwise.
///
/// An `embedd` server never hears that a client's sync ended, and an edit's small sync in
/// ragdownd does not ask for a rest (`ragdownd`'s `REST_AFTER_CHUNKS`), so without a timer the
/// bulk sessions' arenas (about 100 MB each with `minilm-fp32` once they have run big batches)
/// stay for as long as the process lives. A minute is long past any gap between a sync's batches
/// and costs a remade session (about 0.3 s for minilm on 2 cores, in the next bulk batch, never
/// in a query) at most once a minute.
pub const DEFAULT_REST_AFTER_IDLE: Duration = Duration::from_secs(60);

/// [`LocalOptions::rest_after_idle`] from a setting in seconds, where 0 means never
/// (`EMBEDD_REST_AFTER_SECS`, ragdownd's `RAGDOWN_REST_AFTER_SECS`).
pub fn rest_after_secs(secs: u64) -> Option<Duration> {
    (secs > 0).then(|| Duration::from_secs(secs))
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self {
            threads: default_threads(),
            sessions: 0,
            limits: BatchLimits::default(),
            provider: Provider::Cpu,
            bucketing: None,
            // About 11,000 runbook chunks of ~90 tokens per lane.
            max_queue_tokens: 1 << 20,
            start_paused: false,
            interactive_session: true,
            rest_after_idle: Some(DEFAULT_REST_AFTER_IDLE),
        }
    }
}

/// Every core the process may use, at least one.
///
/// Half the cores left a newcomer's first index at half speed (41 against 86-92 chunks/s on a
/// 2-core machine, issue 14). Serving does not need the other half held back: the bulk sessions'
/// threads run at nice +10 ([`BULK_NICE_STEP`]), so a query's session and the server's own
/// threads still get a core when they want one. `RAGDOWN_THREADS` / `EMBEDD_THREADS` set fewer.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(1)
}

/// Sessions for `threads` CPU threads when none are asked for: one per thread, at most two.
///
/// A small encoder's matrices are too small for intra-op threads to pay: on our 2-core machine
/// two one-thread sessions embedding side by side did 1.04-1.23x the chunks/s of one two-thread
/// session (minilm, `bench/reindex.sh`; `bench/results/README.md`). But each session costs
/// memory: a second bulk session added 30 MB to the peak with `minilm-fp32`, whose sessions share
/// one copy of the weights, and about 100 MB with the int8 build, whose weights ONNX Runtime folds
/// into float copies of each session's own (`ragdown-bench index`, 2026-12-02; see
/// embedd/src/weights.rs). More than two were never measured for speed, so past two threads the
/// two sessions share them out; `EMBEDD_SESSIONS` asks for more.
pub fn auto_sessions(threads: usize) -> usize {
    threads.clamp(1, 2)
}

/// `threads` shared out among `sessions`, the first ones getting the remainder.
fn session_threads(threads: usize, sessions: usize) -> Vec<usize> {
    let sessions = sessions.clamp(1, threads.max(1));
    (0..sessions)
        .map(|i| (threads / sessions + usize::from(i < threads % sessions)).max(1))
        .collect()
}

/// What runs the model and how: what the server's `Info` reports.
#[derive(Debug, Clone)]
pub struct EngineInfo {
    /// What identifies the vectors the model makes.
    pub fingerprint: Fingerprint,
    /// The provider that really runs the model (never `auto`).
    pub provider: Provider,
    /// The provider asked for at start.
    pub requested_provider: Provider,
    /// Intra-op threads in all the bulk sessions together.
    pub threads: usize,
    /// Sessions running batches side by side (not counting the interactive one).
    pub sessions: usize,
    /// Weight tensors every session uses one copy of (0: each session holds its own weights).
    pub shared_weights: usize,
    /// The limits every batch keeps to.
    pub limits: BatchLimits,
    /// The length buckets batches are made of (the provider's unless set).
    pub bucketing: Bucketing,
    /// Most tokens one lane may hold queued.
    pub max_queue_tokens: usize,
}

/// Where one request's time went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timings {
    /// Tokenizing its texts.
    pub tokenize: Duration,
    /// From entering the queue to its first batch starting.
    pub queue: Duration,
    /// The batches that held its texts, in the model (whole batches, shared with others).
    pub inference: Duration,
}

/// The answer to one request.
#[derive(Debug, Clone, Default)]
pub struct Embedded {
    /// One unit-length vector per text, in request order.
    pub vectors: Vec<Vec<f32>>,
    /// Tokens of the texts, special tokens included, padding not.
    pub tokens: usize,
    /// Where the request's time went.
    pub timings: Timings,
}

/// How many tokens and texts wait in a lane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Depth {
    /// Texts waiting.
    pub texts: usize,
    /// Their tokens.
    pub tokens: usize,
}

/// A cloneable handle to a model running on its own thread.
#[derive(Clone)]
pub struct LocalEmbedder {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    encoder: Encoder,
    info: EngineInfo,
    spec: &'static ModelSpec,
    dir: PathBuf,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The last handle is gone: the worker finishes and drops the model.
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder").field("info", &self.inner.info).finish()
    }
}

/// Requests with at most this many texts are tokenized on the calling task; bigger ones on a
/// blocking thread, so a bulk request never stalls the async runtime.
const INLINE_TOKENIZE: usize = 8;

impl LocalEmbedder {
    /// Finds (or downloads) `spec`'s files, loads the model and starts its worker thread.
    /// Blocking: call it from a blocking context.
    pub fn start(spec: &'static ModelSpec, source: &ModelSource, options: &LocalOptions) -> Result<Self, EmbedError> {
        let dir = model::resolve(spec, source)?;
        Self::start_from_dir(spec, &dir, &source.runtime, options)
    }

    /// Loads the model in `dir` and starts its worker thread. Blocking.
    pub fn start_from_dir(
        spec: &'static ModelSpec,
        dir: &Path,
        runtime: &RuntimeOptions,
        options: &LocalOptions,
    ) -> Result<Self, EmbedError> {
        let threads = options.threads.max(1);
        let mut shares = session_threads(threads, wanted_sessions(options, threads));
        let (model, provider) = Model::load_best(spec, dir, shares[0], options.provider, runtime)?;
        if provider.is_gpu() {
            // One session feeds a GPU; more would only contend for it. (`auto` settling on a GPU
            // keeps the first CPU share for the ops the GPU provider leaves to the CPU.)
            shares.truncate(1);
        }
        // What the sessions really got.
        let threads = shares.iter().sum();
        let bucketing = options.bucketing.unwrap_or(if provider.is_gpu() {
            Bucketing::GPU
        } else {
            Bucketing::CPU
        });
        let info = EngineInfo {
            fingerprint: model.fingerprint().clone(),
            provider,
            requested_provider: options.provider,
            threads,
            sessions: shares.len(),
            shared_weights: model.shared_weights(),
            limits: options.limits,
            bucketing,
            max_queue_tokens: options.max_queue_tokens,
        };
        let shared = new_shared(options, bucketing);
        let encoder = model.encoder().clone();
        let maker = model.maker(dir, provider, runtime);
        let sessions = worker_sessions(spec, model, maker, &shares, provider, options.interactive_session)?;
        {
            let mut queue = shared.lock();
            queue.resident = sessions.len();
            // Idle from now on, not from before the sessions were made.
            queue.last_bulk = Instant::now();
        }
        shared.metrics.sessions_resident(sessions.len());
        // With a session kept for queries, the bulk sessions yield the CPU to it.
        spawn_workers(spec, sessions, &shared, options.interactive_session)?;
        tracing::info!(
            model = spec.name,
            %provider,
            threads,
            sessions = shares.len(),
            interactive_session = options.interactive_session,
            max_batch_tokens = options.limits.max_batch_tokens,
            dir = %dir.display(),
            "embedding model loaded"
        );
        Ok(Self {
            inner: Arc::new(Inner {
                shared,
                encoder,
                info,
                spec,
                dir: dir.to_path_buf(),
            }),
        })
    }

    pub fn fingerprint(&self) -> &Fingerprint {
        &self.inner.info.fingerprint
    }

    pub fn spec(&self) -> &'static ModelSpec {
        self.inner.spec
    }

    /// The directory the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// The provider, threads and batch settings the model runs with.
    pub fn info(&self) -> &EngineInfo {
        &self.inner.info
    }

    /// The scheduler's metrics, for `/metrics`.
    pub fn metrics(&self) -> &Metrics {
        &self.inner.shared.metrics
    }

    /// What waits in each lane, indexed by [`Lane::index`].
    pub fn depth(&self) -> [Depth; 2] {
        let queue = self.inner.shared.lock();
        queue.lanes.each_ref().map(|lane| Depth {
            texts: lane.items.len(),
            tokens: lane.tokens,
        })
    }

    /// Batches run so far.
    pub fn batches_run(&self) -> u64 {
        self.inner.shared.lock().batches
    }

    /// The most batches that ever ran at the same time, across every session.
    pub fn most_batches_at_once(&self) -> usize {
        self.inner.shared.lock().most_running
    }

    /// Stops taking batches (those running finish); requests still queue up.
    pub fn pause(&self) {
        self.inner.shared.lock().paused = true;
    }

    /// Takes batches again after [`LocalEmbedder::pause`] or `start_paused`.
    pub fn resume(&self) {
        self.inner.shared.lock().paused = false;
        self.inner.shared.ready.notify_all();
    }

    /// Says bulk work is done for now: once the bulk lane is empty, each bulk session drops its
    /// ONNX Runtime session (its arena and buffers; the weights stay, shared with the query
    /// session) and the C allocator hands the freed memory back to the system. The next bulk batch
    /// makes a session again (about 0.3 s for minilm on 2 cores). ragdownd calls it after a big
    /// sync, before LanceDB compacts and indexes, the moment its memory peaks. They also rest on
    /// their own after [`LocalOptions::rest_after_idle`] without bulk work. The query session,
    /// a bulk session that also serves queries and GPU sessions never rest.
    pub fn rest(&self) {
        self.inner.shared.lock().rests += 1;
        self.inner.shared.ready.notify_all();
    }

    /// Sessions holding a model now, the interactive one included.
    pub fn resident_sessions(&self) -> usize {
        self.inner.shared.lock().resident
    }

    /// Embeds `texts`, returning one unit-length vector per text in the same order. Queries go
    /// in the interactive lane, documents in the bulk lane.
    pub async fn embed(&self, texts: Vec<String>, kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let lane = match kind {
            TextKind::Query => Lane::Interactive,
            TextKind::Document => Lane::Bulk,
        };
        Ok(self.embed_in(texts, kind, lane).await?.vectors)
    }

    /// Embeds `texts` in `lane`, with the token count and where the time went.
    pub async fn embed_in(&self, texts: Vec<String>, kind: TextKind, lane: Lane) -> Result<Embedded, EmbedError> {
        if texts.is_empty() {
            return Ok(Embedded::default());
        }
        let started = Instant::now();
        let encoder = self.inner.encoder.clone();
        let tokens = if texts.len() <= INLINE_TOKENIZE {
            tokenize_all(&encoder, &texts, kind)?
        } else {
            tokio::task::spawn_blocking(move || tokenize_all(&encoder, &texts, kind))
                .await
                .map_err(|e| EmbedError::Inference(format!("tokenizing failed: {e}")))??
        };
        let (reply, answer) = oneshot::channel();
        self.inner.shared.enqueue(tokens, lane, started.elapsed(), reply)?;
        answer.await.map_err(|_| EmbedError::WorkerGone)?
    }
}

/// Bulk sessions to run side by side for `threads` threads: one on a GPU provider, else as many as
/// asked, or [`auto_sessions`] when not asked.
fn wanted_sessions(options: &LocalOptions, threads: usize) -> usize {
    match options.sessions {
        _ if options.provider.is_gpu() => 1,
        0 => auto_sessions(threads),
        n => n,
    }
}

/// What the callers and the workers share: empty lanes (the worker paused when
/// `options.start_paused`), the limits and the metrics.
fn new_shared(options: &LocalOptions, bucketing: Bucketing) -> Arc<Shared> {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            lanes: Default::default(),
            closed: false,
            paused: options.start_paused,
            batches: 0,
            running: 0,
            most_running: 0,
            rests: 0,
            resident: 0,
            last_bulk: Instant::now(),
        }),
        ready: Condvar::new(),
        metrics: Metrics::new(),
        limits: options.limits,
        bucketing,
        max_queue_tokens: options.max_queue_tokens,
        rest_after_idle: options.rest_after_idle,
    });
    for lane in Lane::ALL {
        shared.metrics.queue(lane, 0, 0);
    }
    shared
}

/// Every session the workers run, with its thread's name: `first` (the bulk session already
/// loaded, with `shares[0]` threads), a bulk session for each other share, and with
/// `interactive_session` the one-thread session of the interactive lane. `maker` makes the others
/// on the provider the first settled on.
fn worker_sessions(
    spec: &'static ModelSpec,
    first: Model,
    maker: SessionMaker,
    shares: &[usize],
    provider: Provider,
    interactive_session: bool,
) -> Result<Vec<(String, Session)>, EmbedError> {
    let mut wanted = shares[1..].to_vec();
    if interactive_session {
        wanted.push(1);
    }
    let mut others = maker.make(&wanted)?;
    let interactive = if interactive_session { others.pop() } else { None };
    // Bulk sessions rest (see `rest`) on the CPU only: a GPU session takes seconds to make and
    // holds the device's memory, not the machine's. And the first bulk session never rests
    // when it also serves queries.
    let maker = Arc::new(Mutex::new(maker));
    let bulk = |model: Model, threads: usize, first: bool| {
        if provider.is_gpu() || (first && !interactive_session) {
            Session::resident(model, None)
        } else {
            Session::resting(model, threads, Arc::clone(&maker))
        }
    };
    let mut sessions = vec![(format!("embed-{}", spec.name), bulk(first, shares[0], true))];
    for (i, model) in others.into_iter().enumerate() {
        let name = format!("embed-{}-{}", spec.name, i + 2);
        sessions.push((name, bulk(model, shares[i + 1], false)));
    }
    if let Some(model) = interactive {
        let name = format!("embed-{}-interactive", spec.name);
        sessions.push((name, Session::resident(model, Some(Lane::Interactive))));
    }
    Ok(sessions)
}

/// Starts a thread of its name for each session, running [`worker::run`]. With
/// `yield_to_queries`, the bulk sessions' threads run at a lower CPU priority.
fn spawn_workers(
    spec: &ModelSpec,
    sessions: Vec<(String, Session)>,
    shared: &Arc<Shared>,
    yield_to_queries: bool,
) -> Result<(), EmbedError> {
    for (name, session) in sessions {
        let for_worker = Arc::clone(shared);
        let lower = yield_to_queries && !session.serves_only_queries();
        std::thread::Builder::new()
            .name(name)
            .spawn(move || {
                if lower && !lower_this_threads_priority() {
                    tracing::debug!("could not lower a bulk session's CPU priority");
                }
                worker::run(session, for_worker)
            })
            .map_err(|e| EmbedError::Load {
                name: spec.name.into(),
                reason: format!("cannot start the worker thread: {e}"),
            })?;
    }
    Ok(())
}

fn tokenize_all(encoder: &Encoder, texts: &[String], kind: TextKind) -> Result<Vec<Vec<u32>>, EmbedError> {
    texts.iter().map(|text| encoder.tokenize(text, kind)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_shared_out_among_the_sessions() {
        assert_eq!(session_threads(2, 2), [1, 1]);
        assert_eq!(session_threads(5, 2), [3, 2]);
        assert_eq!(session_threads(8, 4), [2, 2, 2, 2]);
        assert_eq!(session_threads(1, 1), [1]);
        // Never more sessions than threads, never a session without one.
        assert_eq!(session_threads(2, 6), [1, 1]);
        assert_eq!(session_threads(0, 3), [1]);
    }

    #[test]
    fn auto_is_one_session_per_thread_up_to_two() {
        assert_eq!(auto_sessions(1), 1);
        assert_eq!(auto_sessions(2), 2);
        assert_eq!(auto_sessions(4), 2);
        assert_eq!(auto_sessions(16), 2);
        assert_eq!(session_threads(5, auto_sessions(5)), [3, 2]);
    }
}
