local thicket = require("thicket")
local leaves = {}

-- The agent's clock into the metrics, and a step towards a point that moves with it: a clock
-- brought back wrong after a resume shows in the --out row and in the record's positions.
function leaves.Clock(agent)
  thicket.metric("clock", thicket.time())
  thicket.metric("step", thicket.dt())
  agent:steer({seek = {2 + thicket.time() * 4, 10}})
  return thicket.SUCCESS
end

return leaves
