//! The vector index for big tables: where the dense pool comes from past [`VectorIndex::min_rows`]
//! chunks, and its upkeep.
//!
//! Below the threshold nothing changes: the dense pool scans the resident int8 vectors
//! ([`super::resident`]), exactly. From it on, LanceDB's own vector index over the `vector`
//! column answers (IVF partitions searched `nprobes` at a time, the candidates' distances then
//! recomputed from the stored vectors by its refine step), and the resident copy is dropped, so
//! memory no longer grows by 400 bytes a chunk. Rows written since the index was last refreshed
//! are not in it; LanceDB scans those exactly beside it, so an edit is found at once.
//!
//! The index is built and refreshed by [`Store::upkeep_vector_index`], which the indexer starts
//! on a task of its own after a sync or a fold and never waits for: a search or a write goes on
//! meanwhile (until the first build commits, a search reads the resident vectors, or past twice
//! the threshold LanceDB's flat search, so memory stays bounded). Its name carries the embedder's
//! fingerprint and the index kind ([`VectorIndex::name`]): an index built for one embedder is
//! never searched with another's vectors; upkeep drops it and builds the right one.
//!
//! A search narrowed to one document (link following) reads that document's rows and ranks them
//! exactly, so the index never loses one of its few sections.

use std::sync::Arc;
use std::time::Instant;

use futures::TryStreamExt;
use lancedb::DistanceType;
use lancedb::arrow::arrow_array::cast::AsArray;
use lancedb::arrow::arrow_array::types::Float32Type;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::table::{OptimizeAction, OptimizeOptions};

pub use super::ann_policy::{AnnParams, DEFAULT_MIN_ROWS, DenseMode, IndexKind, VectorIndex};
use super::filter::Filter;
use super::reads::{column, strings};
use super::rows::Candidate;
use super::store::{Result, Store};

/// Rows written since the last refresh that make the next upkeep fold them into the index. Until
/// then LanceDB scans them exactly beside the index.
const REFRESH_ROWS: usize = 2_000;

/// The index is trained again from scratch once the table has grown this many times over the rows
/// it was trained on (its partitions were chosen for far fewer).
const RETRAIN_GROWTH: usize = 4;

/// What one [`Store::upkeep_vector_index`] did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "did")]
pub enum Upkeep {
    /// Nothing was due, or another upkeep is running.
    Nothing,
    /// The index was built (or trained again) over `rows` rows.
    Built { rows: usize, ms: u64 },
    /// `rows` new rows were folded into it.
    Refreshed { rows: usize, ms: u64 },
    /// The table shrank below half the threshold, or the index was another embedder's.
    Dropped { name: String },
}

impl Store {
    /// Where the dense pool of the table's latest version comes from ([`DenseMode`]); decided
    /// once per version. Past the threshold the resident vectors are dropped.
    pub async fn dense_mode(&self) -> Result<DenseMode> {
        self.dense_mode_at(self.table.version().await?).await
    }

    /// [`Store::dense_mode`] of table version `version`, the latest one read.
    pub(super) async fn dense_mode_at(&self, version: u64) -> Result<DenseMode> {
        if let Some((known, mode)) = *self.ann_mode.lock()
            && known == version
        {
            return Ok(mode);
        }
        let rows = self.table.count_rows(None).await?;
        let min_rows = self.vector_index.min_rows;
        let mode = if rows < min_rows {
            DenseMode::Resident
        } else if self.has_vector_index().await? {
            DenseMode::Indexed
        } else if rows < min_rows.saturating_mul(2) {
            DenseMode::Resident
        } else {
            DenseMode::Flat
        };
        if mode != DenseMode::Resident {
            *self.resident.write() = None;
        }
        *self.ann_mode.lock() = Some((version, mode));
        Ok(mode)
    }

    /// The names of every vector index on the table (this store's and any other).
    pub async fn vector_indices(&self) -> Result<Vec<String>> {
        self.index_names(true).await
    }

    /// The names of the table's indices over the vectors (`true`) or over the other columns.
    async fn index_names(&self, on_vectors: bool) -> Result<Vec<String>> {
        Ok(self
            .table
            .list_indices()
            .await?
            .into_iter()
            .filter(|index| covers_vectors(index) == on_vectors)
            .map(|index| index.name)
            .collect())
    }

