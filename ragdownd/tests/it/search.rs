//! Search rules on a real LanceDB with the `hash` embedder: the full-text tokenizer keeps
//! identifiers whole, identifier queries are fused by score, the alias boost, the per-document
//! cap and link following. Each test first checks the premise it depends on (which pool ranks
//! what), so a change to the embedder or the tokenizer fails loudly instead of passing vacuously.

use std::path::Path;
use std::sync::Arc;

use ragdownd::embed::hash::HashEmbedder;
use ragdownd::engine::Engine;
use ragdownd::index::scan::Layout;
use ragdownd::search::{self, Fusion, Hit, SearchOptions, SearchRequest, SearchSettings};
use serde_json::json;

use crate::support::{StdioClient, docs, test_env, write};

async fn open(docs: &Path, data: &Path, layout: Layout) -> Arc<Engine> {
    let engine = crate::support::open_engine(docs, data, layout, Arc::new(HashEmbedder)).await;
    engine.indexer.sync(false).await.unwrap();
    engine
}

fn request(query: &str, limit: usize) -> SearchRequest<'_> {
    SearchRequest {
        query,
        limit,
        ..SearchRequest::default()
    }
}

fn options(fusion: Fusion) -> SearchOptions {
    SearchOptions {
        fusion,
        ..SearchOptions::default()
    }
}

/// A temp docs dir with `files`, indexed; the dir lives as long as the engine is used.
async fn docs_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Arc<Engine>, tempfile::TempDir) {
    let dir = docs(files);
    let data = tempfile::tempdir().unwrap();
    let engine = open(dir.path(), data.path(), Layout::Single).await;
    (dir, engine, data)
}

async fn run(engine: &Engine, request: &SearchRequest<'_>, options: &SearchOptions) -> Vec<Hit> {
    search::search_with(engine.store(), engine.embedder.as_ref(), request, options)
        .await
        .unwrap()
}

fn paths(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.chunk.path.as_str()).collect()
}

/// One document holds each identifier whole; the others mention its pieces, in prose.
const PIECES: &[(&str, &str)] = &[
    (
        "whole.md",
        "# Sizing\n\nThe primary runs on a db.m5.large instance; raise it with --max-batch-tokens and read `kubectl logs deploy/kestrel-ingest` after a pg_restore of the snapshot taken by the nightly job.",
    ),
    ("db.md", "# Db\n\nThe large db runs on m5 hosts."),
    ("batch.md", "# Batch\n\nThe max number of tokens in a batch."),
    ("deploy.md", "# Deploy\n\nDeploy the kestrel service to ingest events."),
    ("pg.md", "# Pg\n\nTo restore pg, ask the database team."),
];

/// [`PIECES`] among notes that use the identifiers' pieces as everyday words, as a real folder
/// does, so that a piece is a common word and a whole identifier a rare one.
fn pieces_among_notes() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = PIECES.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
    for i in 0..12 {
        files.push((
            format!("note-{i}.md"),
            format!("# Note {i}\n\nA large batch of max tokens; deploy the pg db, restore it, ingest events."),
        ));
    }
    files
}

#[tokio::test(flavor = "multi_thread")]
async fn the_full_text_index_finds_identifiers_whole() {
    let files = pieces_among_notes();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let docs = docs(&files);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Layout::Single).await;
    let lexical = options(Fusion::LexicalOnly);
    for (query, pieces) in [
        ("db.m5.large", "db.md"),
        ("--max-batch-tokens", "batch.md"),
        ("deploy/kestrel-ingest", "deploy.md"),
        ("pg_restore", "pg.md"),
    ] {
        let hits = run(&engine, &request(query, 5), &lexical).await;
        assert_eq!(hits[0].chunk.path, "whole.md", "{query}: {:?}", paths(&hits));
        // The premise: the pieces, as words, match other documents too.
        let words = query.replace(['.', '-', '/', '_'], " ");
        let hits = run(&engine, &request(&words, 20), &lexical).await;
        assert!(
            hits.len() > 2 && paths(&hits).contains(&pieces),
            "{words}: {:?}",
            paths(&hits)
        );
    }
    // The same words with and without their joiners: the whole identifier scores higher (a
    // tokenizer that splits `pg_restore` or `db.m5.large` would score them the same).
    for (query, joined, apart) in [
        ("pg_restore", "Run pg_restore now.", "Run pg restore now."),
        ("db.m5.large", "Use db.m5.large here.", "Use db m5 large here."),
    ] {
        let pair = docs_with(&[("joined.md", joined), ("apart.md", apart)]).await;
        let lexical_query = ragdownd::index::terms::lexical_query(query);
        let scored = pair
            .1
            .store()
            .lexical(&lexical_query, &Default::default(), 5)
            .await
            .unwrap();
        let score = |path: &str| {
            scored
                .iter()
                .find(|found| found.candidate.path == path)
                .map(|found| found.score)
        };
        assert!(
            score("joined.md").unwrap() > score("apart.md").unwrap_or(0.0),
            "{query}: {:?}",
            scored
                .iter()
                .map(|found| (found.candidate.path.clone(), found.score))
                .collect::<Vec<_>>()
        );
    }

    // The joined form is indexed as a term of its own.
    let hits = run(&engine, &request("deploy_kestrel_ingest", 5), &lexical).await;
    assert_eq!(hits[0].chunk.path, "whole.md", "{:?}", paths(&hits));

    // Rows added after the full-text index was built (scanned until optimised) match the same way.
    write(
        docs.path(),
        "later.md",
        "# Later\n\nMoved to db.r6i.4xlarge; see `veltra cordon kestrel-ingest`.",
    );
    engine.indexer.sync(false).await.unwrap();
    let hits = run(&engine, &request("db.r6i.4xlarge", 5), &lexical).await;
    assert_eq!(hits[0].chunk.path, "later.md", "{:?}", paths(&hits));
    let hits = run(&engine, &request("`veltra cordon kestrel-ingest`", 5), &lexical).await;
    assert_eq!(hits[0].chunk.path, "later.md", "{:?}", paths(&hits));
}

