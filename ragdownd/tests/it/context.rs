//! `ragdown_context` over a real stdio child process: the reference block format and Claude Code
//! wrapper, the prompt gates, per-session memory and reset, and the similarity, ratio and budget
//! gates. The corpus has one single-paragraph section per document, so blocks split on blank lines,
//! and its search ranks one chunk above another with a higher similarity, which the hook re-sorts.
//! `test_env` sets the original's test values `RAGDOWN_HOOK_MIN_SCORE=0.2`, `RAGDOWN_HOOK_MIN_RATIO=0`.

use serde_json::{Value, json};

use crate::support::{StdioClient, docs, expected, test_env};

/// The prompt every test asks; related to every document, one far more than the rest.
const PROMPT: &str = "how do I restore the postgres database from the nightly dump?";

fn corpus() -> tempfile::TempDir {
    docs(&[
        (
            "db/restore.md",
            "# Restore\n\nRestore the postgres database from the nightly dump with pg_restore.\n",
        ),
        (
            "db/vacuum.md",
            // "night" shares a stem with the prompt's "nightly", so BM25 ranks this above the
            // replicas and the dumps chunk wins rank fusion outright instead of by a tie.
            "# Vacuum\n\nVacuum the postgres database every night so dead rows do not pile up.\n",
        ),
        (
            "db/replicas.md",
            "# Replicas\n\nThe postgres database has two read replicas behind the load balancer.\n",
        ),
        // Lexically strong, so it is ranked second though three chunks are more similar.
        ("db/dumps.md", "# Dumps\n\nnightly dump nightly dump nightly dump\n"),
        (
            "garden/tomatoes.md",
            "# Tomatoes\n\nWater the tomato plants every morning and stake them when they grow tall.\n",
        ),
    ])
}

async fn started(docs: &tempfile::TempDir, data: &tempfile::TempDir) -> StdioClient {
    let mut client = StdioClient::start(&test_env(docs.path(), data.path())).await;
    // Joins the first sync, so the index is complete before the checks.
    client.ok("ragdown_reindex", json!({})).await;
    client
}

/// The block's opening lines for a scope rooted at `docs`.
fn header(docs: &tempfile::TempDir) -> String {
    let dir = docs.path().canonicalize().unwrap();
    format!(
        "<ragdown-context source=\"{}\">\n\
         Excerpts from the user's Markdown documents that look related to this prompt, found by search, \
         not chosen by the user.\n\
         They may be irrelevant or out of date: each says when its file last changed. \
         Use ragdown_read_doc for the whole file before relying on a fragment.\n\n",
        dir.to_str().unwrap()
    )
}

const FOOTER: &str = "\n</ragdown-context>";

/// The excerpts of a block, checking its exact header and footer on the way.
fn excerpts(docs: &tempfile::TempDir, block: &str) -> Vec<String> {
    let body = block
        .strip_prefix(&header(docs))
        .unwrap_or_else(|| panic!("not the reference header:\n{block}"))
        .strip_suffix(FOOTER)
        .unwrap_or_else(|| panic!("not the reference footer:\n{block}"));
    body.split("\n\n").map(str::to_string).collect()
}

/// The first line of each excerpt: `path:lines — heading (similarity …)`.
fn heads(docs: &tempfile::TempDir, block: &str) -> Vec<String> {
    excerpts(docs, block)
        .iter()
        .map(|e| e.lines().next().unwrap().to_string())
        .collect()
}

/// `ragdown_recall`'s hits for the prompt, as the hook's search sees them.
struct Related {
    /// Paths in the search's ranked order.
    ranked: Vec<String>,
    /// (path, similarity, the text-format hit without `[n] `), best similarity first, as the hook
    /// sorts them.
    by_similarity: Vec<(String, f64, String)>,
}

impl Related {
    /// The first line of each hit by similarity: `path:lines — heading (similarity …)`.
    fn heads(&self) -> Vec<String> {
        self.by_similarity
            .iter()
            .map(|(_, _, text)| text.lines().next().unwrap().to_string())
            .collect()
    }

    /// The heads of `paths`, best similarity first.
    fn heads_of(&self, paths: &[String]) -> Vec<String> {
        self.by_similarity
            .iter()
            .filter(|(path, _, _)| paths.contains(path))
            .map(|(_, _, text)| text.lines().next().unwrap().to_string())
            .collect()
    }
}

async fn related(client: &mut StdioClient) -> Related {
    let json: Value = serde_json::from_str(
        &client
            .ok("ragdown_recall", json!({"query": PROMPT, "format": "json"}))
            .await,
    )
    .unwrap();
    let text = client.ok("ragdown_recall", json!({"query": PROMPT})).await;
    let texts: Vec<&str> = text.split("\n\n").map(|hit| hit.split_once("] ").unwrap().1).collect();
    let mut by_similarity: Vec<(String, f64, String)> = json["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| {
            let path = hit["path"].as_str().unwrap().to_string();
            let text = texts.iter().find(|t| t.starts_with(&format!("{path}:"))).unwrap();
            (path, hit["similarity"].as_f64().unwrap(), text.to_string())
        })
        .collect();
    let ranked = by_similarity.iter().map(|(path, _, _)| path.clone()).collect();
    by_similarity.sort_by(|a, b| b.1.total_cmp(&a.1));
    Related { ranked, by_similarity }
}

