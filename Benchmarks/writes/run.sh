#!/usr/bin/env bash
# Benchmarks/writes/run.sh: the benchmarks of issue 12 (writes, the change feed, deep pages with deletions, and
# what the write path cost the read path), on 127.0.0.1 only, with C programs doing the same work side by side.
#
#   Benchmarks/writes/run.sh [--only "writes growth fanout wsfanout deep s1"] [--duration S] [--rounds N]
#                            [--write-rounds N]
#                            [--slices N]   (the writes step's: slices a round's servers take turns in)
#                            [--points "full/1 full/16 full/64 normal/1 normal/16 normal/64"]   (the writes step's)
#                            [--old-binary PATH]
#                            [--subscribers N] [--posts N] [--deletions N] [--skip-build]   (skips the Swift build only)
#                            [--listserver PATH]   (this ListServer binary, e.g. main's from a git worktree that has
#                                                   no .build of its own; implies --skip-build, asks swift nothing)
#   Benchmarks/writes/run.sh --report Benchmarks/results/<time>-writes     (the tables of an earlier run, no load)
#
# Installs what ListServer builds against, wrk, curl, gcc and python3 (the report) with apt when missing; builds
# ListServer as bench.sh does (release, Swift runtime linked statically, in .build/static),
# Benchmarks/sqlite/inserts.c (cc -O2 -lsqlite3), Benchmarks/sqlite/writes-server.c (cc -O2 -levent -lsqlite3),
# Benchmarks/writes/fanout.c (cc -O2) and the C evhttp baseline. Every server is fresh, on a port the kernel
# picks, with --threads 2 (and ListServer with no access log); every write run gets a fresh folder under
# Benchmarks/results/<time>/data (the disk of the work tree: the script says which filesystem, and refuses tmpfs).
# Results, wrk's output, server logs and writes.md (the table, also printed) land in Benchmarks/results/<UTC
# time>/ (gitignored).
#
# Steps:
#   writes  POST /items at 1, 16 and 64 connections (wrk, one connection per client), --data-synchronous full and
#           normal, --duration s each (default 8). After each run the server's /metrics give the average group
#           commit (listserver_store_commit_writes_total / listserver_store_commit_duration_seconds_count); then
#           inserts.c does the same inserts for the same time with G = that average (rounded, at least 1), and
#           with G = clients (the upper bound), on a file in the same folder. inserts.c does no HTTP, so at 16 and
#           64 clients it measures SQLite's CPU and at 1 client with normal more commits than a round trip allows;
#           the comparison doing the same work is writes-server.c, a C evhttp server (2 loops, one SQLite writer
#           thread grouping whatever is queued when it wakes, inserts.c's statements, each 201 answered by its own
#           loop after the commit): the same wrk command against it on a fresh file in the same folder, its
#           writes/s, p50/p99, CPU µs/write (utime + stime over the run ÷ 201s, as for ListServer) and its average
#           group (commit_writes_total ÷ commits_total of its GET /metrics). Checked after every run of either
#           server: X-Total-Count of GET /items?limit=1 against 10,000 + the 201s wrk saw (+ what was still on the
#           wire when wrk stopped) and against the server's own count of created answers; non-2xx must be 0.
#           The two HTTP servers run --write-rounds rounds (default 3) at each point, each round on fresh files,
#           side by side taking turns in --slices slices (default one a second of --duration, an even number;
#           A B B A ...), ListServer first in odd rounds and the C server first in even ones: on this shared VM
#           throughput moves by 10-30 % from one minute to the next, so the slow swings must weigh on both servers
#           of a round alike (bench.sh's measure_pair says more). The report gives every round, the median and the
#           worst (inserts.c runs once per point, after the first round).
#   growth  one server, five 4 s runs of POSTs at 16 connections back to back (normal): the server's CPU per
#           write against the number of items already written.
#   fanout  --subscribers (5000) idle SSE subscribers of /items/events held by fanout.c (one C process, one
#           thread, epoll: the client must not compete with the server for the two cores, as fanout.py did at ~70 %
#           of a core), the server's VmRSS before and after; then --posts (100) POSTs one at a time, and the delay
#           from each 201 to the event at the median and at the last subscriber, with the client's own CPU time.
#           fanout.c fails the step when a subscriber misses an event, sees one twice or is dropped. Then the same
#           fanout.c command against writes-server.c (the C HTTP server of the writes step, which also serves
#           GET /items/events: evhttp chunked replies, the same bytes; synchronous full, ListServer's default, on a
#           file in the same folder), once handing a commit's events to its loops before the 201s (ListServer's
#           order) and once after (--answer-first); the report sets the three side by side.
#   wsfanout the fanout step's ListServer run over WebSockets: a fresh ListServer as for fanout, the same fanout.c
#           command with --websocket (GET /items/events with Upgrade: websocket, answered 101, then one text message
#           per change; fanout.c answers the server's pings), the same checks, --subscribers and --posts. No C server
#           side by side: writes-server.c (evhttp 2.1) has no WebSocket. The report adds its row to the fan-out table.
#   deep    a 2^53-item list (--data-synchronous normal): page 1 and the deepest full page (wrk -c64, 5 s each),
#           then --deletions (100,000) DELETEs of random ids over the whole range (wrk, until that many 204s), then
#           page 1, the new deepest full page, page 1 in descending order and a cursor page in the middle.
#   s1      scenario 1 of scripts/bench.sh (GET /items?page=<1..500>&limit=20, wrk -t2 -c64, 10 s after 1 s of
#           warm-up) against --old-binary (a build of the commit before issue 12), this ListServer with
#           --data-path :memory: and with a file, and the C baseline, interleaved for --rounds rounds (default 3).
#           Without --old-binary the old server is left out.
#
# Before each measured run the script waits (up to 10 minutes) until no build, test or other benchmark runs on the
# machine, then for a quiet second (bench.sh's wait_for_quiet), and records the load average it started at.
set -euo pipefail

only="writes growth fanout wsfanout deep s1"
duration=8
rounds=3
write_rounds=3
slices=0
points="full/1 full/16 full/64 normal/1 normal/16 normal/64"
old_binary=""
subscribers=5000
posts=100
deletions=100000
skip_build=0
listserver_binary=""
report_dir=""
command_line="Benchmarks/writes/run.sh${*:+ $*}"

