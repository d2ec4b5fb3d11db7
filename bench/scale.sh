#!/usr/bin/env bash
# The whole curve at scale, over MCP stdio (bench/mcp_scale.py): for each size, a vault of that
# many distinct chunks (`ragdown-bench vault`, kept in $RAGDOWN_CACHE/bench/vault-<N> and reused),
# indexed from nothing with the hash embedder by a release ragdownd: first index, the vector
# index's build, no-op re-sync, recall and context latency, list and backlinks, an agent's edit,
# memory, disk, and a restart. Appends one row per size to bench/results/<date>-scale.jsonl.
#
#   bench/scale.sh                          # SIZES="10000 100000 300000 1000000"
#   SIZES=1000000 ROWS=off bench/scale.sh   # the same without the vector index (RAGDOWN_VECTOR_INDEX_ROWS)
#   OUT=bench/results/x.jsonl bench/scale.sh  # rows to another file than <date>-scale.jsonl
#
# Release builds go to $CARGO_TARGET_DIR (default $RAGDOWN_CACHE/target-release). A million chunks
# take about 700 MB of Markdown and a few GB of index under $WORK_DIR (default the temp dir). Run it
# on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR_RELEASE:-$RAGDOWN_CACHE/target-release}
SIZES=${SIZES:-10000 100000 300000 1000000}
EMBEDDER=${EMBEDDER:-hash}
ROWS=${ROWS:-}
(cd "$ROOT" && cargo build --locked --release -p bench --bin ragdown-bench -p ragdownd --bin ragdownd)
BENCH="$CARGO_TARGET_DIR/release/ragdown-bench"
VPY=$("$ROOT/scripts/install-python-tools.sh")
DAY=$(date -u +%Y-%m-%d)
OUT=${OUT:-$ROOT/bench/results/$DAY-scale.jsonl}
VAULTS="$RAGDOWN_CACHE/bench"
mkdir -p "$VAULTS"
for size in $SIZES; do
    vault="$VAULTS/vault-$size"
    if [ ! -f "$vault/vault.json" ]; then
        rm -rf "$vault"
        log "writing a vault of $size chunks to $vault"
        "$BENCH" vault --out "$vault" --chunks "$size" --repo "$ROOT" >/dev/null
    fi
    command="bench/mcp_scale.py --vault vault-$size --embedder $EMBEDDER${ROWS:+ --vector-index-rows $ROWS}"
    log "$command"
    (cd "$ROOT/bench" && "$VPY" mcp_scale.py --ragdownd "$CARGO_TARGET_DIR/release/ragdownd" --vault "$vault" \
        --embedder "$EMBEDDER" ${ROWS:+--vector-index-rows "$ROWS"} ${WORK_DIR:+--work "$WORK_DIR"}) |
        "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); r["command"]=sys.argv[1]; r["date"]=sys.argv[2]; print(json.dumps(r))' \
            "$command" "$DAY" | tee -a "$OUT"
done
