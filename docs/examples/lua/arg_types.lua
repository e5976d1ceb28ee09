local thicket = require("thicket")
local leaves = {}

-- A hook table declares its args beside its hooks.
leaves.Work = {args = {per_log = "number", label = "string?"}, tick = function(agent, args, mem)
  agent.bb.wood = agent.bb.wood + args.per_log
  return "success"
end}

-- A plain function or a task goes under `fn`, with `args` beside it.
leaves.Enough = {args = {min = "integer"}, fn = function(agent, args)
  return agent.bb.wood >= args.min
end}
leaves.Rest = {args = {ticks = "integer?"}, fn = thicket.task(function(agent, args)
  for _ = 1, args.ticks or 1 do coroutine.yield() end
  return "success"
end)}

return leaves