while (($#)); do
    case $1 in
    --only) only=${2:?--only needs a list} && shift ;;
    --duration) duration=${2:?--duration needs seconds} && shift ;;
    --rounds) rounds=${2:?--rounds needs a number} && shift ;;
    --write-rounds) write_rounds=${2:?--write-rounds needs a number} && shift ;;
    --slices) slices=${2:?--slices needs a number} && shift ;;
    --points) points=${2:?--points needs a list such as "normal/1 full/16"} && shift ;;
    --old-binary) old_binary=${2:?--old-binary needs a path} && shift ;;
    --subscribers) subscribers=${2:?--subscribers needs a number} && shift ;;
    --posts) posts=${2:?--posts needs a number} && shift ;;
    --deletions) deletions=${2:?--deletions needs a number} && shift ;;
    --skip-build) skip_build=1 ;;
    --listserver) listserver_binary=${2:?--listserver needs a path} && skip_build=1 && shift ;;
    --report) report_dir=${2:?--report needs a results directory} && shift ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" && exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2 && exit 64 ;;
    esac
    shift
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${report_dir:-"$here/../results/$(date -u +%Y%m%dT%H%M%SZ)-writes"}
mkdir -p "$out"
out=$(cd "$out" && pwd)
lua="$here/../load/load.lua"
writes_lua="$here/writes.lua"
threads=2 quick=0 retries=0
# shellcheck source=SCRIPTDIR/../load/lib.sh
source "$here/../load/lib.sh" # common.sh (root, log, die, launch_server, cpu_ticks, ...), calc, run_once, ...
slices=$(even_slices "$duration" "$slices")
pairing_note="; the write step's two HTTP servers take turns, $slices slices each"
((slices > 1)) || pairing_note="; the write step's two HTTP servers run once each"
baseline="$root/Benchmarks/baseline/evhttp-baseline"
inserts="$out/inserts"
writes_server="$out/writes-server"
fanout="$out/fanout"
data="$out/data"
mkdir -p "$data"
report="$out/writes.md"
two53=9007199254740992

prepare() {
    log "results in ${out#"$root"/}"
    install_missing_packages "${build_packages[@]}" wrk curl gcc python3

    # Builds: ListServer as bench.sh builds it, the baseline, inserts.c, writes-server.c.

    listserver_build=(-c release --static-swift-stdlib --scratch-path "$root/.build/static")
    if ((skip_build == 0)); then
        log "building ListServer (release, static Swift runtime, as bench.sh)"
        (cd "$root" && flock /tmp/swift-build.lock swift build "${listserver_build[@]}" --product ListServer) \
            >"$out/build.txt" 2>&1 || die "swift build failed: see $out/build.txt"
    fi
    build_baseline "$baseline" || die "cannot build the baseline"
    if [[ -n $listserver_binary ]]; then
        listserver=$listserver_binary
    else
        listserver="$(cd "$root" && swift build "${listserver_build[@]}" --show-bin-path)/ListServer"
    fi
    [[ -x $listserver && -x $baseline ]] || die "ListServer or the baseline is not built (drop --skip-build)"
    cc -O2 -Wall -Wextra -o "$inserts" "$root/Benchmarks/sqlite/inserts.c" -lsqlite3 -lpthread ||
        die "cannot build inserts.c"
    cc -O2 -Wall -Wextra -o "$writes_server" "$root/Benchmarks/sqlite/writes-server.c" -levent -lsqlite3 -lpthread ||
        die "cannot build writes-server.c"
    cc -O2 -Wall -Wextra -o "$fanout" "$here/fanout.c" || die "cannot build fanout.c"
    if [[ -n $old_binary ]]; then [[ -x $old_binary ]] || die "--old-binary $old_binary is not an executable"; fi
    raise_file_limit
    trap 'stop_server; stop_launched' EXIT

    # The data folder must be on a real disk, the same one for the servers' files and inserts.c's.
    disk_type=$(df --output=fstype "$data" | tail -1 | tr -d ' ')
    disk_source=$(df --output=source "$data" | tail -1 | tr -d ' ')
    [[ $disk_type != tmpfs && $disk_type != ramfs ]] || die "$data is on $disk_type: put the work tree on a disk"
    rotational="?"
    device=$(basename "$disk_source")
    if [[ -r /sys/block/$device/queue/rotational ]]; then rotational=$(<"/sys/block/$device/queue/rotational"); fi

    {
        machine_info
        echo "- data folder: \`${data#"$root"/}\` on $disk_source ($disk_type; the kernel calls the block device rotational=$rotational), for the servers' files and inserts.c's alike"
        echo "- SQLite: $(pkg-config --modversion sqlite3 2>/dev/null || echo '?') (the system library ListServer, inserts.c and writes-server.c link)"
    } >"$out/machine.md"
    cat "$out/machine.md" >&2
}

# ---------------------------------------------------------------- helpers

# Waits until no build, test or other benchmark of anyone runs (up to 10 minutes), then for a quiet second.
wait_for_machine() {
    local i others
    for ((i = 0; i < 600; i++)); do
        others=$(pgrep -f 'swift-build|swift-test|xctest|crash_test|schemathesis|wrk' || true)
        [[ -z $others ]] && break
        if ((i % 60 == 0)); then log "  waiting for other builds, tests or benchmarks to finish ($(wc -w <<<"$others") processes)"; fi
        sleep 1
    done
    wait_for_quiet
    load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
}

# start_listserver NAME BINARY FLAG...: a fresh server on 127.0.0.1 with 2 loops and no access log.
start_listserver() {
    local name=$1 binary=$2
    shift 2
    server_starts=$((server_starts + 1))
    # The runs write millions of items into one list: more than a shared server lets one dataset hold.
    launch_server "$out/server-$server_starts-$name.log" 0 "$binary" --threads 2 --no-access-log \
        --max-dataset-bytes 17179869184 --max-memory-bytes 17179869184 "$@"
    server_pid=$launched_pid server_port=$launched_port server_name=$name
}

metric() { # metric NAME_WITH_LABELS: the value of one series in /metrics (0 when absent)
    awk -v name="$1" '$1 == name { v = $2 } END { printf "%s", v == "" ? 0 : v }' "$out/metrics.txt"
}

fetch_metrics() { curl -s --max-time 10 "http://127.0.0.1:$server_port/metrics" >"$out/metrics.txt" || die "no /metrics"; }

total_count() { # the X-Total-Count of GET /items?limit=1
    curl -s --max-time 10 -D - -o /dev/null "http://127.0.0.1:$server_port/items?limit=1" |
        sed -n 's/^[Xx]-[Tt]otal-[Cc]ount: *\([0-9]*\).*/\1/p'
}

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# ---------------------------------------------------------------- writes

