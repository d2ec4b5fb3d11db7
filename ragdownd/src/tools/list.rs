//! `ragdown_list`: the documents of an endpoint, one line each, and the same as data
//! (`{total, documents: [...]}`) for MCP's `structuredContent`. The text is the original's, to the
//! character (`list_lines` and `list_empty` in `tests/data/expected.json`).

use serde_json::json;

use super::{Answer, ListArgs, ListSort, Output, ToolError, scoped_prefix};
use crate::engine::Scope;
use crate::index::reads::documents_under;
use crate::index::rows::DocumentInfo;
use crate::index::sync::{iso_from_ms, utc_day};
use crate::search::{self, WrittenBy};

/// `ragdown_list`: the documents of this endpoint, one line each.
pub async fn list(scope: &Scope, args: ListArgs) -> Answer {
    if !(1..=1000).contains(&args.limit) {
        return Err(ToolError::new("limit must be between 1 and 1000"));
    }
    let prefix = scoped_prefix(scope, args.path_prefix.as_deref())?;
    let store = scope.engine.store();
    let documents = store.document_map().await?;
    let superseded = store.superseded().await?;
    let tag = args.tag.as_deref().map(search::normalize_tag).filter(|t| !t.is_empty());
    let mut matching: Vec<&DocumentInfo> = documents_under(&documents, &prefix)
        .filter(|doc| scope.contains(&doc.path))
        .filter(|doc| {
            tag.as_ref()
                .is_none_or(|t| doc.tags.iter().any(|d| d == t || d.starts_with(&format!("{t}/"))))
        })
        .filter(|doc| match args.written_by {
            Some(WrittenBy::Agent) => !doc.created_by.is_empty(),
            Some(WrittenBy::User) => doc.created_by.is_empty(),
            None => true,
        })
        .filter(|doc| args.session_id.as_deref().is_none_or(|s| doc.session == s))
        .collect();
    if matching.is_empty() {
        return Ok(Output::with_data(
            "No documents.".into(),
            json!({ "total": 0, "documents": [] }),
        ));
    }
    if args.sort == ListSort::Recent {
        matching.sort_by(|a, b| b.mtime_ms.total_cmp(&a.mtime_ms).then_with(|| a.path.cmp(&b.path)));
    }
    let total = matching.len();
    let shown = total.min(args.limit);
    let mut lines = vec![if shown < total {
        format!("documents: {shown} of {total}")
    } else {
        format!("documents: {total}")
    }];
    let mut data = Vec::with_capacity(shown);
    for doc in matching.iter().take(shown) {
        let by = superseded.get(&doc.path).map(Vec::as_slice).unwrap_or_default();
        lines.push(line(scope, doc, by));
        data.push(document_json(scope, doc, by));
    }
    Ok(Output::with_data(
        lines.join("\n"),
        json!({ "total": total, "documents": data }),
    ))
}

/// One document's line: `path — title [#tags] (changed day, ...): description`.
fn line(scope: &Scope, doc: &DocumentInfo, superseded_by: &[String]) -> String {
    let superseded_by: Vec<String> = superseded_by.iter().map(|p| scope.label(p)).collect();
    let tags = if doc.tags.is_empty() {
        String::new()
    } else {
        format!(
            " [{}]",
            doc.tags.iter().map(|t| format!("#{t}")).collect::<Vec<_>>().join(" ")
        )
    };
    let mut details = vec![format!("changed {}", utc_day(doc.mtime_ms))];
    if !doc.created_by.is_empty() {
        details.push(format!("written by an agent with {}", doc.created_by));
    }
    if !doc.session.is_empty() {
        details.push(format!("session {}", doc.session));
    }
    if !doc.aliases.is_empty() {
        details.push(format!("aliases {}", doc.aliases.join(", ")));
    }
    if !superseded_by.is_empty() {
        details.push(format!("superseded by {}", superseded_by.join(", ")));
    }
    let description = if doc.description.is_empty() {
        String::new()
    } else {
        format!(": {}", doc.description)
    };
    format!(
        "{} — {}{tags} ({}){description}",
        scope.label(&doc.path),
        doc.title,
        details.join(", ")
    )
}

/// One document as data: the line's fields, with `folder` apart from `path` in a spanning scope,
/// as `ragdown_recall`'s hits have them, and the empty optional ones left out.
fn document_json(scope: &Scope, doc: &DocumentInfo, superseded_by: &[String]) -> serde_json::Value {
    let mut value = json!({
        "path": scope.to_scope_path(&doc.path),
        "title": doc.title,
        "tags": doc.tags,
        "aliases": doc.aliases,
        "modified": iso_from_ms(doc.mtime_ms as i64),
    });
    if let Some((folder, rest)) = scope.split_folder(&doc.path) {
        value["folder"] = json!(folder);
        value["path"] = json!(rest);
    }
    for (key, field) in [
        ("created_by", &doc.created_by),
        ("session", &doc.session),
        ("description", &doc.description),
    ] {
        if !field.is_empty() {
            value[key] = json!(field);
        }
    }
    if !superseded_by.is_empty() {
        let by: Vec<&str> = superseded_by.iter().map(|p| scope.to_scope_path(p)).collect();
        value["superseded_by"] = json!(by);
    }
    value
}
