# shellcheck shell=bash
# What cost.sh and together.sh share: the servers' flags (scenario 1's), the profile of every field they give
# dataset `full`, and how it is set. Sourced after scripts/lib/common.sh.

# setup_profile_bench NAME SLICES: what both scripts start with, from the repository's root: the load script,
# BIN, ROUNDS (5), SLICE (1 s), SLICES (the default given), OUT (a new /tmp/listserver-profile-NAME.* unless set),
# the clock's ticks a second, wrk and curl installed, and every server launched stopped on exit.
# shellcheck disable=SC2034 # the variables are the calling script's
setup_profile_bench() {
    cd "$root"
    load_lua=Benchmarks/load/load.lua
    BIN=${BIN:-.build/static/x86_64-unknown-linux-gnu/release/ListServer}
    ROUNDS=${ROUNDS:-5}
    SLICE=${SLICE:-1}
    SLICES=${SLICES:-$2}
    OUT=${OUT:-$(mktemp -d "/tmp/listserver-profile-$1.XXXXXX")}
    mkdir -p "$OUT"
    ticks=$(getconf CLK_TCK)
    install_missing_packages wrk curl
    trap stop_launched EXIT
}

# Scenario 1's flags: 2 loops, 10,000 items, seed 42, no access log, no store.
# shellcheck disable=SC2034 # used by the scripts that source this
profile_flags=(--threads 2 --seed 42 --item-count 10000 --latency-min-ms 1000 --latency-max-ms 1000
    --cache-capacity 100000 --default-limit 20 --max-limit 100 --no-access-log --data-path :memory:)

# Every field, set so that requests still pass: an outage of 1 ms every day, started before the run; a script step
# that matches nothing; faults at rate 0; latency 0; 1 Gbps; a rate limit of a million a second; auth, with a token
# every request carries.
every_field_profile='{"outage":{"for_ms":1,"every_ms":86400000},
  "script":[{"match":{"query":{"never":"1"}},"respond":{"status":503},"times":1000000}],
  "faults":{"rate":0,"kinds":"503"},
  "latency":{"list":{"fixed_ms":0},"detail":{"fixed_ms":0},"image":{"fixed_ms":0}},
  "bandwidth":{"kbps":1000000},
  "rate_limit":{"requests":1000000,"per_s":1},
  "auth":{"token_ttl_s":86400}}'

