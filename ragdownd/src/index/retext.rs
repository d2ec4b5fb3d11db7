//! The start-up upgrade of an index whose `search_text` was written under another text rule
//! ([`super::terms::TEXT_RULE`], recorded in `meta.json`): every row's `search_text` is written
//! again from what the row holds, and the full-text index rebuilt over it. The vectors are copied
//! as they are: nothing is re-embedded, which is what makes this cheap beside a rebuild.
//!
//! The new `search_text` is derived from the row's title, heading, text and aliases (what the sync
//! derived the old one from), not from the old `search_text`: the old rule's joined terms cannot
//! be told apart from the text they follow, so deriving from them would not give what a sync
//! writes now. Upgrading twice gives the same rows.
//!
//! Crash safety: the rows are rewritten in one LanceDB commit (an overwrite: either every row has
//! its new `search_text` or none does), then the full-text index is rebuilt, and only then does the
//! caller write the new `meta.json`. A process killed at any point leaves `meta.json` naming the
//! old rule, so the next start upgrades again. It must not run beside a sync: the engine runs it
//! at open, before the indexer starts.

use std::sync::Arc;

use futures::StreamExt;
use lancedb::arrow::arrow_array::cast::AsArray;
use lancedb::arrow::arrow_array::types::Int32Type;
use lancedb::arrow::arrow_array::{ArrayRef, RecordBatch, StringArray};
use lancedb::arrow::arrow_schema::{ArrowError, SchemaRef};
use lancedb::arrow::{SendableRecordBatchStream, SimpleRecordBatchStream};
use lancedb::query::ExecutableQuery;
use lancedb::table::AddDataMode;

use super::store::{Result, Store, schema};
use crate::markdown::chunker::{Chunk, embedding_text};

/// What a row holds that its `search_text` is made from.
#[derive(Debug, Clone, Copy)]
pub struct RowText<'a> {
    pub title: &'a str,
    pub heading: &'a str,
    pub text: &'a str,
    pub chunk_index: i32,
    /// The document's aliases, one a line, as the row stores them.
    pub aliases: &'a str,
}

