#!/usr/bin/env bash
# Measures ragdown_context on the generated runbook corpus and writes the results to
# bench/results/<day>-hook-<embedder>.json: hook recall (the share of the 210 answerable questions
# whose answering section is injected), chunks per prompt, injections for the ten off-topic
# prompts, and the sweep of min_ratio, min_score and top_k around them.
#
#   bench/hook.sh                # minilm and hash
#   bench/hook.sh minilm-fp32    # one embedder
#
# Quality figures do not depend on the build profile, so this runs the dev build in
# $CARGO_TARGET_DIR (each result says "profile": "dev"); it times nothing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
EMBEDDERS=("$@")
[ ${#EMBEDDERS[@]} -gt 0 ] || EMBEDDERS=(minilm hash)
"$ROOT/scripts/install-ort.sh" >/dev/null
for embedder in "${EMBEDDERS[@]}"; do
    case "$embedder" in
        minilm | minilm-fp32 | multilingual-e5-small) "$ROOT/scripts/install-model.sh" "$embedder" >/dev/null ;;
    esac
done
(cd "$ROOT" && cargo build --locked -p bench --bin hook-bench)
BENCH="$CARGO_TARGET_DIR/debug/hook-bench"
DAY=$(date -u +%Y-%m-%d)
RATIOS=1.0,0.98,0.96,0.95,0.94,0.92,0.9,0.88,0.85,0.82,0.8,0.78,0.77,0.76,0.75,0.74,0.7,0.6,0
for embedder in "${EMBEDDERS[@]}"; do
    case "$embedder" in
        # Around the measured floor (0.4) and above the strongest off-topic prompt (0.24).
        minilm | minilm-fp32) FLOORS=0.3,0.35,0.4,0.45,0.5 ;;
        # e5's cosines sit high and close: on-topic 10th percentile 0.876, off-topic up to 0.864
        # (with its heading vectors, 2026-12-05).
        multilingual-e5-small) FLOORS=0.85,0.86,0.865,0.87,0.875,0.88 ;;
        # The hash embedder's cosines are token overlaps: its shipped floor (0.8) passes nothing.
        hash) FLOORS=0.1,0.15,0.2,0.25,0.3,0.8 ;;
        *) FLOORS=0.4,0.5,0.6,0.7,0.8 ;;
    esac
    OUT="bench/results/$DAY-hook-$embedder.json"
    log "hook-bench --embedder $embedder -> $OUT"
    (cd "$ROOT" && "$BENCH" --embedder "$embedder" --ratios "$RATIOS" --min-scores "$FLOORS" \
        --top-ks 3,4,5 --out "$OUT" >/dev/null)
done
