//! The MCP server: one cloneable type serves stdio and streamable HTTP.
//!
//! Tools are listed from one table (name, description, annotations, argument schema) filtered by
//! `RAGDOWN_READ_ONLY` and `RAGDOWN_DISABLED_TOOLS`; calls deserialize the arguments strictly
//! (unknown arguments are refused) and hand them to [`crate::tools`]. A tool's failure is an
//! `isError` result carrying the message, whatever its kind; an unknown or hidden tool is a
//! protocol error (invalid params).
//!
//! The same type also serves the root `/mcp` (`RAGDOWN_ROOT_MCP`): every folder with MCP on at
//! once. There each tool but `ragdown_reindex` takes a `folder` argument (required by the tools that
//! name a document), `ragdown_folders` and `ragdown_create_folder` are added, and a call that names
//! no folder searches, lists or counts every MCP folder, naming each hit's folder.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;

use crate::engine::{Engine, Scope};
use crate::error::ErrorKind;
use crate::tools::{self, ToolError, ToolSettings, context, folders, move_doc, write};

/// Which tools exist and which a server hides.
#[derive(Debug, Clone, Default)]
pub struct ToolFilter {
    /// Write tools are hidden and refused.
    pub read_only: bool,
    /// Tools neither listed nor callable (`RAGDOWN_DISABLED_TOOLS`).
    pub disabled: HashSet<String>,
}

/// One tool's static description.
struct ToolDef {
    name: &'static str,
    description: &'static str,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    schema: fn() -> Arc<rmcp::model::JsonObject>,
    /// How the root endpoint takes a `folder` argument for this tool.
    folder: FolderArg,
}

/// A tool's `folder` argument at the root endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FolderArg {
    /// Needed: the tool names a document, and paths are relative to one folder.
    Required,
    /// Left out, the tool covers every folder with MCP on.
    Optional,
    /// Not taken (`ragdown_reindex` syncs the whole index; the root's own tools).
    None,
    /// Only the root endpoint offers the tool.
    RootOnly,
}

const FOLDERS: &str = "List the folders of the user's Markdown documents this server offers, one line each: name, \
title and how many documents it holds. Pass a name as folder to the other tools.";

const CREATE_FOLDER: &str = "Make a new, empty folder (name, optional title) with MCP on, for documents that belong \
to none of the folders ragdown_folders lists. Never overwrites an existing folder. Names: 1-64 letters, digits, \
spaces, '_', '.' or '-'. Folders cannot be renamed or deleted from here.";

const FOLDER_ARG: &str = "The folder (a name from ragdown_folders); paths are relative to it.";

const FOLDER_ARG_OPTIONAL: &str =
    "The folder (a name from ragdown_folders); paths are relative to it. Leave it out to cover every folder.";

const RECALL: &str = "Search the user's Markdown documents (notes, runbooks, decisions) and return the best-matching \
sections with their path, line range, heading and text. Use it before answering any question the documents might \
cover, and again with other words if the first results miss. Works with plain questions and with exact identifiers \
(commands, flags, config keys, file paths). Each hit names its lines: read around it with ragdown_read_doc before \
relying on it. Not for listing documents or reading a known file whole.";

const CONTEXT: &str = "For hooks that run before a turn, not for answering questions yourself (use ragdown_recall): \
the sections of the user's documents related to a prompt, as a ready-to-inject <ragdown-context> block, or empty text \
when nothing is similar enough. Unlike ragdown_recall it filters by similarity (min_score, and min_ratio of the best \
hit), skips prompts under 12 characters and slash commands, and never returns a section twice for the same \
session_id. reset: true first forgets what that session was given; call it with an empty prompt after the client \
compacts or clears its context. format: claude-code wraps the block as the JSON a Claude Code UserPromptSubmit hook \
adds to the prompt.";

const READ_DOC: &str = "Read a document, or a line range of it, by the path a search hit gave (ops/backups.md) or by a \
wikilink target (Backups, Backups#Restore). Returns the lines with a header `path:start-end of total (hash …)`; the \
hash identifies this version of the file. Use it to read around a search hit before relying on it. Not for searching.";

