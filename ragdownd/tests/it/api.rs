//! The `/api` routes over real HTTP on a temp vault, route by route: each success answer, its
//! documented errors, auth, read-only mode, and for every route that writes what is on disk
//! afterwards (a refused write changes nothing, nothing outside the docs dir is touched).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{serve, write};

pub const TOKEN: &str = "api-token";

/// An HTTP client of one server.
pub struct ApiClient {
    pub base: String,
}

/// A `serve` on a temp vault, with a folder outside the docs dir that nothing may touch.
pub struct Api {
    pub client: ApiClient,
    pub docs: tempfile::TempDir,
    pub outside: tempfile::TempDir,
    pub data: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Api {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// One answer: status, headers and body.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.text()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The `error` of an error answer, checking the status.
    #[track_caller]
    pub fn error(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", self.text());
        self.json()["error"].as_str().unwrap_or_default().to_string()
    }
}

impl std::ops::Deref for Api {
    type Target = ApiClient;

    fn deref(&self) -> &ApiClient {
        &self.client
    }
}

impl ApiClient {
    /// Waits for the first index to finish.
    pub async fn wait_ready(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let status = self.call("GET", "/api/status", None, None).await.json();
            if status["ready"] == true && status["syncing"] == false && status["last_sync"].is_object() {
                return status;
            }
            assert!(Instant::now() < deadline, "not ready in time: {status}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A call with the token.
    pub async fn send(&self, method: &'static str, path: &str, body: Option<Value>) -> Answer {
        self.call(method, path, body.map(|b| b.to_string().into_bytes()), Some(TOKEN))
            .await
    }

    /// Any call: raw body bytes, optional token.
    pub async fn call(&self, method: &'static str, path: &str, body: Option<Vec<u8>>, token: Option<&str>) -> Answer {
        self.call_with(method, path, body, token, &[]).await
    }

    /// Any call with extra headers.
    pub async fn call_with(
        &self,
        method: &'static str,
        path: &str,
        body: Option<Vec<u8>>,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let url = format!("{}{path}", self.base);
        let token = token.map(str::to_string);
        let headers: Vec<(String, String)> = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        tokio::task::spawn_blocking(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .allow_non_standard_methods(true)
                .build()
                .into();
            let mut request = ureq::http::Request::builder().method(method).uri(&url);
            if let Some(token) = &token {
                request = request.header("Authorization", format!("Bearer {token}"));
            }
            for (key, value) in &headers {
                request = request.header(key, value);
            }
            if body.is_some() {
                request = request.header("Content-Type", "application/json");
            }
            let request = request.body(body.unwrap_or_default()).unwrap();
            let mut response = agent.run(request).unwrap();
            let headers = response
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
                .collect();
            Answer {
                status: response.status().as_u16(),
                headers,
                body: response.body_mut().with_config().limit(1 << 30).read_to_vec().unwrap(),
            }
        })
        .await
        .unwrap()
    }
}

impl Api {
    pub async fn start(extra: &[&str]) -> Self {
        let docs = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = docs.path();
        write(
            root,
            "ops/.ragdown.json",
            r#"{"title":"Operations","mcp":true,"colour":"teal"}"#,
        );
        write(
            root,
            "ops/backups.md",
            "---\ntags: [infra]\naliases: [Restores]\n---\n# Backups\n\nNightly restic to the NAS.\n\n## Restore\n\nRun restic restore latest.\n",
        );
        write(
            root,
            "ops/db/postgres.md",
            "# Postgres\n\nSee [[Backups#Restore]] and ![[diagram.png]].\nAlso [the backups](../backups.md).\n",
        );
        write(root, "ops/img/diagram.png", "\u{89}PNG fake");
        write(root, "ops/crlf.md", "# CRLF\r\n\r\nWindows lines.\r\n");
        write(root, "private/secret.md", "# Secret\n\nHuman only.\n");
        write(root, "loose.md", "# Loose\n");
        write(outside.path(), "secret.md", "# Outside\n\nMust never be read.\n");
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.join("ops/linkdir")).unwrap();
        let (base, stop) = serve(root, data.path(), TOKEN, extra).await;
        let api = Self {
            client: ApiClient { base },
            docs,
            outside,
            data,
            stop: Some(stop),
        };
        api.wait_ready().await;
        api
    }

    /// A client of another server (its dirs belong to whoever started it).
    pub fn at(base: &str) -> ApiClient {
        ApiClient { base: base.to_string() }
    }

