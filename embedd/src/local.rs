//! The in-process embedder: a worker thread that owns the model, behind a cloneable async handle.
//!
//! Callers send a request (texts and their kind) over a channel and await the answer on a oneshot
//! channel; the worker tokenizes, plans length-bucketed batches ([`crate::batch::plan`]), runs
//! them and returns the vectors in the caller's order. Only this thread touches the session.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;

use tokio::sync::oneshot;

use crate::EmbedError;
use crate::batch::{self, BatchLimits};
use crate::model::{self, Fingerprint, Model, ModelSource, TextKind};
use crate::registry::ModelSpec;

/// How the in-process embedder runs.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// ONNX Runtime intra-op threads.
    pub threads: usize,
    /// Batch limits for the length-bucketing policy.
    pub limits: BatchLimits,
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self {
            threads: default_threads(),
            limits: BatchLimits::default(),
        }
    }
}

/// Half the cores, at least one: the other half stays free for indexing and serving.
pub fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    (cores / 2).max(1)
}

struct Job {
    texts: Vec<String>,
    kind: TextKind,
    reply: oneshot::Sender<Result<Vec<Vec<f32>>, EmbedError>>,
}

/// A cloneable handle to a model running on its own thread.
#[derive(Clone)]
pub struct LocalEmbedder {
    jobs: mpsc::Sender<Job>,
    fingerprint: Arc<Fingerprint>,
    spec: &'static ModelSpec,
    dir: Arc<PathBuf>,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

impl LocalEmbedder {
    /// Finds (or downloads) `spec`'s files, loads the model and starts its worker thread.
    /// Blocking: call it from a blocking context.
    pub fn start(spec: &'static ModelSpec, source: &ModelSource, options: &LocalOptions) -> Result<Self, EmbedError> {
        let dir = model::resolve(spec, source)?;
        let model = Model::load(spec, &dir, options.threads, &source.runtime)?;
        let fingerprint = Arc::new(model.fingerprint().clone());
        let (jobs, queue) = mpsc::channel::<Job>();
        let limits = options.limits;
        std::thread::Builder::new()
            .name(format!("embed-{}", spec.name))
            .spawn(move || worker(model, queue, limits))
            .map_err(|e| EmbedError::Load {
                name: spec.name.into(),
                reason: format!("cannot start the worker thread: {e}"),
            })?;
        tracing::info!(model = spec.name, threads = options.threads, dir = %dir.display(), "embedding model loaded");
        Ok(Self {
            jobs,
            fingerprint,
            spec,
            dir: Arc::new(dir),
        })
    }

    pub fn fingerprint(&self) -> &Fingerprint {
        &self.fingerprint
    }

    pub fn spec(&self) -> &'static ModelSpec {
        self.spec
    }

    /// The directory the model was loaded from.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Embeds `texts`, returning one unit-length vector per text in the same order.
    pub async fn embed(&self, texts: Vec<String>, kind: TextKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job { texts, kind, reply })
            .map_err(|_| EmbedError::WorkerGone)?;
        answer.await.map_err(|_| EmbedError::WorkerGone)?
    }
}

fn worker(mut model: Model, queue: mpsc::Receiver<Job>, limits: BatchLimits) {
    while let Ok(job) = queue.recv() {
        let result = embed_all(&mut model, &job.texts, job.kind, limits);
        // The caller may have given up waiting; nothing to do then.
        let _ = job.reply.send(result);
    }
}

fn embed_all(
    model: &mut Model,
    texts: &[String],
    kind: TextKind,
    limits: BatchLimits,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let tokens: Vec<Vec<u32>> = texts
        .iter()
        .map(|text| model.tokenize(text, kind))
        .collect::<Result<_, _>>()?;
    let lengths: Vec<usize> = tokens.iter().map(Vec::len).collect();
    let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
    for batch in batch::plan(&lengths, limits) {
        let rows: Vec<&[u32]> = batch.iter().map(|&i| tokens[i].as_slice()).collect();
        let vectors = model.run(&rows)?;
        for (index, vector) in batch.into_iter().zip(vectors) {
            out[index] = vector;
        }
    }
    Ok(out)
}
