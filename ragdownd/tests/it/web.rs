//! The web UI as `serve` sends it, from a build directory (`--web-dir`, as `RAGDOWN_WEB_DIR`):
//! the SPA fallback, the cache rules, the Content-Security-Policy, gzip, and what `/` says when
//! there is no build.

use sha2::{Digest, Sha256};

use crate::api::Api;

const INLINE: &str = "document.documentElement.dataset.x = 1;";

fn build() -> tempfile::TempDir {
    build_with(INLINE)
}

/// A build whose page carries `inline` as its inline script.
fn build_with(inline: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        format!(
            "<!doctype html><script>{inline}</script><script type=\"module\" src=\"/assets/app-1a2b.js\"></script>"
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("assets/app-1a2b.js"), "console.log('app');".repeat(200)).unwrap();
    std::fs::write(dir.path().join("favicon.svg"), "<svg/>").unwrap();
    dir
}

#[tokio::test]
async fn every_app_path_gets_the_page_and_hashed_assets_are_immutable() {
    let ui = build();
    let api = Api::start(&["--web-dir", ui.path().to_str().unwrap()]).await;

    for path in ["/", "/f/notes", "/settings?tab=server", "/f/notes/deep/path"] {
        let page = api.call("GET", path, None, None).await;
        assert_eq!(page.status, 200, "{path}");
        assert!(page.text().contains(INLINE), "{path}: {}", page.text());
        assert_eq!(page.header("cache-control"), Some("no-cache"), "{path}");
        assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
    }

    let asset = api.call("GET", "/assets/app-1a2b.js", None, None).await;
    assert_eq!(asset.status, 200);
    assert!(asset.text().starts_with("console.log"));
    assert_eq!(
        asset.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(asset.header("x-content-type-options"), Some("nosniff"));
    let icon = api.call("GET", "/favicon.svg", None, None).await;
    assert_eq!(icon.header("cache-control"), Some("no-cache"));
    assert_eq!(icon.header("content-type"), Some("image/svg+xml"));

    // The UI needs no token: the data behind it does.
    assert_eq!(api.call("GET", "/api/folders", None, None).await.status, 401);
}

/// The `script-src` directive a page was sent with.
fn script_src(page: &crate::api::Answer) -> String {
    let csp = page.header("content-security-policy").expect("a CSP on the page");
    csp.split(';')
        .find(|d| d.trim().starts_with("script-src"))
        .unwrap()
        .trim()
        .to_string()
}

/// The `script-src` that admits exactly the inline script `inline`.
fn allowing(inline: &str) -> String {
    use base64::Engine as _;
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(inline.as_bytes()));
    format!("script-src 'self' 'sha256-{hash}'")
}

#[tokio::test]
async fn the_page_may_run_only_its_own_scripts() {
    let ui = build();
    let api = Api::start(&["--web-dir", ui.path().to_str().unwrap()]).await;
    let page = api.call("GET", "/f/notes", None, None).await;
    assert_eq!(script_src(&page), allowing(INLINE));
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("base-uri 'none'"), "{csp}");
    // Asked for by its file name, the page still carries its policy.
    let by_name = api.call("GET", "/index.html", None, None).await;
    assert!(by_name.text().contains(INLINE));
    assert_eq!(script_src(&by_name), allowing(INLINE));
}

#[tokio::test]
async fn each_server_and_each_rebuild_of_the_page_gets_its_own_policy() {
    let first = build_with("window.first = 1;");
    let second = build_with("window.second = 2;");
    let a = Api::start(&["--web-dir", first.path().to_str().unwrap()]).await;
    let b = Api::start(&["--web-dir", second.path().to_str().unwrap()]).await;
    assert_eq!(
        script_src(&a.call("GET", "/", None, None).await),
        allowing("window.first = 1;")
    );
    assert_eq!(
        script_src(&b.call("GET", "/", None, None).await),
        allowing("window.second = 2;")
    );
    // The UI rebuilt while the server runs: the new page's script is the one allowed.
    let rebuilt = "window.rebuilt = 3;";
    std::fs::write(first.path().join("index.html"), format!("<script>{rebuilt}</script>")).unwrap();
    assert_eq!(
        script_src(&a.call("GET", "/settings", None, None).await),
        allowing(rebuilt)
    );
}

#[tokio::test]
async fn assets_are_gzipped_for_clients_that_take_it() {
    let ui = build();
    let api = Api::start(&["--web-dir", ui.path().to_str().unwrap()]).await;
    let plain = api.call("GET", "/assets/app-1a2b.js", None, None).await;
    assert_eq!(plain.header("content-encoding"), None);
    let zipped = api
        .call_with("GET", "/assets/app-1a2b.js", None, None, &[("Accept-Encoding", "gzip")])
        .await;
    assert_eq!(zipped.header("content-encoding"), Some("gzip"));
    assert!(
        zipped.body.len() < plain.body.len() / 4,
        "{} vs {}",
        zipped.body.len(),
        plain.body.len()
    );
}

#[tokio::test]
async fn only_get_and_head_reach_the_ui_and_unknown_api_paths_stay_json() {
    let ui = build();
    let api = Api::start(&["--web-dir", ui.path().to_str().unwrap()]).await;
    assert_eq!(api.call("POST", "/f/notes", None, None).await.error(404), "Not found");
    assert_eq!(api.call("DELETE", "/", None, None).await.error(404), "Not found");
    assert_eq!(api.call("HEAD", "/settings", None, None).await.status, 200);
    for path in ["/api/nothing", "/api", "/api/folders/x/y"] {
        let answer = api.call("GET", path, None, None).await;
        assert_eq!(answer.error(404), "Not found", "{path}");
    }
    // A path that tries to leave the build directory gets the page, not the file.
    let escape = api.call("GET", "/assets/..%2F..%2Fetc%2Fpasswd", None, None).await;
    assert!(escape.text().contains(INLINE));
}

#[tokio::test]
async fn without_a_build_the_root_says_how_to_make_one() {
    let empty = tempfile::tempdir().unwrap();
    let api = Api::start(&["--web-dir", empty.path().to_str().unwrap()]).await;
    let page = api.call_with("GET", "/", None, None, &[("Accept", "text/html")]).await;
    assert_eq!(page.status, 404);
    assert!(page.header("content-type").unwrap().starts_with("text/html"));
    assert!(page.text().contains("npm run build"), "{}", page.text());
    let json = api.call("GET", "/f/notes", None, None).await;
    assert!(json.error(404).contains("The web UI is not built"));
    // The rest of the server works as before.
    assert_eq!(api.call("GET", "/api/status", None, None).await.status, 200);
}
