//! The endpoint's documents as MCP resources: `resources/list`, `resources/read`,
//! `resources/templates/list` and `completion/complete` for the templates' arguments.
//!
//! Every Markdown document the index holds in the endpoint's scope is a resource (`text/markdown`,
//! with its title and description), and so is every other file beside them (an image, a PDF: an
//! attachment, with the MIME type its extension says, read as a blob). URIs are
//! [`super::uri`]'s, the same on every endpoint and transport. A read goes through the same path
//! check and the same read as `ragdown_read_doc` ([`tools::read_file`]), so a resource can never
//! reach what a tool could not: nothing outside the scope, no dot-entry, no symlink. Anything
//! refused, outside the scope or missing is answered the same "not found", so another folder's
//! documents cannot be told from missing ones.
//!
//! Nothing here is listed in `tools/list`: resources cost an agent nothing until a user or client
//! picks one.

use base64::Engine as _;
use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ListResourceTemplatesResult, ListResourcesResult,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};

use super::uri;
use crate::engine::Scope;
use crate::markdown::{is_markdown, links};
use crate::tools::{self, ToolError};

/// Most resources on one page of `resources/list`.
pub const PAGE_SIZE: usize = 100;

/// The MIME type of every document.
const MARKDOWN: &str = "text/markdown";

/// One resource of the scope: a document the index holds, or an attachment on disk.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// The path from the docs dir.
    root_path: String,
    /// The document's title and description; `None` for an attachment.
    document: Option<(String, String)>,
}

