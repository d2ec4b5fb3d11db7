//! The user's documents as the write tools change them: which client paths may be touched, how a
//! file is replaced without a reader ever seeing half of it, and the text-level edits (passage
//! replacements, appends, provenance stamps, `ragdown_remember`'s front matter).
//!
//! Everything here is synchronous over `std::fs`; async callers run it under `spawn_blocking`.
//! This module never touches the index or the embedder and never formats a tool's success text:
//! it refuses with a [`DocError`] whose message is the exact text the agent is shown, and leaves
//! syncing and output to the tools above it.

pub mod append;
pub mod delete;
pub mod hash;
pub mod paths;
pub mod provenance;
pub mod record;
pub mod remember;
pub mod rename;
pub mod replacements;
pub mod temp;
pub mod write;

use crate::error::{ErrorKind, Kinded};
pub use append::append_text;
pub use delete::delete_guarded;
pub use hash::{content_hash, is_version, short_hash};
pub use paths::Root;
pub use provenance::{keep_provenance, stamp_provenance};
pub use record::Record;
pub use remember::{
    create_unique, relative_posix, remember_frontmatter, remember_text, resolve_supersedes, slug, unique_path,
};
pub use rename::{rename_dir_no_clobber, rename_file_no_clobber};
pub use replacements::{Edit, apply_replacements};
pub use write::{Expected, Written, atomic_write, check_base, read_existing, with_path_lock, write_guarded};

/// Why a document operation was refused or failed. `Display` is the exact message an agent (or
/// the web UI) is shown; [`DocError::kind`] says what kind of failure it is, for the transports.
#[derive(Debug, thiserror::Error)]
pub enum DocError {
    /// The request itself is wrong (a bad path, an edit that changes nothing).
    #[error("{0}")]
    BadRequest(String),
    /// The document, heading or passage it names is not there.
    #[error("{0}")]
    NotFound(String),
    /// The request clashes with what is on disk now.
    #[error("{0}")]
    Conflict(String),
    /// The file is no longer the version the caller read.
    #[error("{0}")]
    Changed(String),
    /// The file system failed under a request that was fine.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, with the path, e.g. `could not write ops/a.md`.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Kinded for DocError {
    /// What kind of failure this is.
    fn kind(&self) -> ErrorKind {
        match self {
            Self::BadRequest(_) => ErrorKind::Invalid,
            Self::NotFound(_) => ErrorKind::NotFound,
            Self::Conflict(_) => ErrorKind::Conflict,
            Self::Changed(_) => ErrorKind::Changed,
            Self::Io { .. } => ErrorKind::Internal,
        }
    }
}

impl DocError {
    /// A clash with what is on disk now.
    pub(crate) fn conflict(message: impl Into<String>) -> Self {
        Self::Conflict(message.into())
    }

    /// The file is no longer the version the caller read.
    pub(crate) fn changed(message: impl Into<String>) -> Self {
        Self::Changed(message.into())
    }

    /// Wraps an I/O error with what was being attempted.
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let context = context.into();
        move |source| Self::Io { context, source }
    }
}

/// The line ending a text uses, judged by its first line: `\r\n` when the first `\n` follows a
/// `\r`, otherwise `\n`. A file keeps the ending it had, whatever the new text was written with.
pub(crate) fn line_ending(text: &[u8]) -> &'static str {
    match text.iter().position(|b| *b == b'\n') {
        Some(at) if at > 0 && text[at - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// `text` with every `\r\n` or `\n` written as `ending`. Lone `\r`s are left as they are.
pub(crate) fn with_line_ending(text: &str, ending: &str) -> String {
    let unix = text.replace("\r\n", "\n");
    if ending == "\n" {
        unix
    } else {
        unix.replace('\n', ending)
    }
}

/// A string as JSON writes it (`"a \"b\""`), which is also a valid YAML double-quoted scalar.
pub(crate) fn json_quote(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// A value from the golden outputs in `tests/data/expected.json`: texts clients already parse.
#[cfg(test)]
pub(crate) fn golden(key: &str) -> serde_json::Value {
    let all: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/data/expected.json")).expect("expected.json parses");
    all.get(key)
        .unwrap_or_else(|| panic!("no {key} in expected.json"))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_their_kind() {
        assert_eq!(DocError::BadRequest("x".into()).kind(), ErrorKind::Invalid);
        assert_eq!(DocError::NotFound("x".into()).kind(), ErrorKind::NotFound);
        let changed = DocError::changed("a.md was changed on disk since it was opened");
        assert_eq!(changed.kind(), ErrorKind::Changed);
        assert_eq!(changed.to_string(), "a.md was changed on disk since it was opened");
        assert_eq!(DocError::conflict("x").kind(), ErrorKind::Conflict);
        let io = DocError::io("could not write a.md")(std::io::Error::other("disk full"));
        assert_eq!(
            (io.kind(), io.to_string().as_str()),
            (ErrorKind::Internal, "could not write a.md: disk full")
        );
    }

    #[test]
    fn line_ending_is_read_from_the_first_line() {
        assert_eq!(line_ending(b"a\r\nb\nc"), "\r\n");
        assert_eq!(line_ending(b"a\nb\r\nc"), "\n");
        assert_eq!(line_ending(b"\nb\r\nc"), "\n");
        assert_eq!(line_ending(b"no newline"), "\n");
        assert_eq!(with_line_ending("a\nb\r\nc\n", "\r\n"), "a\r\nb\r\nc\r\n");
        assert_eq!(with_line_ending("a\r\nb\n", "\n"), "a\nb\n");
    }
}