step_writes() {
    printf 'sync\tclients\tseconds\twrites_per_s\tp50_ms\tp99_ms\tnon_2xx\tsocket_errors\tgroup\tcommits\tcommit_ms\tcpu_us_per_write\tc_g\tc_inserts_per_s\tc_upper_per_s\tratio\tload\ts201\tunanswered\ttotal\tcreated\tcheck\tc_cpu_us\tc_upper_cpu_us\thttp_writes_per_s\thttp_p50_ms\thttp_p99_ms\thttp_non_2xx\thttp_group\thttp_cpu_us_per_write\thttp_ratio\thttp_load\thttp_s201\thttp_unanswered\thttp_total\thttp_created\thttp_check\tround\tsteal\n' \
        >"$out/writes.tsv"
    local sync clients round c_rate c_upper c_cpu c_upper_cpu
    for sync in full normal; do
        for clients in 1 16 64; do
            [[ " $points " == *" $sync/$clients "* ]] || continue
            for ((round = 1; round <= write_rounds; round++)); do
                writes_run "$sync" "$clients" "$round"
            done
        done
    done
}

# post_load NAME CLIENTS [SECONDS]: wrk's POSTs (one connection per client) against the current server for SECONDS
# (default $duration), then half a second for the answers to what was still on the wire. Sets, in the caller's
# locals (bash's dynamic scope): bench (wrk's BENCH line), rps, p50, p99 (ms), non2xx, socket, s201, unanswered
# (sent but not answered when wrk stopped), cpu (the server's utime + stime over the run ÷ 201s, in µs), steal (the
# time the hypervisor gave the VM's CPUs to others during the run, in % of both: a disturbed run shows here), and
# ticks, duration_us and steal_ticks (the raw figures, for a sum over slices).
post_load() {
    local name=$1 clients=$2 seconds=${3:-$duration} wrk_threads=2 file="$out/$1.wrk.txt" ticks0 ticks1 requests sent
    local steal0
    ((clients < 2)) && wrk_threads=1
    steal0=$(awk '/^cpu / { print $9 }' /proc/stat)
    ticks0=$(cpu_ticks "$server_pid")
    WRK_THREADS=$wrk_threads timeout --kill-after=5 $((seconds + 30)) wrk -t"$wrk_threads" -c"$clients" \
        -d"${seconds}s" --timeout 10s -s "$writes_lua" "http://127.0.0.1:$server_port" -- post >"$file" 2>&1 ||
        die "wrk failed: $(tail -3 "$file")"
    ticks1=$(cpu_ticks "$server_pid")
    steal_ticks=$(($(awk '/^cpu / { print $9 }' /proc/stat) - steal0))
    steal=$(calc "sprintf(\"%.1f\", $steal_ticks / ($seconds * $(nproc)))")
    ticks=$((ticks1 - ticks0))
    sleep 0.5 # the answers to what was still on the wire when wrk stopped
    bench=$(grep '^BENCH ' "$file") || die "no BENCH line in $file"
    requests=$(bench_field "$bench" requests) duration_us=$(bench_field "$bench" duration_us)
    non2xx=$(bench_field "$bench" status)
    socket=$(($(bench_field "$bench" connect) + $(bench_field "$bench" read) + $(bench_field "$bench" write) + \
        $(bench_field "$bench" timeout)))
    s201=$(bench_field "$bench" s201) sent=$(bench_field "$bench" sent)
    ((s201 > 0)) || die "$name: no 201 at all (see $file)"
    unanswered=$((sent - requests))
    rps=$(calc "int($s201 / ($duration_us / 1e6) + 0.5)")
    cpu=$(calc "sprintf(\"%.1f\", $ticks * 1e6 / 100 / $s201)")
    p50=$(calc "$(bench_field "$bench" p50_us) / 1000") p99=$(calc "$(bench_field "$bench" p99_us) / 1000")
}

# count_check TOTAL S201 UNANSWERED CREATED NON2XX SOCKET: "ok" or "FAIL". The list holds 10,000 generated items
# plus every committed POST: the 201s wrk saw, plus at most the requests still on the wire when it stopped
# (committed, but the answer went to a closed connection); and exactly the server's own count of created answers.
count_check() {
    local total=$1 s201=$2 unanswered=$3 created=$4 non2xx=$5 socket=$6 extra=$(($1 - 10000 - $2))
    if ((non2xx != 0 || socket != 0 || extra < 0 || extra > unanswered || total - 10000 != created)); then
        echo FAIL
    else
        echo ok
    fi
}

