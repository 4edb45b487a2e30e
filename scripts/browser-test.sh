#!/usr/bin/env bash
# scripts/browser-test.sh: the app at / in a real browser (headless Chromium from Debian, driven by Playwright for
# Python launched with Debian's binary; Playwright's own browser download cannot work here).
#
#   scripts/browser-test.sh        (BROWSER_TEST_BINARY=path uses that ListServer instead of building one)
#
# The flows and what they assert are in scripts/browser_test.py. The server runs with short latencies (details 50-150
# ms, images 20-80 ms) so a flow sees loading states without waiting long. Screenshots of each view land in
# Benchmarks/results/screenshots/ (ignored by git). Bounded: each step under `timeout`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/browser-test.XXXXXX)
cleanup() {
    local status=$?
    stop_launched
    if ((status != 0)); then
        echo "--- server log"; tail -5 "$work/server.log" 2>/dev/null || true
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
launch_server "$work/server.log" 0 "$binary" --threads 2 --data-path :memory: --latency-min-ms 50 \
    --latency-max-ms 150 --image-latency-min-ms 20 --image-latency-max-ms 80
log "browser flows against 127.0.0.1:$launched_port"
timeout 600 python3 scripts/browser_test.py --base "http://127.0.0.1:$launched_port" --chromium /usr/bin/chromium \
    --screenshots "$root/Benchmarks/results/screenshots"
log "browser-test: passed"
