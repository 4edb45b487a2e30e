#!/usr/bin/env bash
# scripts/bench.sh: ListServer against a plain C evhttp server, scenario by scenario, on 127.0.0.1 only.
#
#   scripts/bench.sh [--quick] [--threads N] [--rounds N] [--duration S] [--slices N]
#                    [--only "verify aa s1 s2 hit s3 s4 micro"] [--retries N] [--write-doc] [--skip-build] [--plain]
#                    [--listserver PATH]
#   scripts/bench.sh --report Benchmarks/results/<time> [--write-doc]   (the table of an earlier run, no load)
#
# Installs what ListServer builds against, wrk, curl, gcc and linux-perf with apt when missing; builds ListServer
# (release, the Swift runtime linked statically as in the Docker image) from this repository and
# Benchmarks/baseline/evhttp-baseline.c with cc -O2;
# checks that both servers send the same bytes for a sample of URLs (and stops if they do not); then runs every
# scenario --rounds times (default 5), each round on freshly started servers with the same number of threads,
# and prints markdown tables: every run, every round's pair side by side (ListServer ÷ baseline), and the targets
# with their median and worst round: a target is met when its worst round meets it (issue 32). Everything lands in
# Benchmarks/results/<UTC time>/ (gitignored): wrk's output, server logs, results.tsv, micro.md and table.md;
# --write-doc also puts doc.md (the same without every run's row) into BENCHMARKS.md between its "results" markers.
#
# --listserver PATH measures that binary instead (an older build, for a before-and-after in one sitting).
# --plain measures the build a user gets from scripts/run.sh (`swift build -c release`, the Swift runtime and
# FoundationEssentials as shared libraries) instead of the Docker image's (the runtime linked in statically).
#
# In the scenarios with a ratio target (aa, s1, s2, hit) the two servers of a round run side by side and take turns
# in --slices slices (default: one a second of --duration, an even number), A B B A A B ..., their slices summed:
# the slow swings of a shared machine then weigh on both (see measure_pair in Benchmarks/load/lib.sh for the
# measurements that led to it); --slices 1 is one run each, ListServer first. s3 and s4 run one server at a time.
#
# Scenarios (wrk -t2, request lists drawn from fixed seeds, see Benchmarks/load/load.lua):
#   aa   the noise floor: the C baseline against a second copy of itself, as s1 on one loop at 256 connections
#   s1   GET /items?page=<1..500>&limit=20 at 64 and 256 connections, on one loop and on --threads loops (default 2)
#   s2   cached details, GET /items/<0..999>/detail at 64 connections, after fetching ids 0...999 once
#   hit  a cached image hit, GET /items/42/image?w=600&h=400 at 64 connections; the baseline serves the very bytes
#        ListServer sent (--image-file), as a C server answering from a cache would
#   s3   every detail slow: Cache-Control: no-cache, store latency fixed at 1000 ms, 1,000 and 5,000 connections
#   s4   2^53 items: page 1 against the last full page and the deepest page (limit 20), same server
#   micro  swift run -c release ListBenchmarks (ns/op of the hot paths; once, not per round)
#
# Per run: req/s, p50/p99 latency, errors (socket errors and non-2xx answers), the server's hardware counters per
# request (perf stat -p while wrk runs: user instructions, user and kernel cycles, user branch misses, L1d misses,
# context switches; left out when perf is missing), server CPU µs per request
# (utime + stime from /proc/PID/stat around the measured run, divided by the requests wrk completed), peak RSS
# (VmHWM of the fresh server at the end of the run), and the CPU used by everything else on the machine during
# the run ("other", % of one core). Each run starts once the machine is quiet (at most 90 s of waiting); above
# 25 % "other" it is repeated (--retries, default 1) and the least disturbed attempt kept. For s3 also the
# Little's-law efficiency (see load.lua).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" # sets root

threads=2
rounds=5
duration=10
quick=0
only="verify aa s1 s2 hit s3 s4 micro"
slices=0
retries=1
write_doc=0
skip_build=0
plain=0
listserver_path=""
report=""
command_line="scripts/bench.sh${*:+ $*}"

