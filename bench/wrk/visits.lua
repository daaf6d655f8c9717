-- Visits short links as many distinct visitors, in a sequence the harness can replay.
--
-- Run with as many threads as connections, so that each thread has one connection and
-- its responses arrive in the order it sent the requests. Thread N draws (code, visitor)
-- pairs from a MINSTD generator seeded with N; done() prints how many requests each
-- thread sent and how many it saw answered, and the harness replays the sequences to
-- know exactly which unique visits the service must have counted.
-- Arguments: <codes file> <number of visitors> <path prefix>
local next_id = 1
local threads = {}

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local codes = {}
local state, visitors, prefix
sent, answered, wrong = 0, 0, 0

function init(args)
  for line in io.lines(args[1]) do
    codes[#codes + 1] = line
  end
  visitors = tonumber(args[2])
  prefix = args[3]
  state = id
end

local function draw()
  state = (state * 48271) % 2147483647
  return state
end

function request()
  local code = codes[(draw() % #codes) + 1]
  local visitor = draw() % visitors
  sent = sent + 1
  return wrk.format("GET", prefix .. code, { ["User-Agent"] = "bench-visitor-" .. visitor })
end

function response(status, headers, body)
  answered = answered + 1
  if status ~= 302 and status ~= 301 then
    wrong = wrong + 1
  end
end

function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    io.write(string.format("visits-thread %d %d %d %d\n", thread:get("id"), thread:get("sent"), thread:get("answered"), thread:get("wrong")))
  end
end
