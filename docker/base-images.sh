#!/usr/bin/env bash
# Makes the two base images the Dockerfile starts FROM, on a machine that reaches Debian's mirror
# but no image registry: a local stand-in for Docker Hub, as PyPI's model wheels stand in for the
# model hub. The Dockerfile stays the one a user builds against the real registry.
#
#   docker/base-images.sh [--force]
#
# - `debian:bookworm-slim`: `debootstrap --variant=minbase bookworm`, imported with `docker import`.
# - `rust:<major.minor>-bookworm`: the same minbase with the compilers the official image carries
#   (gcc, g++, make, pkg-config, git, curl) and this machine's Rust toolchain copied in, with the
#   official image's RUSTUP_HOME, CARGO_HOME and PATH. The tag is read from the Dockerfile and must
#   match this machine's rustc.
#
# Both carry this machine's own certificate authorities (/usr/local/share/ca-certificates), and the
# variables that point tools at the system bundle, as the host has them: where outbound TLS passes
# a proxy that signs with its own CA, apt, pip, npm and cargo inside a build then trust what the
# host trusts. Without such CAs nothing is added.
#
# An image that already exists is kept unless --force. Needs root, debootstrap and a Docker engine.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DOCKER=${DOCKER:-docker}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
FORCE=${1:-}

[ "$(id -u)" -eq 0 ] || die "debootstrap needs root"
need_command debootstrap debootstrap "the base images are made with debootstrap"

have_image() { [ "$FORCE" != --force ] && "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

# rootfs DIR [PACKAGES] : a minbase bookworm in DIR, with PACKAGES (comma-separated) added.
rootfs() {
    local include=()
    [ -n "${2:-}" ] && include=(--include="$2")
    debootstrap --variant=minbase "${include[@]}" bookworm "$1" "$MIRROR" >"$1.log" 2>&1 \
        || { tail -20 "$1.log" >&2; die "debootstrap failed ($1.log)"; }
    rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb
    # What makes Docker Hub's Debian images slim, so that layers built on these are the size they
    # would be there: apt keeps no package caches, and dpkg installs no docs, man pages or locales.
    cat >"$1/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
    mkdir -p "$1/etc/dpkg/dpkg.cfg.d"
    printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
        'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
        'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
        >"$1/etc/dpkg/dpkg.cfg.d/docker"
    if [ ${#LOCAL_CAS[@]} -gt 0 ]; then
        mkdir -p "$1/usr/local/share/ca-certificates"
        cp "${LOCAL_CAS[@]}" "$1/usr/local/share/ca-certificates/"
        if [ -x "$1/usr/sbin/update-ca-certificates" ]; then
            chroot "$1" update-ca-certificates >/dev/null
        fi
    fi
}

# The machine's own CAs, and the variables that make pip's and Node's own bundles defer to the
# system's (set only when there are such CAs).
shopt -s nullglob
LOCAL_CAS=(/usr/local/share/ca-certificates/*.crt)
shopt -u nullglob
TRUST=()
if [ ${#LOCAL_CAS[@]} -gt 0 ]; then
    BUNDLE=/etc/ssl/certs/ca-certificates.crt
    TRUST=("ENV PIP_CERT=$BUNDLE" "ENV NODE_EXTRA_CA_CERTS=$BUNDLE" "ENV REQUESTS_CA_BUNDLE=$BUNDLE")
fi

# import DIR TAG [CHANGE...] : the folder as a one-layer image.
import() {
    local dir=$1 tag=$2 changes=()
    shift 2
    for change in "$@"; do changes+=(--change "$change"); done
    tar --numeric-owner -C "$dir" -c . | "$DOCKER" import "${changes[@]}" - "$tag" >/dev/null
    log "made $tag ($(du -sh --apparent-size "$dir" | cut -f1))"
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ragdown-base.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if ! have_image debian:bookworm-slim; then
    rootfs "$WORK/slim"
    import "$WORK/slim" debian:bookworm-slim "${TRUST[@]}" 'CMD ["bash"]'
fi

# The builder's tag, from the Dockerfile's first FROM.
RUST_TAG=$(sed -n 's/^FROM \(rust:[^ ]*\).*/\1/p' "$HERE/Dockerfile" | head -1)
[ -n "$RUST_TAG" ] || die "no 'FROM rust:…' in $HERE/Dockerfile"
HAVE=$(rustc --version | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
case "$RUST_TAG" in
    "rust:$HAVE-"*) ;;
    *) die "the Dockerfile builds FROM $RUST_TAG but this machine's rustc is $HAVE" ;;
esac
if ! have_image "$RUST_TAG"; then
    rootfs "$WORK/rust" ca-certificates,curl,git,gcc,g++,libc6-dev,make,pkg-config,xz-utils
    SYSROOT=$(rustc --print sysroot)
    mkdir -p "$WORK/rust/usr/local/rustup/toolchains/default" "$WORK/rust/usr/local/cargo/bin"
    # The toolchain without its HTML docs (~600 MB the official image leaves out too).
    tar -C "$SYSROOT" --exclude=./share/doc -c . | tar -C "$WORK/rust/usr/local/rustup/toolchains/default" -x
    for tool in cargo rustc rustdoc rustfmt cargo-clippy clippy-driver; do
        [ -e "$SYSROOT/bin/$tool" ] && ln -s "../../rustup/toolchains/default/bin/$tool" "$WORK/rust/usr/local/cargo/bin/$tool"
    done
    import "$WORK/rust" "$RUST_TAG" \
        'ENV RUSTUP_HOME=/usr/local/rustup' 'ENV CARGO_HOME=/usr/local/cargo' \
        'ENV PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        "${TRUST[@]}" 'CMD ["bash"]'
fi