async fn context(client: &mut StdioClient, args: Value) -> String {
    client.ok("ragdown_context", args).await
}

#[tokio::test]
async fn block_is_the_reference_header_recall_hits_by_similarity_and_footer() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    let block = context(&mut client, json!({"prompt": PROMPT, "top_k": 4})).await;
    assert!(
        block.starts_with(expected()["context_starts_with"].as_str().unwrap()),
        "{block}"
    );
    let related = related(&mut client).await;
    let hits = &related.by_similarity;
    assert_eq!(hits.len(), 5, "every document is related: {hits:?}");
    assert!(hits.iter().all(|(_, similarity, _)| *similarity >= 0.2), "{hits:?}");
    let by_similarity: Vec<&String> = hits.iter().map(|(path, _, _)| path).collect();
    assert_ne!(
        related.ranked.iter().collect::<Vec<_>>(),
        by_similarity,
        "the corpus must rank a less similar chunk higher"
    );
    // Each excerpt is recall's hit without the `[n] ` prefix, best similarity first, top_k of them.
    let want: Vec<String> = hits.iter().take(4).map(|(_, _, text)| text.clone()).collect();
    assert_eq!(excerpts(&docs, &block), want);
    assert!(!block.contains("[1] "), "{block}");
}

#[tokio::test]
async fn short_prompts_and_slash_commands_get_nothing() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    let nothing = expected()["context_nothing"].as_str().unwrap().to_string();
    // Twelve characters after trimming is enough...
    let twelve = context(&mut client, json!({"prompt": "  restore dump \n"})).await;
    assert!(heads(&docs, &twelve)[0].starts_with("db/restore.md:"), "{twelve}");
    // ...eleven is not, however much whitespace surrounds it.
    for prompt in [
        "restore dum",
        "      restore dum      ",
        "",
        "/restore the postgres database from the nightly dump",
        "  /compact restore the postgres database",
    ] {
        let got = context(&mut client, json!({"prompt": prompt, "format": "claude-code"})).await;
        assert_eq!(got, nothing, "{prompt:?}");
        let got = context(&mut client, json!({"prompt": prompt, "session_id": "s"})).await;
        assert_eq!(got, nothing, "{prompt:?}");
    }
}

#[tokio::test]
async fn a_session_gets_each_chunk_once_until_reset() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    let related = related(&mut client).await;
    let want = related.heads();
    // With top_k 2 the search asks for the 4 best-ranked chunks; the hook gives them by similarity.
    let searched = &related.ranked[..4];
    let two = |session: &str| json!({"prompt": PROMPT, "session_id": session, "top_k": 2});

    // The best two, then the other two (never one already given), then nothing.
    let first = context(&mut client, two("s1")).await;
    let first_heads = heads(&docs, &first);
    assert_eq!(first_heads, related.heads_of(searched)[..2]);
    let second = context(&mut client, two("s1")).await;
    assert_eq!(heads(&docs, &second), related.heads_of(searched)[2..]);
    assert_eq!(context(&mut client, two("s1")).await, "");

    // Another session has its own memory; no session has none.
    assert_eq!(context(&mut client, two("s2")).await, first);
    for _ in 0..2 {
        let anonymous = context(&mut client, json!({"prompt": PROMPT, "top_k": 2})).await;
        assert_eq!(anonymous, first);
    }

    // reset forgets first, even with a prompt that is then skipped.
    let reset = context(&mut client, json!({"prompt": "", "session_id": "s1", "reset": true})).await;
    assert_eq!(reset, "");
    assert_eq!(context(&mut client, two("s1")).await, first);
    // With a prompt, reset forgets and then answers.
    let mut reset_and_ask = two("s1");
    reset_and_ask["reset"] = json!(true);
    assert_eq!(context(&mut client, reset_and_ask).await, first);

    // top_k 1 asks for the 2 best-ranked chunks only.
    let one = json!({"prompt": PROMPT, "session_id": "s4", "top_k": 1});
    let mut given = Vec::new();
    for _ in 0..2 {
        given.extend(heads(&docs, &context(&mut client, one.clone()).await));
    }
    assert_eq!(given, related.heads_of(&related.ranked[..2]));
    assert_eq!(context(&mut client, one).await, "");

    // Only emitted chunks are remembered: what the budget left out comes on the next call.
    let tight = context(
        &mut client,
        json!({"prompt": PROMPT, "session_id": "s3", "max_chars": 1}),
    )
    .await;
    assert_eq!(heads(&docs, &tight), want[..1]);
    let rest = context(&mut client, json!({"prompt": PROMPT, "session_id": "s3"})).await;
    assert_eq!(heads(&docs, &rest), want[1..5]);
}

