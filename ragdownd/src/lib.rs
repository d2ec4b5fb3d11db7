//! ragdownd: folders of Markdown as search and write tools for AI agents, over MCP.
//!
//! Layers, from the disk up:
//!
//! - [`markdown`]: chunking and front matter; pure functions of a file's text.
//! - [`error`]: what kind of failure an error is ([`error::ErrorKind`]); each transport maps it.
//! - [`documents`]: validated paths and safe writes of user documents (atomic, hash-guarded).
//! - [`history`]: every change made through ragdown, recorded before it is made, and its undo.
//! - [`embed`]: the [`embed::Embedder`] trait and its implementations (in-process model, hash).
//! - [`index`]: the LanceDB table, `meta.json`, diff sync and the watcher.
//! - [`search`]: hybrid retrieval (dense + BM25; rank or score fusion, alias boost, per-document
//!   cap, link following) and filters.
//! - [`language`]: which scripts the notes are written in, for the English-only-model notice.
//! - [`engine`]: one index with its embedder, indexer and watcher, and scopes onto it.
//! - [`hook`]: which chunks `ragdown_context` injects (gates, names, aliases, session memory).
//! - [`querylog`]: the query log and its summary.
//! - [`settings`]: the one settings layer: environment, saved server settings, folder, call.
//! - [`tools`]: the MCP tools' logic and output text, independent of any transport.
//! - [`mcp`]: the rmcp server type, used over stdio and streamable HTTP.
//! - [`access`]: who may do what over HTTP: the owner's token, scoped tokens and their file.
//! - [`http`]: `serve`'s axum router: the `/api` routes and `/mcp/<folder>`.
//! - [`launch`]: opening the index with the embedder the settings name.
//! - [`app`]: the `stdio` and `serve` programs as library functions.
//! - [`config`]: the only reader of the environment and flags (but for LanceDB's pool size).
//! - [`process`]: the allocator, and LanceDB's thread pool, set up before any thread starts.

pub mod access;
pub mod app;
pub mod config;
pub mod documents;
pub mod embed;
pub mod engine;
pub mod error;
pub mod folders;
pub mod history;
pub mod hook;
pub mod http;
pub mod index;
pub mod language;
pub mod launch;
pub mod markdown;
pub mod mcp;
pub mod process;
pub mod querylog;
pub mod search;
pub mod settings;
pub mod tools;
