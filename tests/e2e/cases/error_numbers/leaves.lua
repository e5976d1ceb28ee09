local thicket = require("thicket")
local L = {}
function L.Number(agent) error(42) end
L.TaskNumber = thicket.task(function(agent, args)
  error(4.5)
end)
function L.NoPosition(agent) error("text without a position", 0) end
return L
