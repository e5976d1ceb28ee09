local thicket = require("thicket")
local leaves = {}
function leaves:Patrol(agent, args)
  return agent.bb ~= nil  -- agent is the args here: no bb
end
function leaves:Fine(args)
  return self.id == 0
end
leaves.Finish = thicket.task(function(agent, args)
  print(thicket.tick() .. " finishing")
  coroutine.yield(thicket.SUCCESS)
  print(thicket.tick() .. " still running")
  coroutine.yield(thicket.FAILURE)
  return thicket.SUCCESS
end)
return leaves
