local thicket = require("thicket")
local leaves = {}
function leaves.Say(agent)
  print("tick " .. thicket.tick() .. " agent " .. agent.id)
  return true
end
return leaves