# writes_run SYNC CLIENTS ROUND: one round at one point: ListServer and writes-server.c, each on a fresh file,
# running side by side and taking turns under the same wrk command in --slices slices (A B B A ..., as bench.sh's
# measure_pair, and for the same reason: Benchmarks/HISTORY.md), ListServer first in odd rounds and the C server
# first in even ones; each server's figures are its slices' sums (p50 the median of its slices', p99 the worst).
# In round 1 also inserts.c (the caller's c_* locals keep its numbers for the later rounds). Appends one row to
# writes.tsv.
writes_run() {
    local sync=$1 clients=$2 round=$3 folder="$data/writes-$1-c$2" key="writes-$1-c$2-r$3"
    rm -rf "$folder" && mkdir -p "$folder"
    start_listserver "$key" "$listserver" --data-path "$folder/listserver.sqlite" --data-synchronous "$sync"
    local -A pid=([ls]=$server_pid) port=([ls]=$server_port) name=([ls]=$key)
    server_starts=$((server_starts + 1))
    # changes_kept as the server's default (data.changes_kept = 100,000), as for inserts.c
    launch_server "$out/server-$server_starts-$key-c-http.log" 0 "$writes_server" --threads 2 \
        --data-path "$folder/writes-server.sqlite" --synchronous "$sync" --changes-kept 100000
    pid[c]=$launched_pid port[c]=$launched_port name[c]="$key-c-http"
    wait_for_machine
    local load=$load_at_start slice_seconds=$((duration / slices)) k side order
    ((slice_seconds >= 1)) || slice_seconds=1
    local -A t_s201=() t_requests=() t_ticks=() t_micros=() t_non2xx=() t_socket=() t_unanswered=() t_steal=() p50s=()
    local -A p99s=()
    local bench rps p50 p99 non2xx socket s201 unanswered cpu steal ticks duration_us steal_ticks
    for ((k = 0; k < slices; k++)); do
        if (((k + round) % 2 == 1)); then order="ls c"; else order="c ls"; fi
        for side in $order; do
            use_server "${pid[$side]}" "${port[$side]}" "${name[$side]}"
            post_load "${name[$side]}.s$k" "$clients" "$slice_seconds"
            t_s201[$side]=$((${t_s201[$side]:-0} + s201))
            t_ticks[$side]=$((${t_ticks[$side]:-0} + ticks))
            t_micros[$side]=$(calc "${t_micros[$side]:-0} + $duration_us")
            t_non2xx[$side]=$((${t_non2xx[$side]:-0} + non2xx))
            t_socket[$side]=$((${t_socket[$side]:-0} + socket))
            t_unanswered[$side]=$((${t_unanswered[$side]:-0} + unanswered))
            t_steal[$side]=$((${t_steal[$side]:-0} + steal_ticks))
            p50s[$side]="${p50s[$side]:-} $p50" p99s[$side]="${p99s[$side]:-} $p99"
        done
    done
    local -A total=() created=() group=() writes_per_s=() cpu_per_write=() med50=() worst99=() check=() steals=()
    local writes commits commit_sum commit_ms ls_writes ls_commits
    for side in ls c; do
        use_server "${pid[$side]}" "${port[$side]}" "${name[$side]}"
        fetch_metrics
        total[$side]=$(total_count)
        if [[ $side == ls ]]; then
            created[$side]=$(metric 'listserver_writes_total{method="POST",outcome="created"}')
            writes=$(metric listserver_store_commit_writes_total)
            commits=$(metric listserver_store_commit_duration_seconds_count)
            commit_sum=$(metric listserver_store_commit_duration_seconds_sum)
            commit_ms=$(calc "sprintf(\"%.3f\", $commit_sum * 1000 / ($commits > 0 ? $commits : 1))")
        else
            created[$side]=$(metric writes_server_created_total)
            writes=$(metric writes_server_commit_writes_total)
            commits=$(metric writes_server_commits_total)
        fi
        ((commits > 0)) || die "${name[$side]}: no commit in /metrics"
        group[$side]=$(calc "sprintf(\"%.2f\", $writes / $commits)")
        [[ $side == ls ]] && ls_writes=$writes ls_commits=$commits
        writes_per_s[$side]=$(calc "int(${t_s201[$side]} / (${t_micros[$side]} / 1e6) + 0.5)")
        cpu_per_write[$side]=$(calc "sprintf(\"%.1f\", ${t_ticks[$side]} * 1e6 / 100 / ${t_s201[$side]})")
        med50[$side]=$(median_of "${p50s[$side]}")
        worst99[$side]=$(largest_of "${p99s[$side]}")
        check[$side]=$(count_check "${total[$side]}" "${t_s201[$side]}" "${t_unanswered[$side]}" "${created[$side]}" \
            "${t_non2xx[$side]}" "${t_socket[$side]}")
        steals[$side]=$(calc "sprintf(\"%.1f\", ${t_steal[$side]} / ($slice_seconds * $slices * $(nproc)))")
    done
    stop_server
    local g
    g=$(calc "int($ls_writes / $ls_commits + 0.5) < 1 ? 1 : int($ls_writes / $ls_commits + 0.5)")
    if ((round == 1)); then
        # The C program, the same inserts, the same folder, the same time: at the server's group size, then at
        # G = clients, the most a group could hold.
        read -r c_rate c_cpu <<<"$(c_inserts "$folder" "$sync" "$g" "$key-g$g")"
        read -r c_upper c_upper_cpu <<<"$(c_inserts "$folder" "$sync" "$clients" "$key-g$clients")"
    fi
    local ratio h_ratio extra=$((total[ls] - 10000 - t_s201[ls]))
    ratio=$(calc "sprintf(\"%.2f\", ${writes_per_s[ls]} / $c_rate)")
    h_ratio=$(calc "sprintf(\"%.2f\", ${writes_per_s[ls]} / ${writes_per_s[c]})")
    printf '%s\t' "$sync" "$clients" "$((slice_seconds * slices))" "${writes_per_s[ls]}" "${med50[ls]}" \
        "${worst99[ls]}" "${t_non2xx[ls]}" "${t_socket[ls]}" "${group[ls]}" "$ls_commits" "$commit_ms" \
        "${cpu_per_write[ls]}" "$g" "$c_rate" "$c_upper" "$ratio" "$load" "${t_s201[ls]}" "${t_unanswered[ls]}" \
        "${total[ls]}" "${created[ls]}" "${check[ls]}" "$c_cpu" "$c_upper_cpu" "${writes_per_s[c]}" "${med50[c]}" \
        "${worst99[c]}" "${t_non2xx[c]}" "${group[c]}" "${cpu_per_write[c]}" "$h_ratio" "$load" "${t_s201[c]}" \
        "${t_unanswered[c]}" "${total[c]}" "${created[c]}" "${check[c]}" >>"$out/writes.tsv"
    printf '%s\t%s\n' "$round" "${steals[ls]} / ${steals[c]}" >>"$out/writes.tsv"
    log "$(printf '%-21s %7s writes/s  p50 %7s ms  p99 %7s ms  group %6s  %6s µs/write  C(G=%s) %7s/s %s µs  C(G=%s) %7s/s  ratio %s  check %s (total %s = 10000 + %s 201s + %s of %s unanswered; created %s)' \
        "$key" "${writes_per_s[ls]}" "${med50[ls]}" "${worst99[ls]}" "${group[ls]}" "${cpu_per_write[ls]}" "$g" \
        "$c_rate" "$c_cpu" "$clients" "$c_upper" "$ratio" "${check[ls]}" "${total[ls]}" "${t_s201[ls]}" "$extra" \
        "${t_unanswered[ls]}" "${created[ls]}")"
    log "$(printf '%-21s %7s writes/s  p50 %7s ms  p99 %7s ms  group %6s  %6s µs/write  (C HTTP server)  ListServer ÷ it %s  check %s (total %s = 10000 + %s 201s + %s of %s unanswered; created %s)' \
        "$key" "${writes_per_s[c]}" "${med50[c]}" "${worst99[c]}" "${group[c]}" "${cpu_per_write[c]}" "$h_ratio" \
        "${check[c]}" "${total[c]}" "${t_s201[c]}" "$((total[c] - 10000 - t_s201[c]))" "${t_unanswered[c]}" \
        "${created[c]}")"
    [[ ${check[ls]} == ok ]] || die "$key: the correctness check failed (see the line above)"
    [[ ${check[c]} == ok ]] || die "$key: the C HTTP server's correctness check failed (see the line above)"
}

