# shellcheck shell=bash
# What the scripts under scripts/ and Benchmarks/ share: sourced, never run.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"                   (a script in scripts/)
#   source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"     (a script in Benchmarks/<folder>/)
#
# Sets `root` (the repository's top folder) and `script_name` (the running script's file name, for messages), and
# defines:
#   log, die                        messages on standard error (and in $log_file when the script sets one)
#   install_missing_packages        apt-get install of the Debian packages that are not installed
#   build_baseline                  the one way to compile the C evhttp baseline
#   launch_server, stop_process, stop_launched
#                                   a server on 127.0.0.1, its port read from its log; SIGTERM, then SIGKILL
#   is_running, cpu_ticks           a process's state and CPU time from /proc/PID/stat
#   wait_until, wait_for_url, free_port
# Needs bash 5.1 or later (wait -n -p), as on Debian 12.

if [[ -n ${listserver_common_sourced:-} ]]; then return 0; fi
listserver_common_sourced=1

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
script_name=$(basename "$0")
launched_pids=()
# The Debian packages ListServer builds against (scripts/install-deps.sh installs them).
# shellcheck disable=SC2034 # read by the scripts that source this file
build_packages=(libevent-dev libjemalloc-dev libpq-dev libsqlite3-dev libturbojpeg0-dev libspng-dev libwebp-dev
    libxxhash-dev libdeflate-dev libzstd-dev zlib1g-dev nettle-dev libwslay-dev pkg-config)

# ---------------------------------------------------------------- messages

# log MESSAGE...: one line on standard error; also appended to $log_file when the script has set it.
log() {
    printf '%s\n' "$*" >&2
    if [[ -n ${log_file:-} ]]; then printf '%s\n' "$*" >>"$log_file"; fi
}

# die MESSAGE...: logs "<script>: MESSAGE" and exits 1.
die() {
    log "$script_name: $*"
    exit 1
}

# ---------------------------------------------------------------- packages and builds

