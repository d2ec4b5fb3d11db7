//! `ragdownd health`, the Docker image's HEALTHCHECK: the real binary probing a real server on the
//! address it is given, without the docs directory or the token a server needs.

use std::process::Command;

use crate::api::Api;

/// Runs `ragdownd health --port <port>` with an empty environment.
fn health(port: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ragdownd"))
        .args(["health", "--host", "0.0.0.0", "--port", port])
        .env_clear()
        .output()
        .expect("run ragdownd health")
}

#[tokio::test]
async fn health_passes_while_the_server_answers_and_fails_once_it_is_gone() {
    let api = Api::start(&[]).await;
    let port = api.client.base.rsplit(':').next().unwrap().to_string();

    // A listener on 0.0.0.0 is probed over loopback; the status goes to stdout.
    let probe = port.clone();
    let up = tokio::task::spawn_blocking(move || health(&probe)).await.unwrap();
    assert!(up.status.success(), "{}", String::from_utf8_lossy(&up.stderr));
    let status: serde_json::Value = serde_json::from_slice(&up.stdout).expect("the status as JSON");
    assert!(status.get("ready").is_some(), "{status}");

    drop(api);
    let mut down = None;
    for _ in 0..50 {
        let probe = port.clone();
        let out = tokio::task::spawn_blocking(move || health(&probe)).await.unwrap();
        if !out.status.success() {
            down = Some(out);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let down = down.expect("still healthy five seconds after the server stopped");
    let err = String::from_utf8_lossy(&down.stderr);
    assert!(
        err.contains(&format!("unhealthy: http://127.0.0.1:{port}/api/status")),
        "{err}"
    );
}

#[test]
fn a_port_in_use_is_named_with_the_variables_that_set_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let docs = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ragdownd"))
        .args(["serve", "--embedder", "hash", "--host", "127.0.0.1", "--port", &port])
        .arg("--docs")
        .arg(docs.path())
        .arg("--data")
        .arg(docs.path().join(".data"))
        .env_clear()
        .env("RAGDOWN_TOKEN", "t")
        .env("RAGDOWN_CACHE", docs.path().join(".cache"))
        .output()
        .expect("run ragdownd serve");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot listen on 127.0.0.1:{port} (RAGDOWN_HOST, PORT): ")),
        "{err}"
    );
}