# c_inserts FOLDER SYNC G NAME: inserts.c's inserts/s for $duration seconds on a fresh file in FOLDER.
c_inserts() {
    local folder=$1 sync=$2 g=$3 name=$4 file="$out/$4.inserts.txt"
    wait_for_machine
    local ticks0
    read_children_ticks
    ticks0=$children_ticks
    # changes_kept as the server's default (data.changes_kept = 100,000)
    timeout $((duration + 30)) "$inserts" "$folder/inserts.sqlite" "$sync" "$g" "$duration" 100000 >"$file" 2>&1 ||
        die "inserts.c failed: $(tail -3 "$file")"
    read_children_ticks
    rm -f "$folder/inserts.sqlite" "$folder/inserts.sqlite-wal" "$folder/inserts.sqlite-shm"
    # inserts/s and the program's CPU (user + system) per insert in µs
    awk -v ticks=$((children_ticks - ticks0)) '$1 == "synchronous=" || /^synchronous=/ { split($5, f, "="); n = f[2] }
        $1 == "inserts/s" { r = $2 } END { printf "%s %.1f", r, ticks * 1e6 / 100 / n }' "$file"
}

# ---------------------------------------------------------------- growth: CPU per write against the list's size

# One server (--data-synchronous normal), five 4 s runs of POSTs at 16 connections back to back: the server's CPU
# per write as the number of items already written grows (it should not depend on it).
step_growth() {
    local folder="$data/growth" run before after ticks0 ticks1 file bench s201
    rm -rf "$folder" && mkdir -p "$folder"
    printf 'run\twritten_before\twritten_after\twrites_per_s\tcpu_us_per_write\tgroup\tload\n' >"$out/growth.tsv"
    start_listserver growth "$listserver" --data-path "$folder/listserver.sqlite" --data-synchronous normal
    local writes0=0 commits0=0 writes commits
    for run in 1 2 3 4 5; do
        wait_for_machine
        before=$(($(total_count) - 10000))
        file="$out/growth-$run.wrk.txt"
        ticks0=$(cpu_ticks "$server_pid")
        WRK_THREADS=2 timeout --kill-after=5 40 wrk -t2 -c16 -d4s --timeout 10s -s "$writes_lua" \
            "http://127.0.0.1:$server_port" -- post >"$file" 2>&1 || die "wrk failed: $(tail -3 "$file")"
        ticks1=$(cpu_ticks "$server_pid")
        sleep 0.2
        bench=$(grep '^BENCH ' "$file") || die "no BENCH line in $file"
        s201=$(bench_field "$bench" s201)
        after=$(($(total_count) - 10000))
        fetch_metrics
        writes=$(metric listserver_store_commit_writes_total) commits=$(metric listserver_store_commit_duration_seconds_count)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$before" "$after" "$(calc "int($s201 / 4)")" \
            "$(calc "sprintf(\"%.0f\", ($ticks1 - $ticks0) * 1e6 / 100 / $s201)")" \
            "$(calc "sprintf(\"%.1f\", ($writes - $writes0) / ($commits - $commits0))")" "$load_at_start" >>"$out/growth.tsv"
        writes0=$writes commits0=$commits
        log "growth run $run: $(tail -1 "$out/growth.tsv")"
    done
    stop_server
}

# ---------------------------------------------------------------- fan-out

step_fanout() {
    local folder="$data/fanout" order
    rm -rf "$folder" && mkdir -p "$folder"
    # http.max_connections is 2,048 by default: 5,000 subscribers need more.
    start_listserver fanout "$listserver" --data-path "$folder/listserver.sqlite" --max-connections 10000
    fanout_measure fanout
    # The C HTTP server doing the same fan-out (writes-server.c: evhttp chunked replies, 2 loops, one SQLite writer
    # thread), the same fanout.c command, a file in the same folder, synchronous full as ListServer's default:
    # events handed to the loops before the 201s, as ListServer does, then the 201s first (--answer-first).
    for order in events-first answer-first; do
        server_starts=$((server_starts + 1))
        local flags=(--threads 2 --data-path "$folder/writes-server-$order.sqlite" --synchronous full
            --changes-kept 100000)
        [[ $order == answer-first ]] && flags+=(--answer-first)
        launch_server "$out/server-$server_starts-fanout-c-$order.log" 0 "$writes_server" "${flags[@]}"
        server_pid=$launched_pid server_port=$launched_port server_name=fanout-c-$order
        fanout_measure "fanout-c-$order"
    done
}

step_wsfanout() {
    local folder="$data/wsfanout"
    rm -rf "$folder" && mkdir -p "$folder"
    start_listserver wsfanout "$listserver" --data-path "$folder/listserver.sqlite" --max-connections 10000
    fanout_measure wsfanout --websocket
    # No C server here: writes-server.c is evhttp 2.1, which has no WebSocket (2.2's evws is not in Debian).
}

# fanout_measure NAME [FANOUT_ARGUMENTS...]: fanout.c (with those arguments, e.g. --websocket) against the current
# server ($out/NAME.json, .txt), then the server's CPU ticks over the whole run, its peak RSS and the load at the
# start ($out/NAME.tsv); stops the server.
fanout_measure() {
    local name=$1 ticks0 ticks1 hwm
    shift
    wait_for_machine
    ticks0=$(cpu_ticks "$server_pid")
    timeout 600 "$fanout" --port "$server_port" --pid "$server_pid" --subscribers "$subscribers" \
        --posts "$posts" --out "$out/$name.json" "$@" >"$out/$name.txt" 2>&1 ||
        die "fanout.c failed against $server_name: $(tail -5 "$out/$name.txt")"
    ticks1=$(cpu_ticks "$server_pid")
    hwm=$(peak_rss_kb "$server_pid")
    stop_server
    python3 - "$out/$name.json" "$((ticks1 - ticks0))" "$hwm" "$load_at_start" >"$out/$name.tsv" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["server_ticks"] = int(sys.argv[2]); r["server_hwm_kb"] = int(sys.argv[3]); r["load"] = sys.argv[4]
print("\t".join(f"{k}={v}" for k, v in r.items() if k != "per_post"))
EOF
    log "$name: $(cat "$out/$name.tsv")"
}

# ---------------------------------------------------------------- deep pages with deletions

