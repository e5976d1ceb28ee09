-- The guards' Lua leaves (guard.yaml). Change a number below, save, and the guards use it from
-- the next frame: the game reloads this file while it runs.
local thicket = require("thicket")
local S, F, R = thicket.SUCCESS, thicket.FAILURE, thicket.RUNNING
local leaves = {}

local SIGHT_RANGE = 7     -- metres a guard sees (one map cell is a metre)
local SIGHT_ANGLE = 40    -- degrees either side of where it faces
local HEARING = 0.06      -- the faintest sound it hears (a running player: 4 at 1 m, 1/d^2)
local WALK = 1.4          -- m/s on its round
local HURRY = 2.2         -- m/s to where the player was last seen or heard
local RUN = 3.0           -- m/s after the player
local LOOKS = 3           -- glances round when it gets there
local GLANCE = 0.7        -- seconds per glance

-- duty's act, every tick: the senses the game gives this guard from the next frame.
function leaves.Watch(agent)
  agent.bb.sight_range = SIGHT_RANGE
  agent.bb.sight_angle = SIGHT_ANGLE
  agent.bb.hearing = HEARING
  return R
end

-- The route, "x,y x,y ..." in cells, as a list of points at the cells' centres (kept per agent).
local function route(agent)
  if agent.route_text ~= agent.bb.route then
    agent.route_text = agent.bb.route
    agent.points = {}
    for x, y in string.gmatch(agent.bb.route, "(%-?%d+),(%-?%d+)") do
      agent.points[#agent.points + 1] = {tonumber(x) + 0.5, tonumber(y) + 0.5}
    end
    agent.next = 1
  end
  return agent.points
end

local function go(agent, x, y, speed)
  agent.bb.goal_x, agent.bb.goal_y, agent.bb.speed = x, y, speed
end

-- patrol: the next point of the route, in order, round and round.
function leaves.NextPoint(agent)
  local points = route(agent)
  if #points == 0 then return F end
  local p = points[agent.next]
  agent.next = agent.next % #points + 1
  go(agent, p[1], p[2], WALK)
  return S
end

-- going_back: the point of the route nearest to the guard; the round goes on from there.
function leaves.NearestPoint(agent)
  local points = route(agent)
  if #points == 0 then return F end
  local best, best_d = 1, math.huge
  for i, p in ipairs(points) do
    local d = (p[1] - agent.bb.x) ^ 2 + (p[2] - agent.bb.y) ^ 2
    if d < best_d then best, best_d = i, d end
  end
  agent.next = best % #points + 1
  go(agent, points[best][1], points[best][2], WALK)
  return S
end

-- investigate: to the last place the player was seen or heard.
function leaves.GoToLast(agent)
  go(agent, agent.bb.last_x, agent.bb.last_y, HURRY)
  return S
end

-- chase: keeps the goal on the player while it is in sight (MoveTo re-plans as it moves).
function leaves.Chase(agent)
  go(agent, agent.bb.last_x, agent.bb.last_y, RUN)
  return R
end

-- investigate: stands and looks round, LOOKS glances; then it gives up (success).
leaves.LookAround = thicket.task(function(agent)
  local head <close> = thicket.defer(function() agent.bb.look = -1 end)  -- eyes front again
  local base = thicket.random(0, 359)
  for i = 1, LOOKS do
    agent.bb.look = (base + i * 120) % 360
    thicket.wait(GLANCE)
  end
  return S
end)

return leaves
