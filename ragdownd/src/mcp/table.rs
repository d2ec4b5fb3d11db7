//! The tools the MCP server offers: ONE table, [`TOOLS`], that both `tools/list` and
//! `tools/call` read. Each entry holds a tool's name, description, annotations, argument schema,
//! how the root endpoint takes its `folder` argument, and the handler that parses the arguments
//! strictly and runs the tool in [`crate::tools`].
//!
//! A table rather than rmcp's `#[tool_router]`/`#[tool]` macros: the macros generate each tool's
//! JSON schema again (schemars, with their own settings) and its description from doc comments,
//! which would change the `tools/list` output that clients see and the tests pin byte for byte.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;

use super::output;
use crate::engine::Scope;
use crate::tools::{self, Answer, Output, ToolError, ToolResult, ToolSettings, context, folders, move_doc, write};

/// One tool's static description.
pub(super) struct ToolDef {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) read_only: bool,
    pub(super) destructive: bool,
    pub(super) idempotent: bool,
    pub(super) schema: fn() -> Arc<JsonObject>,
    /// The JSON schema of the tool's `structuredContent`, for the tools whose answer is data
    /// ([`super::output`]); `None` for a tool that answers with text alone.
    pub(super) output: Option<fn() -> Arc<JsonObject>>,
    /// How the root endpoint takes a `folder` argument for this tool.
    pub(super) folder: FolderArg,
    /// Parses the arguments and runs the tool.
    pub(super) handler: Handler,
}

/// A tool's `folder` argument at the root endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FolderArg {
    /// Needed: the tool names a document, and paths are relative to one folder.
    Required,
    /// Left out, the tool covers every folder with MCP on.
    Optional,
    /// Not taken (`ragdown_reindex` syncs the whole index; the root's own tools).
    None,
    /// Only the root endpoint offers the tool.
    RootOnly,
}

/// What a tool call works with: the scope it runs in and the server's settings.
#[derive(Clone, Copy)]
pub(super) struct Call<'a> {
    pub(super) scope: &'a Scope,
    pub(super) settings: &'a ToolSettings,
}

/// A tool's handler: its JSON arguments in, its answer (text, and data for the tools with an output
/// schema) or failure out.
pub(super) type Handler = for<'a> fn(Call<'a>, serde_json::Value) -> BoxFuture<'a, Answer>;

/// A handler's answer for a tool that answers with text alone.
fn text<'a>(answer: impl Future<Output = ToolResult> + Send + 'a) -> BoxFuture<'a, Answer> {
    Box::pin(async move { answer.await.map(Output::from) })
}

/// The description of the root endpoint's `folder` argument where a tool needs it.
pub(super) const FOLDER_ARG: &str = "The folder (a name from ragdown_folders); paths are relative to it.";

/// The description of the root endpoint's `folder` argument where a tool may go without it.
pub(super) const FOLDER_ARG_OPTIONAL: &str =
    "The folder (a name from ragdown_folders); paths are relative to it. Leave it out to cover every folder.";

