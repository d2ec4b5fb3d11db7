//! The worker threads: each owns one session of the model and runs the batches it takes from
//! the queues ([`super::queue`]). A bulk session may rest: it drops its session when asked, or
//! when bulk work has been idle for a while (its arena and buffers go back to the system; the
//! shared weights stay), and makes it again when bulk work comes.

use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use super::queue::{CloseOnExit, Next, RestWatch, Shared};
use crate::EmbedError;
use crate::batch::Lane;
use crate::model::{Model, SessionMaker};

/// How far the bulk sessions' threads step back: nice +10 over the process's own (about a tenth
/// of the CPU share of a normal thread when both want a core), at most 19.
const BULK_NICE_STEP: i32 = 10;

/// Lowers the calling thread's CPU priority by [`BULK_NICE_STEP`], so that when every core is
/// busy with bulk batches the interactive session's thread still gets a core as soon as a query
/// comes (measured in `bench/results/README.md`). Linux only (`setpriority` on a thread id);
/// elsewhere a no-op that says so.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(super) fn lower_this_threads_priority() -> bool {
    // SAFETY: gettid, getpriority and setpriority take and return plain integers and touch no
    // memory of ours; raising one's own thread's nice value needs no privilege. getpriority may
    // return -1 as a real value, which only makes the step start from -1.
    unsafe {
        let tid = libc::gettid() as libc::id_t;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (now + BULK_NICE_STEP).min(19)) == 0
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn lower_this_threads_priority() -> bool {
    false
}

/// What one worker thread runs batches with.
pub(super) struct Session {
    /// The session, or `None` while it rests.
    model: Option<Model>,
    /// Its intra-op threads, to make it again with.
    threads: usize,
    /// Makes it again after a rest, one session at a time; `None` for a session that never rests.
    maker: Option<Arc<Mutex<SessionMaker>>>,
    /// The lanes it serves: every lane (interactive first), or `Some` one.
    only: Option<Lane>,
}

impl Session {
    /// A session that never rests (the interactive one, or a bulk one that also serves queries).
    pub(super) fn resident(model: Model, only: Option<Lane>) -> Self {
        Self {
            model: Some(model),
            threads: 0,
            maker: None,
            only,
        }
    }

    /// A bulk session of `threads` threads that rests when asked, made again by `maker`.
    pub(super) fn resting(model: Model, threads: usize, maker: Arc<Mutex<SessionMaker>>) -> Self {
        Self {
            model: Some(model),
            threads,
            maker: Some(maker),
            only: None,
        }
    }

    /// Whether it runs queries only (the interactive session).
    pub(super) fn serves_only_queries(&self) -> bool {
        self.only == Some(Lane::Interactive)
    }

    /// Drops the session, if it holds one, and hands what the allocator freed back to the system.
    fn rest(&mut self, shared: &Shared) {
        let Some(model) = self.model.take() else {
            return;
        };
        drop(model);
        shared.count_resident(false);
        give_back_freed_memory();
        tracing::debug!(threads = self.threads, "a bulk session rests");
    }

    /// The session, made again first if it rests.
    fn model(&mut self, shared: &Shared) -> Result<&mut Model, EmbedError> {
        if self.model.is_none() {
            let maker = self.maker.as_ref().expect("only a session with a maker rests");
            let started = Instant::now();
            // One at a time: the sessions share one container of pre-packed weights.
            let maker = maker.lock();
            let model = maker.make(&[self.threads])?.pop().expect("one session per share");
            drop(maker);
            shared.count_resident(true);
            tracing::debug!(
                threads = self.threads,
                ms = started.elapsed().as_millis() as u64,
                "a bulk session is back"
            );
            self.model = Some(model);
        }
        Ok(self.model.as_mut().expect("made above"))
    }
}

/// Runs batches until the queue closes: of every lane (interactive first), or of `only` one.
/// A resting session wakes only for bulk work: queries have a session of their own.
pub(super) fn run(mut session: Session, shared: Arc<Shared>) {
    let _close = CloseOnExit(Arc::clone(&shared));
    let mut rested = shared.lock().rests;
    loop {
        let only = match session.model {
            None => Some(Lane::Bulk),
            Some(_) => session.only,
        };
        let resident = session.model.is_some();
        let rest = session.maker.is_some().then_some(RestWatch {
            seen: &mut rested,
            resident,
        });
        let (number, lane, items) = match shared.next(only, rest) {
            None => break,
            Some(Next::Rest) => {
                session.rest(&shared);
                continue;
            }
            Some(Next::Run(number, lane, items)) => (number, lane, items),
        };
        let model = match session.model(&shared) {
            Ok(model) => model,
            Err(err) => {
                tracing::warn!(error = %err, "a bulk session could not be made again");
                shared.batch_done(lane);
                shared.finish(number, items, Err(err), Instant::now(), Default::default());
                continue;
            }
        };
        let longest = items.iter().map(|p| p.tokens.len()).max().unwrap_or(0);
        let width = shared.bucketing.pad_width(longest);
        let real: usize = items.iter().map(|p| p.tokens.len()).sum();
        let rows: Vec<&[u32]> = items.iter().map(|p| p.tokens.as_slice()).collect();
        let started = Instant::now();
        let result = model.run_padded(&rows, width);
        let elapsed = started.elapsed();
        shared.batch_done(lane);
        shared
            .metrics
            .batch(lane, items.len(), real, width, elapsed.as_secs_f64());
        shared.finish(number, items, result, started, elapsed);
    }
}

/// Hands the C allocator's free pages back to the system. ONNX Runtime allocates with the C
/// library's malloc (this process's Rust code uses jemalloc, which returns its own), and glibc keeps
/// freed memory in its arenas until asked: without this, a session's dropped arena stayed in the
/// process's resident memory.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn give_back_freed_memory() {
    // SAFETY: malloc_trim takes a plain integer (the padding to keep) and only walks glibc's own
    // arenas under their locks; it is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back_freed_memory() {}
