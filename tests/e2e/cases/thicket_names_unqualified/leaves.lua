local thicket = require("thicket")
local S = SUCCESS
local leaves = {}
function leaves.Top(agent) return S end
function leaves.Inside(agent)
  if agent.bb then return RUNNING end
end
function leaves.Clock(agent) return thicket.tick + 1 > 0 end
leaves.Waits = thicket.task(function(agent) wait(1) end)
function leaves.Unset(agent)
  if DEBUG then print("debug") end
  return false
end
return leaves
