#!/usr/bin/env python3
"""Check the fp32 minilm graph from build_minilm_fp32.py, and time it against the int8 file.

    ~/.cache/ragdown/venv/bin/python scripts/check_minilm_fp32.py \
        --fp32 ~/.cache/ragdown/models/minilm-fp32/model.onnx \
        --int8 ~/.cache/ragdown/models/minilm/model.onnx \
        --tokenizer ~/.cache/ragdown/models/minilm/tokenizer.json \
        --weights .../model.safetensors --config .../config.json \
        [--corpus DIR_OF_MARKDOWN] [--runs 3]

1. Reference: a forward pass of BertModel written here in numpy, in float64, from the safetensors
   file (parsed again here, not with the builder's code), against ONNX Runtime on the fp32 graph,
   for a padded batch of sentences: the largest absolute difference of last_hidden_state.
2. Against int8: mean-pooled, L2-normalised sentence vectors of both graphs; their cosines, and
   DESIGN.md's two sanity pairs for each graph.
3. With --corpus: the Markdown files of DIR cut into heading sections (breadcrumb + text,
   like ragdown's chunker without the 1,500-character packing), tokenized without padding,
   truncated at 256, sorted by length, batches of 8 padded to their longest; ONNX Runtime with
   2 intra-op threads, 1 inter-op thread. Both graphs' vectors for every chunk are compared
   (cosine to each other, and how far the chunk-to-chunk cosines move), then timed: fp32 and int8
   runs alternate, best of --runs each.
Exits non-zero when the reference differs by more than 1e-4 or a cosine to int8 is below 0.99.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import struct
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

SENTENCES = [
    "How do I restore a backup?",
    "Restoring backups: run the restore script twice",
    "a recipe for carbonara",
    "The on-call engineer rotates the database credentials every quarter and records it in the log.",
    "Deploy › Production: a release needs approval and ships only in the Thursday window.",
    "kubectl rollout undo deployment/payments --to-revision=41",
]


def load_weights(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        a, b = meta["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype="<f4").reshape(meta["shape"]).astype(np.float64)
    return out


_erf = np.vectorize(math.erf, otypes=[np.float64])


def reference(w: dict, cfg: dict, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> np.ndarray:
    """BertModel's last_hidden_state, float64, straight from the paper's equations."""
    eps = cfg["layer_norm_eps"]
    heads = cfg["num_attention_heads"]
    b, s = ids.shape

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[p + ".weight"] + w[p + ".bias"]

    def lin(x, p):
        return x @ w[p + ".weight"].T + w[p + ".bias"]

    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.token_type_embeddings.weight"][types]
         + w["embeddings.position_embeddings.weight"][np.arange(s)][None])
    x = ln(x, "embeddings.LayerNorm")
    bias = (1.0 - mask.astype(np.float64))[:, None, None, :] * -10000.0
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        d = x.shape[-1] // heads

        def split(t):
            return t.reshape(b, s, heads, d).transpose(0, 2, 1, 3)

        q, k, v = (split(lin(x, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
        sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
        sc = np.exp(sc - sc.max(-1, keepdims=True))
        pr = sc / sc.sum(-1, keepdims=True)
        ctx = (pr @ v).transpose(0, 2, 1, 3).reshape(b, s, heads * d)
        x = ln(lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
        h = lin(x, f"{p}.intermediate.dense")
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
        x = ln(lin(h, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
    return x


def session(path: Path, threads: int) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def pad(batch: list[list[int]]):
    width = max(len(t) for t in batch)
    ids = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for r, t in enumerate(batch):
        ids[r, :len(t)] = t
        mask[r, :len(t)] = 1
    return ids, mask, np.zeros_like(ids)


def run(sess, ids, mask, types) -> np.ndarray:
    return sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                            "token_type_ids": types})[0]


def pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    m = mask[:, :, None].astype(np.float32)
    v = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def chunks(corpus: Path) -> list[str]:
    """Heading sections of every Markdown file, with a breadcrumb, frontmatter dropped."""
    out = []
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_text()
        if text.startswith("---\n"):
            end = text.find("\n---\n", 4)
            text = text[end + 5:] if end >= 0 else text
        trail: list[str] = []
        body: list[str] = []

        def flush():
            content = "\n".join(body).strip()
            if content:
                out.append(" › ".join(trail) + "\n" + content)
            body.clear()

        for line in text.splitlines():
            heading = re.match(r"^(#{1,6})\s+(.*)$", line)
            if heading:
                flush()
                level = len(heading.group(1))
                trail[:] = trail[:level - 1] + [heading.group(2).strip()]
            else:
                body.append(line)
        flush()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fp32", type=Path, required=True)
    ap.add_argument("--int8", type=Path, required=True)
    ap.add_argument("--tokenizer", type=Path, required=True)
    ap.add_argument("--weights", type=Path, required=True)
    ap.add_argument("--config", type=Path, required=True)
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    ok = True

    tok = Tokenizer.from_file(str(args.tokenizer))
    tok.no_padding()
    tok.enable_truncation(256)
    fp32 = session(args.fp32, args.threads)
    int8 = session(args.int8, args.threads)
    for label, s in (("fp32", fp32), ("int8", int8)):
        print(f"{label}: inputs {[(i.name, i.type, i.shape) for i in s.get_inputs()]}, outputs "
              f"{[(o.name, o.type, o.shape) for o in s.get_outputs()]}")

    # 1. Reference forward pass.
    ids, mask, types = pad([tok.encode(t).ids for t in SENTENCES])
    cfg = json.loads(args.config.read_text())
    ref = reference(load_weights(args.weights), cfg, ids, mask, types)
    got = run(fp32, ids, mask, types)
    diff = np.abs(got.astype(np.float64) - ref)
    valid = mask.astype(bool)
    print(f"reference (numpy float64) vs ONNX Runtime fp32, batch {ids.shape}: max |diff| "
          f"{diff.max():.2e} (all positions), {diff[valid].max():.2e} (unpadded), "
          f"max |value| {np.abs(ref).max():.2f}")
    ok &= diff.max() < 1e-4
    ref_vec = pooled(ref, mask)

    # 2. Against int8, and DESIGN.md's sanity pairs.
    v32 = pooled(got, mask)
    v8 = pooled(run(int8, ids, mask, types), mask)
    cos = (v32 * v8).sum(1)
    print("cos(fp32, int8) per sentence: " + ", ".join(f"{c:.4f}" for c in cos))
    print(f"cos(fp32, numpy reference) min: {(v32 * ref_vec).sum(1).min():.8f}")
    ok &= bool(cos.min() > 0.99)
    for label, v in (("fp32", v32), ("int8", v8)):
        print(f"{label}: cos(question, restore answer) = {v[0] @ v[1]:.4f} (DESIGN ~0.535), "
              f"cos(question, carbonara) = {v[0] @ v[2]:.4f} (DESIGN ~0.06)")

    # 3. Speed.
    if args.corpus:
        texts = chunks(args.corpus)
        toks = sorted((tok.encode(t).ids for t in texts), key=len)
        batches = [pad(toks[i:i + args.batch]) for i in range(0, len(toks), args.batch)]
        real = sum(len(t) for t in toks)
        computed = sum(b[0].size for b in batches)
        print(f"corpus {args.corpus}: {len(toks)} chunks, {real / len(toks):.1f} tokens on average, "
              f"{max(map(len, toks))} at most; batches of {args.batch} sorted by length; "
              f"padding share {1 - real / computed:.1%}; {args.threads} intra-op threads")
        # Every chunk through both graphs (also the warm-up): how far apart are their vectors,
        # and how much do the cosines between chunks move (what a score threshold sees)?
        vecs = {label: np.concatenate([pooled(run(sess, *b), b[1]) for b in batches])
                for label, sess in (("fp32", fp32), ("int8", int8))}
        same = (vecs["fp32"] * vecs["int8"]).sum(1)
        shift = np.abs(vecs["fp32"] @ vecs["fp32"].T - vecs["int8"] @ vecs["int8"].T)
        print(f"corpus chunks: cos(fp32, int8) min {same.min():.4f}, mean {same.mean():.4f}; "
              f"chunk-to-chunk cosines move by {shift.mean():.4f} on average, {shift.max():.4f} at most")
        times = {"fp32": [], "int8": []}
        for _ in range(args.runs):
            for label, sess in (("fp32", fp32), ("int8", int8)):
                t0 = time.perf_counter()
                for b in batches:
                    run(sess, *b)
                times[label].append(time.perf_counter() - t0)
        best = {k: len(toks) / min(v) for k, v in times.items()}
        for k, v in times.items():
            print(f"{k}: best {best[k]:.1f} chunks/s; runs " + ", ".join(f"{len(toks) / t:.1f}" for t in v))
        print(f"fp32 / int8 = {best['fp32'] / best['int8']:.2f}")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
