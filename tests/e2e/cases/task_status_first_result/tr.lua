-- A task's status is its first result, as an action's (the last one was taken).
local thicket = require("thicket")
local leaves = {}
leaves.Ok = thicket.task(function() coroutine.yield() return "success", 5 end)
leaves.Why = thicket.task(function() return false, "why" end)
leaves.No = thicket.task(function() return "failure", true end)
leaves.OkNil = thicket.task(function() return "success", nil end)
function leaves.Say() print(thicket.tick() .. " all as their first result") return true end
return leaves
