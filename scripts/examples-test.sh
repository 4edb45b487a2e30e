#!/usr/bin/env bash
# scripts/examples-test.sh: builds the client programs in Examples/ and runs each against a live server.
#
#   scripts/examples-test.sh        (EXAMPLES_TEST_BINARY=path uses that ListServer instead of building one)
#
# Examples/PhotoList is the photo list post's data layer (PictureData, /v2/list?page=&limit=, URLSession on each
# download_url), unchanged but for the host: it loads the first 2 pages of 10 and exits 0 only when every picture
# arrived as a JPEG file of the listed size. Examples/ListClient is a client generated from openapi.yaml by
# swift-openapi-generator's build plugin (the build proves the description complete enough for code generation),
# used as a list screen's data layer: pages, concurrent details, a send with Idempotency-Key, an edit with If-Match
# (and a stale one refused), the change feed, a chat (a reply with its retry replayed, the jump to its origin, an
# edit, the read marker); it exits 0 only when every step saw what the API promises. The server
# runs with its default latencies, as an app would meet them. Bounded: each step under `timeout`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/examples-test.XXXXXX)
cleanup() {
    local status=$?
    stop_launched
    if ((status != 0)); then
        echo "--- server log"; tail -5 "$work/server.log" 2>/dev/null || true
        echo "examples-test: FAILED" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

install_missing_packages "${build_packages[@]}" curl python3
if [[ -n ${EXAMPLES_TEST_BINARY:-} ]]; then
    binary=$EXAMPLES_TEST_BINARY
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
timeout 900 swift build --package-path Examples/PhotoList
Examples/ListClient/prepare.sh
timeout 1200 swift build --package-path Examples/ListClient
launch_server "$work/server.log" 0 "$binary" --threads 2 --data-path :memory:
port=$launched_port
log "PhotoList against 127.0.0.1:$port"
timeout 300 "$(swift build --package-path Examples/PhotoList --show-bin-path)/PhotoList" "http://127.0.0.1:$port" 2 10
log "ListClient against 127.0.0.1:$port"
timeout 300 "$(swift build --package-path Examples/ListClient --show-bin-path)/ListClient" "http://127.0.0.1:$port" |
    tee "$work/listclient.out"
# Both are well-behaved clients: the report card of what they did has no findings (`aborted` aside, for information).
dataset=$(sed -n 's/^dataset //p' "$work/listclient.out")
[[ -n $dataset ]] || die "ListClient did not say its dataset"
for query in "dataset=$dataset" ""; do
    curl -sf "http://127.0.0.1:$port/admin/report?$query" >"$work/report.json"
    python3 - "$work/report.json" <<'PYTHON'
import json, sys
card = json.load(open(sys.argv[1]))
kinds = [finding["kind"] for finding in card["findings"] if finding["kind"] != "aborted"]
if not card["entries"] or kinds:
    sys.exit(f"the report card of dataset {card['dataset']!r} ({card['entries']} requests): {card['findings']}")
print(f"report card of dataset {card['dataset']!r}: {card['entries']} requests, no findings")
PYTHON
done
log "examples-test: passed"
