#!/usr/bin/env bash
# Two release builds side by side, in one run: indexing and search (ragdown-bench index, the
# runbook corpus with minilm and 50 copies of it with the hash embedder, 10,500 chunks) and HTTP
# load (http-load against ragdownd serve, hash embedder), each workload run on A then B, twice, so
# that drift on a noisy machine falls on both. For a change of build settings (the release profile,
# features): build each into its own target directory first, then point A and B at their
# `release/` folders. Appends to bench/results/<date>-release-ab.jsonl and prints a table.
#
#   bench/release-ab.sh A_BIN B_BIN           # e.g. ~/.cache/ragdown/target-release-base/release
#   LOAD_SECONDS=30 CLIENTS=8 bench/release-ab.sh A_BIN B_BIN
#   ROUNDS=6 ONLY=load bench/release-ab.sh A_BIN B_BIN   # more rounds of one workload (index, load)
#
# Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
. "$ROOT/bench/serve-lib.sh"
[ $# -eq 2 ] || die "usage: bench/release-ab.sh A_BIN B_BIN (two release/ folders)"
A=$(cd "$1" && pwd)
B=$(cd "$2" && pwd)
LOAD_SECONDS=${LOAD_SECONDS:-30}
CLIENTS=${CLIENTS:-8}
ROUNDS=${ROUNDS:-2}
ONLY=${ONLY:-}
case $ONLY in "" | index | load) ;; *) die "ONLY is index or load, not $ONLY" ;; esac
PORT=${PORT:-3918}
TOKEN=release-ab-token
"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" minilm >/dev/null
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-release-ab.jsonl"
FIRST_ROW=1
[ -f "$OUT" ] && FIRST_ROW=$(($(wc -l <"$OUT") + 1))
work_dir
BIN=$A
runbook_corpus

# row BUILD NAME COMMAND : the JSON on stdin with the build, name, command and date added.
row() {
    python3 -c '
import json, sys
r = json.load(sys.stdin)
r["build"], r["name"], r["command"], r["date"] = sys.argv[1:5]
print(json.dumps(r))' "$@" "$DAY" >> "$OUT"
}

# size_row BUILD BIN : the sizes of its ragdownd and embedd, and of ragdownd's code (`.text`).
size_row() {
    local build=$1 bin=$2
    python3 -c '
import json, os, subprocess, sys
bin = sys.argv[1]
text = next(int(l.split()[1]) for l in subprocess.run(["size", "-A", f"{bin}/ragdownd"],
    capture_output=True, text=True, check=True).stdout.splitlines() if l.startswith(".text "))
print(json.dumps({"workload": "size", "dir": bin, "ragdownd_bytes": os.path.getsize(f"{bin}/ragdownd"),
    "ragdownd_text_bytes": text, "embedd_bytes": os.path.getsize(f"{bin}/embedd")}))' "$bin" |
        row "$build" size "stat, size -A"
}

# index BUILD BIN NAME ARGS...
index() {
    local build=$1 bin=$2 name=$3
    shift 3
    log "$build $name: ragdown-bench index $*"
    "$bin/ragdown-bench" index --docs "$WORK/corpus" --queries "$WORK/queries.txt" "$@" 2>"$WORK/index.log" |
        row "$build" "$name" "ragdown-bench index $*"
}

# load BUILD BIN
load() {
    local build=$1 bin=$2
    ten_copies
    "$bin/ragdownd" serve --docs "$WORK/docs" --data "$WORK/data" --embedder hash \
        --port "$PORT" --host 127.0.0.1 --token "$TOKEN" 2>"$WORK/serve.log" &
    SERVER=$!
    wait_ready "$PORT" "$WORK/serve.log"
    log "$build load: http-load --clients $CLIENTS --seconds $LOAD_SECONDS"
    "$bin/http-load" --url "http://127.0.0.1:$PORT/mcp/runbooks" --token "$TOKEN" --clients "$CLIENTS" \
        --seconds "$LOAD_SECONDS" --pid "$SERVER" --queries "$WORK/queries.txt" |
        row "$build" load "http-load --clients $CLIENTS --seconds $LOAD_SECONDS (ragdownd serve --embedder hash)"
    kill "$SERVER"
    wait "$SERVER" 2>/dev/null || true
    SERVER=
}

size_row A "$A"
size_row B "$B"
for _ in $(seq "$ROUNDS"); do
    for build in A B; do
        bin=$A
        [ "$build" = B ] && bin=$B
        if [ "$ONLY" != load ]; then
            index "$build" "$bin" runbooks-minilm --embedder minilm --runs 2
            index "$build" "$bin" runbooks-10k-hash --embedder hash --copies 50 --runs 2
        fi
        [ "$ONLY" = index ] || load "$build" "$bin"
    done
done
log "A: $A ($(stat -c %s "$A/ragdownd") bytes), B: $B ($(stat -c %s "$B/ragdownd") bytes); results in $OUT"
python3 - "$OUT" "$FIRST_ROW" "$ROUNDS" <<'PY'
import json, math, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]).readlines()[int(sys.argv[2]) - 1:]]
def med(build, name, key):
    values = [key(r) for r in rows if r["build"] == build and r["name"] == name]
    return statistics.median(values) if values else float("nan")
metrics = [
    ("size", "ragdownd MB", lambda r: r["ragdownd_bytes"] / 1e6),
    ("size", "ragdownd .text MB", lambda r: r["ragdownd_text_bytes"] / 1e6),
    ("size", "embedd MB", lambda r: r["embedd_bytes"] / 1e6),
    ("runbooks-minilm", "index ms", lambda r: r["index_ms_median"]),
    ("runbooks-minilm", "recall p50 ms", lambda r: r["recall_ms_p50"]),
    ("runbooks-10k-hash", "index ms", lambda r: r["index_ms_median"]),
    ("runbooks-10k-hash", "no-op re-sync ms", lambda r: r["noop_resync_ms_median"]),
    ("runbooks-10k-hash", "recall p50 ms", lambda r: r["recall_ms_p50"]),
    ("runbooks-10k-hash", "recall p95 ms", lambda r: r["recall_ms_p95"]),
    ("load", "req/s", lambda r: r["requests_per_s"]),
    ("load", "p50 ms", lambda r: r["latency_ms"]["all"]["p50"]),
    ("load", "p99 ms", lambda r: r["latency_ms"]["all"]["p99"]),
]
rounds = sys.argv[3]
print(f"| workload | figure | A (median of {rounds}) | B (median of {rounds}) | B / A |")
print("|---|---|---|---|---|")
for name, label, key in metrics:
    a, b = med("A", name, key), med("B", name, key)
    if math.isnan(a):
        continue
    print(f"| {name} | {label} | {a:.1f} | {b:.1f} | {b / a:.2f} |")
PY
