#!/usr/bin/env bash
# Benchmarks/postgres/run.sh: the benchmarks of issue 15 (a PostgreSQL store shared by replicas), on 127.0.0.1
# only, side by side with pgbench on the same PostgreSQL.
#
#   Benchmarks/postgres/run.sh [--rounds N] [--duration S] [--clients "16 64"] [--subscribers N] [--posts N]
#                              [--only "writes fanout"] [--skip-build | --listserver PATH]
#
# Installs wrk, gcc, postgresql (and its pgbench) with apt when missing; builds ListServer as bench.sh does
# (release, Swift runtime linked statically, in .build/static) unless told not to, and
# Benchmarks/writes/fanout.c. Starts a throwaway PostgreSQL (scripts/lib/postgres.sh: Debian's server, a new
# cluster on the work tree's disk, fsync and synchronous_commit on, so every acknowledged write is durable).
# Results land in Benchmarks/results/<UTC time>-postgres/ (gitignored), the table in postgres.md.
#
# Steps:
#   writes  durable POST /items at each --clients count (wrk, one connection per client, writes.lua), for S
#           seconds (default 8), three ways taking turns each round (default 3 rounds, the order rotated):
#             one     one ListServer (2 loops) on the database;
#             three   three ListServers (1 loop each) on the same database, wrk split evenly over them (the
#                     clients / 3 connections each, three wrk processes at once; writes/s summed);
#             pgbench pgbench -c CLIENTS -j 2 on the same database running pgbench-writes.sql: per write what a
#                     POST commits (the list's row locked and advanced, the item row, the change row, a NOTIFY),
#                     one transaction each, as a server without group commit would.
#             grouped pgbench -c 2 -j 2 running pgbench-grouped.sql with g = CLIENTS: the same rows for CLIENTS
#                     writes per transaction, two committers taking turns: group commit by PostgreSQL alone, the
#                     most this machine's PostgreSQL takes in groups that large (writes/s = transactions/s x g).
#           The target (issue 15): ListServer >= 0.7x pgbench's writes/s, through one and through three replicas;
#           the report gives both pgbench scripts.
#           Checked after each ListServer run: every 201 is an id the database handed out (its list's next_id).
#   fanout  three replicas; fanout.c holds --subscribers (default 3000) event streams spread over the three,
#           POSTs --posts (default 100) times through the first, and times each 201 to the event at every
#           subscriber. Target: p99 of the last subscriber <= 100 ms.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/common.sh"
source "$root/scripts/lib/postgres.sh"
cd "$root"

rounds=3
duration=8
clients_list="16 64"
subscribers=3000
posts=100
only="writes fanout"
listserver=""
skip_build=false
while (($#)); do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        --clients) clients_list=$2; shift 2 ;;
        --subscribers) subscribers=$2; shift 2 ;;
        --posts) posts=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --skip-build) skip_build=true; shift ;;
        --listserver) listserver=$2; skip_build=true; shift 2 ;;
        *) die "usage: $0 [--rounds N] [--duration S] [--clients LIST] [--subscribers N] [--posts N] [--only STEPS] [--skip-build | --listserver PATH]" ;;
    esac
done
install_missing_packages "${build_packages[@]}" wrk gcc python3 postgresql postgresql-contrib
if [[ -z $listserver ]]; then
    $skip_build || swift build -c release --static-swift-stdlib --scratch-path .build/static --product ListServer
    listserver="$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer"
