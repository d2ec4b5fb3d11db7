//! What the vector index is and when it is used: its kind and parameters, its threshold, its
//! name, and where a table version's dense pool comes from. The store holds one of these; building,
//! refreshing and searching the index is [`super::ann`].

use lancedb::DistanceType;
use lancedb::index::Index;
use lancedb::index::vector::{IvfFlatIndexBuilder, IvfHnswSqIndexBuilder, IvfPqIndexBuilder, IvfSqIndexBuilder};

/// The rows from which the vector index is built and searched, by default. See docs/scaling.md
/// for the measurements that chose it.
pub const DEFAULT_MIN_ROWS: usize = 200_000;

/// Which of LanceDB's vector indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexKind {
    /// IVF partitions of product-quantised codes.
    IvfPq,
    /// IVF partitions of int8 scalar-quantised vectors.
    IvfSq,
    /// IVF partitions of the vectors themselves.
    IvfFlat,
    /// IVF partitions, each an HNSW graph over scalar-quantised vectors.
    IvfHnswSq,
}

impl IndexKind {
    fn label(self) -> &'static str {
        match self {
            Self::IvfPq => "ivfpq",
            Self::IvfSq => "ivfsq",
            Self::IvfFlat => "ivfflat",
            Self::IvfHnswSq => "ivfhnswsq",
        }
    }
}

/// How the vector index is built and searched.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AnnParams {
    pub kind: IndexKind,
    /// Rows a partition holds on average; the partitions are the table's rows over this.
    pub rows_per_partition: usize,
    /// Dimensions a product-quantisation sub-vector covers (IVF_PQ only).
    pub dims_per_sub_vector: usize,
    /// Partitions searched at the least; more when a filter leaves too few rows in them.
    pub nprobes: usize,
    /// Candidates re-ranked by their stored vectors for each one returned; `None`: none.
    pub refine_factor: Option<u32>,
}

impl Default for AnnParams {
    fn default() -> Self {
        Self {
            kind: IndexKind::IvfPq,
            rows_per_partition: 1_000,
            dims_per_sub_vector: 8,
            nprobes: 20,
            refine_factor: Some(4),
        }
    }
}

impl AnnParams {
    /// The IVF partitions for `rows` rows.
    pub fn partitions(&self, rows: usize) -> u32 {
        (rows / self.rows_per_partition.max(1)).clamp(1, 16_384) as u32
    }

    /// LanceDB's builder for an index over `rows` vectors of `dim` dimensions.
    pub(super) fn index(&self, rows: usize, dim: usize) -> Index {
        let partitions = self.partitions(rows);
        match self.kind {
            IndexKind::IvfPq => {
                let mut sub_vectors = (dim / self.dims_per_sub_vector.max(1)).max(1);
                while !dim.is_multiple_of(sub_vectors) {
                    sub_vectors -= 1;
                }
                Index::IvfPq(
                    IvfPqIndexBuilder::default()
                        .distance_type(DistanceType::Cosine)
                        .num_partitions(partitions)
                        .num_sub_vectors(sub_vectors as u32),
                )
            }
            IndexKind::IvfSq => Index::IvfSq(
                IvfSqIndexBuilder::default()
                    .distance_type(DistanceType::Cosine)
                    .num_partitions(partitions),
            ),
            IndexKind::IvfFlat => Index::IvfFlat(
                IvfFlatIndexBuilder::default()
                    .distance_type(DistanceType::Cosine)
                    .num_partitions(partitions),
            ),
            IndexKind::IvfHnswSq => Index::IvfHnswSq(
                IvfHnswSqIndexBuilder::default()
                    .distance_type(DistanceType::Cosine)
                    .num_partitions(partitions),
            ),
        }
    }
}

/// When and how the store keeps a vector index.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorIndex {
    /// Rows from which the index is built and searched; `usize::MAX`: never.
    pub min_rows: usize,
    /// The embedder's fingerprint: part of the index's name.
    pub embedder: String,
    pub params: AnnParams,
}

impl VectorIndex {
    /// The policy for an embedder with `fingerprint`, from `min_rows` rows, built and searched
    /// with the default parameters.
    pub fn new(min_rows: usize, fingerprint: &str) -> Self {
        Self {
            min_rows,
            embedder: fingerprint.to_owned(),
            params: AnnParams::default(),
        }
    }

    /// The index's name: its kind and a hash of the embedder's fingerprint, so an index is only
    /// ever searched with vectors of the embedder it was built for.
    pub fn name(&self) -> String {
        // FNV-1a: stable across builds and platforms, unlike std's hasher.
        let hash = self.embedder.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("vector_{}_{hash:016x}", self.params.kind.label())
    }
}

impl Default for VectorIndex {
    fn default() -> Self {
        Self::new(DEFAULT_MIN_ROWS, "")
    }
}

/// Where a table version's dense pool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenseMode {
    /// The resident int8 vectors, scanned exactly.
    Resident,
    /// LanceDB's vector index, with its exact scan of the rows not in it yet.
    Indexed,
    /// LanceDB's flat search: past twice the threshold with no index built yet.
    Flat,
}
