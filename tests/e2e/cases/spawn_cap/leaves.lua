local thicket = require("thicket")
local leaves = {}
function leaves.Breed(agent)
  print(string.format("t=%.1f agent %d", thicket.time(), agent.id))
  for _ = 1, 10 do thicket.spawn("breeder") end
  return thicket.SUCCESS
end
return leaves
