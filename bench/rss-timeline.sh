#!/usr/bin/env bash
# When a first index's memory peaks: `ragdown-bench index` on COPIES copies of the runbook corpus
# with EMBEDDER at ragdownd's defaults, its resident memory sampled every half second, then the
# samples and the run's result (with its stages) as one JSON line appended to
# bench/results/<date>-rss-timeline.jsonl.
#
#   bench/rss-timeline.sh                               # COPIES=500 EMBEDDER=minilm-fp32
#   COPIES=50 EMBEDDER=hash bench/rss-timeline.sh
#   BENCH=/tmp/old/ragdown-bench LABEL=before bench/rss-timeline.sh   # another build, for an A/B
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
COPIES=${COPIES:-500}
EMBEDDER=${EMBEDDER:-minilm-fp32}
"$ROOT/scripts/install-ort.sh" >/dev/null
if [ "$EMBEDDER" != hash ]; then
    "$ROOT/scripts/install-model.sh" "$EMBEDDER" >/dev/null
fi
if [ -z "${BENCH:-}" ]; then
    (cd "$ROOT" && cargo build --locked --release -p bench --bin ragdown-bench)
    BENCH="$CARGO_TARGET_DIR/release/ragdown-bench"
fi
LABEL=${LABEL:-}
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-rss-timeline.jsonl"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BENCH" corpus --out "$WORK/runbooks" >/dev/null
rm "$WORK/runbooks/questions.json"

log "ragdown-bench index: $COPIES copies, $EMBEDDER, sampling RSS every 0.5 s"
START=$(date +%s.%N)
"$BENCH" index --docs "$WORK/runbooks" --copies "$COPIES" --embedder "$EMBEDDER" --runs 1 --query-reps 1 \
    >"$WORK/result.json" 2>"$WORK/stderr.log" &
PID=$!
while kill -0 "$PID" 2>/dev/null; do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(date +%s.%N) $rss" >>"$WORK/samples.txt"
    sleep 0.5
done
wait "$PID" || die "ragdown-bench index failed: $(tail -3 "$WORK/stderr.log")"
"$PYTHON" - "$WORK/result.json" "$WORK/samples.txt" "$COPIES" "$EMBEDDER" "$DAY" "$START" "$LABEL" <<'PY' | tee -a "$OUT"
import json, sys
result = json.load(open(sys.argv[1]))
start = float(sys.argv[6])
samples = []
for line in open(sys.argv[2]):
    now, kb = line.split()
    samples.append([round(float(now) - start, 1), int(kb) // 1024])
print(json.dumps({"what": "RSS of a first index over time", "label": sys.argv[7] or None,
                  "embedder": sys.argv[4], "copies": int(sys.argv[3]),
                  "chunks": result["chunks"], "index_ms": result["index_ms_median"],
                  "embedder_load_ms": result["embedder_load_ms"], "peak_rss_mb": result["peak_rss_mb"],
                  "index_stages_ms": result.get("index_stages_ms_last"),
                  "samples_s_mb": samples,
                  "command": f"COPIES={sys.argv[3]} EMBEDDER={sys.argv[4]} bench/rss-timeline.sh",
                  "date": sys.argv[5]}))
PY