    pub fn root(&self) -> &Path {
        self.docs.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// Every file under the docs dir and the outside dir with its bytes, to prove a refused
    /// request changed nothing. The history is left out: it is ragdown's record of the changes
    /// that were made, not a document (`history.rs` checks what it holds).
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        for dir in [self.docs.path(), self.outside.path()] {
            let walker = walkdir::WalkDir::new(dir)
                .follow_links(false)
                .into_iter()
                .filter_entry(|entry| entry.file_name() != ragdownd::history::DEFAULT_DIR_NAME);
            for entry in walker.flatten() {
                if entry.file_type().is_file() {
                    out.push((entry.path().to_path_buf(), std::fs::read(entry.path()).unwrap()));
                } else if entry.file_type().is_dir() {
                    out.push((entry.path().to_path_buf(), Vec::new()));
                }
            }
        }
        out.sort();
        out
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn status_is_open_and_says_what_is_in_effect() {
    let api = Api::start(&[]).await;
    let status = api.call("GET", "/api/status", None, None).await;
    assert_eq!(status.status, 200);
    let status = status.json();
    assert_eq!(status["name"], "ragdown");
    assert_eq!(status["auth_required"], true);
    assert_eq!(status["role"], "primary");
    assert_eq!(status["embedder"], "hash-384");
    // Markdown of folders only: not the loose file, not the outside one behind the symlink.
    assert_eq!(status["files"], 4, "{status}");
    let settings = &status["settings"];
    assert_eq!(settings["text_limit"], 2000);
    assert_eq!(settings["watch"], false);
    assert_eq!(settings["env"]["text_limit"], 2000);
    assert_eq!(settings["saved"], json!({}));
    assert_eq!(settings["hook"]["top_k"], 4);
    assert!(settings["hook"]["min_score"].is_number(), "{settings}");
    assert!(
        settings["embedders"]["minilm"]["unrelated_score"].is_number(),
        "{settings}"
    );
    assert_eq!(settings["saved_error"], Value::Null);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_but_status_needs_the_token_and_unknown_ones_are_404() {
    let api = Api::start(&[]).await;
    let routes = [
        ("GET", "/api/folders"),
        ("POST", "/api/folders"),
        ("PATCH", "/api/folders/ops"),
        ("DELETE", "/api/folders/ops?confirm=ops"),
        ("PATCH", "/api/settings"),
        ("DELETE", "/api/loose?name=loose.md"),
        ("GET", "/api/docs?folder=ops"),
        ("GET", "/api/doc?path=ops/backups.md"),
        ("POST", "/api/doc"),
        ("DELETE", "/api/doc?path=ops/backups.md"),
        ("GET", "/api/search?folder=ops&q=restic"),
        ("GET", "/api/resolve?from=ops/db/postgres.md&link=Backups"),
        ("POST", "/api/move"),
        ("GET", "/api/backlinks?path=ops/backups.md"),
        ("GET", "/api/file?path=ops/backups.md"),
        ("GET", "/api/query-log"),
        ("GET", "/api/access/tokens"),
        ("POST", "/api/access/tokens"),
        ("DELETE", "/api/access/tokens/t0123456789ab"),
    ];
    let before = api.snapshot();
    for (method, route) in routes {
        for token in [None, Some("wrong-token")] {
            let body = (method != "GET" && method != "DELETE").then(|| b"{}".to_vec());
            let answer = api.call(method, route, body, token).await;
            assert_eq!(answer.error(401), "Unauthorized", "{method} {route} {token:?}");
        }
    }
    assert_eq!(api.snapshot(), before, "a refused call changed nothing");
    let unknown = api.call("GET", "/api/nope", None, None).await;
    assert_eq!(unknown.error(404), "Not found");
    let wrong_method = api.send("GET", "/api/settings", None).await;
    assert_eq!(wrong_method.error(405), "Method not allowed");
    let wrong_method = api.send("PUT", "/api/doc", Some(json!({}))).await;
    assert_eq!(wrong_method.error(405), "Method not allowed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_host_or_origin_is_refused() {
    let api = Api::start(&[]).await;
    let foreign_host = api
        .call_with("GET", "/api/folders", None, Some(TOKEN), &[("Host", "evil.example")])
        .await;
    assert_eq!(foreign_host.status, 403, "{}", foreign_host.text());
    let foreign_origin = api
        .call_with(
            "POST",
            "/api/doc",
            Some(json!({"path": "ops/x.md", "text": "# x"}).to_string().into_bytes()),
            Some(TOKEN),
            &[("Origin", "http://evil.example")],
        )
        .await;
    assert_eq!(foreign_origin.status, 403, "{}", foreign_origin.text());
    assert!(!api.path("ops/x.md").exists());
    let own = format!("http://{}", api.base.trim_start_matches("http://"));
    let same_origin = api
        .call_with("GET", "/api/folders", None, Some(TOKEN), &[("Origin", own.as_str())])
        .await;
    assert_eq!(same_origin.status, 200, "{}", same_origin.text());
}

#[tokio::test(flavor = "multi_thread")]
async fn folders_are_listed_made_changed_renamed_and_deleted() {
    let api = Api::start(&[]).await;
    let list = api.send("GET", "/api/folders", None).await.json();
    let names: Vec<&str> = list["folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ops", "private"]);
    let ops = &list["folders"][0];
    assert_eq!(
        (ops["title"].as_str(), ops["mcp"].as_bool()),
        (Some("Operations"), Some(true))
    );
    assert_eq!(ops["mcp_path"], "/mcp/ops");
    assert_eq!(ops["files"], 3);
    assert_eq!(list["loose_files"], json!(["loose.md"]));

    // Create: 201, mcp made explicit; a taken or bad name changes nothing.
    let made = api
        .send(
            "POST",
            "/api/folders",
            Some(json!({"name": "Work notes", "title": "Work"})),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.text());
    assert_eq!(made.json()["folder"]["mcp_path"], "/mcp/Work%20notes");
    let saved: Value = serde_json::from_str(&api.read("Work notes/.ragdown.json")).unwrap();
    assert_eq!(saved, json!({"title": "Work", "mcp": false}));
    let before = api.snapshot();
    api.send("POST", "/api/folders", Some(json!({"name": "ops"})))
        .await
        .error(409);
    api.send("POST", "/api/folders", Some(json!({"name": "../up"})))
        .await
        .error(400);
    api.send("POST", "/api/folders", Some(json!({"name": ".hidden"})))
        .await
        .error(400);
    api.send("POST", "/api/folders", Some(json!({"title": "no name"})))
        .await
        .error(400);
    let not_json = api
        .call("POST", "/api/folders", Some(b"{nope".to_vec()), Some(TOKEN))
        .await;
    assert_eq!(not_json.error(400), "Body is not valid JSON");
    assert_eq!(api.snapshot(), before);

    // Change: title, mcp and hook; null drops a hook value; unknown keys are kept.
    let changed = api
        .send(
            "PATCH",
            "/api/folders/ops",
            Some(json!({"title": "Ops", "mcp": false, "hook": {"top_k": 2, "min_score": 0.5}})),
        )
        .await;
    assert_eq!(changed.status, 200, "{}", changed.text());
    assert_eq!(changed.json()["folder"]["hook"], json!({"top_k": 2, "min_score": 0.5}));
    api.send("PATCH", "/api/folders/ops", Some(json!({"hook": {"top_k": null}})))
        .await;
    let saved: Value = serde_json::from_str(&api.read("ops/.ragdown.json")).unwrap();
    assert_eq!(
        saved,
        json!({"title": "Ops", "mcp": false, "colour": "teal", "hook": {"min_score": 0.5}})
    );
    let before = api.snapshot();
    api.send("PATCH", "/api/folders/ops", Some(json!({"hook": {"top_k": 99}})))
        .await
        .error(400);
    api.send("PATCH", "/api/folders/nope", Some(json!({"title": "x"})))
        .await
        .error(404);
    api.send("PATCH", "/api/folders/ops", Some(json!({"name": "private"})))
        .await
        .error(409);
    api.send("PATCH", "/api/folders/ops", Some(json!({"name": "a/b"})))
        .await
        .error(400);
    assert_eq!(api.snapshot(), before);

    // Rename: the files move and the index follows before the answer.
    let renamed = api
        .send("PATCH", "/api/folders/ops", Some(json!({"name": "infra"})))
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text());
    assert_eq!(renamed.json()["folder"]["files"], 3, "{}", renamed.text());
    assert!(api.path("infra/backups.md").exists() && !api.path("ops").exists());
    let docs = api.send("GET", "/api/docs?folder=infra", None).await.json();
    assert_eq!(docs["docs"].as_array().unwrap().len(), 3, "{docs}");

    // Delete: only with the name repeated; never through a symlink or outside.
    api.send("DELETE", "/api/folders/infra", None).await.error(400);
    api.send("DELETE", "/api/folders/infra?confirm=ops", None)
        .await
        .error(400);
    api.send("DELETE", "/api/folders/infra%2Flinkdir?confirm=infra%2Flinkdir", None)
        .await
        .error(404);
    let gone = api.send("DELETE", "/api/folders/infra?confirm=infra", None).await;
    assert_eq!(gone.status, 200, "{}", gone.text());
    assert_eq!(gone.json()["sync"]["removed"], 3);
    assert!(!api.path("infra").exists());
    assert!(
        api.outside.path().join("secret.md").exists(),
        "the symlink's target is untouched"
    );

    // Loose files: only a Markdown file directly in the docs dir.
    api.send("DELETE", "/api/loose?name=private", None).await.error(404);
    api.send("DELETE", "/api/loose?name=private/secret.md", None)
        .await
        .error(404);
    api.send("DELETE", "/api/loose?name=..%2Floose.md", None)
        .await
        .error(404);
    let loose = api.send("DELETE", "/api/loose?name=loose.md", None).await;
    assert_eq!(loose.json(), json!({"name": "loose.md"}));
    assert!(!api.path("loose.md").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_description_is_served_open_and_is_the_committed_file() {
    let api = Api::start(&[]).await;
    let served = api.call("GET", "/api/openapi.json", None, None).await;
    assert_eq!(served.status, 200);
    assert_eq!(served.header("content-type"), Some("application/json"));
    let committed = std::fs::read_to_string(
        std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("openapi.json"),
    )
    .unwrap();
    assert_eq!(served.text(), committed);
    // Every route the router answers is described.
    let doc = served.json();
    assert_eq!(
        doc["paths"]["/api/doc"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/SaveBody"
    );
}