const LIST: &str = "List the documents of this folder, one line each: path, title, tags, when it changed, who \
wrote it, aliases, what supersedes it, and its description. Filter by path_prefix, tag, written_by or session_id; \
sort by path or recent. Use it to see what exists or what an agent wrote in a session; use ragdown_recall to find \
where something is said.";

const BACKLINKS: &str = "List the documents of this folder that link to a document (wikilinks and relative \
Markdown links, not links inside code), with each linking line, as JSON. Use it to see what depends on a \
document before changing, moving or deleting it.";

const STATS: &str = "Report the index behind this server as JSON: documents and chunks indexed, the embedder, whether \
a sync is running and its progress, and the last sync's counts. For whoever runs the server; agents rarely need it.";

const REINDEX: &str = "Sync the index with the files now and report what changed as JSON \
({added, updated, removed, unchanged, chunks, ms}). The index normally follows file changes by itself; use this \
after bulk edits made outside the watcher, or with full: true to rebuild from scratch.";

const WRITE: &str = "Create a document, replace one, or append to one. A new path creates the document. To \
replace an existing document pass base_hash, the hash ragdown_read_doc printed, so a version someone changed \
since is never overwritten; with append: true the text goes at the end (or at the end of the section under \
heading) and base_hash is optional. For small changes prefer ragdown_edit; for a new note prefer ragdown_remember.";

const EDIT: &str = "Change passages of a document: each edit replaces old_text, copied exactly from the document \
(ragdown_read_doc), with new_text. Edits apply in order and all or none are written. When a passage is not \
found, the error shows the nearest one to copy from. Pass base_hash to refuse if the file changed since you read it.";

const MOVE: &str = "Rename or move a document, or a subfolder with everything in it, to a new path inside this \
folder. Every link that pointed at what moved ([[wikilinks]] and relative Markdown links, in any document, the moved \
ones included) is rewritten to still point at it, and the answer names the documents whose links were updated. \
Never overwrites: if something is already at to, nothing moves. Use this rather than ragdown_write plus \
ragdown_delete, which would break the links.";

const DELETE: &str = "Delete a document, or a subfolder with recursive: true. Pass base_hash (from \
ragdown_read_doc) to delete a document only if it is still the version you read. Cannot be undone.";

const REMEMBER: &str = "Save a new note (title, Markdown content, optional tags) in this folder's notes \
directory, with front matter saying an agent wrote it. Never overwrites: a taken name gets -2, -3... Use \
supersedes to mark older documents it replaces, so searches stop returning them. It is searchable at once.";

