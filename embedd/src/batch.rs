//! The batching policy: which texts run together, and which lane goes first.
//!
//! A batch is padded to its longest text, so mixing a 10-token query with a 250-token passage
//! makes the query pay for 240 padding tokens. Texts are grouped by length bucket and cut into
//! batches under a token budget (rows x padded width), which keeps padding to a few percent.
//! Interactive work (queries, hook prompts) always goes before bulk work (indexing).
//!
//! Everything here is a pure function over token counts: the scheduler ([`crate::local`]) calls
//! it with the lengths of what is queued, tests pin it. Nothing here touches a queue or a model.

/// Limits of one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    /// Most padded tokens (rows x longest row) in one batch.
    pub max_batch_tokens: usize,
    /// Most texts in one batch.
    pub max_batch_size: usize,
}

impl Default for BatchLimits {
    fn default() -> Self {
        // `bench/run.sh`'s batch sweep (bench/results/2026-11-30-batch-sweep.jsonl): minilm on the
        // runbook corpus (~90 tokens a chunk) ran fastest at 256-512 padded tokens a batch: with one
        // thread 1,024 was 6% slower and 2,048-4,096 16-26%; with two, 256-1,024 were within 3%.
        Self {
            max_batch_tokens: 512,
            max_batch_size: 32,
        }
    }
}

/// The two queues. Interactive is always served first; bulk runs when no interactive text waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lane {
    /// Queries and hook prompts: someone is waiting for the answer.
    Interactive,
    /// Indexing: throughput matters, latency does not.
    Bulk,
}

impl Lane {
    /// Both lanes, in the order they are served.
    pub const ALL: [Lane; 2] = [Lane::Interactive, Lane::Bulk];

    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Interactive => "interactive",
            Lane::Bulk => "bulk",
        }
    }

    /// The lane's position in [`Lane::ALL`], for per-lane arrays.
    pub fn index(self) -> usize {
        match self {
            Lane::Interactive => 0,
            Lane::Bulk => 1,
        }
    }
}

/// The lane the next batch comes from: interactive whenever anything waits there.
pub fn next_lane(interactive_waiting: usize, bulk_waiting: usize) -> Option<Lane> {
    if interactive_waiting > 0 {
        Some(Lane::Interactive)
    } else if bulk_waiting > 0 {
        Some(Lane::Bulk)
    } else {
        None
    }
}

/// How token lengths are grouped into buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucketing {
    /// Bucket width in tokens: texts whose lengths round up to the same multiple share a bucket.
    pub step: usize,
    /// Pad every batch to its bucket's upper bound instead of its longest text. GPU providers
    /// compile kernels per input shape, so this caps the distinct widths at `max_tokens / step`.
    pub pad_to_bucket: bool,
}

impl Bucketing {
    /// CPU: fine buckets, padded only to the longest text (a few tokens of padding a row).
    pub const CPU: Bucketing = Bucketing {
        step: 8,
        pad_to_bucket: false,
    };
    /// GPU: coarse buckets, padded to the bucket (8 widths up to 256 tokens, 16 up to 512).
    pub const GPU: Bucketing = Bucketing {
        step: 32,
        pad_to_bucket: true,
    };

    /// The bucket of a text of `len` tokens: `len` rounded up to a multiple of the step.
    pub fn bucket(self, len: usize) -> usize {
        let step = self.step.max(1);
        len.max(1).div_ceil(step) * step
    }

    /// The width a batch whose longest text has `longest` tokens is padded to.
    pub fn pad_width(self, longest: usize) -> usize {
        if self.pad_to_bucket {
            self.bucket(longest)
        } else {
            longest.max(1)
        }
    }
}

impl Default for Bucketing {
    fn default() -> Self {
        Self::CPU
    }
}

