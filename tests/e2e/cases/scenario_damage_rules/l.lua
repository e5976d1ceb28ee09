local thicket = require("thicket")
local leaves = {}
function leaves.Idle(agent) return "running" end
function leaves.Hit(agent)
  if thicket.tick() == 1 then
    agent:damage(2, 5)  -- shielded: nothing
    agent:damage(3, 5)  -- counted: an error of agent 1's, the damage lost
    print(pcall(function() agent:damage(3, -5) end))  -- a negative amount is refused (it healed)
  end
  return "running"
end
return leaves