# install_missing_packages PACKAGE...: installs with apt-get (through sudo unless root) the Debian packages that
# dpkg does not list as installed, and says which; does nothing when all are there. Bounded: 10 minutes.
install_missing_packages() {
    local package missing=() sudo=()
    for package in "$@"; do
        [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null) == "install ok installed" ]] ||
            missing+=("$package")
    done
    if ((${#missing[@]} == 0)); then return 0; fi
    log "installing: ${missing[*]}"
    ((EUID == 0)) || sudo=(sudo)
    timeout 300 "${sudo[@]}" apt-get update -qq
    timeout 600 "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# build_baseline OUTPUT [SOURCE]: compiles the C evhttp baseline (SOURCE defaults to this tree's
# Benchmarks/baseline/evhttp-baseline.c) as the benchmarks measure it: cc -O2, every warning an error, linked with
# libevent_core and libevent_extra (evhttp lives in extra), as ListServer is. Not -levent: that is libevent-2.1.so,
# core and extra in one library, another shared object than the one ListServer runs on (and, in a process that
# also links event_core, a second copy of the core).
build_baseline() {
    local output=$1 source=${2:-$root/Benchmarks/baseline/evhttp-baseline.c}
    cc -O2 -Wall -Wextra -Werror -o "$output" -x c "$source" -x none -levent_core -levent_extra -lpthread
}

# ---------------------------------------------------------------- processes

# proc_stat PID: the fields of /proc/PID/stat after the command name. The name is in parentheses and may itself
# hold spaces and ")", so fields are counted from the last ") ": proc(5)'s field 3 (state) is the first here,
# field 14 (utime) the 12th and field 15 (stime) the 13th. Fails when there is no such process.
proc_stat() {
    local stat
    { stat=$(<"/proc/$1/stat"); } 2>/dev/null || return 1
    printf '%s\n' "${stat##*) }"
}

# is_running PID: whether PID is alive (a zombie, which kill -0 still finds, is not).
is_running() {
    local fields
    fields=$(proc_stat "$1") || return 1
    [[ ${fields%% *} != [ZX] ]]
}

# cpu_ticks PID: the CPU time PID has used, user + system, all threads, in clock ticks (getconf CLK_TCK a second).
cpu_ticks() {
    local line fields
    line=$(proc_stat "$1") || return 1
    read -ra fields <<<"$line"
    echo $((fields[11] + fields[12]))
}

# port_in_log LOG: the port of the first "listening on HOST:PORT" line of LOG (text or JSON log lines, IPv4 or
# IPv6 host), or nothing.
port_in_log() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p;T;q' "$1"; }

# launch_server LOG PORT BINARY [FLAG...]: starts `BINARY --host 127.0.0.1 --port PORT FLAG...` in the background
# with both output streams to LOG (PORT 0: the kernel picks one), and waits up to 10 s for its "listening on
# HOST:PORT" line, which ListServer logs once it accepts connections and the C baseline once all its threads do.
# Sets launched_pid and launched_port and adds the pid to launched_pids. Dies, with the end of LOG, if the server
# exits or says nothing. Call it in the script's own shell, not in $(...): the server must be this shell's child.
launch_server() {
    local log=$1 port=$2 binary=$3 attempt
    shift 3
    : >"$log" # exists before the child opens it: the first look below may come first
    "$binary" --host 127.0.0.1 --port "$port" "$@" >"$log" 2>&1 &
    launched_pid=$!
    launched_pids+=("$launched_pid")
    launched_port=""
    for ((attempt = 0; attempt < 200; attempt++)); do
        launched_port=$(port_in_log "$log")
        [[ -n $launched_port ]] && return 0
        is_running "$launched_pid" ||
            die "$(basename "$binary") exited at start; the end of its log:"$'\n'"$(tail -n 10 "$log")"
        sleep 0.05
    done
    die "$(basename "$binary") did not say 'listening on' within 10 s; the end of its log:"$'\n'"$(tail -n 10 "$log")"
}

# stop_process PID [GRACE]: SIGTERM, up to GRACE seconds (default 15) to exit, then SIGKILL; reaps PID (a child of
# this shell) and returns its exit status, at once when it exits. Removes PID from launched_pids.
stop_process() {
    local pid=$1 grace=${2:-15} sleeper first="" status=0 kept=() other
    kill -TERM "$pid" 2>/dev/null || true
    sleep "$grace" &
    sleeper=$!
    wait -n -p first "$pid" "$sleeper" 2>/dev/null || status=$?
    if [[ $first == "$sleeper" ]]; then
        log "$pid did not stop within $grace s: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        status=0
        wait "$pid" 2>/dev/null || status=$?
    else
        # SIGKILL: the sleeper may still be this shell's fork, not yet sleep, and SIGTERM would run its EXIT trap.
        kill -KILL "$sleeper" 2>/dev/null || true
        wait "$sleeper" 2>/dev/null || true
    fi
    for other in ${launched_pids[@]+"${launched_pids[@]}"}; do [[ $other == "$pid" ]] || kept+=("$other"); done
    launched_pids=(${kept[@]+"${kept[@]}"})
    return "$status"
}

# stop_launched: stops every server launch_server started and nobody has stopped yet (for an EXIT trap).
stop_launched() {
    local pid
    for pid in ${launched_pids[@]+"${launched_pids[@]}"}; do stop_process "$pid" || true; done
}

# ---------------------------------------------------------------- waiting

# wait_until SECONDS COMMAND [ARG...]: runs COMMAND every 0.1 s until it succeeds, for up to SECONDS (a whole
# number); returns the status of the last try.
wait_until() {
    local tries=$(($1 * 10)) i
    shift
    for ((i = 0; i < tries; i++)); do
        "$@" && return 0
        sleep 0.1
    done
    "$@"
}

# wait_for_url URL [SECONDS]: waits (default 10 s) until URL answers a 2xx.
wait_for_url() { wait_until "${2:-10}" curl -fs --max-time 2 -o /dev/null "$1"; }

# free_port: a TCP port on 127.0.0.1 that nothing listens on right now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
