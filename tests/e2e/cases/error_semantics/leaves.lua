local thicket = require("thicket")
local L = {}
-- A condition that raises an error fails for that tick, even under negate.
function L.Broken(agent, args) error("sensor offline") end
function L.Report(agent, args) print(thicket.tick() .. " " .. args.what) return true end
-- A task keeps running by yielding; returning running is an error and fails it.
L.Confused = thicket.task(function(agent, args) return thicket.RUNNING end)
return L
