//! The benchmark harness's library: workloads that `ragdown-bench` runs.
//!
//! - [`corpus`]: the deterministic runbook corpus of mcp-ragdown's benchmarks.
//! - [`harness`]: the embedder, engine and machine description every benchmark uses.
//! - [`vault`]: a vault of N distinct chunks (real Markdown, then generated notes) and its queries.

pub mod corpus;
pub mod harness;
pub mod vault;
