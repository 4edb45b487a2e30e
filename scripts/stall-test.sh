#!/usr/bin/env bash
# Hostile clients against a release ListServer on 127.0.0.1, and the clients that share it (scripts/stall_test.py):
#   - 200 connections stalled in their bodies, 200 in their heads and 8 upload heads declaring 10 MiB: meanwhile
#     /healthz, a page and a 200 KB upload each answer within 1 s, and the stalled ones are closed by their
#     deadlines (408: the minimum body rate after a second, http.header_timeout_ms for heads);
#   - with --max-connections 40 (one loop: the limit is per loop), 40 stalled bodies (no minimum rate) hold every
#     connection: /healthz, /readyz and /metrics still answer within 1 s from the reserve, a page gets 503
#     server-busy, and pages come back once the bodies' deadline closes them;
#   - 300 event-stream subscribers that never read while 1,500 changes of ~2 KB go out: the server's memory stays
#     within what events.max_buffered_bytes (8 MiB here) allows, they are dropped, a reader gets every change.
# Bounded: about a minute once built. Usage: scripts/stall-test.sh   (STALL_TEST_BINARY=path skips the build)
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/stall-test.XXXXXX)
cleanup() {
    local status=$?
    stop_launched
    if ((status != 0)); then
        for log in "$work"/*.log; do [[ -f $log ]] && { echo "--- $log"; tail -5 "$log"; }; done
        echo "stall-test: FAILED" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

install_missing_packages "${build_packages[@]}" python3
if [[ -n ${STALL_TEST_BINARY:-} ]]; then
    binary=$STALL_TEST_BINARY
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
quiet=(--no-access-log --image-latency-distribution none)

launch_server "$work/bodies.log" 0 "$binary" --data-path "$work/bodies.sqlite" "${quiet[@]}"
timeout 120 python3 scripts/stall_test.py bodies "$launched_port"
stop_launched

launched_pids=()
launch_server "$work/reserve.log" 0 "$binary" --data-path :memory: --threads 1 --max-connections 40 --min-body-rate 0 \
    "${quiet[@]}"
timeout 120 python3 scripts/stall_test.py reserve "$launched_port"
stop_launched

launched_pids=()
launch_server "$work/readers.log" 0 "$binary" --data-path :memory: --data-synchronous normal \
    --event-buffered-bytes 8388608 "${quiet[@]}"
timeout 180 python3 scripts/stall_test.py readers "$launched_port" "$launched_pid"
echo "stall-test: PASSED"
