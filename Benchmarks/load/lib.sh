# Helpers for scripts/bench.sh and profile.sh (sourced; uses their variables: out, lua, baseline, listserver,
# threads, duration, quick, retries, command_line). Starting, stopping and watching servers, installing packages
# and building the baseline come from scripts/lib/common.sh, as in every other script.
# shellcheck shell=bash disable=SC2154

# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
log_file="$out/log.txt" # log and die write here too

declare -A RPS=() CPU=() P99=() RSS=() EFF=() ERRORS=()
server_pid="" server_port="" server_name="" server_starts=0

# The servers take their settings from flags only: no LISTSERVER_* variable of the caller's shell leaks in.
for variable in $(compgen -e); do
    if [[ $variable == LISTSERVER_* ]]; then unset "$variable"; fi
done

# Float arithmetic: calc "expression with awk syntax"
calc() { awk "function max0(x) { return x < 0 ? 0 : x } BEGIN { printf \"%s\", ($1) }"; }

install_missing() { install_missing_packages "${build_packages[@]}" wrk curl gcc linux-perf; }

build_all() {
    log "building ListServer (swift build ${listserver_build[*]}), ListBenchmarks, the baseline"
    (cd "$root" && swift build "${listserver_build[@]}" --product ListServer &&
        swift build -c release --product ListBenchmarks) \
        >"$out/build.txt" 2>&1 || die "swift build failed: see $out/build.txt"
    build_baseline "$baseline" || die "cannot build the baseline"
}

# 5,000 connections need more than 5,000 descriptors in the server and in wrk.
raise_file_limit() {
    local hard
    hard=$(ulimit -Hn)
    if [[ $hard == unlimited ]] || ((hard > 65536)); then hard=65536; fi
    ulimit -n "$hard"
    if (($(ulimit -n) < 12000)); then
        log "warning: ulimit -n is $(ulimit -n); the 5,000-connection run needs about 5,100 per process"
    fi
}

machine_info() {
    local model
    model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
    echo "- machine: $(nproc) × ${model:-unknown CPU}, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo) RAM, kernel $(uname -r)"
    echo "- tools: $(swift --version 2>&1 | head -1); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2); libevent $(pkg-config --modversion libevent_core 2>/dev/null || echo '?'); $(cc --version | head -1)"
    echo "- commit: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- Sources Package.swift || echo ' (with uncommitted changes to Sources)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- command: \`$command_line\` (each run ${duration} s, wrk -t2, servers with ${threads} threads unless noted${pairing_note:-})"
    if [[ -n ${listserver_path:-} ]]; then
        echo "- ListServer binary: \`$listserver_path\` (given with --listserver)"
    else
        echo "- ListServer build: \`swift build ${listserver_build[*]}\`"
    fi
    echo "- load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# ---------------------------------------------------------------- servers

# start_server NAME THREADS ITEM_COUNT LATENCY_MS [FLAG...]: a fresh server on 127.0.0.1, port chosen by the kernel;
# the flags are the server's own, added at the end.
start_server() {
    local name=$1 loops=$2 count=$3 latency=$4
    shift 4
    server_starts=$((server_starts + 1))
    local server_log="$out/server-$server_starts-$name.log"
    case $name in
    ListServer)
        # No access log: the baseline writes none, and its cost is measured on its own (BENCHMARKS.md,
        # "Metrics cost"). Metrics stay on, as by default. Scenario 3 holds 5,000 connections, past the default
        # http.max_connections (2,048); the baseline has no limit.
        launch_server "$server_log" 0 "$listserver" --threads "$loops" --seed 42 --item-count "$count" \
            --latency-min-ms "$latency" --latency-max-ms "$latency" --cache-capacity 100000 \
            --default-limit 20 --max-limit 100 --no-access-log --data-path :memory: --max-connections 10000 "$@"
        ;;
    baseline | baseline2) # baseline2: a second copy, for the noise floor (scenario "aa")
        placeholders_for "$count"
        launch_server "$server_log" 0 "$baseline" --threads "$loops" --seed 42 --item-count "$count" \
            --latency-ms "$latency" --cache-capacity 100000 --max-limit 100 --placeholders "$placeholders" "$@"
        ;;
    *) die "unknown server $name" ;;
    esac
    server_pid=$launched_pid server_port=$launched_port server_name=$name
}

