-- Minion leaves for the arena scenario: coroutine tasks steering in the world.
local thicket = require("thicket")
local leaves = {}

local function home_distance(agent)
  local x, y = agent:position()
  return math.sqrt((x - agent.bb.home_x) ^ 2 + (y - agent.bb.home_y) ^ 2)
end

-- Once it sets off home it keeps going until there (the check holds while returning).
function leaves.FarFromHome(agent, args)
  thicket.gauge("minions_left", 1)  -- the first check: every living minion counts itself
  return agent.returning or home_distance(agent) > args.limit
end

function leaves.EnemyNear(agent, args)
  return agent:nearest(args.range, {enemies = true}) ~= nil
end

function leaves.Always() return true end

leaves.ReturnHome = thicket.task(function(agent, args)
  local buff <close> = thicket.defer(function()
    agent.bb.invincible = false
    agent.returning = false
  end)
  agent.bb.invincible = true
  agent.returning = true
  thicket.metric("returns")
  thicket.move_to(agent, agent.bb.home_x, agent.bb.home_y, 2)
  return thicket.SUCCESS
end)

leaves.Hunt = thicket.task(function(agent, args)
  thicket.metric("chases")
  while true do
    local enemy = agent:nearest(12, {enemies = true})
    if not enemy then return thicket.SUCCESS end
    if enemy.distance <= args.reach then
      agent:damage(enemy.id, args.damage)
      thicket.metric("strikes")
      agent:steer{arrive = {enemy.x, enemy.y, slow = 1}}
      thicket.wait(0.5)
    else
      agent:steer{pursue = enemy.id, separation = 1, avoid = 2}
      coroutine.yield()
    end
  end
end)

leaves.Patrol = thicket.task(function(agent, args)
  local a = thicket.random() * 2 * math.pi
  local r = args.radius * math.sqrt(thicket.random())
  thicket.move_to(agent, agent.bb.home_x + r * math.cos(a), agent.bb.home_y + r * math.sin(a), 1)
  thicket.wait(thicket.random() * 2)
  return thicket.SUCCESS
end)

return leaves
