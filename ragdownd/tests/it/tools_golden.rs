//! The original's twelve tools keep their names, descriptions and argument schemas: `tools/list`
//! over stdio is held to `tests/data/tools.json`. A change to any of them is made on purpose, with
//! the golden file rewritten in the same commit:
//!
//!     RAGDOWN_UPDATE_GOLDEN=1 cargo test -p ragdownd --test it tools_golden

use serde_json::{Value, json};

use crate::support::{StdioClient, docs, test_env};

fn golden_path() -> std::path::PathBuf {
    std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("tests/data/tools.json")
}

/// What an agent reads of each tool, sorted by name: its name, description and input schema.
fn contract(listed: &Value) -> Value {
    let mut tools: Vec<Value> = listed["result"]["tools"]
        .as_array()
        .expect("tools/list answers a list")
        .iter()
        .map(|t| json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]}))
        .collect();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Value::Array(tools)
}

#[tokio::test]
async fn the_tools_names_descriptions_and_schemas_match_the_golden_file() {
    let (docs, data) = (docs(&[("a.md", "# A\n\nText.")]), tempfile::tempdir().unwrap());
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    let listed = contract(&client.request("tools/list", json!({})).await);
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(12),
        "the original's twelve tools: {listed}"
    );
    let text = serde_json::to_string_pretty(&listed).unwrap() + "\n";
    if std::env::var_os("RAGDOWN_UPDATE_GOLDEN").is_some() {
        std::fs::write(golden_path(), &text).unwrap();
        return;
    }
    let golden =
        std::fs::read_to_string(golden_path()).expect("tests/data/tools.json (RAGDOWN_UPDATE_GOLDEN=1 writes it)");
    let golden: Value = serde_json::from_str(&golden).unwrap();
    for (want, got) in golden.as_array().unwrap().iter().zip(listed.as_array().unwrap()) {
        assert_eq!(
            got, want,
            "{} differs from tests/data/tools.json; if that is on purpose, rewrite it with RAGDOWN_UPDATE_GOLDEN=1 in the same commit",
            want["name"]
        );
    }
    assert_eq!(listed, golden, "tools were added or removed");
}