    /// The rows this store's vector index covers and those written since its last refresh, or
    /// `None` without one.
    pub async fn vector_index_coverage(&self) -> Result<Option<(usize, usize)>> {
        if !self.has_vector_index().await? {
            return Ok(None);
        }
        let stats = self.table.index_stats(&self.vector_index.name()).await?;
        Ok(stats.map(|stats| (stats.num_indexed_rows, stats.num_unindexed_rows)))
    }

    /// Whether this store's vector index ([`VectorIndex::name`]) exists on the table.
    pub async fn has_vector_index(&self) -> Result<bool> {
        let name = self.vector_index.name();
        Ok(self.table.list_indices().await?.iter().any(|index| index.name == name))
    }

    /// The `limit` nearest chunks by LanceDB's vector index, among the rows `filter` lets through
    /// (LanceDB filters first and searches more partitions when too few rows pass), with their
    /// similarity exact (its refine step) and only their id and path read, as the resident pool
    /// gives them: a search reads the other fields for the few that become hits
    /// ([`Store::load`]).
    pub(super) async fn dense_indexed(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Candidate>> {
        if filter.path.is_some() {
            return self.dense_exact_where(query, filter, limit).await;
        }
        let params = &self.vector_index.params;
        let mut search = self
            .table
            .query()
            .nearest_to(query)?
            .distance_type(DistanceType::Cosine)
            .minimum_nprobes(params.nprobes)?
            .select(Select::columns(&["id", "path"]))
            .limit(limit);
        if let Some(refine) = params.refine_factor {
            search = search.refine_factor(refine);
        }
        if let Some(sql) = filter.to_sql() {
            search = search.only_if(sql);
        }
        let batches: Vec<_> = search.execute().await?.try_collect().await?;
        let mut out = Vec::new();
        for batch in &batches {
            let distance = column(batch, "_distance")?.as_primitive::<Float32Type>().clone();
            let (ids, paths) = (strings(batch, "id")?, strings(batch, "path")?);
            for row in 0..batch.num_rows() {
                let similarity = 1.0 - distance.value(row);
                out.push(Candidate::unloaded(ids.value(row), paths.value(row), similarity));
            }
        }
        Ok(out)
    }

    /// The `limit` nearest among the few rows `filter` selects (one document's), read with their
    /// vectors and ranked by exact cosine.
    async fn dense_exact_where(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Candidate>> {
        let sql = filter.to_sql().unwrap_or_else(|| "true".into());
        let mut out = self.scored_rows(query, sql).await?;
        out.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.id.cmp(&b.id)));
        out.truncate(limit);
        Ok(out)
    }

    /// Builds, refreshes or drops the vector index as the table's size asks ([`Upkeep`]). Runs
    /// beside searches and writes; the table's compaction waits for no build but is skipped while
    /// one runs. One at a time: a call while another runs does nothing.
    pub async fn upkeep_vector_index(&self) -> Result<Upkeep> {
        let Ok(_building) = self.ann_building.try_lock() else {
            return Ok(Upkeep::Nothing);
        };
        let policy = &self.vector_index;
        let name = policy.name();
        let rows = self.table.count_rows(None).await?;
        let indices = self.table.list_indices().await?;
        if let Some(other) = indices.iter().find(|index| covers_vectors(index) && index.name != name) {
            tracing::info!(index = %other.name, "dropping a vector index built for another embedder or kind");
            self.table.drop_index(&other.name).await?;
            return Ok(Upkeep::Dropped {
                name: other.name.clone(),
            });
        }
        let ours = indices.iter().any(|index| index.name == name);
        if rows < policy.min_rows {
            if ours && rows < policy.min_rows / 2 {
                self.table.drop_index(&name).await?;
                return Ok(Upkeep::Dropped { name });
            }
            return Ok(Upkeep::Nothing);
        }
        let stats = match ours {
            true => self.table.index_stats(&name).await?,
            false => None,
        };
        let started = Instant::now();
        match stats {
            Some(stats) if stats.num_indexed_rows.saturating_mul(RETRAIN_GROWTH) >= rows => {
                if stats.num_unindexed_rows < REFRESH_ROWS {
                    return Ok(Upkeep::Nothing);
                }
                self.table
                    .optimize(OptimizeAction::Index(OptimizeOptions::new().index_names(vec![name])))
                    .await?;
                let ms = started.elapsed().as_millis() as u64;
                tracing::info!(
                    rows = stats.num_unindexed_rows,
                    ms,
                    "new rows folded into the vector index"
                );
                Ok(Upkeep::Refreshed {
                    rows: stats.num_unindexed_rows,
                    ms,
                })
            }
            _ => self.build_vector_index(rows).await,
        }
    }

