#!/usr/bin/env bash
# Load on one `ragdownd serve` over HTTP on loopback: many MCP clients at once doing
# ragdown_recall, ragdown_context and hash-guarded ragdown_edit (bench/src/bin/http-load.rs), on
# ten copies of the runbook corpus (300 documents, 2,100 sections) in one MCP folder. Reports
# requests per second, latency percentiles per tool, errors, and the server's memory over the run.
# Appends to bench/results/<date>-load.jsonl.
#
#   bench/load.sh                 # hash embedder 300 s (the long run), then minilm 60 s; 16 clients
#   SECONDS_HASH=60 CLIENTS=8 bench/load.sh
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
. "$ROOT/bench/serve-lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
SECONDS_HASH=${SECONDS_HASH:-300}
SECONDS_MINILM=${SECONDS_MINILM:-60}
CLIENTS=${CLIENTS:-16}
PORT=${PORT:-3917}
TOKEN=load-bench-token
"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" minilm >/dev/null
(cd "$ROOT" && cargo build --locked --release -p ragdownd --bin ragdownd -p bench --bin ragdown-bench --bin http-load)
BIN="$CARGO_TARGET_DIR/release"
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-load.jsonl"
work_dir
runbook_corpus

# load NAME EMBEDDER SECONDS
load() {
    local name=$1 embedder=$2 seconds=$3
    ten_copies
    "$BIN/ragdownd" serve --docs "$WORK/docs" --data "$WORK/data" --embedder "$embedder" \
        --port "$PORT" --host 127.0.0.1 --token "$TOKEN" 2>"$WORK/$name.log" &
    SERVER=$!
    wait_ready "$PORT" "$WORK/$name.log"
    local command="http-load --clients $CLIENTS --seconds $seconds (ragdownd serve --embedder $embedder)"
    log "$name: $command"
    "$BIN/http-load" --url "http://127.0.0.1:$PORT/mcp/runbooks" --token "$TOKEN" --clients "$CLIENTS" \
        --seconds "$seconds" --pid "$SERVER" --queries "$WORK/queries.txt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
r["name"], r["command"], r["date"] = sys.argv[1:4]
print(json.dumps(r))' "$name" "$command" "$DAY" >> "$OUT"
    kill "$SERVER"
    wait "$SERVER" 2>/dev/null || true
    SERVER=
}
load "load-hash-${SECONDS_HASH}s" hash "$SECONDS_HASH"
load "load-minilm-${SECONDS_MINILM}s" minilm "$SECONDS_MINILM"
log "results in $OUT"
python3 - "$OUT" <<'PY'
import json, sys
print("| run | clients | req/s | errors | p50 / p99 ms (all) | recall p99 | context p99 | edit p99 | RSS first / last minute MB | growth MB/min |")
print("|---|---|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    l, m = r["latency_ms"], r["rss_mb"] or {}
    p99 = lambda k: f'{l[k]["p99"]:.1f}' if l.get(k) else "-"
    print(f'| {r["name"]} | {r["clients"]} | {r["requests_per_s"]:.0f} | {r["errors"]} | {l["all"]["p50"]:.1f} / {l["all"]["p99"]:.1f} '
          f'| {p99("ragdown_recall")} | {p99("ragdown_context")} | {p99("ragdown_edit")} '
          f'| {m.get("first_minute_median", 0):.0f} / {m.get("last_minute_median", 0):.0f} | {m.get("growth_mb_per_min_between_halves", 0):+.2f} |')
PY
