#!/usr/bin/env bash
# Make a Debian bookworm base image with Python 3 on this host, for hosts that cannot pull from a
# registry: debootstrap a minimal root filesystem (about 40 s) and `docker import` it.
#   sandbox/image/make-base-image.sh [TAG]     (default torchport-base:bookworm; needs root)
# Does nothing when TAG exists. DEBIAN_MIRROR overrides the mirror.
set -euo pipefail

TAG="${1:-torchport-base:bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "base image $TAG: present"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "make-base-image: debootstrap needs root; run as root or pass a base you have" >&2
    exit 1
fi
if ! command -v debootstrap >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
fi

ROOTFS="$(mktemp -d /tmp/torchport-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
echo "base image $TAG: debootstrap bookworm from $MIRROR (about 40 s)"
debootstrap --variant=minbase --include=python3,python3-venv bookworm "$ROOTFS" "$MIRROR" \
    >"$ROOTFS.log" 2>&1 || { tail -20 "$ROOTFS.log" >&2; rm -f "$ROOTFS.log"; exit 1; }
rm -f "$ROOTFS.log"
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
tar -C "$ROOTFS" -c . | docker import --change 'CMD ["python3"]' - "$TAG" >/dev/null
echo "base image $TAG: imported"