# placeholders_for COUNT: sets `placeholders` to a file of the blur_hash of every item the runs of a COUNT-item
# catalog ask for ("<id> <hash>" lines, ascending ids), taken from ListServer's own pages (once per COUNT and
# sitting): the baseline writes them as ListServer does, copied from a table it reads at start
# (Benchmarks/baseline/evhttp-baseline.c, --placeholders). Every id of a 10,000-item catalog; of a larger one the
# pages scenario 4 and the verify step ask for.
placeholders_for() {
    local count=$1 pages page generator_log
    placeholders="$out/placeholders-$count.txt"
    [[ -s $placeholders ]] && return 0
    if ((count <= 10000)); then
        pages=()
        for ((page = 1; page <= (count + 99) / 100; page++)); do pages+=("/items?page=$page&limit=100"); done
    else
        pages=("/items?page=1&limit=100" "/items?page=450359962737049&limit=20" "/items?page=450359962737050&limit=20"
            "/items?page=450359962737051&limit=20" "/items?page=9007199254740992&limit=1")
    fi
    generator_log="$out/placeholders-$count.log"
    launch_server "$generator_log" 0 "$listserver" --threads 1 --seed 42 --item-count "$count" --no-access-log \
        --data-path :memory:
    local generator_pid=$launched_pid generator_port=$launched_port
    for page in "${pages[@]}"; do
        curl -fs --max-time 10 "http://127.0.0.1:$generator_port$page" || die "placeholders: cannot fetch $page"
        echo
    done | python3 -c 'import json, sys
pairs = {item["id"]: item["blur_hash"] for line in sys.stdin if line.strip() for item in json.loads(line)["items"]}
for id in sorted(pairs): print(id, pairs[id])' >"$placeholders"
    stop_process "$generator_pid" 15 || true
    [[ -s $placeholders ]] || die "placeholders: none written for a $count-item catalog"
}

# stop_pid PID: SIGTERM, up to 15 s to drain, then SIGKILL.
stop_pid() {
    local pid=$1 status=0
    stop_process "$pid" 15 || status=$?
    # Both servers exit 0 after SIGTERM; anything else (134 is an abort) is worth a look in the server's log.
    if ((status != 0)); then log "warning: server $pid exited with status $status after SIGTERM: see its log in $out"; fi
}

# Stops the current server and any other still running (verify_same_bytes runs two at once).
stop_server() {
    if [[ -n $server_pid ]]; then stop_pid "$server_pid"; fi
    server_pid=""
    local pid
    for pid in ${launched_pids[@]+"${launched_pids[@]}"}; do stop_pid "$pid"; done
}

# ---------------------------------------------------------------- measurements

peak_rss_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# Sets children_ticks: user + system CPU of every child this shell has waited for (wrk, through timeout), in
# ticks. `times` must run in this shell, not in a $(...) subshell, which has no children of its own.
read_children_ticks() {
    times >"$out/.times"
    children_ticks=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); n += p[1] * 60 + p[2] }
        printf "%d", n * 100 }' "$out/.times")
}
bench_field() { sed -n "s/.*\"$2\":\([-0-9.]*\).*/\1/p" <<<"$1"; }

# One short wrk run to warm the server (caches, allocator, connections); not recorded.
warm_up() {
    timeout 30 wrk -t2 -c64 -d1s -s "$lua" "http://127.0.0.1:$server_port" -- "$@" >"$out/warm-up.txt" 2>&1 ||
        die "$server_name: warm-up failed: $(tail -3 "$out/warm-up.txt")"
}

# The cached image hit of scenario "hit", and fetch_hit_image FILE: the bytes ListServer answers it with, from a
# server of its own, for the baseline's --image-file.
hit_path="/items/42/image?w=600&h=400"
fetch_hit_image() {
    start_server ListServer 1 10000 20 --image-latency-distribution none
    curl -fs -o "$1" "http://127.0.0.1:$server_port$hit_path" || die "ListServer: no image at $hit_path"
    stop_server
}

# Fetches the details of ids 0..N-1 once (each a miss), then checks that every one is now a hit.
warm_details() {
    local n=$1 hits url="http://127.0.0.1:$server_port/items/[0-$(($1 - 1))]/detail"
    # (--parallel draws a progress meter on stderr even with -s; the hit count below is the check)
    curl -s --parallel --parallel-max 100 --max-time 30 "$url" >/dev/null 2>&1 || die "$server_name: warming failed"
    hits=$(curl -s -D - --max-time 30 "$url" | grep -ci '^x-cache: *hit' || true)
    ((hits == n)) || die "$server_name: $hits of $n details are cache hits after warming"
}

