//! The benchmark harness's library: workloads that `ragdown-bench` runs.
//!
//! - [`corpus`]: the deterministic runbook corpus of the original's benchmarks.

pub mod corpus;
