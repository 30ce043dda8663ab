#!/usr/bin/env bash
# Installs Debian's chromium (run as root) for the viewer's browser tests, which drive it with
# Playwright through its executable path: no browser is downloaded at test time, and
# `playwright install` is never run.
# Idempotent: an installed chromium is left as it is.
#
#   .ci/setup-browser.sh
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    echo "setup-browser: $(chromium --version 2>/dev/null) is installed"
    exit 0
fi
if [[ "$(id -u)" != 0 ]]; then
    echo "setup-browser: run as root (it installs the chromium package)" >&2
    exit 1
fi
echo "setup-browser: installing chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "setup-browser: $(chromium --version 2>/dev/null) is installed"
