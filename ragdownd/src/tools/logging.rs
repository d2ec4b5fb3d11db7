//! The tools' lines in the query log ([`crate::querylog`]): a search with its hits, and a read.
//!
//! Called by the tools after they have their answer; each is a no-op while the log is off. They
//! must record where things are and how they scored, never document text.

use std::time::Instant;

use serde_json::json;

use super::RecallArgs;
use super::context;
use crate::engine::Scope;
use crate::querylog::{Entry, Kind, LoggedHit};
use crate::search::Hit;
use crate::settings::HookOverrides;

use super::ToolSettings;

/// Logs a search (`ragdown_recall`, or the web UI's `/api/search` as [`Kind::WebSearch`]): the
/// query, its filters, its hits, and the hook's floor for this endpoint, which is what makes a
/// query a gap.
pub(crate) fn search(
    kind: Kind,
    scope: &Scope,
    settings: &ToolSettings,
    args: &RecallArgs,
    hits: &[Hit],
    started: Instant,
) {
    let log = &scope.engine.query_log;
    if !log.is_enabled() {
        return;
    }
    let mut entry = Entry::new(kind, &scope.prefix);
    entry.query = Some(args.query.trim().to_string());
    entry.filters = json!({
        "top_k": args.top_k,
        "path_prefix": args.path_prefix,
        "tag": args.tag,
        "written_by": args.written_by,
    });
    entry.min_score = Some(context::gates(scope, settings, HookOverrides::default()).min_score);
    entry.hits = hits.iter().map(|hit| LoggedHit::new(hit, None)).collect();
    entry.ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    log.record(&entry);
}

/// Logs a `ragdown_read_doc` of `path` (root-relative), lines `start` to `end`.
pub(crate) fn read(scope: &Scope, path: &str, start: usize, end: usize) {
    let log = &scope.engine.query_log;
    if !log.is_enabled() {
        return;
    }
    let mut entry = Entry::new(Kind::Read, &scope.prefix);
    entry.path = Some(path.to_string());
    entry.lines = Some([start, end]);
    log.record(&entry);
}
