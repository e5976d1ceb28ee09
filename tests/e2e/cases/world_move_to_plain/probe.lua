-- thicket.move_to and follow_path walk over many ticks: from a plain leaf (not a thicket.task)
-- they are an error at the caller's line that names the call and the fix (it was Lua's
-- "attempt to yield from outside a coroutine", or a message about coroutine.yield).
local thicket = require("thicket")
local leaves = {}
function leaves.Probe(agent)
  if agent.id ~= 1 then return "success" end
  print(pcall(function() local ok = thicket.move_to(agent, 8.5, 2.5) return ok end))
  print(pcall(function() local ok = thicket.follow_path(agent, {{8.5, 2.5}}) return ok end))
  return "success"
end
return leaves