fi
[[ -x $listserver ]] || die "no ListServer at $listserver"
out="$root/Benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)-postgres"
mkdir -p "$out"
cc -O2 -Wall -Wextra -o "$out/fanout" Benchmarks/writes/fanout.c -lm
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
trap 'stop_launched; stop_postgres' EXIT
# On the work tree's disk, not tmpfs, where an fsync syncs nothing and "durable" would measure memory.
[[ $(stat -f -c %T "$out") != tmpfs ]] || die "$out is on tmpfs: the durable-write numbers would not be"
start_postgres lists "$out"
pgbench=$(postgres_bin)/pgbench
report="$out/postgres.md"
{
    echo "# PostgreSQL store, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD), $(nproc) cores"
    echo
    echo "Command: \`Benchmarks/postgres/run.sh --rounds $rounds --duration $duration --clients \"$clients_list\"" \
        "--subscribers $subscribers --posts $posts\`; PostgreSQL $("$(postgres_bin)/postgres" --version |
            awk '{print $3}'), fsync on, synchronous_commit on; load average at start" \
        "$(cut -d' ' -f1-3 /proc/loadavg)."
} >"$report"
field() { sed -n "s/.*\"$1\":\([-0-9.]*\).*/\1/p" <<<"$2"; }
psql_value() { psql -X -q -t -A -h 127.0.0.1 -p "$postgres_port" -U postgres -d lists -c "$1"; }

# fresh_database KEY: a new, empty database for one run (every way starts from the same empty tables: a list
# grown by earlier runs writes more slowly, on both sides); sets run_url. ListServer creates the tables.
fresh_database() {
    local name
    name="run_$(tr -c 'a-z0-9\n' '_' <<<"$1")"
    psql_value "CREATE DATABASE $name" >/dev/null
    run_url="postgres://postgres@127.0.0.1:$postgres_port/$name"
}

# replicas N THREADS: starts N ListServers on the database at run_url; sets replica_ports and replica_pids.
replicas() {
    replica_ports=() replica_pids=()
    for ((index = 0; index < $1; index++)); do
        launch_server "$out/replica-$index.log" 0 "$listserver" --threads "$2" --no-access-log \
            --data-url "$run_url" --max-dataset-bytes 17179869184 --max-memory-bytes 17179869184
        replica_ports+=("$launched_port") replica_pids+=("$launched_pid")
    done
}
stop_replicas() { for pid in "${replica_pids[@]}"; do stop_process "$pid" >/dev/null || true; done; }

# postgres_ticks: the CPU time of the whole PostgreSQL cluster in clock ticks: the postmaster's own and that of its
# children reaped so far (cutime, cstime: backends of connections that closed), plus its live children's.
postgres_ticks() {
    local postmaster line fields total child
    postmaster=$(head -1 "$postgres_folder/data/postmaster.pid")
    line=$(proc_stat "$postmaster")
    read -ra fields <<<"$line"
    total=$((fields[11] + fields[12] + fields[13] + fields[14]))
    for child in $(pgrep -P "$postmaster"); do total=$((total + $(cpu_ticks "$child" || echo 0))); done
    echo "$total"
}

# created_changes: the ids the default list has handed out (its header's next_id; the changes table is pruned to
# data.changes_kept, so counting its rows would not do), 10000 before the first write.
created_changes() {
    psql -X -q -t -A -d "$run_url" -c "SELECT coalesce(max(next_id), 10000) FROM lists WHERE name = ''::bytea"
}

