//! The queues behind [`super::LocalEmbedder`]: texts waiting per lane, the requests they belong
//! to, and handing a batch's vectors back to them. The worker threads ([`super::worker`]) take
//! batches from here; callers put texts in.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};
use tokio::sync::oneshot;

use super::{Embedded, Timings};
use crate::EmbedError;
use crate::batch::{self, BatchLimits, Bucketing, Lane};
use crate::metrics::{Metrics, Outcome};

/// One text waiting for its batch.
pub(super) struct Pending {
    pub(super) tokens: Vec<u32>,
    request: Arc<Request>,
    /// Its position in the request.
    slot: usize,
}

/// One caller's request while its texts are queued or running.
struct Request {
    lane: Lane,
    submitted: Instant,
    tokenize: Duration,
    tokens: usize,
    state: Mutex<RequestState>,
}

impl Request {
    /// Whether someone still waits for the answer.
    fn is_waiting(&self) -> bool {
        let state = self.state.lock();
        state.reply.as_ref().is_some_and(|reply| !reply.is_closed())
    }
}

struct RequestState {
    vectors: Vec<Vec<f32>>,
    remaining: usize,
    first_batch: Option<Instant>,
    inference: Duration,
    /// The last batch counted into `inference`, so a batch holding several of its texts counts once.
    last_batch: u64,
    /// Taken when the answer (or an error) is sent.
    reply: Option<oneshot::Sender<Result<Embedded, EmbedError>>>,
}

#[derive(Default)]
pub(super) struct LaneQueue {
    pub(super) items: VecDeque<Pending>,
    pub(super) tokens: usize,
}

pub(super) struct Queue {
    pub(super) lanes: [LaneQueue; 2],
    pub(super) closed: bool,
    pub(super) paused: bool,
    /// Batches run so far, which also numbers them.
    pub(super) batches: u64,
    /// Batches running now, and the most that ever ran at once (across every session).
    pub(super) running: usize,
    pub(super) most_running: usize,
    /// How many times the bulk sessions were asked to rest ([`super::LocalEmbedder::rest`]).
    pub(super) rests: u64,
    /// Sessions holding a model now, the interactive one included.
    pub(super) resident: usize,
    /// When a bulk batch was last taken or finished: the bulk sessions rest once it is
    /// [`Shared::rest_after_idle`] ago.
    pub(super) last_bulk: Instant,
}

pub(super) struct Shared {
    pub(super) queue: Mutex<Queue>,
    pub(super) ready: Condvar,
    pub(super) metrics: Metrics,
    pub(super) limits: BatchLimits,
    pub(super) bucketing: Bucketing,
    pub(super) max_queue_tokens: usize,
    /// How long the bulk lane stays idle before the bulk sessions rest on their own; `None`:
    /// only when told ([`super::LocalEmbedder::rest`]).
    pub(super) rest_after_idle: Option<Duration>,
}

/// A worker's side of resting, for a session that may rest.
pub(super) struct RestWatch<'a> {
    /// The rests it has seen ([`Queue::rests`]).
    pub(super) seen: &'a mut u64,
    /// Whether its session holds a model now (only then may it rest for being idle).
    pub(super) resident: bool,
}

/// What a worker is woken for.
pub(super) enum Next {
    /// Run this batch (its number, its lane, its texts).
    Run(u64, Lane, Vec<Pending>),
    /// Give the session back until bulk work comes.
    Rest,
}

