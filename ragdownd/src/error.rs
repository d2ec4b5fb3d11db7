//! What kind of failure an error is, independent of any transport.
//!
//! Domain errors ([`crate::documents::DocError`], [`crate::folders::FolderError`],
//! [`crate::settings::FileError`], [`crate::tools::ToolError`], ...) say what went wrong as an
//! [`ErrorKind`] and never how a transport answers it. Each transport turns a kind into its answer
//! in one exhaustive `match`: the HTTP API in `http::error` (a status, and the code `changed` for
//! [`ErrorKind::Changed`]), MCP in `mcp` (an `isError` tool result carrying the message).

/// A domain error that says what kind of failure it is; its `Display` is the message a client
/// sees. Each transport converts any such error with one generic `From`, so a new error type
/// needs only this impl to be answered right everywhere.
pub trait Kinded: std::error::Error {
    /// What kind of failure this is.
    fn kind(&self) -> ErrorKind;
}

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The request itself is wrong: bad arguments, a path outside the folder, an edit that
    /// changes nothing.
    Invalid,
    /// Writing is switched off (`RAGDOWN_READ_ONLY`).
    ReadOnly,
    /// What the request names (a document, heading, passage, folder) is not there.
    NotFound,
    /// The request clashes with what is on disk now (the target exists, a settings file is
    /// broken).
    Conflict,
    /// The file is no longer the version the caller read: a conflict clients react to by reading
    /// it again.
    Changed,
    /// The server cannot serve the request now; the same request may succeed later.
    Unavailable,
    /// The server failed under a request that was fine (the file system, the index, the
    /// embedder, a sync).
    Internal,
}