/// Documents about the query's topic, which the dense side prefers, and the one that holds the
/// name the query asks about, which BM25 prefers: the topic's words are in every document, the
/// name in one.
fn topic_and_name() -> Vec<(String, String)> {
    let mut docs = vec![
        (
            "topic.md".to_string(),
            "# Where the embedding batches are set\n\nWhere is the size of the embedding batches set? The embedding \
             batches are set for the queue."
                .to_string(),
        ),
        ("name.md".to_string(), "# Tuning\n\nmax_batch_tokens = 512".to_string()),
    ];
    for i in 0..8 {
        docs.push((
            format!("note-{i}.md"),
            format!("# Note {i}\n\nWhere is it set, for the embedding of batches? See note {i}."),
        ));
    }
    docs
}

#[tokio::test(flavor = "multi_thread")]
async fn identifier_queries_are_fused_by_score_and_prose_by_rank() {
    let files = topic_and_name();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let docs = docs(&files);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Layout::Single).await;
    let query = "where is max_batch_tokens set for the embedding batches";
    let top = |hits: Vec<Hit>| hits[0].chunk.path.clone();
    // The premise: each side prefers a different document, and rank fusion sides with dense.
    assert_ne!(
        top(run(&engine, &request(query, 5), &options(Fusion::DenseOnly)).await),
        "name.md"
    );
    assert_eq!(
        top(run(&engine, &request(query, 5), &options(Fusion::LexicalOnly)).await),
        "name.md"
    );
    assert_ne!(
        top(run(&engine, &request(query, 5), &options(Fusion::Rank)).await),
        "name.md"
    );

    // A snake_case key routes the query to score fusion, which leans on BM25.
    let routed = run(&engine, &request(query, 5), &SearchOptions::default()).await;
    let by_score = run(&engine, &request(query, 5), &options(Fusion::Score)).await;
    assert_eq!(routed, by_score);
    assert_eq!(routed[0].chunk.path, "name.md");
    assert!(
        (routed[0].score - 0.8).abs() < 0.2 + 1e-6 && routed[0].score <= 1.0,
        "a normalised score: {}",
        routed[0].score
    );
    // The same words without the identifier are prose: fused by rank.
    let prose = "where is the size set for the embedding batches";
    let routed = run(&engine, &request(prose, 5), &SearchOptions::default()).await;
    assert_eq!(routed, run(&engine, &request(prose, 5), &options(Fusion::Rank)).await);
    assert!(routed[0].score < 2.0 / 61.0 + 1e-9, "an RRF score: {}", routed[0].score);
    // What the tools call is the routed search.
    let plain = search::search(engine.store(), engine.embedder.as_ref(), &request(query, 5))
        .await
        .unwrap();
    assert_eq!(plain[0].chunk.path, "name.md");
}

