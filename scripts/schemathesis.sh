#!/usr/bin/env bash
# Runs schemathesis (every check) against a release ListServer on 127.0.0.1, bounded in time, and fails on any
# finding. Installs schemathesis with pip when missing. Traffic goes to 127.0.0.1 only.
#
#   scripts/schemathesis.sh [max-examples]      (default 100 per operation)
#
# Environment: SCHEMATHESIS_TIMEOUT (seconds for the whole run, default 900), SCHEMATHESIS_SEED (for a
# reproducible run), SCHEMATHESIS_REPORT_DIR (the JUnit report and schemathesis' cache, default .build/schemathesis),
# SCHEMATHESIS_BINARY (a ListServer already built, e.g. .build/debug/ListServer; default: build the release one).
# The server runs with a 0-5 ms store latency: details are otherwise 0.5-2 s each.
#
# What is left out of the spec schemathesis sees, and why:
# - The control parameters `fail`, `fail_rate`, `fail_first` and `delay_ms`: they make the server fail, reset or
#   hang on purpose (`fail=hang` holds a connection 10 s, `delay_ms` up to 30 s), which the checks would report
#   as findings; the Swift tests cover them. Every other parameter, header and status is still exercised.
# - `POST /admin/reset` (operationId resetServer): it changes the catalog (a new seed, a new version, every ETag)
#   under the other operations' feet, mid-run. Its OPTIONS is still tested.
# - `GET /items/events` (streamEvents): an event stream never ends, so no response to check arrives.
# - The long-poll's `wait_ms`: a valid one holds the answer up to events.max_wait_ms (30 s), past the 5 s response
#   time limit. `/items/changes` is still checked without it (the Swift tests cover the wait).
# - The writes (createItem, updateItem, deleteItem), for now. Their first run here found a real bug, since fixed:
#   a body on HEAD or TRACE, which evhttp does not read, was taken for the next request on the connection (an
#   HTML 400; the connection guard drops such a body now). With them included, two things still fail the run and
#   are open: schemathesis itself stops with an internal error while generating their data (a SystemError from
#   hypothesis describing a filter lambda, "AST constructor recursion depth mismatch", under Python 3.11), and it
#   warns that PATCH and DELETE /items/{id} mostly answer 4xx (random ids are rarely live items; fail-on-warnings
#   makes that a failure). Meanwhile the writes are covered by the Swift tests (RouterWriteTests,
#   EndToEndWriteTests, the OpenAPI conformance cases), the fuzzer, the crash test and scripts/sse-test.sh.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

max_examples=${1:-100}
overall_timeout=${SCHEMATHESIS_TIMEOUT:-900}
report_dir=${SCHEMATHESIS_REPORT_DIR:-.build/schemathesis}

if ! python3 -c 'import schemathesis' 2>/dev/null; then
    echo "schemathesis.sh: installing schemathesis with pip" >&2
    python3 -m pip install --quiet 'schemathesis>=4.32,<5'
fi
schemathesis_cli=(python3 -m schemathesis.cli)
"${schemathesis_cli[@]}" --version >/dev/null

if [[ -n ${SCHEMATHESIS_BINARY:-} ]]; then
    binary=$SCHEMATHESIS_BINARY
    [[ -x $binary ]] || die "$binary is not an executable"
else
    swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi

log=$(mktemp)
server_pid=
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    stop_launched
    rm -f "$log" "${config:-}" "${spec:-}"
}
trap cleanup EXIT

launch_server "$log" 0 "$binary" --threads 2 --latency-min-ms 0 --latency-max-ms 5 --data-path :memory:
server_pid=$launched_pid port=$launched_port
echo "schemathesis.sh: ListServer (pid $server_pid) on 127.0.0.1:$port; $max_examples examples per operation" >&2

