#!/usr/bin/env bash
# Make sure a Chromium the web UI's end-to-end tests can drive is installed, and print its path.
# Playwright's own browser download cannot reach its CDN from here, so the tests drive the
# system's: Debian's `chromium` package (installed with apt-get when we are root or have sudo).
# CHROMIUM=/path/to/chrome overrides.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# CJK and emoji fonts, so that the browser tests' screenshots of Chinese, Japanese and Korean notes
# show letters, not boxes (the tests pass without them; only the pictures need them).
if command -v apt-get >/dev/null 2>&1 && ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then
    log "installing fonts-noto-cjk and fonts-noto-color-emoji for the screenshots of CJK notes"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        fonts-noto-cjk fonts-noto-color-emoji >&2 \
        || log "could not install fonts-noto-cjk: screenshots of CJK notes will show boxes"
fi

for candidate in "${CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
        echo "$candidate"
        exit 0
    fi
done
command -v apt-get >/dev/null 2>&1 || die "no Chromium found: install one and set CHROMIUM=/path/to/it"
log "installing Debian's chromium for the web UI's end-to-end tests"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core >&2 \
    || { as_root apt-get update >&2 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core >&2; } \
    || die "could not install chromium (apt-get install chromium); set CHROMIUM=/path/to/chrome"
echo /usr/bin/chromium
