#!/usr/bin/env bash
# Runs the multilingual retrieval workload (`ragdown-bench multilingual`): the hand-written
# questions of bench/data/cjk-questions.json over the Chinese, Japanese and Korean documentation in
# ../shared/data/corpora/cjkdocs, once per embedder, writing
# bench/results/<UTC day>-multilingual-<embedder>.json (and -misses.jsonl: the questions the
# product search did not answer first, with its top three hits) and printing a Markdown table for
# each.
#
#   bench/multilingual.sh                        # minilm, then multilingual-e5-small if installed
#   EMBEDDERS="minilm hash" bench/multilingual.sh
#   PROFILE=dev bench/multilingual.sh            # the debug build: the same rankings
#   CORPUS=/elsewhere/cjkdocs QUESTIONS=my.json bench/multilingual.sh
#
# minilm is installed if missing (scripts/install-model.sh); any other model must already be in
# $RAGDOWN_MODELS (it is never downloaded here), and one that is not is skipped with a message.
# Only quality is measured, so a debug build gives the same figures, just more slowly.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
PROFILE=${PROFILE:-release}
EMBEDDERS=${EMBEDDERS:-minilm multilingual-e5-small}
CORPUS=${CORPUS:-$ROOT/../shared/data/corpora/cjkdocs}
QUESTIONS=${QUESTIONS:-$ROOT/bench/data/cjk-questions.json}
[ -d "$CORPUS" ] || die "no corpus at $CORPUS (set CORPUS to the cjkdocs directory)"
CORPUS=$(cd "$CORPUS" && pwd)
"$ROOT/scripts/install-ort.sh" >/dev/null
build_ragdown_bench
DAY=$(date -u +%Y-%m-%d)
errors=$(mktemp "${TMPDIR:-/tmp}/ragdown-multilingual.XXXXXX")
trap 'rm -f "$errors"' EXIT
for embedder in $EMBEDDERS; do
    case "$embedder" in
        minilm | minilm-fp32) "$ROOT/scripts/install-model.sh" "$embedder" >/dev/null ;;
        hash*) ;;
        *)
            if [ ! -f "$RAGDOWN_MODELS/$embedder/model.onnx" ]; then
                log "skipping $embedder: not installed in $RAGDOWN_MODELS/$embedder"
                continue
            fi ;;
    esac
    out="$ROOT/bench/results/$DAY-multilingual-$embedder.json"
    log "multilingual: ragdown-bench multilingual --embedder $embedder ($PROFILE build)"
    if ! "$BENCH" multilingual --corpus "$CORPUS" --questions "$QUESTIONS" --embedder "$embedder" \
        --out "$out" --misses "${out%.json}-misses.jsonl" 2>"$errors"; then
        # A model installed for a build that knows it, run by one that does not yet.
        if grep -q "unknown model" "$errors"; then
            log "skipping $embedder: installed, but this build of ragdown-bench does not know it"
            continue
        fi
        cat "$errors" >&2
        die "ragdown-bench multilingual --embedder $embedder failed"
    fi
    grep -v '^written to' "$errors" >&2 || true
done
