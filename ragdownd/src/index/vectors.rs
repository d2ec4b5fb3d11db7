//! What a section's stored vector is.
//!
//! For most models, the embedding of its text (breadcrumb first, [`chunker::embedding_text`]).
//! For a model whose registry entry sets a `heading_weight` w, the normalised sum of that and w
//! times the embedding of its breadcrumb alone: a short, pure statement of what the section is
//! about, which a long body dilutes. A query's cosine with the sum is the weighted mean of its
//! cosines with the two, up to one norm per section, so nothing downstream changes: one vector per
//! row, one dense scan.
//!
//! Measured on the CJK documentation set (`ragdown-bench multilingual`, multilingual-e5-small at
//! weight 0.5): top-1 on English questions about CJK sections 0.56 → 0.63 and on Japanese ones
//! 0.74 → 0.81, the English runbook set one question lower; at weight 1 a corpus whose sections
//! share their headings (the runbooks' `Deployment › Staging` in every document) loses more, and
//! minilm, whose English must not move, loses 84.3% → 81.9% there at weight 1
//! (bench/results/2026-12-05-multilingual-heading-vectors.md). A breadcrumb
//! is embedded once per group of files however many chunks of a long section share it.

use std::collections::HashMap;

use embedd::TextKind;

use crate::embed::{EmbedError, Embedder};
use crate::markdown::chunker::{self, Chunk};

/// One section to embed: its document's title and the chunk.
pub type Section<'a> = (&'a str, &'a Chunk);

