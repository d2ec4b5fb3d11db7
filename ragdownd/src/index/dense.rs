//! The dense pool: the chunks nearest a query vector. Candidates come from the resident vectors
//! ([`super::resident`]), oversampled; their stored f32 vectors are then read from the table (a
//! lookup in its `id` index) and they are ranked by exact cosine. The rest of a candidate's fields
//! are read only for those that become hits ([`Store::load`]). LanceDB's own flat search
//! ([`Store::dense_scan`]) is kept
//! for a write in flight before any resident copy exists, and as the reference the tests and
//! `search-breakdown` compare against.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::TryStreamExt;
use lancedb::DistanceType;
use lancedb::arrow::arrow_array::RecordBatch;
use lancedb::arrow::arrow_array::cast::AsArray;
use lancedb::arrow::arrow_array::types::Float32Type;
use lancedb::query::{ExecutableQuery, QueryBase, Select};

use super::filter::{Filter, quote};
use super::resident::{self, Resident};
use super::store::{Candidate, HIT_COLUMNS, Result, Store, StoreError, candidates, column, strings};

/// How many approximate candidates are rescored for each one returned: int8 scores move the
/// order slightly, never by this much (`resident` tests: the exact top 8 within the top 16).
const OVERSAMPLE: usize = 2;

/// Candidates rescored at the least, for small limits (link following asks for 2).
const MIN_RESCORED: usize = 16;

impl Store {
    /// The `limit` nearest chunks to `query` by cosine, among those `filter` lets through, best
    /// first, every field read.
    pub async fn dense(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Candidate>> {
        let mut pool = self.dense_pool(query, filter, limit).await?;
        self.load(pool.iter_mut()).await?;
        pool.retain(|candidate| candidate.loaded);
        Ok(pool)
    }

    /// [`Store::dense`] with only each candidate's id, path and exact similarity read: a search
    /// ranks on those, and reads the rest ([`Store::load`]) for the few candidates that become its
    /// hits. Reading every column of 64 candidates took 8.4 ms at 10,500 chunks, most of the
    /// dense pool's time; their vectors alone, a third of that (bench/results/README.md).
    pub async fn dense_pool(&self, query: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Candidate>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let Some(resident) = self.resident().await? else {
            return self.dense_scan(query, filter, limit).await;
        };
        let rows = resident.nearest_rows(query, filter, (limit * OVERSAMPLE).max(MIN_RESCORED));
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = rows.iter().map(|&row| resident.id(row)).collect();
        let batches = self.rows_by_id(&ids, &["id", "vector"]).await?;
        let mut vectors: HashMap<&str, &[f32]> = HashMap::with_capacity(rows.len());
        for batch in &batches {
            let found = strings(batch, "id")?;
            let column = column(batch, "vector")?.as_fixed_size_list();
            let values = column.values().as_primitive::<Float32Type>().values();
            let dim = column.value_length() as usize;
            for row in 0..batch.num_rows() {
                let at = column.value_offset(row) as usize;
                vectors.insert(found.value(row), &values[at..at + dim]);
            }
        }
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let query_norm = norm(query);
        // A row the resident copy has and the table no longer does (a write of another process
        // landed since the copy was checked) is left out.
        let mut out: Vec<Candidate> = rows
            .iter()
            .filter_map(|&row| {
                let stored = vectors.get(resident.id(row))?;
                let dot: f32 = stored.iter().zip(query).map(|(a, b)| a * b).sum();
                let denominator = norm(stored) * query_norm;
                let similarity = if denominator > 0.0 { dot / denominator } else { 0.0 };
                Some(Candidate::unloaded(resident.id(row), resident.path(row), similarity))
            })
            .collect();
        out.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then_with(|| a.id.cmp(&b.id)));
        out.truncate(limit);
        Ok(out)
    }

    /// Reads every field of the `candidates` not [`Candidate::loaded`] yet, in one query, keeping
    /// their similarity. One whose row is gone (deleted since it was found) stays unloaded.
    pub async fn load<'a>(&self, wanted: impl IntoIterator<Item = &'a mut Candidate>) -> Result<()> {
        let mut missing: Vec<&'a mut Candidate> = wanted.into_iter().filter(|c| !c.loaded).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = missing.iter().map(|c| c.id.as_str()).collect();
        let batches = self.rows_by_id(&ids, HIT_COLUMNS).await?;
        let mut found: HashMap<String, Candidate> = HashMap::new();
        for batch in &batches {
            for candidate in candidates(batch)? {
                found.insert(candidate.id.clone(), candidate);
            }
        }
        for candidate in &mut missing {
            if let Some(full) = found.remove(&candidate.id) {
                **candidate = Candidate {
                    similarity: candidate.similarity,
                    ..full
                };
            }
        }
        Ok(())
    }

    /// The `columns` of the rows whose id is one of `ids` (a lookup in the `id` index), in no
    /// particular order.
    async fn rows_by_id(&self, ids: &[&str], columns: &[&str]) -> Result<Vec<RecordBatch>> {
        let list = ids.iter().map(|id| quote(id)).collect::<Vec<_>>().join(", ");
        Ok(self
            .table
            .query()
            .only_if(format!("id IN ({list})"))
            .select(Select::columns(columns))
            .execute()
            .await?
            .try_collect()
            .await?)
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
    async fn resident(&self) -> Result<Option<Arc<Resident>>> {
        let current = self.resident.read().unwrap_or_else(|p| p.into_inner()).clone();
        if self.writing.load(Ordering::Acquire) > 0 {
            return Ok(current);
        }
        let version = self.table.version().await?;
        if let Some(resident) = current.filter(|r| r.version == version) {
            return Ok(Some(resident));
        }
        let _one_load = self.resident_load.lock().await;
        let current = self.resident.read().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(resident) = current.filter(|r| r.version == version) {
            return Ok(Some(resident));
        }
        let writes = self.writes.load(Ordering::Acquire);
        self.resident_loads.fetch_add(1, Ordering::Relaxed);
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .select(Select::columns(resident::COLUMNS))
            .execute()
            .await?
            .try_collect()
            .await?;
        let loaded = Arc::new(Resident::from_batches(version, self.dim, &batches).map_err(StoreError::new)?);
        // Kept only when no write of ours began meanwhile: the rows read might then be newer than
        // `version`, and the write would apply its change to them a second time.
        if self.writing.load(Ordering::Acquire) == 0 && self.writes.load(Ordering::Acquire) == writes {
            *self.resident.write().unwrap_or_else(|p| p.into_inner()) = Some(loaded.clone());
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
        let mut slot = self.resident.write().unwrap_or_else(|p| p.into_inner());
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
