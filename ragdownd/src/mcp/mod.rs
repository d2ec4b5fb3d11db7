//! The MCP server: one cloneable type serves stdio and streamable HTTP.
//!
//! Tools are listed from one table ([`table`]: name, description, annotations, argument schema,
//! handler) filtered by `RAGDOWN_READ_ONLY` and `RAGDOWN_DISABLED_TOOLS`; a call finds its tool in
//! the same table, whose handler deserializes the arguments strictly (unknown arguments are
//! refused) and hands them to [`crate::tools`]. A tool's failure is an
//! `isError` result carrying the message, whatever its kind; an unknown or hidden tool is a
//! protocol error (invalid params).
//!
//! The same type also serves the root `/mcp` (`RAGDOWN_ROOT_MCP`): every folder with MCP on at
//! once. There each tool but `ragdown_reindex` takes a `folder` argument (required by the tools that
//! name a document), `ragdown_folders` and `ragdown_create_folder` are added, and a call that names
//! no folder searches, lists or counts every MCP folder, naming each hit's folder.
//!
//! Beside the tools, the endpoint's documents are MCP resources ([`resources`], with URIs from
//! [`uri`]), listed, read and completed without adding anything to `tools/list`, and followed
//! ([`notify`]): on every transport through the 2026-07-28 `subscriptions/listen`, and on stdio
//! through the 2025-11-25 `resources/subscribe` too; the tools whose answer is data carry an
//! `outputSchema` ([`output`]) and send `structuredContent` beside the text.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, ContentBlock,
    CustomRequest, CustomResult, ErrorCode, Implementation, InitializeRequestParams, InitializeResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use crate::engine::{Engine, Scope};
use crate::error::ErrorKind;
use crate::tools::{Output, ToolError, ToolSettings, folders};

mod notify;
mod output;
mod resources;
mod table;
mod uri;

use table::{Call, FOLDER_ARG, FOLDER_ARG_OPTIONAL, FolderArg, TOOLS, ToolDef};

/// Which tools exist and which a server hides.
#[derive(Debug, Clone, Default)]
pub struct ToolFilter {
    /// Write tools are hidden and refused.
    pub read_only: bool,
    /// Tools neither listed nor callable (`RAGDOWN_DISABLED_TOOLS`).
    pub disabled: HashSet<String>,
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
    /// The 2025-11-25 resource subscriptions and unsolicited notifications, on a transport whose
    /// session lives as long as its connection (stdio).
    notifier: Option<Arc<notify::Notifier>>,
    /// Cancelled when the server shuts down: `subscriptions/listen` streams then end gracefully
    /// instead of holding the shutdown open.
    closing: Option<CancellationToken>,
    /// The connection's session, which the history records a write under when the call names
    /// no `session_id` of its own (stdio: one per process).
    session: Option<String>,
    /// The scoped token this endpoint was reached with, recorded with each write; `None`: the owner's.
    token: Option<String>,
}

impl RagdownServer {
    /// A server for one folder, subfolder, or (stdio) the whole docs dir.
    pub fn new(scope: Scope, settings: ToolSettings, filter: ToolFilter) -> Self {
        Self {
            endpoint: Endpoint::Scope(scope),
            settings: Arc::new(settings),
            filter: Arc::new(filter),
            notifier: None,
            closing: None,
            session: None,
            token: None,
        }
    }

    /// With the 2025-11-25 `resources/subscribe` and unsolicited change notifications, for a
    /// session that lives as long as its connection (stdio). The stateless HTTP endpoints answer
    /// each request alone and have no session stream to send them on; there, and on stdio too,
    /// the 2026-07-28 `subscriptions/listen` opens a stream of its own.
    pub fn with_notifications(mut self) -> Self {
        self.notifier = Some(Arc::default());
        self
    }

    /// `subscriptions/listen` streams end gracefully once `closing` is cancelled (HTTP: when the
    /// server shuts down, which would otherwise wait for them).
    pub fn with_closing(mut self, closing: CancellationToken) -> Self {
        self.closing = Some(closing);
        self
    }

