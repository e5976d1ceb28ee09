-- Leaves of the minion example (a behavior machine): each behavior is a coroutine task.
-- Agent 1 narrates its story on standard output. The spawn point is (0, 0).
local thicket = require("thicket")
local S, F = thicket.SUCCESS, thicket.FAILURE
local leaves = {}

local function say(agent, text)
  if agent.id == 1 then print(string.format("t=%5.1f minion %d %s", thicket.time(), agent.id, text)) end
end

-- The player walks a 16 m circle around (8, 0) at 2.5 m/s, starting at a point of the
-- circle drawn from the agent's random stream.
local function player(agent)
  if not agent.phase then agent.phase = thicket.random() * 2 * math.pi end
  local a = agent.phase + thicket.time() * 2.5 / 16
  return 8 + 16 * math.cos(a), 16 * math.sin(a)
end

local function distance(x1, y1, x2, y2) return math.sqrt((x2 - x1) ^ 2 + (y2 - y1) ^ 2) end

-- Moves the minion toward (tx, ty) by speed * dt; true once there.
local function step_toward(agent, tx, ty, speed)
  local bb = agent.bb
  local d = distance(bb.x, bb.y, tx, ty)
  local step = speed * thicket.dt()
  if d <= step then
    bb.x, bb.y = tx, ty
    return true
  end
  bb.x, bb.y = bb.x + (tx - bb.x) / d * step, bb.y + (ty - bb.y) / d * step
  return false
end

-- Once it has set off home it keeps going until it is there, as in ET's minion: the check
-- holds while the return is under way.
function leaves.FarFromSpawn(agent, args)
  return agent.returning or distance(agent.bb.x, agent.bb.y, 0, 0) > args.limit
end

function leaves.PlayerNear(agent, args)
  local px, py = player(agent)
  return distance(agent.bb.x, agent.bb.y, px, py) < args.range
end

function leaves.Always() return true end

leaves.ReturnHome = thicket.task(function(agent, args)
  -- The buff lasts exactly as long as the task: it ends on arrival or on cancellation.
  local buff <close> = thicket.defer(function()
    agent.bb.invincible = false
    say(agent, "is no longer invincible")
  end)
  agent.bb.invincible = true
  agent.returning = true
  agent.bb.returns = agent.bb.returns + 1
  say(agent, string.format("is %.1f m from spawn: returns home, invincible", distance(agent.bb.x, agent.bb.y, 0, 0)))
  while not step_toward(agent, 0, 0, args.speed) do coroutine.yield() end
  agent.returning = false
  say(agent, "is home")
  return S
end)

leaves.ChaseAndAttack = thicket.task(function(agent, args)
  say(agent, "sees the player: gives chase")
  while true do
    local px, py = player(agent)
    if distance(agent.bb.x, agent.bb.y, px, py) <= args.reach then
      agent.bb.hits = agent.bb.hits + 1
      say(agent, string.format("hits the player (hit %d)", agent.bb.hits))
      thicket.wait(1.0)                 -- the attack's cool-down, on the sim clock
    else
      step_toward(agent, px, py, args.speed)
      coroutine.yield()
    end
  end
end)

leaves.Patrol = thicket.task(function(agent, args)
  say(agent, "patrols around spawn")
  local r = args.radius
  for _, p in ipairs({ {r, 0}, {0, r}, {-r, 0}, {0, -r} }) do
    while not step_toward(agent, p[1], p[2], args.speed) do coroutine.yield() end
    thicket.wait(0.5)
  end
  return S                              -- the next check starts a new round
end)

return leaves
