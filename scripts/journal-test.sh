#!/usr/bin/env bash
# The request journal with real clients against a release ListServer on 127.0.0.1 (issue 34):
#   - the HAR export (`GET /admin/journal.har`), after requests of every kind the journal notes (pages, HEAD, a
#     304, details, an image with Range, an injected 503, a reset, a POST with Idempotency-Key, a PATCH with
#     If-Match, an abandoned detail, an event stream, an unknown path), validates against the HAR 1.2 JSON schema:
#     Debian's node-har-schema (the schema npm's har-validator checks with; only its JSON files are unpacked, no
#     Node.js installed), read by Python's jsonschema (scripts/har_check.py);
#   - the journal's memory stays bounded under scenario 1's load: the server's RSS after 1,000,000 page requests is
#     within 5 MB of its RSS after 100,000 (the default list's journal is full at 10,000).
# Bounded: about a minute once built. Usage: scripts/journal-test.sh   (JOURNAL_TEST_BINARY=path skips the build)
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/journal-test.XXXXXX)
cleanup() {
    local status=$?
    stop_launched
    if ((status != 0)); then
        echo "--- server log"; tail -5 "$work/server.log" 2>/dev/null || true
        echo "journal-test: FAILED" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

install_missing_packages "${build_packages[@]}" curl wrk python3 python3-pip
python3 -c 'import referencing, jsonschema' 2>/dev/null || python3 -m pip install --quiet 'jsonschema>=4.18'
# The schema's JSON files, unpacked from the package (which would pull in Node.js if installed).
(cd "$work" && { apt-get download node-har-schema >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get download node-har-schema >/dev/null; }; } &&
    dpkg-deb -x node-har-schema_*.deb har-schema)
schema_dir="$work/har-schema/usr/share/nodejs/har-schema/lib"
[[ -f $schema_dir/har.json ]] || die "node-har-schema has no lib/har.json"

if [[ -n ${JOURNAL_TEST_BINARY:-} ]]; then
    binary=$JOURNAL_TEST_BINARY
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi

# --- The HAR export
launch_server "$work/server.log" 0 "$binary" --threads 2 --data-path :memory: --latency-min-ms 200 \
    --latency-max-ms 200 --image-latency-min-ms 10 --image-latency-max-ms 10 --no-access-log
base="http://127.0.0.1:$launched_port"
ask() { curl -s -o /dev/null -w '%{http_code}' -H 'X-Dataset: har' -H 'X-Client-Id: har-test' "$@"; }
[[ $(ask "$base/items?page=1&limit=5") == 200 ]] || die "a page did not answer 200"
etag=$(curl -s -D - -o /dev/null -H 'X-Dataset: har' "$base/items?page=1&limit=5" | tr -d '\r' |
    sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
[[ $(ask -H "If-None-Match: $etag" "$base/items?page=1&limit=5") == 304 ]] || die "no 304"
[[ $(ask -I "$base/items?page=2&limit=5") == 200 ]] || die "HEAD did not answer 200"
[[ $(ask "$base/items/3/detail") == 200 ]] || die "a detail did not answer 200"
[[ $(ask -H 'Range: bytes=0-99' "$base/items/3/image") =~ ^20[06]$ ]] || die "an image did not answer"
[[ $(ask "$base/items/4/detail?fail=503") == 503 ]] || die "no injected 503"
ask "$base/items/4/detail?fail=reset" >/dev/null || true # the connection is reset: curl fails, as intended
[[ $(ask -X POST -H 'Content-Type: application/json' -H 'Idempotency-Key: har-1' -d '{"label":"hi"}' \
    "$base/items") == 201 ]] || die "the POST did not answer 201"
item_tag=$(curl -s -D - -o /dev/null -H 'X-Dataset: har' "$base/items/1" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
[[ $(ask -X PATCH -H 'Content-Type: application/json' -H "If-Match: $item_tag" -d '{"likes":2}' \
    "$base/items/1") == 200 ]] || die "the PATCH did not answer 200"
ask --max-time 0.05 "$base/items/5/detail" >/dev/null || true # abandoned after 50 ms
ask --max-time 0.5 -H 'Last-Event-ID: 0' "$base/items/events" >/dev/null || true
[[ $(ask "$base/d/har/nowhere") == 404 ]] || die "an unknown path did not answer 404"
sleep 0.5 # the abandoned detail is answered (200 ms), and recorded
curl -sf "$base/admin/journal?dataset=har&limit=10000" >"$work/journal.json"
curl -sf "$base/admin/journal.har?dataset=har" >"$work/journal.har"
python3 scripts/har_check.py --schema "$schema_dir" --har "$work/journal.har" --journal "$work/journal.json"
stop_launched

# --- Memory under scenario 1's load
launch_server "$work/server.log" 0 "$binary" --threads 2 --seed 42 --item-count 10000 --no-access-log \
    --data-path :memory:
pid=$launched_pid
base="http://127.0.0.1:$launched_port"
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
done_requests=0
rss_at_100k=""
deadline=$((SECONDS + 240))
while ((done_requests < 1000000)); do
    ((SECONDS < deadline)) || die "1,000,000 requests took more than 240 s ($done_requests done)"
    wrk -t1 -c32 -d3s -s Benchmarks/load/load.lua "$base/" -- pages 500 >"$work/wrk.out"
    grep -q 'Non-2xx' "$work/wrk.out" && die "wrk saw errors: $(cat "$work/wrk.out")"
    done_requests=$((done_requests + $(awk '/requests in/ { print $1 }' "$work/wrk.out")))
    if [[ -z $rss_at_100k ]] && ((done_requests >= 100000)); then
        rss_at_100k=$(rss_kb)
        log "RSS after $done_requests requests: $rss_at_100k kB"
    fi
done
rss_at_1m=$(rss_kb)
entries=$(curl -s "$base/metrics" | awk '/^listserver_journal_entries / { print $2 }')
log "RSS after $done_requests requests: $rss_at_1m kB; the journal holds $entries entries"
[[ ${entries%.*} == 10000 ]] || die "the default list's journal holds $entries entries, not its capacity 10000"
((rss_at_1m - rss_at_100k <= 5120)) || die "RSS grew by $((rss_at_1m - rss_at_100k)) kB from 100k to 1M requests"
log "journal-test: passed"
