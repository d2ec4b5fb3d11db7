//! The dense pool over resident vectors against LanceDB's own flat search, on a real table: the
//! same chunks in the same order with the same similarities, under every kind of filter, after
//! this store's writes (brought over in memory) and after another store's (reloaded).

use ragdownd::index::filter::Filter;
use ragdownd::index::rows::{Candidate, ChunkRow};
use ragdownd::index::store::Store;

const DIM: usize = 32;

/// A deterministic pseudo-random unit vector.
fn unit(seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let v: Vec<f32> = (0..DIM)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 10_000) as f32 / 10_000.0 - 0.5
        })
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / norm).collect()
}

/// `chunks` chunks of document `doc`, under `ops/` or `notes/`, tagged and authored by its number.
fn document(doc: usize, chunks: usize, seed: u64) -> (String, Vec<ChunkRow>) {
    let path = format!("{}/d{doc}.md", if doc.is_multiple_of(3) { "ops" } else { "notes" });
    let rows = (0..chunks)
        .map(|i| ChunkRow {
            id: format!("{path}#{i}@{seed}"),
            path: path.clone(),
            chunk_index: i as i32,
            text: format!("chunk {i} of {path}"),
            tags: if doc.is_multiple_of(4) {
                " db/pg ".into()
            } else {
                " misc ".into()
            },
            created_by: if doc.is_multiple_of(5) {
                "claude".into()
            } else {
                String::new()
            },
            line_start: 1,
            line_end: 1,
            vector: unit(seed * 1_000 + (doc * 10 + i) as u64),
            ..ChunkRow::default()
        })
        .collect();
    (path, rows)
}

fn filters() -> Vec<Filter> {
    vec![
        Filter::default(),
        Filter {
            path_prefix: "ops/".into(),
            ..Filter::default()
        },
        Filter {
            tag: Some("db".into()),
            ..Filter::default()
        },
        Filter {
            by_agent: Some(true),
            ..Filter::default()
        },
        Filter {
            by_agent: Some(false),
            exclude: vec!["notes/d1.md".into(), "notes/d2.md".into()],
            within: Some(vec!["notes/".into()]),
            ..Filter::default()
        },
        Filter::default().and_path("ops/d3.md"),
    ]
}

/// Every filter and query: the resident pool's ids and similarities are the flat search's.
async fn assert_same_as_flat_search(store: &Store, round: u64) {
    for filter in filters() {
        for q in 0..8 {
            let query = unit(900_000 + round * 100 + q);
            let resident = store.dense(&query, &filter, 8).await.unwrap();
            let flat = store.dense_scan(&query, &filter, 8).await.unwrap();
            let ids = |c: &[Candidate]| c.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&resident), ids(&flat), "round {round}, query {q}, {filter:?}");
            for (a, b) in resident.iter().zip(&flat) {
                assert!(
                    (a.similarity - b.similarity).abs() < 1e-5,
                    "{} {} against {}",
                    a.id,
                    a.similarity,
                    b.similarity
                );
                // Every other field read back whole.
                assert_eq!(
                    &Candidate {
                        similarity: b.similarity,
                        ..a.clone()
                    },
                    b
                );
            }
            // The pool a search ranks on: nothing but ids, paths and approximate cosines, until
            // `load` reads the rest with the exact cosine.
            let mut pool = store.dense_pool(&query, &filter, 16).await.unwrap();
            assert!(pool.iter().all(|c| !c.loaded && c.text.is_empty()));
            for candidate in &resident {
                let found = pool
                    .iter()
                    .find(|c| c.id == candidate.id)
                    .expect("the exact top 8 in the pool of 16");
                assert!((found.similarity - candidate.similarity).abs() < 0.01, "{found:?}");
            }
            store.load(&query, pool.iter_mut()).await.unwrap();
            for candidate in &resident {
                assert_eq!(pool.iter().find(|c| c.id == candidate.id), Some(candidate));
            }
        }
    }
}

#[tokio::test]
async fn a_candidate_deleted_before_it_is_read_stays_unloaded() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), DIM, false).await.unwrap();
    let (a, rows_a) = document(1, 2, 1);
    let (b, rows_b) = document(2, 2, 1);
    store.apply(&[a.clone(), b], [rows_a, rows_b].concat()).await.unwrap();
    let mut pool = store.dense_pool(&unit(5), &Filter::default(), 4).await.unwrap();
    assert_eq!(pool.len(), 4);
    store.apply(std::slice::from_ref(&a), Vec::new()).await.unwrap();
    store.load(&unit(5), pool.iter_mut()).await.unwrap();
    for candidate in &pool {
        assert_eq!(candidate.loaded, candidate.path != a, "{candidate:?}");
    }
    // What dense itself returns never holds an unread candidate.
    let dense = store.dense(&unit(5), &Filter::default(), 4).await.unwrap();
    assert_eq!(dense.len(), 2);
    assert!(dense.iter().all(|c| c.loaded && c.path != a));
}

#[tokio::test]
async fn the_resident_pool_is_lancedbs_flat_search_through_writes_of_its_own_and_of_others() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), DIM, false).await.unwrap();
    let (mut paths, mut rows) = (Vec::new(), Vec::new());
    for doc in 0..60 {
        let (path, chunks) = document(doc, 1 + doc % 5, 1);
        paths.push(path);
        rows.extend(chunks);
    }
    store.apply(&paths, rows).await.unwrap();
    assert_same_as_flat_search(&store, 0).await;
    assert_eq!(store.resident_loads(), 1, "loaded once, at the first query");

    // This store's own writes are brought over in memory: changed, removed and new documents.
    let (changed, chunks) = document(3, 4, 2);
    store.apply(&[changed], chunks).await.unwrap();
    store.apply(&["notes/d7.md".into()], Vec::new()).await.unwrap();
    let (added, chunks) = document(61, 3, 2);
    store.apply(&[added], chunks).await.unwrap();
    store.optimize().await.unwrap();
    assert_same_as_flat_search(&store, 1).await;
    assert_eq!(store.resident_loads(), 1, "its own writes and optimize reload nothing");

    // Another store on the same table (another process) writes: this one reloads.
    let other = Store::open(dir.path(), DIM, false).await.unwrap();
    let (changed, chunks) = document(12, 2, 3);
    other.apply(&[changed], chunks).await.unwrap();
    assert_same_as_flat_search(&store, 2).await;
    assert_eq!(store.resident_loads(), 2);

    store.clear().await.unwrap();
    assert!(store.dense(&unit(1), &Filter::default(), 8).await.unwrap().is_empty());
}
