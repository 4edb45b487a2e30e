#!/usr/bin/env bash
# Runs the whole test suite: domain tests (no sockets, no real sleeping), router tests on values,
# and end-to-end tests against real servers on 127.0.0.1:0.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"
install_missing_packages "${build_packages[@]}"
swift build --build-tests
# Bounded: a hung test fails the run instead of eating CI's 90 minutes.
timeout 1500 swift test --skip-build
