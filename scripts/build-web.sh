#!/usr/bin/env bash
# Build the web UI into web/dist (ragdownd embeds it in release builds and reads it from disk in
# debug ones). Installs Node 22 first (scripts/install-node.sh) and the UI's npm packages from
# web/package-lock.json when they changed.
#
#   scripts/build-web.sh            # npm ci (when needed) + npm run build
#   scripts/build-web.sh --deps     # npm ci (when needed) only
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"

"$ROOT/scripts/install-node.sh" --node-only >/dev/null
NODE_BIN=$(dirname "$(readlink -f "$("$RAGDOWN_BIN/node22" -p process.execPath)")")
export PATH="$NODE_BIN:$PATH"
NPM_CLI="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
npm22() { node "$NPM_CLI" "$@"; }

cd "$ROOT/web"
# npm ci only when the lock file changed since the last install (it wipes node_modules).
STAMP=node_modules/.ragdown-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want" ]; then
    log "installing the web UI's packages (npm ci)"
    npm22 ci --no-audit --no-fund --loglevel=error >&2
    echo "$want" > "$STAMP"
fi
[ "${1:-}" = "--deps" ] && exit 0

log "building the web UI into web/dist"
npm22 run --silent build >&2
