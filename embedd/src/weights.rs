//! One copy of a model's weights for every CPU session of it.
//!
//! Each ONNX Runtime session keeps its own copy of the model's initializers (its weights) and of the
//! pre-packed forms its matrix kernels make of them. ONNX Runtime shares both between sessions when
//! it is handed the initializers as tensors (`AddInitializer`) and one pre-packed container: it
//! then uses those tensors instead of copying the ones in the model file, and pre-packs each weight
//! once. The container alone shares nothing, as it only holds weights of shared initializers.
//!
//! So the model file's initializers are read here once, with a decoder for the few fields of
//! ONNX's `ModelProto` that hold them (the wire format is protobuf; unknown fields are skipped).
//! Only tensors of at least [`SHARED_MIN_BYTES`] stored in `raw_data` are shared: those are the
//! weights, and small tensors (shapes, axes) stay the model's own, so constant folding treats
//! them as before. Quantized models share nothing: constant folding turns their int8 weights into
//! float copies of each session's own whatever it is handed (see [`initializers`]). An 8-bit table
//! that the graph only looks rows up in (`Gather`, as multilingual-e5-small's word table) is no
//! such weight: nothing folds it, so it is shared like the float ones.

use std::sync::Arc;

use ort::session::builder::{PrepackedWeights, SessionBuilder};
use ort::value::{DynValue, Tensor};
use prost::bytes::Bytes;

/// The smallest tensor shared; below it, copies cost less than they are worth.
pub(crate) const SHARED_MIN_BYTES: usize = 4096;

/// The weights every CPU session of one model shares.
#[derive(Clone)]
pub(crate) struct SharedWeights {
    initializers: Arc<Vec<(String, Arc<DynValue>)>>,
    prepacked: PrepackedWeights,
}

impl SharedWeights {
    /// The shareable initializers of the ONNX model `bytes`. A file this decoder does not follow
    /// shares nothing (each session keeps its own weights, as before) and says so; it never fails a
    /// load, as ONNX Runtime itself is the judge of the model.
    pub(crate) fn of_model(model: &str, bytes: Bytes) -> Self {
        let initializers = match shareable(bytes) {
            Ok(initializers) => initializers,
            Err(reason) => {
                tracing::warn!(model, "the sessions keep a copy of the weights each: {reason}");
                Vec::new()
            }
        };
        Self {
            initializers: Arc::new(initializers),
            prepacked: PrepackedWeights::new(),
        }
    }

    /// How many initializers are shared.
    pub(crate) fn len(&self) -> usize {
        self.initializers.len()
    }

    /// `builder` with these weights in place of the model file's.
    pub(crate) fn apply(&self, mut builder: SessionBuilder) -> Result<SessionBuilder, ApplyError> {
        for (name, value) in self.initializers.iter() {
            builder = builder
                .with_initializer(name, Arc::clone(value))
                .map_err(|e| ApplyError::Initializer {
                    name: name.clone(),
                    source: e.into(),
                })?;
        }
        builder
            .with_prepacked_weights(&self.prepacked)
            .map_err(|e| ApplyError::Prepacked(e.into()))
    }
}

/// Why a session builder did not take the shared weights.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApplyError {
    /// ONNX Runtime refused one of the initializers.
    #[error("sharing initializer {name}: {source}")]
    Initializer {
        name: String,
        #[source]
        source: ort::Error,
    },
    /// ONNX Runtime refused the pre-packed weights' container.
    #[error(transparent)]
    Prepacked(ort::Error),
}

/// Why a model file's weights are not shared: this decoder does not follow the file.
#[derive(Debug, thiserror::Error)]
enum Unshareable {
    /// `raw_data` holds little-endian words, which this CPU would read wrong.
    #[error("raw_data is little-endian and this CPU is not")]
    BigEndian,
    /// The bytes do not decode as the fields of an ONNX `ModelProto` read here.
    #[error("the model file is not an ONNX model this decoder reads: {0}")]
    Decode(#[source] prost::DecodeError),
    /// The model has no graph, so no initializers.
    #[error("the model file has no graph")]
    NoGraph,
    /// An initializer's data is not as long as its shape and element type need.
    #[error("initializer {name}: {bytes} bytes of data for shape {dims:?}")]
    Shape { name: String, bytes: usize, dims: Vec<i64> },
    /// ONNX Runtime refused to make a tensor of an initializer.
    #[error("initializer {name}: {source}")]
    Tensor {
        name: String,
        #[source]
        source: ort::Error,
    },
}

impl std::fmt::Debug for SharedWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedWeights")
            .field("initializers", &self.initializers.len())
            .finish()
    }
}

/// The fields of `onnx.proto` that hold a graph's initializers (tags from ONNX's schema).
mod onnx {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ModelProto {
        #[prost(message, optional, tag = "7")]
        pub graph: Option<GraphProto>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct GraphProto {
        #[prost(message, repeated, tag = "1")]
        pub node: Vec<NodeProto>,
        #[prost(message, repeated, tag = "5")]
        pub initializer: Vec<TensorProto>,
    }