# listserver_writes N CLIENTS KEY: N replicas, CLIENTS connections split over them; prints writes/s and p99 ms.
listserver_writes() {
    local count=$1 clients=$2 key=$3 threads=2 before after index pids=() s201=0 p99=0
    ((count > 1)) && threads=1
    fresh_database "$key"
    replicas "$count" "$threads"
    before=$(created_changes)
    local pg_before server_before=0 pid
    pg_before=$(postgres_ticks)
    for pid in "${replica_pids[@]}"; do server_before=$((server_before + $(cpu_ticks "$pid"))); done
    for ((index = 0; index < count; index++)); do
        wrk -t1 -c"$((clients / count))" -d"${duration}s" -s Benchmarks/writes/writes.lua \
            "http://127.0.0.1:${replica_ports[index]}" -- post >"$out/$key-$index.wrk" 2>&1 &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    local pg_after server_after=0
    pg_after=$(postgres_ticks)
    for pid in "${replica_pids[@]}"; do server_after=$((server_after + $(cpu_ticks "$pid"))); done
    sleep 0.5  # the writes still on the wire when wrk stopped
    after=$(created_changes)
    local writes=0 commits=0
    for ((index = 0; index < count; index++)); do
        curl -s --max-time 10 "http://127.0.0.1:${replica_ports[index]}/metrics" >"$out/$key-$index.metrics"
        writes=$((writes + $(awk '$1 == "listserver_store_commit_writes_total" {printf "%d", $2}' \
            "$out/$key-$index.metrics")))
        commits=$((commits + $(awk '$1 == "listserver_store_commit_duration_seconds_count" {printf "%d", $2}' \
            "$out/$key-$index.metrics")))
    done
    for ((index = 0; index < count; index++)); do
        local line
        line=$(grep '^BENCH' "$out/$key-$index.wrk") || { stop_replicas; die "$key: no BENCH line"; }
        s201=$((s201 + $(field s201 "$line")))
        p99=$(python3 -c "print(max($p99, $(field p99_us "$line") / 1000))")
        (($(field other "$line") == 0)) || { stop_replicas; die "$key: non-201 answers: $line"; }
    done
    stop_replicas
    # Every 201 is a committed row; a few more may have committed with their answers still on the wire.
    ((after - before >= s201 && after - before <= s201 + clients)) ||
        die "$key: $s201 201s but $((after - before)) created changes in the database"
    python3 -c "
ticks = $(getconf CLK_TCK)
print(f'{$s201 / $duration:.0f} {$p99:.1f} {$writes / max($commits, 1):.1f}',
      f'{($server_after - $server_before) / ticks * 1e6 / $s201:.1f} {($pg_after - $pg_before) / ticks * 1e6 / $s201:.1f}')"
}

# pgbench_writes CLIENTS KEY [GROUP]: pgbench running pgbench-writes.sql, or with GROUP pgbench-grouped.sql (two
# clients, GROUP writes a transaction); prints writes/s and p99 ms of a transaction (from its log).
pgbench_writes() {
    local clients=$1 key=$2 group=${3:-1} script=pgbench-writes.sql
    ((group > 1)) && script=pgbench-grouped.sql clients=2
    fresh_database "$key"
    replicas 1 1  # ListServer's tables, made as a server makes them
    stop_replicas
    psql -X -q -d "$run_url" -c "INSERT INTO lists VALUES ('pgbench'::bytea, 1, 10000, 1, 10000, 0)" >/dev/null
    local pg_before pg_after
    pg_before=$(postgres_ticks)
    (cd "$out" && "$pgbench" -n -c "$clients" -j 2 -T "$duration" -D g="$group" \
        -f "$root/Benchmarks/postgres/$script" -l --log-prefix="$key" "$run_url" >"$key.pgbench" 2>&1) ||
        die "$key: pgbench failed: $(tail -3 "$out/$key.pgbench")"
    sleep 1  # pgbench's backends exit when it does: their time counts once the postmaster has reaped them
    pg_after=$(postgres_ticks)
    local tps p99
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$out/$key.pgbench" | tail -1)
    tps=$(python3 -c "print($tps * $group)")
    p99=$(cat "$out/$key".[0-9]* 2>/dev/null | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {print a[int(NR*0.99)]/1000}')
    rm -f "$out/$key".[0-9]*
    python3 -c "print(f'{$tps:.0f} {$p99:.1f} -', f'- {($pg_after - $pg_before) / $(getconf CLK_TCK) * 1e6 / ($tps * $duration):.1f}')"
}

if [[ " $only " == *" writes "* ]]; then
    {
        echo
        echo "## Durable writes/s: ListServer through one and three replicas, and pgbench, on one PostgreSQL"
        echo
        echo "p99 is of a request for ListServer and of a transaction for pgbench (one write, or g = clients writes);"
        echo "group: ListServer's average writes per commit (/metrics)."
        echo
        echo "| clients | round | one replica writes/s | p99 ms | group | three replicas writes/s | p99 ms | group | pgbench, a write a transaction | p99 ms | pgbench, g a transaction | p99 ms | one ÷ pgbench | three ÷ pgbench | one ÷ g | three ÷ g |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    } >>"$report"
    for clients in $clients_list; do
        for ((round = 1; round <= rounds; round++)); do
            declare -A result=()
            order=(one three pgbench grouped)
            for ((turn = 0; turn < (round - 1) % 4; turn++)); do order=("${order[@]:1}" "${order[0]}"); done
            for way in "${order[@]}"; do
                key="writes-c$clients-r$round-$way"
                case $way in
                    one) result[$way]=$(listserver_writes 1 "$clients" "$key") ;;
                    three) result[$way]=$(listserver_writes 3 "$clients" "$key") ;;
                    pgbench) result[$way]=$(pgbench_writes "$clients" "$key") ;;
                    grouped) result[$way]=$(pgbench_writes "$clients" "$key" "$clients") ;;
                esac
                log "$key: ${result[$way]} (writes/s, p99 ms, ListServer's average group, its CPU µs/write, PostgreSQL's)"
            done
            read -r one one_p99 one_group one_cpu one_pg <<<"${result[one]}"
            read -r three three_p99 three_group three_cpu three_pg <<<"${result[three]}"
            read -r bench bench_p99 _ _ bench_pg <<<"${result[pgbench]}"
            read -r grouped grouped_p99 _ _ grouped_pg <<<"${result[grouped]}"
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$clients" "$round" "$one_cpu" "$one_pg" \
                "$three_cpu" "$three_pg" "$bench_pg" "$grouped_pg" "$(cut -d' ' -f1 /proc/loadavg)" >>"$out/cpu.md"
            echo "| $clients | $round | $one | $one_p99 | $one_group | $three | $three_p99 | $three_group | $bench |" \
                "$bench_p99 | $grouped |" \
                "$grouped_p99 | $(python3 -c "print(f'{$one / $bench:.2f} | {$three / $bench:.2f} | '
                    f'{$one / $grouped:.2f} | {$three / $grouped:.2f}')") |" >>"$report"
        done
    done
