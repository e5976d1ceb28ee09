local thicket = require("thicket")
local leaves = {}
leaves.Work = {args = {per_log = "number", label = "string?"}, tick = function(agent, args, mem)
  agent.bb.wood = agent.bb.wood + args.per_log
  return "success"
end}
leaves.Ready = {args = {min = "integer"}, fn = function(agent, args) return agent.bb.wood >= args.min end}
leaves.Chop = {args = {times = "integer?"}, fn = thicket.task(function(agent, args)
  coroutine.yield()
  return "success"
end)}
return leaves
