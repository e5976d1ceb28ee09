local thicket = require("thicket")
local leaves = {}

function leaves.Plan(agent)
  agent:path_to(60, 4, {budget = 3})
  return thicket.RUNNING
end

return leaves
