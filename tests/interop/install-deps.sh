#!/usr/bin/env bash
# Installs the interop tests' npm packages (the official MCP TypeScript SDK client and ajv, pinned
# in tests/interop/package-lock.json) with Node 22, when the lock file changed since the last
# install. run.sh calls it; scripts/test.sh calls it with the other installs.
#
#   tests/interop/install-deps.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

use_node22
npm_ci_when_changed "$ROOT/tests/interop" "the interop tests' npm packages"
