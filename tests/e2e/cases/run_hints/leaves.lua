local thicket = require("thicket")
local leaves = {}
function leaves.Heal(agent) agent.bb.health = 90 end
leaves.Spell = thicket.task(function(agent)
  local s = string.gsub("abc", "b", function(c) coroutine.yield() return c end)
  return true
end)
return leaves