step_deep() {
    local folder="$data/deep" total deepest
    rm -rf "$folder" && mkdir -p "$folder"
    printf 'phase\tpath\treq_per_s\tp50_ms\tp99_ms\terrors\tcpu_us_per_req\tload\n' >"$out/deep.tsv"
    start_listserver deep "$listserver" --item-count "$two53" --data-synchronous normal \
        --data-path "$folder/listserver.sqlite"
    warm_up path "/items?page=1&limit=20"
    deep_measure before "/items?page=1&limit=20"
    deep_measure before "/items?page=$((two53 / 20))&limit=20"

    wait_for_machine
    # wrk's threads stop sending once they have their share of 204s, but wrk itself only ends at -d or at SIGINT
    # (then it reports as usual): so the script watches the server's count of deletions and sends SIGINT once it
    # reaches the number asked for (at most 300 s).
    local file="$out/deep-deletions.wrk.txt" bench s204 s404 deleted=0 started finished wrk_pid i
    started=$(date +%s.%N)
    WRK_THREADS=2 wrk -t2 -c64 -d300s --timeout 10s -s "$writes_lua" \
        "http://127.0.0.1:$server_port" -- delete "$two53" "$deletions" >"$file" 2>&1 &
    wrk_pid=$!
    for ((i = 0; i < 3000 && deleted < deletions; i++)); do
        sleep 0.1
        fetch_metrics
        deleted=$(metric 'listserver_writes_total{method="DELETE",outcome="ok"}')
        is_running "$wrk_pid" || break
    done
    finished=$(date +%s.%N)
    kill -INT "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" || die "wrk (deletions) failed: $(tail -3 "$file")"
    sleep 0.5
    bench=$(grep '^BENCH ' "$file") || die "no BENCH line in $file"
    s204=$(bench_field "$bench" s204) s404=$(bench_field "$bench" s404)
    fetch_metrics
    deleted=$(metric 'listserver_writes_total{method="DELETE",outcome="ok"}')
    total=$(total_count)
    ((s204 >= deletions)) || die "deletions: only $s204 answers of 204 (wanted $deletions)"
    ((total == two53 - deleted)) || die "deletions: X-Total-Count $total, expected 2^53 - $deleted"
    local seconds
    seconds=$(calc "sprintf(\"%.1f\", $finished - $started)")
    printf '204s seen=%s\t404s=%s\tdeleted (server)=%s\tX-Total-Count=%s\tseconds=%s\tdeletions/s=%s\tother statuses=%s\tp50 ms=%s\tp99 ms=%s\n' \
        "$s204" "$s404" "$deleted" "$total" "$seconds" "$(calc "int($deleted / $seconds)")" \
        "$(bench_field "$bench" other)" "$(calc "$(bench_field "$bench" p50_us) / 1000")" \
        "$(calc "$(bench_field "$bench" p99_us) / 1000")" >"$out/deep-deletions.tsv"
    log "deletions: $s204 answers of 204 (the server counts $deleted deletions), $s404 of 404, in $seconds s; X-Total-Count $total"

    deepest=$((total / 20))
    warm_up path "/items?page=1&limit=20"
    deep_measure after "/items?page=1&limit=20"
    deep_measure after "/items?page=$deepest&limit=20"
    deep_measure after "/items?page=1&limit=20&order=desc"
    deep_measure after "/items?after=$((two53 / 2))&limit=20"
    stop_server
}

deep_measure() {
    local phase=$1 path=$2 name
    name="deep-$phase-$(tr -c 'A-Za-z0-9' '_' <<<"$path")"
    # A full page must come back: a 200 with 20 items.
    local items
    items=$(curl -s --max-time 10 "http://127.0.0.1:$server_port$path" | grep -o '"id":' | wc -l)
    ((items == 20)) || die "$path answered $items items, not 20"
    wait_for_machine
    run_once "$name" 64 5 2 path "$path"
    local requests rps p50 p99 socket non2xx cpu
    IFS=$'\t' read -r requests rps p50 p99 socket non2xx cpu _ <<<"$run_line"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$phase" "$path" "$rps" "$p50" "$p99" "$((socket + non2xx))" "$cpu" \
        "$load_at_start" >>"$out/deep.tsv"
    log "$(printf 'deep %-6s %-48s %7s req/s  p50 %6s ms  p99 %6s ms  %5s µs/req  errors %s' "$phase" "$path" \
        "$rps" "$p50" "$p99" "$cpu" "$((socket + non2xx))")"
}

# ---------------------------------------------------------------- s1 before and after

step_s1() {
    printf 'round\tserver\treq_per_s\tp50_ms\tp99_ms\terrors\tcpu_us_per_req\tload\n' >"$out/s1.tsv"
    local round server
    local servers=(new-memory new-file baseline)
    [[ -n $old_binary ]] && servers=(old "${servers[@]}")
    for ((round = 1; round <= rounds; round++)); do
        for server in "${servers[@]}"; do
            local folder="$data/s1-$round-$server"
            case $server in
            old) start_listserver old "$old_binary" --seed 42 --item-count 10000 --latency-min-ms 1000 \
                --latency-max-ms 1000 --cache-capacity 100000 --default-limit 20 --max-limit 100 ;;
            new-memory) start_listserver new-memory "$listserver" --seed 42 --item-count 10000 --latency-min-ms 1000 \
                --latency-max-ms 1000 --cache-capacity 100000 --default-limit 20 --max-limit 100 --data-path :memory: ;;
            new-file)
                rm -rf "$folder" && mkdir -p "$folder"
                start_listserver new-file "$listserver" --seed 42 --item-count 10000 --latency-min-ms 1000 \
                    --latency-max-ms 1000 --cache-capacity 100000 --default-limit 20 --max-limit 100 \
                    --data-path "$folder/listserver.sqlite" ;;
            baseline)
                server_starts=$((server_starts + 1))
                launch_server "$out/server-$server_starts-baseline.log" 0 "$baseline" --threads 2 --seed 42 \
                    --item-count 10000 --latency-ms 1000 --cache-capacity 100000 --max-limit 100
                server_pid=$launched_pid server_port=$launched_port server_name=baseline ;;
            esac
            warm_up pages 500
            wait_for_machine
            run_once "s1-r$round-$server" 64 10 2 pages 500
            local requests rps p50 p99 socket non2xx cpu
            IFS=$'\t' read -r requests rps p50 p99 socket non2xx cpu _ <<<"$run_line"
            stop_server
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$server" "$rps" "$p50" "$p99" "$((socket + non2xx))" \
                "$cpu" "$load_at_start" >>"$out/s1.tsv"
            log "$(printf 's1 round %s %-10s %7s req/s  p50 %6s ms  p99 %6s ms  %5s µs/req  errors %s  load %s' \
                "$round" "$server" "$rps" "$p50" "$p99" "$cpu" "$((socket + non2xx))" "$load_at_start")"
        done
    done
}

# ---------------------------------------------------------------- the report

