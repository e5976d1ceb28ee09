local thicket = require("thicket")
local leaves = {}
function leaves.Knock(agent, args)
  if thicket.tick() >= 2 then return "open" end   -- meant "open_up"
end
function leaves.Wait(agent, args) return thicket.RUNNING end
return leaves
