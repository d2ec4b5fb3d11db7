#!/usr/bin/env bash
# Installs the interop tests' npm packages (the official MCP TypeScript SDK client and ajv, pinned
# in tests/interop/package-lock.json) with Node 22, when the lock file changed since the last
# install. run.sh calls it; scripts/test.sh calls it with the other installs.
#
#   tests/interop/install-deps.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

"$ROOT/scripts/install-node.sh" --node-only >/dev/null
NODE_BIN=$(dirname "$(readlink -f "$("$RAGDOWN_BIN/node22" -p process.execPath)")")
export PATH="$NODE_BIN:$PATH"
NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
npm22() { node "$NPM_CLI" "$@"; }

cd "$ROOT/tests/interop"
# npm ci only when the lock file changed since the last install (it wipes node_modules).
STAMP=node_modules/.ragdown-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
    log "installing the interop tests' npm packages (npm ci)"
    npm22 ci --no-audit --no-fund --loglevel=error >&2
    echo "$want" > "$STAMP"
fi