    /// Trains this store's vector index over the table's `rows` rows and replaces the one there is
    /// (at its commit: searches use the old one until then). What upkeep does when one is due; the
    /// benchmarks call it to compare parameters.
    pub async fn build_vector_index(&self, rows: usize) -> Result<Upkeep> {
        let name = self.vector_index.name();
        let started = Instant::now();
        tracing::info!(rows, index = %name, "building the vector index");
        self.table
            .create_index(&["vector"], self.vector_index.params.index(rows, self.dim))
            .name(name)
            .replace(true)
            .execute()
            .await?;
        let ms = started.elapsed().as_millis() as u64;
        tracing::info!(rows, ms, "vector index built");
        Ok(Upkeep::Built { rows, ms })
    }

    /// The names of the indices other than the vector index: what a fold refreshes (the vector
    /// index is refreshed by [`Store::upkeep_vector_index`], off the sync's path).
    pub(super) async fn scalar_index_names(&self) -> Result<Vec<String>> {
        self.index_names(false).await
    }

    /// Drops this store's vector index if there is one (every row is about to be replaced).
    pub async fn drop_vector_index(&self) -> Result<()> {
        if self.has_vector_index().await? {
            self.table.drop_index(&self.vector_index.name()).await?;
        }
        Ok(())
    }
}

/// Whether `index` is over the `vector` column.
fn covers_vectors(index: &lancedb::index::IndexConfig) -> bool {
    index.columns.iter().any(|c| c == "vector")
}

