local thicket = require("thicket")
local L = {}
-- ~20 ns an instruction: its 1,000,000 instructions take ~20 ms, past the 10 ms limit.
L.Formatter = thicket.task(function(agent, args)
  local n = 0
  local guard <close> = thicket.defer(function() print("formatter stopped after " .. n .. " calls") end)
  while true do
    n = n + 1
    local s = string.format("%d", n)
  end
end)
-- Each instruction upper-cases a megabyte: the clock stops it, at 100 ms.
L.Shouter = thicket.task(function(agent, args)
  local s = string.rep("a", 1000000)
  while true do
    local u = s:upper()
  end
end)
return L