    /// What a node reads and what it is: enough to see how an initializer is used.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NodeProto {
        #[prost(string, repeated, tag = "1")]
        pub input: Vec<String>,
        #[prost(string, tag = "4")]
        pub op_type: String,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorProto {
        #[prost(int64, repeated, tag = "1")]
        pub dims: Vec<i64>,
        #[prost(int32, tag = "2")]
        pub data_type: i32,
        #[prost(string, tag = "8")]
        pub name: String,
        /// A slice of the model file's bytes, not a copy of them.
        #[prost(bytes = "bytes", tag = "9")]
        pub raw_data: prost::bytes::Bytes,
        /// 1: the data lives in an external file, not here.
        #[prost(int32, tag = "14")]
        pub data_location: i32,
    }
}

/// ONNX `TensorProto.DataType` values this module shares.
const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const INT8: i32 = 3;
const INT32: i32 = 6;
const INT64: i32 = 7;
const DOUBLE: i32 = 11;

/// The model's initializers worth sharing, as tensors.
fn shareable(bytes: Bytes) -> Result<Vec<(String, Arc<DynValue>)>, Unshareable> {
    initializers(bytes)?
        .into_iter()
        .map(|tensor| {
            let name = tensor.name.clone();
            match to_value(tensor) {
                Ok(value) => Ok((name, Arc::new(value))),
                Err(source) => Err(Unshareable::Tensor { name, source }),
            }
        })
        .collect()
}

/// The initializers of the ONNX model `bytes` worth sharing (their data slices of `bytes`): of an
/// element type shared here, at least [`SHARED_MIN_BYTES`] in `raw_data`, with as many bytes as
/// their shape needs.
fn initializers(bytes: Bytes) -> Result<Vec<onnx::TensorProto>, Unshareable> {
    if cfg!(target_endian = "big") {
        return Err(Unshareable::BigEndian);
    }
    let model = <onnx::ModelProto as prost::Message>::decode(bytes).map_err(Unshareable::Decode)?;
    let onnx::GraphProto { node, initializer } = model.graph.ok_or(Unshareable::NoGraph)?;
    let mut shared = Vec::new();
    for tensor in initializer {
        let Some(width) = element_bytes(tensor.data_type) else {
            continue;
        };
        if tensor.data_location != 0 || tensor.raw_data.len() < SHARED_MIN_BYTES {
            continue;
        }
        let elements = tensor
            .dims
            .iter()
            .try_fold(1usize, |n, &d| usize::try_from(d).ok().and_then(|d| n.checked_mul(d)));
        if elements.and_then(|n| n.checked_mul(width)) != Some(tensor.raw_data.len()) {
            return Err(Unshareable::Shape {
                name: tensor.name,
                bytes: tensor.raw_data.len(),
                dims: tensor.dims,
            });
        }
        shared.push(tensor);
    }
    if shared
        .iter()
        .any(|t| matches!(t.data_type, INT8 | UINT8) && !only_gathered_from(&t.name, &node))
    {
        // A quantized model: ONNX Runtime's constant folding dequantizes its weights into float
        // tensors of each session's own (86 MB for minilm's int8 build), and measured, handing it
        // shared int8 ones made three sessions 40-65 MB bigger, not smaller.
        return Ok(Vec::new());
    }
    Ok(shared)
}

/// Whether the graph's nodes read the initializer `name` only as the table of a `Gather` (rows
/// looked up by a run-time input, which constant folding cannot touch). Unread at the top level
/// (a subgraph's, say) counts as no.
fn only_gathered_from(name: &str, nodes: &[onnx::NodeProto]) -> bool {
    let mut readers = nodes.iter().filter(|n| n.input.iter().any(|i| i == name)).peekable();
    readers.peek().is_some() && readers.all(|n| n.op_type == "Gather" && n.input.first().is_some_and(|i| i == name))
}

/// The width of one element of ONNX type `data_type`, for the types shared here.
fn element_bytes(data_type: i32) -> Option<usize> {
    match data_type {
        UINT8 | INT8 => Some(1),
        FLOAT | INT32 => Some(4),
        INT64 | DOUBLE => Some(8),
        _ => None,
    }
}

/// `tensor` (checked by [`initializers`]) as an ONNX Runtime value.
fn to_value(tensor: onnx::TensorProto) -> ort::Result<DynValue> {
    let shape = tensor.dims;
    let raw = tensor.raw_data;
    match tensor.data_type {
        FLOAT => typed(shape, &raw, f32::from_le_bytes),
        DOUBLE => typed(shape, &raw, f64::from_le_bytes),
        INT32 => typed(shape, &raw, i32::from_le_bytes),
        INT64 => typed(shape, &raw, i64::from_le_bytes),
        INT8 => typed(shape, &raw, i8::from_le_bytes),
        _ => typed(shape, &raw, u8::from_le_bytes),
    }
}

/// A tensor of `shape` whose elements are `raw`'s little-endian `N`-byte words.
fn typed<T, const N: usize>(shape: Vec<i64>, raw: &[u8], decode: fn([u8; N]) -> T) -> ort::Result<DynValue>
where
    T: ort::value::PrimitiveTensorElementType + Clone + std::fmt::Debug + 'static,
{
    let data: Vec<T> = raw
        .chunks_exact(N)
        .map(|word| decode(word.try_into().expect("chunks_exact gives N bytes")))
        .collect();
    Tensor::from_array((shape, data)).map(Tensor::into_dyn)
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;

    fn tensor(name: &str, data_type: i32, dims: Vec<i64>, raw_data: Vec<u8>) -> onnx::TensorProto {
        onnx::TensorProto {
            dims,
            data_type,
            name: name.into(),
            raw_data: raw_data.into(),
            data_location: 0,
        }
    }

    fn model(initializer: Vec<onnx::TensorProto>) -> Bytes {
        model_with_nodes(initializer, Vec::new())
    }

    fn model_with_nodes(initializer: Vec<onnx::TensorProto>, node: Vec<onnx::NodeProto>) -> Bytes {
        onnx::ModelProto {
            graph: Some(onnx::GraphProto { node, initializer }),
        }
        .encode_to_vec()
        .into()
    }

    fn node(op_type: &str, input: &[&str]) -> onnx::NodeProto {
        onnx::NodeProto {
            input: input.iter().map(|i| i.to_string()).collect(),
            op_type: op_type.into(),
        }
    }

    #[test]
    fn shares_large_raw_tensors_of_known_types_only() {
        let weights: Vec<u8> = (0..2048u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let mut external = tensor("external", FLOAT, vec![32, 64], weights.clone());
        external.data_location = 1;
        let bytes = model(vec![
            tensor("weight", FLOAT, vec![32, 64], weights),
            tensor(
                "shape",
                INT64,
                vec![2],
                [1i64, -1].iter().flat_map(|v| v.to_le_bytes()).collect(),
            ),
            tensor("strings", 8, vec![4096], vec![0; 4096]),
            external,
        ]);
        let shared = initializers(bytes).unwrap();
        let names: Vec<&str> = shared.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["weight"]);
        assert_eq!(shared[0].dims, [32, 64]);
        assert_eq!(shared[0].raw_data[4..8], 1f32.to_le_bytes());
    }

    #[test]
    fn a_quantized_model_shares_nothing() {
        let floats: Vec<u8> = (0..2048u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
        for codes in [INT8, UINT8] {
            let bytes = model(vec![
                tensor("scales", FLOAT, vec![32, 64], floats.clone()),
                tensor("codes", codes, vec![64, 64], vec![7; 4096]),
            ]);
            assert!(initializers(bytes).unwrap().is_empty());
        }
        let small_codes = model(vec![
            tensor("weight", FLOAT, vec![32, 64], floats),
            tensor("zero_point", INT8, vec![1], vec![0]),
        ]);
        assert_eq!(initializers(small_codes).unwrap().len(), 1);
    }

    #[test]
    fn an_8_bit_table_only_gathered_from_is_shared_and_any_other_use_shares_nothing() {
        let floats: Vec<u8> = (0..2048u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let tensors = || {
            vec![
                tensor("scales", FLOAT, vec![32, 64], floats.clone()),
                tensor("table", INT8, vec![64, 64], vec![7; 4096]),
            ]
        };
        let gathered = model_with_nodes(tensors(), vec![node("Gather", &["table", "input_ids"])]);
        assert_eq!(initializers(gathered).unwrap().len(), 2);
        for nodes in [
            vec![
                node("Gather", &["table", "input_ids"]),
                node("DequantizeLinear", &["table", "scales"]),
            ],
            vec![node("Gather", &["input_ids", "table"])],
            vec![node("MatMulInteger", &["x", "table"])],
            Vec::new(),
        ] {
            let bytes = model_with_nodes(tensors(), nodes.clone());
            assert!(initializers(bytes).unwrap().is_empty(), "{nodes:?}");
        }
    }

    #[test]
    fn a_tensor_whose_data_does_not_fit_its_shape_is_refused() {
        for dims in [vec![32, 64], vec![-1, 2000], vec![i64::MAX, 4]] {
            let bytes = model(vec![tensor("weight", FLOAT, dims.clone(), vec![0; 8000])]);
            let err = initializers(bytes).unwrap_err().to_string();
            assert_eq!(
                err,
                format!("initializer weight: 8000 bytes of data for shape {dims:?}")
            );
        }
    }

    #[test]
    fn bytes_that_are_no_model_share_nothing() {
        let err = initializers(Bytes::from_static(b"\xff\xff\xff\xff"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("the model file is not an ONNX model"), "{err}");
        let no_graph = onnx::ModelProto { graph: None }.encode_to_vec().into();
        assert_eq!(
            initializers(no_graph).unwrap_err().to_string(),
            "the model file has no graph"
        );
    }
}
