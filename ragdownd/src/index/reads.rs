//! Reading the chunk table: the files the sync compares against, the documents and their front
//! matter the tools list, superseded paths and aliases (cached until the next write), and the BM25
//! pool. The dense pool reads it in [`super::dense`].

use std::collections::HashMap;
use std::sync::Arc;

use futures::TryStreamExt;
use lancedb::arrow::arrow_array::cast::AsArray;
use lancedb::arrow::arrow_array::types::{Float32Type, Float64Type, Int32Type};
use lancedb::arrow::arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use lancedb::index::scalar::FullTextSearchQuery;
use lancedb::query::{ExecutableQuery, QueryBase, Select};

use super::filter::{Filter, quote};
use super::rows::{Candidate, DocumentInfo, DocumentNames, FileState, Lexical, Superseded, count_chunk};
use super::store::{Result, ShapeError, Store};

pub(super) const HIT_COLUMNS: &[&str] = &[
    "id",
    "path",
    "title",
    "heading",
    "text",
    "tags",
    "created_by",
    "mtime_ms",
    "line_start",
    "line_end",
];

impl Store {
    /// Every indexed file with its hash, mtime, size and chunk count: read from the table once
    /// per version it did not write, and brought over this process's own writes, so a sync that
    /// finds nothing changed reads nothing from the table (it read 1M rows' four columns each time
    /// before).
    pub async fn files(&self) -> Result<Arc<HashMap<String, FileState>>> {
        let version = self.table.version().await?;
        if let Some((known, files)) = &*self.files_cache.lock()
            && *known == version
        {
            return Ok(files.clone());
        }
        let writes = self.writes.load(std::sync::atomic::Ordering::Acquire);
        let files = Arc::new(self.read_files().await?);
        // Kept only when no write of ours began meanwhile (its rows may be in what was read).
        if self.writing.load(std::sync::atomic::Ordering::Acquire) == 0
            && self.writes.load(std::sync::atomic::Ordering::Acquire) == writes
        {
            *self.files_cache.lock() = Some((version, files.clone()));
        }
        Ok(files)
    }

