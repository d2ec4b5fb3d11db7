//! The benchmark harness's library: workloads that `ragdown-bench` runs.
//!
//! - [`corpus`]: the deterministic runbook corpus of mcp-ragdown's benchmarks.
//! - [`harness`]: the embedder, engine and machine description every benchmark uses.

pub mod corpus;
pub mod harness;
