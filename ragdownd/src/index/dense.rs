//! The dense pool: the chunks nearest a query vector, ranked by the resident vectors' approximate
//! cosine ([`super::resident`]) with nothing read from the table. The fields of those that become
//! hits, and their exact cosine from the stored f32 vectors, are read afterwards in one lookup in
//! the table's `id` index ([`Store::load`]); [`Store::dense`] does both, oversampled, for callers
//! that want the exact nearest. LanceDB's own flat search ([`Store::dense_scan`]) is kept for a
//! write in flight before any resident copy exists, and as the reference the tests and
//! `search-breakdown` compare against. Past the vector index's threshold the pool comes from
//! LanceDB's vector index instead ([`super::ann`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::TryStreamExt;
use lancedb::DistanceType;
use lancedb::arrow::arrow_array::RecordBatch;
use lancedb::arrow::arrow_array::cast::AsArray;
use lancedb::arrow::arrow_array::types::Float32Type;
use lancedb::query::{ExecutableQuery, QueryBase, Select};

use super::ann_policy::DenseMode;
use super::filter::{Filter, quote};
use super::reads::{HIT_COLUMNS, candidates, column, strings};
use super::resident::{self, Resident};
use super::rows::Candidate;
use super::store::{Result, ShapeError, Store};

/// How many approximate candidates are rescored for each one returned: int8 scores move the
/// order slightly, never by this much (`resident` tests: the exact top 8 within the top 16).
const OVERSAMPLE: usize = 2;

/// Candidates rescored at the least, for small limits (link following asks for 2).
const MIN_RESCORED: usize = 16;

/// The cosine of two vectors; 0 when either is zero.
pub(super) fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let denominator = norm(a) * norm(b);
    if denominator > 0.0 { dot / denominator } else { 0.0 }
}

