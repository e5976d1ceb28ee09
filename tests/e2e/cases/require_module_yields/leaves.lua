local thicket = require("thicket")
local L = {}
L.Fetch = thicket.task(function(agent)
  local slow = require("slow")
  return slow.x
end)
function L.Peek(agent) return require("slow").x end
return L
