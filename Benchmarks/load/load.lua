-- wrk script for scripts/bench.sh: request generators and a machine-readable report.
--
--   wrk ... -s Benchmarks/load/load.lua <url> -- <mode> [argument...]
--
-- Modes (every request list is drawn once per wrk thread from a fixed seed, so runs are reproducible):
--   pages N       GET /items?page=<uniform 1..N>&limit=20
--   details N     GET /items/<uniform 0..N-1>/detail                (scenario 2: warmed ids)
--   slow N        the same with Cache-Control: no-cache              (scenario 3: every request waits the store)
--   path P        GET P, always the same
--   images N Q    GET /items/<uniform 0..N-1>/image?Q                (Benchmarks/images: image misses)
--   paced N MS    the pages of "pages N", each connection waiting MS milliseconds after each answer
--                 (Benchmarks/journal/cost.sh: servers loaded below their capacity, at the same pace)
--
-- done() prints one line, "BENCH {json}": wrk's counters and latency percentiles (microseconds), and in "slow"
-- mode the data for the Little's-law efficiency (the third argument is then the connections per wrk thread).
--
-- Efficiency, measured after the first second: every connection is a closed loop (send, wait about 1 s, send
-- again), and they all start together, so answers arrive in waves about one cycle apart. Counting answers in a
-- fixed time window would be off by up to a whole wave (10 % of a 10 s run) depending on where the window ends.
-- Instead each wrk thread notes the time at which its k-th wave is complete (its answer count reaches
-- k x its connections) and its rate is (k_last - 1) waves x connections / (t(k_last) - t(1)): answers per second
-- between the end of the first cycle (the first second) and the end of the last complete one, a window that
-- holds whole cycles only. Efficiency = the sum over threads / (connections / 1 s). A connection that stalls or
-- fails delays the count and lowers it, as it should.

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *now);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("bench_timespec")

local function now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) * 1e-9
end

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("thread_number", counter)
  table.insert(threads, thread)
end

local requests = {}
local next_request = 1
-- Globals, so that done() can read them from each thread with thread:get().
answers, wave_size, wave_ends = 0, 0, {}

function init(args)
  local mode, argument = args[1], args[2]
  math.randomseed(42 + thread_number)
  local n = tonumber(argument)
  for i = 1, 4096 do
    if mode == "pages" or mode == "paced" then
      requests[i] = wrk.format("GET", "/items?page=" .. math.random(1, n) .. "&limit=20")
    elseif mode == "details" then
      requests[i] = wrk.format("GET", "/items/" .. math.random(0, n - 1) .. "/detail")
    elseif mode == "slow" then
      requests[i] = wrk.format("GET", "/items/" .. math.random(0, n - 1) .. "/detail", { ["Cache-Control"] = "no-cache" })
    elseif mode == "path" then
      requests[i] = wrk.format("GET", argument)
    elseif mode == "images" then
      requests[i] = wrk.format("GET", "/items/" .. math.random(0, n - 1) .. "/image?" .. args[3])
    else
      error("load.lua: unknown mode " .. tostring(mode))
    end
  end
  if mode == "paced" then
    local pause = tonumber(args[3])
    delay = function() return pause end
  end
  if mode == "slow" then
    wave_size = tonumber(args[3])
    response = function(status, headers, body)
      answers = answers + 1
      if answers % wave_size == 0 then
        wave_ends[#wave_ends + 1] = now()
      end
    end
  end
end

function request()
  local r = requests[next_request]
  next_request = next_request % #requests + 1
  return r
end

function done(summary, latency, requests_)
  -- Little's-law rate: whole cycles only, from the end of each thread's first wave to the end of its last.
  local rate, window_requests, window_seconds, complete = 0, 0, 0, true
  for _, thread in ipairs(threads) do
    local ends, size = thread:get("wave_ends"), thread:get("wave_size")
    if size > 0 then
      if #ends >= 2 then
        local seconds = ends[#ends] - ends[1]
        rate = rate + (#ends - 1) * size / seconds
        window_requests = window_requests + (#ends - 1) * size
        window_seconds = math.max(window_seconds, seconds)
      else
        complete = false
      end
    end
  end
  if not complete then rate = -1 end
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,' ..
    '"window_requests":%d,"window_seconds":%.6f,"window_rate":%.3f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    window_requests, window_seconds, rate))
end
