#!/usr/bin/env bash
# Server-Sent Events with real clients against a release ListServer on 127.0.0.1: `curl -N` and a Python client
# (scripts/sse_client.py, the standard library only, parsing the stream as the SSE spec says). Checks that
#   - every change arrives at every subscriber once, in order, with its kind and id;
#   - a client that disconnects and reconnects with Last-Event-ID gets exactly what it missed, then the live ones:
#     nothing missed, nothing twice;
#   - a Last-Event-ID older than what is kept (data.changes_kept) gets one `expired` event;
# and the same feed over a WebSocket (scripts/websocket_client.py, with the `websockets` package as an independent
# client): the same changes in the same order as SSE, ?since= replay, typing, hostile clients closed, pings.
# Bounded: about 10 s once built. Usage: scripts/sse-test.sh   (SSE_TEST_BINARY=path skips the build)
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/sse-test.XXXXXX)
curl_pid=""
cleanup() {
    local status=$?
    [[ -n $curl_pid ]] && kill "$curl_pid" 2>/dev/null || true
    stop_launched
    if ((status != 0)); then
        echo "--- server log"; tail -5 "$work/server.log" 2>/dev/null || true
        echo "sse-test: FAILED" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

install_missing_packages "${build_packages[@]}" curl python3 python3-pip
python3 -c 'import websockets' 2>/dev/null || python3 -m pip install --quiet 'websockets>=13,<18'
if [[ -n ${SSE_TEST_BINARY:-} ]]; then
    binary=$SSE_TEST_BINARY
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
launch_server "$work/server.log" 0 "$binary" --threads 2 --data-path :memory: --changes-kept 100 --heartbeat-ms 500
port=$launched_port
curl -sN "http://127.0.0.1:$port/items/events" >"$work/curl.out" &
curl_pid=$!
python3 scripts/sse_client.py --port "$port" --curl-output "$work/curl.out"
timeout 120 python3 scripts/websocket_client.py --port "$port"
echo "sse-test: PASSED"
