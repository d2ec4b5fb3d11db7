#!/usr/bin/env bash
# The web UI's list requests on one large folder: a vault of 150,000 files (one short note each,
# in 1,000 directories of 140 and one `inbox` of 10,000, a tag on every tenth) served by
# `ragdownd serve` with the hash embedder, each request timed REPS times on loopback once the
# first index is done: the whole list the UI used to load (`GET /api/docs`) beside what it asks
# for now (`/api/browse`, `/api/find`, `/api/tags`, `/api/jump`, `/api/doc`). Reports the median
# and p95 milliseconds and the bytes of each. Appends to bench/results/<date>-web-list.jsonl.
#
#   bench/web-list.sh                      # FILES=150000 REPS=20
#   BIN=~/.cache/ragdown/target/debug FILES=20000 bench/web-list.sh   # a debug binary, smaller
#
# Release builds go to $RAGDOWN_CACHE/target-release. Run it on an idle machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
. "$ROOT/bench/serve-lib.sh"
FILES=${FILES:-150000}
REPS=${REPS:-20}
PORT=${PORT:-3918}
TOKEN=web-list-bench-token
if [ -z "${BIN:-}" ]; then
    export CARGO_TARGET_DIR="$RAGDOWN_CACHE/target-release"
    (cd "$ROOT" && cargo build --locked --release -p ragdownd --bin ragdownd)
    BIN="$CARGO_TARGET_DIR/release"
fi
DAY=$(date -u +%Y-%m-%d)
OUT=${OUT:-$ROOT/bench/results/$DAY-web-list.jsonl}
work_dir
python3 - "$WORK/docs/notes" "$FILES" <<'PY'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
inbox = min(10_000, files // 10)
for i in range(files):
    folder = os.path.join(root, "inbox") if i < inbox else os.path.join(root, f"area-{i % 1000:03d}")
    os.makedirs(folder, exist_ok=True)
    tags = f"---\ntags: [area-{i % 100}]\n---\n" if i % 10 == 0 else ""
    with open(os.path.join(folder, f"note-{i:06d}.md"), "w") as f:
        f.write(f"{tags}# Note {i}\n\nHost web-{i} serves shard {i % 97}.\n")
PY
start=$SECONDS
"$BIN/ragdownd" serve --docs "$WORK/docs" --data "$WORK/data" --embedder hash \
    --port "$PORT" --host 127.0.0.1 --token "$TOKEN" 2>"$WORK/server.log" &
SERVER=$!
wait_ready "$PORT" "$WORK/server.log"
log "indexed $FILES files in $((SECONDS - start)) s; timing each request $REPS times"
python3 - "$PORT" "$TOKEN" "$REPS" "$FILES" "$DAY" "$BIN/ragdownd" "$SERVER" <<'PY' | tee -a "$OUT"
import json, statistics, sys, time, urllib.parse, urllib.request
port, token, reps, files, day, binary, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7]
requests = [
    ("docs (the whole folder)", "/api/docs", {"folder": "notes"}),
    ("browse top", "/api/browse", {"folder": "notes"}),
    ("browse a directory of 140", "/api/browse", {"folder": "notes", "dir": "area-042"}),
    ("browse inbox, first page", "/api/browse", {"folder": "notes", "dir": "inbox"}),
    ("browse inbox, page 10", "/api/browse", {"folder": "notes", "dir": "inbox", "offset": 5000}),
    ("find a word", "/api/find", {"folder": "notes", "q": "note 4242"}),
    ("find a common word", "/api/find", {"folder": "notes", "q": "note"}),
    ("find recent", "/api/find", {"folder": "notes", "sort": "recent"}),
    ("find a tag", "/api/find", {"folder": "notes", "tag": "area-10"}),
    ("tags", "/api/tags", {"folder": "notes"}),
    ("jump typed", "/api/jump", {"q": "note 12345"}),
    ("jump blank", "/api/jump", {"q": "", "limit": 8}),
    ("doc", "/api/doc", {"path": "notes/area-042/note-012042.md"}),
]
def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
for name, path, query in requests:
    url = f"http://127.0.0.1:{port}{path}?{urllib.parse.urlencode(query)}"
    times, size = [], 0
    for _ in range(reps + 1):
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        t = time.perf_counter()
        with urllib.request.urlopen(req) as r:
            body = r.read()
        times.append((time.perf_counter() - t) * 1000)
        size = len(body)
    times = sorted(times[1:])  # the first is a warm-up
    print(json.dumps({"name": f"web-list {name}", "command": f"bench/web-list.sh (FILES={files} REPS={reps})",
        "date": day, "binary": binary, "files": files, "request": f"{path}?{urllib.parse.urlencode(query)}",
        "p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
        "bytes": size, "rss_mb": round(rss_mb())}))
PY
log "results in $OUT"
