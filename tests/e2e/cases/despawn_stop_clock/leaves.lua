local thicket = require("thicket")
local L = {}
local function p(agent, s)
  print(string.format("t=%.1f tick %d agent %d %s", thicket.time(), thicket.tick(), agent.id, s))
end
L.Watch = {
  start = function(agent) p(agent, "start") end,
  tick = function(agent)
    p(agent, "tick")
    if agent.id == 1 and thicket.tick() == 2 then thicket.despawn(2) end
    if agent.id == 1 and thicket.tick() == 3 then thicket.despawn(1) end
    return thicket.RUNNING
  end,
  stop = function(agent, args, mem, status) p(agent, "stop " .. status) end,
}
return L
