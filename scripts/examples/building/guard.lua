-- Leaves of the building guard.
local thicket = require("thicket")
local leaves = {}

-- The rooms' centres, in patrol order (world metres; the map's cell is 1 m).
local rooms = {{8, 8}, {24, 10}, {40, 4}, {57, 8}, {57, 30}, {32, 25}, {11, 25}, {32, 34}}

-- True while an intruder is in sight (remembering where) or a sighting is being looked into.
function leaves.SeesIntruder(agent, args)
  local seen = agent:nearest(args.range, {team = "intruders", sight = true, fov = args.fov})
  if seen then
    if not agent.bb.suspicious then thicket.metric("sightings") end
    agent.bb.seen_x, agent.bb.seen_y, agent.bb.suspicious = seen.x, seen.y, true
  end
  return agent.bb.suspicious
end

-- Goes to the last place an intruder was seen (following it there while it stays in sight),
-- catches it if it is close, else looks around and gives up.
leaves.Investigate = thicket.task(function(agent, args)
  thicket.metric("investigations")
  repeat
    local x, y = agent.bb.seen_x, agent.bb.seen_y
    if not thicket.move_to(agent, x, y, {radius = 1}) then thicket.metric("plans_failed") break end
  until x == agent.bb.seen_x and y == agent.bb.seen_y
  local caught = agent:nearest(args.catch_range, {team = "intruders"})
  if caught then
    agent:damage(caught.id, 100)
    thicket.metric("caught")
  end
  thicket.wait(args.look_seconds)
  agent.bb.suspicious = false
  return true
end)

-- Room to room, forever; each guard starts at its own room.
leaves.Patrol = thicket.task(function(agent, args)
  local i = agent.id % #rooms
  while true do
    i = i % #rooms + 1
    if thicket.move_to(agent, rooms[i][1], rooms[i][2], {radius = 1.5}) then thicket.metric("patrol_legs")
    else thicket.metric("plans_failed") end
  end
end)

return leaves
