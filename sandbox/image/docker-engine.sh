#!/usr/bin/env bash
# Make sure a Docker engine answers on this host: as root, install docker.io when missing and
# start dockerd when it is not running; also install bubblewrap, the local sandbox's isolation,
# when missing. Without root it can only report.
# Exits non-zero when no engine answers and TORCHPORT_REQUIRE_DOCKER=1 (CI) or the setup failed.
set -euo pipefail

LOG="${DOCKERD_LOG:-/var/log/torchport-dockerd.log}"

engine_answers() { docker info >/dev/null 2>&1; }

if ! command -v bwrap >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "local sandbox: installing bubblewrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
fi

if command -v docker >/dev/null && engine_answers; then
    echo "docker engine: running"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "docker engine: not reachable and not root, so not installed or started" >&2
    [ "${TORCHPORT_REQUIRE_DOCKER:-}" != 1 ] || exit 1
    echo "docker engine: the Docker tests will be skipped" >&2
    exit 0
fi
if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
    echo "docker engine: installing docker.io"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
if ! pgrep -x dockerd >/dev/null; then
    echo "docker engine: starting dockerd (log: $LOG)"
    nohup dockerd --storage-driver=overlay2 --iptables=false --bridge=none >"$LOG" 2>&1 &
fi
for _ in $(seq 60); do
    engine_answers && { echo "docker engine: running"; exit 0; }
    sleep 0.5
done
echo "docker engine: dockerd does not answer after 30 s; last log lines:" >&2
tail -20 "$LOG" >&2 || true
exit 1
