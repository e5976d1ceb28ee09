local thicket = require("thicket")
local leaves = {}
function leaves.Rest(agent) return true end

function Patrol(agent, args)
  return thicket.SUCCESS
end
return leaves
