#!/usr/bin/env bash
# What an idle embedd server gives back: a release embedd at its defaults (every core, one bulk
# session per thread up to two, one query session) embeds LARGE runbook chunks through
# embedd-load, then sits idle for WAIT seconds while its resident memory and the sessions holding
# a model (/metrics' embedd_sessions_resident) are read every second. Run once with the bulk
# sessions resting after REST seconds and once with REST=0 (they never rest) to compare. One JSON
# line per run is appended to bench/results/<date>-embedd-rest.jsonl.
#
#   bench/embedd-rest.sh                    # REST=10 WAIT=20 LARGE=2000 MODEL=minilm-fp32
#   REST=0 bench/embedd-rest.sh             # the same without resting, for the A/B
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
MODEL=${MODEL:-minilm-fp32}
REST=${REST:-10}
WAIT=${WAIT:-20}
LARGE=${LARGE:-2000}
GRPC_ADDR=${GRPC_ADDR:-127.0.0.1:50161}
HTTP_ADDR=${HTTP_ADDR:-127.0.0.1:8161}

"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" "$MODEL" >/dev/null
(cd "$ROOT" && cargo build --locked --release -p embedd --bin embedd -p bench --bin embedd-load)
BIN="$CARGO_TARGET_DIR/release"
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-embedd-rest.jsonl"
WORK=$(mktemp -d)
EMBEDD_PID=
cleanup() {
    [ -n "$EMBEDD_PID" ] && kill "$EMBEDD_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

log "starting embedd ($MODEL, EMBEDD_REST_AFTER_SECS=$REST) on $GRPC_ADDR / $HTTP_ADDR"
EMBEDD_MODEL=$MODEL EMBEDD_PROVIDER=cpu EMBEDD_OFFLINE=true EMBEDD_REST_AFTER_SECS=$REST \
    EMBEDD_GRPC_ADDR=$GRPC_ADDR EMBEDD_HTTP_ADDR=$HTTP_ADDR \
    "$BIN/embedd" 2>"$WORK/embedd.log" &
EMBEDD_PID=$!
wait_for_embedd "$EMBEDD_PID" "$WORK/embedd.log"

sample() { # sample LABEL: one line "<label> <seconds since the load ended> <RSS MB> <sessions resident>"
    local rss sessions
    rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$EMBEDD_PID/status")
    sessions=$(curl -fsS "http://$HTTP_ADDR/metrics" | awk '$1 == "embedd_sessions_resident" {print $2}')
    echo "$1 $(($(date +%s) - LOADED)) $rss $sessions" >>"$WORK/samples.txt"
}
LOADED=$(date +%s)
sample started
log "embedd-load: $LARGE runbook chunks, then idle for $WAIT s"
"$BIN/embedd-load" --large "$LARGE" --queries 20 --runs 1 --grpc "http://$GRPC_ADDR" --http "http://$HTTP_ADDR" \
    --label "rest-$REST" --model-dir "$RAGDOWN_MODELS/$MODEL" >"$WORK/load.json"
LOADED=$(date +%s)
for _ in $(seq 0 "$WAIT"); do
    sample idle
    sleep 1
done
PEAK=$(awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$EMBEDD_PID/status")
kill -TERM "$EMBEDD_PID"
wait "$EMBEDD_PID" || true
EMBEDD_PID=

"$PYTHON" - "$WORK/samples.txt" "$WORK/load.json" "$MODEL" "$REST" "$LARGE" "$PEAK" "$DAY" <<'PY' | tee -a "$OUT"
import json, sys
samples = [line.split() for line in open(sys.argv[1])]
load = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
idle = [[int(s), int(mb), int(n)] for label, s, mb, n in samples if label == "idle"]
print(json.dumps({"what": "embedd's memory while idle after a bulk load",
                  "model": sys.argv[3], "rest_after_secs": int(sys.argv[4]), "chunks": int(sys.argv[5]),
                  "rss_mb_at_start": int(samples[0][2]), "peak_rss_mb": int(sys.argv[6]),
                  "rss_mb_when_load_ended": idle[0][1], "rss_mb_at_end": idle[-1][1],
                  "sessions_when_load_ended": idle[0][2], "sessions_at_end": idle[-1][2],
                  "idle_s_rss_mb_sessions": idle,
                  "bulk_chunks_per_s": [r.get("chunks_per_s") for r in load if "chunks_per_s" in r],
                  "command": f"REST={sys.argv[4]} LARGE={sys.argv[5]} MODEL={sys.argv[3]} bench/embedd-rest.sh",
                  "date": sys.argv[7]}))
PY
