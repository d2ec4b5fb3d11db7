//! The web UI: the built `web/dist`, embedded in release builds, read from the checkout's
//! `web/dist` on disk in debug builds, or from a directory named by `RAGDOWN_WEB_DIR`.
//!
//! Debug builds read the checkout at run time on purpose: a debug binary is often compiled before
//! the UI is built (the test command does), and rust-embed's own debug mode bakes in that the
//! folder was missing.
//!
//! - `assets/…` (hashed names) are cached for a year as immutable; everything else is `no-cache`.
//! - Any GET or HEAD path that is not a file gets `index.html`, so the app's own routes
//!   (`/f/<folder>`, `/settings`) load from a bookmark; other methods are 404.
//! - The page runs under a Content-Security-Policy that allows only its own scripts (the inline
//!   theme script by its hash), so a document's Markdown can never run code in it.
//! - Without a build, `/` says how to make one (HTML for a browser, the API's JSON error
//!   otherwise), and the rest of the server works as before.
use std::borrow::Cow;
use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};

use super::ApiError;

#[derive(RustEmbed)]
#[folder = "../web/dist"]
#[allow_missing = true]
struct Embedded;

/// Where the UI's files come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Compiled in (release builds).
    Embedded,
    /// A directory given at run time (`RAGDOWN_WEB_DIR`).
    Dir(PathBuf),
}

impl Source {
    /// `RAGDOWN_WEB_DIR` when set; else the embedded build, or in a debug build the checkout's.
    pub fn new(dir: Option<PathBuf>) -> Self {
        match dir {
            Some(dir) => Source::Dir(dir),
            None if cfg!(debug_assertions) => Source::Dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist")),
            None => Source::Embedded,
        }
    }

    fn get(&self, path: &str) -> Option<Cow<'static, [u8]>> {
        match self {
            Source::Embedded => Embedded::get(path).map(|file| file.data),
            Source::Dir(dir) => {
                // `path` comes from a URL: only plain relative components, never `..`.
                if path
                    .split('/')
                    .any(|part| part.is_empty() || part == "." || part == ".." || part.contains('\\'))
                {
                    return None;
                }
                let file = dir.join(path);
                file.is_file()
                    .then(|| std::fs::read(file).ok().map(Cow::Owned))
                    .flatten()
            }
        }
    }
}

const HOW_TO_BUILD: &str = "The web UI is not built into this server. Build it with Node 22 \
    (`cd web && npm ci && npm run build`, or `scripts/run.sh`, which does it), then rebuild \
    ragdownd, or point RAGDOWN_WEB_DIR at a built web/dist. The API and MCP work without it.";

/// Serves the UI for any path the API and MCP routes did not take.
pub async fn serve(source: &Source, request: Request) -> Response {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return ApiError::not_found().into_response();
    }
    let path = request.uri().path().trim_start_matches('/');
    // The page itself, even asked for by name, always goes out with its policy below.
    if let Some(bytes) = (!path.is_empty() && path != "index.html")
        .then(|| source.get(path))
        .flatten()
    {
        let cache = if path.starts_with("assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        return file_response(path, bytes, cache);
    }
    // Paths under /api and /mcp never reach here (the router's fallback for /api is JSON).
    match source.get("index.html") {
        Some(index) => {
            let csp = policy(&index);
            let mut response = file_response("index.html", index, "no-cache");
            if let Ok(value) = HeaderValue::from_str(&csp) {
                response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, value);
            }
            response
        }
        None => not_built(request.headers()),
    }
}

fn file_response(path: &str, bytes: Cow<'static, [u8]>, cache: &'static str) -> Response {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let charset = if mime.type_() == mime_guess::mime::TEXT {
        "; charset=utf-8"
    } else {
        ""
    };
    let mut response = Response::new(Body::from(bytes));
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&format!("{mime}{charset}")) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
}

/// The page's Content-Security-Policy: its own scripts and the inline ones it carries (by hash),
/// blob images and media (attachments come through `/api/file` as blobs), inline styles (the
/// component library sets them), and no framing. Made from the page each time it is sent (a
/// hash of a ~1 KB script): a page rebuilt on disk gets its own, and each server its own source's.
fn policy(index: &[u8]) -> String {
    let html = String::from_utf8_lossy(index);
    let hashes: String = inline_scripts(&html)
        .map(|script| format!(" 'sha256-{}'", BASE64.encode(Sha256::digest(script.as_bytes()))))
        .collect();
    format!(
        "default-src 'self'; script-src 'self'{hashes}; style-src 'self' 'unsafe-inline'; \
         img-src 'self' blob: data:; media-src 'self' blob:; connect-src 'self'; \
         object-src 'self' blob:; frame-src 'self' blob:; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    )
}

/// The bodies of the `<script>` elements without a `src`.
fn inline_scripts(html: &str) -> impl Iterator<Item = &str> {
    html.split("<script").skip(1).filter_map(|rest| {
        let (open, body) = rest.split_once('>')?;
        if open.contains("src=") {
            return None;
        }
        body.split_once("</script>").map(|(script, _)| script)
    })
}

fn not_built(headers: &HeaderMap) -> Response {
    let wants_html = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    if !wants_html {
        return ApiError::new(StatusCode::NOT_FOUND, HOW_TO_BUILD).into_response();
    }
    let html = format!(
        "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>ragdown</title>\
         <body style=\"font:16px system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem\">\
         <h1>ragdown is running</h1><p>{HOW_TO_BUILD}</p>\
         <p>Status: <a href=\"/api/status\">/api/status</a>. MCP: <code>/mcp/&lt;folder&gt;</code>.</p></body></html>"
    );
    let mut response = (StatusCode::NOT_FOUND, html).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_allows_exactly_the_inline_scripts_of_the_page() {
        let html = "<script>a()</script><script type=\"module\" src=\"/assets/x.js\"></script><script>\nb()\n</script>";
        let scripts: Vec<&str> = inline_scripts(html).collect();
        assert_eq!(scripts, vec!["a()", "\nb()\n"]);
    }

    #[test]
    fn a_directory_source_refuses_paths_that_leave_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
        let outside = dir.path().parent().unwrap().join("secret-ragdown-web-test.txt");
        std::fs::write(&outside, "no").unwrap();
        let source = Source::Dir(dir.path().to_path_buf());
        assert!(source.get("index.html").is_some());
        assert!(source.get("../secret-ragdown-web-test.txt").is_none());
        assert!(source.get("./index.html").is_none());
        assert!(source.get("a//index.html").is_none());
        std::fs::remove_file(outside).unwrap();
    }
}
