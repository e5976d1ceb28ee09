local thicket = require("thicket")
local L = {}
L.Hold = {
  tick = function(agent)
    if agent.id == 1 then for i = 2, 5 do agent:damage(i, 1000) end end
    return thicket.RUNNING
  end,
  stop = function(agent)
    local near = agent:nearest(100)
    local friends = agent:neighbours(100, {friends = true})
    print(("agent %d stops at tick %d: %d neighbours, %d of them friends, the nearest agent %d"):format(
      agent.id, thicket.tick(), #agent:neighbours(1000), #friends, near.id))
  end,
}
return L