# Configuration, written next to the log so the script stays one file:
# - Undeclared methods probed: those the server knows. It answers 405 with `Allow: GET, HEAD, OPTIONS` (`POST,
#   OPTIONS` on /admin/reset) for these, and 501
#   (problem+json, the `NotImplemented` response) for methods it does not know, such as the draft `QUERY`, which
#   schemathesis would otherwise probe and expect 405 for (its `st explain ST204` recommends exactly this list).
# - Every warning schemathesis can raise (e.g. a schema it cannot generate data for) fails the run.
# - GET and HEAD /items: `page` with `after` or `before`, and `after` with `before`, are 400 (the operation's
#   description says so); parameter schemas cannot express that, so those schema-valid combinations may be 400.
# - OPTIONS /items/{id}, /items/{id}/detail and /admin/datasets/{name} take the GET's (DELETE's) parameter for
#   documentation, but do not check it (any non-empty segment gets the 204, as their descriptions say): only
#   schema-valid data there.
config=$(mktemp --suffix=.toml)
cat >"$config" <<'TOML'
[warnings]
fail-on = true

[phases.coverage]
unexpected-methods = ["get", "put", "post", "delete", "options", "patch", "trace"]

[[operations]]
include-operation-id = ["listItems", "headItems"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]
include-operation-id = ["optionsItem", "optionsItemDetail", "optionsDataset"]
generation.mode = "positive"

# The change feed: a schema-valid `since` past the list's last change is 410 (reload), as documented.
[[operations]]
include-operation-id = ["listChanges", "headChanges"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "410"]
TOML

seed_args=()
[[ -n ${SCHEMATHESIS_SEED:-} ]] && seed_args=(--seed "$SCHEMATHESIS_SEED")
mkdir -p "$report_dir"
report_dir=$(cd "$report_dir" && pwd)
# The spec without the control parameters (see the top of this file), as JSON.
spec=$(mktemp --suffix=.json)
python3 - openapi.yaml "$spec" <<'PYTHON'
import json
import sys

import yaml

CONTROL = {f"#/components/parameters/{name}" for name in ("DelayMs", "Fail", "FailRate", "FailFirst", "WaitMs")}
with open(sys.argv[1], encoding="utf-8") as source:
    document = yaml.safe_load(source)
removed = 0
for path_item in document["paths"].values():
    for operation in path_item.values():
        if not isinstance(operation, dict) or "parameters" not in operation:
            continue
        kept = [parameter for parameter in operation["parameters"] if parameter.get("$ref") not in CONTROL]
        removed += len(operation["parameters"]) - len(kept)
        operation["parameters"] = kept
if removed == 0:
    sys.exit("schemathesis.sh: openapi.yaml has no control parameters to leave out; update this script")
with open(sys.argv[2], "w", encoding="utf-8") as target:
    json.dump(document, target)
PYTHON
status=0
# Run from the report directory: schemathesis keeps a cache (.schemathesis/) in its working directory.
(cd "$report_dir" && timeout --signal=INT --kill-after=30 "$overall_timeout" \
    "${schemathesis_cli[@]}" --config-file "$config" run "$spec" \
    --url "http://127.0.0.1:$port" \
    --exclude-operation-id resetServer \
    --exclude-operation-id streamEvents \
    --exclude-operation-id createItem \
    --exclude-operation-id updateItem \
    --exclude-operation-id deleteItem \
    --checks all \
    --max-examples "$max_examples" \
    --request-timeout 10 \
    --max-response-time 5 \
    --workers 2 \
    --report junit --report-junit-path junit.xml \
    "${seed_args[@]}") || status=$?
if [[ $status -eq 124 ]]; then
    echo "schemathesis.sh: schemathesis did not finish within ${overall_timeout} s" >&2
fi

if ! is_running "$server_pid"; then
    echo "schemathesis.sh: the server died during the run; its log:" >&2
    cat "$log" >&2
    exit 1
fi
server_status=0
stop_process "$server_pid" || server_status=$?
server_pid=
if [[ $server_status -ne 0 ]]; then
    echo "schemathesis.sh: the server exited with status $server_status after SIGTERM; its log:" >&2
    cat "$log" >&2
    exit 1
fi
[[ $status -eq 0 ]] && echo "schemathesis.sh: no findings" >&2
exit "$status"