/// A rule that makes a row's `search_text`.
pub type TextRule = fn(&RowText<'_>) -> String;

/// The `search_text` the sync writes today for the chunk a row holds: its embedding text, and the
/// document's aliases on its first chunk ([`super::terms::search_text`]).
pub fn current_rule(row: &RowText<'_>) -> String {
    let chunk = Chunk {
        index: row.chunk_index.max(0) as usize,
        heading: row.heading.to_string(),
        text: row.text.to_string(),
        line_start: 0,
        line_end: 0,
    };
    let aliases: Vec<&str> = match row.chunk_index {
        0 => row.aliases.split('\n').filter(|alias| !alias.is_empty()).collect(),
        _ => Vec::new(),
    };
    super::terms::search_text(&embedding_text(row.title, &chunk), &aliases)
}

impl Store {
    /// Writes every row's `search_text` again with `rule` (in one commit, vectors copied as they
    /// are), then rebuilds the full-text index. Returns how many rows were rewritten.
    pub async fn retext(&self, rule: TextRule) -> Result<usize> {
        let rows = self.count().await?;
        if rows == 0 {
            // The first write builds the full-text index with today's settings.
            return Ok(0);
        }
        let write = self.begin_write().await?;
        let schema = schema(self.dim);
        let out_schema = schema.clone();
        let rewritten = self
            .table
            .query()
            .execute()
            .await?
            .map(move |batch| Ok(with_search_text(&batch?, &out_schema, rule)?));
        let stream: SendableRecordBatchStream = Box::pin(SimpleRecordBatchStream::new(rewritten, schema));
        self.table.add(stream).mode(AddDataMode::Overwrite).execute().await?;
        self.rebuild_text_index().await?;
        // The same rows with the same vectors: the resident ones stay as they are.
        self.end_write(write, |_| {}).await?;
        Ok(rows)
    }
}

/// `batch` in the table's column order with its `search_text` made by `rule`.
fn with_search_text(
    batch: &RecordBatch,
    schema: &SchemaRef,
    rule: TextRule,
) -> std::result::Result<RecordBatch, ArrowError> {
    let column = |name: &str| {
        batch
            .column_by_name(name)
            .cloned()
            .ok_or_else(|| ArrowError::SchemaError(format!("column {name} missing from the table's rows")))
    };
    let text = |name: &str| -> std::result::Result<StringArray, ArrowError> {
        column(name)?
            .as_string_opt::<i32>()
            .cloned()
            .ok_or_else(|| ArrowError::SchemaError(format!("column {name} is not text")))
    };
    let (title, heading, body, aliases) = (text("title")?, text("heading")?, text("text")?, text("aliases")?);
    let index = column("chunk_index")?;
    let index = index
        .as_primitive_opt::<Int32Type>()
        .ok_or_else(|| ArrowError::SchemaError("column chunk_index is not Int32".into()))?;
    let search_text: ArrayRef = Arc::new(StringArray::from_iter_values((0..batch.num_rows()).map(|row| {
        rule(&RowText {
            title: title.value(row),
            heading: heading.value(row),
            text: body.value(row),
            chunk_index: index.value(row),
            aliases: aliases.value(row),
        })
    })));
    let columns = schema
        .fields()
        .iter()
        .map(|field| match field.name().as_str() {
            "search_text" => Ok(search_text.clone()),
            name => column(name),
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    RecordBatch::try_new(schema.clone(), columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::filter::Filter;
    use crate::index::rows::ChunkRow;

    fn row(path: &str, index: i32, heading: &str, text: &str, vector: f32) -> ChunkRow {
        ChunkRow {
            id: format!("{path}#{index}@0"),
            path: path.into(),
            file_hash: "0".into(),
            mtime_ms: 1.0,
            size: 1.0,
            chunk_index: index,
            title: "运维手册".into(),
            heading: heading.into(),
            text: text.into(),
            // What the rule before CJK bigrams wrote: the text as it is.
            search_text: format!("运维手册 › {heading}\n\n{text}"),
            supersedes: String::new(),
            tags: "  ".into(),
            aliases: "备份手册\nbackup book".into(),
            description: String::new(),
            created_by: String::new(),
            session: String::new(),
            line_start: 1,
            line_end: 2,
            vector: vec![vector, 1.0, 0.0, 0.0],
        }
    }

    async fn lexical_paths(store: &Store, query: &str) -> Vec<String> {
        let query = crate::index::terms::lexical_query(query);
        let hits = store.lexical(&query, &Filter::default(), 10).await.unwrap();
        hits.into_iter().map(|hit| hit.candidate.heading).collect()
    }

    #[tokio::test]
    async fn rows_get_todays_search_text_and_keep_their_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), 4, false).await.unwrap();
        let rows = vec![
            row("zh.md", 0, "数据库备份", "每天凌晨三点用pg_dump备份数据库。", 0.25),
            row("zh.md", 1, "监控", "监控磁盘空间和复制延迟。", 0.5),
        ];
        store.apply(&["zh.md".into()], rows).await.unwrap();
        assert!(
            lexical_paths(&store, "备份").await.is_empty(),
            "the old rule finds no word in a sentence"
        );

        assert_eq!(store.retext(current_rule).await.unwrap(), 2);
        assert_eq!(lexical_paths(&store, "备份").await, ["数据库备份"]);
        assert_eq!(lexical_paths(&store, "复制延迟").await, ["监控"]);
        assert_eq!(store.count().await.unwrap(), 2);
        let query = crate::index::terms::lexical_query("备份");
        let hits = store.lexical(&query, &Filter::default(), 10).await.unwrap();
        assert_eq!(hits[0].vector, [0.25, 1.0, 0.0, 0.0], "the vector is the one written");

        // Twice gives the same rows.
        assert_eq!(store.retext(current_rule).await.unwrap(), 2);
        assert_eq!(lexical_paths(&store, "备份").await, ["数据库备份"]);
        assert_eq!(
            store.unindexed_rows().await.unwrap(),
            0,
            "the full-text index covers every row"
        );
    }

    #[test]
    fn the_current_rule_is_the_syncs() {
        let doc = crate::markdown::chunk_document(
            "zh.md",
            "---\naliases: [备份手册]\n---\n# 运维手册\n\n## 数据库备份\n\n用pg_dump备份。\n",
        );
        let chunk = &doc.chunks[0];
        let row = RowText {
            title: &doc.title,
            heading: &chunk.heading,
            text: &chunk.text,
            chunk_index: 0,
            aliases: &doc.meta.aliases.join("\n"),
        };
        let aliases: Vec<&str> = doc.meta.aliases.iter().map(String::as_str).collect();
        assert_eq!(
            current_rule(&row),
            super::super::terms::search_text(&embedding_text(&doc.title, chunk), &aliases)
        );
        assert!(current_rule(&row).contains("备份 份手 手册"));
    }
}
