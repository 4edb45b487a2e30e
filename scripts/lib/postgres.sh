# shellcheck shell=bash
# A throwaway PostgreSQL for tests and benchmarks: sourced, never run (after scripts/lib/common.sh).
#
#   source "$root/scripts/lib/postgres.sh"
#   start_postgres          # sets postgres_url, postgres_port, postgres_folder; stops at exit via stop_postgres
#
# Debian's `postgresql` package (installed when missing), a new cluster in a temporary folder (initdb, trust
# authentication on 127.0.0.1 only, fsync on: the store's durability is what is tested), started with pg_ctl on a
# free port. PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user the package
# creates; the folder is removed when it stops.

if [[ -n ${listserver_postgres_sourced:-} ]]; then return 0; fi
listserver_postgres_sourced=1

postgres_url=""
postgres_port=""
postgres_folder=""

# The folder of initdb and pg_ctl (Debian keeps them out of PATH, under the major version).
postgres_bin() {
    local folder
    folder=$(find /usr/lib/postgresql -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -1)
    [[ -n $folder ]] || die "no PostgreSQL server binaries under /usr/lib/postgresql"
    printf '%s\n' "$folder"
}

# as_postgres_owner COMMAND...: runs COMMAND as the cluster's owner (postgres when we are root).
as_postgres_owner() {
    if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_postgres [DATABASE [PARENT]]: a new cluster with DATABASE (default lists) on a free port of 127.0.0.1, in
# a new folder under PARENT (default /tmp; a benchmark passes a folder on a real disk, since on tmpfs an fsync
# syncs nothing); sets postgres_url (postgres://postgres@127.0.0.1:PORT/DATABASE), and stops and removes it when
# the script exits (after any EXIT trap already set, which still sees the script's status). Bounded: 60 s to start.
start_postgres() {
    local database=${1:-lists} parent=${2:-/tmp} bin existing
    install_missing_packages postgresql postgresql-client python3
    bin=$(postgres_bin)
    postgres_folder=$(mktemp -d "$parent/listserver-postgres.XXXXXX")
    existing=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
    # shellcheck disable=SC2064 # expanded now, on purpose: the trap that was set before this one
    trap "${existing:-:}; stop_postgres" EXIT
    chmod 755 "$postgres_folder"
    if ((EUID == 0)); then chown postgres: "$postgres_folder"; fi
    postgres_port=$(free_port)
    as_postgres_owner "$bin/initdb" -D "$postgres_folder/data" -U postgres -A trust -E UTF8 --no-locale \
        >"$postgres_folder/initdb.log" 2>&1 || { cat "$postgres_folder/initdb.log" >&2; die "initdb failed"; }
    # In the cluster's own configuration, so that a plain `pg_ctl start` after a stop (the scale-out test's
    # outage) comes back the same. The socket goes in the folder too (Debian's default, /var/run/postgresql, may
    # not exist or be writable).
    printf '%s\n' "port = $postgres_port" "listen_addresses = '127.0.0.1'" \
        "unix_socket_directories = '$postgres_folder'" "max_connections = 200" >>"$postgres_folder/data/postgresql.conf"
    as_postgres_owner "$bin/pg_ctl" -D "$postgres_folder/data" -l "$postgres_folder/server.log" -w -t 60 start \
        >/dev/null || { cat "$postgres_folder/server.log" >&2; die "PostgreSQL did not start"; }
    "$bin/psql" -X -q -h 127.0.0.1 -p "$postgres_port" -U postgres -d postgres -c "CREATE DATABASE $database" \
        >/dev/null
    postgres_url="postgres://postgres@127.0.0.1:$postgres_port/$database"
    log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$postgres_port ($postgres_folder)"
}

# stop_postgres: stops the cluster start_postgres made (fast shutdown) and removes its folder.
stop_postgres() {
    [[ -n $postgres_folder && -d $postgres_folder ]] || return 0
    as_postgres_owner "$(postgres_bin)/pg_ctl" -D "$postgres_folder/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    rm -rf "$postgres_folder"
    postgres_folder=""
}
