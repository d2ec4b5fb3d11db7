#!/usr/bin/env bash
# Install the tools the structure stage of the test command uses that no package registry ships
# as a binary: tokei (lines of code), built from crates.io at a pinned version.
#
#   scripts/install-check-tools.sh      # prints tokei's path on stdout
#
# It lives in $RAGDOWN_CACHE/tools/bin; a second run finds it there and does nothing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOKEI_VERSION=15.0.0
TOOLS=$RAGDOWN_CACHE/tools
TOKEI=$TOOLS/bin/tokei

if [ -x "$TOKEI" ] && "$TOKEI" --version | grep -q "^tokei $TOKEI_VERSION "; then
    echo "$TOKEI"
    exit 0
fi
command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust from https://rustup.rs"
log "building tokei $TOKEI_VERSION from crates.io into $TOOLS (about two minutes)"
cargo install --locked --quiet --root "$TOOLS" --version "$TOKEI_VERSION" tokei >&2
echo "$TOKEI"
