#!/usr/bin/env bash
# embedd's benchmark in one go: a release embedd under embedd-load (runbook corpus of 210 chunks,
# 10,000 copies, interactive latency idle and under a bulk index), then raw Python ONNX Runtime on
# the same model, threads and texts (length-sorted batches of 8: the physical limit). Results are
# appended to bench/results/<date>-embedd.jsonl, one JSON object per workload.
#
#   bench/run-embedd.sh                      # minilm, CPU, 2 threads, 4 bulk requests in flight
#   THREADS=1 CONCURRENCY=8 bench/run-embedd.sh
#   SESSIONS=1 bench/run-embedd.sh           # one two-thread session instead of two of one
#   DOCS=examples/vault LARGE=2000 bench/run-embedd.sh  # that folder's chunks (and 2,000 copies)
#   PROVIDER=cuda ORT_DYLIB_PATH=... VPY=... bench/run-embedd.sh   # what bench/gpu.sh does
#
# Release builds go to $RAGDOWN_CACHE/target-release (never the test build's directory). embedd
# is stopped before the Python run, so the two never share the CPU. The machines are shared:
# quote the best of --runs, and the machine, from one run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"

MODEL=${MODEL:-minilm}
PROVIDER=${PROVIDER:-cpu}
THREADS=${THREADS:-2}
# embedd's default: one session per thread, at most two (EMBEDD_SESSIONS); one on a GPU.
if [ "$PROVIDER" = cpu ]; then
    SESSIONS=${SESSIONS:-$(( THREADS < 2 ? THREADS : 2 ))}
else
    SESSIONS=${SESSIONS:-1}
fi
DOCS=${DOCS:-}
CORPUS_ARGS=()
CORPUS=runbooks
if [ -n "$DOCS" ]; then
    CORPUS_ARGS=(--docs "$DOCS")
    CORPUS=$(basename "$DOCS")
fi
CONCURRENCY=${CONCURRENCY:-4}
RUNS=${RUNS:-3}
LARGE=${LARGE:-10000}
QUERIES=${QUERIES:-100}
LABEL=${LABEL:-$(uname -n)-$PROVIDER}
GRPC_ADDR=${GRPC_ADDR:-127.0.0.1:50151}
HTTP_ADDR=${HTTP_ADDR:-127.0.0.1:8151}

"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" "$MODEL" >/dev/null
VPY=${VPY:-$("$ROOT/scripts/install-python-tools.sh")}

(cd "$ROOT" && cargo build --locked --release -p embedd --bin embedd -p bench --bin embedd-load)
BIN="$CARGO_TARGET_DIR/release"
DAY=$(date -u +%Y-%m-%d)
mkdir -p "$ROOT/bench/results"
OUT="$ROOT/bench/results/$DAY-embedd.jsonl"
WORK=$(mktemp -d)
EMBEDD_PID=
cleanup() {
    [ -n "$EMBEDD_PID" ] && kill "$EMBEDD_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

"$BIN/embedd-load" "${CORPUS_ARGS[@]}" --dump-chunks "$WORK/chunks.json"

log "starting embedd ($MODEL on $PROVIDER, $THREADS threads, $SESSIONS sessions) on $GRPC_ADDR / $HTTP_ADDR"
EMBEDD_MODEL=$MODEL EMBEDD_PROVIDER=$PROVIDER EMBEDD_THREADS=$THREADS EMBEDD_SESSIONS=$SESSIONS EMBEDD_OFFLINE=true \
    EMBEDD_GRPC_ADDR=$GRPC_ADDR EMBEDD_HTTP_ADDR=$HTTP_ADDR \
    "$BIN/embedd" 2>"$WORK/embedd.log" &
EMBEDD_PID=$!
wait_for_embedd "$EMBEDD_PID" "$WORK/embedd.log"

"$BIN/embedd-load" "${CORPUS_ARGS[@]}" --large "$LARGE" --queries "$QUERIES" --grpc "http://$GRPC_ADDR" --http "http://$HTTP_ADDR" --concurrency "$CONCURRENCY" \
    --runs "$RUNS" --label "$LABEL" --model-dir "$RAGDOWN_MODELS/$MODEL" | tee -a "$OUT"
kill -TERM "$EMBEDD_PID"
wait "$EMBEDD_PID" || true
EMBEDD_PID=

log "raw Python ONNX Runtime, same model, threads and texts"
RAW_PROVIDER=cpu
[ "$PROVIDER" = cuda ] && RAW_PROVIDER=cuda
"$VPY" "$ROOT/bench/raw_ort.py" --chunks "$WORK/chunks.json" --model-dir "$RAGDOWN_MODELS/$MODEL" \
    --threads "$THREADS" --sessions "$SESSIONS" --corpus "$CORPUS" --large "$LARGE" --runs "$RUNS" --batch "${RAW_BATCH:-8}" --provider "$RAW_PROVIDER" --label "$LABEL" | tee -a "$OUT"

log "results appended to $OUT"
"$PYTHON" - "$OUT" "$LABEL" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get("label") == sys.argv[2]][-5:]
print("| workload | chunks | chunks/s | tokens/s | padding (server / unbucketed / raw) | latency p50/p99 ms idle, under bulk |")
print("|---|---|---|---|---|---|")
for r in rows:
    if r["workload"] == "interactive-latency":
        print(f"| {r['workload']} | {r['bulk_chunks']} | {r['bulk_chunks_per_s']} (bulk) | | | "
              f"{r['idle_p50_ms']}/{r['idle_p99_ms']}, {r['under_bulk_p50_ms']}/{r['under_bulk_p99_ms']} |")
    elif "padding_share_server" in r:
        print(f"| embedd {r['workload']} | {r['chunks']} | {r['chunks_per_s']} | {r['tokens_per_s']} | "
              f"{r['padding_share_server']:.1%} / {r['padding_share_without_bucketing']:.1%} | |")
    else:
        print(f"| {r['workload']} | {r['chunks']} | {r['chunks_per_s']} | {r['tokens_per_s']} | "
              f"{r['padding_share']:.1%} (raw) | |")
PY
