-- Player leaves for the arena scenario.
local thicket = require("thicket")
local leaves = {}

function leaves.MinionNear(agent, args)
  return agent:nearest(args.range, {team = "minions"}) ~= nil
end

-- Runs directly away from the nearest minion; finishes once none is in range.
function leaves.Flee(agent, args)
  local m = agent:nearest(args.range, {team = "minions"})
  if not m then
    thicket.metric("escapes")
    return thicket.SUCCESS
  end
  agent:steer{flee = {m.x, m.y, weight = 2}, avoid = 2}
  return thicket.RUNNING
end

-- Walks to a random point of the map, then picks another.
leaves.Wander = thicket.task(function(agent, args)
  while true do
    local x = args.margin + thicket.random() * (160 - 2 * args.margin)
    local y = args.margin + thicket.random() * (100 - 2 * args.margin)
    thicket.move_to(agent, x, y, 2)
  end
end)

return leaves