fn defs() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "ragdown_recall",
            description: RECALL,
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: schema_for_type::<tools::RecallArgs>,
            folder: FolderArg::Optional,
        },
        ToolDef {
            name: "ragdown_context",
            description: CONTEXT,
            read_only: true,
            destructive: false,
            idempotent: false,
            schema: schema_for_type::<context::ContextArgs>,
            folder: FolderArg::Optional,
        },
        ToolDef {
            name: "ragdown_read_doc",
            description: READ_DOC,
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: schema_for_type::<tools::ReadDocArgs>,
            folder: FolderArg::Required,
        },
        ToolDef {
            name: "ragdown_backlinks",
            description: BACKLINKS,
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: schema_for_type::<tools::BacklinksArgs>,
            folder: FolderArg::Required,
        },
        ToolDef {
            name: "ragdown_list",
            description: LIST,
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: schema_for_type::<tools::ListArgs>,
            folder: FolderArg::Optional,
        },
        ToolDef {
            name: "ragdown_stats",
            description: STATS,
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: schema_for_type::<tools::StatsArgs>,
            folder: FolderArg::Optional,
        },
        ToolDef {
            name: "ragdown_remember",
            description: REMEMBER,
            read_only: false,
            destructive: false,
            idempotent: false,
            schema: schema_for_type::<write::RememberArgs>,
            folder: FolderArg::Required,
        },
        ToolDef {
            name: "ragdown_write",
            description: WRITE,
            read_only: false,
            destructive: true,
            idempotent: false,
            schema: schema_for_type::<write::WriteArgs>,
            folder: FolderArg::Required,
        },
        ToolDef {
            name: "ragdown_edit",
            description: EDIT,
            read_only: false,
            destructive: true,
            idempotent: false,
            schema: schema_for_type::<write::EditArgs>,
            folder: FolderArg::Required,
        },
        ToolDef {
            name: "ragdown_move",
            description: MOVE,
            read_only: false,
            destructive: false,
            idempotent: false,
            schema: schema_for_type::<move_doc::MoveArgs>,
            folder: FolderArg::Required,
        },
        ToolDef {
            name: "ragdown_delete",
            description: DELETE,
            read_only: false,
            destructive: true,
            idempotent: false,
            schema: schema_for_type::<write::DeleteArgs>,
            folder: FolderArg::Required,
        },
        ToolDef {
            name: "ragdown_reindex",
            description: REINDEX,
            read_only: false,
            destructive: false,
            idempotent: true,
            schema: schema_for_type::<tools::ReindexArgs>,
            folder: FolderArg::None,
        },
        ToolDef {
            name: "ragdown_folders",
            description: FOLDERS,
            read_only: true,
            destructive: false,
            idempotent: true,
            schema: schema_for_type::<folders::FoldersArgs>,
            folder: FolderArg::RootOnly,
        },
        ToolDef {
            name: "ragdown_create_folder",
            description: CREATE_FOLDER,
            read_only: false,
            destructive: false,
            idempotent: false,
            schema: schema_for_type::<folders::CreateFolderArgs>,
            folder: FolderArg::RootOnly,
        },
    ]
}

/// What a server serves: one scope, or every MCP folder at the root.
#[derive(Debug, Clone)]
enum Endpoint {
    Scope(Scope),
    Root(Arc<Engine>),
}

/// `schema` with a `folder` string property added, and listed as required when it is.
fn with_folder_property(schema: &rmcp::model::JsonObject, required: bool) -> Arc<rmcp::model::JsonObject> {
    let mut schema = schema.clone();
    let description = if required { FOLDER_ARG } else { FOLDER_ARG_OPTIONAL };
    let property = serde_json::json!({ "type": "string", "minLength": 1, "description": description });
    if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert("folder".into(), property);
    } else {
        schema.insert("properties".into(), serde_json::json!({ "folder": property }));
    }
    if required {
        match schema.get_mut("required") {
            Some(serde_json::Value::Array(list)) => list.insert(0, "folder".into()),
            _ => {
                schema.insert("required".into(), serde_json::json!(["folder"]));
            }
        }
    }
    Arc::new(schema)
}

/// The MCP server for one scope, or for the root endpoint.
#[derive(Debug, Clone)]
pub struct RagdownServer {
    endpoint: Endpoint,
    settings: Arc<ToolSettings>,
    filter: Arc<ToolFilter>,
}

impl RagdownServer {
    /// A server for one folder, subfolder, or (stdio) the whole docs dir.
    pub fn new(scope: Scope, settings: ToolSettings, filter: ToolFilter) -> Self {
        Self {
            endpoint: Endpoint::Scope(scope),
            settings: Arc::new(settings),
            filter: Arc::new(filter),
        }
    }

    /// The root `/mcp`: every folder with MCP on, read from disk on each call.
    pub fn root(engine: Arc<Engine>, settings: ToolSettings, filter: ToolFilter) -> Self {
        Self {
            endpoint: Endpoint::Root(engine),
            settings: Arc::new(settings),
            filter: Arc::new(filter),
        }
    }

    fn is_root(&self) -> bool {
        matches!(self.endpoint, Endpoint::Root(_))
    }

