//! The LanceDB table of chunks: opening it, its schema, writes, indices and upkeep. Reading it is
//! in [`super::reads`] (documents, files, BM25) and [`super::dense`] (the dense pool); what it
//! holds and gives back in [`super::rows`].
//!
//! One table, `chunks`, under `<data dir>/lance`. Updates are applied per sync as one delete and
//! one add, each atomic in LanceDB, so a crash between them leaves files missing from the index
//! (which the next sync re-adds) and never half a file. The full-text index is built on
//! `search_text` with LanceDB's `code` tokenizer, so identifiers such as `pg_restore` stay whole
//! (and their parts are indexed beside them); the sync adds the identifiers it would split
//! (`db.m5.large`) to `search_text` as one term each (`index::terms::joined_terms`), so those
//! are found whole too.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use lancedb::Table;
use lancedb::arrow::arrow_array::{
    ArrayRef, FixedSizeListArray, Float32Array, Float64Array, Int32Array, RecordBatch, StringArray,
};
use lancedb::arrow::arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use lancedb::index::Index;
use lancedb::index::scalar::{BTreeIndexBuilder, FtsIndexBuilder};
use lancedb::table::{CompactionOptions, OptimizeAction, OptimizeOptions};
use parking_lot::{Mutex, RwLock};

use super::ann_policy::{DenseMode, VectorIndex};
use super::catalog::Catalog;
use super::filter::quote;
use super::resident::{Added, Resident};
use super::rows::{ChunkRow, DocumentInfo, FileState, Names, Superseded, count_chunk};
use super::versioned::Versioned;

/// The table's name.
pub const TABLE: &str = "chunks";