while (($#)); do
    case $1 in
    --quick) quick=1 duration=3 rounds=1 ;;
    --threads) threads=${2:?--threads needs a number} && shift ;;
    --rounds) rounds=${2:?--rounds needs a number} && shift ;;
    --duration) duration=${2:?--duration needs seconds} && shift ;;
    --slices) slices=${2:?--slices needs a number} && shift ;;
    --only) only=${2:?--only needs a list} && shift ;;
    --retries) retries=${2:?--retries needs a number} && shift ;;
    --write-doc) write_doc=1 ;;
    --skip-build) skip_build=1 ;;
    --plain) plain=1 ;;
    --listserver) listserver_path=${2:?--listserver needs a path} && shift ;;
    --report) report=${2:?--report needs a results directory} && shift ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" && exit 0 ;;
    *) echo "bench.sh: unknown option $1 (see --help)" >&2 && exit 64 ;;
    esac
    shift
done

out="$root/Benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)"
lua="$root/Benchmarks/load/load.lua"
baseline="$root/Benchmarks/baseline/evhttp-baseline"
if [[ -n $report ]]; then
    out=$(cd "$report" && pwd) || exit 64
    [[ -s $out/results.tsv ]] || { echo "bench.sh: no results.tsv in $report" >&2 && exit 64; }
fi
mkdir -p "$out"
# shellcheck source=SCRIPTDIR/../Benchmarks/load/lib.sh
source "$root/Benchmarks/load/lib.sh"
slices=$(even_slices "$duration" "$slices")
pairing_note="; in aa, s1, s2 and hit the two servers take turns, $slices slices each"
((slices > 1)) || pairing_note="; in aa, s1, s2 and hit one run each, ListServer first"

if [[ -n $report ]]; then
    threads=$(awk -F'\t' 'NR == 2 { print $4 }' "$out/results.tsv")
    load_results
    write_table >"$out/table.md"
    write_table doc >"$out/doc.md"
    cat "$out/table.md"
    if ((write_doc)); then update_doc "$out/doc.md"; fi
    exit 0
fi

log "results in ${out#"$root"/}"
install_missing
# The server is measured as it ships in the Docker image: the Swift runtime and Foundation linked statically
# (about 5 MB less resident than the shared libraries, BENCHMARKS.md), in a build directory of its own so that it
# does not relink the usual release build back and forth.
listserver_build=(-c release --static-swift-stdlib --scratch-path "$root/.build/static")
((plain == 0)) || listserver_build=(-c release)
# The baseline is rebuilt even with --skip-build (one C file, a second): a binary left from an older source measured
# the baseline without the flags its source has since set, once (issue 32).
if ((skip_build == 0)); then build_all; else build_baseline "$baseline" || die "cannot build the baseline"; fi
listserver="$(cd "$root" && swift build "${listserver_build[@]}" --show-bin-path)/ListServer"
[[ -z $listserver_path ]] || listserver=$(realpath "$listserver_path")
[[ -x $listserver && -x $baseline ]] || die "ListServer or the baseline is not built (drop --skip-build)"
raise_file_limit
check_perf
trap stop_server EXIT

machine_info >"$out/machine.md"
cat "$out/machine.md" >&2
printf 'key\tscenario\tserver\tthreads\tconnections\tseconds\trequests\treq_per_s\tp50_ms\tp99_ms\tsocket_errors\tnon_2xx\tcpu_us_per_req\tpeak_rss_mb\tefficiency\tother_cpu_pct\twrk_cpu_pct\tcounters_per_req\n' >"$out/results.tsv"

