#!/usr/bin/env bash
# Prepares a fresh Debian bookworm machine (run as root) for the sandbox and its tests:
# installs numpy and sympy for Debian's python3 (the interpreter local sandboxes run),
# docker.io and debootstrap, starts dockerd in the background, waits for it, and builds the
# sandbox base image (debootstrap + docker import; nothing is pulled).
# Idempotent: installed packages, a running engine and a built image are left as they are.
#
#   PYTHON=/path/to/venv/bin/python .ci/setup-sandbox.sh
#
# PYTHON is the interpreter that has palaestra installed (default: python3, the active
# virtual environment's).
# Where dockerd cannot start at all (a container without the privileges it needs), the
# script says why and exits 0, so that CI goes on and the Docker tests skip with that
# reason; DOCKER_REQUIRED=1 makes it an error instead. Failing installs and image builds
# are always errors.
set -euo pipefail

PYTHON="${PYTHON:-python3}"
LOG="${DOCKERD_LOG:-/var/log/dockerd.log}"

if [[ "$(id -u)" != 0 ]]; then
    echo "setup-sandbox: run as root" >&2
    exit 1
fi

missing=()
/usr/bin/python3 -c "import numpy, sympy" >/dev/null 2>&1 || missing+=(python3-numpy python3-sympy)
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if ((${#missing[@]})); then
    echo "setup-sandbox: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" ca-certificates >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
    echo "setup-sandbox: starting dockerd (log: $LOG)"
    setsid dockerd >>"$LOG" 2>&1 < /dev/null &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    if ! docker info >/dev/null 2>&1; then
        echo "setup-sandbox: dockerd did not start; last lines of $LOG:" >&2
        tail -n 40 "$LOG" >&2 || true
        if [[ "${DOCKER_REQUIRED:-0}" == 1 ]]; then
            exit 1
        fi
        echo "setup-sandbox: the Docker engine cannot start here; the Docker tests will skip" >&2
        exit 0
    fi
fi
echo "setup-sandbox: engine $(docker version --format '{{.Server.Version}}') is up"

"$PYTHON" -m palaestra.sandbox.cli build-image
