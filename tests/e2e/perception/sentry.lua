local thicket = require("thicket")
local leaves = {}
leaves.Doze = {
  start = function(agent) thicket.log("dozing") end,
  tick = function(agent) return "running" end,
  stop = function(agent, args, mem, status) thicket.log("doze stops: " .. status) end,
}
leaves.Alarm = {
  start = function(agent) thicket.log(string.format("alarm: agent %d in sight (sees: %s)", agent.bb.seen_id,
    tostring(agent:sees(agent.bb.seen_id)))) end,
  tick = function(agent) return "running" end,
}
function leaves.Walk(agent)
  agent:steer{seek = {18, 0}}
  return "running"
end
return leaves
