//! The index's vectors held in memory, int8-quantised, for the dense pool.
//!
//! LanceDB's flat search decodes the whole vector column from its files on every query: at
//! 105,000 chunks that was 153 ms of a 159 ms search, growing with the table
//! (bench/results/README.md, 2026-12-01-search-breakdown). Here each chunk is 384 bytes (for a
//! 384-dimension model) and a scale, scored with integer dot products in one pass; the best
//! candidates, oversampled, are then read back from the table and rescored exactly from their
//! stored f32 vectors, so the similarities a search reports are the exact cosines.
//!
//! The store keeps it current: its own writes are applied to it as they land (the removed paths,
//! the added rows), and a table version it did not write (another process's, or before the first
//! query) makes it reload from the table. Cost: about 400 bytes a chunk (40 MB at 100,000).

use std::collections::HashMap;
use std::sync::Arc;

use lancedb::arrow::arrow_array::RecordBatch;
use lancedb::arrow::arrow_array::cast::AsArray;
use lancedb::arrow::arrow_array::types::Float32Type;

use super::filter::Filter;

/// The columns a load reads.
pub const COLUMNS: &[&str] = &["id", "path", "tags", "created_by", "vector"];

/// A chunk a write added: id, path, tags, whether an agent wrote it, vector.
pub type Added<'a> = (&'a str, &'a str, &'a str, bool, &'a [f32]);

/// One document's fields that filters read, shared by its chunks.
#[derive(Debug, Clone)]
struct Doc {
    path: Arc<str>,
    tags: Box<str>,
    by_agent: bool,
}

/// The vectors of one table version, quantised, with what filters need.
#[derive(Debug, Clone)]
pub struct Resident {
    /// The table version these rows are.
    pub version: u64,
    dim: usize,
    ids: Vec<Box<str>>,
    /// Row -> its document in `docs`.
    doc_of: Vec<u32>,
    docs: Vec<Doc>,
    by_path: HashMap<Arc<str>, u32>,
    /// `dim` codes a row.
    codes: Vec<i8>,
    /// Per row: what turns a code dot product into an approximate cosine (with the query's).
    scales: Vec<f32>,
}

/// Unit-normalises `vector` and quantises it to `out`; returns its scale.
fn quantise(vector: &[f32], out: &mut Vec<i8>) -> f32 {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    let peak = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    if norm == 0.0 || peak == 0.0 || !norm.is_finite() {
        out.extend(std::iter::repeat_n(0, vector.len()));
        return 0.0;
    }
    let step = peak / 127.0;
    out.extend(vector.iter().map(|x| (x / step).round().clamp(-127.0, 127.0) as i8));
    step / norm
}

/// The integer dot product of two rows of codes.
#[inline(always)]
fn dot(a: &[i8], b: &[i8]) -> i32 {
    // Written so the compiler vectorises it (widening multiply-adds).
    a.iter().zip(b).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum()
}

/// The dot product of `query` with every row of `codes` (`dim` codes a row), appended to `out`.
fn dots(query: &[i8], codes: &[i8], dim: usize, out: &mut Vec<i32>) {
    out.extend(codes.chunks_exact(dim).map(|row| dot(query, row)));
}

/// [`dots`] compiled for AVX2. The build targets baseline x86-64 (SSE2), where the widening
/// multiply-adds take 2.6 times as long: 11.1 against 4.2 ms for 105,000 rows of 384 on this
/// project's machine, where 4 ms is about what reading the 40 MB of codes takes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dots_avx2(query: &[i8], codes: &[i8], dim: usize, out: &mut Vec<i32>) {
    dots(query, codes, dim, out);
}

/// [`dots`], with the fastest instructions this CPU has.
#[allow(unsafe_code)]
fn dots_fastest(query: &[i8], codes: &[i8], dim: usize, out: &mut Vec<i32>) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just checked to have AVX2, the one feature `dots_avx2` enables.
        unsafe { dots_avx2(query, codes, dim, out) };
        return;
    }
    dots(query, codes, dim, out);
}

