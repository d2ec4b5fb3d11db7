//! The index: the LanceDB store (with its dense pool over resident vectors, and the filters both
//! pools read), its `meta.json`, diff sync (and when it folds its writes into the indices) and the
//! file watcher.

pub mod ann;
pub mod ann_policy;
pub mod catalog;
pub mod changes;
pub mod dense;
pub mod filter;
pub mod fold;
pub mod graph;
pub mod meta;
pub mod primary;
pub mod reads;
pub mod resident;
pub mod retext;
pub mod rows;
pub mod scan;
pub mod span;
pub mod store;
pub mod sync;
pub mod terms;
pub mod vectors;
pub mod versioned;
pub mod watch;