/// Picks the next batch from one lane's queue, given the token counts of its texts oldest first.
///
/// The oldest text always runs (nothing starves); it is joined, oldest first, by texts of the same
/// bucket while the batch stays under the size cap and the token budget (rows x bucket width).
/// Returns positions into `queued`, ascending; empty only when `queued` is.
pub fn pick(queued: &[usize], limits: BatchLimits, bucketing: Bucketing) -> Vec<usize> {
    let Some(&head) = queued.first() else {
        return Vec::new();
    };
    let bucket = bucketing.bucket(head);
    let max_rows = limits
        .max_batch_size
        .max(1)
        .min((limits.max_batch_tokens / bucket).max(1));
    let mut picked = vec![0];
    for (position, &len) in queued.iter().enumerate().skip(1) {
        if picked.len() >= max_rows {
            break;
        }
        if bucketing.bucket(len) == bucket {
            picked.push(position);
        }
    }
    picked
}

/// Drains a whole queue with [`pick`], as the scheduler would with nothing else arriving: the
/// batches it would run, as indices into `queued`. For measuring padding against other policies.
pub fn drain(queued: &[usize], limits: BatchLimits, bucketing: Bucketing) -> Vec<Vec<usize>> {
    let mut remaining: Vec<usize> = (0..queued.len()).collect();
    let mut batches = Vec::new();
    while !remaining.is_empty() {
        let lengths: Vec<usize> = remaining.iter().map(|&i| queued[i]).collect();
        let positions = pick(&lengths, limits, bucketing);
        batches.push(positions.iter().map(|&p| remaining[p]).collect());
        for &p in positions.iter().rev() {
            remaining.remove(p);
        }
    }
    batches
}

