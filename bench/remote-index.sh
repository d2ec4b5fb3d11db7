#!/usr/bin/env bash
# A full index of the runbook corpus through ragdownd three ways in one run: in-process, through
# one `embedd` worker, and through two workers (ragdownd's remote embedder: parts of 64 to the
# least busy worker). The same model and the same CPU threads in all: 2 threads in 2 sessions
# in-process and in the one worker, one thread each in the two workers. Appends to
# bench/results/<date>-remote-index.jsonl.
#
#   bench/remote-index.sh                  # MODEL=minilm-fp32 RUNS=3
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
MODEL=${MODEL:-minilm-fp32}
RUNS=${RUNS:-3}
"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" "$MODEL" >/dev/null
(cd "$ROOT" && cargo build --locked --release -p embedd --bin embedd -p bench --bin ragdown-bench)
BIN="$CARGO_TARGET_DIR/release"
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-remote-index.jsonl"
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
"$BIN/ragdown-bench" corpus --out "$WORK/runbooks" >/dev/null
rm "$WORK/runbooks/questions.json"

# start_worker NAME GRPC_PORT HTTP_PORT THREADS SESSIONS
start_worker() {
    EMBEDD_MODEL=$MODEL EMBEDD_PROVIDER=cpu EMBEDD_THREADS=$4 EMBEDD_SESSIONS=$5 EMBEDD_OFFLINE=true \
        EMBEDD_GRPC_ADDR=127.0.0.1:$2 EMBEDD_HTTP_ADDR=127.0.0.1:$3 \
        "$BIN/embedd" 2>"$WORK/$1.log" &
    PIDS+=($!)
    wait_for_embedd "${PIDS[-1]}" "$WORK/$1.log"
}

stop_workers() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    PIDS=()
}

# run LABEL ARGS...: one ragdown-bench index, one JSON line.
run() {
    local label=$1
    shift
    log "$label"
    "$BIN/ragdown-bench" index --docs "$WORK/runbooks" --embedder "$MODEL" --runs "$RUNS" --query-reps 1 "$@" \
        2>/dev/null | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)
print(json.dumps({"what": sys.argv[1], "model": sys.argv[2], "chunks": r["chunks"],
                  "chunks_per_s": r["index_chunks_per_s_median"], "recall_ms_p50": r["recall_ms_p50"],
                  "command": "ragdown-bench index --docs <runbook corpus> " + " ".join(sys.argv[4:]),
                  "date": sys.argv[3]}))' "$label" "$MODEL" "$DAY" --embedder "$MODEL" --runs "$RUNS" "$@" | tee -a "$OUT"
}

run "in-process, 2 threads in 2 sessions" --threads 2 --sessions 2
start_worker one 50161 8161 2 2
run "one embedd worker, 2 threads in 2 sessions" --embedd-url http://127.0.0.1:50161
stop_workers
start_worker a 50162 8162 1 1
start_worker b 50163 8163 1 1
run "two embedd workers, 1 thread each" --embedd-url http://127.0.0.1:50162,http://127.0.0.1:50163
stop_workers
log "results appended to $OUT"