/// Every tool, in the order `tools/list` shows them.
pub(super) static TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "ragdown_recall",
        description: "Search the user's Markdown documents (notes, runbooks, decisions) and return the best-matching \
            sections with their path, line range, heading and text. Use it before answering any question the \
            documents might cover, and again with other words if the first results miss. Works with plain questions \
            and with exact identifiers (commands, flags, config keys, file paths). Each hit names its lines: read \
            around it with ragdown_read_doc before relying on it. Not for listing documents or reading a known file \
            whole.",
        read_only: true,
        destructive: false,
        idempotent: true,
        schema: schema_for_type::<tools::RecallArgs>,
        output: Some(output::recall),
        folder: FolderArg::Optional,
        handler: |call, args| Box::pin(async move { tools::recall(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_context",
        description: "For hooks that run before a turn, not for answering questions yourself (use ragdown_recall): \
            the sections of the user's documents related to a prompt, as a ready-to-inject <ragdown-context> block, \
            or empty text when nothing is similar enough. Unlike ragdown_recall it filters by similarity (min_score, \
            and min_ratio of the best hit), skips prompts under 12 characters (a Chinese, Japanese or Korean letter counts as 2) and slash commands, and never returns \
            a section twice for the same session_id. reset: true first forgets what that session was given; call it \
            with an empty prompt after the client compacts or clears its context. format: claude-code wraps the \
            block as the JSON a Claude Code UserPromptSubmit hook adds to the prompt.",
        read_only: true,
        destructive: false,
        idempotent: false,
        schema: schema_for_type::<context::ContextArgs>,
        output: None,
        folder: FolderArg::Optional,
        handler: |call, args| text(async move { context::context(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_read_doc",
        description: "Read a document, or a line range of it, by the path a search hit gave (ops/backups.md) or by a \
            wikilink target (Backups, Backups#Restore). Returns the lines with a header `path:start-end of total \
            (hash …)`; the hash identifies this version of the file. Use it to read around a search hit before \
            relying on it. Not for searching.",
        read_only: true,
        destructive: false,
        idempotent: true,
        schema: schema_for_type::<tools::ReadDocArgs>,
        output: None,
        folder: FolderArg::Required,
        handler: |call, args| text(async move { tools::read_doc(call.scope, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_backlinks",
        description: "List the documents of this folder that link to a document (wikilinks and relative Markdown \
            links, not links inside code), with each linking line, as JSON. Use it to see what depends on a document \
            before changing, moving or deleting it.",
        read_only: true,
        destructive: false,
        idempotent: true,
        schema: schema_for_type::<tools::BacklinksArgs>,
        output: Some(output::backlinks),
        folder: FolderArg::Required,
        handler: |call, args| Box::pin(async move { tools::backlinks(call.scope, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_list",
        description: "List the documents of this folder, one line each: path, title, tags, when it changed, who \
            wrote it, aliases, what supersedes it, and its description. Filter by path_prefix, tag, written_by or \
            session_id; sort by path or recent. Use it to see what exists or what an agent wrote in a session; use \
            ragdown_recall to find where something is said.",
        read_only: true,
        destructive: false,
        idempotent: true,
        schema: schema_for_type::<tools::ListArgs>,
        output: Some(output::list),
        folder: FolderArg::Optional,
        handler: |call, args| Box::pin(async move { tools::list(call.scope, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_stats",
        description: "Report the index behind this server as JSON: documents and chunks indexed, the embedder, \
            whether a sync is running and its progress, and the last sync's counts. For whoever runs the server; \
            agents rarely need it.",
        read_only: true,
        destructive: false,
        idempotent: true,
        schema: schema_for_type::<tools::StatsArgs>,
        output: Some(output::stats),
        folder: FolderArg::Optional,
        handler: |call, args| Box::pin(async move { tools::stats(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_remember",
        description: "Save a new note (title, Markdown content, optional tags) in this folder's notes directory, \
            with front matter saying an agent wrote it. Never overwrites: a taken name gets -2, -3... Use supersedes \
            to mark older documents it replaces, so searches stop returning them. It is searchable at once.",
        read_only: false,
        destructive: false,
        idempotent: false,
        schema: schema_for_type::<write::RememberArgs>,
        output: None,
        folder: FolderArg::Required,
        handler: |call, args| text(async move { write::remember(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_write",
        description: "Create a document, replace one, or append to one. A new path creates the document. To replace \
            an existing document pass base_hash, the hash ragdown_read_doc printed, so a version someone changed \
            since is never overwritten; with append: true the text goes at the end (or at the end of the section \
            under heading) and base_hash is optional. For small changes prefer ragdown_edit; for a new note prefer \
            ragdown_remember.",
        read_only: false,
        destructive: true,
        idempotent: false,
        schema: schema_for_type::<write::WriteArgs>,
        output: None,
        folder: FolderArg::Required,
        handler: |call, args| text(async move { write::write(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_edit",
        description: "Change passages of a document: each edit replaces old_text, copied exactly from the document \
            (ragdown_read_doc), with new_text. Edits apply in order and all or none are written. When a passage is \
            not found, the error shows the nearest one to copy from. Pass base_hash to refuse if the file changed \
            since you read it.",
        read_only: false,
        destructive: true,
        idempotent: false,
        schema: schema_for_type::<write::EditArgs>,
        output: None,
        folder: FolderArg::Required,
        handler: |call, args| text(async move { write::edit(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_move",
        description: "Rename or move a document, or a subfolder with everything in it, to a new path inside this \
            folder. Every link that pointed at what moved ([[wikilinks]] and relative Markdown links, in any \
            document, the moved ones included) is rewritten to still point at it, and the answer names the documents \
            whose links were updated. Never overwrites: if something is already at to, nothing moves. Use this \
            rather than ragdown_write plus ragdown_delete, which would break the links.",
        read_only: false,
        destructive: false,
        idempotent: false,
        schema: schema_for_type::<move_doc::MoveArgs>,
        output: None,
        folder: FolderArg::Required,
        handler: |call, args| text(async move { move_doc::move_doc(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_delete",
        description: "Delete a document, or a subfolder with recursive: true. Pass base_hash (from ragdown_read_doc) \
            to delete a document only if it is still the version you read. Cannot be undone.",
        read_only: false,
        destructive: true,
        idempotent: false,
        schema: schema_for_type::<write::DeleteArgs>,
        output: None,
        folder: FolderArg::Required,
        handler: |call, args| text(async move { write::delete(call.scope, call.settings, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_reindex",
        description: "Sync the index with the files now and report what changed as JSON ({added, updated, removed, \
            unchanged, chunks, ms}). The index normally follows file changes by itself; use this after bulk edits \
            made outside the watcher, or with full: true to rebuild from scratch.",
        read_only: false,
        destructive: false,
        idempotent: true,
        schema: schema_for_type::<tools::ReindexArgs>,
        output: None,
        folder: FolderArg::None,
        handler: |call, args| text(async move { tools::reindex(call.scope, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_folders",
        description: "List the folders of the user's Markdown documents this server offers, one line each: name, \
            title and how many documents it holds. Pass a name as folder to the other tools.",
        read_only: true,
        destructive: false,
        idempotent: true,
        schema: schema_for_type::<folders::FoldersArgs>,
        output: None,
        folder: FolderArg::RootOnly,
        handler: |call, args| text(async move { folders::list(&call.scope.engine, parse(args)?).await }),
    },
    ToolDef {
        name: "ragdown_create_folder",
        description: "Make a new, empty folder (name, optional title) with MCP on, for documents that belong to none \
            of the folders ragdown_folders lists. Never overwrites an existing folder. Names: 1-64 letters, digits, \
            spaces, '_', '.' or '-'. Folders cannot be renamed or deleted from here.",
        read_only: false,
        destructive: false,
        idempotent: false,
        schema: schema_for_type::<folders::CreateFolderArgs>,
        output: None,
        folder: FolderArg::RootOnly,
        handler: |call, args| {
            text(async move { folders::create(call.scope, call.settings.read_only, parse(args)?).await })
        },
    },
];

/// The arguments, parsed strictly: unknown ones are refused, and no arguments are `{}`.
fn parse<T: DeserializeOwned>(arguments: serde_json::Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() {
        serde_json::Value::Object(Default::default())
    } else {
        arguments
    };
    serde_json::from_value(arguments).map_err(|e| ToolError::new(format!("invalid arguments: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_is_in_the_table_once() {
        let mut names: Vec<&str> = TOOLS.iter().map(|def| def.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
    }
}