const ALIASED: &[(&str, &str)] = &[
    (
        "kestrel.md",
        "---\naliases: [Bluefin]\n---\n# Kestrel\n\nThe ingest service.\n\n## Deploys\n\nProduction deploys are approved by Amara.",
    ),
    (
        "falcon.md",
        "# Falcon\n\nThe proxy.\n\n## Deploys\n\nWho approves production deploys? Production deploys of the service are approved by Sven.",
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn a_query_naming_an_alias_boosts_every_candidate_of_that_document() {
    let docs = docs(ALIASED);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Layout::Single).await;
    let query = "who approves production deploys of bluefin";
    let unboosted = SearchOptions {
        alias_boost: false,
        ..SearchOptions::default()
    };
    let before = run(&engine, &request(query, 8), &unboosted).await;
    assert_eq!(before[0].chunk.path, "falcon.md", "the premise: {:?}", paths(&before));
    let after = run(&engine, &request(query, 8), &SearchOptions::default()).await;
    assert_eq!(after[0].chunk.path, "kestrel.md", "{:?}", paths(&after));
    assert_eq!(after[0].chunk.heading, "Kestrel › Deploys");
    // Exactly one rank-1 share for each of the document's candidates; nothing else moves.
    for hit in &after {
        let old = before.iter().find(|b| b.chunk.id == hit.chunk.id).unwrap();
        let added = if hit.chunk.path == "kestrel.md" {
            1.0 / 61.0
        } else {
            0.0
        };
        assert!((hit.score - old.score - added).abs() < 1e-9, "{}", hit.chunk.id);
    }
    // Not inside a longer word, and not for a query routed to score fusion.
    let partial = run(
        &engine,
        &request("who approves production deploys of bluefins", 8),
        &SearchOptions::default(),
    )
    .await;
    assert_eq!(partial[0].chunk.path, "falcon.md");
    let routed_query = "who approves production deploys of bluefin via deploy_gate";
    let routed = run(&engine, &request(routed_query, 8), &SearchOptions::default()).await;
    assert_eq!(
        routed,
        run(&engine, &request(routed_query, 8), &options(Fusion::Score)).await
    );
}

const LONG_AND_SHORT: &[(&str, &str)] = &[
    (
        "long.md",
        "# Backups\n\n## Restore backups\n\nRestore backups with the restore script.\n\n## Restore backups again\n\nRestore backups twice.\n\n## Restore old backups\n\nRestore old backups from tape.",
    ),
    ("short.md", "# Tapes\n\nOld tapes hold backups."),
    ("other.md", "# Lunch\n\nSoup on Fridays."),
];

#[tokio::test(flavor = "multi_thread")]
async fn the_cap_fills_a_result_from_other_documents_first() {
    let docs = docs(LONG_AND_SHORT);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Layout::Single).await;
    let query = "restore backups";
    let uncapped = run(&engine, &request(query, 3), &SearchOptions::default()).await;
    assert_eq!(paths(&uncapped), ["long.md", "long.md", "long.md"], "the premise");
    let capped = |cap| {
        SearchOptions::new(
            SearchSettings {
                max_per_document: cap,
                follow_links: 0,
            },
            Layout::Single,
        )
    };
    let hits = run(&engine, &request(query, 3), &capped(1)).await;
    assert_eq!(paths(&hits), ["long.md", "short.md", "other.md"]);
    assert_eq!(hits[0], uncapped[0], "the best section keeps its place and score");
    let hits = run(&engine, &request(query, 4), &capped(2)).await;
    assert_eq!(paths(&hits), ["long.md", "long.md", "short.md", "other.md"]);
    // Too few other documents: the capped sections still fill the result, behind them.
    let hits = run(&engine, &request(query, 5), &capped(1)).await;
    assert_eq!(paths(&hits), ["long.md", "short.md", "other.md", "long.md", "long.md"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn ragdown_recall_applies_max_per_document_from_the_environment() {
    let docs = docs(LONG_AND_SHORT);
    let data = tempfile::tempdir().unwrap();
    let mut env = test_env(docs.path(), data.path());
    env.push(("RAGDOWN_MAX_PER_DOCUMENT".into(), "1".into()));
    let mut client = StdioClient::start(&env).await;
    client.ok("ragdown_reindex", json!({})).await;
    let text = client
        .ok(
            "ragdown_recall",
            json!({"query": "restore backups", "top_k": 2, "format": "json"}),
        )
        .await;
    let hits: serde_json::Value = serde_json::from_str(&text).unwrap();
    let got: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["long.md", "short.md"]);
}

/// An incident that links the procedure it was recovered with, in two folders with a procedure
/// of the same name each.
const LINKED: &[(&str, &str)] = &[
    (
        "work/incident.md",
        "# Outage in March\n\nThe outage in March was recovered with [[failover]] by the on-call engineer.",
    ),
    (
        "work/procedures/failover.md",
        "---\ntags: [runbook]\n---\n# Failover\n\n## Steps\n\n1. Run `veltra drain`.\n2. Promote the replica.\n\n## Owners\n\nThe database team.\n\n## History\n\nWritten after the outage.",
    ),
    ("home/failover.md", "# Failover\n\nA house plan for power cuts."),
    ("work/lunch.md", "# Lunch\n\nSoup in March."),
    (
        "work/outages.md",
        "# Outages\n\nAn outage is recovered by the engineer on call.",
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn links_in_the_best_hits_bring_the_linked_documents_closest_sections() {
    let docs = docs(LINKED);
    let data = tempfile::tempdir().unwrap();
    let engine = open(docs.path(), data.path(), Layout::Folders).await;
    let query = "how was the outage in March recovered";
    let following = |n| {
        SearchOptions::new(
            SearchSettings {
                max_per_document: 0,
                follow_links: n,
            },
            Layout::Folders,
        )
    };
    let plain = run(&engine, &request(query, 4), &following(0)).await;
    assert_eq!(
        plain[0].chunk.path,
        "work/incident.md",
        "the premise: {:?}",
        paths(&plain)
    );
    assert!(!paths(&plain[..2]).contains(&"work/procedures/failover.md"));

    let hits = run(&engine, &request(query, 4), &following(1)).await;
    assert_eq!(hits.len(), 4);
    assert_eq!(hits[0], plain[0]);
    // The procedure's two sections closest to the query, in that order, right after the hit,
    // with its score and their own cosine; never the other folder's `failover`.
    let every = run(&engine, &request(query, 20), &options(Fusion::DenseOnly)).await;
    let mut own: Vec<&Hit> = every
        .iter()
        .filter(|h| h.chunk.path == "work/procedures/failover.md")
        .collect();
    own.sort_by(|a, b| b.chunk.similarity.total_cmp(&a.chunk.similarity));
    for (placed, expected) in hits[1..3].iter().zip(&own) {
        assert_eq!(placed.chunk.id, expected.chunk.id);
        assert_eq!(placed.chunk.similarity, expected.chunk.similarity);
        assert_eq!(placed.score, hits[0].score);
        assert_eq!(placed.sources, ["link"]);
    }
    assert_eq!(hits[3], plain[1], "the rest follow, cut to the limit");

    // Linked sections obey the search's filters: a tag the procedure lacks keeps it out.
    let tagged = SearchRequest {
        tag: Some("postmortem".into()),
        ..request(query, 4)
    };
    write(
        docs.path(),
        "work/incident.md",
        "---\ntags: [postmortem]\n---\n# Outage in March\n\nThe outage in March was recovered with [[failover]].",
    );
    engine.indexer.sync(false).await.unwrap();
    let hits = run(&engine, &tagged, &following(1)).await;
    assert_eq!(paths(&hits), ["work/incident.md"]);
    // Only the first `follow_links` hits are followed.
    let query = "an outage is recovered by the engineer on call";
    let plain = run(&engine, &request(query, 4), &following(0)).await;
    assert_eq!(
        paths(&plain[..2]),
        ["work/outages.md", "work/incident.md"],
        "the premise"
    );
    let hits = run(&engine, &request(query, 4), &following(1)).await;
    assert!(hits.iter().all(|h| h.sources != ["link"]), "{:?}", paths(&hits));
    let hits = run(&engine, &request(query, 4), &following(2)).await;
    assert_eq!(
        paths(&hits),
        [
            "work/outages.md",
            "work/incident.md",
            "work/procedures/failover.md",
            "work/procedures/failover.md"
        ]
    );
}

const TABLED: &str = "# Kite\n\n## Configuration\n\n| Setting | Staging | Production |\n|---|---|---|\n| Replicas | 2 | 6 |\n| Memory limit | `1Gi` | 4Gi |\n\n## Production\n\nA production release needs approval.";

#[tokio::test(flavor = "multi_thread")]
async fn a_table_is_embedded_cell_by_cell_and_returned_as_written() {
    let (_docs, engine, _data) = docs_with(&[("kite.md", TABLED)]).await;
    // The hash embedder is a function of the text alone, so a query of exactly the text that was
    // embedded for the section meets its vector at cosine 1.
    let embedded = "Kite › Configuration\n\nStaging Replicas: 2. Production Replicas: 6.\n\
                    Staging Memory limit: 1Gi. Production Memory limit: 4Gi.";
    let hits = run(&engine, &request(embedded, 2), &options(Fusion::DenseOnly)).await;
    assert_eq!(hits[0].chunk.heading, "Kite › Configuration", "{hits:?}");
    assert!(
        hits[0].chunk.similarity > 0.9999,
        "embedded as read out: {}",
        hits[0].chunk.similarity
    );
    let as_written = format!("Kite › Configuration\n\n{}", hits[0].chunk.text);
    let hits = run(&engine, &request(&as_written, 2), &options(Fusion::DenseOnly)).await;
    assert!(
        hits[0].chunk.similarity < 0.99,
        "not as written: {}",
        hits[0].chunk.similarity
    );
    // What is stored and returned is the file's own table.
    assert_eq!(
        hits[0].chunk.text,
        "| Setting | Staging | Production |\n|---|---|---|\n| Replicas | 2 | 6 |\n| Memory limit | `1Gi` | 4Gi |"
    );
}
