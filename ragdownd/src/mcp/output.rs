//! The `outputSchema`s of the tools whose answer is data: the shape of the `structuredContent`
//! that [`crate::tools`] sends beside the text.
//!
//! Every agent pays for `tools/list` on every turn, so these are kept to types and required keys,
//! without descriptions, and name the fields a program reads (the path, lines, text, title,
//! counts); the rest of an answer's keys (`sources`, `created_by`, `session`, `superseded_by`,
//! `role`, `file_list`, ...) are there too, allowed but not described, as JSON Schema allows. The
//! four schemas together add under 10% to `tools/list` (measured in `docs/tools.md`). The
//! integration tests check real answers against them.

use std::sync::{Arc, LazyLock};

use rmcp::model::JsonObject;
use serde_json::{Value, json};

fn string() -> Value {
    json!({ "type": "string" })
}

fn integer() -> Value {
    json!({ "type": "integer" })
}

fn strings() -> Value {
    json!({ "type": "array", "items": string() })
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("a schema is an object"),
    }
}

static RECALL: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
    let hit = json!({
        "type": "object",
        "properties": {
            "path": string(), "folder": string(), "title": string(), "heading": string(),
            "line_start": integer(), "line_end": integer(),
            "similarity": { "type": "number" }, "score": { "type": "number" },
            "tags": strings(), "modified": string(), "text": string(),
        },
        "required": ["path", "line_start", "line_end", "text"],
    });
    object(json!({
        "type": "object",
        "properties": { "hits": { "type": "array", "items": hit } },
        "required": ["hits"],
    }))
});

static LIST: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
    let document = json!({
        "type": "object",
        "properties": {
            "path": string(), "folder": string(), "title": string(), "tags": strings(), "aliases": strings(),
            "modified": string(), "description": string(),
        },
        "required": ["path", "title"],
    });
    object(json!({
        "type": "object",
        "properties": { "total": integer(), "documents": { "type": "array", "items": document } },
        "required": ["total", "documents"],
    }))
});

static BACKLINKS: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
    let line = json!({ "type": "object", "properties": { "line": integer(), "text": string() } });
    let source = json!({
        "type": "object",
        "properties": { "path": string(), "title": string(), "lines": { "type": "array", "items": line } },
    });
    object(json!({
        "type": "object",
        "properties": { "path": string(), "backlinks": { "type": "array", "items": source } },
        "required": ["path", "backlinks"],
    }))
});

static STATS: LazyLock<Arc<JsonObject>> = LazyLock::new(|| {
    object(json!({
        "type": "object",
        "properties": {
            "files": integer(), "chunks": integer(), "embedder": string(),
            "syncing": { "type": ["boolean", "null"] }, "last_sync": { "type": ["object", "null"] },
        },
        "required": ["files", "chunks"],
    }))
});

/// `ragdown_recall`: `{hits: [...]}`, the `format: json` answer.
pub(super) fn recall() -> Arc<JsonObject> {
    RECALL.clone()
}

/// `ragdown_list`: `{total, documents: [...]}`.
pub(super) fn list() -> Arc<JsonObject> {
    LIST.clone()
}

/// `ragdown_backlinks`: `{path, backlinks: [{path, title, lines: [{line, text}]}]}`.
pub(super) fn backlinks() -> Arc<JsonObject> {
    BACKLINKS.clone()
}

/// `ragdown_stats`: the counts and state of the index, as its text.
pub(super) fn stats() -> Arc<JsonObject> {
    STATS.clone()
}