servers=(ListServer baseline)
s1_threads=1
((threads == 1)) || s1_threads="1 $threads"
for step in $only; do
    case $step in
    verify)
        verify_same_bytes 10000 "/items" "/items?page=2" "/items?limit=7" "/items?page=1&limit=20" \
            "/items?page=3&limit=20&_=1700000000" "/items?page=250&limit=20" "/items?page=500&limit=20" \
            "/items?page=501&limit=20" "/items?page=1&limit=100" "/items?page=100&limit=100" \
            "/items?page=4999&limit=2" "/items?page=9007199254740992&limit=1" "/items/0" "/items/42" "/items/9999" \
            "/items/0/detail" "/items/7/detail" "/items/999/detail" "/items/9999/detail"
        verify_same_bytes 9007199254740992 "/items?page=1&limit=20" "/items?page=450359962737049&limit=20" \
            "/items?page=450359962737050&limit=20" "/items?page=450359962737051&limit=20" \
            "/items?page=9007199254740992&limit=1" "/items/9007199254740991" "/items/9007199254740991/detail"
        continue
        ;;
    micro) run_micro && continue ;;
    s1t) die "s1t is part of s1 now (one loop and --threads loops, 64 and 256 connections)" ;;
    aa | s1 | s2 | hit | s3 | s4) ;;
    *) die "unknown step $step" ;;
    esac
    # The rounds, each on fresh servers.
    for ((round = 1; round <= rounds; round++)); do
        case $step in
        aa)
            start_server baseline 1 10000 1000
            pair_reference="$server_pid $server_port $server_name"
            warm_up pages 500
            start_server baseline2 1 10000 1000
            pair_subject="$server_pid $server_port $server_name"
            warm_up pages 500
            measure_pair "aa-c256-t1-r$round" "C against C" 256 "$duration" 2 pages 500
            stop_server
            ;;
        s1)
            for loops in $s1_threads; do
                for connections in 64 256; do
                    start_server baseline "$loops" 10000 1000
                    pair_reference="$server_pid $server_port $server_name"
                    warm_up pages 500
                    start_server ListServer "$loops" 10000 1000
                    pair_subject="$server_pid $server_port $server_name"
                    warm_up pages 500
                    measure_pair "s1-c$connections-t$loops-r$round" "1 pages" "$connections" "$duration" 2 pages 500
                    stop_server
                done
            done
            ;;
        s2)
            start_server baseline "$threads" 10000 20
            pair_reference="$server_pid $server_port $server_name"
            warm_details 1000
            warm_up details 1000
            start_server ListServer "$threads" 10000 20
            pair_subject="$server_pid $server_port $server_name"
            warm_details 1000
            warm_up details 1000
            measure_pair "s2-c64-t$threads-r$round" "2 cached details" 64 "$duration" 2 details 1000
            stop_server
            ;;
        hit)
            [[ -s $out/hit.jpg ]] || fetch_hit_image "$out/hit.jpg"
            start_server baseline "$threads" 10000 20 --image-file "$out/hit.jpg"
            pair_reference="$server_pid $server_port $server_name"
            warm_up path "$hit_path"
            start_server ListServer "$threads" 10000 20 --image-latency-distribution none
            pair_subject="$server_pid $server_port $server_name"
            curl -fs -o /dev/null "http://127.0.0.1:$server_port$hit_path" || die "ListServer: no image"
            warm_up path "$hit_path"
            measure_pair "hit-c64-t$threads-r$round" "image hit" 64 "$duration" 2 path "$hit_path"
            stop_server
            ;;
        s3)
            # At least 6 s even with --quick: the efficiency needs a few whole 1 s cycles after the first.
            slow_duration=$((duration > 6 ? duration : 6))
            for connections in 1000 5000; do
                for server in "${servers[@]}"; do
                    start_server "$server" "$threads" 10000 1000
                    measure "s3-c$connections-t$threads-r$round-$server" "3 slow details" "$connections" \
                        "$slow_duration" 10 slow 10000 $((connections / 2))
                    stop_server
                    sleep 1 # let the kernel finish closing 5,000 sockets before the next server starts
                done
            done
            ;;
        s4)
            for server in "${servers[@]}"; do
                start_server "$server" "$threads" 9007199254740992 1000
                warm_up path "/items?page=1&limit=20"
                for page in 1 450359962737049 450359962737050; do
                    measure "s4-p$page-t$threads-r$round-$server" "4 page $page of 2^53" 64 "$duration" 2 \
                        path "/items?page=$page&limit=20"
                done
                stop_server
            done
            ;;
        esac
    done
done

write_table >"$out/table.md"
write_table doc >"$out/doc.md"
cat "$out/table.md"
if ((write_doc)); then update_doc "$out/doc.md"; fi
log "done: ${out#"$root"/}/table.md"