    fn is_enabled(&self, def: &ToolDef) -> bool {
        (def.read_only || !self.filter.read_only)
            && !self.filter.disabled.contains(def.name)
            && (def.folder != FolderArg::RootOnly || self.is_root())
    }

    /// The scope a root call works in: the named folder, or every MCP folder when the tool allows
    /// leaving it out. A folder that is missing or human-only is refused the same way.
    fn root_scope(engine: &Arc<Engine>, def: &ToolDef, folder: Option<String>) -> Result<Scope, ToolError> {
        match (folder, def.folder) {
            (_, FolderArg::None | FolderArg::RootOnly) => Ok(Scope::root(engine.clone())),
            (Some(name), _) => crate::folders::get(&engine.docs_dir, &name)
                .filter(|found| found.mcp)
                .map(|found| Scope::folder(engine.clone(), &found, ""))
                .ok_or_else(|| {
                    ToolError::new(format!(
                        "no folder named \"{name}\" (ragdown_folders lists the folders this server offers)"
                    ))
                }),
            (None, FolderArg::Optional) => {
                let names = folders::mcp_folders(&engine.docs_dir)
                    .into_iter()
                    .map(|f| f.name)
                    .collect();
                Ok(Scope::spanning(engine.clone(), names))
            }
            (None, FolderArg::Required) => Err(ToolError::new(format!(
                "{} needs a folder here: pass folder (ragdown_folders lists them)",
                def.name
            ))),
        }
    }

    /// The tools this server lists, in order.
    pub fn tools(&self) -> Vec<Tool> {
        defs()
            .into_iter()
            .filter(|def| self.is_enabled(def))
            .map(|def| {
                let mut annotations = ToolAnnotations::new();
                annotations.read_only_hint = Some(def.read_only);
                annotations.destructive_hint = Some(def.destructive);
                annotations.idempotent_hint = Some(def.idempotent);
                annotations.open_world_hint = Some(false);
                let schema = (def.schema)();
                let schema = match def.folder {
                    FolderArg::Required if self.is_root() => with_folder_property(&schema, true),
                    FolderArg::Optional if self.is_root() => with_folder_property(&schema, false),
                    _ => schema,
                };
                let mut tool = Tool::new(def.name, def.description, schema);
                tool.annotations = Some(annotations);
                tool
            })
            .collect()
    }

    /// Runs a tool by name with JSON arguments; `Err` is a protocol error (unknown tool).
    pub async fn call(&self, name: &str, arguments: serde_json::Value) -> Result<Result<String, ToolError>, ErrorData> {
        let Some(def) = defs().into_iter().find(|def| def.name == name && self.is_enabled(def)) else {
            return Err(ErrorData::invalid_params(format!("unknown tool: {name}"), None));
        };
        let settings = &self.settings;
        let mut arguments = arguments;
        let scope = match &self.endpoint {
            Endpoint::Scope(scope) => scope.clone(),
            Endpoint::Root(engine) => {
                // Tools that take no folder leave it in, so the strict parse refuses it as it
                // refuses any unknown argument.
                let takes_folder = matches!(def.folder, FolderArg::Required | FolderArg::Optional);
                let given = takes_folder
                    .then(|| arguments.as_object_mut().and_then(|args| args.remove("folder")))
                    .flatten();
                let folder = match given {
                    Some(serde_json::Value::String(name)) => Some(name),
                    Some(serde_json::Value::Null) | None => None,
                    Some(other) => {
                        let message = format!("invalid arguments: folder must be a string, not {other}");
                        return Ok(Err(ToolError::new(message)));
                    }
                };
                match Self::root_scope(engine, &def, folder) {
                    Ok(scope) => scope,
                    Err(err) => return Ok(Err(err)),
                }
            }
        };
        let scope = &scope;
        let result = async {
            match def.name {
                "ragdown_recall" => tools::recall(scope, settings, parse(arguments)?).await,
                "ragdown_context" => context::context(scope, settings, parse(arguments)?).await,
                "ragdown_read_doc" => tools::read_doc(scope, parse(arguments)?).await,
                "ragdown_list" => tools::list(scope, parse(arguments)?).await,
                "ragdown_backlinks" => tools::backlinks(scope, parse(arguments)?).await,
                "ragdown_stats" => tools::stats(scope, settings, parse(arguments)?).await,
                "ragdown_reindex" => tools::reindex(scope, parse(arguments)?).await,
                "ragdown_remember" => write::remember(scope, settings, parse(arguments)?).await,
                "ragdown_write" => write::write(scope, settings, parse(arguments)?).await,
                "ragdown_edit" => write::edit(scope, settings, parse(arguments)?).await,
                "ragdown_move" => move_doc::move_doc(scope, settings, parse(arguments)?).await,
                "ragdown_delete" => write::delete(scope, settings, parse(arguments)?).await,
                "ragdown_folders" => folders::list(&scope.engine, parse(arguments)?).await,
                "ragdown_create_folder" => folders::create(&scope.engine, settings.read_only, parse(arguments)?).await,
                _ => unreachable!("every listed tool is dispatched"),
            }
        }
        .await;
        Ok(result)
    }