impl Store {
    /// The `limit` nearest chunks to `query` by cosine, among those `filter` lets through, best
    /// first, every field read and the similarities exact.
    pub async fn dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Candidate>> {
        let mut pool = self
            .dense_pool(query, filter, (limit * OVERSAMPLE).max(MIN_RESCORED))
            .await?;
        self.load(query, pool.iter_mut()).await?;
        pool.retain(|candidate| candidate.loaded);
        pool.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.id.cmp(&b.id)));
        pool.truncate(limit);
        Ok(pool)
    }

    /// The `limit` nearest chunks by the resident vectors' approximate cosine (within 0.002 of the
    /// exact one), with nothing read from the table: only each candidate's id, path and that
    /// similarity. A search ranks on those and reads the rest, the exact similarity included
    /// ([`Store::load`]), for the few candidates that become its hits. Reading the candidates'
    /// stored vectors to rank them exactly took 7-8 ms at 10,500 chunks, more than the rest of the
    /// search together (bench/results/README.md). Before any resident copy exists (a write of
    /// this process in flight), LanceDB's flat search answers, every field read.
    pub async fn dense_pool(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Candidate>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // Read once: each read asks the storage for the latest version.
        let version = self.table.version().await?;
        match self.dense_mode_at(version).await? {
            DenseMode::Resident => {}
            DenseMode::Indexed => return self.dense_indexed(query, filter, limit).await,
            DenseMode::Flat => return self.dense_scan(query, filter, limit).await,
        }
        let Some(resident) = self.resident(version).await? else {
            return self.dense_scan(query, filter, limit).await;
        };
        // The scan is CPU work (4 ms at 105,000 chunks): on a blocking thread, so that the BM25
        // search a query runs beside it goes on meanwhile.
        let (query, filter) = (query.to_vec(), filter.clone());
        let scanned = resident.clone();
        let rows = tokio::task::spawn_blocking(move || scanned.nearest_rows(&query, &filter, limit)).await?;
        Ok(rows
            .into_iter()
            .map(|(row, similarity)| Candidate::unloaded(resident.id(row), resident.path(row), similarity))
            .collect())
    }

    /// Reads every field of the `wanted` candidates not [`Candidate::loaded`] yet, in one query,
    /// and sets their similarity to the exact cosine of their stored vector with `query`. One
    /// whose row is gone (deleted since it was found) stays unloaded.
    pub async fn load<'a>(&self, query: &[f32], wanted: impl IntoIterator<Item = &'a mut Candidate>) -> Result<()> {
        let mut missing: Vec<&'a mut Candidate> = wanted.into_iter().filter(|c| !c.loaded).collect();
        if missing.is_empty() {
            return Ok(());
        }
        // A lookup in the `id` index.
        let list = missing.iter().map(|c| quote(&c.id)).collect::<Vec<_>>().join(", ");
        let mut found: HashMap<String, Candidate> = self
            .scored_rows(query, format!("id IN ({list})"))
            .await?
            .into_iter()
            .map(|candidate| (candidate.id.clone(), candidate))
            .collect();
        for candidate in &mut missing {
            if let Some(full) = found.remove(&candidate.id) {
                **candidate = full;
            }
        }
        Ok(())
    }

    /// Every field of the rows `sql` selects, in no particular order, each with the exact cosine
    /// of its stored vector with `query`.
    pub(super) async fn scored_rows(&self, query: &[f32], sql: String) -> Result<Vec<Candidate>> {
        let mut columns = HIT_COLUMNS.to_vec();
        columns.push("vector");
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if(sql)
            .select(Select::columns(&columns))
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut out = Vec::new();
        for batch in &batches {
            let vectors = column(batch, "vector")?.as_fixed_size_list();
            for (row, candidate) in candidates(batch)?.into_iter().enumerate() {
                let stored = vectors.value(row);
                out.push(Candidate {
                    similarity: cosine(stored.as_primitive::<Float32Type>().values(), query),
                    ..candidate
                });
            }
        }
        Ok(out)
    }

    /// LanceDB's flat search: every vector of the table decoded and scored, for each query.
    pub async fn dense_scan(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Candidate>> {
        let batches = self.nearest(query, filter, limit, HIT_COLUMNS).await?;
        let mut out = Vec::new();
        for batch in &batches {
            let distance = column(batch, "_distance")?.as_primitive::<Float32Type>().clone();
            for (row, candidate) in candidates(batch)?.into_iter().enumerate() {
                out.push(Candidate {
                    similarity: 1.0 - distance.value(row),
                    ..candidate
                });
            }
        }
        Ok(out)
    }

    /// The ids alone of the `limit` nearest chunks by LanceDB's flat search, without reading the
    /// hits' other columns, so `search-breakdown` can tell the scan's cost from the rest.
    pub async fn dense_ids(&self, query: &[f32], limit: usize) -> Result<Vec<String>> {
        let batches = self.nearest(query, &Filter::default(), limit, &["id"]).await?;
        let mut out = Vec::new();
        for batch in &batches {
            let ids = strings(batch, "id")?;
            out.extend((0..batch.num_rows()).map(|row| ids.value(row).to_string()));
        }
        Ok(out)
    }

    /// The `columns` (and `_distance`) of the `limit` nearest rows to `query` by cosine, among rows
    /// `filter` lets through, by LanceDB's flat search.
    async fn nearest(
        &self,
        query: &[f32],
        filter: &Filter,
        limit: usize,
        columns: &[&str],
    ) -> Result<Vec<RecordBatch>> {
        let mut search = self
            .table
            .query()
            .nearest_to(query)?
            .distance_type(DistanceType::Cosine)
            .select(Select::columns(columns))
            .limit(limit);
        if let Some(sql) = filter.to_sql() {
            search = search.only_if(sql);
        }
        Ok(search.execute().await?.try_collect().await?)
    }

    /// The resident vectors of the table's latest version, loaded when missing or stale. While
    /// this process is writing, the copy from before the write (the write brings it up to date as
    /// it lands), or `None` when there is none yet.
    async fn resident(&self, version: u64) -> Result<Option<Arc<Resident>>> {
        let current = self.resident.read().clone();
        if self.writing.load(Ordering::Acquire) > 0 {
            return Ok(current);
        }
        if let Some(resident) = current.filter(|r| r.version == version) {
            return Ok(Some(resident));
        }
        let _one_load = self.resident_load.lock().await;
        let current = self.resident.read().clone();
        if let Some(resident) = current.filter(|r| r.version == version) {
            return Ok(Some(resident));
        }
        let writes = self.writes.load(Ordering::Acquire);
        self.resident_loads.fetch_add(1, Ordering::Relaxed);
        let count = self.table.count_rows(None).await?;
        let mut rows = self
            .table
            .query()
            .select(Select::columns(resident::COLUMNS))
            .execute()
            .await?;
        let mut loaded = Resident::empty(version, self.dim);
        loaded.reserve(count);
        while let Some(batch) = rows.try_next().await? {
            loaded.push_batch(&batch).map_err(ShapeError::from)?;
        }
        let loaded = Arc::new(loaded);
        // Kept only when no write of ours began meanwhile: the rows read might then be newer than
        // `version`, and the write would apply its change to them a second time.
        if self.writing.load(Ordering::Acquire) == 0 && self.writes.load(Ordering::Acquire) == writes {
            *self.resident.write() = Some(loaded.clone());
        }
        Ok(Some(loaded))
    }

    /// How many times the resident vectors were read from the table, rather than brought over a
    /// write of this process: once at the first query, and after another process's writes.
    pub fn resident_loads(&self) -> u64 {
        self.resident_loads.load(Ordering::Relaxed)
    }

    /// After a write of ours took the table from version `before` to `after`: `change` applied to
    /// the resident copy when it was `before`, else the copy dropped (the next query reloads).
    pub(super) fn resident_wrote(&self, before: u64, after: u64, change: impl FnOnce(&mut Resident)) {
        let mut slot = self.resident.write();
        match slot.as_mut() {
            Some(resident) if resident.version == before => {
                let resident = Arc::make_mut(resident);
                change(resident);
                resident.version = after;
            }
            _ => *slot = None,
        }
    }
}
