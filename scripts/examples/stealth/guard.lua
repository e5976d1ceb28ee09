-- Leaves of the stealth guard (guard.yaml, a hierarchical state machine). The states react to
-- perception events; the leaves read what the senses write into the blackboard: target (the
-- nearest intruder in sight, 0 when none) and last_x/last_y (where one was last seen or heard).
local thicket = require("thicket")
local leaves = {}

-- The rooms' centres, in patrol order (world metres; the map's cell is 1 m).
-- The goal room (top right) is not on the round: intruders that get there are safe unless a
-- guard follows one in.
local rooms = {{8, 8}, {24, 10}, {40, 4}, {57, 30}, {32, 25}, {11, 25}, {32, 34}}

-- Counts a metric when a task starts, but not when it starts again because its agent was
-- restored from a checkpoint (--resume) while it ran.
local function count(name)
  if not thicket.restored() then thicket.metric(name) end
end

-- The room on the round nearest to the agent.
local function nearest_room(agent)
  local mx, my = agent:position()
  local best, best_d = 1, math.huge
  for i, r in ipairs(rooms) do
    local d = (r[1] - mx) ^ 2 + (r[2] - my) ^ 2
    if d < best_d then best, best_d = i, d end
  end
  return best
end

-- calm/patrol: back to the round at the nearest room, then room to room; after args.rooms
-- rooms it is tired (an event to itself: patrol's `tired` leads to rest).
leaves.Patrol = thicket.task(function(agent, args)
  local i = nearest_room(agent)
  local walked = 0
  while true do
    if not thicket.move_to(agent, rooms[i][1], rooms[i][2], {radius = 1.5}) then thicket.metric("plans_failed") end
    walked = walked + 1
    if walked == args.rooms then agent:send("tired") end
    i = i % #rooms + 1
  end
end)

-- calm/rest: stands still (the rest state's `after` ends it).
leaves.Rest = thicket.task(function(agent, args)
  count("rests")
  local x, y = agent:position()
  while true do agent:steer{arrive = {x, y}} coroutine.yield() end
end)

-- alert/search: goes to the last place an intruder was seen or heard (it moves on if that is
-- refreshed on the way), looks round it args.looks times, then gives up (success: back to calm).
leaves.Search = thicket.task(function(agent, args)
  count("searches")
  local x, y
  repeat
    x, y = agent.bb.last_x, agent.bb.last_y
    if not thicket.move_to(agent, x, y, {radius = 1}) then thicket.metric("plans_failed") return false end
  until x == agent.bb.last_x and y == agent.bb.last_y
  for _ = 1, args.looks do
    local a = thicket.random() * 2 * math.pi
    thicket.move_to(agent, x + args.look_radius * math.cos(a), y + args.look_radius * math.sin(a), {radius = 1})
    thicket.wait(0.5)
  end
  thicket.metric("gave_up")
  return true
end)

-- The guard of alert's calm_down: the guard stands within args.radius of the last place an
-- intruder was seen or heard (forgetting on the way there does not end the search).
function leaves.Near(agent, args)
  local mx, my = agent:position()
  return (agent.bb.last_x - mx) ^ 2 + (agent.bb.last_y - my) ^ 2 <= args.radius ^ 2
end

-- combat/engage: runs at the nearest intruder in sight, shoots when it is within shot_range
-- (one round a fire_every seconds; a hit takes `damage` of its 100 health) and catches it
-- within catch_range. When the ammo is out, engage's `when` leads to reload.
leaves.Engage = thicket.task(function(agent, args)
  count("detections")
  local next_shot = thicket.time() + args.fire_every  -- it takes aim first
  while true do
    local id = agent.bb.target
    local x, y = agent:locate(id)
    if x then
      local mx, my = agent:position()
      local d2 = (x - mx) ^ 2 + (y - my) ^ 2
      if d2 <= args.catch_range ^ 2 then
        agent:damage(id, 100)  -- it dies after the tick: the run's `deaths` counts the intruders caught
        thicket.metric("caught")
        thicket.wait(1)
      else
        if d2 <= args.shot_range ^ 2 and thicket.time() >= next_shot and agent.bb.ammo > 0 then
          agent.bb.ammo = agent.bb.ammo - 1
          next_shot = thicket.time() + args.fire_every
          thicket.metric("shots")
          if thicket.random() < args.hit_chance then agent:damage(id, args.damage) thicket.metric("hits") end
        end
        agent:steer{arrive = {x, y}, walls = 1}
      end
    end
    coroutine.yield()
  end
end)

-- combat/reload: reloads for args.seconds while it keeps after the intruder in sight (or
-- stands), then has a full clip (success: reload's transition back to engage).
leaves.Reload = thicket.task(function(agent, args)
  count("reloads")
  local t = thicket.time() + args.seconds
  local hx, hy = agent:position()
  while thicket.time() < t do
    local x, y = agent:locate(agent.bb.target)
    if x then agent:steer{arrive = {x, y}, walls = 1} else agent:steer{arrive = {hx, hy}} end
    coroutine.yield()
  end
  agent.bb.ammo = args.clip
  return true
end)

return leaves