# Waits until the machine is quiet: under 25 % of a core busy over one second while our server idles. Other work
# on a shared machine comes and goes; starting a run in a lull saves most repeats. At most 90 s per run and
# quiet_budget seconds (300) per invocation, so that a busy machine cannot stretch the script without bound.
quiet_budget=300
wait_for_quiet() {
    local i before after said=0
    for ((i = 0; i < 90 && quiet_budget > 0; i++)); do
        before=$(busy_ticks)
        sleep 1
        after=$(busy_ticks)
        ((after - before <= 25)) && return 0
        quiet_budget=$((quiet_budget - 1))
        if ((said == 0)); then
            log "  waiting for other processes to quieten ($((after - before)) % of a core busy)"
            said=1
        fi
    done
    log "  still busy (waiting budget left: $quiet_budget s); measuring anyway"
}

# measure KEY LABEL CONNECTIONS SECONDS WRK_TIMEOUT MODE [ARGS...]: one recorded run against the current server,
# repeated (up to --retries times) while other processes took more than 25 % of a core; the least disturbed kept.
measure() {
    local key=$1 label=$2 connections=$3 seconds=$4 wrk_timeout=$5
    shift 5
    local attempt best="" best_other=""
    for ((attempt = 1; attempt <= retries + 1; attempt++)); do
        wait_for_quiet
        run_once "$key.$attempt" "$connections" "$seconds" "$wrk_timeout" "$@"
        if [[ -z $best ]] || (($(calc "$run_other < $best_other"))); then
            best=$run_line best_other=$run_other
        fi
        (($(calc "$run_other <= 25"))) && break
        if ((attempt <= retries)); then
            log "  disturbed: other processes used $run_other % of a core; running it again"
        fi
    done
    record_run "$key" "$label" "$connections" "$seconds" "$best" "$best_other"
}

# record_run KEY LABEL CONNECTIONS SECONDS RUN_LINE OTHER: one row of results.tsv (and the log) for the current
# server; RUN_LINE is run_once's.
record_run() {
    local key=$1 label=$2 connections=$3 seconds=$4 line=$5 other=$6
    local requests rps p50 p99 socket non2xx cpu rss efficiency wrk_cpu counters
    IFS=$'\t' read -r requests rps p50 p99 socket non2xx cpu rss efficiency wrk_cpu counters _ <<<"$line"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$label" \
        "$server_name" "$(server_threads "$key")" "$connections" "$seconds" "$requests" "$rps" "$p50" "$p99" "$socket" \
        "$non2xx" "$cpu" "$rss" "$efficiency" "$other" "$wrk_cpu" "${counters:--}" >>"$out/results.tsv"
    RPS[$key]=$rps CPU[$key]=$cpu P99[$key]=$p99 RSS[$key]=$rss EFF[$key]=$efficiency
    ERRORS[$key]=$((socket + non2xx))
    log "$(printf '%-28s %9s req/s  p50 %8s ms  p99 %8s ms  %6s µs/req  %6s MB  errors %s/%s  eff %s  wrk %s %%  other %s %%' \
        "$key" "$rps" "$p50" "$p99" "$cpu" "$rss" "$socket" "$non2xx" "$efficiency" "$wrk_cpu" "$other")"
    log "$(printf '%-28s per request: instructions:u cycles:u cycles:k branch-misses:u L1d-misses ctx-switches = %s' \
        "$key" "${counters:--}")"
}

# even_slices DURATION REQUESTED: the --slices of bench.sh and writes/run.sh: one a second of DURATION when
# REQUESTED is 0, and an even number (unless 1) so that each server of a pair goes first as often.
even_slices() {
    local slices=$2
    ((slices > 0)) || slices=$(($1 + $1 % 2))
    ((slices == 1 || slices % 2 == 0)) || slices=$((slices + 1))
    echo "$slices"
}

# median_of "V1 V2 ...": the median of the numbers (the mean of the middle two of an even count); largest_of: the
# largest. How measure_pair and writes/run.sh sum up their slices' latency percentiles.
median_of() {
    tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
largest_of() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | tail -1; }

