# ListServer: built with the official Swift image, run on Debian slim with only the runtime libraries of libevent,
# libpq, SQLite, the image codecs (libjpeg-turbo's TurboJPEG, libspng, libwebp) and xxHash.
#
#   docker build -t listserver .
#   docker run --rm -p 8080:8080 listserver
#   docker run --rm -p 8080:8080 -e LISTSERVER_SEED=7 listserver --threads 2
#
# The default configuration is /etc/listserver/listserver.json (a copy of config/listserver.json, named by
# LISTSERVER_CONFIG); every key can be overridden by its LISTSERVER_* variable or a flag after the image name
# (flag > environment > file > default). Mount your own file over it to change several keys at once.
# scripts/docker-check.sh builds and checks this file unchanged with podman (README, "Docker").

# ---- build: a stripped release binary with the Swift standard library and FoundationEssentials linked statically ----
FROM swift:6.3-bookworm AS build

# libevent's, jemalloc's, libpq's, SQLite's, the image codecs', xxHash's and the compressors' headers and pkg-config
# files (the CEvent, CJemalloc, CPostgres, CSQLite, CTurboJPEG, CSpng, CWebP, CXXHash, CDeflate, CZstd, CZlib,
# CNettle and CWslay system library targets); apt versions
# follow the base image's Debian release, so they are not pinned (a pinned version disappears from the mirror at the
# next point release).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-dev libjemalloc-dev libpq-dev libsqlite3-dev \
        libturbojpeg0-dev libspng-dev libwebp-dev libxxhash-dev libdeflate-dev libzstd-dev zlib1g-dev nettle-dev \
        libwslay-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# Dependencies first: this layer is reused until Package.swift changes.
COPY Package.swift ./
RUN swift package resolve

# SwiftPM checks that every target's folder exists (the test targets', the micro-benchmarks' and the fuzzer's too),
# even to build one product.
COPY Sources ./Sources
COPY Tests ./Tests
COPY Benchmarks/Micro ./Benchmarks/Micro
COPY Fuzz/Harness ./Fuzz/Harness
# -Xlinker -s: no symbol table or debug info in the binary (a third of its size; crash backtraces show addresses).
RUN swift build -c release --static-swift-stdlib -Xlinker -s --product ListServer \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib -Xlinker -s --show-bin-path)/ListServer" \
        /out/ListServer

# ---- runtime files: the binary and exactly the shared libraries it loads, gathered on Debian slim ----
# (what `ldd ListServer` lists: libc, libstdc++, libevent, jemalloc, SQLite, the codecs, xxHash; and libpq with what
# it needs)
FROM debian:bookworm-slim AS runtime-files
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-core-2.1-7 libevent-extra-2.1-7 libjemalloc2 libpq5 \
        libsqlite3-0 libturbojpeg0 libspng0 libwebp7 libxxhash0 libdeflate0 libzstd1 zlib1g libnettle8 libwslay1 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ListServer /rootfs/usr/local/bin/ListServer
# Each library the loader would load, under its own path (links followed), plus the loader itself, and libpq with
# what it needs (the server loads libpq with dlopen when data.url names PostgreSQL, so ldd does not list it); an
# account file that names uid and gid 10001; /data for the volume and /tmp for SQLite's temporary files.
RUN set -eu; \
    libpq=$(dpkg -L libpq5 | grep '/libpq\.so\.5$'); \
    { echo "$libpq"; ldd /rootfs/usr/local/bin/ListServer "$libpq"; } \
        | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $1 !~ /:$/ {print $1}' | sort -u \
        | while read -r library; do cp --parents -L "$library" /rootfs/; done; \
    if ldd /rootfs/usr/local/bin/ListServer "$libpq" | grep 'not found'; then exit 1; fi; \
    mkdir -p /rootfs/etc /rootfs/tmp /rootfs/data; \
    chmod 1777 /rootfs/tmp; chown 10001:10001 /rootfs/data; chmod 0750 /rootfs/data; \
    echo 'listserver:x:10001:10001:ListServer:/nonexistent:/usr/sbin/nologin' >/rootfs/etc/passwd; \
    echo 'listserver:x:10001:' >/rootfs/etc/group; \
    printf 'passwd: files\ngroup: files\nhosts: files dns\n' >/rootfs/etc/nsswitch.conf

# ---- runtime: nothing but those files (no shell, no package manager: a smaller image with less in it to patch) ----
FROM scratch
COPY --from=runtime-files /rootfs/ /
COPY config/listserver.json /etc/listserver/listserver.json
ENV LISTSERVER_CONFIG=/etc/listserver/listserver.json
# Writes are kept in SQLite on a volume: `docker run -v listserver-data:/data …` keeps them across containers.
ENV LISTSERVER_DATA_PATH=/data/listserver.sqlite
VOLUME /data

USER 10001:10001
EXPOSE 8080

# The binary's own probe (no curl in the image): GET /healthz on 127.0.0.1:<configured port>, exit 0 on 200 in 2 s.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/ListServer", "--health-check"]

# PID 1 is the server itself (exec form, no shell): SIGTERM makes it stop accepting, finish requests in flight
# (up to 8 s, within Docker's default 10 s stop timeout) and exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/ListServer"]