/// The scope's resources, sorted by path: its indexed documents, then the files beside them.
async fn entries(scope: &Scope) -> Result<Vec<Entry>, ToolError> {
    let documents = scope.engine.store().documents(&scope.prefix).await?;
    let mut all: Vec<Entry> = documents
        .into_iter()
        .filter(|doc| scope.contains(&doc.path))
        .map(|doc| Entry {
            root_path: doc.path,
            document: Some((doc.title, doc.description)),
        })
        .collect();
    // A spanning scope (the root `/mcp`) walks each of its folders, never the whole docs dir.
    let dirs: Vec<String> = match &scope.span {
        Some(names) => names.iter().map(|name| format!("{name}/")).collect(),
        None => vec![scope.prefix.clone()],
    };
    let docs_dir = scope.engine.docs_dir.clone();
    let attached = tokio::task::spawn_blocking(move || {
        dirs.iter()
            .flat_map(|prefix| {
                let dir = docs_dir.join(prefix.trim_end_matches('/'));
                tools::read::attachments(&dir)
                    .into_iter()
                    .map(|rel| format!("{prefix}{rel}"))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|err| ToolError::internal(err.to_string()))?;
    all.extend(
        attached
            .into_iter()
            .filter(|path| scope.contains(path))
            .map(|root_path| Entry {
                root_path,
                document: None,
            }),
    );
    all.sort_by(|a, b| a.root_path.cmp(&b.root_path));
    Ok(all)
}

/// The MIME type of an attachment, by its extension.
fn mime_of(path: &str) -> String {
    mime_guess::from_path(path)
        .first_or_octet_stream()
        .essence_str()
        .to_string()
}

/// A scope's path as a resource's name: scope-relative, or `folder/path` at the root.
fn name_in(scope: &Scope, root_path: &str) -> String {
    scope.to_scope_path(root_path).to_string()
}

fn resource(scope: &Scope, entry: &Entry) -> Resource {
    let path = scope.dir().join(scope.to_scope_path(&entry.root_path));
    let size = std::fs::symlink_metadata(path).ok().map(|meta| meta.len());
    let mut resource = Resource::new(uri::for_path(&entry.root_path), name_in(scope, &entry.root_path));
    match &entry.document {
        Some((title, description)) => {
            resource = resource.with_title(title.clone()).with_mime_type(MARKDOWN);
            if !description.is_empty() {
                resource = resource.with_description(description.clone());
            }
        }
        None => resource = resource.with_mime_type(mime_of(&entry.root_path)),
    }
    match size {
        Some(size) => resource.with_size(size),
        None => resource,
    }
}

/// `resources/list`: a page of the scope's resources, after the one `cursor` names (the URI of the
/// last resource of the page before, so a page stays right while files come and go).
pub async fn list(scope: &Scope, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let after = match cursor {
        Some(cursor) => Some(
            uri::parse(cursor)
                .map_err(|_| ErrorData::invalid_params(format!("invalid cursor: {cursor}"), None))?
                .root_path,
        ),
        None => None,
    };
    let all = entries(scope).await.map_err(internal)?;
    let start = after.map_or(0, |after| all.partition_point(|e| e.root_path <= after));
    let page = &all[start..all.len().min(start + PAGE_SIZE)];
    let mut result = ListResourcesResult::with_all_items(page.iter().map(|e| resource(scope, e)).collect());
    if start + page.len() < all.len() {
        result.next_cursor = page.last().map(|e| uri::for_path(&e.root_path));
    }
    Ok(result)
}

/// The template of a file by its path, and of a section by path and heading, for this scope.
pub fn templates(scope: &Scope) -> [String; 2] {
    let prefix = format!("{}{}", uri::PREFIX, uri::encode(&scope.prefix, true));
    [format!("{prefix}{{+path}}"), format!("{prefix}{{+path}}#{{heading}}")]
}

/// `resources/templates/list`.
pub fn list_templates(scope: &Scope) -> ListResourceTemplatesResult {
    let [document, section] = templates(scope);
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(document, "document")
            .with_title("Document or attachment")
            .with_description(
                "A document of this folder by its path (as ragdown_read_doc takes it, e.g. ops/backups.md), or \
                 another file beside the documents (an image, a PDF).",
            ),
        ResourceTemplate::new(section, "section")
            .with_title("Section of a document")
            .with_description("The lines under one heading of a document, down to the next heading of its level.")
            .with_mime_type(MARKDOWN),
    ])
}

/// `resources/read`: the file's bytes as on disk (a document as text, or as a blob if it is not
/// UTF-8; an attachment as a blob), or the lines of one section when the URI names a heading.
pub async fn read(scope: &Scope, requested: &str) -> Result<ReadResourceResult, ErrorData> {
    // Every refusal names the URI in `data`, as the 2026-07-28 protocol asks of a resource not found.
    let data = || Some(serde_json::json!({ "uri": requested }));
    let parsed = uri::parse(requested).map_err(|err| ErrorData::invalid_params(err.to_string(), data()))?;
    let not_found = || ErrorData::resource_not_found(format!("no such resource: {requested}"), data());
    if !scope.contains(&parsed.root_path) {
        return Err(not_found());
    }
    let rel = scope.to_scope_path(&parsed.root_path).to_string();
    let markdown = is_markdown(&rel);
    let read_scope = scope.clone();
    let read_rel = rel.clone();
    let bytes = tokio::task::spawn_blocking(move || {
        if markdown {
            tools::read_file(&read_scope, &read_rel)
        } else {
            tools::read::read_attachment(&read_scope, &read_rel)
        }
    })
    .await
    .map_err(|err| ErrorData::internal_error(err.to_string(), None))?
    .map_err(|err| match err.kind() {
        crate::error::ErrorKind::NotFound => not_found(),
        _ => ErrorData::invalid_params(err.message().to_string(), data()),
    })?;
    let contents = match (parsed.heading, markdown) {
        (Some(heading), true) => {
            let text = String::from_utf8(bytes)
                .map_err(|_| ErrorData::invalid_params(format!("{rel} is not UTF-8 text"), None))?;
            let section = section(&text, &heading)
                .ok_or_else(|| ErrorData::resource_not_found(format!("no heading \"{heading}\" in {rel}"), None))?;
            ResourceContents::text(section, requested).with_mime_type(MARKDOWN)
        }
        (Some(_), false) => return Err(not_found()),
        (None, true) => match String::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(text, requested).with_mime_type(MARKDOWN),
            Err(err) => blob(err.as_bytes(), requested, MARKDOWN),
        },
        (None, false) => blob(&bytes, requested, &mime_of(&rel)),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

fn blob(bytes: &[u8], requested: &str, mime: &str) -> ResourceContents {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    ResourceContents::blob(encoded, requested).with_mime_type(mime)
}

/// The exact text of the section under `heading`: its lines as in the file, line endings kept, as
/// [`links::heading_range`] bounds them for `ragdown_read_doc`.
fn section(text: &str, heading: &str) -> Option<String> {
    let lines = tools::split_lines(text);
    let (start, end) = links::heading_range(&lines, heading)?;
    let pieces: Vec<&str> = text.split_inclusive('\n').collect();
    let end = end.min(pieces.len());
    Some(pieces.get(start - 1..end)?.concat())
}

/// `completion/complete` for a template's `path` (the scope's documents, and its attachments for
/// the file template) or a section's `heading` (the headings of the document its `path` names).
/// Paths that start with the typed text come first, then those that hold it, case aside.
pub async fn complete(scope: &Scope, request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let [document, section] = templates(scope);
    if let Some(prompt) = request.r#ref.as_prompt_name() {
        return Err(ErrorData::invalid_params(
            format!("no prompt named {prompt}: this server offers no prompts"),
            None,
        ));
    }
    let template = request.r#ref.as_resource_uri().unwrap_or_default();
    if template != document && template != section {
        return Err(ErrorData::invalid_params(
            format!("no resource template {template} here; resources/templates/list lists them"),
            None,
        ));
    }
    let typed = request.argument.value.to_lowercase();
    let candidates: Vec<String> = match request.argument.name.as_str() {
        "path" => entries(scope)
            .await
            .map_err(internal)?
            .into_iter()
            .filter(|e| template == document || e.document.is_some())
            .map(|e| name_in(scope, &e.root_path))
            .collect(),
        "heading" if template == section => {
            let path = request
                .context
                .as_ref()
                .and_then(|context| context.get_argument("path"))
                .cloned()
                .unwrap_or_default();
            let scope = scope.clone();
            tokio::task::spawn_blocking(move || {
                let bytes = tools::read_file(&scope, &path).unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes);
                links::headings(&tools::split_lines(&text))
            })
            .await
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))?
        }
        other => {
            return Err(ErrorData::invalid_params(
                format!("no argument {other} in {template}"),
                None,
            ));
        }
    };
    let (mut starts, mut holds): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for candidate in candidates {
        let lower = candidate.to_lowercase();
        if lower.starts_with(&typed) {
            starts.push(candidate);
        } else if lower.contains(&typed) {
            holds.push(candidate);
        }
    }
    starts.dedup();
    holds.dedup();
    starts.extend(holds);
    let total = starts.len();
    starts.truncate(CompletionInfo::MAX_VALUES);
    let has_more = total > starts.len();
    let info = CompletionInfo::with_pagination(starts, Some(u32::try_from(total).unwrap_or(u32::MAX)), has_more)
        .map_err(|err| ErrorData::internal_error(err, None))?;
    Ok(CompleteResult::new(info))
}

fn internal(err: ToolError) -> ErrorData {
    ErrorData::internal_error(err.message().to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_is_its_lines_as_in_the_file() {
        let text = "# Doc\r\n\r\nintro\r\n\r\n## Restore\r\n\r\nRun it.\r\n\r\n## Next\r\ny";
        assert_eq!(section(text, "restore").unwrap(), "## Restore\r\n\r\nRun it.\r\n\r\n");
        assert_eq!(section(text, "Next").unwrap(), "## Next\r\ny");
        assert_eq!(
            section("# A\nx\n", "a").unwrap(),
            "# A\nx\n",
            "the trailing line break kept"
        );
        assert_eq!(section(text, "missing"), None);
    }

    #[test]
    fn attachments_get_the_type_of_their_extension() {
        assert_eq!(mime_of("img/diagram.png"), "image/png");
        assert_eq!(mime_of("a/report.PDF"), "application/pdf");
        assert_eq!(mime_of("blob"), "application/octet-stream");
    }
}
