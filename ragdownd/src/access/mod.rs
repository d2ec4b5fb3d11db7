//! Who may do what over HTTP: the owner, or a scoped token that opens some folders for reading or
//! for reading and writing.
//!
//! - The owner's token (`RAGDOWN_TOKEN`, or anyone under `SECURE_LOCAL_NET`) is [`Access::Admin`]:
//!   the web UI, every folder, the settings, the tokens themselves.
//! - A scoped token (`rdt_…`, made under Settings → Access) is [`Access::Token`]: its [`Grant`]
//!   names the folders or subfolders it opens ([`FolderPath`]) and its [`Level`]. A read token
//!   gets no write tool and no write route; no token gets the owner's routes.
//!
//! `http::auth::decide` turns a request into an [`Access`] in one place; the `/api` middleware
//! puts it into the request for the handlers, whose ways into the documents
//! (`AppState::in_folder`, `folder_scope`, `writable`) take it, and the MCP routes check the
//! endpoint against it with [`Access::opens_endpoint`]. This module decides from strings only; it
//! never reads a request or the disk (but for [`store`], which owns the token file).
//!
//! OAuth ([`oauth`]) adds a second kind of [`Grant`]: what the owner approved for a client, bound
//! to the one MCP endpoint (the RFC 8707 resource) it was issued for ([`Grant::resource`]). Its
//! clients and grants live in the same token file, beside the scoped tokens.

pub mod oauth;
pub mod paths;
pub mod secret;
pub mod store;

use serde::{Deserialize, Serialize};

pub use paths::FolderPath;
pub use store::{NewToken, Refusal, Store, StoreError, TokenRecord};

/// What a scoped token may do in the folders it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Search and read: write tools are not listed, write calls and write routes are refused.
    Read,
    /// Search, read and write.
    Write,
}

/// What one scoped token opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The token's id (not its secret).
    pub id: String,
    /// The token's name, for messages.
    pub name: String,
    /// The folders and subfolders it opens, none inside another.
    pub paths: Vec<FolderPath>,
    pub level: Level,
    /// For an OAuth access token: the one MCP endpoint it was issued for (RFC 8707's resource).
    /// It is refused at every other endpoint, subfolders of this one included, and at `/api`.
    pub resource: Option<FolderPath>,
}

/// The access decision of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// The owner: everything.
    Admin,
    /// A scoped token.
    Token(Grant),
}

/// Where a root-relative path lies for an [`Access`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The owner's: wherever it is.
    Anywhere,
    /// Inside `path`, one of the token's, with `rest` the path below it (empty for `path` itself).
    Under { path: FolderPath, rest: String },
    /// Outside everything the token opens (or not a clean path).
    Outside,
}

impl Access {
    pub fn is_admin(&self) -> bool {
        matches!(self, Self::Admin)
    }

    /// The scoped token's name, for the history's record of who made a change; `None` for the owner.
    pub fn token_name(&self) -> Option<String> {
        match self {
            Self::Admin => None,
            Self::Token(grant) => Some(grant.name.clone()),
        }
    }

    /// Whether it may write (`RAGDOWN_READ_ONLY` is checked apart).
    pub fn can_write(&self) -> bool {
        match self {
            Self::Admin => true,
            Self::Token(grant) => grant.level == Level::Write,
        }
    }

    pub fn grant(&self) -> Option<&Grant> {
        match self {
            Self::Admin => None,
            Self::Token(grant) => Some(grant),
        }
    }

    /// Whether the MCP endpoint `/mcp/<folder>/<sub>` (`sub` empty for the folder) lies inside
    /// what it opens: a token for `notes/a` opens `/mcp/notes/a` and `/mcp/notes/a/b`, not
    /// `/mcp/notes`.
    pub fn opens_endpoint(&self, folder: &str, sub: &str) -> bool {
        let path = format!("{folder}/{sub}");
        match self.grant().and_then(|grant| grant.resource.as_ref()) {
            Some(resource) => FolderPath::parse(&path).is_ok_and(|endpoint| &endpoint == resource),
            None => self.opens_path(&path),
        }
    }

    /// Whether it is an OAuth access token, which opens its MCP endpoint and nothing else.
    pub fn is_oauth(&self) -> bool {
        self.grant().is_some_and(|grant| grant.resource.is_some())
    }

    /// Whether the root-relative `path` (a document, or a folder) lies inside what it opens.
    pub fn opens_path(&self, path: &str) -> bool {
        self.place(path) != Place::Outside
    }

    /// Whether it opens all of `path`.
    pub fn opens(&self, path: &FolderPath) -> bool {
        match self {
            Self::Admin => true,
            Self::Token(grant) => grant.paths.iter().any(|p| p.covers(path)),
        }
    }

