-- wrk script for Benchmarks/writes/run.sh: writes, and a machine-readable report.
--
--   wrk ... -s Benchmarks/writes/writes.lua <url> -- post
--   wrk ... -s Benchmarks/writes/writes.lua <url> -- delete RANGE STOP_AFTER
--
-- Modes:
--   post                    POST /items {"label":"posted by wrk <thread> <n>"}, Content-Type application/json
--   delete RANGE STOP_AFTER DELETE /items/<uniform 0..RANGE-1> (ids drawn from a fixed seed per thread); each thread
--                           stops once it has seen STOP_AFTER / threads answers of 204 (the whole run: STOP_AFTER)
--
-- Every answer's status is counted (response()), and every request sent (request()), so done() can tell how many
-- were still on the wire when wrk stopped: the server may have committed those without wrk seeing the answer.
-- done() prints one line, "BENCH {json}", with the fields of Benchmarks/load/load.lua's line (wrk's counters and
-- latency percentiles in microseconds) plus "sent", "s201", "s204", "s404" and "other" (answers by status).

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("thread_number", counter)
  table.insert(threads, thread)
end

-- Globals, so that done() can read them from each thread with thread:get().
sent, s201, s204, s404, other = 0, 0, 0, 0, 0
local mode, range, stop_at
local body_prefix

function init(args)
  mode = args[1]
  math.randomseed(4242 + thread_number)
  if mode == "post" then
    body_prefix = '{"label":"posted by wrk ' .. thread_number .. ' '
  elseif mode == "delete" then
    range = tonumber(args[2])
    -- Every thread takes an equal share of the answers asked for (rounded up).
    stop_at = math.ceil(tonumber(args[3]) / counter_threads())
  else
    error("writes.lua: unknown mode " .. tostring(mode))
  end
end

-- init() runs in each thread's own Lua state, where setup()'s counter is not visible: wrk passes the thread
-- count in the environment of run.sh instead (WRK_THREADS).
function counter_threads()
  return tonumber(os.getenv("WRK_THREADS") or "1")
end

local post_headers = { ["Content-Type"] = "application/json" }

function request()
  sent = sent + 1
  if mode == "post" then
    return wrk.format("POST", "/items", post_headers, body_prefix .. sent .. '"}')
  else
    -- math.random(m, n) over 2^53 values: LuaJIT draws a double in [0, 1) with 52 random bits and scales it, so
    -- the ids are spread over the whole range (every other id reachable, which is all a spread needs).
    local id = math.floor(math.random() * range)
    if id >= range then id = range - 1 end
    return wrk.format("DELETE", string.format("/items/%.0f", id))
  end
end

function response(status, headers, body)
  if status == 201 then
    s201 = s201 + 1
  elseif status == 204 then
    s204 = s204 + 1
    if stop_at and s204 >= stop_at then wrk.thread:stop() end
  elseif status == 404 then
    s404 = s404 + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests_)
  local t_sent, t201, t204, t404, t_other = 0, 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    t_sent = t_sent + thread:get("sent")
    t201 = t201 + thread:get("s201")
    t204 = t204 + thread:get("s204")
    t404 = t404 + thread:get("s404")
    t_other = t_other + thread:get("other")
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,' ..
    '"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,' ..
    '"sent":%d,"s201":%d,"s204":%d,"s404":%d,"other":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    t_sent, t201, t204, t404, t_other))
end
