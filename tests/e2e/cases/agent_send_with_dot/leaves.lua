local thicket = require("thicket")
local leaves = {}
function leaves.Alarm(agent, args)
  agent.send("alarm")
  return thicket.RUNNING
end
return leaves
