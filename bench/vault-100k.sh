#!/usr/bin/env bash
# A vault of 100,000 files (one short note each, two sections, in 1,000 folders): first index,
# no-op re-sync, search latency and peak memory with the hash embedder (the pipeline, LanceDB and
# search alone), through `ragdown-bench index`. Appends to bench/results/<date>-vault-100k.jsonl.
#
#   bench/vault-100k.sh            # FILES=100000
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
FILES=${FILES:-100000}
(cd "$ROOT" && cargo build --locked --release -p bench --bin ragdown-bench)
BENCH="$CARGO_TARGET_DIR/release/ragdown-bench"
DAY=$(date -u +%Y-%m-%d)
OUT="$ROOT/bench/results/$DAY-vault-100k.jsonl"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK/vault" "$FILES" <<'PY'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
for i in range(files):
    folder = os.path.join(root, f"area-{i % 1000:03d}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"note-{i:06d}.md"), "w") as f:
        f.write(f"---\ntags: [area-{i % 1000}]\n---\n# Note {i}\n\nHost web-{i} serves shard {i % 97}.\n\n"
                f"## Restore\n\nRestore web-{i} from snapshot snap-{i} with restore-tool --host web-{i}.\n")
PY
printf '%s\n' "restore web-4242 from its snapshot" "which host serves shard 13" "snap-77777" \
    "restore-tool --host web-99999" "how do I bring a web host back" > "$WORK/queries.txt"
command="ragdown-bench index --docs <$FILES files> --embedder hash --runs 1 --query-reps 20"
log "$command"
"$BENCH" index --docs "$WORK/vault" --embedder hash --runs 1 --query-reps 20 --queries "$WORK/queries.txt" |
    python3 -c '
import json, sys
r = json.load(sys.stdin)
r["name"], r["command"], r["date"], r["files"] = "vault-100k-hash", sys.argv[1], sys.argv[2], int(sys.argv[3])
print(json.dumps(r))' "$command" "$DAY" "$FILES" | tee -a "$OUT"
