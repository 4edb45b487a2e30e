#!/usr/bin/env bash
# Benchmarks/images/run.sh: the benchmarks of issue 13 (photos), on 127.0.0.1 only, side by side with C programs.
#
#   Benchmarks/images/run.sh [--rounds N] [--duration S] [--skip-build | --listserver PATH]
#
# Installs wrk, curl, gcc and the codecs' -dev packages with apt when missing; builds ListServer as bench.sh does
# (release, Swift runtime static, in .build/static) unless told not to, Benchmarks/images/encode-loop.c and the C
# evhttp baseline. Results land in Benchmarks/results/<UTC time>-images/ (gitignored), the table in images.md.
#
# Steps, each ROUNDS times (default 3) with the two sides taking turns:
#   encode  CPU per generated 600x400 JPEG. ListServer with one loop, one image worker, no image cache and no image
#           latency answers GET /items/<random id of 10000>/image?w=600&h=400 to wrk (2 connections, S seconds,
#           default 8): each answer draws and encodes an image; its CPU (utime + stime from /proc) / answers.
#           encode-loop.c encodes the pixels of 100 of those images (fetched as PNG, so exactly ListServer's) with
#           the same TurboJPEG settings for S seconds: CPU / encodes. Target (issue 13): ratio <= 1.15. Also
#           encode-loop --planes, the same encodes from 4:2:0 planes made beforehand (no colour conversion in the
#           loop, as ListServer encodes what it draws as planes), and ListServer's ratio to that.
#   hits    cached image hits: ListServer (2 loops, defaults but no image latency) and the C baseline (2 loops,
#           --image-file with the very bytes ListServer serves) under wrk -c64 on /items/42/image?w=600&h=400.
#           Target: ListServer >= 0.8x the baseline's requests/s.
#   storm   the page p99 during an image-miss storm: ListServer (defaults but no image latency) serves pages to
#           wrk -c8 for S seconds alone, then again while another wrk -c16 asks for 3840x2160 images of random ids
#           (misses, the workers busy, the queue full now and then: 503s are counted). Peak RSS (VmHWM) after.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/common.sh"
cd "$root"

rounds=3
duration=8
listserver=""
skip_build=false
while (($#)); do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        --skip-build) skip_build=true; shift ;;
        --listserver) listserver=$2; skip_build=true; shift 2 ;;
        *) die "usage: $0 [--rounds N] [--duration S] [--skip-build | --listserver PATH]" ;;
    esac
done
install_missing_packages "${build_packages[@]}" wrk curl gcc python3
if [[ -z $listserver ]]; then
    $skip_build || swift build -c release --static-swift-stdlib --scratch-path .build/static --product ListServer
    listserver="$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer"
fi
[[ -x $listserver ]] || die "no ListServer at $listserver"
out="$root/Benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)-images"
mkdir -p "$out/pixels"
cc -O2 -Wall -Wextra -o "$out/encode-loop" Benchmarks/images/encode-loop.c -lturbojpeg -lspng
cc -O2 -Wall -Wextra -o "$out/evhttp-baseline" Benchmarks/baseline/evhttp-baseline.c -levent_core -levent_extra -lpthread
trap stop_launched EXIT
lua=Benchmarks/load/load.lua
field() { sed -n "s/.*\"$1\":\([-0-9.]*\).*/\1/p" <<<"$2"; }
ticks_per_second=$(getconf CLK_TCK)
report="$out/images.md"
{
    echo "# Images, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD), $(nproc) cores"
    echo
    echo "Command: \`Benchmarks/images/run.sh --rounds $rounds --duration $duration\`"
} >"$report"

# ---- encode: ListServer's CPU per generated 600x400 JPEG against encode-loop.c on the same pixels
launch_server "$out/encode.log" 0 "$listserver" --threads 1 --image-workers 1 --image-cache-bytes 0 \
    --image-latency-distribution none --no-access-log --data-path :memory:
