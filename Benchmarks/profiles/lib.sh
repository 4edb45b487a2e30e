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
