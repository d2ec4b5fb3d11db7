//! The batching policy: which texts run together.
//!
//! A batch is padded to its longest text, so mixing a 10-token query with a 250-token passage
//! makes the query pay for 240 padding tokens. Texts are sorted by length and cut into batches
//! under a token budget (rows x longest row), which keeps padding to a few percent. This is a pure
//! function: the workers call it, tests pin it.

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

/// The share of computed tokens that are padding when `batches` run over texts of `lengths`.
pub fn padding_share(lengths: &[usize], batches: &[Vec<usize>]) -> f64 {
    let mut real = 0usize;
    let mut computed = 0usize;
    for batch in batches {
        let width = batch.iter().map(|&i| lengths[i]).max().unwrap_or(0);
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
    fn empty_input_plans_nothing() {
        assert!(plan(&[], BatchLimits::default()).is_empty());
        assert_eq!(padding_share(&[], &[]), 0.0);
    }
}
