#!/usr/bin/env bash
# An agent's edit under load: hash-guarded `ragdown_edit`s (each read first for its hash) over
# MCP on streamable HTTP, by 1 and by 8 writers, alone and with 16 readers doing ragdown_recall
# and ragdown_context beside them (bench/src/bin/http-load.rs), on ten copies of the runbook
# corpus (300 documents, 2,100 sections) in one MCP folder, hash embedder, a fresh server per run.
# Appends one JSON line per run to bench/results/<date>-edit-latency.jsonl.
#
#   bench/edit-latency.sh                      # this checkout's release build, 30 s a run
#   BENCH=/path/to/ragdownd LABEL=before bench/edit-latency.sh   # another build of ragdownd
#   SECONDS_RUN=60 bench/edit-latency.sh
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
. "$ROOT/bench/serve-lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
SECONDS_RUN=${SECONDS_RUN:-30}
PORT=${PORT:-3918}
TOKEN=edit-bench-token
(cd "$ROOT" && cargo build --locked --release -p ragdownd --bin ragdownd -p bench --bin ragdown-bench --bin http-load)
BIN="$CARGO_TARGET_DIR/release"
RAGDOWND=${BENCH:-$BIN/ragdownd}
LABEL=${LABEL:-$(git -C "$ROOT" rev-parse --short HEAD)}
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-edit-latency.jsonl"
work_dir
runbook_corpus

# run WRITERS READERS
run() {
    local writers=$1 readers=$2
    ten_copies
    "$RAGDOWND" serve --docs "$WORK/docs" --data "$WORK/data" --embedder hash --watch false \
        --port "$PORT" --host 127.0.0.1 --token "$TOKEN" 2>"$WORK/server.log" &
    SERVER=$!
    wait_ready "$PORT" "$WORK/server.log"
    local command="http-load --writers $writers --readers $readers --seconds $SECONDS_RUN (ragdownd serve --embedder hash --watch false)"
    log "$LABEL: $command"
    "$BIN/http-load" --url "http://127.0.0.1:$PORT/mcp/runbooks" --token "$TOKEN" --writers "$writers" \
        --readers "$readers" --seconds "$SECONDS_RUN" --pid "$SERVER" --queries "$WORK/queries.txt" | python3 -c '
import json, sys
r = json.load(sys.stdin)
r["label"], r["command"], r["date"] = sys.argv[1:4]
print(json.dumps(r))' "$LABEL" "$command" "$DAY" >> "$OUT"
    kill "$SERVER"
    wait "$SERVER" 2>/dev/null || true
    SERVER=
}
for readers in 0 16; do
    for writers in 1 8; do
        run "$writers" "$readers"
    done
done
log "results in $OUT"
python3 - "$OUT" <<'PY'
import json, sys
print("| build | writers | readers | edits/s | edit p50 / p95 / p99 ms | recall p50 / p99 ms | errors |")
print("|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    l = r["latency_ms"]
    e, q = l.get("ragdown_edit") or {}, l.get("ragdown_recall") or {}
    f = lambda d, k: f'{d[k]:.1f}' if d else "-"
    rate = (e.get("n", 0) / r["seconds"]) if e else 0
    print(f'| {r["label"]} | {r["writers"]} | {r["readers"]} | {rate:.1f} | {f(e, "p50")} / {f(e, "p95")} / {f(e, "p99")} '
          f'| {f(q, "p50")} / {f(q, "p99")} | {r["errors"]} |')
PY
