#!/usr/bin/env bash
# Datasets by the ten thousand against a release ListServer on an SQLite file (scripts/dataset_test.py):
#   - 10,000 datasets of one write each (after 500 to warm up): the server's RSS grows by at most 2 KiB each;
#   - a restart on that file answers its first page within 1 s of its start, with an RSS within 2 MB of a server
#     started on an empty file (datasets are read on first use, not at start);
#   - at data.max_datasets a write to a new dataset is 507 dataset-limit, to an old one 201;
#   - with data.dataset_ttl_s 2, every dataset but one read all along expires, durably;
#   - 40 datasets filled to data.max_dataset_bytes (4 MiB; 507 dataset-full past it) with data.max_memory_bytes
#     16 MiB: one holds at most twice what it counts, all of them grow what the server holds by at most 32 MiB
#     (about 90 MiB without the budget), and each reads back whole.
# Bounded: about two minutes once built. Usage: scripts/dataset-test.sh   (DATASET_TEST_BINARY=path skips
# the build)
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

work=$(mktemp -d /tmp/dataset-test.XXXXXX)
cleanup() {
    local status=$?
    stop_launched
    if ((status != 0)); then
        for log in "$work"/*.log; do [[ -f $log ]] && { echo "--- $log"; tail -5 "$log"; }; done
        echo "dataset-test: FAILED" >&2
    fi
    rm -rf "$work"
}
trap cleanup EXIT

install_missing_packages "${build_packages[@]}" python3
if [[ -n ${DATASET_TEST_BINARY:-} ]]; then
    binary=$DATASET_TEST_BINARY
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
common=(--no-access-log --threads 2 --data-synchronous normal)
count=10000
warmup=500

# start_and_answer NAME FILE [FLAG...]: starts a server on FILE, waits for its first page, and sets `rss` (KiB
# then) and `first_ms` (from the start to that answer).
start_and_answer() {
    local name=$1 file=$2 started
    shift 2
    launched_pids=()
    started=$(date +%s%N)
    launch_server "$work/$name.log" 0 "$binary" --data-path "$file" "${common[@]}" "$@"
    rss=$(timeout 30 python3 scripts/dataset_test.py first "$launched_port" "$launched_pid" | sed -n 's/^rss=//p')
    first_ms=$((($(date +%s%N) - started) / 1000000 - 200))  # less the 0.2 s the script waits before reading RSS
}

launched_pids=()
launch_server "$work/create.log" 0 "$binary" --data-path "$work/lists.sqlite" "${common[@]}" --max-datasets 20000
timeout 300 python3 scripts/dataset_test.py create "$launched_port" "$launched_pid" "$count" "$warmup"
stop_launched

start_and_answer empty "$work/empty.sqlite"
empty_rss=$rss
stop_launched
start_and_answer restart "$work/lists.sqlite" --max-datasets $((count + warmup))
echo "dataset_test: restart: $((count + warmup)) datasets on disk: first page ${first_ms} ms after the start;" \
    "RSS ${rss} KiB against ${empty_rss} KiB on an empty file ($((rss - empty_rss)) KiB more)"
((first_ms < 1000)) || die "the first answer came ${first_ms} ms after the start"
((rss - empty_rss <= 2048)) || die "the restart's RSS is $((rss - empty_rss)) KiB above an empty file's"
timeout 30 python3 scripts/dataset_test.py cap "$launched_port"
stop_launched

start_and_answer expiry "$work/lists.sqlite" --dataset-ttl-s 2
timeout 120 python3 scripts/dataset_test.py expiry "$launched_port" run-7 90
stop_launched
start_and_answer after "$work/lists.sqlite"
timeout 30 python3 - "$launched_port" <<'PY'
import json, sys, urllib.request
listed = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/admin/datasets"))
assert [d["name"] for d in listed["datasets"]] == ["run-7"], listed
print("dataset_test: after a restart only run-7 is left: the expiry was durable")
PY
stop_launched

launch_server "$work/memory.log" 0 "$binary" --data-path "$work/memory.sqlite" "${common[@]}" \
    --max-dataset-bytes 4194304 --max-memory-bytes 16777216
timeout 300 python3 scripts/dataset_test.py memory "$launched_port" "$launched_pid" 40 16777216
echo "dataset-test: PASSED"
