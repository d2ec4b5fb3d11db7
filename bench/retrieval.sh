#!/usr/bin/env bash
# Runs the retrieval-quality workload (`ragdown-bench retrieval`) with minilm and with hash and
# writes bench/results/<UTC day>-retrieval-<embedder>.json.
#
#   bench/retrieval.sh            # release build in $RAGDOWN_CACHE/target-release
#   PROFILE=dev bench/retrieval.sh   # the debug build: same rankings, slower latency figures
#
# Quality figures do not depend on the build; the latency ones do, so quote those from a release
# build on an otherwise idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
PROFILE=${PROFILE:-release}
"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" minilm >/dev/null
build_ragdown_bench
DAY=$(date -u +%Y-%m-%d)
for embedder in minilm hash; do
    out="$ROOT/bench/results/$DAY-retrieval-$embedder.json"
    log "retrieval: ragdown-bench retrieval --embedder $embedder ($PROFILE build)"
    "$BENCH" retrieval --embedder "$embedder" --out "$out" >/dev/null
    python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['embedder']} ({r['machine']['profile']} build): {sys.argv[1]}")
print("| questions | ranking | top-1 | recall@5 | MRR |")
print("|---|---|---|---|---|")
for name in ["answerable", "identifier", "alias"]:
    for mode, v in r[name].items():
        o = v["overall"]
        print(f"| {name} ({o['n']}) | {mode} | {o['top1']:.1%} | {o['recall5']:.1%} | {o['mrr']:.3f} |")
print(f"latency p50 / p95: {r['latency']['p50_ms']} / {r['latency']['p95_ms']} ms")
for target, v in r["targets"].items():
    print(f"target {target}: {'met' if v['met'] else 'NOT met'} ({v['value']})")
PY
done
