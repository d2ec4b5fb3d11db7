#!/usr/bin/env bash
# The run command: on a fresh machine, install what ragdownd needs, build it (the web UI
# included), and start
# `ragdownd serve` on the example vault with the in-process CPU embedder (minilm, in the build that
# runs fastest on this CPU: fastest_minilm in lib.sh), using every core for the first index.
#
#   scripts/run.sh                 # http://127.0.0.1:3000, MCP at /mcp/runbooks and /mcp/notes
#
# Honours the usual variables: RAGDOWN_DOCS_DIR (default: examples/vault), RAGDOWN_EMBEDDER
# (default here: minilm-fp32 on x86-64 CPUs with AVX2, else minilm; both from PyPI, as is
# multilingual-e5-small for notes in Chinese, Japanese or Korean), PORT, RAGDOWN_TOKEN (generated and printed when
# unset, unless SECURE_LOCAL_NET=true), RAGDOWN_HOST (default here: 127.0.0.1).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"

command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust from https://rustup.rs"
need_protoc
"$ROOT/scripts/install-ort.sh" >/dev/null
EMBEDDER=${RAGDOWN_EMBEDDER:-$(fastest_minilm)}
case "$EMBEDDER" in
    minilm | minilm-fp32 | multilingual-e5-small) "$ROOT/scripts/install-model.sh" "$EMBEDDER" >/dev/null ;;
esac

"$ROOT/scripts/build-web.sh"
log "building ragdownd (first build: ~10 minutes on 2 cores; later builds are incremental)"
(cd "$ROOT" && cargo build --locked -p ragdownd --bin ragdownd)

export RAGDOWN_DOCS_DIR=${RAGDOWN_DOCS_DIR:-$ROOT/examples/vault}
export RAGDOWN_EMBEDDER=$EMBEDDER
export RAGDOWN_MODELS
export RAGDOWN_HOST=${RAGDOWN_HOST:-127.0.0.1}
export PORT=${PORT:-3000}
case "${SECURE_LOCAL_NET:-false}" in
    true | 1 | yes | on) ;;
    *)
        if [ -z "${RAGDOWN_TOKEN:-}" ]; then
            RAGDOWN_TOKEN=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
            export RAGDOWN_TOKEN
            log "generated RAGDOWN_TOKEN=$RAGDOWN_TOKEN (send it as: Authorization: Bearer <token>)"
        fi
        ;;
esac
log "serving $RAGDOWN_DOCS_DIR on http://$RAGDOWN_HOST:$PORT (web UI: /, status: /api/status, MCP: /mcp/<folder>)"
exec "$CARGO_TARGET_DIR/debug/ragdownd" serve