# set_every_field_profile PORT: gives dataset `full` of the server on PORT the profile, checks that a request with
# the token it issues passes, and sets `profile_token` to that token.
set_every_field_profile() {
    local base="http://127.0.0.1:$1" status
    curl -sf -X PUT -H 'Content-Type: application/json' -d "$every_field_profile" \
        "$base/admin/datasets/full/profile" >/dev/null || die "the profile was not set"
    profile_token=$(curl -sf -X POST -H 'X-Dataset: full' -d '{}' "$base/auth/token" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
    sleep 0.1 # past the outage's millisecond
    status=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Dataset: full' -H "Authorization: Bearer $profile_token" \
        "$base/items")
    [[ $status == 200 ]] || die "a request to the profiled dataset answered $status"
}

# ---------------------------------------------------------------- pinned pairs (journal/cost.sh, compression/pages.sh)

# setup_pinned_pairs: PIN (default 1): both servers' threads on CPU 0 and both loads on CPU 1 (`server_cpu`,
# `load_cpu`); the tables `pid`, `port` and `load_fields` (a side's extra wrk argument, `-H "Name: value"`, if any).
# Unpinned, six busy threads on two CPUs were shared out differently each second: single slices of two identical
# servers differed by up to 1.6x, rounds of ten by up to 6 %; pinned, 0.97-1.01 (journal/cost.sh).
setup_pinned_pairs() {
    PIN=${PIN:-1}
    server_cpu=() load_cpu=()
    if [[ $PIN == 1 ]]; then
        (($(nproc) >= 2)) || die "PIN=1 needs two CPUs"
        server_cpu=(taskset -a -pc 0) load_cpu=(taskset -c 1)
    fi
    declare -gA pid port load_fields load_script load_args
}

# start_pinned NAME BINARY FLAGS...: a server of BINARY with scenario 1's flags and FLAGS, pinned with the others.
start_pinned() {
    local name=$1 binary=$2
    shift 2
    launch_server "$OUT/$name.log" 0 "$binary" "${profile_flags[@]}" "$@"
    pid[$name]=$launched_pid
    port[$name]=$launched_port
    if ((${#server_cpu[@]})); then "${server_cpu[@]}" "$launched_pid" >/dev/null; fi
}

# pinned_slice ROUND A B [FIRST]: both loads at once (`wrk -t1 -c32 -d${SLICE}s` with scenario 1's pages, and the
# side's `load_fields`), FIRST's (A's unless B) started first; appends "round side cpu_us requests" per server to
# $OUT/results.tsv, A's line first.
pinned_slice() {
    local round=$1 side requests loads=() order=("$2" "$3") fields
    [[ ${4:-$2} == "$3" ]] && order=("$3" "$2")
    declare -A before
    for side in "$2" "$3"; do before[$side]=$(cpu_ticks "${pid[$side]}"); done
    for side in "${order[@]}"; do
        fields=()
        [[ -n ${load_fields[$side]:-} ]] && fields=(-H "${load_fields[$side]}")
        "${load_cpu[@]}" wrk -t1 -c32 -d"${SLICE}s" "${fields[@]}" -s "$load_lua" "http://127.0.0.1:${port[$side]}/" \
            -- pages 500 >"$OUT/$side-$round.wrk" &
        loads+=($!)
    done
    wait "${loads[@]}" # the two loads, not the servers
    for side in "$2" "$3"; do
        requests=$(awk '/requests in/ { print $1 }' "$OUT/$side-$round.wrk")
        grep -q 'Non-2xx' "$OUT/$side-$round.wrk" && die "$side: wrk saw errors (see $OUT/$side-$round.wrk)"
        awk -v r="$round" -v n="$side" -v t=$(($(cpu_ticks "${pid[$side]}") - before[$side])) -v hz="$ticks" \
            -v q="$requests" 'BEGIN { printf "%s\t%s\t%.3f\t%d\n", r, n, t / hz * 1e6 / q, q }' >>"$OUT/results.tsv"
    done
}

# pinned_rounds A B LABEL: ROUNDS rounds of SLICES slices of A and B together (which starts first alternating),
# after one not counted, and a line per round: CPU µs a request of each, and A ÷ B.
pinned_rounds() {
    local a=$1 b=$2 label=$3 round pass
    pinned_slice 0 "$a" "$b" # warm-up, not counted
    : >"$OUT/results.tsv"
    for ((round = 1; round <= ROUNDS; round++)); do
        for ((pass = 0; pass < SLICES; pass++)); do
            if ((pass % 2)); then pinned_slice "$round" "$a" "$b" "$b"; else pinned_slice "$round" "$a" "$b"; fi
        done
    done
    awk -F'\t' -v a="$a" -v b="$b" -v label="$label" '{ cpu_us[$1, $2] += $3 * $4; requests[$1, $2] += $4 }
      END {
        printf "%s\n%-6s %10s %10s %8s %12s\n", label, "round", a " us", b " us", "ratio", "requests"
        for (r = 1; (r SUBSEP a) in cpu_us; r++) {
          x = cpu_us[r, a] / requests[r, a]; y = cpu_us[r, b] / requests[r, b]
          printf "%-6d %10.3f %10.3f %8.3f %12d\n", r, x, y, x / y, requests[r, a] + requests[r, b]
        }
      }' "$OUT/results.tsv" | tee -a "$OUT/summary.txt"
    cp "$OUT/results.tsv" "$OUT/results-$a-$b.tsv"
}

# ---------------------------------------------------------------- servers loaded at a pace (journal/cost.sh)

# thread_ns PID: a line "TID NS" for each of PID's threads, NS the CPU time it has used in nanoseconds: the
# scheduler's own count (/proc/PID/task/TID/schedstat), where /proc/PID/stat's is in ticks of 10 ms. A thread that ends
# while this reads is left out.
thread_ns() {
    local task
    for task in /proc/"$1"/task/*; do
        [[ -r $task/schedstat ]] && { read -r ns _ <"$task/schedstat" && echo "${task##*/} $ns"; } 2>/dev/null
    done
    return 0
}

# cpu_delta BEFORE AFTER: the CPU nanoseconds PID's threads used between two thread_ns snapshots (files): each
# thread's growth, a thread that started since counted from 0. A thread that ended in between is not counted (a
# server's loops and workers live as long as it does; a task's thread that comes and goes is lost for the round).
cpu_delta() {
    awk 'NR == FNR { before[$1] = $2; next } { sum += $2 - ($1 in before ? before[$1] : 0) }
      END { printf "%.0f\n", sum }' "$1" "$2"
}

# paced_rounds BASE OTHER...: ROUNDS rounds in which every server named is loaded at once for DURATION seconds with
# scenario 1's pages at a pace (`wrk -t1 -c$CONNECTIONS` on the load CPU, each connection waiting PAUSE ms after each
# answer: Benchmarks/load/load.lua's "paced" mode), after one round not counted; which load starts first turns from
# round to round. A line per round: each server's CPU µs a request, and each OTHER ÷ BASE. A side with an entry in
# `load_script` (and `load_args`, its words after `--`) is loaded with that instead (Benchmarks/chat/pages.sh).
#
# Why at a pace: loaded to their capacity, servers sharing a CPU serve more requests per wake-up the more they wait
# for it, so their CPU a request moved with the share each got (two identical servers: 0.98-1.06 apart by round, in
# pinned_rounds). At a pace below their capacity, each serves the same requests at the same times whatever the others
# do, and two identical servers measured 0.986-1.019 apart by round in four sittings (2026-12-01).
paced_rounds() {
    local round side sides=("$@") order loads load requests script args
    : >"$OUT/results.tsv"
    for ((round = 0; round <= ROUNDS; round++)); do
        order=("${sides[@]:round % ${#sides[@]}}" "${sides[@]:0:round % ${#sides[@]}}")
        for side in "${sides[@]}"; do thread_ns "${pid[$side]}" >"$OUT/$side.before"; done
        loads=()
        for side in "${order[@]}"; do
            script=${load_script[$side]:-$load_lua}
            read -r -a args <<<"${load_args[$side]:-paced 500 $PAUSE}"
            "${load_cpu[@]}" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$script" \
                "http://127.0.0.1:${port[$side]}/" -- "${args[@]}" >"$OUT/$side-$round.wrk" &
            loads+=($!)
        done
        for load in "${loads[@]}"; do wait "$load" || die "a wrk failed (see $OUT/*-$round.wrk)"; done
        for side in "${sides[@]}"; do
            thread_ns "${pid[$side]}" >"$OUT/$side.after"
            requests=$(awk '/requests in/ { print $1 }' "$OUT/$side-$round.wrk")
            [[ $requests =~ ^[0-9]+$ ]] && ((requests > 0)) || die "$side: wrk counted no requests ($OUT/$side-$round.wrk)"
            grep -q 'Non-2xx' "$OUT/$side-$round.wrk" && die "$side: wrk saw errors (see $OUT/$side-$round.wrk)"
            ((round > 0)) && printf '%s\t%s\t%s\t%s\n' "$round" "$side" \
                "$(cpu_delta "$OUT/$side.before" "$OUT/$side.after")" "$requests" >>"$OUT/results.tsv"
        done
    done
    awk -F'\t' -v sides="${sides[*]}" '{ ns[$1, $2] = $3; requests[$1, $2] = $4 }
      END {
        n = split(sides, side, " ")
        printf "%-6s", "round"; for (i = 1; i <= n; i++) printf " %10s", side[i] " us"
        for (i = 2; i <= n; i++) printf " %12s", side[i] "/" side[1]
        printf " %10s\n", "requests"
        for (r = 1; ((r, side[1]) in ns); r++) {
          printf "%-6d", r; total = 0
          for (i = 1; i <= n; i++) { us[i] = ns[r, side[i]] / 1e3 / requests[r, side[i]]; printf " %10.3f", us[i]; total += requests[r, side[i]] }
          for (i = 2; i <= n; i++) printf " %12.3f", us[i] / us[1]
          printf " %10d\n", total
        }
      }' "$OUT/results.tsv" | tee -a "$OUT/summary.txt"
    cp "$OUT/results.tsv" "$OUT/results-paced.tsv"
}