write_report() {
    echo "#### Machine and command"
    echo
    cat "$out/machine.md"
    if [[ -s $out/writes.tsv ]] && (($(wc -l <"$out/writes.tsv") > 1)); then
        echo
        echo "#### Durable writes: POST /items, ListServer against inserts.c (same inserts, same synchronous, same group size) and against writes-server.c (a C HTTP server doing the same work, same wrk)"
        echo
        echo "| synchronous | clients | round | ListServer writes/s | p50 ms | p99 ms | non-2xx | avg group | commit ms (avg) | server CPU µs/write | C inserts/s at G = avg group | C CPU µs/insert | ratio server/C (≥ 0.8) | C inserts/s at G = clients | C HTTP server writes/s | ratio ListServer / C HTTP server (≥ 0.8) | load average at start |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        # Results of runs before writes-server.c have no C HTTP columns (25 on): "-"; before --write-rounds, no
        # round (38): one round.
        awk -F'\t' 'NR > 1 { http = NF >= 37
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (G=%s) | %s | %s %s | %s | %s | %s %s | %s |\n",
            $1, $2, (NF >= 38 ? $38 : 1), $4, $5, $6, $7, $9, $11, $12, $14, $13, $23, $16,
            ($16 >= 0.8 ? "pass" : "**MISS**"), $15, http ? $25 : "-", http ? $31 : "-",
            http ? ($31 >= 0.8 ? "pass" : "**MISS**") : "", $17 }' \
            "$out/writes.tsv"
        if awk -F'\t' 'NR > 1 && NF >= 37 { found = 1 } END { exit !found }' "$out/writes.tsv"; then
            echo
            echo "ListServer against the C HTTP server, round by round (ListServer first in odd rounds), the median and the worst round; the target (≥ 0.8) is met when the worst round meets it (issue 32):"
            echo
            python3 - "$out/writes.tsv" <<'EOF2'
import csv, statistics, sys
rows = [r for r in csv.reader(open(sys.argv[1]), delimiter="\t")][1:]
points = {}
for r in rows:
    if len(r) >= 37:
        points.setdefault((r[0], int(r[1])), []).append(r)
print("| synchronous | clients | writes/s ListServer / C, each round | ratio each round | median ratio "
      "| worst ratio (≥ 0.8) | rounds ≥ 0.8 | CPU µs/write ListServer / C, each round | median CPU ratio "
      "| steal % ListServer / C, each round |")
print("|---|---:|---|---|---:|---:|---:|---|---:|---|")
for (sync, clients), rs in points.items():
    ratios = [float(r[3]) / float(r[24]) for r in rs]
    cpu = [float(r[11]) / float(r[29]) for r in rs]
    median, worst = statistics.median(ratios), min(ratios)
    print(f"| {sync} | {clients} | {', '.join(f'{r[3]} / {r[24]}' for r in rs)} | "
          f"{', '.join(f'{x:.2f}' for x in ratios)} | {median:.2f} | {worst:.2f} "
          f"{'pass' if worst >= 0.8 else '**MISS**'} | "
          f"{sum(x >= 0.8 for x in ratios)} of {len(ratios)} | {', '.join(f'{r[11]} / {r[29]}' for r in rs)} | "
          f"{statistics.median(cpu):.2f} | {', '.join(r[38] if len(r) > 38 else '-' for r in rs)} |")
EOF2
        fi
        if awk -F'\t' 'NR > 1 && NF >= 37 { found = 1 } END { exit !found }' "$out/writes.tsv"; then
            echo
            echo "The C HTTP server (\`Benchmarks/sqlite/writes-server.c\`: evhttp, 2 loops, one SQLite writer thread committing what is queued when it wakes, inserts.c's statements) under the same wrk command, on a fresh file in the same folder; its average group from its /metrics, its CPU as the server's (utime + stime ÷ 201s):"
            echo
            echo "| synchronous | clients | round | writes/s | p50 ms | p99 ms | non-2xx | avg group | CPU µs/write | ListServer CPU µs/write | load average at start |"
            echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
            awk -F'\t' 'NR > 1 && NF >= 37 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                $1, $2, (NF >= 38 ? $38 : 1), $25, $26, $27, $28, $29, $30, $12, $32 }' "$out/writes.tsv"
        fi
        echo
        echo "Correctness (every run): X-Total-Count − 10,000 against the 201s wrk saw, the requests still unanswered when wrk stopped, and the server's count of created answers:"
        echo
        echo "| synchronous | clients | round | server | 201s seen | unanswered at stop | X-Total-Count | created (metrics) | check |"
        echo "|---|---:|---:|---|---:|---:|---:|---:|---|"
        awk -F'\t' 'NR > 1 { round = (NF >= 38 ? $38 : 1)
            printf "| %s | %s | %s | ListServer | %s | %s | %s | %s | %s |\n", $1, $2, round, $18, $19, $20, $21, $22
            if (NF >= 37) printf "| %s | %s | %s | C HTTP server | %s | %s | %s | %s | %s |\n", $1, $2, round, $33, $34, $35, $36, $37 }' \
            "$out/writes.tsv"
    fi
    if [[ -s $out/growth.tsv ]] && (($(wc -l <"$out/growth.tsv") > 1)); then
        echo
        echo "#### Server CPU per write against the items already written (one server, POSTs at 16 connections, normal)"
        echo
        echo "| run (4 s) | items written before | after | writes/s | server CPU µs/write | avg group | load average at start |"
        echo "|---:|---:|---:|---:|---:|---:|---|"
        awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$out/growth.tsv"
    fi
    if [[ -s $out/fanout.json || -s $out/wsfanout.json ]]; then
        echo
        echo "#### Fan-out: idle subscribers, one POST at a time (Server-Sent Events: step fanout; WebSocket: step wsfanout)"
        echo
        python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
print(f"| transport | subscribers | POSTs | RSS before | RSS with subscribers | per subscriber | server peak RSS | 201 → event at the last subscriber: p50 / p99 / max (p99 ≤ 50 ms) | at the median subscriber: p50 / p99 / max | at the first: p50 | POST round trip p50 | POST sent → event at the last: p50 / p99 | server CPU | client CPU | load average at start |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---|---:|---:|---|")
for transport, name in (("SSE", "fanout"), ("WebSocket", "wsfanout")):
    if not os.path.exists(f"{out}/{name}.json") or os.path.getsize(f"{out}/{name}.json") == 0:
        continue
    r = json.load(open(f"{out}/{name}.json"))
    extra = dict(kv.split("=", 1) for kv in open(f"{out}/{name}.tsv").read().strip().split("\t"))
    n = r["subscribers"]
    verdict = "pass" if r["last_p99_ms"] <= 50 else "**MISS**"
    print(f"| {transport} | {n} | {r['posts']} | {r['rss_before_kb']/1024:.1f} MB | {r['rss_after_kb']/1024:.1f} MB | {r['rss_per_subscriber_kb']:.2f} kB "
          f"| {int(extra['server_hwm_kb'])/1024:.1f} MB | {r['last_p50_ms']} / {r['last_p99_ms']} / {r['last_max_ms']} ms {verdict} "
          f"| {r['median_p50_ms']} / {r['median_p99_ms']} / {r['median_max_ms']} ms | {r['first_p50_ms']} ms | {r['post_p50_ms']} ms | {r['last_from_send_p50_ms']} / {r['last_from_send_p99_ms']} ms "
          f"| {int(extra['server_ticks'])/100:.2f} s | {r['client_cpu_seconds']} s of {r['client_wall_seconds']} s ({r['client_cpu_pct']} % of a core) | {extra['load']} |")
