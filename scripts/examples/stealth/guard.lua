-- Leaves of the stealth guard. What it perceives arrives in its blackboard (stealth.yaml,
-- `senses: blackboard:`); agent:memory() and agent:percepts() give the details.
local thicket = require("thicket")
local leaves = {}

-- The rooms' centres, in patrol order (world metres; the map's cell is 1 m).
-- The goal room (top right) is not on the round: intruders that get there are safe unless a
-- guard follows one in.
local rooms = {{8, 8}, {24, 10}, {40, 4}, {57, 30}, {32, 25}, {11, 25}, {32, 34}}

-- Runs at the intruder in sight and catches it within catch_range. The chase's abort gives
-- way (the tree falls through to the search) the tick the intruder leaves sight.
leaves.Chase = thicket.task(function(agent, args)
  thicket.metric("detections")
  while true do
    local id = agent.bb.target
    local x, y = agent:locate(id)
    if not x then return false end
    local mx, my = agent:position()
    if (x - mx) ^ 2 + (y - my) ^ 2 <= args.catch_range ^ 2 then
      agent:damage(id, 100)  -- it dies after the tick: the run's `deaths` counts the intruders caught
      thicket.wait(1)
      return true
    end
    agent:steer{arrive = {x, y}, walls = 1}
    coroutine.yield()
  end
end)

-- Goes to the last place an intruder was seen or heard (memory_x/y: it moves on if the memory
-- is refreshed), then looks round it until the memory fades: the search's `self` abort ends
-- this the tick `suspicious` turns false.
leaves.Search = thicket.task(function(agent, args)
  thicket.metric("searches")
  local x, y
  repeat
    x, y = agent.bb.last_x, agent.bb.last_y
    if not thicket.move_to(agent, x, y, {radius = 1}) then thicket.metric("plans_failed") break end
  until x == agent.bb.last_x and y == agent.bb.last_y
  while true do
    local a = thicket.random() * 2 * math.pi
    thicket.move_to(agent, x + args.look_radius * math.cos(a), y + args.look_radius * math.sin(a), {radius = 1})
    thicket.wait(0.5)
  end
end)

-- Room to room, forever; each guard starts at its own room.
leaves.Patrol = thicket.task(function(agent, args)
  local i = agent.id % #rooms
  while true do
    i = i % #rooms + 1
    if not thicket.move_to(agent, rooms[i][1], rooms[i][2], {radius = 1.5}) then thicket.metric("plans_failed") end
  end
end)

return leaves
