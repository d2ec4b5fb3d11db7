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

use_node22
npm_ci_when_changed "$ROOT/web" "the web UI's packages"
[ "${1:-}" = "--deps" ] && exit 0

cd "$ROOT/web"

log "building the web UI into web/dist"
npm22 run --silent build >&2
