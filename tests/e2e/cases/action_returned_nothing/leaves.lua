local thicket = require("thicket")
local leaves = {}

function leaves.Walk(agent, args)
  agent.bb.steps = agent.bb.steps + 1
end

leaves.Patrol = {
  tick = function(agent, args, mem)
    agent.bb.steps = agent.bb.steps + 1
  end,
}

leaves.Wander = thicket.task(function(agent, args)
  coroutine.yield()
end)

function leaves.Quiet(agent, args)
  return nil
end

function leaves.Near(agent, args)
  if agent.bb.steps > 100 then return true end
end

function leaves.Done(agent, args)
  return thicket.SUCCESS
end

function leaves.Count(agent, args)
  print("steps " .. agent.bb.steps)
  return thicket.SUCCESS
end

return leaves
