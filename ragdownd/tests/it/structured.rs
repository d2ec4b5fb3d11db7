//! `outputSchema` and `structuredContent`: the four tools whose answer is data say its shape in
//! `tools/list` and send it beside their text, which stays what it was; the rest say nothing.

use serde_json::{Value, json};

use crate::support::{StdioClient, docs, expected, fixture, test_env};

/// The tools with an output schema.
const STRUCTURED: [&str; 4] = ["ragdown_recall", "ragdown_list", "ragdown_backlinks", "ragdown_stats"];

/// Why `value` does not match `schema`, for the JSON Schema keywords the output schemas use
/// (`type`, a name or a list of names; `properties`; `required`; `items`). `None` when it does.
fn mismatch(schema: &Value, value: &Value, at: &str) -> Option<String> {
    let type_of = |value: &Value| match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if let Some(wanted) = schema.get("type") {
        let names: Vec<&str> = match wanted {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => return Some(format!("{at}: a schema type that is not a name")),
        };
        let found = type_of(value);
        if !names
            .iter()
            .any(|name| *name == found || (*name == "number" && found == "integer"))
        {
            return Some(format!("{at}: {found} where the schema says {wanted}"));
        }
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if value.get(key).is_none() {
                return Some(format!("{at}: no {key}"));
            }
        }
    }
    if let (Some(properties), Some(object)) = (schema.get("properties").and_then(Value::as_object), value.as_object()) {
        for (key, sub) in properties {
            if let Some(found) = object.get(key)
                && let Some(why) = mismatch(sub, found, &format!("{at}.{key}"))
            {
                return Some(why);
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            if let Some(why) = mismatch(items, item, &format!("{at}[{i}]")) {
                return Some(why);
            }
        }
    }
    None
}

#[test]
fn the_checker_refuses_what_does_not_match() {
    let schema = json!({"type": "object", "properties": {"hits": {"type": "array", "items": {"type": "object",
        "properties": {"line_start": {"type": "integer"}, "s": {"type": ["boolean", "null"]}}, "required": ["line_start"]}}},
        "required": ["hits"]});
    assert_eq!(
        mismatch(&schema, &json!({"hits": [{"line_start": 3, "s": null}]}), "$"),
        None
    );
    assert!(mismatch(&schema, &json!({}), "$").is_some());
    assert!(mismatch(&schema, &json!({"hits": "x"}), "$").is_some());
    assert!(mismatch(&schema, &json!({"hits": [{"line_start": 1.5}]}), "$").is_some());
    assert!(mismatch(&schema, &json!({"hits": [{}]}), "$").is_some());
    assert!(mismatch(&schema, &json!({"hits": [{"line_start": 1, "s": "yes"}]}), "$").is_some());
}

/// Calls `name` and returns its text and `structuredContent`, after checking the latter against
/// the tool's `outputSchema` from `tools/list`.
async fn call(client: &mut StdioClient, tools: &Value, name: &str, arguments: Value) -> (String, Value) {
    let response = client
        .request("tools/call", json!({"name": name, "arguments": arguments}))
        .await;
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{response}");
    let schema = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .map(|tool| tool["outputSchema"].clone())
        .unwrap();
    let data = result["structuredContent"].clone();
    assert!(data.is_object(), "{name} sent no structuredContent: {response}");
    if let Some(why) = mismatch(&schema, &data, "$") {
        panic!("{name}: {why}\n{data}");
    }
    (result["content"][0]["text"].as_str().unwrap().to_string(), data)
}

#[tokio::test]
async fn data_tools_send_structured_content_that_matches_their_schema() {
    let backups = std::fs::read_to_string(fixture("ops-backups.md")).unwrap();
    let docs = docs(&[
        ("ops/backups.md", &backups),
        ("ops/index.md", "# Index\n\nSee [[backups]] for restores.\n"),
    ]);
    let data = tempfile::tempdir().unwrap();
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    client.ok("ragdown_reindex", json!({})).await;

    let tools = client.request("tools/list", json!({})).await;
    // Every agent pays for tools/list each turn: the schemas may add at most 10% to the 16,888
    // characters the stdio server sent before them (docs/tools.md#structured-results).
    let size = tools.to_string().chars().count();
    assert!(size <= 16_888 * 110 / 100, "tools/list is {size} characters");
    for tool in tools["result"]["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(
            tool.get("outputSchema").is_some(),
            STRUCTURED.contains(&name),
            "{name}: {tool}"
        );
    }

    // recall: the text is the reference's, and with format json it is the data itself.
    let (text, data) = call(
        &mut client,
        &tools,
        "ragdown_recall",
        json!({"query": "pg_restore twice"}),
    )
    .await;
    assert!(text.starts_with("[1] ops/backups.md:"), "{text}");
    assert_eq!(data["hits"][0]["path"], "ops/backups.md");
    let (json_text, json_data) = call(
        &mut client,
        &tools,
        "ragdown_recall",
        json!({"query": "pg_restore twice", "format": "json"}),
    )
    .await;
    assert_eq!(serde_json::from_str::<Value>(&json_text).unwrap(), json_data);
    assert_eq!(json_data["hits"][0]["text"], data["hits"][0]["text"]);

    // list: the reference lines, and the same documents as data.
    let (text, data) = call(&mut client, &tools, "ragdown_list", json!({})).await;
    assert_eq!(text.lines().next(), Some("documents: 2"), "{text}");
    assert_eq!(data["total"], 2);
    let paths: Vec<&str> = data["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["ops/backups.md", "ops/index.md"]);
    assert_eq!(data["documents"][1]["title"], "Index");
    let (none, data) = call(&mut client, &tools, "ragdown_list", json!({"tag": "no-such-tag"})).await;
    assert_eq!(none, expected()["list_empty"].as_str().unwrap());
    assert_eq!(data, json!({"total": 0, "documents": []}));

    // backlinks and stats: their text was JSON already, and is the data.
    let (text, data) = call(
        &mut client,
        &tools,
        "ragdown_backlinks",
        json!({"path": "ops/backups.md"}),
    )
    .await;
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), data);
    assert_eq!(data["backlinks"][0]["path"], "ops/index.md", "{data}");
    let (text, data) = call(&mut client, &tools, "ragdown_stats", json!({"include_files": true})).await;
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), data);
    assert_eq!(
        (data["files"].as_u64(), data["file_list"].as_array().map(Vec::len)),
        (Some(2), Some(2))
    );

    // A failure carries no data, and a text-only tool sends none.
    let failed = client
        .request(
            "tools/call",
            json!({"name": "ragdown_recall", "arguments": {"query": "x", "top_k": 0}}),
        )
        .await;
    assert_eq!(failed["result"]["isError"], true);
    assert!(failed["result"].get("structuredContent").is_none(), "{failed}");
    let read = client
        .request(
            "tools/call",
            json!({"name": "ragdown_read_doc", "arguments": {"path": "ops/index.md"}}),
        )
        .await;
    assert!(read["result"].get("structuredContent").is_none(), "{read}");
}
