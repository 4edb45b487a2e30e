#!/usr/bin/env bash
# scripts/browser-test.sh: the app at / in a real browser (headless Chromium from Debian, driven by Playwright for
# Python launched with Debian's binary; Playwright's own browser download cannot work here).
#
#   scripts/browser-test.sh        (BROWSER_TEST_BINARY=path uses that ListServer instead of building one)
#
# The flows and what they assert are in scripts/browser_test.py, which runs the server with short latencies (details
# 50-150 ms, images 20-80 ms) so a flow sees loading states without waiting long. Screenshots of each view land in
# Benchmarks/results/screenshots/ (ignored by git). Bounded: each step under `timeout`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/browser-test.XXXXXX)
cleanup() {
    local status=$?
    stop_launched
    if ((status != 0)); then
        for log in "$work"/server-*.log; do [[ -f $log ]] && { echo "--- $log (end)"; tail -5 "$log"; }; done
        echo "browser-test: FAILED" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

install_missing_packages "${build_packages[@]}" chromium python3 python3-pip
python3 -c 'import playwright' 2>/dev/null || python3 -m pip install --quiet 'playwright==1.*'
if [[ -n ${BROWSER_TEST_BINARY:-} ]]; then
    binary=$BROWSER_TEST_BINARY
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
# browser_test.py starts the server itself (on a file in $work), as it restarts it in the chat flow.
timeout 600 python3 scripts/browser_test.py --binary "$binary" --workdir "$work" --chromium /usr/bin/chromium \
    --screenshots "$root/Benchmarks/results/screenshots"
log "browser-test: passed"
