//! When a sync folds its writes into the table's indices ([`super::store::Store::optimize`]:
//! compaction, the full-text and `id` indices, pruning old versions).
//!
//! Folding costs about as much for one edited section as for thousands: it compacts the table and
//! rewrites index files. Done after every write, an agent's edit waited for it: p50 1,026 ms with
//! 8 writers and 16 readers on 2,100 sections, 191 ms without the wait (`bench/edit-latency.sh`,
//! bench/results/README.md, 2026-12-03). Rows not
//! folded in yet are still found: LanceDB scans them beside the full-text index, and the dense
//! vectors are resident and updated at once. So a small write answers without folding, and the
//! indexer folds on its own a little later ([`FOLD_AFTER`] from the first unfolded write), or at
//! once when much is waiting ([`FOLD_ROWS`], [`FOLD_WRITES`]): a first index or a bulk change is
//! folded before its sync answers, as before.

use std::time::{Duration, Instant};

/// Rows written (added or deleted files' rows) since the last fold past which a sync folds before
/// it answers: a first index or a bulk change, whose rows searches should not have to scan.
pub const FOLD_ROWS: usize = 1024;

/// Writes since the last fold past which a sync folds before it answers: each write is a table
/// version with a small data file of its own, which every search opens until compaction merges them.
pub const FOLD_WRITES: usize = 200;

/// How long after the first unfolded write the indexer folds on its own, between syncs.
pub const FOLD_AFTER: Duration = Duration::from_secs(5);

/// What has been written since the last fold.
#[derive(Debug, Default)]
pub struct Unfolded {
    rows: usize,
    writes: usize,
    since: Option<Instant>,
}

impl Unfolded {
    /// Counts a sync that wrote `rows` rows (added, or dropped with their file).
    pub fn wrote(&mut self, rows: usize) {
        self.rows += rows;
        self.writes += 1;
        self.since.get_or_insert_with(Instant::now);
    }

    /// Whether so much waits that the sync that wrote it should fold before it answers.
    pub fn due_now(&self) -> bool {
        self.rows >= FOLD_ROWS || self.writes >= FOLD_WRITES
    }

    /// When the indexer should fold on its own; `None` with nothing waiting.
    pub fn deadline(&self) -> Option<Instant> {
        self.since.map(|since| since + FOLD_AFTER)
    }

    /// Everything is folded.
    pub fn folded(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_writes_wait_and_big_ones_fold_at_once() {
        let mut unfolded = Unfolded::default();
        assert!(unfolded.deadline().is_none() && !unfolded.due_now());
        let before = Instant::now();
        unfolded.wrote(3);
        let deadline = unfolded.deadline().unwrap();
        assert!(deadline >= before + FOLD_AFTER && !unfolded.due_now());
        // Later writes do not push the deadline back: a steady stream of edits is folded too.
        unfolded.wrote(3);
        assert_eq!(unfolded.deadline(), Some(deadline));
        unfolded.wrote(FOLD_ROWS);
        assert!(unfolded.due_now());
        unfolded.folded();
        assert!(unfolded.deadline().is_none() && !unfolded.due_now());
        for _ in 0..FOLD_WRITES {
            unfolded.wrote(1);
        }
        assert!(unfolded.due_now(), "many small writes fold too");
    }
}
