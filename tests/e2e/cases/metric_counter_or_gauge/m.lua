local thicket = require("thicket")
local leaves = {}
-- Agent 1 counts 'hits'; agent 2 reports it as a gauge: in tick 1 both are new (agent 1's kind
-- counts, agent 2's report is dropped and said once), from tick 2 on agent 2's call is an error.
function leaves.Report(agent)
  if agent.id == 1 then thicket.metric("hits", 10) else thicket.gauge("hits", 1) end
  thicket.gauge("level", agent.id)
  return thicket.RUNNING
end
return leaves