/// Why the index could not be read or written. The message is the cause's, after `index: `; the
/// cause stays the error's source.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// LanceDB failed.
    #[error("index: {0}")]
    Lance(#[from] lancedb::Error),
    /// Arrow refused to build the rows of a write.
    #[error("index: {0}")]
    Arrow(#[from] ArrowError),
    /// Rows written or read are not in the shape this version uses.
    #[error("index: {0}")]
    Shape(#[from] ShapeError),
    /// The blocking task doing the work ended without an answer.
    #[error("index: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// The index failing is always the server's failure.
impl crate::error::Kinded for StoreError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::Internal
    }
}

/// Rows that are not in the shape this version writes and reads.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    /// A row's vector has another length than the index's.
    #[error("a vector of {got} dimensions for an index of {dim}")]
    Dimensions { got: usize, dim: usize },
    /// A query's result lacks a column it asked for.
    #[error("column {0} missing from a result")]
    Missing(String),
    /// A column that holds text does not.
    #[error("column {0} is not text")]
    NotText(String),
    /// The rows loaded for the resident vectors lack a column.
    #[error(transparent)]
    Resident(#[from] super::resident::MissingColumn),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// What the resident vectors keep of a row: id, path, tags, whether an agent wrote it, vector.
fn resident_fields(row: &ChunkRow) -> Added<'_> {
    (&row.id, &row.path, &row.tags, !row.created_by.is_empty(), &row.vector)
}

/// Every indexed file's state, by path ([`Store::files`]).
pub type Files = Arc<HashMap<String, FileState>>;

/// The chunk table.
#[derive(Debug)]
pub struct Store {
    pub(super) table: Table,
    pub(super) dim: usize,
    /// The vectors held in memory for the dense pool ([`super::resident`]), when loaded.
    pub(super) resident: RwLock<Option<Arc<Resident>>>,
    /// Held while the resident vectors load, so concurrent queries load them once.
    pub(super) resident_load: tokio::sync::Mutex<()>,
    /// Writes of this process in flight, and writes begun so far.
    pub(super) writing: AtomicUsize,
    pub(super) writes: AtomicU64,
    /// Times the resident vectors were read from the table (not brought over a write).
    pub(super) resident_loads: AtomicU64,
    /// Superseded path -> the documents that supersede it, of one table version.
    pub(super) superseded: Mutex<Option<(u64, Arc<Superseded>)>>,
    /// Every document's path and aliases, sorted by path, of one table version.
    pub(super) names: Mutex<Option<(u64, Arc<Names>)>>,
    /// Every directory holding a document, with its names in order, of one table version.
    pub(super) catalog: Mutex<Option<(u64, Arc<Catalog>)>>,
    /// [`Store::files`] of a table version, brought over this process's writes.
    pub(super) files_cache: Versioned<HashMap<String, FileState>>,
    /// Every document's front matter by path ([`Store::documents`]), the same way.
    pub(super) documents_cache: Versioned<BTreeMap<String, DocumentInfo>>,
    /// Whether the full-text and `id` indexes exist (checked once, then known).
    has_indices: AtomicBool,
    /// How long superseded versions' files are kept ([`KEEP_VERSIONS_FOR`]).
    keep_versions_for: std::time::Duration,
    /// When a vector index is built and searched ([`super::ann`]).
    pub(super) vector_index: VectorIndex,
    /// The table version the dense pool's source was last decided for, and that source.
    pub(super) ann_mode: Mutex<Option<(u64, DenseMode)>>,
    /// Held while the vector index is built or refreshed (and by compaction, which skips a turn
    /// rather than wait for a build).
    pub(super) ann_building: tokio::sync::Mutex<()>,
}

/// The table's columns for vectors of `dim` dimensions.
pub(super) fn schema(dim: usize) -> SchemaRef {
    let utf8 = |name: &str| Field::new(name, DataType::Utf8, false);
    Arc::new(Schema::new(vec![
        utf8("id"),
        utf8("path"),
        utf8("file_hash"),
        Field::new("mtime_ms", DataType::Float64, false),
        Field::new("size", DataType::Float64, false),
        Field::new("chunk_index", DataType::Int32, false),
        utf8("title"),
        utf8("heading"),
        utf8("text"),
        utf8("search_text"),
        utf8("supersedes"),
        utf8("tags"),
        utf8("aliases"),
        utf8("description"),
        utf8("created_by"),
        utf8("session"),
        Field::new("line_start", DataType::Int32, false),
        Field::new("line_end", DataType::Int32, false),
        Field::new(
            "vector",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), dim as i32),
            false,
        ),
    ]))
}

/// The index of `indices` over `column`, if there is one.
fn index_on<'a>(indices: &'a [lancedb::index::IndexConfig], column: &str) -> Option<&'a lancedb::index::IndexConfig> {
    indices.iter().find(|index| index.columns.iter().any(|c| c == column))
}

/// Wall milliseconds of [`Store::optimize`]'s three steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Optimized {
    pub compact: u64,
    /// Folding new rows into the full-text and `id` indices.
    pub index: u64,
    pub prune: u64,
}

/// A write of this process in flight, counted in [`Store::writing`] until dropped (an error
/// part-way included), with the table's version before it.
pub(super) struct Write<'a> {
    writing: &'a AtomicUsize,
    before: u64,
}