/// A batch for the resident vectors lacks one of [`COLUMNS`] (or has it in another type).
#[derive(Debug, thiserror::Error)]
#[error("no {0} column")]
pub struct MissingColumn(pub &'static str);

impl Resident {
    pub fn empty(version: u64, dim: usize) -> Self {
        Self {
            version,
            dim,
            ids: Vec::new(),
            doc_of: Vec::new(),
            docs: Vec::new(),
            by_path: HashMap::new(),
            codes: Vec::new(),
            scales: Vec::new(),
        }
    }

    /// Room for `rows` more rows, so the codes (the bulk of it) are allocated once at their
    /// size rather than grown by doubling to up to twice it.
    pub fn reserve(&mut self, rows: usize) {
        self.ids.reserve(rows);
        self.doc_of.reserve(rows);
        self.codes.reserve(rows.saturating_mul(self.dim));
        self.scales.reserve(rows);
    }

    /// Adds the rows of `batch` (with [`COLUMNS`]). Reading the table a batch at a time and
    /// adding each as it comes holds one batch of full-size vectors at once, not all of them.
    pub fn push_batch(&mut self, batch: &RecordBatch) -> Result<(), MissingColumn> {
        let text = |name: &'static str| {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_string_opt::<i32>())
                .ok_or(MissingColumn(name))
        };
        let (id, path, tags, created_by) = (text("id")?, text("path")?, text("tags")?, text("created_by")?);
        let vectors = batch
            .column_by_name("vector")
            .and_then(|c| c.as_fixed_size_list_opt())
            .ok_or(MissingColumn("vector"))?;
        for row in 0..batch.num_rows() {
            let vector = vectors.value(row);
            let vector = vector.as_primitive::<Float32Type>();
            self.push(
                id.value(row),
                path.value(row),
                tags.value(row),
                !created_by.value(row).is_empty(),
                vector.values(),
            );
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    fn push(&mut self, id: &str, path: &str, tags: &str, by_agent: bool, vector: &[f32]) {
        let doc = self.doc_index(path, || Doc {
            path: path.into(),
            tags: tags.into(),
            by_agent,
        });
        self.ids.push(id.into());
        self.doc_of.push(doc);
        let scale = if vector.len() == self.dim {
            quantise(vector, &mut self.codes)
        } else {
            self.codes.extend(std::iter::repeat_n(0, self.dim));
            0.0
        };
        self.scales.push(scale);
    }

    /// The index of the document at `path` in `docs`, added (as `doc` makes it) when new.
    fn doc_index(&mut self, path: &str, doc: impl FnOnce() -> Doc) -> u32 {
        if let Some(&index) = self.by_path.get(path) {
            return index;
        }
        let doc = doc();
        let index = self.docs.len() as u32;
        self.by_path.insert(doc.path.clone(), index);
        self.docs.push(doc);
        index
    }

    /// What a store write did, applied here: every chunk of `removed` goes, `added` comes in
    /// (each as id, path, tags, written by an agent, vector).
    pub fn apply<'a>(&mut self, removed: &[String], added: impl IntoIterator<Item = Added<'a>>) {
        if !removed.is_empty() {
            let gone: std::collections::HashSet<&str> = removed.iter().map(String::as_str).collect();
            let old = std::mem::replace(self, Self::empty(self.version, self.dim));
            for row in 0..old.len() {
                let doc = &old.docs[old.doc_of[row] as usize];
                if gone.contains(&*doc.path) {
                    continue;
                }
                let at = row * old.dim;
                self.push_quantised(&old.ids[row], doc, &old.codes[at..at + old.dim], old.scales[row]);
            }
        }
        for (id, path, tags, by_agent, vector) in added {
            self.push(id, path, tags, by_agent, vector);
        }
    }

    fn push_quantised(&mut self, id: &str, doc: &Doc, codes: &[i8], scale: f32) {
        let index = self.doc_index(&doc.path, || doc.clone());
        self.ids.push(id.into());
        self.doc_of.push(index);
        self.codes.extend_from_slice(codes);
        self.scales.push(scale);
    }

    /// The ids of the `limit` rows nearest `query` by approximate cosine, best first, among those
    /// `filter` lets through. Only the tests read ids this way; the store reads rows
    /// ([`Resident::nearest_rows`]).
    #[cfg(test)]
    pub fn nearest(&self, query: &[f32], filter: &Filter, limit: usize) -> Vec<&str> {
        self.nearest_rows(query, filter, limit)
            .into_iter()
            .map(|(row, _)| self.id(row))
            .collect()
    }

    /// Row `row`'s chunk id.
    pub fn id(&self, row: usize) -> &str {
        &self.ids[row]
    }

    /// Row `row`'s document path.
    pub fn path(&self, row: usize) -> &str {
        &self.docs[self.doc_of[row] as usize].path
    }

    /// [`Resident::nearest`] as row numbers, each with its approximate cosine (within about 0.002
    /// of the exact one for 384 dimensions).
    pub fn nearest_rows(&self, query: &[f32], filter: &Filter, limit: usize) -> Vec<(usize, f32)> {
        if limit == 0 || query.len() != self.dim || self.is_empty() {
            return Vec::new();
        }
        let mut codes = Vec::with_capacity(self.dim);
        let query_scale = quantise(query, &mut codes);
        let allowed: Vec<bool> = self
            .docs
            .iter()
            .map(|doc| filter.matches(&doc.path, &doc.tags, doc.by_agent))
            .collect();
        let mut dot_products = Vec::with_capacity(self.len());
        dots_fastest(&codes, &self.codes, self.dim, &mut dot_products);
        let mut scored: Vec<(f32, u32)> = (0..self.len())
            .filter(|&row| allowed[self.doc_of[row] as usize])
            .map(|row| (dot_products[row] as f32 * self.scales[row] * query_scale, row as u32))
            .collect();
        let best_first = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, best_first);
            scored.truncate(limit);
        }
        scored.sort_unstable_by(best_first);
        scored.into_iter().map(|(score, row)| (row as usize, score)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk as a write adds it.
    struct Row {
        id: String,
        path: String,
        tags: String,
        by_agent: bool,
        vector: Vec<f32>,
    }

    fn row(id: &str, path: &str, vector: Vec<f32>) -> Row {
        Row {
            id: id.into(),
            path: path.into(),
            tags: String::new(),
            by_agent: false,
            vector,
        }
    }

    fn added(rows: &[Row]) -> impl Iterator<Item = Added<'_>> {
        rows.iter()
            .map(|r| (&*r.id, &*r.path, &*r.tags, r.by_agent, &*r.vector))
    }

    /// A deterministic pseudo-random unit vector.
    fn unit(seed: u64, dim: usize) -> Vec<f32> {
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let v: Vec<f32> = (0..dim)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5
            })
            .collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / norm).collect()
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn the_approximate_order_finds_the_exact_nearest() {
        let dim = 384;
        let mut resident = Resident::empty(1, dim);
        let rows: Vec<Row> = (0..2000)
            .map(|i| row(&format!("c{i}"), &format!("d{}.md", i / 4), unit(i, dim)))
            .collect();
        resident.apply(&[], added(&rows));
        for q in 0..20 {
            let query = unit(10_000 + q, dim);
            let mut exact: Vec<(f32, &str)> = rows
                .iter()
                .map(|r| (cosine(&query, &r.vector), r.id.as_str()))
                .collect();
            exact.sort_by(|a, b| b.0.total_cmp(&a.0));
            // The exact top 8 are all among the approximate top 16 (the store oversamples 2x).
            let approximate = resident.nearest(&query, &Filter::default(), 16);
            for (_, id) in &exact[..8] {
                assert!(approximate.contains(id), "query {q}: {id} missing from {approximate:?}");
            }
            // The approximate cosines a search ranks its dense pool on are the exact ones to 0.002.
            for (row, approx) in resident.nearest_rows(&query, &Filter::default(), 2000) {
                let exact = cosine(&query, &rows[row].vector);
                assert!(
                    (approx - exact).abs() < 0.002,
                    "query {q}, row {row}: {approx} against {exact}"
                );
            }
        }
    }

    #[test]
    fn writes_remove_every_chunk_of_a_path_and_add_the_new_ones() {
        let dim = 8;
        let mut resident = Resident::empty(1, dim);
        resident.apply(
            &[],
            added(&[
                row("a#0", "a.md", unit(1, dim)),
                row("a#1", "a.md", unit(2, dim)),
                row("b#0", "b.md", unit(3, dim)),
            ]),
        );
        resident.apply(&["a.md".into()], added(&[row("a#0@new", "a.md", unit(4, dim))]));
        let mut ids = resident.nearest(&unit(4, dim), &Filter::default(), 10);
        assert_eq!(ids.remove(0), "a#0@new", "the new row is the query's own vector");
        assert_eq!(ids, ["b#0"]);
        assert_eq!(resident.len(), 2);
    }

    #[test]
    fn filters_apply_before_the_top_k() {
        let dim = 8;
        let mut resident = Resident::empty(1, dim);
        let mut agent = row("b#0", "team/b.md", unit(2, dim));
        agent.by_agent = true;
        agent.tags = " db ".into();
        resident.apply(&[], added(&[row("a#0", "a.md", unit(1, dim)), agent]));
        let query = unit(1, dim);
        let only_team = Filter {
            path_prefix: "team/".into(),
            ..Filter::default()
        };
        assert_eq!(resident.nearest(&query, &only_team, 1), ["b#0"]);
        let by_agent = Filter {
            by_agent: Some(true),
            tag: Some("db".into()),
            ..Filter::default()
        };
        assert_eq!(resident.nearest(&query, &by_agent, 5), ["b#0"]);
        let excluded = Filter {
            exclude: vec!["a.md".into(), "team/b.md".into()],
            ..Filter::default()
        };
        assert!(resident.nearest(&query, &excluded, 5).is_empty());
    }

    #[test]
    fn a_zero_vector_scores_zero_rather_than_nan() {
        let mut resident = Resident::empty(1, 4);
        resident.apply(
            &[],
            added(&[
                row("z", "z.md", vec![0.0; 4]),
                row("u", "u.md", vec![1.0, 0.0, 0.0, 0.0]),
            ]),
        );
        assert_eq!(
            resident.nearest(&[1.0, 0.0, 0.0, 0.0], &Filter::default(), 2),
            ["u", "z"]
        );
    }

    #[test]
    fn the_fastest_dot_products_equal_the_plain_ones() {
        // Extreme codes too: -127 * -127 summed over a row is the largest a row can give.
        let mut state = 7u64;
        let mut codes: Vec<i8> = (0..384 * 50)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 56) as i8).max(-127)
            })
            .collect();
        codes[..384].fill(-127);
        let query = codes[..384].to_vec();
        let (mut fastest, mut plain) = (Vec::new(), Vec::new());
        dots_fastest(&query, &codes, 384, &mut fastest);
        dots(&query, &codes, 384, &mut plain);
        assert_eq!(fastest, plain);
        assert_eq!(fastest[0], 127 * 127 * 384);
        assert_eq!(fastest.len(), 50);
    }
}
