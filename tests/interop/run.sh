#!/usr/bin/env bash
# Interop: the official MCP Inspector CLI (with --strict schema checks), the official Python SDK
# client and the official TypeScript SDK client list and call ragdownd's tools, and list and read
# its resources, over stdio and over streamable HTTP with a bearer token; python_client.py also
# speaks the 2026-07-28 protocol and sends hostile resource URIs in raw JSON-RPC (raw_client.py);
# ts_client.mjs speaks both eras through the SDK, and follows edits on disk through
# resources/subscribe (stdio) and subscriptions/listen (stdio and HTTP); then the MCP conformance
# tool runs the server scenarios that apply to a server with its own content; and oauth.sh: OAuth 2.1
# with both SDKs' OAuth clients, the consent given in Chromium on the web UI's consent page.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

BIN="$CARGO_TARGET_DIR/debug/ragdownd"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --locked -p ragdownd --bin ragdownd)
INSPECTOR="$RAGDOWN_BIN/mcp-inspector"
PY="$RAGDOWN_VENV/bin/python"
NODE="$RAGDOWN_BIN/node22"
"$ROOT/tests/interop/install-deps.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-interop.XXXXXX")
SERVER_PID=""
CONFORMANCE_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    [ -n "$CONFORMANCE_PID" ] && kill "$CONFORMANCE_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/docs/ops" "$WORK/stdio-data" "$WORK/serve-data"
cp "$ROOT/ragdownd/tests/data/ops-backups.md" "$WORK/docs/ops/backups.md"
cp "$ROOT/ragdownd/tests/data/http-ops-ragdown.json" "$WORK/docs/ops/.ragdown.json"

fail() { log "FAIL: $*"; exit 1; }
expect() { # expect NAME OUTPUT NEEDLE
    case "$2" in *"$3"*) log "ok: $1" ;; *) printf '%s\n' "$2" >&2; fail "$1: output lacks $3" ;; esac
}

# --- Inspector CLI over stdio --------------------------------------------------------------
STDIO_ENV=(-e "RAGDOWN_DOCS_DIR=$WORK/docs" -e "RAGDOWN_DATA_DIR=$WORK/stdio-data" -e RAGDOWN_EMBEDDER=hash -e RAGDOWN_WATCH=false)
out=$("$INSPECTOR" --cli "$BIN" stdio "${STDIO_ENV[@]}" --method tools/list --strict 2>&1) || fail "inspector stdio tools/list --strict: $out"
expect "inspector stdio tools/list --strict" "$out" '"ragdown_recall"'
out=$("$INSPECTOR" --cli "$BIN" stdio "${STDIO_ENV[@]}" --method tools/call --tool-name ragdown_reindex 2>&1) || fail "$out"
expect "inspector stdio ragdown_reindex" "$out" 'added'
out=$("$INSPECTOR" --cli "$BIN" stdio "${STDIO_ENV[@]}" --method tools/call --tool-name ragdown_recall --tool-arg query=pg_restore 2>&1) || fail "$out"
expect "inspector stdio ragdown_recall" "$out" 'ops/backups.md:7-7'
out=$("$INSPECTOR" --cli "$BIN" stdio "${STDIO_ENV[@]}" --method resources/list 2>&1) || fail "inspector stdio resources/list: $out"
expect "inspector stdio resources/list" "$out" '"ragdown:///ops/backups.md"'
out=$("$INSPECTOR" --cli "$BIN" stdio "${STDIO_ENV[@]}" --method resources/read --uri 'ragdown:///ops/backups.md#Restore' 2>&1) || fail "$out"
expect "inspector stdio resources/read of a section" "$out" 'Run pg_restore twice.'

# --- ragdownd serve over HTTP ----------------------------------------------------------------
PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
RAGDOWN_DOCS_DIR="$WORK/docs" RAGDOWN_DATA_DIR="$WORK/serve-data" RAGDOWN_EMBEDDER=hash RAGDOWN_WATCH=false \
    RAGDOWN_TOKEN="$TOKEN" RAGDOWN_HOST=127.0.0.1 RAGDOWN_ROOT_MCP=true PORT="$PORT" "$BIN" serve 2>"$WORK/serve.log" &
SERVER_PID=$!
# Ready, first sync done, both chunks indexed.
READY='import json, sys, urllib.request
s = json.load(urllib.request.urlopen(sys.argv[1], timeout=2))
sys.exit(0 if s.get("ready") and s.get("syncing") is False and s.get("chunks") == 2 else 1)'
# Ready and its first sync done, whatever the docs hold by then.
READY_ANY='import json, sys, urllib.request
s = json.load(urllib.request.urlopen(sys.argv[1], timeout=2))
sys.exit(0 if s.get("ready") and s.get("syncing") is False else 1)'
ready=false
for _ in $(seq 1 300); do
    if "$PY" -c "$READY" "http://127.0.0.1:$PORT/api/status" 2>/dev/null; then ready=true; break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; fail "ragdownd serve exited"; }
    sleep 0.2
