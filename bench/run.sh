#!/usr/bin/env bash
# Runs the benchmark workloads in a release build and writes their results to bench/results/.
#
#   bench/run.sh            # example vault (minilm), runbook corpus (minilm, hash), 10k, 42k and
#                           # 105k chunks (hash), the same over MCP stdio (hash and the run
#                           # command's minilm), a search's time by stage at 10k, 42k and 105k chunks,
#                           # then the retrieval-quality workload (bench/retrieval.sh)
#
# Release builds go to their own target directory ($RAGDOWN_CACHE/target-release), so they never
# invalidate the test build. Quote medians from one run: the machines are shared and noisy. Each
# result is appended to its dated file, so a second run on the same day keeps the first's rows.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" minilm >/dev/null
(cd "$ROOT" && cargo build --locked --release -p bench --bin ragdown-bench --bin search-breakdown -p ragdownd --bin ragdownd)
BENCH="$CARGO_TARGET_DIR/release/ragdown-bench"
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-index.jsonl"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BENCH" corpus --out "$WORK/runbooks" >/dev/null
python3 -c 'import json,sys; print("\n".join(q["q"] for q in json.load(open(sys.argv[1]))[:60]))' \
    "$WORK/runbooks/questions.json" > "$WORK/runbook-queries.txt"
rm "$WORK/runbooks/questions.json"

run() { # run NAME ARGS...
    local name=$1
    shift
    log "$name: ragdown-bench index $*"
    "$BENCH" index "$@" 2>"$WORK/$name.log" | python3 -c '
import json, sys
r = json.load(sys.stdin)
r["name"] = sys.argv[1]
r["command"] = sys.argv[2]
r["date"] = sys.argv[3]
print(json.dumps(r))' "$name" "ragdown-bench index $*" "$DAY" >> "$OUT"
}
FIRST_ROW=1
if [ -f "$OUT" ]; then
    FIRST_ROW=$(($(wc -l <"$OUT") + 1))
fi
run vault-minilm --docs "$ROOT/examples/vault" --embedder minilm --runs 3
run runbooks-minilm --docs "$WORK/runbooks" --embedder minilm --runs 3 --queries "$WORK/runbook-queries.txt"
run runbooks-minilm-2-threads --docs "$WORK/runbooks" --embedder minilm --runs 3 --threads 2 --queries "$WORK/runbook-queries.txt"
run runbooks-hash --docs "$WORK/runbooks" --embedder hash --runs 5 --queries "$WORK/runbook-queries.txt"
run runbooks-10k-hash --docs "$WORK/runbooks" --embedder hash --runs 3 --copies 50 --queries "$WORK/runbook-queries.txt"
run runbooks-42k-hash --docs "$WORK/runbooks" --embedder hash --runs 1 --copies 200 --queries "$WORK/runbook-queries.txt"
run runbooks-105k-hash --docs "$WORK/runbooks" --embedder hash --runs 1 --copies 500 --queries "$WORK/runbook-queries.txt"
# As an agent meets it: ragdownd stdio driven over MCP by the official Python SDK, every answerable
# question through ragdown_recall and ragdown_context (bench/mcp_latency.py): hash at 10,500,
# 42,000 and 105,000 chunks, and the run command's model at 10,500 (embedding 105,000 chunks on a
# 2-core CPU takes 10-30 minutes; a search's cost past the query's embedding does not depend on
# which model made the vectors, so the hash rows give the rest).
VPY=$("$ROOT/scripts/install-python-tools.sh")
MODEL=$(fastest_minilm)
"$ROOT/scripts/install-model.sh" "$MODEL" >/dev/null
"$BENCH" corpus --out "$WORK/corpus" >/dev/null
MCP="$ROOT/bench/results/$DAY-mcp-latency.jsonl"
for run in hash:50 hash:200 hash:500 "$MODEL:50"; do
    embedder=${run%:*}
    copies=${run#*:}
    log "mcp_latency: $embedder, $copies copies"
    "$VPY" "$ROOT/bench/mcp_latency.py" --ragdownd "$CARGO_TARGET_DIR/release/ragdownd" \
        --corpus "$WORK/corpus" --copies "$copies" --embedder "$embedder" 2>/dev/null |
        "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); r["command"]=sys.argv[1]; r["date"]=sys.argv[2]; print(json.dumps(r))' \
            "bench/mcp_latency.py --copies $copies --embedder $embedder" "$DAY" >> "$MCP"
done
# Where a search's time goes, stage by stage, at 10,500, 42,000 and 105,000 chunks (hash).
BREAKDOWN="$ROOT/bench/results/$DAY-search-breakdown.jsonl"
for copies in 50 200 500; do
    log "search-breakdown --copies $copies"
    "$CARGO_TARGET_DIR/release/search-breakdown" --copies "$copies" --reps 2 2>/dev/null >> "$BREAKDOWN"
done
# The batch-size sweep behind embedd's default token budget.
SWEEP="$ROOT/bench/results/$DAY-batch-sweep.jsonl"
for threads in 1 2; do
    for tokens in 256 512 1024 2048 4096; do
        "$BENCH" index --docs "$WORK/runbooks" --embedder minilm --runs 3 --threads "$threads" \
            --max-batch-tokens "$tokens" --query-reps 1 --queries "$WORK/runbook-queries.txt" 2>/dev/null |
            python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps({"threads": int(sys.argv[1]), "max_batch_tokens": int(sys.argv[2]), "index_chunks_per_s_median": r["index_chunks_per_s_median"], "date": sys.argv[3]}))' \
                "$threads" "$tokens" "$DAY" >> "$SWEEP"
    done
done
log "results in $OUT and $SWEEP"
python3 - "$OUT" "$FIRST_ROW" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]) - 1:]
print("| workload | embedder | chunks | index chunks/s (median) | no-op re-sync ms | recall p50 / p95 ms | peak RSS MB |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['name']} | {r['embedder']} | {r['chunks']} | {r['index_chunks_per_s_median']} | {r['noop_resync_ms_median']} | {r['recall_ms_p50']} / {r['recall_ms_p95']} | {r['peak_rss_mb']} |")
PY
"$ROOT/bench/retrieval.sh"