# use_server PID PORT NAME: makes that running server the current one (for warm_up, run_once, record_run).
use_server() { server_pid=$1 server_port=$2 server_name=$3; }

# measure_pair KEY LABEL CONNECTIONS SECONDS WRK_TIMEOUT MODE [ARGS...]: one round of a scenario with a ratio
# target, against two servers already running side by side (pair_subject and pair_reference, each "PID PORT NAME":
# ListServer and the baseline, or two baselines for "aa"). They take turns in `slices` slices of SECONDS/slices
# each, in the order A B B A A B B A ..., so that both meet the same minutes of a shared machine; each gets one
# row, KEY-NAME, with its totals: requests and CPU summed over its slices, p50 the median of its slices' p50, p99
# the worst of its slices' p99, "other" their mean.
#
# Why (issue 32): on this 2-core VM, the C baseline measured against itself in back-to-back 8 s runs (the old
# method, --slices 1) differed by up to 1.34x in CPU per request and 0.75x in req/s within one sitting, more than
# the targets allow ListServer; in 1 s slices taking turns, 0.97-1.03x and 0.95-1.05x (Benchmarks/HISTORY.md).
# The slow swings of a shared machine (a neighbour busy for ten seconds) fell on one server of a pair; now they
# fall on both. Scenario "aa" measures this floor in every sitting.
measure_pair() {
    local key=$1 label=$2 connections=$3 seconds=$4 wrk_timeout=$5
    shift 5
    local slice_seconds=$((seconds / slices)) side which k order
    ((slice_seconds >= 1)) || slice_seconds=1
    local -A requests=() ticks=() micros=() socket=() non2xx=() p50s=() p99s=() other=() wrk=() rss=()
    wait_for_quiet
    for ((k = 0; k < slices; k++)); do
        # A B, B A, A B, ...: a drift within the round weighs on both alike.
        if ((k % 2 == 0)); then order="subject reference"; else order="reference subject"; fi
        for side in $order; do
            if [[ $side == subject ]]; then which=$pair_subject; else which=$pair_reference; fi
            # shellcheck disable=SC2086 # "PID PORT NAME" splits on purpose
            use_server $which
            run_once "$key-$server_name.s$k" "$connections" "$slice_seconds" "$wrk_timeout" "$@"
            requests[$side]=$((${requests[$side]:-0} + run_requests))
            ticks[$side]=$((${ticks[$side]:-0} + run_ticks))
            micros[$side]=$(calc "${micros[$side]:-0} + $run_duration_us")
            socket[$side]=$((${socket[$side]:-0} + run_socket))
            non2xx[$side]=$((${non2xx[$side]:-0} + run_non2xx))
            p50s[$side]="${p50s[$side]:-} $run_p50"
            p99s[$side]="${p99s[$side]:-} $run_p99"
            other[$side]=$(calc "${other[$side]:-0} + $run_other")
            wrk[$side]=$(calc "${wrk[$side]:-0} + $run_wrk")
            rss[$side]=$run_rss
            cat "$out/$key-$server_name.s$k.perf.csv" >>"$out/$key-$server_name.perf.csv" 2>/dev/null || true
        done
    done
    for side in subject reference; do
        if [[ $side == subject ]]; then which=$pair_subject; else which=$pair_reference; fi
        # shellcheck disable=SC2086
        use_server $which
        local n=${requests[$side]} median worst line
        median=$(median_of "${p50s[$side]}")
        worst=$(largest_of "${p99s[$side]}")
        line=$(printf '%s\t' "$n" "$(calc "int($n / (${micros[$side]} / 1e6) + 0.5)")" "$median" "$worst" \
            "${socket[$side]}" "${non2xx[$side]}" "$(calc "sprintf(\"%.1f\", ${ticks[$side]} * 1e6 / 100 / $n)")" \
            "${rss[$side]}" "-" "$(calc "sprintf(\"%.0f\", ${wrk[$side]} / $slices)")" \
            "$(perf_per_request "$out/$key-$server_name.perf.csv" "$n")")
        record_run "$key-$server_name" "$label" "$connections" $((slice_seconds * slices)) "$line" \
            "$(calc "sprintf(\"%.0f\", ${other[$side]} / $slices)")"
    done
}

# Reads results.tsv back into the arrays write_table uses (for --report).
load_results() {
    local key label name loops connections seconds requests rps p50 p99 socket non2xx cpu rss efficiency rest
    while IFS=$'\t' read -r key label name loops connections seconds requests rps p50 p99 socket non2xx cpu rss \
        efficiency rest; do
        [[ $key == key ]] && continue
        RPS[$key]=$rps CPU[$key]=$cpu P99[$key]=$p99 RSS[$key]=$rss EFF[$key]=$efficiency
        ERRORS[$key]=$((socket + non2xx))
    done <"$out/results.tsv"
}

server_threads() { sed -n 's/.*-t\([0-9]*\)-.*/\1/p' <<<"$1"; }

# The hardware counters perf stat reads from the server during each measured run (issue 16): user instructions and
# cycles, kernel cycles, user branch misses, L1 data-cache load misses and context switches. Unlike req/s they
# barely move with the noise of a shared machine. perf_counters=0 (no perf, or counters not allowed) leaves them out.
perf_events="instructions:u,cycles:u,cycles:k,branch-misses:u,L1-dcache-load-misses,context-switches"
perf_counters=1
check_perf() {
    if ! command -v perf >/dev/null || ! perf stat -x, -e "$perf_events" -- true >/dev/null 2>&1; then
        log "perf stat is not available: the runs have no CPU counters"
        perf_counters=0
    elif perf stat -x, -e instructions:u -- true 2>&1 | grep -q 'not supported'; then
        # A virtual machine without a virtual PMU ("PMU not available due to virtualization" in dmesg): only the
        # software counters (context switches) are read; the hardware ones show as "-".
        log "perf stat: no hardware counters on this machine (no PMU); context switches only"
    fi
}

# perf_per_request FILE REQUESTS: the counters in perf stat's CSV FILE (summed over its runs) divided by REQUESTS, as
# "instructions_u cycles_u cycles_k branch_misses_u l1d_misses context_switches" (each "-" when not counted).
perf_per_request() {
    python3 - "$1" "$2" <<'EOF'
import sys
names = ["instructions:u", "cycles:u", "cycles:k", "branch-misses:u", "L1-dcache-load-misses", "context-switches"]
values, runs, counted = {}, {}, {}
try:
    for line in open(sys.argv[1]):
        fields = line.strip().split(",")
        if len(fields) > 2 and fields[2] in names:
            # Summed: measure_pair passes its slices' files one after the other. An event some slice did not count
            # is left out ("-"), not summed over the slices that did.
            runs[fields[2]] = runs.get(fields[2], 0) + 1
            if fields[0].replace(".", "", 1).isdigit():
                values[fields[2]] = values.get(fields[2], 0) + float(fields[0])
                counted[fields[2]] = counted.get(fields[2], 0) + 1
except OSError:
    pass
values = {name: value for name, value in values.items() if counted.get(name) == runs.get(name)}
requests = float(sys.argv[2])
out = []
for name in names:
    if name not in values:
        out.append("-")
    elif name == "context-switches":
        out.append(f"{values[name] / requests:.3f}")
    else:
        out.append(f"{values[name] / requests:.0f}")
print(" ".join(out))
EOF
}

# run_once FILE_KEY CONNECTIONS SECONDS WRK_TIMEOUT MODE [ARGS...]; sets run_line (tab-separated) and run_other.
run_once() {
    local name=$1 file="$out/$1.wrk.txt" connections=$2 seconds=$3 wrk_timeout=$4
    shift 4
    local ticks0 busy0 wrk0 start ticks1 busy1 wrk1 end perf_pid=""
    read_children_ticks
    ticks0=$(cpu_ticks "$server_pid") busy0=$(busy_ticks) wrk0=$children_ticks start=$(date +%s.%N)
    if ((perf_counters)); then
        # Counts the server (every thread) for as long as wrk runs.
        perf stat -x, -o "$out/$name.perf.csv" -e "$perf_events" -p "$server_pid" -- sleep "$seconds" \
            >/dev/null 2>&1 &
        perf_pid=$!
    fi
    timeout --kill-after=5 $((seconds + 30)) wrk -t2 -c"$connections" -d"${seconds}s" --timeout "${wrk_timeout}s" \
        -s "$lua" "http://127.0.0.1:$server_port" -- "$@" >"$file" 2>&1 || die "wrk failed: $(tail -3 "$file")"
    [[ -n $perf_pid ]] && { wait "$perf_pid" || true; }
    read_children_ticks
    ticks1=$(cpu_ticks "$server_pid") busy1=$(busy_ticks) wrk1=$children_ticks end=$(date +%s.%N)
    is_running "$server_pid" || die "$server_name died during $name: see its log in $out"

    local bench requests duration_us socket non2xx rate
    bench=$(grep '^BENCH ' "$file") || die "no BENCH line in $file"
    requests=$(bench_field "$bench" requests) duration_us=$(bench_field "$bench" duration_us)
    socket=$(($(bench_field "$bench" connect) + $(bench_field "$bench" read) + $(bench_field "$bench" write) + \
        $(bench_field "$bench" timeout)))
    non2xx=$(bench_field "$bench" status)
    rate=$(bench_field "$bench" window_rate)
    ((requests > 0)) || die "$server_name answered no requests in $name"
    local rps p50 p99 cpu rss efficiency="-"
    # The raw figures, for measure_pair's totals.
    run_requests=$requests run_ticks=$((ticks1 - ticks0)) run_duration_us=$duration_us run_socket=$socket
    run_non2xx=$non2xx
    rps=$(calc "int($requests / ($duration_us / 1e6) + 0.5)")
    p50=$(calc "$(bench_field "$bench" p50_us) / 1000")
    p99=$(calc "$(bench_field "$bench" p99_us) / 1000")
    cpu=$(calc "sprintf(\"%.1f\", ($ticks1 - $ticks0) * 1e6 / 100 / $requests)")
    rss=$(calc "sprintf(\"%.1f\", $(peak_rss_kb "$server_pid") / 1024)")
    run_p50=$p50 run_p99=$p99 run_rss=$rss
    if [[ $name == s3-* ]]; then
        efficiency=$(calc "sprintf(\"%.3f\", $rate < 0 ? -1 : $rate / $connections)")
    fi
    # Busy ticks of the whole machine not spent in the server or in wrk, per second: % of one core.
    run_other=$(calc "sprintf(\"%.0f\", max0((($busy1 - $busy0) - ($ticks1 - $ticks0) - ($wrk1 - $wrk0)) / ($end - $start)))")
    run_wrk=$(calc "sprintf(\"%.0f\", ($wrk1 - $wrk0) / ($end - $start))")
    local counters
    counters=$(perf_per_request "$out/$name.perf.csv" "$requests")
    run_line=$(printf '%s\t' "$requests" "$rps" "$p50" "$p99" "$socket" "$non2xx" "$cpu" "$rss" "$efficiency" "$run_wrk" \
        "$counters")
}

# ---------------------------------------------------------------- byte equality

# verify_same_bytes ITEM_COUNT URL...: ListServer and the baseline, started side by side, must answer every URL
# with the same status, body, Content-Type, X-Total-Count and Link; details are asked three times (a miss, a hit,
# a Cache-Control: no-cache miss) and must agree on X-Cache, with a well-formed Server-Timing on misses.
verify_same_bytes() {
    local count=$1 url
    shift
    start_server ListServer "$threads" "$count" 20
    local port_a=$server_port
    start_server baseline "$threads" "$count" 20
    local port_b=$server_port
    for url in "$@"; do
        if [[ $url == */detail ]]; then
            compare_url "$port_a" "$port_b" "$url" 1
            compare_url "$port_a" "$port_b" "$url" 2
            compare_url "$port_a" "$port_b" "$url" 3 -H "Cache-Control: no-cache"
        else
            compare_url "$port_a" "$port_b" "$url" 1
        fi
    done
    stop_server
    log "verify: ListServer and the baseline sent the same bytes for $# URLs of a $count-item catalog"
}

header_value() { { grep -i "^$2:" "$1" || true; } | head -1 | sed 's/^[^:]*: *//; s/\r$//'; }

# compare_url PORT_A PORT_B URL ATTEMPT [CURL ARGS...]
compare_url() {
    local port_a=$1 port_b=$2 url=$3 attempt=$4 side name a b
    shift 4
    local base
    base="$out/verify/$(tr -c 'A-Za-z0-9' '_' <<<"$url").$attempt"
    mkdir -p "$out/verify"
    for side in a b; do
        local port=$port_a
        [[ $side == b ]] && port=$port_b
        curl -s --max-time 10 -D "$base.$side.headers" -o "$base.$side.body" "$@" "http://127.0.0.1:$port$url" ||
            die "verify: cannot fetch $url from port $port"
    done
    a=$(head -1 "$base.a.headers" | cut -d' ' -f2) b=$(head -1 "$base.b.headers" | cut -d' ' -f2)
    [[ $a == 200 && $b == 200 ]] || die "verify: $url answered $a (ListServer) and $b (baseline), both should be 200"
    cmp -s "$base.a.body" "$base.b.body" ||
        die "verify: $url: the bodies differ (ListServer, baseline): $(head -c 300 "$base.a.body") ... $(head -c 300 "$base.b.body")"
    for name in Content-Type X-Total-Count Link X-Cache Vary; do
        a=$(header_value "$base.a.headers" "$name") b=$(header_value "$base.b.headers" "$name")
        [[ $a == "$b" ]] || die "verify: $url: $name is '$a' from ListServer and '$b' from the baseline"
    done
    for side in a b; do
        a=$(header_value "$base.$side.headers" Server-Timing)
        b=$(header_value "$base.$side.headers" X-Cache)
        if [[ $b == MISS ]]; then
            [[ $a =~ ^store\;dur=[0-9]+(\.[0-9])?$ ]] || die "verify: $url ($side): Server-Timing '$a' on a miss"
        elif [[ -n $a ]]; then
            die "verify: $url ($side): Server-Timing '$a' without a miss"
        fi
    done
    if [[ $url == */detail ]]; then
        local expected=MISS
        ((attempt == 2)) && expected=HIT
        [[ $(header_value "$base.a.headers" X-Cache) == "$expected" ]] ||
            die "verify: $url attempt $attempt: X-Cache should be $expected"
    fi
}

# ---------------------------------------------------------------- micro-benchmarks and the report

run_micro() {
    log "micro-benchmarks (ListBenchmarks${quick:+ --quick})"
    local arguments=()
    ((quick)) && arguments+=(--quick)
    "$(cd "$root" && swift build -c release --show-bin-path)/ListBenchmarks" ${arguments[@]+"${arguments[@]}"} \
        >"$out/micro.md" ||
        die "ListBenchmarks failed"
    cat "$out/micro.md" >&2
}

# write_table [doc]: the markdown report of this run; with "doc" the shorter one BENCHMARKS.md takes (the machine,
# the rounds side by side and the targets, the micro-benchmarks), without every run's row and counters.
write_table() {
    echo "#### Machine and command"
    echo
    cat "$out/machine.md"
    echo
    if [[ ${1:-} == doc ]]; then
        python3 "$root/Benchmarks/load/rounds.py" "$out/results.tsv"
        write_micro
        return
    fi
    echo "#### Every run"
    echo
    echo "| scenario | server | threads | conns | req/s | p50 ms | p99 ms | errors (socket / non-2xx) | CPU µs/req | peak RSS MB | efficiency | other CPU % |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $8, $9, $10, $11, $12, $13, $14, $15, $16 }' \
        "$out/results.tsv"
    echo
    echo "#### CPU counters per request (perf stat -p on the server while wrk runs)"
    echo
    echo "| scenario | server | threads | conns | instructions, user | cycles, user | cycles, kernel | IPC, user | branch misses, user | L1d misses | context switches |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' 'NR > 1 && NF >= 18 { split($18, c, " "); ipc = (c[1] != "-" && c[2] > 0) ? sprintf("%.2f", c[1] / c[2]) : "-"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, c[1], c[2], c[3], ipc, c[4], c[5], c[6] }' \
        "$out/results.tsv"
    echo
    python3 "$root/Benchmarks/load/rounds.py" "$out/results.tsv"
    write_micro
}

write_micro() {
    if [[ -s $out/micro.md ]]; then
        echo
        echo "#### Micro-benchmarks (ListBenchmarks, release)"
        echo
        cat "$out/micro.md"
    fi
}

# Puts the table into BENCHMARKS.md between "<!-- bench:results:begin -->" and "<!-- bench:results:end -->".
update_doc() {
    local doc="$root/BENCHMARKS.md"
    grep -q '<!-- bench:results:begin -->' "$doc" 2>/dev/null || die "--write-doc: no results markers in $doc"
    awk -v table="$1" '
        /<!-- bench:results:begin -->/ { print; while ((getline line < table) > 0) print line; skipping = 1; next }
        /<!-- bench:results:end -->/ { skipping = 0 }
        !skipping { print }' "$doc" >"$doc.new" && mv "$doc.new" "$doc"
    log "BENCHMARKS.md updated"
}
