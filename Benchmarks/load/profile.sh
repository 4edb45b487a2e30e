#!/usr/bin/env bash
# Benchmarks/load/profile.sh: where a server spends its time (or memory) in one benchmark scenario.
#
#   Benchmarks/load/profile.sh [--server ListServer|baseline] [--scenario s1|s2|memory] [--seconds S] [--threads N]
#
# s1 (pages, 256 connections) and s2 (cached details, 64 connections): loads the server with wrk, then for S
# seconds (default 5) counts its CPU time, context switches and system calls with `perf stat`, and samples it
# with `perf record`; prints each per request and the CPU time per request split by where it is spent (kernel,
# libevent, malloc, Swift runtime, application code), then the hottest symbols. memory: the server's RSS idle
# and with 1,000 and 4,000 connections each holding one slow request (store latency 30 s), and the RSS per
# connection. Build first with scripts/bench.sh (or it builds the baseline only). Installs linux-perf if missing.
# Output and perf.data go to Benchmarks/results/profile-<server>-<scenario>-<UTC time>/.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh" # sets root

server=ListServer scenario=s1 seconds=5 threads=2
while (($#)); do
    case $1 in
    --server) server=${2:?} && shift ;;
    --scenario) scenario=${2:?} && shift ;;
    --seconds) seconds=${2:?} && shift ;;
    --threads) threads=${2:?} && shift ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" && exit 0 ;;
    *) echo "profile.sh: unknown option $1" >&2 && exit 64 ;;
    esac
    shift
done

out="$root/Benchmarks/results/profile-$server-$scenario-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
lua="$root/Benchmarks/load/load.lua"
baseline="$root/Benchmarks/baseline/evhttp-baseline"
listserver="$(cd "$root" && swift build -c release --show-bin-path)/ListServer"
# shellcheck disable=SC2034 # read by lib.sh
duration=$seconds quick=0 retries=0 command_line="Benchmarks/load/profile.sh"
# shellcheck source=SCRIPTDIR/lib.sh
source "$root/Benchmarks/load/lib.sh"

install_missing
command -v perf >/dev/null || install_missing_packages linux-perf
[[ -x $baseline ]] || build_baseline "$baseline" || die "cannot build the baseline"
[[ -x $listserver ]] || die "build ListServer first: swift build -c release --product ListServer"
raise_file_limit
trap stop_server EXIT

rss_mb() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

if [[ $scenario == memory ]]; then
    start_server "$server" "$threads" 10000 30000
    idle=$(rss_mb "$server_pid")
    echo "$server idle: RSS $idle MB"
    for connections in 1000 4000; do
        timeout 30 wrk -t2 -c"$connections" -d4s --timeout 60s -s "$lua" "http://127.0.0.1:$server_port" \
            -- slow 10000 $((connections / 2)) >/dev/null 2>&1 &
        load_pid=$!
        sleep 3
        rss=$(rss_mb "$server_pid")
        echo "$server with $connections slow requests pending: RSS $rss MB," \
            "$(calc "sprintf(\"%.1f\", ($rss - $idle) * 1024 / $connections)") kB per connection over idle"
        wait "$load_pid" || true
        sleep 1
    done
    exit 0
fi

case $scenario in
s1) connections=256 load=(pages 500) latency=1000 ;;
s2) connections=64 load=(details 1000) latency=20 ;;
*) die "unknown scenario $scenario (s1, s2 or memory)" ;;
esac
start_server "$server" "$threads" 10000 "$latency"
if [[ $scenario == s2 ]]; then warm_details 1000; fi
timeout $((2 * seconds + 30)) wrk -t2 -c"$connections" -d$((2 * seconds + 3))s -s "$lua" \
    "http://127.0.0.1:$server_port" -- "${load[@]}" >"$out/wrk.txt" 2>&1 &
wrk_pid=$!
sleep 1.5
perf stat -e task-clock,context-switches,raw_syscalls:sys_enter -p "$server_pid" -o "$out/stat.txt" \
    -- sleep "$seconds" >/dev/null 2>&1
perf record -F 999 -g -p "$server_pid" -o "$out/perf.data" -- sleep "$seconds" >/dev/null 2>&1
wait "$wrk_pid"
rps=$(sed -n 's/^Requests\/sec: *//p' "$out/wrk.txt")
requests=$(calc "$rps * $seconds")
echo "$server, scenario $scenario, $connections connections: $rps req/s under perf (wrk: $out/wrk.txt)"
awk -v n="$requests" '/task-clock|context-switches|sys_enter/ { gsub(",", "", $1)
    if ($2 == "msec") printf "  CPU time            %8.2f µs per request\n", $1 * 1000 / n
    else printf "  %-19s %8.3f per request\n", $2, $1 / n }' "$out/stat.txt"
cpu_us=$(awk -v n="$requests" '/task-clock/ { gsub(",", "", $1); printf "%.2f", $1 * 1000 / n }' "$out/stat.txt")

perf report -i "$out/perf.data" --no-children --sort dso,symbol --stdio -g none 2>/dev/null >"$out/report.txt"
echo "  where the CPU time goes (µs per request, share):"
awk -v us="$cpu_us" '
    match($0, /^ +[0-9.]+%/) {
        pct = substr($0, RSTART, RLENGTH) + 0; dso = $2; kind = $3; sym = $0; sub(/.*\] /, "", sym)
        if (kind == "[k]") c = "kernel: system calls, TCP on loopback, scheduling"
        else if (dso ~ /libevent/) c = "libevent: HTTP parsing, buffers, event bookkeeping"
        else if (dso ~ /^libc/ && sym ~ /malloc|free|calloc|realloc|consolidate|unlink_chunk|_int_|memalign/) c = "libc malloc/free"
        else if (dso ~ /^libc/) c = "libc other: evhttp printf/scanf, memcpy, str*"
        else if (dso ~ /swift_Concurrency/) c = "Swift concurrency runtime: tasks, executors, actors"
        else if (dso ~ /swiftCore/ && sym ~ /retain|release|RefCount|isUniquely|alloc/) c = "Swift retain/release/allocation"
        else if (dso ~ /swiftCore/) c = "Swift standard library: String, Array, ..."
        else if (dso == "ListServer" && sym ~ /ListDomain/) c = "ListDomain code (page generation, JSON writer)"
        else if (dso == "ListServer") c = "ListServer code (routing, headers, bridging) with inlined stdlib"
        else if (dso ~ /evhttp-baseline/) c = "baseline C code"
        else c = "other: " dso
        share[c] += pct; total += pct
    }
    END { for (c in share) printf "    %6.2f µs  %5.1f %%  %s\n", share[c] / total * us, 100 * share[c] / total, c }' \
    "$out/report.txt" | sort -k1 -nr
echo "  hottest symbols (self time):"
grep -E '^ +[0-9.]+%' "$out/report.txt" | head -25 | cut -c1-150 | sed 's/^/  /'
echo "perf data: $out/perf.data (perf report -i ... --children for call graphs)"
