-- Requests a random path from a file, one per line.
-- Arguments: <paths file> [method] [body file]
local paths = {}

function init(args)
  for line in io.lines(args[1]) do
    paths[#paths + 1] = line
  end
  if args[2] then
    wrk.method = args[2]
  end
  if args[3] then
    local file = io.open(args[3], "rb")
    wrk.body = file:read("*a")
    file:close()
  end
  math.randomseed(os.time() + (id or 0))
end

function request()
  return wrk.format(nil, paths[math.random(#paths)])
end