    /// How many times [`Store::files`] read the table rather than answering from what it holds.
    pub fn files_loads(&self) -> u64 {
        self.files_loads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// [`Store::files`] read from the table.
    async fn read_files(&self) -> Result<HashMap<String, FileState>> {
        self.files_loads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .select(Select::columns(&["path", "file_hash", "mtime_ms", "size"]))
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut files: HashMap<String, FileState> = HashMap::new();
        for batch in &batches {
            let path = strings(batch, "path")?;
            let hash = strings(batch, "file_hash")?;
            let mtime = column(batch, "mtime_ms")?.as_primitive::<Float64Type>().clone();
            let size = column(batch, "size")?.as_primitive::<Float64Type>().clone();
            for row in 0..batch.num_rows() {
                count_chunk(
                    &mut files,
                    path.value(row),
                    hash.value(row),
                    mtime.value(row),
                    size.value(row),
                );
            }
        }
        Ok(files)
    }

    /// Every indexed document under `path_prefix` with its front matter (from its first chunk),
    /// sorted by path.
    pub async fn documents(&self, path_prefix: &str) -> Result<Vec<DocumentInfo>> {
        let mut filter = "chunk_index = 0".to_string();
        if !path_prefix.is_empty() {
            filter.push_str(&format!(" AND starts_with(path, {})", quote(path_prefix)));
        }
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if(filter)
            .select(Select::columns(&[
                "path",
                "title",
                "aliases",
                "tags",
                "mtime_ms",
                "created_by",
                "session",
                "description",
            ]))
            .execute()
            .await?
            .try_collect()
            .await?;
        let lines = |value: &str| -> Vec<String> {
            value
                .split('\n')
                .filter(|a| !a.is_empty())
                .map(str::to_string)
                .collect()
        };
        let mut out = Vec::new();
        for batch in &batches {
            let path = strings(batch, "path")?;
            let title = strings(batch, "title")?;
            let aliases = strings(batch, "aliases")?;
            let tags = strings(batch, "tags")?;
            let mtime = column(batch, "mtime_ms")?.as_primitive::<Float64Type>();
            let created_by = strings(batch, "created_by")?;
            let session = strings(batch, "session")?;
            let description = strings(batch, "description")?;
            for row in 0..batch.num_rows() {
                out.push(DocumentInfo {
                    path: path.value(row).into(),
                    title: title.value(row).into(),
                    aliases: lines(aliases.value(row)),
                    tags: tags.value(row).split_whitespace().map(str::to_string).collect(),
                    mtime_ms: mtime.value(row),
                    created_by: created_by.value(row).into(),
                    session: session.value(row).into(),
                    description: description.value(row).into(),
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Paths some document supersedes, with the documents that do.
    pub async fn superseded(&self) -> Result<Arc<Superseded>> {
        if let Some(cached) = self.superseded.lock().clone() {
            return Ok(cached);
        }
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if("supersedes <> '' AND chunk_index = 0")
            .select(Select::columns(&["path", "supersedes"]))
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut map = Superseded::new();
        for batch in &batches {
            let path = strings(batch, "path")?;
            let col = strings(batch, "supersedes")?;
            for row in 0..batch.num_rows() {
                for target in col.value(row).split('\n').filter(|s| !s.is_empty()) {
                    map.entry(target.to_string())
                        .or_default()
                        .push(path.value(row).to_string());
                }
            }
        }
        map.values_mut().for_each(|by| {
            by.sort();
            by.dedup();
        });
        let set = Arc::new(map);
        *self.superseded.lock() = Some(set.clone());
        Ok(set)
    }

    /// The aliases of those of `paths` that have any (from each document's first chunk).
    pub async fn aliases(&self, paths: &[String]) -> Result<HashMap<String, Vec<String>>> {
        if paths.is_empty() {
            return Ok(HashMap::new());
        }
        let list = paths.iter().map(|p| quote(p)).collect::<Vec<_>>().join(", ");
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if(format!("chunk_index = 0 AND aliases <> '' AND path IN ({list})"))
            .select(Select::columns(&["path", "aliases"]))
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut out = HashMap::new();
        for batch in &batches {
            let path = strings(batch, "path")?;
            let aliases = strings(batch, "aliases")?;
            for row in 0..batch.num_rows() {
                let list: Vec<String> = aliases
                    .value(row)
                    .split('\n')
                    .filter(|a| !a.is_empty())
                    .map(str::to_string)
                    .collect();
                out.insert(path.value(row).to_string(), list);
            }
        }
        Ok(out)
    }

    /// Every document's path and aliases, sorted by path; cached until the next write.
    pub async fn names(&self) -> Result<Arc<Vec<DocumentNames>>> {
        if let Some(cached) = self.names.lock().clone() {
            return Ok(cached);
        }
        let names: Vec<DocumentNames> = self
            .documents("")
            .await?
            .into_iter()
            .map(|doc| DocumentNames {
                path: doc.path,
                aliases: doc.aliases,
            })
            .collect();
        let names = Arc::new(names);
        *self.names.lock() = Some(names.clone());
        Ok(names)
    }

    /// The `limit` best BM25 matches for `query`, each with its BM25 score and its stored vector
    /// (the candidate's `similarity` is 0 until [`Lexical::with_similarity`] sets it, so the search
    /// can run before the query's vector exists).
    pub async fn lexical(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Lexical>> {
        let fts = FullTextSearchQuery::new(query.to_string())
            .with_column("search_text".into())
            .map_err(lancedb::Error::from)?;
        let mut columns: Vec<&str> = HIT_COLUMNS.to_vec();
        columns.push("vector");
        let mut search = self
            .table
            .query()
            .full_text_search(fts)
            .select(Select::columns(&columns))
            .limit(limit);
        if let Some(sql) = filter.to_sql() {
            search = search.only_if(sql);
        }
        let batches: Vec<RecordBatch> = search.execute().await?.try_collect().await?;
        let mut out = Vec::new();
        for batch in &batches {
            let vectors = column(batch, "vector")?.as_fixed_size_list().clone();
            let scores = column(batch, "_score")?.as_primitive::<Float32Type>().clone();
            for (row, candidate) in candidates(batch)?.into_iter().enumerate() {
                let stored = vectors.value(row);
                out.push(Lexical {
                    candidate,
                    score: scores.value(row),
                    vector: stored.as_primitive::<Float32Type>().values().to_vec(),
                });
            }
        }
        // The scan of rows not yet in the full-text index may come back unsorted.
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(out)
    }
}

pub(super) fn column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a ArrayRef> {
    batch
        .column_by_name(name)
        .ok_or_else(|| ShapeError::Missing(name.to_string()).into())
}

pub(super) fn strings<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a StringArray> {
    column(batch, name)?
        .as_any()
        .downcast_ref::<StringArray>()
        .ok_or_else(|| ShapeError::NotText(name.to_string()).into())
}

pub(super) fn candidates(batch: &RecordBatch) -> Result<Vec<Candidate>> {
    let id = strings(batch, "id")?;
    let path = strings(batch, "path")?;
    let title = strings(batch, "title")?;
    let heading = strings(batch, "heading")?;
    let text = strings(batch, "text")?;
    let tags = strings(batch, "tags")?;
    let created_by = strings(batch, "created_by")?;
    let mtime = column(batch, "mtime_ms")?.as_primitive::<Float64Type>();
    let start = column(batch, "line_start")?.as_primitive::<Int32Type>();
    let end = column(batch, "line_end")?.as_primitive::<Int32Type>();
    Ok((0..batch.num_rows())
        .map(|row| Candidate {
            id: id.value(row).into(),
            path: path.value(row).into(),
            title: title.value(row).into(),
            heading: heading.value(row).into(),
            text: text.value(row).into(),
            tags: tags.value(row).into(),
            created_by: created_by.value(row).into(),
            mtime_ms: mtime.value(row),
            line_start: start.value(row),
            line_end: end.value(row),
            similarity: 0.0,
            loaded: true,
        })
        .collect())
}
