local thicket = require("thicket")
local L = {}
function L.Idle() return thicket.RUNNING end
L.Work = thicket.task(function(agent)
  local c <close> = thicket.defer(function() error({code = 1}) end)
  agent.bb.stop = true
  while true do coroutine.yield() end
end)
return L
