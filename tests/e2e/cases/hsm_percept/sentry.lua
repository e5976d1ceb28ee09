local thicket = require("thicket")
local leaves = {}
function leaves.Say(agent, args) print(thicket.tick() .. " agent " .. agent.id .. ": " .. args.what) end
function leaves.Walk(agent)
  agent:steer{seek = {29, 1}}
  return "running"
end
return leaves