    /// The same server, recording writes under `session` unless a call names its own.
    pub fn with_session(mut self, session: impl Into<String>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// The same server, reached with the scoped token named `token`, recorded with its writes.
    pub fn with_token(mut self, token: Option<String>) -> Self {
        self.token = token;
        self
    }

    /// The root `/mcp`: every folder with MCP on, read from disk on each call.
    pub fn root(engine: Arc<Engine>, settings: ToolSettings, filter: ToolFilter) -> Self {
        Self {
            endpoint: Endpoint::Root(engine),
            settings: Arc::new(settings),
            filter: Arc::new(filter),
            notifier: None,
            closing: None,
            session: None,
            token: None,
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
        TOOLS
            .iter()
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
                tool.output_schema = def.output.map(|schema| schema());
                tool
            })
            .collect()
    }

    /// Runs a tool by name with JSON arguments; `Err` is a protocol error (unknown tool).
    pub async fn call(&self, name: &str, arguments: serde_json::Value) -> Result<Result<Output, ToolError>, ErrorData> {
        let Some(def) = TOOLS.iter().find(|def| def.name == name && self.is_enabled(def)) else {
            return Err(ErrorData::invalid_params(format!("unknown tool: {name}"), None));
        };
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
                match Self::root_scope(engine, def, folder) {
                    Ok(scope) => scope,
                    Err(err) => return Ok(Err(err)),
                }
            }
        };
        let session = arguments
            .get("session_id")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
            .or_else(|| self.session.clone());
        let mut scope = scope;
        scope.who = crate::history::Who::mcp(name, session).with_token(self.token.clone());
        let call = Call {
            scope: &scope,
            settings: &self.settings,
        };
        Ok((def.handler)(call, arguments).await)
    }

    /// The scope whose files are this endpoint's resources: its own, or at the root every folder
    /// with MCP on (read afresh, as the root's tools do).
    fn resource_scope(&self) -> Scope {
        match &self.endpoint {
            Endpoint::Scope(scope) => scope.clone(),
            Endpoint::Root(engine) => {
                let names = folders::mcp_folders(&engine.docs_dir)
                    .into_iter()
                    .map(|f| f.name)
                    .collect();
                Scope::spanning(engine.clone(), names)
            }
        }
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

impl ServerHandler for RagdownServer {
    fn get_info(&self) -> ServerConfig {
        let name = match &self.endpoint {
            Endpoint::Scope(Scope {
                folder: Some(folder), ..
            }) => format!("ragdown-{folder}"),
            _ => "ragdown".to_string(),
        };
        // Every transport follows resources through `subscriptions/listen`; `initialize` takes
        // the claims back where the 2025-11-25 way has no stream to use.
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
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
            Ok(output) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(output.text)]);
                result.structured_content = output.structured;
                result
            }
            Err(err) => error_result(&err),
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|params| params.cursor);
        resources::list(&self.resource_scope(), cursor.as_deref()).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::list_templates(&self.resource_scope()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Ok(resources::read(&self.resource_scope(), &request.uri).await?.into())
    }

    /// The 2025-11-25 handshake: `resources/subscribe` and list changes are claimed only where a
    /// session can carry them (stdio); a stateless HTTP endpoint answers each request alone.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut info = self.negotiate_initialize(&request)?;
        if let (None, Some(resources)) = (&self.notifier, info.capabilities.resources.as_mut()) {
            resources.subscribe = None;
            resources.list_changed = None;
        }
        Ok(info)
    }

    /// `subscriptions/listen` (2026-07-28): resource list changes and updates of the requested
    /// URIs that this endpoint may serve; nothing else is acknowledged.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(notify::accepted(&self.resource_scope(), requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        notify::listen(self.resource_scope(), context, self.closing.clone()).await;
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(notifier) = &self.notifier {
            notifier.start(self.resource_scope(), context.peer.clone());
        }
    }

    #[allow(deprecated, reason = "the 2025-11-25 protocol's way, which stdio clients use")]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match &self.notifier {
            Some(notifier) => notifier.subscribe(&self.resource_scope(), &request.uri),
            None => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "resources/subscribe: this endpoint sends no notifications",
                None,
            )),
        }
    }

    #[allow(deprecated, reason = "the 2025-11-25 protocol's way, which stdio clients use")]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match &self.notifier {
            Some(notifier) => {
                notifier.unsubscribe(&request.uri);
                Ok(())
            }
            None => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "resources/unsubscribe: this endpoint sends no notifications",
                None,
            )),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        resources::complete(&self.resource_scope(), &request).await
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