#[tokio::test]
async fn claude_code_format_wraps_the_text_block() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    let block = context(&mut client, json!({"prompt": PROMPT})).await;
    assert!(!block.is_empty());
    let wrapped = context(&mut client, json!({"prompt": PROMPT, "format": "claude-code"})).await;
    let value: Value = serde_json::from_str(&wrapped).unwrap();
    let mut want = expected()["context_claude_code_wrapper"].clone();
    want["hookSpecificOutput"]["additionalContext"] = json!(block);
    assert_eq!(value, want);
    // Compact, as JSON.stringify writes it.
    assert_eq!(wrapped, value.to_string());
}

#[tokio::test]
async fn min_score_above_every_similarity_gives_nothing() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    let hits = related(&mut client).await.by_similarity;
    let (best, second) = (hits[0].1, hits[1].1);
    assert!(best - second > 0.01, "{hits:?}");
    let above = context(&mut client, json!({"prompt": PROMPT, "min_score": best + 0.001})).await;
    assert_eq!(above, expected()["context_nothing"].as_str().unwrap());
    let between = context(&mut client, json!({"prompt": PROMPT, "min_score": best - 0.001})).await;
    assert_eq!(heads(&docs, &between).len(), 1, "{between}");
    assert!(between.contains(&hits[0].2), "{between}");
}

#[tokio::test]
async fn ratio_gate_keeps_only_hits_near_the_best() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    let hits = related(&mut client).await.by_similarity;
    let sims: Vec<f64> = hits.iter().map(|h| h.1).collect();
    assert!(sims[0] * 0.99 > sims[1] && sims[1] > sims[2] + 0.01, "{sims:?}");
    let count = |block: &str| heads(&docs, block).len();

    let all = context(&mut client, json!({"prompt": PROMPT, "min_ratio": 0})).await;
    assert_eq!(count(&all), 4);
    let near_one = context(&mut client, json!({"prompt": PROMPT, "min_ratio": 0.99})).await;
    assert_eq!(count(&near_one), 1);
    assert!(near_one.contains(&hits[0].2), "{near_one}");
    // Between the second and third hit's share of the best.
    let ratio = (sims[1] + sims[2]) / 2.0 / sims[0];
    let two = context(&mut client, json!({"prompt": PROMPT, "min_ratio": ratio})).await;
    assert_eq!(count(&two), 2, "ratio {ratio}: {two}");
}

#[tokio::test]
async fn max_chars_always_takes_the_first_block_and_drops_what_does_not_fit() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    let full = excerpts(&docs, &context(&mut client, json!({"prompt": PROMPT})).await);
    assert_eq!(full.len(), 4);
    let len = |i: usize| full[i].chars().count();

    // Exactly the first two fit.
    let two = context(&mut client, json!({"prompt": PROMPT, "max_chars": len(0) + len(1)})).await;
    assert_eq!(excerpts(&docs, &two), full[..2]);
    // One character less and the second no longer does.
    let one = context(&mut client, json!({"prompt": PROMPT, "max_chars": len(0) + len(1) - 1})).await;
    let got = excerpts(&docs, &one);
    assert_eq!(got[0], full[0]);
    assert!(!got.contains(&full[1]), "{one}");

    // A first block larger than the budget still goes in, its text clipped to max_chars, alone.
    let tiny = context(&mut client, json!({"prompt": PROMPT, "max_chars": 10})).await;
    let got = excerpts(&docs, &tiny);
    assert_eq!(got.len(), 1, "{tiny}");
    assert!(got[0].chars().count() > 10);
    let head = full[0].lines().next().unwrap();
    assert!(got[0].starts_with(&format!("{head}\n")), "{tiny}");
    assert!(got[0].contains("… [clipped: 10 of "), "{tiny}");
}

#[tokio::test]
async fn out_of_range_arguments_are_refused() {
    let (docs, data) = (corpus(), tempfile::tempdir().unwrap());
    let mut client = started(&docs, &data).await;
    for args in [
        json!({"prompt": PROMPT, "top_k": 0}),
        json!({"prompt": PROMPT, "top_k": 51}),
        json!({"prompt": PROMPT, "min_score": 1.5}),
        json!({"prompt": PROMPT, "min_ratio": -0.5}),
        json!({"prompt": PROMPT, "max_chars": 0}),
        json!({"prompt": PROMPT, "format": "markdown"}),
        json!({"prompt": PROMPT, "query": "unknown argument"}),
        json!({"session_id": "no prompt"}),
    ] {
        let (text, is_error) = client.call("ragdown_context", args.clone()).await;
        assert!(is_error, "{args} gave {text}");
    }
}
