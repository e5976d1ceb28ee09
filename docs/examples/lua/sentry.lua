local thicket = require("thicket")
local tick, log = thicket.tick, thicket.log -- read once, when the file loads
local SUCCESS = thicket.SUCCESS

local leaves = {}
function leaves.Due(agent, args)
  return (tick() + agent.id) % 4 == 0 -- no lookup through the module's face
end
function leaves.Look(agent, args)
  log("looks around at tick " .. tick())
  return SUCCESS
end
function leaves.Idle(agent, args)
  return SUCCESS
end
return leaves
