-- Clock prints the agent's clock at each of its ticks; Sleep waits one second of sim time.
local thicket = require("thicket")
local leaves = {}
function leaves.Clock(agent)
  print(string.format("agent %d tick %d time %.2f dt %.2f", agent.id, thicket.tick(), thicket.time(), thicket.dt()))
  return thicket.RUNNING
end
leaves.Sleep = thicket.task(function(agent)
  thicket.wait(1.0)
  print(string.format("agent %d woke at %.2f", agent.id, thicket.time()))
  return thicket.SUCCESS
end)
return leaves
