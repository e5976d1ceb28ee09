-- Leaves that hand the host megabytes: the messages quote the start of the text and its size,
-- and a long answer costs no more than a short one (no "did you mean" over it).
local thicket = require("thicket")
local leaves = {}

function leaves.Shout(agent, args)
  return string.rep("s", 2000000)  -- not a status
end

function leaves.Stuff(agent, args)
  agent.bb.wood = string.rep("w", 1000000)  -- wood is a number
  return thicket.SUCCESS
end

function leaves.Loud(agent, args)
  return string.rep("x", 2000000)  -- a condition: any value's truth
end

function leaves.Done(agent, args)
  print("done at tick " .. thicket.tick())
  return thicket.SUCCESS
end

return leaves
