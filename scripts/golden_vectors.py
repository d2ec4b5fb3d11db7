#!/usr/bin/env python3
"""Golden embeddings for the `minilm` model, computed independently of the Rust code.

Usage (with the venv from scripts/install-python-tools.sh and the model from
scripts/install-model.sh):

    ~/.cache/ragdown/venv/bin/python scripts/golden_vectors.py \
        --out embedd/tests/data/golden-minilm.json
    ~/.cache/ragdown/venv/bin/python scripts/golden_vectors.py \
        --model-dir ~/.cache/ragdown/models/minilm-fp32 --out embedd/tests/data/golden-minilm-fp32.json

Pipeline, written out by hand so it is a second opinion on embedd's, not a copy of it:
  1. tokenize with the model's tokenizer.json (Hugging Face `tokenizers`), overriding what the
     file pins (Fixed-128 padding, truncation at 128): longest-in-batch padding, truncation at 256;
  2. run the ONNX graph with Python `onnxruntime` (inputs input_ids, attention_mask,
     token_type_ids, all int64; output last_hidden_state [B, S, 384]);
  3. mean-pool last_hidden_state over the attention mask, then L2-normalise.

Every text is embedded alone (a batch of 1), so there is no padding in the golden vectors. The
script also embeds all texts as one padded batch and reports (stderr, and `batch_vs_alone_max_abs`
in the JSON) how far those vectors are from the ones embedded alone. With this graph (int8 weight
initializers turned back into float by Cast/Mul, float activations, no dynamic quantization) that
difference was exactly 0 with ONNX Runtime 1.32 on 1 and 2 threads, so a batched embedding in
embedd should match these vectors to float rounding.

Sanity checks from DESIGN.md, which fail the run when off by more than 0.05:
  cos("How do I restore a backup?", "Restoring backups: run the restore script twice") ~ 0.535
  cos("How do I restore a backup?", "a recipe for carbonara")                         ~ 0.06
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

try:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer
except ImportError as err:  # pragma: no cover - environment check
    sys.exit(f"golden_vectors: {err}. Run scripts/install-python-tools.sh and use its venv's python "
             "(~/.cache/ragdown/venv/bin/python).")

MAX_LENGTH = 256
DIM = 384
EXPECTED_COS_ANSWER = 0.535
EXPECTED_COS_CARBONARA = 0.06
TOLERANCE = 0.05

QUESTION = "How do I restore a backup?"
ANSWER = "Restoring backups: run the restore script twice"
CARBONARA = "a recipe for carbonara"

# About 2,300 characters of ordinary prose: well over 256 word pieces, so truncation is exercised.
LONG_PARAGRAPH = (
    "When the primary database node fails during business hours, the on-call engineer should "
    "first confirm that the failure is real and not a monitoring glitch by checking the replication "
    "lag dashboard, the connection pool metrics and the error rate of the API gateway. If the "
    "primary is truly gone, promote the most up-to-date replica using the failover runbook, update "
    "the service discovery record so that application servers reconnect to the new primary, and "
    "announce the incident in the operations channel with a short summary of what happened and what "
    "is being done. Do not attempt to restart the failed node before the promotion has finished, "
    "because a node that comes back with a stale timeline can accept writes that later have to be "
    "discarded. Once traffic is flowing again, take a fresh base backup of the new primary, verify "
    "that write-ahead log archiving is working by forcing a segment switch and watching the archive "
    "bucket, and rebuild the old primary as a replica from that backup rather than trying to rewind "
    "it. Record every command you ran, with timestamps, in the incident document; the review next "
    "week depends on an accurate timeline. If the restore from backup is needed because data was "
    "corrupted rather than lost, pick the recovery target time carefully: ask the team that reported "
    "the problem for the earliest moment they are sure the data was still correct, subtract a safety "
    "margin of a few minutes, and restore into a separate instance first so that you can compare "
    "rows before touching production. Large tables take a long time to restore, so run the restore "
    "with several parallel jobs, keep an eye on disk space on the target volume, and remember that "
    "indexes are rebuilt at the end, which is often the slowest phase. After the incident, update "
    "this runbook with anything that was missing or wrong, file tickets for the follow-up work, and "
    "thank the people who helped, including those who only answered a question at three in the "
    "morning. Finally, schedule a game day within the next month to rehearse the same failure on the "
    "staging cluster, so that the next engineer on call has practised every step before they need it."
)

TEXTS = [
    QUESTION,
    ANSWER,
    CARBONARA,
    LONG_PARAGRAPH,
    "Zürich café — naïve résumé: the Müller team’s façade, 2°C at 06:00",
    "x",
    "```bash\n# restore the nightly dump in parallel\npg_restore --jobs=4 --clean --if-exists "
    "-d orders /backups/orders-2026-11-29.dump\n```",
    "| Setting | Default | Notes |\n|---|---|---|\n| max_batch_tokens | 16384 | tokens per batch |\n"
    "| intra_op_threads | 2 | per worker |\n| RAGDOWN_MODELS | ~/.cache/ragdown/models | model dir |",
]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_tokenizer(path: Path) -> Tokenizer:
    tok = Tokenizer.from_file(str(path))
    pad = tok.padding or {}
    # Override the file's Fixed(128) padding and 128 truncation.
    tok.enable_padding(
        pad_id=pad.get("pad_id", 0),
        pad_type_id=pad.get("pad_type_id", 0),
        pad_token=pad.get("pad_token", "[PAD]"),
        length=None,  # longest in the batch; a batch of one is not padded at all
    )
    tok.enable_truncation(max_length=MAX_LENGTH)
    return tok


def embed(session: ort.InferenceSession, tok: Tokenizer, texts: list[str]):
    encodings = tok.encode_batch(texts)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    types = np.array([e.type_ids for e in encodings], dtype=np.int64)
    (hidden,) = session.run(
        ["last_hidden_state"],
        {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
    )
    assert hidden.shape == (len(texts), ids.shape[1], DIM), hidden.shape
    hidden = hidden.astype(np.float64)
    m = mask.astype(np.float64)[:, :, None]
    pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    vectors = pooled / np.clip(norms, 1e-12, None)
    return vectors, encodings


def to_json(result: dict) -> str:
    """Indented JSON with each vector and token-id list on one line (readable diffs)."""
    lines = ["{"]
    items = list(result.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if key in ("vectors", "token_ids", "texts"):
            rows = [json.dumps(v, ensure_ascii=False) for v in value]
            body = ",\n".join("  " + r for r in rows)
            lines.append(f" {json.dumps(key)}: [\n{body}\n ]{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    cache = Path(
        os.environ.get("RAGDOWN_CACHE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ragdown"
    )
    models = Path(os.environ.get("RAGDOWN_MODELS") or cache / "models")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, default=models / "minilm",
                        help="directory with model.onnx and tokenizer.json (default: %(default)s)")
    parser.add_argument("--out", type=Path, help="write the JSON here instead of stdout")
    args = parser.parse_args()

    onnx_path = args.model_dir / "model.onnx"
    tok_path = args.model_dir / "tokenizer.json"
    for p in (onnx_path, tok_path):
        if not p.is_file():
            print(f"golden_vectors: {p} not found; run scripts/install-model.sh minilm", file=sys.stderr)
            return 1

    tok = load_tokenizer(tok_path)
    opts = ort.SessionOptions()
    # One thread: the reference run should not depend on how the work is split.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(str(onnx_path), sess_options=opts, providers=["CPUExecutionProvider"])

    alone = []
    token_ids = []
    for text in TEXTS:
        vec, enc = embed(session, tok, [text])
        alone.append(vec[0])
        token_ids.append(enc[0].ids)
    alone = np.stack(alone)

    batched, _ = embed(session, tok, TEXTS)
    batch_diff = float(np.abs(batched - alone).max())
    batch_cos_min = float((batched * alone).sum(axis=1).min())

    cos_answer = float(alone[0] @ alone[1])
    cos_carbonara = float(alone[0] @ alone[2])
    n_long = len(token_ids[3])
    print(f"golden_vectors: onnxruntime {ort.__version__}, {len(TEXTS)} texts, "
          f"tokens per text {[len(t) for t in token_ids]}", file=sys.stderr)
    print(f"golden_vectors: cos(question, answer)    = {cos_answer:.4f} (expected ~{EXPECTED_COS_ANSWER})",
          file=sys.stderr)
    print(f"golden_vectors: cos(question, carbonara) = {cos_carbonara:.4f} (expected ~{EXPECTED_COS_CARBONARA})",
          file=sys.stderr)
    print(f"golden_vectors: all texts in one padded batch vs alone: max |diff| {batch_diff:.2e}, "
          f"min cos {batch_cos_min:.6f}", file=sys.stderr)

    failures = []
    if abs(cos_answer - EXPECTED_COS_ANSWER) > TOLERANCE:
        failures.append(f"cos(question, answer) {cos_answer:.4f} is not within {TOLERANCE} of {EXPECTED_COS_ANSWER}")
    if abs(cos_carbonara - EXPECTED_COS_CARBONARA) > TOLERANCE:
        failures.append(f"cos(question, carbonara) {cos_carbonara:.4f} is not within {TOLERANCE} of {EXPECTED_COS_CARBONARA}")
    if n_long != MAX_LENGTH:
        failures.append(f"the long paragraph has {n_long} tokens, expected truncation to {MAX_LENGTH}")
    if not np.allclose(np.linalg.norm(alone, axis=1), 1.0, atol=1e-6):
        failures.append("vectors are not unit length")
    if failures:
        for f in failures:
            print(f"golden_vectors: FAIL: {f}", file=sys.stderr)
        return 1

    result = {
        "model": "minilm",
        "onnx_sha256": sha256_file(onnx_path),
        "tokenizer_sha256": sha256_file(tok_path),
        "onnxruntime_version": ort.__version__,
        "tokenizers_version": __import__("tokenizers").__version__,
        "pooling": "mean",
        "normalize": True,
        "max_length": MAX_LENGTH,
        "dim": DIM,
        "note": "each text embedded alone (batch of 1, no padding), 1 intra-op thread; "
                "vectors rounded to 7 decimals",
        "texts": TEXTS,
        "token_ids": token_ids,
        "vectors": [[round(float(x), 7) for x in v] for v in alone],
        "cos_restore_question_vs_answer": round(cos_answer, 7),
        "cos_question_vs_carbonara": round(cos_carbonara, 7),
        "batch_vs_alone_max_abs": float(f"{batch_diff:.3g}"),
    }
    text = to_json(result)
    if args.out:
        tmp = args.out.with_name(args.out.name + ".tmp")
        tmp.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, args.out)
        print(f"golden_vectors: wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
