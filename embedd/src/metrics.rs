//! Prometheus metrics of the scheduler: what batches look like and how long each lane waits.
//!
//! The scheduler records, the HTTP `/metrics` route renders ([`Metrics::render`]). Families:
//! `embedd_batch_size` and `embedd_batch_padded_tokens` (per batch), `embedd_tokens` (real and
//! padding, whose ratio is the padding share), `embedd_padding_share` (per batch),
//! `embedd_queue_depth_texts` / `embedd_queue_depth_tokens` (per lane), `embedd_request_seconds`
//! (per lane, from submit to answer), `embedd_requests` (per lane and outcome),
//! `embedd_inference_seconds` (per batch) and `embedd_sessions_resident` (sessions holding a
//! model now: bulk sessions that rest hold none).

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets, linear_buckets};
use prometheus_client::registry::Registry;

use crate::batch::Lane;

#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
enum LaneLabel {
    interactive,
    bulk,
}

impl From<Lane> for LaneLabel {
    fn from(lane: Lane) -> Self {
        match lane {
            Lane::Interactive => LaneLabel::interactive,
            Lane::Bulk => LaneLabel::bulk,
        }
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LaneLabels {
    lane: LaneLabel,
}

/// How a request ended.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub enum Outcome {
    ok,
    /// Refused by backpressure (queue full).
    rejected,
    error,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    lane: LaneLabel,
    outcome: Outcome,
}

#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
enum TokenKind {
    real,
    padding,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TokenLabels {
    kind: TokenKind,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// The scheduler's metric families and the registry that renders them.
pub struct Metrics {
    registry: Registry,
    batch_size: HistogramFamily<LaneLabels>,
    batch_padded_tokens: HistogramFamily<LaneLabels>,
    padding_share: HistogramFamily<LaneLabels>,
    tokens: Family<TokenLabels, Counter<u64, AtomicU64>>,
    queue_texts: Family<LaneLabels, Gauge>,
    queue_tokens: Family<LaneLabels, Gauge>,
    request_seconds: HistogramFamily<LaneLabels>,
    requests: Family<RequestLabels, Counter<u64, AtomicU64>>,
    inference_seconds: Histogram,
    sessions_resident: Gauge,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

fn size_histogram() -> Histogram {
    Histogram::new(exponential_buckets(1.0, 2.0, 8))
}
fn token_histogram() -> Histogram {
    Histogram::new(exponential_buckets(16.0, 2.0, 10))
}
fn share_histogram() -> Histogram {
    Histogram::new(linear_buckets(0.05, 0.05, 10))
}
fn seconds_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("embedd");
        let batch_size = HistogramFamily::<LaneLabels>::new_with_constructor(size_histogram as fn() -> Histogram);
        let batch_padded_tokens =
            HistogramFamily::<LaneLabels>::new_with_constructor(token_histogram as fn() -> Histogram);
        let padding_share = HistogramFamily::<LaneLabels>::new_with_constructor(share_histogram as fn() -> Histogram);
        let request_seconds =
            HistogramFamily::<LaneLabels>::new_with_constructor(seconds_histogram as fn() -> Histogram);
        let tokens = Family::default();
        let queue_texts = Family::default();
        let queue_tokens = Family::default();
        let requests = Family::default();
        let inference_seconds = seconds_histogram();
        let sessions_resident = Gauge::default();
        registry.register("batch_size", "Texts per batch", batch_size.clone());
        registry.register(
            "batch_padded_tokens",
            "Tokens computed per batch (rows x padded width)",
            batch_padded_tokens.clone(),
        );
        registry.register(
            "padding_share",
            "Share of a batch's tokens that are padding",
            padding_share.clone(),
        );
        registry.register("tokens", "Tokens computed, real or padding", tokens.clone());
        registry.register("queue_depth_texts", "Texts waiting, per lane", queue_texts.clone());
        registry.register("queue_depth_tokens", "Tokens waiting, per lane", queue_tokens.clone());
        registry.register(
            "request_seconds",
            "Time from submit to answer, per lane (tokenizing excluded)",
            request_seconds.clone(),
        );
        registry.register("requests", "Requests by lane and outcome", requests.clone());
        registry.register(
            "inference_seconds",
            "Time one batch spends in the model",
            inference_seconds.clone(),
        );
        registry.register(
            "sessions_resident",
            "Sessions holding a model now (a resting bulk session holds none)",
            sessions_resident.clone(),
        );
        Self {
            registry,
            batch_size,
            batch_padded_tokens,
            padding_share,
            tokens,
            queue_texts,
            queue_tokens,
            request_seconds,
            requests,
            inference_seconds,
            sessions_resident,
        }
    }

    /// Records one batch that ran: `rows` texts with `real` tokens, padded to `rows x width`.
    pub fn batch(&self, lane: Lane, rows: usize, real: usize, width: usize, seconds: f64) {
        let labels = LaneLabels { lane: lane.into() };
        let computed = rows * width;
        let padding = computed.saturating_sub(real);
        self.batch_size.get_or_create(&labels).observe(rows as f64);
        self.batch_padded_tokens.get_or_create(&labels).observe(computed as f64);
        if computed > 0 {
            self.padding_share
                .get_or_create(&labels)
                .observe(padding as f64 / computed as f64);
        }
        self.tokens
            .get_or_create(&TokenLabels { kind: TokenKind::real })
            .inc_by(real as u64);
        self.tokens
            .get_or_create(&TokenLabels {
                kind: TokenKind::padding,
            })
            .inc_by(padding as u64);
        self.inference_seconds.observe(seconds);
    }

    /// Sets a lane's queue depth.
    pub fn queue(&self, lane: Lane, texts: usize, tokens: usize) {
        let labels = LaneLabels { lane: lane.into() };
        self.queue_texts.get_or_create(&labels).set(texts as i64);
        self.queue_tokens.get_or_create(&labels).set(tokens as i64);
    }

    /// Sets how many sessions hold a model now.
    pub fn sessions_resident(&self, sessions: usize) {
        self.sessions_resident.set(sessions as i64);
    }

    /// Records a finished request.
    pub fn request(&self, lane: Lane, outcome: Outcome, seconds: Option<f64>) {
        self.requests
            .get_or_create(&RequestLabels {
                lane: lane.into(),
                outcome,
            })
            .inc();
        if let Some(seconds) = seconds {
            self.request_seconds
                .get_or_create(&LaneLabels { lane: lane.into() })
                .observe(seconds);
        }
    }

    /// The Prometheus text exposition of every family.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_has_every_family_and_the_recorded_values() {
        let metrics = Metrics::new();
        for lane in Lane::ALL {
            metrics.queue(lane, 0, 0);
        }
        metrics.batch(Lane::Bulk, 4, 300, 90, 0.01);
        metrics.request(Lane::Interactive, Outcome::ok, Some(0.002));
        metrics.request(Lane::Bulk, Outcome::rejected, None);
        metrics.sessions_resident(2);
        let text = metrics.render();
        for family in [
            "embedd_batch_size",
            "embedd_batch_padded_tokens",
            "embedd_padding_share",
            "embedd_tokens_total",
            "embedd_queue_depth_texts",
            "embedd_queue_depth_tokens",
            "embedd_request_seconds",
            "embedd_requests_total",
            "embedd_inference_seconds",
            "embedd_sessions_resident",
        ] {
            assert!(text.contains(family), "{family} missing from\n{text}");
        }
        assert!(text.contains(r#"embedd_tokens_total{kind="padding"} 60"#), "{text}");
        assert!(text.contains("\nembedd_sessions_resident 2\n"), "{text}");
        assert!(
            text.contains(r#"embedd_requests_total{lane="bulk",outcome="rejected"} 1"#),
            "{text}"
        );
    }
}
