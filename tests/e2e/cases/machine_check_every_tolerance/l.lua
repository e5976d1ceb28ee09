local thicket = require("thicket")
local L = {}
function L.Yes(agent, args) print(thicket.tick(), "check", args.n) return true end
L.Run = thicket.task(function(agent, args)
  local c <close> = thicket.defer(function() print(thicket.tick(), "close", args.n) end)
  for i = 1, (args.k or 100) do print(thicket.tick(), "run", args.n, i); coroutine.yield() end
  return thicket.SUCCESS
end)
return L