fi

if [[ -f $out/cpu.md ]]; then
    {
        echo
        echo "CPU µs per write (utime + stime over the run ÷ writes; PostgreSQL: the whole cluster, backends included):"
        echo
        echo "| clients | round | one replica: ListServer | PostgreSQL | three replicas: ListServers | PostgreSQL | pgbench, a write a transaction: PostgreSQL | g a transaction: PostgreSQL | load after |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        cat "$out/cpu.md"
    } >>"$report"
fi

if [[ " $only " == *" fanout "* ]]; then
    fresh_database fanout
    replicas 3 1
    ports=$(IFS=,; echo "${replica_ports[*]}")
    "$out/fanout" --port "${replica_ports[0]}" --pid "${replica_pids[0]}" --subscribers "$subscribers" \
        --posts "$posts" --subscriber-ports "$ports" --out "$out/fanout.json" | tee "$out/fanout.txt"
    stop_replicas
    python3 - "$out/fanout.json" "$subscribers" "$posts" >>"$report" <<'EOF'
import json, sys
result = json.load(open(sys.argv[1]))
def get(*names):
    for name in names:
        if name in result:
            return result[name]
    return "?"
print()
print(f"## Cross-replica fan-out: {sys.argv[2]} subscribers over three replicas, {sys.argv[3]} POSTs through the first")
print()
print("| | p50 ms | p99 ms | max ms |")
print("|---|---:|---:|---:|")
for label, key in (("first subscriber", "first"), ("median subscriber", "median"), ("last subscriber", "last")):
    print(f"| 201 → event, {label} | {get(key + '_p50_ms')} | {get(key + '_p99_ms')} | {get(key + '_max_ms')} |")
print()
print(f"Missed events {get('missed_events')}, duplicates {get('duplicate_events')}, "
      f"dropped subscribers {get('dropped_subscribers')}. Target: last subscriber p99 <= 100 ms.")
EOF
fi
cat "$report"
