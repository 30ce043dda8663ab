#!/usr/bin/env bash
# Everything the tests need beyond `pip install -e ".[dev]"`, as root on a fresh Debian or
# Ubuntu machine (README, "Set up"). Each step is idempotent; `set -e` stops at the first
# failure. Nothing is pulled from an image registry.
set -euo pipefail
cd "$(dirname "$0")/.."

# The sandbox: Debian's python3 with numpy and sympy, the Docker engine, the base image.
.ci/setup-sandbox.sh
# The SWE tasks' sources, into the local wheelhouse (the only step of theirs that needs PyPI).
palaestra swe fetch
# Debian's chromium, which the viewer's browser tests drive.
.ci/setup-browser.sh
# verl's and OpenRLHF's agent-loop code for the integration tests, outside the venv.
.ci/setup-frameworks.sh
# Debian's PostgreSQL for the SQL environments.
.ci/setup-postgres.sh