encode_pid=$launched_pid
encode_port=$launched_port
for id in $(seq 0 99); do
    curl -fs -o "$out/pixels/$id.png" "http://127.0.0.1:$encode_port/items/$id/image.png?w=600&h=400"
done
{
    echo
    echo "## CPU per generated 600x400 JPEG"
    echo
    echo "| round | ListServer answers | ListServer CPU µs/image | C encodes | C CPU µs/encode | ratio | C from planes µs/encode | ratio to it |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
} >>"$report"
ratios=()
for ((round = 1; round <= rounds; round++)); do
    measure_listserver() {
        local before after line
        before=$(cpu_ticks "$encode_pid")
        line=$(wrk -t1 -c2 -d"${duration}s" -s "$lua" "http://127.0.0.1:$encode_port" -- images 10000 "w=600&h=400" |
            grep '^BENCH')
        after=$(cpu_ticks "$encode_pid")
        ls_requests=$(field requests "$line")
        ls_us=$(python3 -c "print(f'{($after - $before) / $ticks_per_second * 1e6 / $ls_requests:.1f}')")
    }
    measure_c() {
        local line
        line=$("$out/encode-loop" "$duration" "$out"/pixels/*.png)
        c_encodes=$(awk '{print $2}' <<<"$line")
        c_us=$(awk '{print $6}' <<<"$line")
        line=$("$out/encode-loop" --planes "$duration" "$out"/pixels/*.png)
        c_planes_us=$(awk '{print $6}' <<<"$line")
    }
    if ((round % 2)); then measure_listserver; measure_c; else measure_c; measure_listserver; fi
    ratio=$(python3 -c "print(f'{$ls_us / $c_us:.2f}')")
    planes_ratio=$(python3 -c "print(f'{$ls_us / $c_planes_us:.2f}')")
    ratios+=("$ratio")
    echo "| $round | $ls_requests | $ls_us | $c_encodes | $c_us | $ratio | $c_planes_us | $planes_ratio |" >>"$report"
    log "encode round $round: ListServer $ls_us µs/image, C $c_us µs/encode, ratio $ratio"
done
stop_process "$encode_pid" >/dev/null || true
echo >>"$report"
echo "Median ratio: $(printf '%s\n' "${ratios[@]}" | sort -n | sed -n "$(((rounds + 1) / 2))p") (target <= 1.15)" >>"$report"

# ---- hits: cached image hits, ListServer against the C baseline serving the same bytes
launch_server "$out/hits.log" 0 "$listserver" --threads 2 --image-latency-distribution none --no-access-log \
    --data-path :memory:
hits_pid=$launched_pid
hits_port=$launched_port
path="/items/42/image?w=600&h=400"
curl -fs -o "$out/hit.jpg" "http://127.0.0.1:$hits_port$path"
launch_server "$out/baseline.log" 0 "$out/evhttp-baseline" --threads 2 --image-file "$out/hit.jpg"
baseline_pid=$launched_pid
baseline_port=$launched_port
cmp -s "$out/hit.jpg" <(curl -fs "http://127.0.0.1:$baseline_port$path") || die "the baseline serves other bytes"
{
    echo
    echo "## Cached image hits (600x400 JPEG, $(stat -c %s "$out/hit.jpg") bytes), wrk -t2 -c64"
    echo
    echo "| round | ListServer req/s | p99 ms | CPU µs/req | C baseline req/s | p99 ms | CPU µs/req | ratio (req/s) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
} >>"$report"
ratios=()
for ((round = 1; round <= rounds; round++)); do
    # run_hits PORT PID: wrk's BENCH line, then the server's CPU µs per answer.
    run_hits() {
        local before after line
        before=$(cpu_ticks "$2")
        line=$(wrk -t2 -c64 -d"${duration}s" -s "$lua" "http://127.0.0.1:$1" -- path "$path" | grep '^BENCH')
        after=$(cpu_ticks "$2")
        echo "$line"
        python3 -c "print(f'{($after - $before) / $ticks_per_second * 1e6 / $(field requests "$line"):.1f}')"
    }
    if ((round % 2)); then ls_out=$(run_hits "$hits_port" "$hits_pid"); c_out=$(run_hits "$baseline_port" "$baseline_pid")
    else c_out=$(run_hits "$baseline_port" "$baseline_pid"); ls_out=$(run_hits "$hits_port" "$hits_pid"); fi
    ls_line=$(head -1 <<<"$ls_out"); ls_cpu=$(tail -1 <<<"$ls_out")
    c_line=$(head -1 <<<"$c_out"); c_cpu=$(tail -1 <<<"$c_out")
    ls_rate=$(python3 -c "print(round($(field requests "$ls_line") / ($(field duration_us "$ls_line") / 1e6)))")
    c_rate=$(python3 -c "print(round($(field requests "$c_line") / ($(field duration_us "$c_line") / 1e6)))")
    ratio=$(python3 -c "print(f'{$ls_rate / $c_rate:.2f}')")
    ratios+=("$ratio")
    echo "| $round | $ls_rate | $(python3 -c "print($(field p99_us "$ls_line") / 1000)") | $ls_cpu | $c_rate |" \
        "$(python3 -c "print($(field p99_us "$c_line") / 1000)") | $c_cpu | $ratio |" >>"$report"
    log "hits round $round: ListServer $ls_rate/s ($ls_cpu µs CPU), C $c_rate/s ($c_cpu µs CPU), ratio $ratio"
done
stop_process "$hits_pid" >/dev/null || true
stop_process "$baseline_pid" >/dev/null || true
echo >>"$report"
echo "Median ratio: $(printf '%s\n' "${ratios[@]}" | sort -n | sed -n "$(((rounds + 1) / 2))p") (target >= 0.8)" >>"$report"

# ---- storm: the page p99 with and without 4K image misses
launch_server "$out/storm.log" 0 "$listserver" --threads 2 --image-latency-distribution none --no-access-log \
    --data-path :memory:
storm_pid=$launched_pid
storm_port=$launched_port
{
    echo
    echo "## Page p99 during an image-miss storm (pages: wrk -t1 -c8; storm: wrk -t1 -c16 on 3840x2160 misses)"
    echo
    echo "| round | pages alone req/s | p99 ms | pages in the storm req/s | p99 ms | storm answers | storm 503s |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
} >>"$report"
for ((round = 1; round <= rounds; round++)); do
    alone=$(wrk -t1 -c8 -d"${duration}s" -s "$lua" "http://127.0.0.1:$storm_port" -- pages 500 | grep '^BENCH')
    wrk -t1 -c16 -d"$((duration + 2))s" -s "$lua" "http://127.0.0.1:$storm_port" -- images 10000 "w=3840&h=2160" \
        >"$out/storm-$round.txt" &
    storm_wrk=$!
    sleep 1
    during=$(wrk -t1 -c8 -d"${duration}s" -s "$lua" "http://127.0.0.1:$storm_port" -- pages 500 | grep '^BENCH')
    wait "$storm_wrk"
    storm=$(grep '^BENCH' "$out/storm-$round.txt")
    rate() { python3 -c "print(round($(field requests "$1") / ($(field duration_us "$1") / 1e6)))"; }
    echo "| $round | $(rate "$alone") | $(python3 -c "print($(field p99_us "$alone") / 1000)") | $(rate "$during") |" \
        "$(python3 -c "print($(field p99_us "$during") / 1000)") | $(field requests "$storm") |" \
        "$(field status "$storm") |" >>"$report"
done
rss=$(awk '/^VmHWM/ { print $2 }' "/proc/$storm_pid/status")
stop_process "$storm_pid" >/dev/null || true
{
    echo
    echo "Peak RSS of the storm server (VmHWM): $((rss / 1024)) MiB (image.cache_bytes 64 MiB)."
} >>"$report"
cat "$report"
