#!/usr/bin/env bash
# Runs the whole test suite: domain tests (no sockets, no real sleeping), router tests on values,
# and end-to-end tests against real servers on 127.0.0.1:0.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
