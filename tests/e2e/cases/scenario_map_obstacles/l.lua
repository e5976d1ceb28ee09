local thicket = require("thicket")
local leaves = {}
function leaves.Where(agent)
  local x, y = agent:position()
  print(string.format("tick %d: agent %d at (%g, %g)", thicket.tick(), agent.id, x, y))
  return "success"
end
return leaves