/// How far back in a lane the policy looks for texts of the head's bucket.
const WINDOW: usize = 1024;

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, Queue> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.queue.lock()
    }

    pub(super) fn enqueue(
        &self,
        tokens: Vec<Vec<u32>>,
        lane: Lane,
        tokenize: Duration,
        reply: oneshot::Sender<Result<Embedded, EmbedError>>,
    ) -> Result<(), EmbedError> {
        let asked: usize = tokens.iter().map(Vec::len).sum();
        let count = tokens.len();
        let request = Arc::new(Request {
            lane,
            submitted: Instant::now(),
            tokenize,
            tokens: asked,
            state: Mutex::new(RequestState {
                vectors: vec![Vec::new(); count],
                remaining: count,
                first_batch: None,
                inference: Duration::ZERO,
                last_batch: u64::MAX,
                reply: Some(reply),
            }),
        });
        // Shortest first, so the texts of one big request fill whole buckets in turn.
        let mut items: Vec<(usize, Vec<u32>)> = tokens.into_iter().enumerate().collect();
        items.sort_by_key(|(_, ids)| ids.len());

        let mut queue = self.lock();
        if queue.closed {
            return Err(EmbedError::WorkerGone);
        }
        let waiting = &mut queue.lanes[lane.index()];
        if waiting.tokens > 0 && waiting.tokens + asked > self.max_queue_tokens {
            let queued = waiting.tokens;
            drop(queue);
            self.metrics.request(lane, Outcome::rejected, None);
            return Err(EmbedError::Overloaded {
                lane: lane.as_str(),
                queued,
                capacity: self.max_queue_tokens,
                asked,
            });
        }
        for (slot, ids) in items {
            waiting.items.push_back(Pending {
                tokens: ids,
                request: Arc::clone(&request),
                slot,
            });
        }
        waiting.tokens += asked;
        self.metrics.queue(lane, waiting.items.len(), waiting.tokens);
        drop(queue);
        // Several workers may wait, some for one lane only: wake them all.
        self.ready.notify_all();
        Ok(())
    }

    /// Counts a session that came back (`true`) or went to rest; the metric follows.
    pub(super) fn count_resident(&self, came: bool) {
        let mut queue = self.lock();
        if came {
            queue.resident += 1;
        } else {
            queue.resident -= 1;
        }
        self.metrics.sessions_resident(queue.resident);
    }

    /// Notes that a batch of `lane` finished (and that `running` has one fewer).
    pub(super) fn batch_done(&self, lane: Lane) {
        let mut queue = self.lock();
        queue.running -= 1;
        if lane == Lane::Bulk {
            queue.last_bulk = Instant::now();
        }
    }

    /// Blocks until there is a batch to run, from `only` that lane if given; `None` once the
    /// last handle is gone. A worker that passes `rest` also wakes with [`Next::Rest`] once the
    /// bulk lane is empty and either the bulk sessions were asked to rest or, while its session
    /// holds a model, no bulk batch has been taken or finished for [`Self::rest_after_idle`].
    pub(super) fn next(&self, only: Option<Lane>, mut rest: Option<RestWatch<'_>>) -> Option<Next> {
        let mut queue = self.lock();
        loop {
            if queue.closed {
                return None;
            }
            let bulk_idle = queue.lanes[Lane::Bulk.index()].items.is_empty();
            // A rest waits for the bulk lane to empty: queued work is never held up by it.
            if let Some(watch) = rest.as_mut()
                && *watch.seen != queue.rests
                && bulk_idle
            {
                *watch.seen = queue.rests;
                return Some(Next::Rest);
            }
            let next = match only {
                Some(lane) => (!queue.lanes[lane.index()].items.is_empty()).then_some(lane),
                None => batch::next_lane(queue.lanes[0].items.len(), queue.lanes[1].items.len()),
            };
            if let (false, Some(lane)) = (queue.paused, next) {
                let waiting = &mut queue.lanes[lane.index()];
                let lengths: Vec<usize> = waiting.items.iter().take(WINDOW).map(|p| p.tokens.len()).collect();
                let positions = batch::pick(&lengths, self.limits, self.bucketing);
                let mut taken: Vec<Pending> = positions
                    .iter()
                    .rev()
                    .filter_map(|&position| waiting.items.remove(position))
                    .collect();
                taken.reverse();
                waiting.tokens -= taken.iter().map(|p| p.tokens.len()).sum::<usize>();
                self.metrics.queue(lane, waiting.items.len(), waiting.tokens);
                // Texts whose caller went away (or whose request already failed) are dropped
                // here, when picked, rather than searched for on every batch.
                taken.retain(|pending| pending.request.is_waiting());
                if taken.is_empty() {
                    continue;
                }
                queue.batches += 1;
                queue.running += 1;
                queue.most_running = queue.most_running.max(queue.running);
                if lane == Lane::Bulk {
                    queue.last_bulk = Instant::now();
                }
                return Some(Next::Run(queue.batches, lane, taken));
            }
            // Nothing to run: a session that may rest for being idle rests now, or waits at most
            // until it may.
            let idle_for = match (&rest, self.rest_after_idle) {
                (Some(watch), Some(after)) if watch.resident && bulk_idle => {
                    let quiet = queue.last_bulk.elapsed();
                    if quiet >= after {
                        return Some(Next::Rest);
                    }
                    Some(after - quiet)
                }
                _ => None,
            };
            match idle_for {
                Some(timeout) => {
                    self.ready.wait_for(&mut queue, timeout);
                }
                None => self.ready.wait(&mut queue),
            }
        }
    }

    /// Hands a batch's vectors (or its error, as it is: a model that could not be made again stays
    /// a load failure) to the requests its texts came from.
    pub(super) fn finish(
        &self,
        number: u64,
        items: Vec<Pending>,
        result: Result<Vec<Vec<f32>>, EmbedError>,
        started: Instant,
        elapsed: Duration,
    ) {
        let vectors = match result {
            Ok(vectors) => vectors,
            Err(err) => {
                for item in items {
                    let mut state = item.request.state.lock();
                    if let Some(reply) = state.reply.take() {
                        self.metrics.request(item.request.lane, Outcome::error, None);
                        let _ = reply.send(Err(err.clone()));
                    }
                }
                return;
            }
        };
        for (item, vector) in items.into_iter().zip(vectors) {
            let request = &item.request;
            let mut state = request.state.lock();
            state.first_batch.get_or_insert(started);
            if state.last_batch != number {
                state.last_batch = number;
                state.inference += elapsed;
            }
            state.vectors[item.slot] = vector;
            state.remaining -= 1;
            if state.remaining > 0 {
                continue;
            }
            let Some(reply) = state.reply.take() else {
                continue; // an earlier batch of this request failed and answered already
            };
            let answer = Embedded {
                vectors: std::mem::take(&mut state.vectors),
                tokens: request.tokens,
                timings: Timings {
                    tokenize: request.tokenize,
                    queue: state
                        .first_batch
                        .map(|first| first.saturating_duration_since(request.submitted))
                        .unwrap_or_default(),
                    inference: state.inference,
                },
            };
            self.metrics.request(
                request.lane,
                Outcome::ok,
                Some(request.submitted.elapsed().as_secs_f64()),
            );
            // The caller may have given up waiting; nothing to do then.
            let _ = reply.send(Ok(answer));
        }
    }
}

/// Drops every queued text if the worker dies, so callers get [`EmbedError::WorkerGone`]
/// instead of waiting forever.
pub(super) struct CloseOnExit(pub(super) Arc<Shared>);

impl Drop for CloseOnExit {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        queue.closed = true;
        for lane in &mut queue.lanes {
            lane.items.clear();
            lane.tokens = 0;
        }
    }
}
