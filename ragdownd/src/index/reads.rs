//! Reading the chunk table: the files the sync compares against, the documents and their front
//! matter the tools list, superseded paths and aliases (cached until the next write), and the BM25
//! pool. The dense pool reads it in [`super::dense`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use futures::TryStreamExt;
use lancedb::arrow::arrow_array::cast::AsArray;
use lancedb::arrow::arrow_array::types::{Float32Type, Float64Type, Int32Type};
use lancedb::arrow::arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use lancedb::index::scalar::FullTextSearchQuery;
use lancedb::query::{ExecutableQuery, QueryBase, Select};

use super::catalog::Catalog;
use super::filter::Filter;
use super::rows::{Candidate, DocumentInfo, DocumentNames, FileState, Lexical, Names, Superseded, count_chunk, lines};
use super::store::{Result, ShapeError, Store};
use super::versioned::Versioned;

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
        self.versioned(&self.files_cache, Self::read_files).await
    }

    /// How many times [`Store::files`] read the table rather than answering from what it holds.
    pub fn files_loads(&self) -> u64 {
        self.files_cache.loads()
    }

    /// What `cache` holds of the table's version, or, when it holds another, what `read` reads
    /// (kept only when no write of ours began meanwhile: its rows may be in what was read).
    async fn versioned<'s, T, F>(&'s self, cache: &Versioned<T>, read: impl FnOnce(&'s Self) -> F) -> Result<Arc<T>>
    where
        T: Clone,
        F: std::future::Future<Output = Result<T>>,
    {
        let version = self.table.version().await?;
        if let Some(held) = cache.get(version) {
            return Ok(held);
        }
        let writes = self.writes.load(std::sync::atomic::Ordering::Acquire);
        cache.counted_load();
        let value = Arc::new(read(self).await?);
        if self.writing.load(std::sync::atomic::Ordering::Acquire) == 0
            && self.writes.load(std::sync::atomic::Ordering::Acquire) == writes
        {
            cache.put(version, value.clone());
        }
        Ok(value)
    }

    /// [`Store::files`] read from the table.
    async fn read_files(&self) -> Result<HashMap<String, FileState>> {
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
    /// sorted by path: from the documents of the table's version, read once and brought over this
    /// process's writes (a scan of every first chunk each time before: 0.9 s for `ragdown_list` at
    /// a million chunks).
    pub async fn documents(&self, path_prefix: &str) -> Result<Vec<DocumentInfo>> {
        let all = self.document_map().await?;
        Ok(documents_under(&all, path_prefix).cloned().collect())
    }

    /// Every indexed document's front matter by path, as [`Store::documents`] reads it.
    pub async fn document_map(&self) -> Result<Arc<BTreeMap<String, DocumentInfo>>> {
        self.versioned(&self.documents_cache, Self::read_documents).await
    }

    /// How many times [`Store::documents`] read the table.
    pub fn documents_loads(&self) -> u64 {
        self.documents_cache.loads()
    }

    /// Every document's first chunk's front matter, read from the table.
    async fn read_documents(&self) -> Result<BTreeMap<String, DocumentInfo>> {
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if("chunk_index = 0")
            .select(Select::columns(&[
                "path",
                "title",
                "aliases",
                "tags",
                "mtime_ms",
                "created_by",
                "session",
                "description",
                "supersedes",
            ]))
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut out = BTreeMap::new();
        for batch in &batches {
            let path = strings(batch, "path")?;
            let title = strings(batch, "title")?;
            let aliases = strings(batch, "aliases")?;
            let tags = strings(batch, "tags")?;
            let mtime = column(batch, "mtime_ms")?.as_primitive::<Float64Type>();
            let created_by = strings(batch, "created_by")?;
            let session = strings(batch, "session")?;
            let description = strings(batch, "description")?;
            let supersedes = strings(batch, "supersedes")?;
            for row in 0..batch.num_rows() {
                out.insert(
                    path.value(row).to_string(),
                    DocumentInfo {
                        path: path.value(row).into(),
                        title: title.value(row).into(),
                        aliases: lines(aliases.value(row)),
                        tags: tags.value(row).split_whitespace().map(str::to_string).collect(),
                        mtime_ms: mtime.value(row),
                        created_by: created_by.value(row).into(),
                        session: session.value(row).into(),
                        description: description.value(row).into(),
                        supersedes: lines(supersedes.value(row)),
                    },
                );
            }
        }
        Ok(out)
    }

    /// Paths some document supersedes, with the documents that do: made from
    /// [`Store::document_map`] once per table version (a scan of the table after each write before,
    /// which the next search waited for).
    pub async fn superseded(&self) -> Result<Arc<Superseded>> {
        self.derived(&self.superseded, |documents| {
            let mut map = Superseded::new();
            for doc in documents.values() {
                for target in &doc.supersedes {
                    map.entry(target.clone()).or_default().push(doc.path.clone());
                }
            }
            map.values_mut().for_each(|by| {
                by.sort();
                by.dedup();
            });
            map
        })
        .await
    }

    /// What `slot` holds of the table's version, or what `make` makes of the documents of
    /// [`Store::document_map`], then held for that version.
    async fn derived<T>(
        &self,
        slot: &parking_lot::Mutex<Option<(u64, Arc<T>)>>,
        make: impl FnOnce(&BTreeMap<String, DocumentInfo>) -> T,
    ) -> Result<Arc<T>> {
        let version = self.table.version().await?;
        if let Some((held, value)) = &*slot.lock()
            && *held == version
        {
            return Ok(value.clone());
        }
        let value = Arc::new(make(&*self.document_map().await?));
        *slot.lock() = Some((version, value.clone()));
        Ok(value)
    }

    /// The aliases of those of `paths` that have any, from the documents held per version.
    pub async fn aliases(&self, paths: &[String]) -> Result<HashMap<String, Vec<String>>> {
        let documents = self.document_map().await?;
        Ok(paths
            .iter()
            .filter_map(|path| documents.get(path))
            .filter(|doc| !doc.aliases.is_empty())
            .map(|doc| (doc.path.clone(), doc.aliases.clone()))
            .collect())
    }

    /// Every document's path and aliases, sorted by path, with their name index: made from
    /// [`Store::document_map`] once per table version.
    pub async fn names(&self) -> Result<Arc<Names>> {
        self.derived(&self.names, |documents| {
            Names::new(
                documents
                    .values()
                    .map(|doc| DocumentNames {
                        path: doc.path.clone(),
                        aliases: doc.aliases.clone(),
                    })
                    .collect(),
            )
        })
        .await
    }

    /// Every directory that holds a document, with its subdirectories and files in order: made
    /// from [`Store::document_map`] once per table version, when the web UI's tree first asks.
    pub async fn catalog(&self) -> Result<Arc<Catalog>> {
        self.derived(&self.catalog, Catalog::new).await
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

/// The documents of `all` whose paths start with `prefix`, in path order.
pub fn documents_under<'a, 'p>(
    all: &'a BTreeMap<String, DocumentInfo>,
    prefix: &'p str,
) -> impl Iterator<Item = &'a DocumentInfo> + use<'a, 'p> {
    all.range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
        .take_while(move |(path, _)| path.starts_with(prefix))
        .map(|(_, doc)| doc)
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