EOF
        if [[ -s $out/wsfanout.json ]]; then
            echo
            echo "WebSocket: the same fanout.c command with --websocket (101, then one text message per change, the server's pings answered), against a fresh ListServer; no C server beside it: writes-server.c (evhttp 2.1) has no WebSocket."
        fi
    fi
    if [[ -s $out/fanout.json && -s $out/fanout-c-events-first.json ]]; then
        echo
        echo "#### Fan-out side by side: ListServer against the C HTTP server doing the same (writes-server.c), the same fanout.c command"
        echo
        python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
rows = [("ListServer", "fanout"), ("C, events before the 201 (ListServer's order)", "fanout-c-events-first"),
        ("C, 201 before the events (--answer-first)", "fanout-c-answer-first")]
results = {}
for label, name in rows:
    if os.path.exists(f"{out}/{name}.json"):
        r = json.load(open(f"{out}/{name}.json"))
        extra = dict(kv.split("=", 1) for kv in open(f"{out}/{name}.tsv").read().strip().split("\t"))
        results[name] = (r, extra)
ls = results["fanout"][0]
ratio = lambda a, b: f"{a / b:.2f}" if b else "-"
print("| server | subscribers | 201 → event at the last: p50 / p99 / max | POST sent → event at the last: p50 / p99 "
      "| POST round trip p50 | server CPU during the POSTs (whole run) | client CPU during the POSTs "
      "| ListServer ÷ this: sent → last p50 / p99, server CPU during the POSTs | load average at start |")
print("|---|---:|---|---|---:|---:|---:|---|---|")
for label, name in rows:
    if name not in results:
        continue
    r, extra = results[name]
    print(f"| {label} | {r['subscribers']} | {r['last_p50_ms']} / {r['last_p99_ms']} / {r['last_max_ms']} ms "
          f"| {r['last_from_send_p50_ms']} / {r['last_from_send_p99_ms']} ms | {r['post_p50_ms']} ms "
          f"| {r['server_cpu_seconds']} s ({int(extra['server_ticks']) / 100:.2f} s) | {r['client_cpu_seconds']} s "
          f"| {ratio(ls['last_from_send_p50_ms'], r['last_from_send_p50_ms'])} / "
          f"{ratio(ls['last_from_send_p99_ms'], r['last_from_send_p99_ms'])}, "
          f"{ratio(ls['server_cpu_seconds'], r['server_cpu_seconds'])} | {extra['load']} |")
EOF
        echo
        echo "201 → last is negative when every subscriber has the event before the client has the 201 (events first), so the ratios compare POST sent → last, which does not depend on the order. CPU: user + system during the POSTs (the server's from /proc/PID/stat, the client's from getrusage, both by fanout.c); in parentheses the server's over the whole run, the subscriptions included."
    fi
    if [[ -s $out/deep.tsv ]] && (($(wc -l <"$out/deep.tsv") > 1)); then
        echo
        echo "#### Deep pages of a 2^53-item list, before and after $(sed -n 's/.*deleted (server)=\([0-9]*\).*/\1/p' "$out/deep-deletions.tsv" 2>/dev/null || echo '?') deletions of random ids"
        echo
        if [[ -s $out/deep-deletions.tsv ]]; then
            echo "Deletions: $(sed 's/\t/, /g' "$out/deep-deletions.tsv") (wrk -t2 -c64, --data-synchronous normal)."
            echo
        fi
        echo "| phase | path | req/s | p50 ms | p99 ms | errors | CPU µs/req | ÷ page 1 of its phase (CPU) | load average at start |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
        awk -F'\t' 'NR > 1 { if ($2 == "/items?page=1&limit=20") first[$1] = $7
            rows[NR] = $0 }
            END { for (i = 2; i <= NR; i++) { split(rows[i], f, "\t")
                printf "| %s | `%s` | %s | %s | %s | %s | %s | %.2f | %s |\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7],
                    f[7] / first[f[1]], f[8] } }' "$out/deep.tsv"
    fi
    if [[ -s $out/s1.tsv ]] && (($(wc -l <"$out/s1.tsv") > 1)); then
        echo
        echo "#### Scenario 1 with no writes (GET /items?page=<1..500>&limit=20, wrk -t2 -c64, 10 s), interleaved"
        echo
        echo "| round | server | req/s | p50 ms | p99 ms | errors | CPU µs/req | load average at start |"
        echo "|---:|---|---:|---:|---:|---:|---:|---|"
        awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' \
            "$out/s1.tsv"
        echo
        echo "Medians over the rounds, and the ratios of the medians:"
        echo
        python3 - "$out/s1.tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
med = {}
for s in dict.fromkeys(r["server"] for r in rows):
    rs = [float(r["req_per_s"]) for r in rows if r["server"] == s]
    cpu = [float(r["cpu_us_per_req"]) for r in rows if r["server"] == s]
    med[s] = (statistics.median(rs), statistics.median(cpu))
print("| server | req/s (median) | CPU µs/req (median) | req/s ÷ old | CPU ÷ old | req/s ÷ C | CPU ÷ C |")
print("|---|---:|---:|---:|---:|---:|---:|")
for s, (rs, cpu) in med.items():
    o = med.get("old"); c = med.get("baseline")
    fo = (lambda a, b: f"{a / b:.2f}") if o else (lambda a, b: "-")
    print(f"| {s} | {rs:.0f} | {cpu:.1f} | {fo(rs, o[0]) if o else '-'} | {fo(cpu, o[1]) if o else '-'} "
          f"| {rs / c[0]:.2f} | {cpu / c[1]:.2f} |" if c else f"| {s} | {rs:.0f} | {cpu:.1f} | | | | |")
EOF
    fi
}

# ---------------------------------------------------------------- main

if [[ -n $report_dir ]]; then
    write_report
    exit 0
fi
prepare
for step in $only; do
    case $step in
    writes) step_writes ;;
    growth) step_growth ;;
    fanout) step_fanout ;;
    wsfanout) step_wsfanout ;;
    deep) step_deep ;;
    s1) step_s1 ;;
    *) die "unknown step $step" ;;
    esac
done

write_report >"$report"
cat "$report"
log "done: ${report#"$root"/}"
