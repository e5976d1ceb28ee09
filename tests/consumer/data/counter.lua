-- The leaf of counter.yaml: running until the agent's count reaches its target.
local thicket = require("thicket")
local leaves = {}

function leaves.CountUp(agent, args)
  agent.bb.count = agent.bb.count + args.step
  if agent.bb.count >= agent.bb.target then return thicket.SUCCESS end
  return thicket.RUNNING
end

return leaves