impl Drop for Write<'_> {
    fn drop(&mut self) {
        self.writing.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How long the files of a superseded table version are kept before a sync deletes them.
pub const KEEP_VERSIONS_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// LanceDB's index cache, in bytes. Every write makes new index files, and the cache keeps what
/// it read of the old ones until it is full: at 256 MiB the server's memory grew ~80 MB a minute
/// under edits until the cache filled; at 32 MiB it stayed flat with searches as fast
/// (bench/results/README.md, 2026-12-01-memory.jsonl).
const INDEX_CACHE_BYTES: usize = 32 << 20;

/// LanceDB's metadata cache (manifests, fragment and file metadata), in bytes; bounded for the
/// same reason.
const METADATA_CACHE_BYTES: usize = 16 << 20;

/// The full-text index's tokenizer settings. A change here changes what BM25 matches, so it bumps
/// [`super::terms::TEXT_RULE`], which rebuilds existing indexes' full-text index at start.
///
/// The `code` tokenizer keeps `pg_restore` one token (the default `simple` one splits it);
/// `split_identifiers` + `preserve_original` index its parts too, so prose that says "restore"
/// still meets it. Identifiers joined by `.`, `/`, `-` reach the index whole as the sync's joined
/// terms, and CJK runs as bigrams (`index::terms`). Words are stemmed and English stop words left
/// out. Operators are not indexed: they lengthen code-heavy chunks, which BM25 then ranks lower. On
/// the runbook benchmark (minilm, 210 questions) BM25 alone put the right section first for 76%
/// this way, 67% without the parts, 62% with operators indexed (`ragdown-bench retrieval`,
/// bench/results).
fn text_index_params() -> FtsIndexBuilder {
    FtsIndexBuilder::code()
        .split_identifiers(true)
        .preserve_original(true)
        .split_on_numerics(false)
        .stem(true)
        .remove_stop_words(true)
}

impl Store {
    /// Opens (or creates) the table under `lance_dir`. With `rebuild`, any existing table is
    /// dropped first.
    pub async fn open(lance_dir: &Path, dim: usize, rebuild: bool) -> Result<Self> {
        let uri = lance_dir.to_string_lossy();
        // LanceDB's default caches (6 GiB of index, 1 GiB of metadata) fill with the files of
        // every version a long-running server writes; ours are bounded to fit a laptop.
        let session = lancedb::Session::new(
            INDEX_CACHE_BYTES,
            METADATA_CACHE_BYTES,
            Arc::new(lancedb::ObjectStoreRegistry::default()),
        );
        let db = lancedb::connect(&uri)
            .read_consistency_interval(std::time::Duration::ZERO)
            .session(Arc::new(session))
            .execute()
            .await?;
        let names = db.table_names().execute().await?;
        let exists = names.iter().any(|n| n == TABLE);
        if exists && rebuild {
            db.drop_table(TABLE, &[]).await?;
        }
        let table = if exists && !rebuild {
            db.open_table(TABLE).execute().await?
        } else {
            db.create_empty_table(TABLE, schema(dim)).execute().await?
        };
        Ok(Self {
            table,
            dim,
            superseded: Mutex::new(None),
            names: Mutex::new(None),
            catalog: Mutex::new(None),
            files_cache: Versioned::default(),
            documents_cache: Versioned::default(),
            has_indices: AtomicBool::new(false),
            keep_versions_for: KEEP_VERSIONS_FOR,
            resident: RwLock::new(None),
            resident_load: tokio::sync::Mutex::new(()),
            writing: AtomicUsize::new(0),
            writes: AtomicU64::new(0),
            resident_loads: AtomicU64::new(0),
            vector_index: VectorIndex::default(),
            ann_mode: Mutex::new(None),
            ann_building: tokio::sync::Mutex::new(()),
        })
    }

    /// Builds and searches a vector index as `policy` says instead of the default.
    pub fn with_vector_index(mut self, policy: VectorIndex) -> Self {
        self.vector_index = policy;
        self
    }

    /// The vector index's policy.
    pub fn vector_index(&self) -> &VectorIndex {
        &self.vector_index
    }

    /// Keeps superseded versions' files this long instead of [`KEEP_VERSIONS_FOR`].
    pub fn keep_versions_for(mut self, keep: std::time::Duration) -> Self {
        self.keep_versions_for = keep;
        self
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Replaces every chunk of `paths` with `rows`: one delete, then one add.
    pub async fn apply(&self, paths: &[String], rows: Vec<ChunkRow>) -> Result<()> {
        let write = self.begin_write().await?;
        if !paths.is_empty() {
            let list = paths.iter().map(|p| quote(p)).collect::<Vec<_>>().join(", ");
            self.table.delete(format!("path IN ({list})").as_str()).await?;
        }
        if !rows.is_empty() {
            let batch = self.to_batch(&rows)?;
            self.table.add(batch).execute().await?;
            self.ensure_indices().await?;
        }
        self.files_cache.wrote(write.before, |files| {
            for path in paths {
                files.remove(path);
            }
            for row in &rows {
                count_chunk(files, &row.path, &row.file_hash, row.mtime_ms, row.size);
            }
        });
        self.documents_cache.wrote(write.before, |documents| {
            for path in paths {
                documents.remove(path);
            }
            for row in rows.iter().filter(|row| row.chunk_index == 0) {
                documents.insert(row.path.clone(), DocumentInfo::of(row));
            }
        });
        self.end_write(write, |resident| {
            resident.apply(paths, rows.iter().map(resident_fields))
        })
        .await
    }

    /// Drops every row.
    pub async fn clear(&self) -> Result<()> {
        let write = self.begin_write().await?;
        self.drop_vector_index().await?;
        self.table.delete("true").await?;
        self.files_cache.wrote(write.before, HashMap::clear);
        self.documents_cache.wrote(write.before, BTreeMap::clear);
        let dim = self.dim;
        self.end_write(write, |resident| *resident = Resident::empty(0, dim))
            .await
    }

    /// Marks a write begun, so queries keep the resident vectors as they are until
    /// [`Store::end_write`] brings them over it.
    pub(super) async fn begin_write(&self) -> Result<Write<'_>> {
        self.writes.fetch_add(1, Ordering::AcqRel);
        self.writing.fetch_add(1, Ordering::AcqRel);
        let mut write = Write {
            writing: &self.writing,
            before: 0,
        };
        write.before = self.table.version().await?;
        Ok(write)
    }

    /// Brings the resident vectors over a finished write (`change`), and the files of
    /// [`Store::files`] and documents of [`Store::documents`] (changed by the write first where it
    /// changed them), or drops them when they were not the version the write began from.
    pub(super) async fn end_write(&self, write: Write<'_>, change: impl FnOnce(&mut Resident)) -> Result<()> {
        let after = self.table.version().await?;
        self.resident_wrote(write.before, after, change);
        self.files_cache.moved(write.before, after);
        self.documents_cache.moved(write.before, after);
        Ok(())
    }

    /// Builds the full-text index and the `id` and `path` indexes when the table has rows and they
    /// are missing.
    /// Rows added later are still found (scanned) until [`Store::optimize`] folds them in, so
    /// building them after the first write lets BM25 answer while a long first index is still
    /// running. The `id` index (a B-tree) makes reading chunks by id (`id IN (…)`, what
    /// [`Store::load`] does for a search's hits) a lookup instead of a scan of the id column:
    /// 64 chunks took 12.7 ms without it and 8.4 ms with it at 10,500 chunks (2026-12-01). The
    /// `path` index does the same for one document's rows (`path = …`: link following past the
    /// vector index's threshold, and the deletes of a sync).
    async fn ensure_indices(&self) -> Result<()> {
        if self.has_indices.load(Ordering::Acquire) {
            return Ok(());
        }
        let indices = self.table.list_indices().await?;
        let indexed = |column: &str| index_on(&indices, column).is_some();
        let (has_text, has_id, has_path) = (indexed("search_text"), indexed("id"), indexed("path"));
        if (!has_text || !has_id || !has_path) && self.count().await? == 0 {
            return Ok(());
        }
        for (column, has) in [("id", has_id), ("path", has_path)] {
            if !has {
                self.table
                    .create_index(&[column], Index::BTree(BTreeIndexBuilder::default()))
                    .execute()
                    .await?;
            }
        }
        if !has_text {
            self.table
                .create_index(&["search_text"], Index::FTS(text_index_params()))
                .execute()
                .await?;
        }
        self.has_indices.store(true, Ordering::Release);
        Ok(())
    }

    /// Builds the full-text index again over every row, replacing the one there is (with its
    /// tokenizer settings): what [`Store::retext`] does after rewriting `search_text`.
    pub(super) async fn rebuild_text_index(&self) -> Result<()> {
        let indices = self.table.list_indices().await?;
        if let Some(text) = index_on(&indices, "search_text") {
            self.table.drop_index(&text.name).await?;
        }
        self.has_indices.store(false, Ordering::Release);
        self.ensure_indices().await
    }

    /// Folds new rows into the full-text index, compacts the table, and deletes the files of
    /// versions older than [`KEEP_VERSIONS_FOR`] (LanceDB's own default keeps them 7 days, so every
    /// write would cost disk for a week: 1,800 edits of a 2,100-chunk index once took 1.3 GB).
    /// Readers re-check the latest version on every query, so none reads a version that old.
    pub async fn optimize(&self) -> Result<Optimized> {
        let write = self.begin_write().await?;
        self.ensure_indices().await?;
        let mut times = Optimized::default();
        let mut started = std::time::Instant::now();
        let mut lap = || {
            let ms = started.elapsed().as_millis() as u64;
            started = std::time::Instant::now();
            ms
        };
        // `All` is these three with a 7-day prune; spelled out, so versions are listed once.
        // Compaction rewrites the files a vector index build reads, so it waits a turn while one
        // runs ([`Store::upkeep_vector_index`]).
        if let Ok(_no_build) = self.ann_building.try_lock() {
            self.table
                .optimize(OptimizeAction::Compact {
                    options: CompactionOptions::default(),
                    remap_options: None,
                })
                .await?;
        }
        times.compact = lap();
        // The vector index is refreshed by its own upkeep, off the sync's path.
        let scalar = self.scalar_index_names().await?;
        if !scalar.is_empty() {
            self.table
                .optimize(OptimizeAction::Index(OptimizeOptions::new().index_names(scalar)))
                .await?;
        }
        times.index = lap();
        self.table
            .optimize(OptimizeAction::Prune {
                older_than: lancedb::table::Duration::from_std(self.keep_versions_for).ok(),
                delete_unverified: Some(false),
                error_if_tagged_old_versions: Some(false),
            })
            .await?;
        times.prune = lap();
        // The same rows in new files.
        self.end_write(write, |_| {}).await?;
        Ok(times)
    }

    /// Rows the full-text index does not cover yet (written since the last [`Store::optimize`]);
    /// searches scan them, so they are found all the same. 0 before the index exists.
    pub async fn unindexed_rows(&self) -> Result<usize> {
        let indices = self.table.list_indices().await?;
        let Some(text) = index_on(&indices, "search_text") else {
            return Ok(0);
        };
        let stats = self.table.index_stats(&text.name).await?;
        Ok(stats.map_or(0, |stats| stats.num_unindexed_rows))
    }

    /// Number of rows.
    pub async fn count(&self) -> Result<usize> {
        Ok(self.table.count_rows(None).await?)
    }

    fn to_batch(&self, rows: &[ChunkRow]) -> Result<RecordBatch> {
        let text =
            |f: fn(&ChunkRow) -> &str| -> ArrayRef { Arc::new(StringArray::from_iter_values(rows.iter().map(f))) };
        for row in rows {
            if row.vector.len() != self.dim {
                return Err(ShapeError::Dimensions {
                    got: row.vector.len(),
                    dim: self.dim,
                }
                .into());
            }
        }
        let values = Float32Array::from_iter_values(rows.iter().flat_map(|r| r.vector.iter().copied()));
        let vectors = FixedSizeListArray::try_new(
            Arc::new(Field::new("item", DataType::Float32, true)),
            self.dim as i32,
            Arc::new(values),
            None,
        )?;
        let columns: Vec<ArrayRef> = vec![
            text(|r| &r.id),
            text(|r| &r.path),
            text(|r| &r.file_hash),
            Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.mtime_ms))),
            Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.size))),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.chunk_index))),
            text(|r| &r.title),
            text(|r| &r.heading),
            text(|r| &r.text),
            text(|r| &r.search_text),
            text(|r| &r.supersedes),
            text(|r| &r.tags),
            text(|r| &r.aliases),
            text(|r| &r.description),
            text(|r| &r.created_by),
            text(|r| &r.session),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.line_start))),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.line_end))),
            Arc::new(vectors),
        ];
        Ok(RecordBatch::try_new(schema(self.dim), columns)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::filter::Filter;

    fn row(path: &str, version: usize) -> ChunkRow {
        ChunkRow {
            id: format!("{path}#0@{version}"),
            path: path.to_owned(),
            file_hash: version.to_string(),
            mtime_ms: version as f64,
            size: 1.0,
            chunk_index: 0,
            title: "T".into(),
            heading: String::new(),
            text: format!("text of version {version}"),
            search_text: format!("text of version {version}"),
            supersedes: String::new(),
            tags: "  ".into(),
            aliases: String::new(),
            description: String::new(),
            created_by: String::new(),
            session: String::new(),
            line_start: 1,
            line_end: 1,
            vector: vec![0.5; 4],
        }
    }

    /// Table versions whose manifests are still on disk.
    fn versions(dir: &Path) -> usize {
        std::fs::read_dir(dir.join(format!("{TABLE}.lance/_versions"))).map_or(0, |entries| entries.count())
    }

    /// Writes `a.md` 20 times, optimising after each as a sync does.
    async fn twenty_writes(store: &Store) {
        for version in 0..20 {
            store
                .apply(&["a.md".to_owned()], vec![row("a.md", version)])
                .await
                .unwrap();
            store.optimize().await.unwrap();
        }
        assert_eq!(store.count().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn the_ids_of_the_nearest_are_the_dense_pools_ids() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 4, false).await.unwrap();
        let mut rows = Vec::new();
        let mut paths = Vec::new();
        for (i, vector) in [[1.0, 0.0, 0.0, 0.0], [0.6, 0.8, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
            .iter()
            .enumerate()
        {
            let path = format!("d{i}.md");
            let mut chunk = row(&path, i);
            chunk.vector = vector.to_vec();
            rows.push(chunk);
            paths.push(path);
        }
        store.apply(&paths, rows).await.unwrap();
        let query = [0.9, 0.1, 0.0, 0.0];
        let dense: Vec<String> = store
            .dense(&query, &Filter::default(), 2)
            .await
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(dense, ["d0.md#0@0", "d1.md#0@1"]);
        assert_eq!(store.dense_ids(&query, 2).await.unwrap(), dense);
    }

    #[tokio::test]
    async fn the_files_follow_this_processs_writes_and_are_read_again_after_anothers() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 4, false).await.unwrap();
        store.apply(&[], vec![row("a.md", 1)]).await.unwrap();
        assert_eq!(store.files().await.unwrap()["a.md"].file_hash, "1");
        assert_eq!(store.files_loads(), 1);
        let mut two = row("a.md", 2);
        two.id = "a.md#1@2".into();
        store
            .apply(&["a.md".into()], vec![row("a.md", 2), two, row("b.md", 3)])
            .await
            .unwrap();
        store.optimize().await.unwrap();
        let files = store.files().await.unwrap();
        assert_eq!((files["a.md"].file_hash.as_str(), files["a.md"].chunks), ("2", 2));
        assert_eq!(files["b.md"].file_hash, "3");
        assert_eq!(store.files_loads(), 1, "brought over the writes, not read again");
        store.apply(&["b.md".into()], Vec::new()).await.unwrap();
        assert!(!store.files().await.unwrap().contains_key("b.md"));

        let other = Store::open(dir.path(), 4, false).await.unwrap();
        other.apply(&[], vec![row("c.md", 4)]).await.unwrap();
        let files = store.files().await.unwrap();
        assert_eq!(store.files_loads(), 2, "another process's write is read");
        assert_eq!(files.keys().count(), 2);
        assert_eq!(files["c.md"].file_hash, "4");
        store.clear().await.unwrap();
        assert!(store.files().await.unwrap().is_empty());
        assert_eq!(store.files_loads(), 2);
    }

    /// What a document's first chunk says, as the held documents give it back, with its title,
    /// aliases and the paths it supersedes.
    fn first_chunk(path: &str, version: usize, title: &str, supersedes: &str) -> ChunkRow {
        ChunkRow {
            title: title.into(),
            aliases: format!("{title} alias"),
            supersedes: supersedes.into(),
            ..row(path, version)
        }
    }

    #[tokio::test]
    async fn the_documents_and_what_they_supersede_follow_this_processs_writes_and_anothers() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 4, false).await.unwrap();
        store.apply(&[], vec![first_chunk("a.md", 1, "A", "")]).await.unwrap();
        let titles = async |store: &Store| -> Vec<(String, String, Vec<String>)> {
            store
                .documents("")
                .await
                .unwrap()
                .into_iter()
                .map(|doc| (doc.path, doc.title, doc.aliases))
                .collect()
        };
        assert_eq!(
            titles(&store).await,
            [("a.md".into(), "A".into(), vec!["A alias".to_string()])]
        );
        assert_eq!(store.documents_loads(), 1);
        let mut second = row("b.md", 2);
        second.id = "b.md#1@2".into();
        second.chunk_index = 1;
        second.title = "not the first chunk".into();
        store
            .apply(
                &["a.md".into()],
                vec![
                    first_chunk("a.md", 2, "A2", ""),
                    first_chunk("b.md", 2, "B", "a.md\nold.md"),
                    second,
                ],
            )
            .await
            .unwrap();
        let now = titles(&store).await;
        assert_eq!(
            now.iter().map(|(p, t, _)| (p.as_str(), t.as_str())).collect::<Vec<_>>(),
            [("a.md", "A2"), ("b.md", "B")]
        );
        assert_eq!(store.documents_loads(), 1, "brought over the write, not read again");
        let superseded = store.superseded().await.unwrap();
        assert_eq!(superseded["old.md"], ["b.md"]);
        assert_eq!(superseded["a.md"], ["b.md"]);
        assert_eq!(store.documents("b").await.unwrap().len(), 1);

        let other = Store::open(dir.path(), 4, false).await.unwrap();
        other
            .apply(&["b.md".into()], vec![first_chunk("c.md", 3, "C", "")])
            .await
            .unwrap();
        let now = titles(&store).await;
        assert_eq!(
            now.iter().map(|(p, _, _)| p.as_str()).collect::<Vec<_>>(),
            ["a.md", "c.md"]
        );
        assert_eq!(store.documents_loads(), 2, "another process's write is read");
        assert!(store.superseded().await.unwrap().is_empty());
        store.clear().await.unwrap();
        assert!(store.documents("").await.unwrap().is_empty());
        assert_eq!(store.documents_loads(), 2);
    }

    #[tokio::test]
    async fn old_versions_are_pruned_so_writes_do_not_cost_disk_for_a_week() {
        let kept = tempfile::tempdir().unwrap();
        let store = Store::open(kept.path(), 4, false).await.unwrap();
        twenty_writes(&store).await;
        assert!(versions(kept.path()) >= 20, "within the keep time every version stays");

        let pruned = tempfile::tempdir().unwrap();
        let store = Store::open(pruned.path(), 4, false)
            .await
            .unwrap()
            .keep_versions_for(std::time::Duration::ZERO);
        twenty_writes(&store).await;
        assert!(
            versions(pruned.path()) <= 4,
            "{} versions left",
            versions(pruned.path())
        );
        let hits = store.files().await.unwrap();
        assert_eq!(hits["a.md"].file_hash, "19", "the latest version is whole");
    }
}
