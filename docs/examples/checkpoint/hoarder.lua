local thicket = require("thicket")
local leaves = {}
function leaves.MakePlan(agent) agent.bb.plan = function() return 1 end return true end
leaves.Follow = thicket.task(function(agent)
  local plan = agent.bb.plan  -- a function: a journal cannot keep it
  while true do coroutine.yield() end
end)
return leaves
