local thicket = require("thicket")
local leaves = {}
function leaves.Show(agent)
  print(thicket.tick(), agent.bb.coins, math.type(agent.bb.coins))
  return "running"
end
return leaves
