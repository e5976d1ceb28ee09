local thicket = require("thicket")
local leaves = {}
function leaves.Shout(agent)
  local x, y = agent:position()
  thicket.noise(x, y, -1)
  return "success"
end
return leaves