    /// Where the root-relative `path` lies: for a token, the widest of its paths that holds it.
    pub fn place(&self, path: &str) -> Place {
        let Self::Token(grant) = self else {
            return Place::Anywhere;
        };
        let Some(segments) = paths::segments(path) else {
            return Place::Outside;
        };
        grant
            .paths
            .iter()
            .filter(|p| p.contains(&segments))
            .min_by_key(|p| p.depth())
            .map_or(Place::Outside, |p| Place::Under {
                path: p.clone(),
                rest: segments[p.depth()..].join("/"),
            })
    }

    /// A token's paths inside the folder `name`; `None` for the owner (all of it).
    pub fn paths_in(&self, name: &str) -> Option<Vec<FolderPath>> {
        self.grant()
            .map(|grant| grant.paths.iter().filter(|p| p.folder() == name).cloned().collect())
    }

    /// The 403 message for what it does not open.
    pub fn refusal(&self) -> String {
        match self {
            Self::Admin => "Forbidden".into(),
            Self::Token(grant) => {
                let paths: Vec<String> = grant.paths.iter().map(ToString::to_string).collect();
                format!(
                    "Forbidden: this token opens only {} ({})",
                    paths.join(", "),
                    match grant.level {
                        Level::Read => "read",
                        Level::Write => "read and write",
                    }
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(paths: &[&str], level: Level) -> Access {
        Access::Token(Grant {
            id: "t1".into(),
            name: "agent".into(),
            paths: paths.iter().map(|p| FolderPath::parse(p).unwrap()).collect(),
            level,
            resource: None,
        })
    }

    #[test]
    fn an_oauth_token_opens_its_own_endpoint_only() {
        let notes = FolderPath::parse("notes/a").unwrap();
        let access = Access::Token(Grant {
            id: "g1".into(),
            name: "app".into(),
            paths: vec![notes.clone()],
            level: Level::Read,
            resource: Some(notes),
        });
        assert!(access.is_oauth());
        assert!(access.opens_endpoint("notes", "a"));
        assert!(access.opens_endpoint("notes", "a/"));
        assert!(
            !access.opens_endpoint("notes", "a/b"),
            "a subfolder is another resource"
        );
        assert!(!access.opens_endpoint("notes", ""));
        assert!(!access.opens_endpoint("work", "a"));
        assert!(!token(&["notes"], Level::Read).is_oauth());
    }

    #[test]
    fn endpoints_inside_a_token_s_paths_only() {
        let sub = token(&["notes/a"], Level::Read);
        assert!(sub.opens_endpoint("notes", "a"));
        assert!(sub.opens_endpoint("notes", "a/b"));
        assert!(sub.opens_endpoint("notes", "a/b/"));
        assert!(
            !sub.opens_endpoint("notes", ""),
            "a subfolder token at the folder's root"
        );
        assert!(!sub.opens_endpoint("notes", "ab"));
        assert!(!sub.opens_endpoint("notes", "a/../b"));
        assert!(!sub.opens_endpoint("work", "a"));
        let folder = token(&["notes"], Level::Read);
        assert!(folder.opens_endpoint("notes", ""));
        assert!(folder.opens_endpoint("notes", "a"));
        assert!(Access::Admin.opens_endpoint("anything", ""));
    }

    #[test]
    fn a_path_is_placed_under_the_widest_path_that_holds_it() {
        let access = token(&["notes/a/b", "notes/a", "work"], Level::Write);
        assert_eq!(
            access.place("notes/a/b/c.md"),
            Place::Under {
                path: FolderPath::parse("notes/a").unwrap(),
                rest: "b/c.md".into()
            }
        );
        assert_eq!(
            access.place("work\\x.md"),
            Place::Under {
                path: FolderPath::parse("work").unwrap(),
                rest: "x.md".into()
            }
        );
        assert_eq!(access.place("notes/b.md"), Place::Outside);
        assert_eq!(access.place("notes/a/../../private/x.md"), Place::Outside);
        assert_eq!(Access::Admin.place("anything/at/all"), Place::Anywhere);
    }

    #[test]
    fn only_write_tokens_and_the_owner_write() {
        assert!(Access::Admin.can_write());
        assert!(token(&["notes"], Level::Write).can_write());
        assert!(!token(&["notes"], Level::Read).can_write());
        assert!(token(&["notes/a"], Level::Read).refusal().contains("notes/a (read)"));
    }

    #[test]
    fn paths_in_a_folder() {
        let access = token(&["notes/a", "notes/b", "work"], Level::Read);
        let names = |paths: Option<Vec<FolderPath>>| paths.unwrap().iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(names(access.paths_in("notes")), ["notes/a", "notes/b"]);
        assert!(access.paths_in("private").unwrap().is_empty());
        assert_eq!(Access::Admin.paths_in("notes"), None);
        assert!(access.opens(&FolderPath::parse("work/x").unwrap()));
        assert!(!access.opens(&FolderPath::parse("notes").unwrap()));
    }
}
