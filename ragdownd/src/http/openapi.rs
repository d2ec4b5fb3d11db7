//! The OpenAPI 3.1 description of the HTTP API, generated from the handlers' annotations and the
//! wire types of [`super::schema`]; served at `GET /api/openapi.json` and committed as
//! `ragdownd/openapi.json` (a test keeps the two equal), from which the web UI's TypeScript types
//! are generated.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::{browse, consent, docs, folders, history, links, schema, settings, status, tokens};

/// The API.
#[derive(OpenApi)]
#[openapi(
    info(title = "ragdown", description = "The HTTP API of `ragdownd serve`: folders of Markdown for the people who own them."),
    paths(
        status::status,
        status::query_log,
        status::clear_query_log,
        folders::list,
        folders::create,
        folders::update,
        folders::remove,
        folders::remove_loose,
        settings::update,
        docs::list,
        docs::read,
        docs::save,
        docs::remove,
        docs::file,
        browse::browse,
        browse::find,
        browse::jump,
        browse::tags,
        browse::complete,
        links::search,
        links::resolve,
        links::backlinks,
        links::move_doc,
        history::document,
        history::changes,
        history::version,
        history::undo,
        history::undo_session,
        history::restore,
        tokens::list,
        tokens::create,
        tokens::revoke,
        consent::grants,
        consent::revoke,
        consent::request,
        consent::answer,
    ),
    components(schemas(schema::ErrorBody, schema::Sync)),
    modifiers(&BearerToken),
    security(("bearer" = [])),
    tags(
        (name = "status", description = "Whether the server is ready, and what it runs with"),
        (name = "folders", description = "Settings → Folders"),
        (name = "settings", description = "Settings → Server"),
        (name = "documents", description = "Reading, saving and deleting documents"),
        (name = "links", description = "Search, links, backlinks and moves"),
        (name = "history", description = "Every change made through ragdown: versions, undo, restore"),
        (name = "access", description = "Settings → Access: scoped tokens, apps connected with OAuth, and the consent page (the owner's alone)"),
    )
)]
pub struct ApiDoc;

/// `RAGDOWN_TOKEN`, or a scoped token (`rdt_…`) on the routes it may use, as a bearer token.
struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The description as served and committed: pretty JSON, with the version of this build.
pub fn json() -> String {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    doc.info.license = None;
    doc.to_pretty_json().unwrap_or_default() + "\n"
}

/// `GET /api/openapi.json`.
pub async fn serve() -> impl axum::response::IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "application/json")], json())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed file is what the server serves; regenerate it with
    /// `RAGDOWN_WRITE_OPENAPI=1 cargo test -p ragdownd openapi`.
    #[test]
    fn the_committed_description_is_the_served_one() {
        let path = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("openapi.json");
        let served = json();
        if std::env::var_os("RAGDOWN_WRITE_OPENAPI").is_some() {
            std::fs::write(&path, &served).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == served,
            "ragdownd/openapi.json is out of date: RAGDOWN_WRITE_OPENAPI=1 cargo test -p ragdownd openapi"
        );
        let doc: serde_json::Value = serde_json::from_str(&served).unwrap();
        assert!(
            doc["openapi"].as_str().unwrap().starts_with("3.1"),
            "{}",
            doc["openapi"]
        );
        let paths = doc["paths"].as_object().unwrap();
        for route in [
            "/api/status",
            "/api/folders",
            "/api/folders/{name}",
            "/api/loose",
            "/api/settings",
            "/api/docs",
            "/api/browse",
            "/api/find",
            "/api/jump",
            "/api/tags",
            "/api/complete",
            "/api/doc",
            "/api/file",
            "/api/search",
            "/api/resolve",
            "/api/backlinks",
            "/api/move",
            "/api/query-log",
            "/api/access/tokens",
            "/api/access/tokens/{id}",
        ] {
            assert!(paths.contains_key(route), "{route} is described");
        }
        assert!(doc["components"]["schemas"]["Status"].is_object());
    }
}
