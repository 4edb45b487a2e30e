#!/usr/bin/env bash
# Benchmarks/load/footprint.sh: how much memory each server holds idle, and after serving, for issue 16.
#
#   Benchmarks/load/footprint.sh [--listserver PATH]... [--requests N]
#
# For each ListServer binary (by default the static build bench.sh makes, and the plain `swift build -c release`
# of scripts/run.sh when it exists; --listserver, repeatable, names others) and the C evhttp baseline: starts it
# as scenario 1 does (2 loops, 10,000 items, seed 42; ListServer with --data-path :memory: and no access log), and
# prints RSS (all, anonymous, file-backed, from /proc/PID/status) 2 s after it said it listens ("idle"), again 1 s
# after N (default 2,000) sequential page requests on one keep-alive connection ("after pages"), and for ListServer
# once more after one request of every other kind (a cached detail, a 600x400 JPEG, a POST, the change feed as
# JSON) ("after every route"). Also the binary's size, whole and stripped. Installs gcc, libevent-dev, curl and
# python3 with apt when missing. Under a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/common.sh"
binaries=()
requests=2000
while (($#)); do
    case $1 in
        --listserver) binaries+=("$2"); shift 2 ;;
        --requests) requests=$2; shift 2 ;;
        *) die "usage: $0 [--listserver PATH]... [--requests N]" ;;
    esac
done
if ((${#binaries[@]} == 0)); then
    for candidate in "$root/.build/static/release/ListServer" "$root/.build/release/ListServer"; do
        [[ -x $candidate ]] && binaries+=("$candidate")
    done
fi
((${#binaries[@]} > 0)) || die "no ListServer binary: build it as bench.sh does, or pass --listserver"
install_missing_packages gcc libevent-dev curl python3

work=$(mktemp -d /tmp/footprint.XXXXXX)
trap 'stop_launched; rm -rf "$work"' EXIT
build_baseline "$work/evhttp-baseline"
keepalive="$root/Benchmarks/load/keepalive.py"

# rss PID: "all / anonymous / file-backed" in MB.
rss() { awk '/^VmRSS/ { a = $2 } /^RssAnon/ { b = $2 } /^RssFile/ { c = $2 }
    END { printf "%.1f / %.1f / %.1f", a / 1024, b / 1024, c / 1024 }' "/proc/$1/status"; }
size() { awk -v b="$(stat -c %s "$1")" 'BEGIN { if (b < 1048576) printf "%.0f kB", b / 1024; else printf "%.1f MB", b / 1048576 }'; }

# measure NAME BINARY ARGS...: one table row.
measure() {
    local name=$1 binary=$2 idle pages every="" stripped
    shift 2
    launch_server "$work/server.log" 0 "$binary" --threads 2 --seed 42 --item-count 10000 "$@"
    local pid=$launched_pid port=$launched_port
    sleep 2
    idle=$(rss "$pid")
    python3 "$keepalive" pages "$port" "$requests" >/dev/null || die "$name: the page requests failed"
    sleep 1
    pages=$(rss "$pid")
    if [[ $name != baseline ]]; then
        local base="http://127.0.0.1:$port"
        curl -fs -o /dev/null "$base/items/7/detail" || die "$name: GET /items/7/detail failed"
        curl -fs -o /dev/null "$base/items/7/image?w=600&h=400" || die "$name: GET /items/7/image failed"
        curl -fs -o /dev/null -H 'Content-Type: application/json' -d '{"label":"footprint"}' "$base/items" ||
            die "$name: POST /items failed"
        curl -fs -o /dev/null "$base/items/changes?since=0" || die "$name: GET /items/changes failed"
        sleep 1
        every=$(rss "$pid")
    fi
    stop_process "$pid" 15 >/dev/null || true
    strip -o "$work/stripped" "$binary"
    stripped=$(size "$work/stripped")
    echo "| $name | $(size "$binary") ($stripped stripped) | $idle | $pages | ${every:-(pages only)} |"
}

echo "Idle and serving RSS, MB as all / anonymous / file-backed (\`Benchmarks/load/footprint.sh\`, $(git -C "$root" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC')):"
echo
echo "| server | binary | idle, 2 s after start | after $requests pages | after every route |"
echo "|---|---|---|---|---|"
for binary in "${binaries[@]}"; do
    case $binary in
        "$root/.build/static/release/ListServer") label="ListServer, static (bench.sh, the image)" ;;
        "$root/.build/release/ListServer") label="ListServer, plain (scripts/run.sh)" ;;
        *) label="ListServer \`$binary\`" ;;
    esac
    measure "$label" "$binary" --latency-min-ms 0 --latency-max-ms 0 --image-latency-min-ms 0 \
        --image-latency-max-ms 0 --no-access-log --data-path :memory:
done
measure baseline "$work/evhttp-baseline" --latency-ms 0
