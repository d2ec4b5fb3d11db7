//! The root endpoint's own tools: `ragdown_folders` and `ragdown_create_folder`.
//!
//! Only the root `/mcp` (with `RAGDOWN_ROOT_MCP` on) offers them: it is the one place an agent
//! sees more than one folder, and the only one where it can make a folder. Agents cannot rename or
//! delete a folder; people do that in the web UI.

use std::path::Path;

use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{ToolError, ToolResult};
use crate::engine::{Engine, Scope};
use crate::error::ErrorKind;
use crate::error::Kinded;
use crate::folders::{self, FolderError};

/// What `created_by` says in the `.ragdown.json` of a folder an agent made.
pub const CREATED_BY: &str = "ragdown_create_folder";

/// Arguments of `ragdown_folders`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct FoldersArgs {}

/// Arguments of `ragdown_create_folder`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct CreateFolderArgs {
    /// The folder's directory name, also its URL segment: 1-64 letters, digits, spaces, `_`, `.`
    /// or `-`, starting with a letter, digit or `_`.
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
    /// What people and agents see; the name when left out.
    pub title: Option<String>,
}

/// The folders with MCP on, in name order.
pub fn mcp_folders(docs_dir: &Path) -> Vec<folders::Folder> {
    folders::list(docs_dir).into_iter().filter(|f| f.mcp).collect()
}

/// `ragdown_folders`: one line per folder with MCP on.
pub async fn list(engine: &Engine, _args: FoldersArgs) -> ToolResult {
    let found = mcp_folders(&engine.docs_dir);
    if found.is_empty() {
        return Ok("No folders with MCP on. ragdown_create_folder makes one.".into());
    }
    let files = engine.store().files().await?;
    let mut lines = vec![format!("folders: {}", found.len())];
    for folder in &found {
        let prefix = format!("{}/", folder.name);
        let documents = files.keys().filter(|path| path.starts_with(&prefix)).count();
        let made = if folder.created_by.is_some() {
            ", made by an agent"
        } else {
            ""
        };
        let noun = if documents == 1 { "document" } else { "documents" };
        lines.push(format!("{} — {} ({documents} {noun}{made})", folder.name, folder.title));
    }
    Ok(lines.join("\n"))
}

/// `ragdown_create_folder`: an empty folder with MCP on. Never overwrites.
pub async fn create(scope: &Scope, read_only: bool, args: CreateFolderArgs) -> ToolResult {
    if read_only {
        return Err(ToolError::with_kind(ErrorKind::ReadOnly, super::write::READ_ONLY));
    }
    let name = args.name.as_str();
    let mut settings = Map::new();
    let title = args.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
    if let Some(title) = title {
        settings.insert("title".into(), Value::from(title));
    }
    settings.insert("mcp".into(), Value::from(true));
    settings.insert("created_by".into(), Value::from(CREATED_BY));
    let change = scope.begin("create-folder");
    let made = folders::create(&scope.engine.docs_dir, name, settings, &change).map_err(|err| match err {
        FolderError::Exists(_) => ToolError::with_kind(
            err.kind(),
            format!("{err}: nothing was changed; ragdown_folders lists the folders"),
        ),
        other => other.into(),
    })?;
    Ok(format!(
        "Created folder {} (\"{}\") with MCP on. Pass folder: \"{}\" to the other tools to use it.",
        made.name, made.title, made.name
    ))
}
