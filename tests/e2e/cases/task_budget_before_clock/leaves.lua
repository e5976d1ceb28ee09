local thicket = require("thicket")
local L = {}
-- ~9 ns an instruction (a library call among plain ones): its 2,000,000 instructions take
-- ~17 ms, past the 5 ms limit. (string.format was first tried here: ~21 ns an instruction in
-- the Release build, but ~125 in the ASan one, whose printf is intercepted: past 100 ns.)
L.Sines = thicket.task(function(agent, args)
  local n = 0
  local guard <close> = thicket.defer(function() print("sines stopped after " .. n .. " calls") end)
  while true do
    n = n + 1
    local x = math.sin(n)
  end
end)
-- Each instruction upper-cases a megabyte: the clock stops it, at 200 ms.
L.Shouter = thicket.task(function(agent, args)
  local s = string.rep("a", 1000000)
  while true do
    local u = s:upper()
  end
end)
return L
