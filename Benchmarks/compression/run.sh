#!/usr/bin/env bash
# Benchmarks/compression/run.sh: which compressor for ListServer's JSON (issue 35). Fetches bodies ListServer sends
# (a page of 20 items, the default; a page of 100, the most) from a release build on 127.0.0.1, then has
# compare.c compress each with zlib, libdeflate, zstd and brotli at the levels a server would use, for a fixed
# CPU time each: CPU µs a body and the ratio, as a markdown table on stdout.
#
#   Benchmarks/compression/run.sh [--listserver PATH] [--seconds S]   (default: the static build, 1 s each)
#
# Installs the four libraries' -dev packages and gcc with apt when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$root/scripts/lib/common.sh"

listserver=$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer
seconds=1
while (($#)); do
    case $1 in
        --listserver) listserver=$(realpath "$2"); shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) die "usage: $0 [--listserver PATH] [--seconds S]" ;;
    esac
done
[[ -x $listserver ]] || die "$listserver is not an executable (build it: scripts/bench.sh does, or pass --listserver)"
install_missing_packages zlib1g-dev libdeflate-dev libzstd-dev libbrotli-dev gcc curl
cd "$root"

out=$(mktemp -d)
trap 'stop_launched; rm -rf "$out"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$out/compare" Benchmarks/compression/compare.c -lz -ldeflate -lzstd -lbrotlienc
launch_server "$out/server.log" 0 "$listserver" --no-access-log
curl -fs -o "$out/page20.json" "http://127.0.0.1:$launched_port/items?page=7&limit=20"
curl -fs -o "$out/page100.json" "http://127.0.0.1:$launched_port/items?page=3&limit=100"
stop_launched # the server out of the way before anything is timed
cd "$out"
SECONDS_EACH=$seconds ./compare page20.json page100.json