done
[ "$ready" = true ] || { cat "$WORK/serve.log" >&2; fail "serve not ready within 60 s"; }
URL="http://127.0.0.1:$PORT/mcp/ops"
out=$("$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $TOKEN" --method tools/list --strict 2>&1) || fail "inspector http tools/list: $out"
expect "inspector http tools/list --strict" "$out" '"ragdown_read_doc"'
out=$("$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $TOKEN" --method tools/call --tool-name ragdown_read_doc --tool-arg path=backups.md 2>&1) || fail "$out"
expect "inspector http ragdown_read_doc" "$out" 'backups.md:1-7 of 7'
out=$("$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $TOKEN" --method resources/list 2>&1) || fail "inspector http resources/list: $out"
expect "inspector http resources/list" "$out" '"ragdown:///ops/backups.md"'
out=$("$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $TOKEN" --method resources/templates/list 2>&1) || fail "$out"
expect "inspector http resources/templates/list" "$out" 'ragdown:///ops/{+path}#{heading}'
out=$("$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $TOKEN" --method tools/call --tool-name ragdown_write \
    --tool-arg path=inspector.md "text=# From the Inspector" 2>&1) || fail "$out"
expect "inspector http ragdown_write" "$out" 'created inspector.md'
[ -f "$WORK/docs/ops/inspector.md" ] || fail "ragdown_write over HTTP did not create the file"
out=$("$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $TOKEN" --method tools/call --tool-name ragdown_delete \
    --tool-arg path=inspector.md 2>&1) || fail "$out"
expect "inspector http ragdown_delete" "$out" 'deleted inspector.md'
if out=$("$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer wrong" --method tools/list 2>&1); then
    fail "a wrong token was accepted: $out"
fi
log "ok: inspector http with a wrong token is refused"
# The root endpoint: every MCP folder, its own two tools and a folder argument, schema-checked.
ROOT_URL="http://127.0.0.1:$PORT/mcp"
out=$("$INSPECTOR" --cli "$ROOT_URL" --transport http --header "Authorization: Bearer $TOKEN" --method tools/list --strict 2>&1) || fail "inspector root tools/list: $out"
expect "inspector root tools/list --strict" "$out" '"ragdown_create_folder"'
out=$("$INSPECTOR" --cli "$ROOT_URL" --transport http --header "Authorization: Bearer $TOKEN" --method tools/call --tool-name ragdown_recall \
    --tool-arg query=pg_restore 2>&1) || fail "$out"
expect "inspector root ragdown_recall" "$out" '[ops] backups.md:'
out=$("$INSPECTOR" --cli "$ROOT_URL" --transport http --header "Authorization: Bearer $TOKEN" --method tools/call --tool-name ragdown_read_doc \
    --tool-arg folder=ops --tool-arg path=backups.md 2>&1) || fail "$out"
expect "inspector root ragdown_read_doc" "$out" 'backups.md:1-7 of 7'

# --- the official Python SDK client ----------------------------------------------------------
"$PY" "$ROOT/tests/interop/python_client.py" --bin "$BIN" --docs "$WORK/docs" --data "$WORK/stdio-data" \
    --url "$URL" --token "$TOKEN"

# --- the official TypeScript SDK client ------------------------------------------------------
"$NODE" "$ROOT/tests/interop/ts_client.mjs" --bin "$BIN" --docs "$WORK/docs" --data "$WORK/stdio-data" \
    --url "$URL" --token "$TOKEN"

# --- the MCP conformance tool's server scenarios ---------------------------------------------
# It sends no bearer token, so a second server runs on loopback without one (SECURE_LOCAL_NET).
# The scenarios left out need the tool's own fixtures (test:// resources, prompts, diagnostic
# tools), or sessions (docs/tools.md, "Conformance").
CONFORMANCE_PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
RAGDOWN_DOCS_DIR="$WORK/docs" RAGDOWN_DATA_DIR="$WORK/conformance-data" RAGDOWN_EMBEDDER=hash RAGDOWN_WATCH=false \
    SECURE_LOCAL_NET=true RAGDOWN_HOST=127.0.0.1 PORT="$CONFORMANCE_PORT" "$BIN" serve 2>"$WORK/conformance.log" &
CONFORMANCE_PID=$!
ready=false
for _ in $(seq 1 300); do
    if "$PY" -c "$READY_ANY" "http://127.0.0.1:$CONFORMANCE_PORT/api/status" 2>/dev/null; then ready=true; break; fi
    kill -0 "$CONFORMANCE_PID" 2>/dev/null || { cat "$WORK/conformance.log" >&2; fail "ragdownd serve (conformance) exited"; }
    sleep 0.2
done
[ "$ready" = true ] || { cat "$WORK/conformance.log" >&2; fail "serve (conformance) not ready within 60 s"; }
CONFORMANCE="$ROOT/tests/interop/node_modules/@modelcontextprotocol/conformance/dist/index.js"
conformance() { # conformance SPEC_VERSION SCENARIO...
    local version=$1 scenario out
    shift
    for scenario in "$@"; do
        out=$(cd "$WORK" && "$NODE" "$CONFORMANCE" server --url "http://127.0.0.1:$CONFORMANCE_PORT/mcp/ops" \
            --scenario "$scenario" --spec-version "$version" 2>&1) \
            || { printf '%s\n' "$out" >&2; fail "conformance $scenario ($version)"; }
        log "ok: conformance $scenario ($version)"
    done
}
conformance 2025-11-25 server-initialize ping tools-list resources-list dns-rebinding-protection
conformance 2026-07-28 tools-list resources-list sep-2164-resource-not-found http-header-validation \
    dns-rebinding-protection server-sse-multiple-streams

# --- OAuth 2.1 with both SDKs' OAuth clients, consent in Chromium ------------------------------
"$ROOT/tests/interop/oauth.sh"
log "interop checks passed"