/// Starts [`Store::upkeep_vector_index`] on a task of its own; a failure is logged and tried
/// again at the next call.
pub fn spawn_upkeep(store: Arc<Store>) {
    tokio::spawn(async move {
        match store.upkeep_vector_index().await {
            Ok(Upkeep::Nothing) => {}
            Ok(done) => tracing::debug!(?done, "vector index upkeep"),
            Err(err) => tracing::warn!("vector index upkeep failed (tried again after the next sync): {err}"),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::rows::ChunkRow;

    const DIM: usize = 16;

    /// A unit vector from `seed`: 40 clusters of near neighbours, so an index has structure to find.
    fn vector(seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f32 / (1u64 << 53) as f32 - 0.5
        };
        let centre = (seed % 40) as usize;
        let mut v: Vec<f32> = (0..DIM)
            .map(|d| if d == centre % DIM { 2.0 + (centre / DIM) as f32 } else { 0.0 } + next())
            .collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
        v
    }

    /// Chunk `i` of document `doc`: in folder `f<doc % 3>/`, tagged `t<doc % 4>`, every fifth
    /// document written by an agent.
    fn row(doc: usize, i: usize) -> ChunkRow {
        let path = format!("f{}/d{doc}.md", doc % 3);
        ChunkRow {
            id: format!("{path}#{i}"),
            path,
            file_hash: "h".into(),
            mtime_ms: 1.0,
            size: 1.0,
            chunk_index: i as i32,
            title: format!("D{doc}"),
            heading: String::new(),
            text: format!("chunk {i} of {doc}"),
            search_text: format!("chunk {i} of {doc}"),
            supersedes: String::new(),
            tags: format!(" t{} ", doc % 4),
            aliases: String::new(),
            description: String::new(),
            created_by: if doc.is_multiple_of(5) {
                "agent".into()
            } else {
                String::new()
            },
            session: String::new(),
            line_start: 1,
            line_end: 1,
            vector: vector((doc * 10 + i) as u64),
        }
    }

    /// `docs` documents of 10 chunks each, written in one apply.
    async fn filled(dir: &std::path::Path, docs: usize, policy: VectorIndex) -> Store {
        let store = Store::open(dir, DIM, false).await.unwrap().with_vector_index(policy);
        let rows: Vec<ChunkRow> = (0..docs).flat_map(|d| (0..10).map(move |i| row(d, i))).collect();
        store.apply(&[], rows).await.unwrap();
        store
    }

    fn policy(min_rows: usize, embedder: &str, kind: IndexKind) -> VectorIndex {
        VectorIndex {
            min_rows,
            embedder: embedder.into(),
            params: AnnParams {
                kind,
                rows_per_partition: 500,
                ..AnnParams::default()
            },
        }
    }

    fn ids(found: Vec<Candidate>) -> Vec<String> {
        found.into_iter().map(|c| c.id).collect()
    }

    #[tokio::test]
    async fn below_the_threshold_nothing_is_built_and_the_resident_vectors_answer() {
        let dir = tempfile::tempdir().unwrap();
        let store = filled(dir.path(), 30, policy(1_000, "e", IndexKind::IvfPq)).await;
        assert_eq!(store.upkeep_vector_index().await.unwrap(), Upkeep::Nothing);
        assert!(!store.has_vector_index().await.unwrap());
        assert_eq!(store.dense_mode().await.unwrap(), DenseMode::Resident);
        store.dense_pool(&vector(3), &Filter::default(), 5).await.unwrap();
        assert_eq!(store.resident_loads(), 1, "the resident vectors were read");
    }

    #[tokio::test]
    async fn past_the_threshold_the_index_is_built_and_finds_what_the_exact_scan_finds() {
        let dir = tempfile::tempdir().unwrap();
        let store = filled(dir.path(), 300, policy(2_000, "e", IndexKind::IvfPq)).await;
        let exact: Vec<Vec<String>> = {
            let mut out = Vec::new();
            for q in 0..20u64 {
                out.push(ids(store.dense(&vector(q * 37), &Filter::default(), 10).await.unwrap()));
            }
            out
        };
        assert_eq!(store.dense_mode().await.unwrap(), DenseMode::Resident, "no index yet");
        assert!(matches!(
            store.upkeep_vector_index().await.unwrap(),
            Upkeep::Built { rows: 3_000, .. }
        ));
        assert_eq!(store.dense_mode().await.unwrap(), DenseMode::Indexed);
        assert!(store.resident.read().is_none(), "the resident copy is given back");
        let (mut found, mut total) = (0, 0);
        for (q, exact) in (0..20u64).zip(&exact) {
            let got = store.dense(&vector(q * 37), &Filter::default(), 10).await.unwrap();
            let first = got.first().unwrap();
            assert_eq!(first.id, exact[0], "the nearest is always found");
            assert!((first.similarity - 1.0).abs() < 1e-4, "similarities are exact");
            found += exact.iter().filter(|id| got.iter().any(|c| &c.id == *id)).count();
            total += exact.len();
        }
        assert!(found * 100 >= total * 90, "{found} of {total} of the exact top 10");
        assert_eq!(
            store.resident_loads(),
            1,
            "the index answered, not the resident vectors"
        );
    }

    #[tokio::test]
    async fn an_edit_after_the_build_is_found_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = filled(dir.path(), 300, policy(2_000, "e", IndexKind::IvfPq)).await;
        store.upkeep_vector_index().await.unwrap();
        let mut edit = row(7, 0);
        edit.id = "f1/new.md#0".into();
        edit.path = "f1/new.md".into();
        edit.vector = vec![0.0; DIM];
        edit.vector[5] = -1.0; // far from every cluster
        let query = edit.vector.clone();
        store.apply(&[], vec![edit]).await.unwrap();
        assert_eq!(store.dense_mode().await.unwrap(), DenseMode::Indexed);
        let got = store.dense_pool(&query, &Filter::default(), 3).await.unwrap();
        assert_eq!(got[0].id, "f1/new.md#0", "an unindexed row is scanned beside the index");
        let stats = store
            .table
            .index_stats(&store.vector_index.name())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stats.num_unindexed_rows, 1);
        assert_eq!(
            store.upkeep_vector_index().await.unwrap(),
            Upkeep::Nothing,
            "one row is no refresh"
        );
    }

    #[tokio::test]
    async fn filters_give_the_same_hits_with_and_without_the_index() {
        let dir = tempfile::tempdir().unwrap();
        // IVF_FLAT with every partition probed is exact, so any difference is the filter's.
        let store = filled(dir.path(), 300, policy(2_000, "e", IndexKind::IvfFlat)).await;
        let filters = [
            Filter::default(),
            Filter {
                path_prefix: "f1/".into(),
                ..Filter::default()
            },
            Filter {
                tag: Some("t2".into()),
                ..Filter::default()
            },
            Filter {
                by_agent: Some(true),
                ..Filter::default()
            },
            Filter {
                within: Some(vec!["f0/".into(), "f2/d5".into()]),
                exclude: vec!["f0/d0.md".into(), "f0/d3.md".into()],
                ..Filter::default()
            },
            Filter::default().and_path("f2/d5.md"),
            Filter {
                path_prefix: "f1/d7".into(), // three documents of 300
                by_agent: Some(false),
                ..Filter::default()
            },
        ];
        let queries = [vector(5), vector(71), vector(1_234)];
        let mut exact = Vec::new();
        for filter in &filters {
            for query in &queries {
                exact.push(ids(store.dense(query, filter, 12).await.unwrap()));
            }
        }
        store.upkeep_vector_index().await.unwrap();
        assert_eq!(store.dense_mode().await.unwrap(), DenseMode::Indexed);
        let mut at = 0;
        for filter in &filters {
            for query in &queries {
                let got = ids(store.dense(query, filter, 12).await.unwrap());
                assert_eq!(got, exact[at], "{filter:?}");
                assert!(!got.is_empty(), "{filter:?} finds something");
                at += 1;
            }
        }
    }

    #[tokio::test]
    async fn an_index_built_for_another_embedder_is_never_searched() {
        let dir = tempfile::tempdir().unwrap();
        let first = filled(dir.path(), 300, policy(2_000, "embedder-a", IndexKind::IvfPq)).await;
        first.upkeep_vector_index().await.unwrap();
        assert!(first.has_vector_index().await.unwrap());
        let a_name = first.vector_index.name();
        drop(first);
        let second = Store::open(dir.path(), DIM, false)
            .await
            .unwrap()
            .with_vector_index(policy(2_000, "embedder-b", IndexKind::IvfPq));
        assert_ne!(second.vector_index.name(), a_name);
        assert!(!second.has_vector_index().await.unwrap());
        assert_ne!(second.dense_mode().await.unwrap(), DenseMode::Indexed);
        assert_eq!(
            second.upkeep_vector_index().await.unwrap(),
            Upkeep::Dropped { name: a_name }
        );
        assert!(matches!(
            second.upkeep_vector_index().await.unwrap(),
            Upkeep::Built { .. }
        ));
        assert_eq!(second.dense_mode().await.unwrap(), DenseMode::Indexed);
    }

    #[tokio::test]
    async fn the_index_goes_when_the_table_shrinks_or_is_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let store = filled(dir.path(), 300, policy(2_000, "e", IndexKind::IvfPq)).await;
        store.upkeep_vector_index().await.unwrap();
        let paths: Vec<String> = (0..250).map(|d| format!("f{}/d{d}.md", d % 3)).collect();
        store.apply(&paths, Vec::new()).await.unwrap();
        assert_eq!(
            store.dense_mode().await.unwrap(),
            DenseMode::Resident,
            "500 rows of 2,000"
        );
        assert!(matches!(
            store.upkeep_vector_index().await.unwrap(),
            Upkeep::Dropped { .. }
        ));
        assert!(!store.has_vector_index().await.unwrap());

        let other = tempfile::tempdir().unwrap();
        let store = filled(other.path(), 300, policy(2_000, "e", IndexKind::IvfPq)).await;
        store.upkeep_vector_index().await.unwrap();
        store.clear().await.unwrap();
        assert!(
            !store.has_vector_index().await.unwrap(),
            "a full rebuild trains a new index"
        );
    }

    #[test]
    fn the_name_follows_the_embedder_and_the_kind() {
        let a = policy(1, "minilm-fp32:abc", IndexKind::IvfPq);
        assert_eq!(a.name(), policy(9, "minilm-fp32:abc", IndexKind::IvfPq).name());
        assert_ne!(a.name(), policy(1, "minilm:abc", IndexKind::IvfPq).name());
        assert_ne!(a.name(), policy(1, "minilm-fp32:abc", IndexKind::IvfFlat).name());
        assert!(a.name().starts_with("vector_ivfpq_"));
    }
}
