-- wrk script for Benchmarks/chat/pages.sh: a page of 20 items, or of 20 messages of conversation 0, at a spread of
-- depths (the same walk for every run).
--
--   wrk ... -s Benchmarks/chat/pages.lua <url> -- items|messages [PAUSE]
--
-- With PAUSE, each connection waits PAUSE milliseconds after each answer (the paced method of pages.sh).
local n = 0
local mode = "items"

function init(args)
  mode = args[1] or "items"
  local pause = tonumber(args[2])
  if pause then
    delay = function() return pause end
  end
end

function request()
  n = n + 1
  if mode == "items" then
    return wrk.format("GET", "/items?page=" .. (n % 500 + 1) .. "&limit=20")
  end
  return wrk.format("GET", "/conversations/0/messages?after=" .. ((n * 37) % 9900) .. "&limit=20")
end
