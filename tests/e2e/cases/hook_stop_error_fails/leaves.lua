local thicket = require("thicket")
local L = {}
L.BadStop = {
  tick = function(agent, args, mem) print("tick BadStop") return thicket.SUCCESS end,
  stop = function(agent, args, mem, status) print("stop BadStop", status) error("stop boom") end,
}
function L.After() print("After") return true end
return L
