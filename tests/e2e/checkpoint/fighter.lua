-- Leaves of the checkpoint test's fighter: plain functions and hook tables, no tasks.
local thicket = require("thicket")
local leaves = {}

function leaves.Strike(agent)
  local enemy = agent:nearest(12, {enemies = true})
  if not enemy then return thicket.FAILURE end
  if enemy.distance <= 2.5 then
    agent:damage(enemy.id, 5 + 10 * thicket.random())
    thicket.metric("hits")
  else
    agent:steer{pursue = enemy.id, avoid = 2}
  end
  local x, y = agent:position()
  thicket.noise(x, y, 2, 0.3)
  thicket.metric("shouts")
  return thicket.SUCCESS
end

leaves.Search = {
  tick = function(agent, args, mem)
    mem.ticks = (mem.ticks or 0) + 1
    if mem.ticks == 1 then thicket.metric("searches") end
    agent:steer{seek = {agent.bb.last_x, agent.bb.last_y}, avoid = 2}
    if mem.ticks > 15 then return thicket.SUCCESS end
    return thicket.RUNNING
  end,
}

leaves.Roam = {
  tick = function(agent, args, mem)
    mem.n = (mem.n or 0) + 1
    thicket.gauge("fighters", 1)
    agent:steer{wander = 1, avoid = 2, separation = 0.5}
    if mem.n % 17 == 0 then
      local x, y = agent:position()
      thicket.noise(x, y, 1)
    end
    return thicket.RUNNING
  end,
}

return leaves
