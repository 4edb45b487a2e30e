#!/usr/bin/env bash
# Runs the whole test suite: domain tests (no sockets, no real sleeping), router tests on values,
# end-to-end tests against real servers on 127.0.0.1:0, and the storage tests on both stores: SQLite files in
# temporary folders, and a throwaway PostgreSQL (Debian's postgresql package) started here and stopped at exit.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=SCRIPTDIR/lib/postgres.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/postgres.sh"
cd "$root"
install_missing_packages "${build_packages[@]}"
# The style every Swift file here is held to (.swift-format); the generated files opt out in their first line.
swift format lint --strict --recursive Sources Tests Package.swift Benchmarks Fuzz Examples
swift build --build-tests
# The suite's output, for its failures at the end (set before start_postgres, whose trap runs after this one).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start_postgres lists_test
export LISTSERVER_TEST_POSTGRES_URL=$postgres_url
# At most two test functions a CPU at once (Swift Testing's own bound, read from this variable): unbounded, the
# suite's end-to-end tests each start servers, and on a slow two-core machine their timing tests failed by turns (a
# test held up for a minute between two awaits, a detail unanswered for 10 s); with four, the suite took 115 s
# against 105 and passed.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$(($(nproc) * 2))}
# Bounded: a hung test fails the run instead of eating CI's 90 minutes. The suite prints some 44,000 lines and CI
# keeps only the last hundred, so a failed run ends with its failures again: what failed, where, and why.
status=0
timeout 1500 swift test --skip-build 2>&1 | tee "$log" || status=$?
if ((status != 0)); then
  echo "== the suite failed (exit $status); its failures again:"
  grep -E -A4 '^✘ Test .*(recorded an issue|failed after)|: error: |Fatal error|timed out' "$log" | grep -v '^✔' | head -80
fi
exit "$status"
