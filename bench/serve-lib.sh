#!/usr/bin/env bash
# Shared by the benchmarks that load one `ragdownd serve` over HTTP (load.sh, edit-latency.sh):
# the runbook corpus and its questions, a vault of ten copies of it in one MCP folder, and
# waiting for a server's first index. Sourced after scripts/lib.sh; call work_dir first, and set
# BIN before runbook_corpus.

# work_dir : a fresh $WORK, removed at exit together with the server whose PID is in $SERVER
# (empty while none runs).
work_dir() {
    WORK=$(mktemp -d)
    SERVER=
    trap 'stop_and_clean' EXIT
}

stop_and_clean() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    rm -rf "$WORK"
}

# runbook_corpus : $WORK/corpus (300 documents) and $WORK/queries.txt (its questions, one a line).
runbook_corpus() {
    "$BIN/ragdown-bench" corpus --out "$WORK/corpus" >/dev/null
    python3 -c 'import json,sys; print("\n".join(q["q"] for q in json.load(open(sys.argv[1]))))' \
        "$WORK/corpus/questions.json" > "$WORK/queries.txt"
    rm "$WORK/corpus/questions.json"
}

# ten_copies : a fresh $WORK/docs with ten copies of the corpus in the MCP folder `runbooks`
# (2,100 sections), and an empty $WORK/data.
ten_copies() {
    rm -rf "$WORK/docs" "$WORK/data"
    mkdir -p "$WORK/docs/runbooks"
    for copy in $(seq -w 0 9); do cp -r "$WORK/corpus" "$WORK/docs/runbooks/c$copy"; done
    echo '{"mcp": true}' > "$WORK/docs/runbooks/.ragdown.json"
}

# wait_ready PORT LOG : until the server on PORT has finished its first index (600 s at most).
wait_ready() {
    local port=$1 server_log=$2 deadline=$((SECONDS + 600))
    until curl -sf "http://127.0.0.1:$port/api/status" | python3 -c '
import json, sys
s = json.load(sys.stdin)
sys.exit(0 if s.get("ready") and not s.get("syncing") and s.get("last_sync") else 1)' 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || die "the server was not ready in 600 s (see $server_log)"
        sleep 1
    done
}
