local thicket = require("thicket")
local leaves = {}
function leaves.Provoke(agent)
  agent:send("heartbeat")        -- taken by no state, and near none: dropped without a word
  if thicket.tick() == 1 then agent:send("calm_down2") end  -- differs only in digits: meant so
  if thicket.tick() < 3 then
    agent:send("figth")          -- a typo of 'fight'
    thicket.send(agent.id, "figth")
    return thicket.RUNNING
  end
  agent:send("fight")
  return thicket.RUNNING
end
function leaves.Taunt(agent) return thicket.RUNNING end
return leaves
