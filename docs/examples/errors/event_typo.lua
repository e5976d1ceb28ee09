-- A leaf that sends a misspelt event to its own agent.
local thicket = require("thicket")
local leaves = {}

function leaves.Provoke(agent, args)
  agent:send("figth")
  return thicket.RUNNING
end

return leaves
