#!/usr/bin/env bash
# scripts/bytes-test.sh: what a client's bytes look like, checked by tools that are not ListServer's (issue 35).
#
#   scripts/bytes-test.sh        (BYTES_TEST_BINARY=path uses that ListServer instead of building one)
#
# Placeholders: every item's blur_hash, decoded by the Python `blurhash` package (an implementation of Wolt's
# format independent of ours), has the average colour of the item's photo as Pillow decodes it; an upload's
# blur_hash is what that package's encoder makes of the uploaded pixels; /v2/list, /id/<id>/info and the change feed
# carry them too. Compression: curl's --compressed (gzip and zstd) and Python's gzip decode compressed answers to the
# identity body byte for byte, and a gzip event stream decodes each event as it arrives (flushed per event).
# Bounded: every request has a timeout, the whole run a `timeout`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/bytes-test.XXXXXX)
cleanup() {
    local status=$?
    stop_launched
    if ((status != 0)); then
        echo "--- server log"; tail -5 "$work/server.log" 2>/dev/null || true
        echo "bytes-test: FAILED" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

install_missing_packages "${build_packages[@]}" curl python3 python3-pip
python3 -c 'import blurhash, PIL' 2>/dev/null || python3 -m pip install --quiet 'blurhash==1.1.5' 'pillow>=9'
if [[ -n ${BYTES_TEST_BINARY:-} ]]; then
    binary=$BYTES_TEST_BINARY
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
launch_server "$work/server.log" 0 "$binary" --data-path :memory: --image-latency-min-ms 0 --image-latency-max-ms 0
timeout 300 python3 scripts/bytes_test.py "http://127.0.0.1:$launched_port"
log "bytes-test: passed"
