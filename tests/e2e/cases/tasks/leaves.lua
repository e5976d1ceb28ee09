local thicket = require("thicket")
local L = {}
-- wait(1.0) at dt 0.5 spans three ticks, as the wait node does.
L.Waiter = thicket.task(function(agent, args)
  print(string.format("%d waiter starts at t=%.1f", thicket.tick(), thicket.time()))
  thicket.wait(1.0)
  print(string.format("%d waiter woke at t=%.1f", thicket.tick(), thicket.time()))
  return thicket.SUCCESS
end)
-- An endless loop is stopped by the instruction budget, and its cleanup still runs.
L.Spinner = thicket.task(function(agent, args)
  local guard <close> = thicket.defer(function() print(thicket.tick() .. " spinner cleanup") end)
  print(thicket.tick() .. " spinner spins")
  while true do end
end)
-- A runtime error fails the task with the Lua position; cleanup runs once.
L.Broken = thicket.task(function(agent, args)
  local guard <close> = thicket.defer(function() print(thicket.tick() .. " broken cleanup") end)
  coroutine.yield()
  error("the bridge is out")
end)
return L
