#!/usr/bin/env bash
# Interop, OAuth 2.1 as the MCP authorization spec (2026-07-28) has it, end to end over real HTTP:
# a real `ragdownd serve` with an owner's token (so OAuth is on) and the web UI from web/dist, the
# official MCP Python SDK's OAuth client (oauth_python.py: dynamic registration and a client ID
# metadata document served over HTTPS with a certificate made here) and the official TypeScript
# SDK's auth flow (oauth_ts.mjs: both registration ways, one grant narrowed to read), the owner's
# consent given in a real Chromium on the web UI's consent page (consent.mjs); then tools listed
# and called with the issued tokens, refreshed, and revoked; and the error paths (Deny, a reused
# refresh token or code, a wrong PKCE verifier, an unregistered redirect URI, a forged consent
# answer, a token at another folder's endpoint, a metadata document on a private address), and no
# token or code in the server's log. run.sh calls it.
#
#   tests/interop/oauth.sh      # RAGDOWN_WEB_DIR: the built web UI (default: web/dist, built when missing)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

BIN="$CARGO_TARGET_DIR/debug/ragdownd"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --locked -p ragdownd --bin ragdownd)
PY="$RAGDOWN_VENV/bin/python"
NODE="$RAGDOWN_BIN/node22"
"$ROOT/tests/interop/install-deps.sh"
need_command openssl openssl "macOS: it comes with the system"
CHROMIUM=${CHROMIUM:-$("$ROOT/scripts/install-chromium.sh")}
export CHROMIUM
WEB_DIR=${RAGDOWN_WEB_DIR:-$ROOT/web/dist}
[ -f "$WEB_DIR/index.html" ] || "$ROOT/scripts/build-web.sh"
[ -f "$WEB_DIR/index.html" ] || die "no web UI at $WEB_DIR (scripts/build-web.sh)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-oauth.XXXXXX")
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() { log "FAIL: $*"; exit 1; }

# Two folders with MCP on: ops (the one the clients ask for) and journal (where ops's tokens must
# be refused).
mkdir -p "$WORK/docs/ops" "$WORK/docs/journal" "$WORK/cimd"
cp "$ROOT/ragdownd/tests/data/ops-backups.md" "$WORK/docs/ops/backups.md"
cp "$ROOT/ragdownd/tests/data/http-ops-ragdown.json" "$WORK/docs/ops/.ragdown.json"
printf '# Journal\n\nNot for the ops agents.\n' >"$WORK/docs/journal/today.md"
printf '{"title":"Journal","mcp":true}' >"$WORK/docs/journal/.ragdown.json"

# A certificate authority made for this run, and a certificate for 127.0.0.1 and localhost that
# it signs: the HTTPS server of the client ID metadata documents uses it, and ragdownd trusts the
# authority through SSL_CERT_FILE (rustls-native-certs reads it instead of the system's roots).
TLS="$WORK/tls"
mkdir -p "$TLS"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=ragdown interop test CA" -keyout "$TLS/ca.key" -out "$TLS/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$TLS/server.key" -out "$TLS/server.csr" 2>/dev/null
printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" >"$TLS/server.ext"
openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" -CAcreateserial -days 2 \
    -extfile "$TLS/server.ext" -out "$TLS/server.pem" 2>/dev/null

: >"$WORK/cimd.log"
"$PY" "$ROOT/tests/interop/https_files.py" --dir "$WORK/cimd" --cert "$TLS/server.pem" --key "$TLS/server.key" \
    --log "$WORK/cimd.log" >"$WORK/cimd.port" 2>"$WORK/cimd.err" &
PIDS+=("$!")
for _ in $(seq 1 100); do [ -s "$WORK/cimd.port" ] && break; sleep 0.1; done
[ -s "$WORK/cimd.port" ] || { cat "$WORK/cimd.err" >&2; fail "the HTTPS server of the metadata documents did not start"; }
CIMD_BASE="https://127.0.0.1:$(cat "$WORK/cimd.port")"

TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
READY='import json, sys, urllib.request
s = json.load(urllib.request.urlopen(sys.argv[1], timeout=2))
sys.exit(0 if s.get("ready") and s.get("syncing") is False else 1)'
# serve NAME PORT ENV... : starts `ragdownd serve` on 127.0.0.1:PORT with OAuth on (the owner's
# token) and the web UI from $WEB_DIR, ENV added, and waits until it is ready.
serve() {
    local name=$1 port=$2
    shift 2
    env RAGDOWN_DOCS_DIR="$WORK/docs" RAGDOWN_DATA_DIR="$WORK/$name-data" RAGDOWN_EMBEDDER=hash RAGDOWN_WATCH=false \
        RAGDOWN_TOKEN="$TOKEN" RAGDOWN_HOST=127.0.0.1 PORT="$port" RAGDOWN_WEB_DIR="$WEB_DIR" \
        SSL_CERT_FILE="$TLS/ca.pem" "$@" "$BIN" serve 2>"$WORK/$name.log" &
    PIDS+=("$!")
    local pid=$! _
    for _ in $(seq 1 300); do
        "$PY" -c "$READY" "http://127.0.0.1:$port/api/status" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.log" >&2; fail "ragdownd serve ($name) exited"; }
        sleep 0.2
    done
    cat "$WORK/$name.log" >&2
    fail "ragdownd serve ($name) not ready within 60 s"
}
PORT=$(free_port)
serve main "$PORT" RAGDOWN_OAUTH_PRIVATE_CLIENTS=true
# The same, without RAGDOWN_OAUTH_PRIVATE_CLIENTS: a metadata document on 127.0.0.1 is refused.
STRICT_PORT=$(free_port)
serve strict "$STRICT_PORT"
log "ragdownd serve with OAuth on at http://127.0.0.1:$PORT (and without private clients at :$STRICT_PORT)"

"$PY" "$ROOT/tests/interop/oauth_python.py" --url "http://127.0.0.1:$PORT" --strict-url "http://127.0.0.1:$STRICT_PORT" \
    --token "$TOKEN" --docs "$WORK/docs" --node "$NODE" --consent "$ROOT/tests/interop/consent.mjs" \
    --cimd-dir "$WORK/cimd" --cimd-base "$CIMD_BASE" --cimd-log "$WORK/cimd.log" \
    || { tail -n 40 "$WORK/main.log" >&2; fail "the Python SDK's OAuth client"; }
"$NODE" "$ROOT/tests/interop/oauth_ts.mjs" --url "http://127.0.0.1:$PORT" --token "$TOKEN" --docs "$WORK/docs" \
    --consent "$ROOT/tests/interop/consent.mjs" --cimd-dir "$WORK/cimd" --cimd-base "$CIMD_BASE" --cimd-log "$WORK/cimd.log" \
    || { tail -n 40 "$WORK/main.log" >&2; fail "the TypeScript SDK's auth flow"; }
# Nothing secret in the server's log: no access or refresh token, no code.
if grep -E 'rd[ar]_[A-Za-z0-9_-]{8,}|code=[A-Za-z0-9_-]{8,}' "$WORK/main.log" "$WORK/strict.log" >&2; then
    fail "a token or code in the server's log"
fi
log "ok: no token or code in the server's log"
log "oauth interop checks passed"
