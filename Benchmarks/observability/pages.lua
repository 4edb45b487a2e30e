-- wrk script for Benchmarks/observability/cost.sh: GET /items?page=<uniform 1..500>&limit=20.
-- Each wrk thread draws 4096 requests once, from a fixed seed, so every run sends the same mix.
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("thread_number", counter)
end

local requests = {}
local next_request = 1

function init(args)
  math.randomseed(42 + thread_number)
  for i = 1, 4096 do
    requests[i] = wrk.format("GET", "/items?page=" .. math.random(1, 500) .. "&limit=20")
  end
end

function request()
  local r = requests[next_request]
  next_request = next_request % #requests + 1
  return r
end
