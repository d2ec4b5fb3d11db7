#!/usr/bin/env python3
"""The physical limit embedd is measured against: raw Python ONNX Runtime on the same model,
texts and threads, in length-sorted batches of 8 (the best batching measured on our CPUs).

    python bench/raw_ort.py --chunks chunks.json --model-dir ~/.cache/ragdown/models/minilm --threads 2

chunks.json is a JSON array of strings (`embedd-load --dump-chunks chunks.json` writes the runbook
corpus's 210 chunks as ragdownd embeds them). Prints one JSON line per corpus: the 210 chunks and
--large copies of them (10,000 by default). Mean pooling and L2 normalisation are included, as
embedd does them.
"""
import argparse
import json
import os
import threading
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", required=True)
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=1,
                        help="sessions running batches side by side from as many Python threads "
                             "(ONNX Runtime releases the GIL), sharing --threads")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--prefix", default="",
                        help="prepended to every text, as embedd prepends the model's document prefix "
                             "(multilingual-e5-small: 'passage: ')")
    parser.add_argument("--extra", default="",
                        help="a JSON array of more texts embedded in the same pass, not counted as "
                             "chunks: the breadcrumbs ragdownd also embeds for a model with a heading "
                             "weight (embedd-load --dump-headings)")
    parser.add_argument("--large", type=int, default=10_000,
                        help="also this many chunks (copies of the corpus); 0 or the corpus's size: none")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--provider", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--label", default="")
    parser.add_argument("--corpus", default="runbooks", help="the corpus's name in the workload names")
    args = parser.parse_args()

    texts = [args.prefix + text for text in json.load(open(args.chunks))]
    extra = [args.prefix + text for text in json.load(open(args.extra))] if args.extra else []
    tokenizer = Tokenizer.from_file(os.path.join(args.model_dir, "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=args.max_length)
    options = ort.SessionOptions()
    providers = ["CUDAExecutionProvider", "CPUExecutionProvider"] if args.provider == "cuda" else ["CPUExecutionProvider"]
    sessions = []
    for i in range(args.sessions):
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, args.threads // args.sessions + (i < args.threads % args.sessions))
        options.inter_op_num_threads = 1
        sessions.append(ort.InferenceSession(os.path.join(args.model_dir, "model.onnx"), options, providers=providers))
    session = sessions[0]
    inputs = {i.name for i in session.get_inputs()}

    def embed(batch, session=session):
        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    for s in sessions:
        embed([tokenizer.encode("warm-up").ids], s)

    def run_all(batches):
        """Every batch, on whichever session is free next."""
        if len(sessions) == 1:
            for batch in batches:
                embed(batch)
            return
        todo = iter(batches)
        lock = threading.Lock()

        def work(s):
            while True:
                with lock:
                    batch = next(todo, None)
                if batch is None:
                    return
                embed(batch, s)

        threads = [threading.Thread(target=work, args=(s,)) for s in sessions]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    corpora = [(f"raw-ort-{args.corpus}-{len(texts)}", texts)]
    if args.large > 0 and args.large != len(texts) and not extra:
        large = (texts * (args.large // len(texts) + 1))[: args.large]
        corpora.append((f"raw-ort-{args.corpus}-{len(large)}", large))
    for name, corpus in corpora:
        best = None
        for _ in range(args.runs):
            started = time.perf_counter()
            encoded = [e.ids for e in tokenizer.encode_batch(corpus + extra)]
            order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
            batches = [[encoded[i] for i in order[start : start + args.batch]]
                       for start in range(0, len(order), args.batch)]
            run_all(batches)
            real = sum(len(b) for batch in batches for b in batch)
            computed = sum(max(len(b) for b in batch) * len(batch) for batch in batches)
            seconds = time.perf_counter() - started
            if best is None or seconds < best[0]:
                best = (seconds, real, computed)
        seconds, real, computed = best
        print(json.dumps({
            "workload": name,
            "label": args.label,
            "provider": session.get_providers()[0],
            "onnxruntime": ort.__version__,
            "threads": args.threads,
            "sessions": args.sessions,
            "batch": args.batch,
            "chunks": len(corpus),
            "extra_texts": len(extra),
            "tokens": real,
            "runs": args.runs,
            "best_seconds": round(seconds, 3),
            "chunks_per_s": round(len(corpus) / seconds, 1),
            "tokens_per_s": round(real / seconds),
            "padding_share": round((computed - real) / computed, 4),
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
        }), flush=True)


if __name__ == "__main__":
    main()
