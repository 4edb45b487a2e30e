#!/usr/bin/env bash
# Crash test of the SQLite store: acknowledged writes survive `kill -9`, unacknowledged ones are all or nothing.
#
#   scripts/crash-test.sh [rounds]          (default 20; then one more with --data-synchronous normal, and two
#                                            ended by SIGTERM instead of SIGKILL)
#
# One data file in a temporary folder, kept across all rounds, so the state grows from round to round. A round:
# - 32 clients (Python threads, one kept-alive connection each) POST, PATCH and DELETE as fast as they can, each
#   only on the items it created, so what the list must hold is known exactly. Every PATCH sets the label and two
#   other fields at once (and sometimes returns fields to their generated value with `null`), so a half-applied
#   patch shows; about 30 % of the writes carry an Idempotency-Key, and some are retried at once (the same answer,
#   `Idempotent-Replayed: true`, no second write). A quarter of the clients write to the dataset `crash-b`.
# - 0.3 to 2 s in, the server gets SIGKILL. `PRAGMA integrity_check` on the file (opened read-only, straight after
#   the kill, WAL and all) must say ok. In about a third of the rounds the server is then started and killed again
#   0-80 ms later, while it opens the file, and the file checked again.
# - The server restarts on the same file, and:
#   - the write each client had in flight is applied in full or not at all: an item as acknowledged or as patched,
#     never a mix; a POST created one item with its label or none. With an Idempotency-Key it is retried: a replay
#     exactly when it was committed (a committed DELETE whose key is forgotten answers 404 and fails);
#   - every live item of the list (cursor pages from the first created id) is exactly the acknowledged one,
#     acknowledged deletions answer 404, no other item is there, no label is on two items, no id is issued twice
#     and every new id is above the ids seen before the round (deleted ones included);
#   - GET /items/<id> of every item written in the round gives its content and the ETag its last write answered;
#   - keyed writes from earlier rounds still replay their first answer (the records outlive restarts);
#   - the change feed since the round began holds each client's writes, once each, in the client's order;
#   - the number of live rows in the file right after the kill equals what the restarted server lists;
#   - a fresh POST gets an id above every id seen so far.
# - Beside them, 4 chat clients each send (with an Idempotency-Key), edit and delete messages of a conversation of
#   the dataset `crash-chat` and set their read marker (scripts/crash_chat.py): after the restart the conversation
#   has exactly the acknowledged messages, each with its last acknowledged text or as a tombstone, no id twice, and
#   the unanswered write applied in full or not at all.
# The SIGTERM rounds check the same, and that the server exits 0 under load and that a write it refused with 503
# shutting-down while draining was not applied. At the end the server must exit 0 on SIGTERM and the file must
# pass integrity_check again.
#
# Bounded: each round is 0.3-2 s of load plus the checks (about 2 s in all; 23 rounds took 45 s); the rounds stop at CRASH_TEST_DEADLINE
# seconds (default 240; stopping early is a failure), the whole helper is killed after that plus 60 s. Prints a line
# per round and PASSED, or FAILED with every failed check, and exits 1 on any failure. Traffic goes to 127.0.0.1.
#
# Environment: CRASH_TEST_BINARY (a ListServer already built; default: build the release one), CRASH_TEST_SEED
# (repeats a run's random choices: the kill moments and the clients' writes; the timing still differs),
# CRASH_TEST_DEADLINE, CRASH_TEST_KEEP=1 (keep the temporary folder with the file and the server logs).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

rounds=${1:-20}
[[ $rounds =~ ^[0-9]+$ && $rounds -ge 1 && $rounds -le 200 ]] || {
    echo "usage: scripts/crash-test.sh [rounds, 1-200]" >&2
    exit 64
}
deadline=${CRASH_TEST_DEADLINE:-240}

WORK=$(mktemp -d /tmp/crash-test.XXXXXX)
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    local status=$? pid
    # The helper stops its server itself; this is for a helper that was killed (timeout, Ctrl-C).
    if [[ -f $WORK/server.pid ]]; then
        pid=$(<"$WORK/server.pid")
        if is_running "$pid" && [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$(readlink -f "$binary")" ]]; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    if [[ $status -ne 0 ]]; then
        for log in "$WORK"/server-*.log; do [[ -f $log ]] && { echo "--- $log (end)"; tail -5 "$log"; }; done
        echo "crash-test: FAILED" >&2
    fi
    if [[ ${CRASH_TEST_KEEP:-0} == 1 ]]; then echo "crash-test: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
binary=/nonexistent
trap cleanup EXIT

extra_packages=()
command -v python3 >/dev/null || extra_packages=(python3)
install_missing_packages "${build_packages[@]}" libsqlite3-dev "${extra_packages[@]}"
python3 -c 'import sqlite3' || die "python3 has no sqlite3 module (Debian: python3 ships it)"

if [[ -n ${CRASH_TEST_BINARY:-} ]]; then
    binary=$CRASH_TEST_BINARY
    [[ -x $binary ]] || die "$binary is not an executable"
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
help=$("$binary" --help 2>&1) || true
for flag in --data-path --data-synchronous --threads --latency-min-ms --latency-max-ms --item-count \
    --image-latency-min-ms --image-latency-max-ms; do
    grep -q -- "$flag" <<<"$help" || die "$binary --help does not list $flag: this test needs it"
done

seed_args=()
[[ -n ${CRASH_TEST_SEED:-} ]] && seed_args=(--seed "$CRASH_TEST_SEED")
timeout $((deadline + 60)) python3 scripts/crash_test.py --binary "$binary" --workdir "$WORK" --rounds "$rounds" \
    --deadline "$deadline" ${seed_args[@]+"${seed_args[@]}"}