/// The stored vector of each section, in order.
pub async fn embed_sections(embedder: &dyn Embedder, sections: &[Section<'_>]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let mut texts: Vec<String> = sections
        .iter()
        .map(|(title, chunk)| chunker::embedding_text(title, chunk))
        .collect();
    let Some(weight) = embedder.heading_weight() else {
        return embedder.embed(texts, TextKind::Document).await;
    };
    let bodies = texts.len();
    let (crumbs, crumb_of) = breadcrumbs(sections);
    texts.extend(crumbs);
    let mut vectors = embedder.embed(texts, TextKind::Document).await?;
    let heads = vectors.split_off(bodies);
    Ok(vectors
        .into_iter()
        .zip(crumb_of)
        .map(|(body, at)| weighted_sum(&body, &heads[at], weight))
        .collect())
}

/// The distinct breadcrumbs of `sections` in first-appearance order, and each section's place
/// among them: what [`embed_sections`] embeds beside the texts, each once.
pub fn breadcrumbs(sections: &[Section<'_>]) -> (Vec<String>, Vec<usize>) {
    let mut distinct = Vec::new();
    let mut places: HashMap<String, usize> = HashMap::new();
    let of = sections
        .iter()
        .map(|(title, chunk)| {
            let crumb = chunker::breadcrumb(title, &chunk.heading);
            *places.entry(crumb.clone()).or_insert_with(|| {
                distinct.push(crumb);
                distinct.len() - 1
            })
        })
        .collect();
    (distinct, of)
}

/// How an index's vectors were made, for `meta.json`: empty for the text's embedding alone, else
/// the recipe with its weight. A change means the stored vectors are not comparable.
pub fn recipe(heading_weight: Option<f32>) -> String {
    heading_weight.map_or_else(String::new, |w| format!("text+{w}*heading"))
}

/// `a + w·b` scaled to unit length; `a` when the lengths differ or that sum is zero.
fn weighted_sum(a: &[f32], b: &[f32], w: f32) -> Vec<f32> {
    if a.len() != b.len() {
        return a.to_vec();
    }
    let sum: Vec<f32> = a.iter().zip(b).map(|(x, y)| x + w * y).collect();
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm <= f32::EPSILON {
        return a.to_vec();
    }
    sum.into_iter().map(|x| x / norm).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use futures::future::BoxFuture;
    use parking_lot::Mutex;

    use super::*;
    use crate::embed::hash::{HashEmbedder, hash_vector};
    use crate::markdown::chunk_document;

    /// The hash embedder with a heading weight, noting every text it is given.
    #[derive(Debug, Default)]
    pub(crate) struct Weighted {
        pub weight: Option<f32>,
        pub seen: Mutex<Vec<String>>,
    }

    impl Embedder for Weighted {
        fn index_name(&self) -> &str {
            HashEmbedder.index_name()
        }
        fn fingerprint(&self) -> String {
            HashEmbedder.fingerprint()
        }
        fn dim(&self) -> usize {
            HashEmbedder.dim()
        }
        fn min_score(&self) -> f32 {
            HashEmbedder.min_score()
        }
        fn unrelated_score(&self) -> Option<f32> {
            None
        }
        fn heading_weight(&self) -> Option<f32> {
            self.weight
        }
        fn embed<'a>(&'a self, texts: Vec<String>, kind: TextKind) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
            self.seen.lock().extend(texts.iter().cloned());
            HashEmbedder.embed(texts, kind)
        }
    }

    const DOC: &str = "# Backups\n\nNightly dumps.\n\n## Restore\n\nRun the restore script twice.\n";

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[tokio::test]
    async fn without_a_weight_a_section_is_its_texts_embedding() {
        let doc = chunk_document("backups.md", DOC);
        let sections: Vec<Section<'_>> = doc.chunks.iter().map(|c| (doc.title.as_str(), c)).collect();
        let embedder = Weighted::default();
        let vectors = embed_sections(&embedder, &sections).await.unwrap();
        let texts: Vec<String> = doc
            .chunks
            .iter()
            .map(|c| chunker::embedding_text(&doc.title, c))
            .collect();
        assert_eq!(*embedder.seen.lock(), texts);
        let expected: Vec<Vec<f32>> = texts.iter().map(|t| hash_vector(t)).collect();
        assert_eq!(vectors, expected);
    }

    #[tokio::test]
    async fn with_a_weight_a_section_leans_toward_its_heading_path() {
        let doc = chunk_document("backups.md", DOC);
        let sections: Vec<Section<'_>> = doc.chunks.iter().map(|c| (doc.title.as_str(), c)).collect();
        let embedder = Weighted {
            weight: Some(0.5),
            ..Weighted::default()
        };
        let vectors = embed_sections(&embedder, &sections).await.unwrap();
        let restore = doc.chunks.iter().position(|c| c.heading.ends_with("Restore")).unwrap();
        let text = hash_vector(&chunker::embedding_text(&doc.title, &doc.chunks[restore]));
        let crumb = hash_vector(&chunker::breadcrumb(&doc.title, &doc.chunks[restore].heading));
        let v = &vectors[restore];
        assert!((cosine(v, v) - 1.0).abs() < 1e-5, "unit length");
        // (t + 0.5 h) / |t + 0.5 h|: its cosine with h is (t·h + 0.5) / |t + 0.5 h|.
        let norm = (1.0 + 0.25 + cosine(&text, &crumb)).sqrt();
        assert!((cosine(v, &crumb) - (cosine(&text, &crumb) + 0.5) / norm).abs() < 1e-5);
        assert!(cosine(v, &crumb) > cosine(&text, &crumb));
        assert!(cosine(v, &text) < 1.0 - 1e-4);
    }

    #[tokio::test]
    async fn a_breadcrumb_shared_by_chunks_is_embedded_once() {
        let long = format!("# Guide\n\n## Setup\n\n{}", "A sentence about setup. ".repeat(400));
        let doc = chunk_document("guide.md", &long);
        let setup = doc.chunks.iter().filter(|c| c.heading.ends_with("Setup")).count();
        assert!(setup >= 2, "the section is long enough to split: {setup}");
        let sections: Vec<Section<'_>> = doc.chunks.iter().map(|c| (doc.title.as_str(), c)).collect();
        let embedder = Weighted {
            weight: Some(0.5),
            ..Weighted::default()
        };
        let vectors = embed_sections(&embedder, &sections).await.unwrap();
        assert_eq!(vectors.len(), doc.chunks.len());
        let crumbs: std::collections::HashSet<String> = doc
            .chunks
            .iter()
            .map(|c| chunker::breadcrumb(&doc.title, &c.heading))
            .collect();
        assert_eq!(embedder.seen.lock().len(), doc.chunks.len() + crumbs.len());
    }

    #[test]
    fn the_recipe_names_the_weight() {
        assert_eq!(recipe(None), "");
        assert_eq!(recipe(Some(0.5)), "text+0.5*heading");
    }
}