/// Cuts texts into batches in arrival order under the same limits, without any bucketing: the
/// baseline that [`drain`] is measured against.
pub fn in_order(queued: &[usize], limits: BatchLimits) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut width = 0;
    for (index, &len) in queued.iter().enumerate() {
        let grown = width.max(len.max(1));
        let fits =
            current.len() < limits.max_batch_size.max(1) && (current.len() + 1) * grown <= limits.max_batch_tokens;
        if !fits && !current.is_empty() {
            batches.push(std::mem::take(&mut current));
            width = 0;
        }
        width = width.max(len.max(1));
        current.push(index);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// Groups texts, given by their token counts, into batches of indices into `lengths`.
///
/// Every index appears exactly once. Within a batch, texts are in ascending length order. A text
/// longer than the budget on its own still gets a batch (of one).
pub fn plan(lengths: &[usize], limits: BatchLimits) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| (lengths[i], i));
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for index in order {
        // Sorted ascending, so this text is the longest of the batch if it joins.
        let width = lengths[index].max(1);
        let fits =
            current.len() < limits.max_batch_size.max(1) && (current.len() + 1) * width <= limits.max_batch_tokens;
        if !fits && !current.is_empty() {
            batches.push(std::mem::take(&mut current));
        }
        current.push(index);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// The share of computed tokens that are padding when `batches` run over texts of `lengths`,
/// each batch padded to its longest text.
pub fn padding_share(lengths: &[usize], batches: &[Vec<usize>]) -> f64 {
    padding_share_with(lengths, batches, Bucketing::CPU)
}

/// [`padding_share`] with each batch padded as `bucketing` pads it.
pub fn padding_share_with(lengths: &[usize], batches: &[Vec<usize>], bucketing: Bucketing) -> f64 {
    let mut real = 0usize;
    let mut computed = 0usize;
    for batch in batches {
        let longest = batch.iter().map(|&i| lengths[i]).max().unwrap_or(0);
        let width = if batch.is_empty() {
            0
        } else {
            bucketing.pad_width(longest)
        };
        computed += width * batch.len();
        real += batch.iter().map(|&i| lengths[i]).sum::<usize>();
    }
    if computed == 0 {
        0.0
    } else {
        (computed - real) as f64 / computed as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(tokens: usize, size: usize) -> BatchLimits {
        BatchLimits {
            max_batch_tokens: tokens,
            max_batch_size: size,
        }
    }

    #[test]
    fn every_text_lands_in_exactly_one_batch() {
        let lengths = [5, 200, 17, 17, 90, 3, 256, 40];
        let batches = plan(&lengths, limits(300, 4));
        let mut seen: Vec<usize> = batches.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
    }

    #[test]
    fn batches_respect_the_token_budget_and_size_cap() {
        let lengths = [10, 10, 10, 10, 10, 60, 60, 60];
        let batches = plan(&lengths, limits(120, 3));
        for batch in &batches {
            let width = batch.iter().map(|&i| lengths[i]).max().unwrap();
            assert!(batch.len() <= 3);
            assert!(batch.len() * width <= 120, "{batch:?}");
        }
        // Short texts are not padded to the long ones.
        assert_eq!(batches, vec![vec![0, 1, 2], vec![3, 4], vec![5, 6], vec![7]]);
    }

    #[test]
    fn a_text_over_the_budget_runs_alone() {
        let batches = plan(&[500, 4, 4], limits(100, 8));
        assert_eq!(batches, vec![vec![1, 2], vec![0]]);
    }

    #[test]
    fn sorting_cuts_padding_against_file_order() {
        let lengths: Vec<usize> = (0..64).map(|i| if i % 2 == 0 { 20 } else { 200 }).collect();
        let file_order: Vec<Vec<usize>> = (0..64).collect::<Vec<_>>().chunks(8).map(<[usize]>::to_vec).collect();
        let planned = plan(&lengths, limits(1600, 8));
        assert!(padding_share(&lengths, &file_order) > 0.4);
        assert_eq!(padding_share(&lengths, &planned), 0.0);
    }

    #[test]
    fn interactive_is_always_served_before_bulk() {
        assert_eq!(next_lane(1, 10_000), Some(Lane::Interactive));
        assert_eq!(next_lane(0, 3), Some(Lane::Bulk));
        assert_eq!(next_lane(0, 0), None);
    }

    #[test]
    fn the_oldest_text_always_runs_with_texts_of_its_bucket() {
        // Bucket step 8: 17 and 20 share the 24 bucket, 90 does not.
        let queued = [20, 90, 3, 17, 24, 200];
        let picked = pick(&queued, limits(512, 32), Bucketing::CPU);
        assert_eq!(picked, vec![0, 3, 4]);
        // A long head still runs first, alone in its bucket.
        assert_eq!(pick(&[200, 5, 5], limits(512, 32), Bucketing::CPU), vec![0]);
        assert!(pick(&[], limits(512, 32), Bucketing::CPU).is_empty());
    }

    #[test]
    fn picks_respect_the_budget_in_bucket_widths_and_the_size_cap() {
        let queued = [90; 20];
        // Bucket 96: five rows are 480 tokens, six would be 576 > 512.
        assert_eq!(pick(&queued, limits(512, 32), Bucketing::CPU).len(), 5);
        assert_eq!(pick(&queued, limits(512, 3), Bucketing::CPU).len(), 3);
        // A text over the budget on its own still runs, alone.
        assert_eq!(pick(&[600, 600], limits(512, 32), Bucketing::CPU), vec![0]);
    }

    #[test]
    fn gpu_bucketing_pads_to_the_bucket_and_caps_the_distinct_widths() {
        let widths: std::collections::BTreeSet<usize> = (1..=256).map(|len| Bucketing::GPU.pad_width(len)).collect();
        assert_eq!(widths.len(), 8);
        assert_eq!(Bucketing::GPU.pad_width(33), 64);
        assert_eq!(Bucketing::CPU.pad_width(33), 33);
    }

    #[test]
    fn draining_by_bucket_cuts_padding_against_arrival_order() {
        // Alternating short and long texts, as a folder of mixed notes arrives.
        let queued: Vec<usize> = (0..200).map(|i| [12, 90, 40, 140][i % 4]).collect();
        let bucketed = drain(&queued, limits(512, 32), Bucketing::CPU);
        let arrival = in_order(&queued, limits(512, 32));
        let mut seen: Vec<usize> = bucketed.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..queued.len()).collect::<Vec<_>>());
        assert_eq!(padding_share(&queued, &bucketed), 0.0);
        assert!(
            padding_share(&queued, &arrival) > 0.3,
            "{}",
            padding_share(&queued, &arrival)
        );
        for batch in &arrival {
            let width = batch.iter().map(|&i| queued[i]).max().unwrap();
            assert!(batch.len() * width <= 512);
        }
    }

    #[test]
    fn empty_input_plans_nothing() {
        assert!(plan(&[], BatchLimits::default()).is_empty());
        assert_eq!(padding_share(&[], &[]), 0.0);
    }
}
