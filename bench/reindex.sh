#!/usr/bin/env bash
# A full re-index of the runbook corpus through ragdownd (chunking, embedding in-process, LanceDB,
# full-text index), against raw Python ONNX Runtime on the same chunks, model and threads
# (length-sorted batches of 8: the ceiling), in one run. int8 and fp32 minilm; 1 thread, and 2
# threads in one session or in two sessions side by side (embedd's default for 2 threads); then
# what a newcomer gets: the run command's model at ragdownd's default threads and sessions, against
# raw ONNX Runtime on every core (one one-thread session per core, up to four, as embedd does).
# Appends to bench/results/<date>-reindex.jsonl.
#
#   bench/reindex.sh                # RUNS=3
#   DEFAULTS_ONLY=1 bench/reindex.sh  # the defaults' pair alone
#   MODELS="minilm-fp32 multilingual-e5-small" bench/reindex.sh   # other models (default: minilm minilm-fp32)
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
RUNS=${RUNS:-3}
"$ROOT/scripts/install-ort.sh" >/dev/null
MODELS=${MODELS:-minilm minilm-fp32}
for model in minilm minilm-fp32 $MODELS; do
    "$ROOT/scripts/install-model.sh" "$model" >/dev/null
done
VPY=$("$ROOT/scripts/install-python-tools.sh")
(cd "$ROOT" && cargo build --locked --release -p bench --bin ragdown-bench --bin embedd-load)
BIN="$CARGO_TARGET_DIR/release"
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-reindex.jsonl"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN/ragdown-bench" corpus --out "$WORK/runbooks" >/dev/null
rm "$WORK/runbooks/questions.json"
"$BIN/embedd-load" --dump-chunks "$WORK/chunks.json" --dump-headings "$WORK/headings.json"

CORES=$(nproc)
DEFAULT_SESSIONS=$((CORES < 4 ? CORES : 4))
if [ -n "${DEFAULTS_ONLY:-}" ]; then
    CONFIGS=("$(fastest_minilm):default")
else
    CONFIGS=()
    for model in $MODELS; do
        CONFIGS+=("$model:1:1" "$model:2:1" "$model:2:2")
    done
    CONFIGS+=("$(fastest_minilm):default")
fi
for entry in "${CONFIGS[@]}"; do
    model=${entry%%:*}
    config=${entry#*:}
    if [ "$config" = default ]; then
        # ragdownd's defaults: no --threads or --sessions.
        flags=()
        threads=$CORES
        sessions=$DEFAULT_SESSIONS
        kind=default
    else
        threads=${config%:*}
        sessions=${config#*:}
        flags=(--threads "$threads" --sessions "$sessions")
        kind=explicit
    fi
    log "ragdownd: $model, ${flags[*]:-defaults}"
    cmd="ragdown-bench index --docs <runbook corpus> --embedder $model ${flags[*]} --runs $RUNS --query-reps 1"
    "$BIN/ragdown-bench" index --docs "$WORK/runbooks" --embedder "$model" "${flags[@]}" \
        --runs "$RUNS" --query-reps 1 2>/dev/null | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)
row = {"what": "ragdownd full index", "model": sys.argv[1], "threads": int(sys.argv[2]),
       "sessions": int(sys.argv[3]), "chunks": r["chunks"],
       "chunks_per_s": r["index_chunks_per_s_median"], "command": sys.argv[4], "date": sys.argv[5]}
if sys.argv[6] == "default":
    row["defaults"] = True
print(json.dumps(row))' "$model" "$threads" "$sessions" "$cmd" "$DAY" "$kind" | tee -a "$OUT"
    log "raw ONNX Runtime: $model, $threads thread(s), $sessions session(s)"
    # The model's document prefix and length limit, as embedd applies them (embedd/src/registry.rs).
    # A model with a heading weight also embeds each section's breadcrumb (ragdownd's
    # index::vectors): the same work for raw ONNX Runtime.
    case "$model" in
        multilingual-e5-small) prefix="passage: " max_length=512 extra=(--extra "$WORK/headings.json") ;;
        *) prefix="" max_length=256 extra=() ;;
    esac
    "$VPY" "$ROOT/bench/raw_ort.py" --chunks "$WORK/chunks.json" --model-dir "$RAGDOWN_MODELS/$model" \
        --prefix "$prefix" --max-length "$max_length" "${extra[@]}" --threads "$threads" --sessions "$sessions" --runs "$RUNS" --batch 8 --large 210 \
        --label "reindex-$model-$threads-$sessions" | "$PYTHON" -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r.get("workload") != "raw-ort-runbooks-210":
        continue
    what = "raw ONNX Runtime (Python), sorted batches of 8"
    extra = r.get("extra_texts")
    if extra:
        what += f", with the {extra} breadcrumbs"
    print(json.dumps({"what": what, "model": sys.argv[1],
                  "threads": int(sys.argv[2]), "sessions": int(sys.argv[3]), "chunks": r["chunks"],
                  "chunks_per_s": r["chunks_per_s"],
                  "command": f"bench/raw_ort.py --batch 8 --threads {sys.argv[2]} --sessions {sys.argv[3]}",
                  "date": sys.argv[4]}))' "$model" "$threads" "$sessions" "$DAY" | tee -a "$OUT"
done
log "results appended to $OUT"