    fn instructions(&self) -> String {
        let scope = match &self.endpoint {
            Endpoint::Scope(scope) => scope,
            Endpoint::Root(_) => {
                return "Search the user's folders of Markdown documents. ragdown_folders lists them; every tool \
                        takes a folder (paths are relative to it), and ragdown_recall, ragdown_list, ragdown_context \
                        and ragdown_stats cover every folder when it is left out. Call ragdown_recall before \
                        answering a question the documents might cover (project decisions, how-tos, runbooks, \
                        personal notes), then ragdown_read_doc to read around a hit before relying on it."
                    .to_string();
            }
        };
        let which = match &scope.title {
            Some(title) => format!("the \"{title}\" folder of the user's Markdown documents"),
            None => "the user's folder of Markdown documents".to_string(),
        };
        format!(
            "Search {which}. Call ragdown_recall before answering a question the documents might cover \
             (project decisions, how-tos, runbooks, personal notes), then ragdown_read_doc to read around a hit \
             before relying on it."
        )
    }
}

/// What a tool's failure answers with over MCP, for each kind: an `isError` result carrying the
/// message, which the agent reads and acts on. MCP has no status to tell the kinds apart; a tool
/// that does not exist is a protocol error, answered before any tool runs.
fn error_result(err: &ToolError) -> CallToolResult {
    let text = || vec![ContentBlock::text(err.message().to_string())];
    match err.kind() {
        ErrorKind::Invalid
        | ErrorKind::ReadOnly
        | ErrorKind::NotFound
        | ErrorKind::Conflict
        | ErrorKind::Changed
        | ErrorKind::Unavailable
        | ErrorKind::Internal => CallToolResult::error(text()),
    }
}

fn parse<T: DeserializeOwned>(arguments: serde_json::Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() {
        serde_json::Value::Object(Default::default())
    } else {
        arguments
    };
    serde_json::from_value(arguments).map_err(|e| ToolError::new(format!("invalid arguments: {e}")))
}

impl ServerHandler for RagdownServer {
    fn get_info(&self) -> ServerConfig {
        let name = match &self.endpoint {
            Endpoint::Scope(Scope {
                folder: Some(folder), ..
            }) => format!("ragdown-{folder}"),
            _ => "ragdown".to_string(),
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(name, env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request
            .arguments
            .map(serde_json::Value::Object)
            .unwrap_or(serde_json::Value::Null);
        let result = match self.call(&request.name, arguments).await? {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(err) => error_result(&err),
        };
        Ok(result.into())
    }

    /// Requests the SDK could not read as any method it knows: a `tools/call` whose params are not
    /// `{name, arguments: {...}}` lands here too, and deserves to hear that rather than "method not
    /// found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match request.method.as_str() {
            "tools/call" => Err(ErrorData::invalid_params(
                "invalid params for tools/call: name must be a string and arguments an object",
                None,
            )),
            method => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
                None,
            )),
        }
    }
}
